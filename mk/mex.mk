# SPDX-License-Identifier: GPL-2.0
# The MEX interface for MATLAB and GNU Octave (mex/rths_mex.c,
# Documentation/mex.rst): one MEX file built here with Octave's mkoctfile
# --mex into $(O)/octave/rths_mex.mex, linked against the build's
# librths.so.2 (rpath: the tests need no LD_LIBRARY_PATH).
#
#   make mex            the MEX file
#   make octave-check   tests/octave/*.m under octave-cli, offline (TAP in
#                       $(O)/results/octave-NAME.tap)
#   make vm-octave      the device tests on a sim card in the stock guest
#   make bench-octave   the own loop in C and in Octave, offline and on the
#                       sim card in the guest: per-step cost, ratio

DEB_PKGS += octave liboctave-dev

MEX_DIR := $(O)/octave
MEX := $(MEX_DIR)/rths_mex.mex
# Our own flags: MATLAB's mex compiles the same file with its own.
MEX_CFLAGS := $(CSTD) $(WARN) $(CFLAGS_plain)

$(MEX_DIR)/rths_mex.o: mex/rths_mex.c $(wildcard include/rths/*.h) \
		include/uapi/linux/rths.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	CFLAGS='$(MEX_CFLAGS)' mkoctfile --mex -c -I$(TOP)/include \
		-I$(TOP)/include/uapi -o $@ $<

$(MEX): $(MEX_DIR)/rths_mex.o $(LIBRTHS_SO)
	mkoctfile --mex -o $@ $< -L$(O)/plain -lrths -Wl,-rpath,$(O)/plain

# The same loop in C, for the tests (own_loop.m against own-loop.c) and
# the benchmark, on the shared library as a researcher's program is.
# run_history prints a run's history in full, for test_run.m.
MEX_C_LOOPS := $(MEX_DIR)/own-loop $(MEX_DIR)/bench_loop \
	$(MEX_DIR)/run_history
$(MEX_DIR)/own-loop: examples/c/own-loop.c
# the loop bench-python times too, with the line tests/octave/bench.sh reads
$(MEX_DIR)/bench_loop: tests/common/bench_loop.c
$(MEX_DIR)/bench_loop: LOOP_DEFS := -DBENCH_LOOP_OCTAVE
$(MEX_DIR)/run_history: tests/octave/run_history.c
$(MEX_C_LOOPS): $(LIBRTHS_SO) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(CFLAGS_plain) $(LOOP_DEFS) -I$(TOP)/include \
		-I$(TOP)/include/uapi -o $@ $(filter %.c,$^) -L$(O)/plain \
		-lrths -lm -Wl,-rpath,$(O)/plain

.PHONY: mex octave-check vm-octave bench-octave
mex: $(MEX)

# test_device.m needs a device: the guest runs it (vm-octave).
OCTAVE_TESTS := $(filter-out tests/octave/test_device.m,\
	$(sort $(wildcard tests/octave/test_*.m)))
octave-check: $(MEX) $(MEX_C_LOOPS) $(O)/plain/tools/rths-run
	@mkdir -p $(O)/results
	@tests/octave/run.sh $(O)/results $(MEX_DIR) $(O)/plain/tools \
		$(OCTAVE_TESTS)
CHECK_PARTS += octave-check

# One boot of the stock guest: sim-card devices, tests/octave/
# test_device.m on them (open, post, wait, stats, close, own_loop.m, the
# 'run' of an experiment file).  TAP in results/vm-octave-stock.tap and
# results/vm-octave-stock-device.tap, the console in
# results/vm-octave-stock.log.
vm-octave: $(MEX) $(MEX_C_LOOPS) $(O)/kmod-stock/kernel/rths.ko tools \
		vm-kernels
	@mkdir -p $(O)/results
	@tap=$(O)/results/vm-octave-stock.tap; rm -f $$tap; st=0; \
	echo "== vm-octave-stock"; \
	$(VM_ENV) $(VM_RUN) --timeout 1200 \
		--log $(O)/results/vm-octave-stock.log --stdout $$tap \
		stock $(O)/results -- tests/vm/octave-guest.sh \
		$(O)/results $(O)/kmod-stock $(MEX_DIR) $(O)/plain/tools \
		|| st=$$?; \
	touch $$tap; cat $$tap; \
	if [ $$st -ne 0 ] && ! grep -q '^not ok' $$tap; then \
		echo "not ok - vm-octave-stock: run-vm.sh exited with status $$st" \
			| tee -a $$tap; \
	fi; exit $$st
CHECK_PARTS += vm-octave

# Never asserted on time: prints the figures.
BENCH_OCTAVE_STEPS ?= 3000
bench-octave: $(MEX) $(MEX_C_LOOPS) $(O)/kmod-stock/kernel/rths.ko tools \
		vm-kernels
	@tests/octave/bench.sh host $(MEX_DIR) $(BENCH_OCTAVE_STEPS)
	@mkdir -p $(O)/bench
	@$(VM_ENV) $(VM_RUN) --timeout 1200 --log $(O)/bench/octave-vm.log \
		--stdout $(O)/bench/octave-vm.txt stock $(O)/bench -- \
		tests/octave/bench.sh guest $(MEX_DIR) $(BENCH_OCTAVE_STEPS) \
		$(O)/kmod-stock $(O)/plain/tools; \
		st=$$?; cat $(O)/bench/octave-vm.txt; exit $$st
BENCHES += bench-octave
