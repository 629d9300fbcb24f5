# SPDX-License-Identifier: GPL-2.0
# librths device layer (lib/dev), rthsctl, their unit tests and man page.

DEB_PKGS += libmnl-dev libjansson-dev

LIBRTHS_SRCS += $(sort $(wildcard lib/dev/*.c))

UNIT_TESTS += test_dev_units test_dev_names test_dev_netlink test_dev_ring


# kselftest_harness.h is not clean under -Wextra -Wmissing-prototypes
# (unused "variant" parameters, non-static helpers).
$(foreach v,$(VARIANTS),$(O)/$(v)/tests/unit/test_dev_%.o): \
	WARN += -Wno-unused-parameter -Wno-missing-prototypes
