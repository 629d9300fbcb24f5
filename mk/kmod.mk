# The kernel modules, built out of tree against Debian's 6.1 headers for
# both flavours, never against the running kernel.  Kbuild writes objects
# next to the sources, so each flavour builds in its own copy under $(O).

#
# KVER (the Debian ABI, e.g. 6.1.0-57) is resolved the first time a recipe
# expands it, never while parsing: scripts/kver.sh may ask apt, which only
# knows the answer once the package install ran (make help, make clean
# run no package tool).  KVER=... on the command line wins.
KVER ?= $(eval KVER := $$(or $$(shell scripts/kver.sh),$$(error cannot \
	resolve the Debian 6.1 kernel ABI (scripts/kver.sh))))$(KVER)
KDIR_stock ?= /usr/src/linux-headers-$(KVER)-amd64
KDIR_rt ?= /usr/src/linux-headers-$(KVER)-rt-amd64
KFLAVOURS := stock rt
# scripts/deps.sh puts the ABI in place of @KVER@.
DEB_PKGS += linux-headers-@KVER@-amd64 linux-headers-@KVER@-rt-amd64 \
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
	$$(MAKE) -C $$(KDIR_$(1)) M=$(O)/kmod-$(1) $$(KMOD_FLAGS) modules
endef
$(foreach f,$(KFLAVOURS),$(eval $(call kmod_rules,$(f))))

KMODS := $(foreach f,$(KFLAVOURS),$(O)/kmod-$(f)/kernel/rths.ko)

.PHONY: module kcheck
module: $(KMODS)
all: module

# Kernel style: checkpatch, sparse (C=2 checks every file) and W=1; in
# "make check" as TAP.
.PHONY: kstyle-check
kcheck: kstyle-check
kstyle-check: $(HARNESS) $(O)/kmod-stock/kernel/rths.ko
	@mkdir -p $(O)/results
	scripts/kcheck.sh $(O)/harness/scripts/checkpatch.pl $(KDIR_stock) \
		$(O)/kmod-stock | tee $(O)/results/kstyle.tap
	@! grep -q '^not ok' $(O)/results/kstyle.tap

CHECK_PARTS += kstyle-check
