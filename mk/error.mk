# SPDX-License-Identifier: GPL-2.0
# librths's one error convention (include/rths/error.h) and its test.

LIBRTHS_SRCS += lib/common/error.c

UNIT_TESTS += test_errors
