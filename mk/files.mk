# SPDX-License-Identifier: GPL-2.0
# librths' file-format layer (lib/files): experiment files, ground-motion
# records and CSV outputs, above the engine (lib/hs), which takes structs,
# never paths or JSON.  Same library, same version map.

DEB_PKGS_userspace += libjansson-dev

LIBRTHS_SRCS += $(sort $(wildcard lib/files/*.c))

# jansson and file handling in lib/files only; the layers below never
# include it (tests/build/files-layer.sh).
.PHONY: files-layer-check
files-layer-check:
	@mkdir -p $(O)/results
	@tests/build/files-layer.sh $(TOP) | tee $(O)/results/files-layer.tap; \
		! grep -q '^not ok' $(O)/results/files-layer.tap
CHECK_PARTS += files-layer-check
