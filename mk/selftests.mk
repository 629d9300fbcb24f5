# SPDX-License-Identifier: GPL-2.0
# Module selftests (kselftest harness), built on the host and run in the
# QEMU guest on the four kernels (6.1 and 6.12, stock and -rt) by
# "make vm-check".

DEB_PKGS += libmnl-dev
# rths_tracetools_test.sh reads the rths trace events with both
DEB_PKGS += linux-perf trace-cmd

# In run order: rths_rmmod_test unloads and reloads the modules, so last;
# rths_hotplug_test takes cpu1 offline and back, so it runs after the
# tests that trace or time both CPUs.
SELFTESTS := rths_netlink_test rths_loop_test rths_ring_test rths_rt_test \
	rths_trace_test rths_tracetools_test.sh rths_latency_test.sh \
	rths_stress_test rths_comedi_test \
	rths_run_test.sh own_loop_test.sh rths_plant_test.sh rths_ynl_test.sh \
	rths_ynl_policy_test.sh rths_nonroot_test.sh rths_libnl_test \
	rths_batch_test.sh \
	rths_hotplug_test \
	rths_rmmod_test
SELFTEST_DIR := $(O)/plain/tests/selftests
SELFTEST_BINS := $(addprefix $(SELFTEST_DIR)/,$(filter-out %.sh,$(SELFTESTS)))

$(SELFTEST_DIR)/%: $(SELFTEST_DIR)/%.o $(SELFTEST_DIR)/common.o \
		$(O)/plain/librths.a
	$(CC) -o $@ $^ $(LIBRTHS_LIBS)
$(addsuffix .o,$(SELFTEST_BINS)) $(SELFTEST_DIR)/common.o: $(HARNESS)

.PHONY: selftests vm-check
selftests: $(SELFTEST_BINS)

# One boot per flavour; the console goes to results/vm-check-FLAVOUR.log.
vm-check: module selftests tools vm-kernels
	@# The guest finds the tools from here, even when SELFTESTS names
	@# scripts only and no binary was built.
	@mkdir -p $(O)/results $(SELFTEST_DIR)
	@rc=0; for f in $(VM_FLAVOURS); do \
		echo "== vm-check-$$f"; st=0; \
		$(VM_ENV) $(VM_RUN) --timeout 2400 \
			--log $(O)/results/vm-check-$$f.log \
			$$f $(O)/results -- tests/selftests/guest-run.sh $$f \
			$(O)/results $(O)/kmod-$$f $(SELFTEST_DIR) \
			$(SELFTESTS) || st=$$?; \
		cat $(O)/results/vm-$$f-*.tap 2>/dev/null; \
		if [ $$st -eq 125 ]; then \
			printf 'TAP version 13\n1..1\nnot ok 1 the %s guest reported no result\n' \
				$$f > $(O)/results/vm-$$f-guest.tap; \
		fi; \
		[ $$st -eq 0 ] || rc=1; \
	done; exit $$rc

CHECK_PARTS += vm-check
