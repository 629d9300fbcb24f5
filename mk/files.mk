# SPDX-License-Identifier: GPL-2.0
# librths' file-format layer (lib/files): experiment files, ground-motion
# records and CSV outputs, above the engine (lib/hs), which takes structs,
# never paths or JSON.  Same library, same version map.

DEB_PKGS_userspace += libjansson-dev

LIBRTHS_SRCS += $(sort $(wildcard lib/files/*.c))

# jansson and file handling in lib/files only, the layers below never
# include it; no layer includes another's private header
# (tests/build/lib-layers.sh).
.PHONY: lib-layers-check
lib-layers-check:
	@mkdir -p $(O)/results
	@tests/build/lib-layers.sh $(TOP) | tee $(O)/results/lib-layers.tap; \
		! grep -q '^not ok' $(O)/results/lib-layers.tap
CHECK_PARTS += lib-layers-check
