# SPDX-License-Identifier: GPL-2.0
# librths's one error convention (include/rths/error.h) and its test.

LIBRTHS_SRCS += lib/common/error.c lib/common/alloc.c

UNIT_TESTS += test_errors

# The test checks the table in librths.rst against the library.
$(foreach v,$(VARIANTS),$(O)/$(v)/tests/unit/test_errors.o): \
	CPPFLAGS_COMMON += -DRTHS_DOC_DIR='"$(TOP)/Documentation"'
