# SPDX-License-Identifier: GPL-2.0
# "make bench-kernel": the per-step exchange cost through the rings
# against one netlink request per step, in one guest run per kernel
# flavour.  The loop's latency beside cyclictest and timerlat is
# "make bench-latency" (mk/latency.mk).
#
# For the guest benchmarks:
#   $(call guest_bench,NAME,TIMEOUT,CMD,SHOW)
#       one guest run per flavour of $(VM_FLAVOURS): CMD (in which $$f is
#       the flavour) writes its standard output to $(O)/bench/NAME-$$f.txt,
#       the guest console goes to NAME-$$f.log; then "SHOW FILE" prints
#       the first.  A guest run that fails ends the loop, non-zero.

KBENCH := $(O)/plain/bench/kernel/rths_bench

define guest_bench
	@mkdir -p $(O)/bench
	@for f in $(VM_FLAVOURS); do \
		rm -f $(O)/bench/$(1)-$$f.txt; \
		$(VM_ENV) $(VM_RUN) --timeout $(2) --log $(O)/bench/$(1)-$$f.log \
			--stdout $(O)/bench/$(1)-$$f.txt $$f $(O)/bench -- $(3) || \
		{ st=$$?; echo "bench-$(1): $$f: the guest run failed" \
			"(status $$st; console in $(O)/bench/$(1)-$$f.log)" >&2; \
			exit 1; }; \
		$(4) $(O)/bench/$(1)-$$f.txt; \
	done
endef

$(KBENCH): $(O)/plain/bench/kernel/rths_bench.o $(O)/plain/librths.a
	$(CC) -o $@ $^ $(LIBRTHS_LIBS)

# The bare echo (bench/kernel/echo), the exchange's floor: built for the
# bench only, per flavour, the way the splat module of mk/debug.mk is.
ECHO_SRCS := bench/kernel/echo/rths_echo.c bench/kernel/echo/rths_echo.h \
	bench/kernel/echo/Kbuild
$(O)/echo-%/rths_echo.ko: $(ECHO_SRCS) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	cp $(ECHO_SRCS) $(@D)/
	$(MAKE) -C $(KDIR_$*) M=$(@D) O= $(KMOD_FLAGS) modules

.PHONY: bench-kernel
bench-kernel: module $(KBENCH) vm-kernels \
		$(foreach f,$(VM_FLAVOURS),$(O)/echo-$(f)/rths_echo.ko)
	$(call guest_bench,kernel,900,bench/kernel/guest-bench.sh \
		$(O)/kmod-$$f $(KBENCH) $(O)/echo-$$f/rths_echo.ko,cat)

BENCHES += bench-kernel

# "make bench-syscalls": the system calls one step costs, counted by
# strace in the guest, for a bare post/wait loop (rths_bench -l) spinning
# and polling, and for rths-run's own loop (bench/kernel/guest-syscalls.sh).
.PHONY: bench-syscalls
bench-syscalls: module $(KBENCH) $(O)/plain/tools/rths-run vm-kernels
	$(call guest_bench,syscalls,1500,bench/kernel/guest-syscalls.sh \
		$(O)/kmod-$$f $(KBENCH) $(O)/plain/tools/rths-run,cat)

BENCHES += bench-syscalls

# "make bench-memory": the kernel memory per device against the bytes
# its records need (bench/kernel/guest-memory.sh), in the guest.
.PHONY: bench-memory
bench-memory: module $(O)/plain/tools/rthsctl vm-kernels
	$(call guest_bench,memory,900,bench/kernel/guest-memory.sh \
		$(O)/kmod-$$f $(O)/plain/tools/rthsctl,cat)

BENCHES += bench-memory
