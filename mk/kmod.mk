# SPDX-License-Identifier: GPL-2.0
# The kernel modules, built out of tree against Debian's headers of the
# two LTS series labs run, 6.1 and 6.12, each stock and PREEMPT_RT
# (flavours stock, rt, stock-6.12, rt-6.12), never against the running
# kernel.  Kbuild writes objects next to the sources, so each flavour
# builds in its own copy under $(O).  API differences live in
# kernel/compat.h.
#
# KVER (the 6.1 ABI, e.g. 6.1.0-57) and KVER612 (e.g. 6.12.111+deb12)
# are resolved the first time a recipe expands them, never while parsing:
# scripts/kver.sh may ask apt, which only knows the answer once the
# package install ran (make help, make clean run no package tool).
# KVER=... or KVER612=... on the command line wins.
KVER ?= $(eval KVER := $$(or $$(shell scripts/kver.sh 6.1),$$(error cannot \
	resolve the Debian 6.1 kernel ABI (scripts/kver.sh))))$(KVER)
KVER612 ?= $(eval KVER612 := $$(or $$(shell scripts/kver.sh 6.12),$$(error \
	cannot resolve the Debian 6.12 kernel ABI (scripts/kver.sh 6.12))))$(KVER612)
KDIR_stock ?= /usr/src/linux-headers-$(KVER)-amd64
KDIR_rt ?= /usr/src/linux-headers-$(KVER)-rt-amd64
KDIR_stock-6.12 ?= /usr/src/linux-headers-$(KVER612)-amd64
KDIR_rt-6.12 ?= /usr/src/linux-headers-$(KVER612)-rt-amd64
KFLAVOURS := stock rt stock-6.12 rt-6.12
# scripts/deps.sh puts the ABIs in place of @KVER@ and @KVER612@.
DEB_PKGS += linux-headers-@KVER@-amd64 linux-headers-@KVER@-rt-amd64 \
	linux-headers-@KVER612@-amd64 linux-headers-@KVER612@-rt-amd64 \
	sparse rsync

KMOD_SRCS := Kbuild $(shell find kernel include/uapi -name '*.[ch]' -o \
	-name Kbuild 2>/dev/null)

# KMOD_FLAGS: extra kbuild flags, e.g. "C=1" for sparse or "W=1".
KMOD_FLAGS ?= W=1

define kmod_rules
$(O)/kmod-$(1)/kernel/rths.ko: $(KMOD_SRCS) | $(DEPS_STAMP)
	@mkdir -p $(O)/kmod-$(1)
	rsync -a --delete --exclude '*.o' --exclude '*.ko' --exclude '.*.cmd' \
		--include '/Kbuild' --include '/kernel/***' \
		--include '/include/' --include '/include/uapi/***' \
		--exclude '*' ./ $(O)/kmod-$(1)/
	@# (O= : ours is not kbuild's output tree)
	$$(MAKE) -C $$(KDIR_$(1)) M=$(O)/kmod-$(1) O= $$(KMOD_FLAGS) modules
endef
# KMOD_EXTRA_FLAVOURS: flavours another fragment adds (mk/debug.mk:
# debug) with its own KDIR_FLAVOUR; not part of "module" or kstyle-check.
$(foreach f,$(KFLAVOURS) $(KMOD_EXTRA_FLAVOURS),$(eval $(call kmod_rules,$(f))))

KMODS := $(foreach f,$(KFLAVOURS),$(O)/kmod-$(f)/kernel/rths.ko)

.PHONY: module kcheck
module: $(KMODS)
all: module

# Kernel style: checkpatch, sparse (C=2 checks every file) and W=1; in
# "make check" as TAP.
.PHONY: kstyle-check
kcheck: kstyle-check
kstyle-check: $(HARNESS) $(KMODS)
	@mkdir -p $(O)/results
	scripts/kcheck.sh $(HARNESS_DIR)/scripts/checkpatch.pl \
		$(foreach f,$(KFLAVOURS),$(KDIR_$(f)) $(O)/kmod-$(f)) \
		| tee $(O)/results/kstyle.tap
	@! grep -q '^not ok' $(O)/results/kstyle.tap

