# SPDX-License-Identifier: GPL-2.0
# librths device layer (lib/dev), rthsctl, their unit tests and man page.

DEB_PKGS += libmnl-dev libjansson-dev

LIBRTHS_SRCS += $(sort $(wildcard lib/dev/*.c))
