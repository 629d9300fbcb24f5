# SPDX-License-Identifier: GPL-2.0
# librths device layer (lib/dev), rthsctl, their unit tests and man page.

DEB_PKGS += libmnl-dev libjansson-dev

LIBRTHS_SRCS += $(sort $(wildcard lib/dev/*.c))

UNIT_TESTS += test_dev_units test_dev_names test_dev_netlink test_dev_ring \
	test_dev_rthsctl

# rthsctl's argument parser is tool code, not library code: its test links
# the parser's object on top of librths.
$(foreach v,$(VARIANTS),$(O)/$(v)/tests/unit/test_dev_rthsctl): \
		$(O)/%/tests/unit/test_dev_rthsctl: $(O)/%/tools/rthsctl/parse.o
