# SPDX-License-Identifier: GPL-2.0
#
# rths top-level build.  Everything that is built lands under $(O) (build/
# by default); the source tree stays clean.
#
#   make            modules (6.1 and 6.12, stock and -rt), librths, tools
#   make lib|tools|install   userspace only (the userspace package profile)
#   make modules [KVER=RELEASE]     the modules for one kernel (a lab PC;
#                   the running one by default)
#   make deb        Debian packages (rths-dkms, librths2, librths-dev,
#                   rths-tools) into $(O)/deb
#   make check      unit tests (plain and ASan/UBSan), the distributed tests
#                   in network namespaces, then module selftests in QEMU on
#                   Debian's 6.1 and 6.12 kernels, stock and -rt
#   make bench      benchmarks (not part of check)
#   make demo       the README's demo
#   make help       every target
#
# Components add themselves through mk/*.mk fragments (see mk/README).
#
# Packages first, by construction: the stamp of the package install
# ($(DEPS_STAMP)) is itself an included makefile, so make brings it up to
# date, and re-reads the Makefile, before it considers any goal; "make -j"
# and the order of CHECK_PARTS cannot change that.  Parsing runs no
# package tool (the kernel ABI is resolved when a recipe first needs it).
# Each goal installs only the packages of its profile (userspace, modules,
# deb, or full: below); tests/build/graph.sh proves both from a fresh
# clone.

SHELL := /bin/bash
.DEFAULT_GOAL := all

O ?= build
# Absolute so that recursive kbuild and scripts agree on paths.
override O := $(abspath $(O))
TOP := $(CURDIR)

CC ?= gcc
ifeq ($(origin CC),default)
CC := gcc
endif

# Debian packages, in profiles (mk/profiles.mk says which goal installs
# which; "make help" lists them):
#   DEB_PKGS_userspace  what librths and the tools need to build and link
#   DEB_PKGS_modules    the modules for one kernel, KVER (mk/profiles.mk)
#   DEB_PKGS_deb        "make deb" beyond the userspace profile
#   DEB_PKGS            the rest of what "make check" needs; the full
#                       profile is all of them but the one-kernel headers
# Fragments append to them.  @KVER@ in a name stands for the kernel ABI,
# which scripts/deps.sh resolves once the package lists are there.
DEB_PKGS_userspace := build-essential pkg-config libmnl-dev liblapacke-dev \
	libjansson-dev
DEB_PKGS_deb := debhelper dh-dkms dpkg-dev
DEB_PKGS := linux-source-6.1

# The one kernel "make modules" builds for: KVER as given, a release as
# "uname -r" prints it (6.1.0-57-amd64), else the running kernel.
ifneq ($(filter command line environment,$(origin KVER)),)
MODULES_KREL := $(KVER)
else
MODULES_KREL := $(shell uname -r)
endif
DEB_PKGS_modules := build-essential kmod dkms linux-headers-$(MODULES_KREL)

# Which profiles the goals need.  A goal of one of these lists needs its
# profile; any other goal (all, check, demo, a file...) the full one, as
# does "make" alone.  help and clean need none.
NODEPS_GOALS := clean help
PROFILE_GOALS_userspace := lib tools install deps-userspace
PROFILE_GOALS_modules := modules dkms-install deps-modules
PROFILE_GOALS_deb := deb deps-deb
DEPS_GOALS := $(filter-out $(NODEPS_GOALS),$(or $(MAKECMDGOALS),$(.DEFAULT_GOAL)))
ifneq ($(filter-out $(PROFILE_GOALS_userspace) $(PROFILE_GOALS_modules) \
	$(PROFILE_GOALS_deb),$(DEPS_GOALS)),)
DEPS_PROFILES := full
else
DEPS_PROFILES := $(foreach p,userspace modules deb,\
	$(if $(filter $(PROFILE_GOALS_$(p)),$(DEPS_GOALS)),$(p)))
endif

