#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The project's one version: debian/changelog's first entry (0.1.0).
# dkms.conf (#MODULE_VERSION#), rths.pc, rthsctl --version and the
# packages take it from here.  No package tool: make may run it while
# parsing.
exec sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$(dirname "$0")/../debian/changelog"