CHECK_PARTS += kstyle-check

# dkms.conf against every kernel the modules build for (tests/build/dkms.sh:
# a private DKMS tree, nothing installed).
DEB_PKGS += dkms
KRELS = $(KVER)-amd64 $(KVER)-rt-amd64 $(KVER612)-amd64 $(KVER612)-rt-amd64
.PHONY: dkms-check
dkms-check: | $(DEPS_STAMP)
	@mkdir -p $(O)/results
	@O='$(O)' tests/build/dkms.sh $(KRELS) > $(O)/results/dkms.tap 2>&1; \
		rc=$$?; cat $(O)/results/dkms.tap; exit $$rc
CHECK_PARTS += dkms-check

# "make modules [KVER=RELEASE]": the modules for one kernel, the running
# one or RELEASE as "uname -r" prints it (MODULES_KREL), against its
# headers (linux-headers-RELEASE, the modules profile) in
# $(O)/kmod-RELEASE: what a lab PC builds; DKMS or the rths-dkms package
# installs them (Documentation/admin-guide.rst).
MODULES_DIR := $(O)/kmod-$(MODULES_KREL)
MODULES_KDIR ?= /lib/modules/$(MODULES_KREL)/build
$(MODULES_DIR)/kernel/rths.ko: $(KMOD_SRCS) | $(DEPS_STAMP)
	rm -rf $(MODULES_DIR)
	mkdir -p $(MODULES_DIR)/include
	cp -r Kbuild kernel $(MODULES_DIR)/
	cp -r include/uapi $(MODULES_DIR)/include/
	@# (O= : ours is not kbuild's output tree)
	$(MAKE) -C $(MODULES_KDIR) M=$(MODULES_DIR) O= modules
.PHONY: modules
modules: $(MODULES_DIR)/kernel/rths.ko
	@echo 'modules for $(MODULES_KREL): $(MODULES_DIR)/kernel/rths.ko' \
		'$(MODULES_DIR)/kernel/cards/*.ko'

# "sudo make dkms-install [KVER=RELEASE]": HEAD's module sources (git
# archive: committed files only, never .git or a build tree) and
# dkms.conf with the version into /usr/src/rths-VERSION, then dkms add,
# build and install for the running kernel or RELEASE; DKMS rebuilds
# them at each kernel upgrade.  An rths/VERSION already added is removed
# first.  DKMS_SRC_ROOT and DKMS_FLAGS (--sourcetree, --dkmstree,
# --installtree) put it elsewhere (tests/build/dkms.sh).
DKMS_SRC_ROOT ?= /usr/src
DKMS_FLAGS ?=
DKMS_SRC = $(DKMS_SRC_ROOT)/rths-$(RTHS_VERSION)
# Not our make's variables (O=...) into the kbuild that dkms runs.
DKMS := env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL dkms
.PHONY: dkms-install
dkms-install: | $(DEPS_STAMP)
	@if $(DKMS) status rths/$(RTHS_VERSION) $(DKMS_FLAGS) 2>/dev/null | \
			grep -q .; then \
		echo "dkms remove rths/$(RTHS_VERSION) --all"; \
		$(DKMS) remove rths/$(RTHS_VERSION) --all $(DKMS_FLAGS) || exit 1; \
	fi
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	git archive --format=tar HEAD Kbuild kernel include/uapi dkms.conf | \
		tar -x -C $(DKMS_SRC)
	sed -i 's/#MODULE_VERSION#/$(RTHS_VERSION)/' $(DKMS_SRC)/dkms.conf
	$(DKMS) add rths/$(RTHS_VERSION) $(DKMS_FLAGS)
	$(DKMS) build rths/$(RTHS_VERSION) -k $(MODULES_KREL) $(DKMS_FLAGS)
	$(DKMS) install rths/$(RTHS_VERSION) -k $(MODULES_KREL) $(DKMS_FLAGS)
