# SPDX-License-Identifier: GPL-2.0
# Documentation: reStructuredText that docutils reads without a warning,
# every page in the index, man pages that groff renders cleanly.
DEB_PKGS += python3-docutils man-db groff-base
.PHONY: docs-check
docs-check: | $(DEPS_STAMP)
	@mkdir -p $(O)/results
	@scripts/docs-check.py $(TOP) | tee $(O)/results/docs.tap; \
		! grep -q '^not ok' $(O)/results/docs.tap

CHECK_PARTS += docs-check
