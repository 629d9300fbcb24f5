# SPDX-License-Identifier: GPL-2.0
# Distributed tests (tests/dist): the fault-injecting TCP proxy
# (tests/dist/faultproxy.c), built plain and under ASan/UBSan, and its own
# test on loopback; the fault matrix and the fault policy's tests
# (tests/dist/faults.sh, policy.sh: rths-coord and three rths-site in
# network namespaces, with tests/dist/testpeer.c's peers, as root), with the
# plain and the ASan/UBSan builds; the smoke run of bench-dist-scale
# (tests/dist/scale.sh: 8 sites behind one tundelay); "make dist-check"
# runs them (Documentation/distributed-testing.rst).

# ip and ss (namespaces, veth pairs), jq (the bench reads summary.json),
# sysctl (IPv4-only TUN links).
DEB_PKGS += iproute2 jq procps

DIST_PROXY_SRC := tests/dist/faultproxy.c
define dist_proxy_rule
$(O)/$(1)/tests/dist/faultproxy: $(DIST_PROXY_SRC) | $(DEPS_STAMP)
	@mkdir -p $$(@D)
	$$(CC) $$(CSTD) $$(WARN) $$(CFLAGS_$(1)) $$(LDFLAGS_$(1)) -o $$@ $$<
endef
$(foreach v,plain asan,$(eval $(call dist_proxy_rule,$(v))))

