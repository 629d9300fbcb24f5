# SPDX-License-Identifier: GPL-2.0
# "make check-debug": the whole guest selftest suite on a debug kernel
# (lockdep, DEBUG_ATOMIC_SLEEP, KASAN, KFENCE, kmemleak, UBSAN) built
# from Debian's linux-source-6.1 by scripts/build-debug-kernel.sh, cached
# under $(O)/debug-kernel; any checker's report fails the run.  Not part
# of "make check": the kernel build alone takes 20 to 40 minutes on two
# CPUs, the suite under TCG several times its stock time (see
# Documentation/testing.rst).  Results go to $(O)/results-debug/.

# Building a kernel: kconfig's parser (flex, bison), objtool (libelf),
# the certificate tools (libssl), bc for the time constants.
DEB_PKGS += flex bison bc libelf-dev libssl-dev

DEBUG_VMDIR = $(O)/vm/debug
DEBUG_RESULTS = $(O)/results-debug
# The kernel tree the modules build against, known once it is built.
KDIR_debug = $(or $(shell sed -n 's/^KBUILD=//p' $(DEBUG_VMDIR)/kernel.env \
	2>/dev/null),$(error no debug kernel in $(DEBUG_VMDIR) (make debug-kernel)))
KMOD_EXTRA_FLAVOURS += debug
DEBUG_SPLAT_KO := $(O)/splat-debug/rths_splat.ko
# The guest's time limit: the suite takes ~15 min on the stock kernel.
DEBUG_TIMEOUT ?= 7200

.PHONY: debug-kernel check-debug splat-scan-check

# Cheap when the build is cached: the script only checks its stamp.
debug-kernel: | $(DEPS_STAMP)
	@O='$(O)' scripts/build-debug-kernel.sh $(DEBUG_VMDIR)

$(O)/kmod-debug/kernel/rths.ko: debug-kernel

# The self-check's splat maker, built against the debug kernel only.
$(DEBUG_SPLAT_KO): tests/vm/splat/rths_splat.c tests/vm/splat/Kbuild \
		debug-kernel
	@mkdir -p $(O)/splat-debug
	cp tests/vm/splat/rths_splat.c tests/vm/splat/Kbuild $(O)/splat-debug/
	$(MAKE) -C $(KDIR_debug) M=$(O)/splat-debug W=1 modules

# The scanner against sample reports (tests/vm/splats): no kernel needed.
splat-scan-check:
	@mkdir -p $(O)/results
	@tests/vm/splat-scan-test.sh > $(O)/results/splat-scan.tap; \
		rc=$$?; cat $(O)/results/splat-scan.tap; exit $$rc
CHECK_PARTS += splat-scan-check

# One boot: the selftests, kmemleak scans, then the splat self-check
# (tests/vm/debug-run.sh in the guest, tests/vm/check-debug.sh on the
# host, which judges the logs).
check-debug: $(O)/kmod-debug/kernel/rths.ko $(DEBUG_SPLAT_KO) selftests \
		tools ynl splat-scan-check
	@$(VM_ENV) DEBUG_TIMEOUT=$(DEBUG_TIMEOUT) tests/vm/check-debug.sh debug \
		$(DEBUG_RESULTS) $(O)/kmod-debug $(SELFTEST_DIR) \
		$(DEBUG_SPLAT_KO) $(SELFTESTS)