# Defined before the fragments, which use them in their rules' prerequisites.
# Missing Debian packages are installed once per build tree and profile:
# DEPS_STAMP is the list of the stamps of the profiles the goals need,
# empty for help and clean.
DEPS_STAMP_userspace := $(O)/.deps-userspace
DEPS_STAMP_modules := $(O)/.deps-modules-$(MODULES_KREL)
DEPS_STAMP_deb := $(O)/.deps-deb
DEPS_STAMP_full := $(O)/.deps-ok
DEPS_STAMP := $(foreach p,$(DEPS_PROFILES),$(DEPS_STAMP_$(p)))
# The test harness headers (from Debian's linux-source-6.1).
HARNESS_DIR := $(O)/harness
HARNESS := $(HARNESS_DIR)/tools/testing/selftests/kselftest_harness.h
# The shared library (its rule is below; fragments name it as a
# prerequisite, so it is defined here).
LIBRTHS_SONAME := librths.so.2
LIBRTHS_SO := $(O)/plain/$(LIBRTHS_SONAME)
LIBRTHS_MAP := lib/librths.map

# ---------------------------------------------------------------------------
# Userspace: C11, warnings are errors, built twice (plain and sanitized).
VARIANTS := plain asan
CSTD := -std=c11 -D_GNU_SOURCE
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wformat=2 -Wno-format-nonliteral
# The project's one version (debian/changelog's, scripts/version.sh).
RTHS_VERSION := $(shell scripts/version.sh)
CPPFLAGS_COMMON := -I$(TOP)/include/uapi -I$(TOP)/include -I$(TOP)/lib \
	-DRTHS_VERSION='"$(RTHS_VERSION)"'
CFLAGS_plain := -O2 -g
CFLAGS_asan := -O1 -g -fno-omit-frame-pointer \
	-fsanitize=address,undefined -fno-sanitize-recover=all
LDFLAGS_asan := -fsanitize=address,undefined
# The caller's CPPFLAGS, CFLAGS and LDFLAGS come after ours (a package
# build passes dpkg-buildflags' hardening flags this way).

# Libraries librths links against; fragments append (e.g. -lgsl).
LIBRTHS_LIBS := -lmnl -llapacke -llapack -lblas -ljansson -lm -lpthread
# The pkg-config names of those that ship a .pc (rths.pc Requires.private).
LIBRTHS_REQUIRES := libmnl jansson

# Sources of librths (fragments append); tools and tests (fragments append
# names; see the rules below).
LIBRTHS_SRCS :=
TOOLS :=
UNIT_TESTS := test_leak_check
BENCHES :=
MAN_PAGES :=
# Targets "make check" runs, each writing TAP into $(O)/results/.
CHECK_PARTS := unit-check