# The fault policy's peers (tests/dist/testpeer.c): a site whose device
# refuses, a flood of connects, a timed HELLO.
define dist_peer_rule
$(O)/$(1)/tests/dist/testpeer: tests/dist/testpeer.c \
		$(wildcard tools/net/*.[ch]) | $(DEPS_STAMP)
	@mkdir -p $$(@D)
	$$(CC) $$(CSTD) $$(WARN) -Itools/net $$(CFLAGS_$(1)) $$(LDFLAGS_$(1)) \
		-o $$@ $$< $$(NET_SRCS) $$(NET_LIBS)
endef
$(foreach v,plain asan,$(eval $(call dist_peer_rule,$(v))))

# bench-dist's delayed link without sch_netem: TUN devices in two
# namespaces, packets delayed both ways, nothing acknowledged early.
DIST_TUNDELAY := $(O)/plain/bench/dist/tundelay
$(DIST_TUNDELAY): bench/dist/tundelay.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(CFLAGS_plain) -o $@ $<

DIST_PROXY_TEST := $(O)/plain/tests/dist/test_faultproxy
$(DIST_PROXY_TEST): tests/dist/test_faultproxy.c tests/site/site_proc.c \
		tests/site/site_proc.h $(HARNESS) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -Wno-missing-prototypes $(HARNESS_FLAGS) \
		-Itests/site $(CFLAGS_plain) -o $@ $< tests/site/site_proc.c

.PHONY: dist-check
dist-check: $(O)/plain/tests/dist/faultproxy $(O)/asan/tests/dist/faultproxy \
		$(O)/plain/tests/dist/testpeer $(O)/asan/tests/dist/testpeer \
		$(DIST_PROXY_TEST) $(O)/plain/tools/rths-coord \
		$(O)/plain/tools/rths-site $(O)/asan/tools/rths-coord \
		$(O)/asan/tools/rths-site $(DIST_TUNDELAY)
	@mkdir -p $(O)/results
	@rc=0; for v in plain asan; do \
		FAULTPROXY=$(O)/$$v/tests/dist/faultproxy timeout 300 \
			$(DIST_PROXY_TEST) > $(O)/results/faultproxy-$$v.tap \
			2>&1 || rc=1; \
		cat $(O)/results/faultproxy-$$v.tap; \
	done; \
	for v in plain asan; do \
		RTHS_COORD=$(O)/$$v/tools/rths-coord \
		RTHS_SITE=$(O)/$$v/tools/rths-site \
		FAULTPROXY=$(O)/$$v/tests/dist/faultproxy \
		TESTPEER=$(O)/$$v/tests/dist/testpeer timeout 1200 \
			tests/dist/faults.sh $(O)/results $(O)/dist-faults-$$v \
			> $(O)/results/dist-faults-$$v.tap \
			2>$(O)/dist-faults-$$v.log || rc=1; \
		cat $(O)/results/dist-faults-$$v.tap; \
	done; \
	for v in plain asan; do \
		timeout 300 tests/dist/scale.sh $(O)/$$v/tools/rths-coord \
			$(O)/$$v/tools/rths-site $(DIST_TUNDELAY) \
			$(O)/dist-scale-$$v > $(O)/results/dist-scale-$$v.tap \
			2>&1 || rc=1; \
		cat $(O)/results/dist-scale-$$v.tap; \
	done; exit $$rc
CHECK_PARTS += dist-check

# bench-dist's client of one substructure (native, OpenFresco A and C).
DIST_STEP_CLIENT := $(O)/plain/bench/dist/step_client
$(DIST_STEP_CLIENT): bench/dist/step_client.c $(NET_SRCS) \
		$(wildcard tools/net/*.h) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -Itools/net $(CFLAGS_plain) -o $@ $< \
		$(NET_SRCS) $(NET_LIBS) -lm

# The distributed demo (README): the four-pier bridge of examples/bridge/
# with each pier at its own site in its own network namespace (as root);
# the device piers are sim cards on this kernel or in QEMU guests, hence
# the modules and the guests' kernels, as for "make demo".
.PHONY: demo-distributed
demo-distributed: deps module vm-kernels $(O)/plain/tools/rths-coord \
		$(O)/plain/tools/rths-site $(O)/plain/tests/dist/faultproxy
	@$(VM_ENV) scripts/demo-distributed.sh $(O)/demo-distributed \
		$(O)/plain/tools/rths-coord $(O)/plain/tools/rths-site \
		$(O)/plain/tests/dist/faultproxy $(O)/kmod-stock $(O)/kmod-rt

# The distributed benchmark (bench/dist/bench-dist.sh, as root): step rate
# against link round trip and site count, serial against parallel, and
# OpenFresco's messages per step against the native round trip; then
# Nagle on a delayed link (bench/dist/nagle.sh, also alone as
# bench-dist-nagle).
BENCHES += bench-dist
.PHONY: bench-dist bench-dist-nagle
bench-dist: $(O)/plain/tools/rths-coord $(O)/plain/tools/rths-site \
		$(O)/plain/tests/dist/faultproxy $(DIST_STEP_CLIENT) \
		$(DIST_TUNDELAY)
	bench/dist/bench-dist.sh $(O)/plain/tools/rths-coord \
		$(O)/plain/tools/rths-site $(O)/plain/tests/dist/faultproxy \
		$(DIST_STEP_CLIENT) $(O)/bench-dist
	bench/dist/nagle.sh $(O)/plain/tools/rths-site \
		$(O)/plain/tests/dist/faultproxy $(DIST_STEP_CLIENT) \
		$(DIST_TUNDELAY) $(O)/bench-dist-nagle
bench-dist-nagle: $(O)/plain/tools/rths-site \
		$(O)/plain/tests/dist/faultproxy $(DIST_STEP_CLIENT) \
		$(DIST_TUNDELAY)
	bench/dist/nagle.sh $(O)/plain/tools/rths-site \
		$(O)/plain/tests/dist/faultproxy $(DIST_STEP_CLIENT) \
		$(DIST_TUNDELAY) $(O)/bench-dist-nagle

# Distributed scale (bench/dist/bench-dist-scale.sh, as root): rths-coord
# and 1 to 64 numerical sites, each behind a 20 ms link of tundelay (no
# early ACK): the step against the floor, the coordinator's CPU per step
# and per site, memory per site (Documentation/performance.rst).
BENCHES += bench-dist-scale
.PHONY: bench-dist-scale
bench-dist-scale: $(O)/plain/tools/rths-coord $(O)/plain/tools/rths-site \
		$(DIST_TUNDELAY)
	bench/dist/bench-dist-scale.sh $(O)/plain/tools/rths-coord \
		$(O)/plain/tools/rths-site $(DIST_TUNDELAY) $(O)/bench-dist-scale
