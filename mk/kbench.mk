# SPDX-License-Identifier: GPL-2.0
# "make bench-kernel": the per-step exchange cost through the rings
# against one netlink request per step, and the loop's latency beside
# cyclictest, both measured in one guest run per kernel flavour.

DEB_PKGS += rt-tests
KBENCH := $(O)/plain/bench/kernel/rths_bench
KBENCH_TICKS ?= 10240

$(KBENCH): $(O)/plain/bench/kernel/rths_bench.o $(O)/plain/librths.a
	$(CC) -o $@ $^ $(LIBRTHS_LIBS)

.PHONY: bench-kernel
bench-kernel: module $(KBENCH) vm-kernels
	@mkdir -p $(O)/bench
	@for f in $(VM_FLAVOURS); do \
		$(VM_ENV) $(VM_RUN) --timeout 1800 --log $(O)/bench/kernel-$$f.log \
			--stdout $(O)/bench/kernel-$$f.txt $$f $(O)/bench -- \
			bench/kernel/guest-bench.sh $(O)/kmod-$$f $(KBENCH) \
			$(KBENCH_TICKS) || exit 1; \
		cat $(O)/bench/kernel-$$f.txt; \
	done

BENCHES += bench-kernel
