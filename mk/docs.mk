# SPDX-License-Identifier: GPL-2.0
# Documentation: reStructuredText that docutils reads without a warning,
# every page in the index, man pages that groff renders cleanly; the ring
# barriers labelled as the uapi header defines them (tests/build/barriers.py);
# the lock table as kernel/rths.h lists the locks (tests/build/locks.py).
DEB_PKGS += python3-docutils man-db groff-base
.PHONY: docs-check
docs-check: | $(DEPS_STAMP)
	@mkdir -p $(O)/results
	@scripts/docs-check.py $(TOP) | tee $(O)/results/docs.tap; \
		! grep -q '^not ok' $(O)/results/docs.tap
	@tests/build/barriers.py $(TOP) | tee $(O)/results/barriers.tap; \
		! grep -q '^not ok' $(O)/results/barriers.tap
	@tests/build/locks.py $(TOP) | tee $(O)/results/locks.tap; \
		! grep -q '^not ok' $(O)/results/locks.tap

CHECK_PARTS += docs-check