include $(sort $(wildcard mk/*.mk))

# One stamp per profile: its packages installed.  The full profile is
# every list but the one-kernel headers (its kernels are the four of
# mk/kmod.mk); "make deb" builds the userspace too.
DEPS_PKGS_userspace = $(DEB_PKGS_userspace)
DEPS_PKGS_modules = $(DEB_PKGS_modules)
DEPS_PKGS_deb = $(DEB_PKGS_userspace) $(DEB_PKGS_deb)
DEPS_PKGS_full = $(DEB_PKGS) $(DEB_PKGS_userspace) $(DEB_PKGS_deb) \
	$(filter-out linux-headers-$(MODULES_KREL),$(DEB_PKGS_modules))
$(foreach p,userspace modules deb full,$(eval \
	$(DEPS_STAMP_$(p)): DEPS_PKGS = $$(sort $$(DEPS_PKGS_$(p)))))
$(foreach p,userspace modules deb full,$(DEPS_STAMP_$(p))): \
		scripts/deps.sh scripts/kver.sh Makefile $(wildcard mk/*.mk)
	@mkdir -p $(O)
	scripts/deps.sh $(DEPS_PKGS)
	@echo '# packages installed: $(DEPS_PKGS)' > $@
ifneq ($(DEPS_STAMP),)
include $(DEPS_STAMP)
endif

# Compile rule for each variant.
define variant_rules
$(O)/$(1)/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $$(@D)
	$$(CC) $$(CSTD) $$(WARN) $$(CPPFLAGS_COMMON) $$(CFLAGS_$(1)) \
		$$(CPPFLAGS) $$(CFLAGS) $$(VISIBILITY) -fPIC -MMD -MP \
		-c $$< -o $$@

$(O)/$(1)/librths.a: $$(addprefix $(O)/$(1)/,$$(LIBRTHS_SRCS:.c=.o))
	@mkdir -p $$(@D)
	rm -f $$@
	ar rcs $$@ $$^
endef
$(foreach v,$(VARIANTS),$(eval $(call variant_rules,$(v))))

# Not into the debug kernel's tree (mk/debug.mk): gigabytes to walk, and
# directories named *.d.
-include $(shell find $(O) -path '$(O)/debug-kernel' -prune -o \
	-name '*.d' -type f -print 2>/dev/null)

# The shared library exports exactly the functions lib/librths.map lists
# (the public API, see Documentation/abi.rst); its objects are built with
# -fvisibility=hidden and the public headers make their declarations
# visible again.
$(foreach v,$(VARIANTS),$(O)/$(v)/lib/%.o): VISIBILITY := -fvisibility=hidden
$(LIBRTHS_SO): $(addprefix $(O)/plain/,$(LIBRTHS_SRCS:.c=.o)) $(LIBRTHS_MAP)
	$(CC) $(LDFLAGS) -shared -Wl,-soname,$(LIBRTHS_SONAME) \
		-Wl,--version-script=$(LIBRTHS_MAP) -Wl,--no-undefined \
		-o $@ $(filter %.o,$^) $(LIBRTHS_LIBS)
	ln -sf $(LIBRTHS_SONAME) $(O)/plain/librths.so

# Requires.private names the libraries that ship a .pc; Libs.private has
# the whole list, so that "pkg-config --static" is enough either way.
# The install writes its own, for the PREFIX it installs to.
gen_pc = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@LIBS@|$(LIBRTHS_LIBS)|' \
	-e 's|@VERSION@|$(RTHS_VERSION)|' \
	-e 's|@REQUIRES@|$(LIBRTHS_REQUIRES)|' $(1)
$(O)/plain/rths.pc: lib/rths.pc.in Makefile debian/changelog
	@mkdir -p $(@D)
	$(call gen_pc,$<) > $@

PREFIX ?= /usr/local
# librths and rths.pc (a package: the multiarch directory).
LIBDIR ?= $(PREFIX)/lib
# Where "make install" puts the udev rule (a package: /lib/udev/rules.d),
# the systemd units and modules-load.d/rths.conf (systemd reads
# /usr/local/lib/... too; a package: /lib/...).
UDEV_RULES_DIR ?= /etc/udev/rules.d
SYSTEMD_UNIT_DIR ?= $(PREFIX)/lib/systemd/system
MODULES_LOAD_DIR ?= $(PREFIX)/lib/modules-load.d
SYSTEMD_UNITS := rths-devices.service rths-site@.service

# A tool is tools/NAME.c plus optional tools/NAME/*.c, linked statically
# against the plain librths into $(O)/plain/tools/NAME; the objects of
# tools/NAME/*.c go to tools/NAME.parts/ so that they do not collide with
# the binary's name.  A fragment may add objects shared between tools
# (TOOL_OBJS_NAME) and libraries (TOOL_LIBS_NAME).
define tool_rule
$(O)/plain/tools/$(1).parts/%.o: tools/$(1)/%.c | $(DEPS_STAMP)
	@mkdir -p $$(@D)
	$$(CC) $$(CSTD) $$(WARN) $$(CPPFLAGS_COMMON) $$(CFLAGS_plain) \
		$$(CPPFLAGS) $$(CFLAGS) -fPIC -MMD -MP -c $$< -o $$@

$(O)/plain/tools/$(1): $(O)/plain/tools/$(1).o \
		$$(patsubst tools/$(1)/%.c,$(O)/plain/tools/$(1).parts/%.o,\
			$$(wildcard tools/$(1)/*.c)) \
		$$(TOOL_OBJS_$(1)) $(O)/plain/librths.a
	$$(CC) $$(LDFLAGS) -o $$@ $$^ $$(TOOL_LIBS_$(1)) $$(LIBRTHS_LIBS)
endef
$(foreach t,$(TOOLS),$(eval $(call tool_rule,$(t))))

# A unit test is tests/unit/NAME.c, built in every variant, linked against
# that variant's librths.a.  It prints TAP (kselftest harness).
# Extra prerequisites a fragment adds (objects) go before the archive.
define unit_rule
$(O)/$(2)/tests/unit/$(1): $(O)/$(2)/tests/unit/$(1).o $(UNIT_EXTRA_$(2)) \
		$(O)/$(2)/librths.a
	$$(CC) $$(LDFLAGS_$(2)) $$(UNIT_LDFLAGS_$(2)) -o $$@ \
		$$(filter-out %.a,$$^) $$(filter %.a,$$^) $$(LIBRTHS_LIBS)
endef
# The harness ends each test's child with _exit(), which skips
# LeakSanitizer's check at exit: the sanitized tests check before it.
UNIT_EXTRA_asan := $(O)/asan/tests/unit/lsan_exit.o
UNIT_LDFLAGS_asan := -Wl,--wrap=_exit
$(foreach v,$(VARIANTS),$(foreach t,$(UNIT_TESTS),\
	$(eval $(call unit_rule,$(t),$(v)))))

UNIT_BINS := $(foreach v,$(VARIANTS),\
	$(addprefix $(O)/$(v)/tests/unit/,$(UNIT_TESTS)))

$(HARNESS): | $(DEPS_STAMP)
	scripts/extract-linux-source.sh 6.1 $(HARNESS_DIR) \
		tools/testing/selftests/kselftest_harness.h \
		tools/testing/selftests/kselftest.h scripts/checkpatch.pl \
		scripts/spelling.txt scripts/const_structs.checkpatch
# As a system header its own warnings stay quiet; FIXTURE_SETUP() defines
# global functions without prototypes, so tests drop that one warning.
HARNESS_FLAGS := -isystem $(HARNESS_DIR)/tools/testing/selftests
$(foreach v,$(VARIANTS),$(O)/$(v)/tests/%.o): CPPFLAGS_COMMON += $(HARNESS_FLAGS)
$(foreach v,$(VARIANTS),$(O)/$(v)/tests/%.o): WARN += -Wno-missing-prototypes
$(foreach t,$(UNIT_TESTS),$(foreach v,$(VARIANTS),$(O)/$(v)/tests/unit/$(t).o)): $(HARNESS)

# "make build/plain/..." names the same files as "make $(O)/plain/...".
O_REL := $(patsubst $(TOP)/%,%,$(O))
ifneq ($(O_REL),$(O))
$(O_REL)/%: $(O)/% ;
endif

# ---------------------------------------------------------------------------
.PHONY: all deps lib tools unit-tests unit-check check bench demo clean \
	install help summary-check

deps: $(DEPS_STAMP)
deps-userspace deps-modules deps-deb: $(DEPS_STAMP)

lib: $(LIBRTHS_SO) $(O)/plain/rths.pc $(O)/plain/librths.a

tools: $(addprefix $(O)/plain/tools/,$(TOOLS))

all: deps lib tools

unit-tests: deps $(UNIT_BINS)

unit-check: unit-tests
	@mkdir -p $(O)/results
	tests/run-unit.sh $(O)/results $(UNIT_BINS)

check: deps
	@rm -rf $(O)/results
	@rc=0; for p in $(CHECK_PARTS); do t0=$$(date +%s); \
		$(MAKE) --no-print-directory $$p || rc=1; \
		mkdir -p $(O)/results; \
		echo "$$p $$(($$(date +%s) - t0))" >>$(O)/results/part-seconds; \
	done; \
	tests/summary.sh $(O)/results || rc=1; exit $$rc

# The closing lines themselves, against results folders made up for it.
summary-check:
	@mkdir -p $(O)/results
	@tests/build/summary-test.sh > $(O)/results/summary.tap; \
		rc=$$?; cat $(O)/results/summary.tap; exit $$rc
CHECK_PARTS += summary-check

bench: deps $(BENCHES)

demo: module tools vm-kernels
	@$(VM_ENV) scripts/demo.sh $(O)/demo $(O)/kmod-stock $(O)/kmod-rt \
		$(O)/plain/tools/rths-run

clean:
	rm -rf $(O)

# Keep in step with the targets above and in mk/*.mk.
help:
	@echo 'Package profiles (each goal installs the missing Debian packages of'
	@echo 'its profile before anything else; see Documentation/admin-guide.rst):'
	@echo '  userspace      lib, tools, install: compiler, pkg-config, libmnl,'
	@echo '                 LAPACKE, KLU, jansson, GnuTLS, libmicrohttpd, GSL,'
	@echo '                 dygraphs'
	@echo '  modules        modules, dkms-install: build-essential, kmod, dkms,'
	@echo '                 linux-headers-KVER (KVER=$(MODULES_KREL) now)'
	@echo '  deb            deb: userspace and debhelper, dh-dkms'
	@echo '  full           every other goal, make alone included: all of the'
	@echo '                 above for the four test kernels, QEMU, linux-source,'
	@echo '                 the test and benchmark tools'
	@echo 'Build (everything lands under O=$(O)):'
	@echo '  all            modules, librths, tools (the default; full profile)'
	@echo '  deps           install the missing Debian packages (full profile)'
	@echo '  deps-userspace, deps-modules, deps-deb  those of one profile'
	@echo '  lib            librths.so.2, librths.a, rths.pc'
	@echo '  tools          $(TOOLS)'
	@echo '  modules        the kernel modules for one kernel, KVER=RELEASE'
	@echo '                 (uname -r; default the running one) into'
	@echo '                 $(O)/kmod-RELEASE'
	@echo '  module         the kernel modules: 6.1 and 6.12, stock and -rt'
	@echo '  selftests      the module selftests (run in the guest)'
	@echo '  install        librths, headers, tools, man pages, udev rule,'
	@echo '                 limits, systemd units (DESTDIR, PREFIX)'
	@echo '  dkms-install   the module sources of HEAD (git archive) into'
	@echo '                 /usr/src/rths-VERSION, then dkms add, build, install'
	@echo '  deb            rths-dkms, librths2, librths-dev, rths-tools'
	@echo '                 into $(O)/deb'
	@echo '  python         the Python package rths into $(O)/python'
	@echo '  mex            rths_mex for GNU Octave (mkoctfile --mex)'
	@echo '  abi-baseline   regenerate abi/librths.abi from the built library'
	@echo '  clean          remove $(O)'
	@echo 'Tests (TAP in $(O)/results/):'
	@echo '  check          all of: $(CHECK_PARTS)'
	@echo '  unit-check     unit tests, plain and ASan/UBSan'
	@echo '  docs-check     Documentation/ and man pages'
	@echo '  kstyle-check   checkpatch, sparse, W=1 (all four kernels)'
	@echo '  check-debug    selftests on a lockdep/KASAN/UBSAN kernel (not in check)'
	@echo '  splat-scan-check  the check-debug splat scanner on sample reports'
	@echo '  summary-check  the closing lines of make check on made-up results'
	@echo '  dkms-check     dkms build against all four kernels'
	@echo '  build-check    dependency graph from a fresh clone'
	@echo '  abi-check      exported symbols and abidiff against the baseline'
	@echo '  examples-check examples/c against a staged install'
	@echo '  ynl-check      the YNL spec against the uapi header'
	@echo '  net-check      the native protocol codec and the session layer'
	@echo '  crossings-check  crossings of the session layer a step (uftrace)'
	@echo '  site-check     rths-site: OpenFresco clients, native, TLS'
	@echo '  site-device-check  rths-site device substructures (offline)'
	@echo '  coord-check    rths-coord against local sites'
	@echo '  dist-check     fault matrix in network namespaces (root)'
	@echo '  vm-smoke       boot the QEMU guests'
	@echo '  vm-check       module selftests in the guests'
	@echo '  vm-site-device sim-card sites in the guests'
	@echo '  python-check   the Python package (pytest, offline)'
	@echo '  vm-python      the Python package on the sim card in a guest'
	@echo '  octave-check   rths_mex under Octave (offline)'
	@echo '  vm-octave      rths_mex on the sim card in a guest'
	@echo '  live-check     rths-run --live: hostile clients, headless Chromium'
	@echo 'Other:'
	@echo '  demo           the README demo (in the QEMU guest)'
	@echo '  demo-distributed  a bridge whose piers are sites in network namespaces'
	@echo '  bench          $(BENCHES)'

# Userspace only; the modules install with DKMS (dkms.conf,
# Documentation/admin-guide.rst).  DESTDIR for staging.
# The archive that is installed: one relocatable object whose internal
# (hidden) symbols are made local, so that a program linking librths.a
# statically sees only the rths_ API, as with the shared library.  The
# in-tree archives keep the internals for the tools and unit tests.
LIBRTHS_DIST_A := $(O)/plain/dist/librths.a
$(LIBRTHS_DIST_A): $(addprefix $(O)/plain/,$(LIBRTHS_SRCS:.c=.o))
	@mkdir -p $(@D)
	ld -r -o $(@D)/librths.o $^
	objcopy --localize-hidden $(@D)/librths.o
	rm -f $@
	ar rcs $@ $(@D)/librths.o

install: lib tools $(LIBRTHS_DIST_A)
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
		$(DESTDIR)$(PREFIX)/include/rths \
		$(DESTDIR)$(PREFIX)/include/linux $(DESTDIR)$(PREFIX)/bin \
		$(DESTDIR)$(UDEV_RULES_DIR) $(DESTDIR)/etc/security/limits.d \
		$(DESTDIR)$(SYSTEMD_UNIT_DIR) $(DESTDIR)$(MODULES_LOAD_DIR) \
		$(DESTDIR)/etc/rths
	install -m 755 $(LIBRTHS_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(LIBRTHS_SONAME) $(DESTDIR)$(LIBDIR)/librths.so
	install -m 644 $(LIBRTHS_DIST_A) $(DESTDIR)$(LIBDIR)/librths.a
	$(call gen_pc,lib/rths.pc.in) > $(DESTDIR)$(LIBDIR)/pkgconfig/rths.pc
	install -m 644 include/rths/*.h $(DESTDIR)$(PREFIX)/include/rths/
	install -m 644 include/uapi/linux/rths.h \
		$(DESTDIR)$(PREFIX)/include/linux/
	install -m 755 $(addprefix $(O)/plain/tools/,$(TOOLS)) \
		$(DESTDIR)$(PREFIX)/bin/
	for m in $(MAN_PAGES); do \
		sec=$${m##*.}; install -d $(DESTDIR)$(PREFIX)/share/man/man$$sec; \
		install -m 644 $$m $(DESTDIR)$(PREFIX)/share/man/man$$sec/; \
	done
	install -m 644 udev/60-rths.rules $(DESTDIR)$(UDEV_RULES_DIR)/
	install -m 644 limits/90-rths.conf $(DESTDIR)/etc/security/limits.d/
	for u in $(SYSTEMD_UNITS); do \
		sed 's|@BINDIR@|$(PREFIX)/bin|g' systemd/$$u.in \
			> $(DESTDIR)$(SYSTEMD_UNIT_DIR)/$$u || exit 1; \
		chmod 644 $(DESTDIR)$(SYSTEMD_UNIT_DIR)/$$u; \
	done
	install -m 644 systemd/modules-load-rths.conf \
		$(DESTDIR)$(MODULES_LOAD_DIR)/rths.conf
	@# The administrator's list of devices: never overwritten.
	[ -e $(DESTDIR)/etc/rths/devices.conf ] || \
		install -m 644 etc/rths/devices.conf $(DESTDIR)/etc/rths/
	@# /usr/local/lib is found through ld.so's cache: refresh it, unless
	@# this is a staged install.
	if [ -z "$(DESTDIR)" ]; then ldconfig; fi
	if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then \
		systemctl daemon-reload; fi
