# SPDX-License-Identifier: GPL-2.0
# Debian packages for a lab PC (debian/, Documentation/admin-guide.rst):
# rths-dkms, librths2, librths-dev, rths-tools.  "make deb" builds them
# with dpkg-buildpackage from a copy of the tracked files (as they are in
# the work tree) under $(O)/deb/src, so that nothing is written into the
# work tree; the .debs land in $(O)/deb.  "make deb-check" installs them
# into a clean chroot of this machine's release (tests/build/deb-check.sh;
# its base tarball is cached in $(O)/deb-check) and runs lintian.

DEB_DIR := $(O)/deb
# The chroot, lintian and systemd-analyze (the units) on the host.
DEB_PKGS += mmdebstrap lintian systemd

.PHONY: deb deb-check
deb: | $(DEPS_STAMP)
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_DIR)/src
	git ls-files -z --cached --others --exclude-standard | \
		tar --null -T - --ignore-failed-read -cf - | tar -xf - -C $(DEB_DIR)/src
	@echo 'dpkg-buildpackage (log in $(DEB_DIR)/build.log)'
	@cd $(DEB_DIR)/src && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		DEB_BUILD_OPTIONS='nocheck noddebs parallel=2' \
		dpkg-buildpackage -us -uc -b > $(DEB_DIR)/build.log 2>&1 || \
		{ tail -n 40 $(DEB_DIR)/build.log; exit 1; }
	rm -rf $(DEB_DIR)/src
	@ls -l $(DEB_DIR)/*.deb

# One kernel ABI in the chroot: the 6.1 stock one of mk/kmod.mk.
deb-check: deb
	@mkdir -p $(O)/results $(O)/deb-check
	@tests/build/deb-check.sh $(DEB_DIR) $(O)/deb-check $(KVER)-amd64 \
		> $(O)/results/deb.tap 2>&1; rc=$$?; \
		cat $(O)/results/deb.tap; exit $$rc
CHECK_PARTS += deb-check
