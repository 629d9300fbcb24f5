# SPDX-License-Identifier: GPL-2.0
# "make bench-latency": the rths loop (a sim device on its hrtimer clock,
# run by rthsctl latency) beside cyclictest and, where the kernel has it,
# the timerlat tracer, on one CPU at one period, idle and under stress-ng,
# in one guest run per kernel flavour (bench/latency/guest-latency.sh).
# Prints p50/p99/p99.9/max per tool (the rths loop's p99.9 checked
# against its kernel's 1 us histogram) and the ratios of p99 and max, per kernel
# and then across the kernels; judges no figure, but fails when a tool
# cannot run or yields no samples.
#
#   BENCH_LAT_SECONDS    length of each tool's run, per load (the rths and
#                        cyclictest runs count SECONDS * rate loops)
#   BENCH_LAT_PERIOD_US  the period of all three (dividing 1 s)
#   BENCH_LAT_PRIO       their SCHED_FIFO priority
#   BENCH_LAT_STRESS     stress-ng's stressors for the loaded runs

DEB_PKGS += rt-tests stress-ng

BENCH_LAT_SECONDS ?= 10
BENCH_LAT_PERIOD_US ?= 1000
BENCH_LAT_PRIO ?= 80
BENCH_LAT_STRESS ?= --cpu 0 --vm 1 --vm-bytes 64M --hdd 1 --hdd-bytes 4M \
	--timer 1 --timer-freq 2000

.PHONY: bench-latency
bench-latency: module $(O)/plain/tools/rthsctl vm-kernels
	$(call guest_bench,latency,$(shell echo $$((600 + 12 * $(BENCH_LAT_SECONDS)))),\
		bench/latency/guest-latency.sh $(O)/kmod-$$f \
		$(O)/plain/tools/rthsctl $(BENCH_LAT_SECONDS) \
		$(BENCH_LAT_PERIOD_US) $(BENCH_LAT_PRIO) $(O)/bench/latency-$$f \
		$(BENCH_LAT_STRESS),bench/latency/report.sh table $$f)
	@bench/latency/report.sh summary $(foreach f,$(VM_FLAVOURS),\
		$(f) $(O)/bench/latency-$(f).txt)

BENCHES += bench-latency

# rthsctl latency's formats and units, read back as cyclictest's and
# rtla's users read them (links rthsctl's latfmt, parse, plant, units).
UNIT_TESTS += test_rthsctl_latfmt
$(foreach v,$(VARIANTS),$(eval $(O)/$(v)/tests/unit/test_rthsctl_latfmt: \
	$(O)/$(v)/tools/rthsctl.parts/latfmt.o \
	$(O)/$(v)/tools/rthsctl.parts/parse.o \
	$(O)/$(v)/tools/rthsctl.parts/plant.o \
	$(O)/$(v)/tools/rthsctl.parts/print.o \
	$(O)/$(v)/tools/rthsctl.parts/units.o))
