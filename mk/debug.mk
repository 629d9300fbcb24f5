# SPDX-License-Identifier: GPL-2.0
# "make check-debug": the whole guest selftest suite on two debug kernels
# built from Debian's linux-source-6.1 by scripts/build-debug-kernel.sh:
# "debug" (lockdep, DEBUG_ATOMIC_SLEEP, KASAN, KFENCE, kmemleak, UBSAN),
# cached under $(O)/debug-kernel, then "kcsan" (KCSAN, which cannot share
# a kernel with KASAN, with lockdep and DEBUG_ATOMIC_SLEEP), cached under
# $(O)/debug-kernel-kcsan; any checker's report fails the run.
# "make check-debug-kasan" and "make check-debug-kcsan" run one each.
# Not part of "make check": each kernel build alone takes 20 to 60
# minutes on two CPUs, the suite under TCG several times its stock time
# (see Documentation/testing.rst).  Results go to $(O)/results-debug/
# and $(O)/results-kcsan/.

# Building a kernel: kconfig's parser (flex, bison), objtool (libelf),
# the certificate tools (libssl), bc for the time constants.
DEB_PKGS += flex bison bc libelf-dev libssl-dev

DEBUG_VMDIR = $(O)/vm/debug
DEBUG_RESULTS = $(O)/results-debug
KCSAN_VMDIR = $(O)/vm/kcsan
KCSAN_RESULTS = $(O)/results-kcsan
# The kernel tree the modules build against, known once it is built.
KDIR_debug = $(or $(shell sed -n 's/^KBUILD=//p' $(DEBUG_VMDIR)/kernel.env \
	2>/dev/null),$(error no debug kernel in $(DEBUG_VMDIR) (make debug-kernel)))
KDIR_kcsan = $(or $(shell sed -n 's/^KBUILD=//p' $(KCSAN_VMDIR)/kernel.env \
	2>/dev/null),$(error no KCSAN kernel in $(KCSAN_VMDIR) (make kcsan-kernel)))
KMOD_EXTRA_FLAVOURS += debug kcsan
DEBUG_SPLAT_KO := $(O)/splat-debug/rths_splat.ko
KCSAN_SPLAT_KO := $(O)/splat-kcsan/rths_splat.ko
# The guest's time limit: the suite takes ~15 min on the stock kernel.
DEBUG_TIMEOUT ?= 7200

.PHONY: debug-kernel kcsan-kernel check-debug check-debug-kasan \
	check-debug-kcsan splat-scan-check

# Cheap when the build is cached: the script only checks its stamp.
debug-kernel: | $(DEPS_STAMP)
	@O='$(O)' scripts/build-debug-kernel.sh $(DEBUG_VMDIR)
kcsan-kernel: | $(DEPS_STAMP)
	@O='$(O)' scripts/build-debug-kernel.sh --kcsan $(KCSAN_VMDIR)

$(O)/kmod-debug/kernel/rths.ko: debug-kernel
$(O)/kmod-kcsan/kernel/rths.ko: kcsan-kernel

# The self-check's splat maker, built against the debug kernel only.
$(DEBUG_SPLAT_KO): tests/vm/splat/rths_splat.c tests/vm/splat/Kbuild \
		debug-kernel
	@mkdir -p $(O)/splat-debug
	cp tests/vm/splat/rths_splat.c tests/vm/splat/Kbuild $(O)/splat-debug/
	$(MAKE) -C $(KDIR_debug) M=$(O)/splat-debug O= W=1 modules
$(KCSAN_SPLAT_KO): tests/vm/splat/rths_splat.c tests/vm/splat/Kbuild \
		kcsan-kernel
	@mkdir -p $(O)/splat-kcsan
	cp tests/vm/splat/rths_splat.c tests/vm/splat/Kbuild $(O)/splat-kcsan/
	$(MAKE) -C $(KDIR_kcsan) M=$(O)/splat-kcsan O= W=1 modules

# The scanner against sample reports (tests/vm/splats): no kernel needed.
splat-scan-check:
	@mkdir -p $(O)/results
	@tests/vm/splat-scan-test.sh > $(O)/results/splat-scan.tap; \
		rc=$$?; cat $(O)/results/splat-scan.tap; exit $$rc
CHECK_PARTS += splat-scan-check

# One boot per kernel: the selftests, kmemleak scans, then the splat
# self-check (tests/vm/debug-run.sh in the guest, tests/vm/check-debug.sh
# on the host, which judges the logs).  The two kernels one after the
# other (two TCG guests at once would starve each other), both even when
# the first fails.
check-debug:
	@st=0; $(MAKE) --no-print-directory check-debug-kasan || st=1; \
	$(MAKE) --no-print-directory check-debug-kcsan || st=1; exit $$st

check-debug-kasan: $(O)/kmod-debug/kernel/rths.ko $(DEBUG_SPLAT_KO) \
		selftests tools ynl splat-scan-check
	@$(VM_ENV) DEBUG_TIMEOUT=$(DEBUG_TIMEOUT) tests/vm/check-debug.sh debug \
		$(DEBUG_RESULTS) $(O)/kmod-debug $(SELFTEST_DIR) \
		$(DEBUG_SPLAT_KO) $(SELFTESTS)

# KCSAN_SELFTESTS: the tests to run there (default: all of them).
KCSAN_SELFTESTS ?= $(SELFTESTS)
check-debug-kcsan: $(O)/kmod-kcsan/kernel/rths.ko $(KCSAN_SPLAT_KO) \
		selftests tools ynl splat-scan-check
	@$(VM_ENV) DEBUG_TIMEOUT=$(DEBUG_TIMEOUT) tests/vm/check-debug.sh kcsan \
		$(KCSAN_RESULTS) $(O)/kmod-kcsan $(SELFTEST_DIR) \
		$(KCSAN_SPLAT_KO) $(KCSAN_SELFTESTS)
