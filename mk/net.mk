# SPDX-License-Identifier: GPL-2.0
# tools/net: the rths native protocol (Documentation/rths-protocol.rst)
# and TLS over GnuTLS (tls.h), shared by rths-site and rths-coord with
# the connection over both (conn.h), and the log rate limiter
# (ratelimit.h); the codec's and the limiter's
# tests, run plain and under ASan/UBSan.  A tool that links
# NET_OBJS_plain links NET_LIBS too.

DEB_PKGS_userspace += libgnutls28-dev
NET_LIBS := -lgnutls

NET_SRCS := $(sort $(wildcard tools/net/*.c))
NET_OBJS_plain = $(patsubst %.c,$(O)/plain/%.o,$(NET_SRCS))
NET_OBJS_asan = $(patsubst %.c,$(O)/asan/%.o,$(NET_SRCS))
TOOL_OBJS_rths-site = $(NET_OBJS_plain)
TOOL_LIBS_rths-site = $(NET_LIBS)

NET_TESTS := test_wire test_conn test_ratelimit
define net_test_rule
$(O)/$(1)/tests/net/$(2): tests/net/$(2).c $(NET_SRCS) \
		$(wildcard tools/net/*.h) $(HARNESS) | $(DEPS_STAMP)
	@mkdir -p $$(@D)
	$$(CC) $$(CSTD) $$(WARN) -Wno-missing-prototypes $$(HARNESS_FLAGS) \
		$$(CPPFLAGS_COMMON) -Itools/net $$(CFLAGS_$(1)) \
		$$(LDFLAGS_$(1)) -o $$@ $$< $(NET_SRCS) $(NET_LIBS)
endef
$(foreach v,plain asan,$(foreach t,$(NET_TESTS),\
	$(eval $(call net_test_rule,$(v),$(t)))))

.PHONY: net-check
net-check: $(foreach v,plain asan,$(foreach t,$(NET_TESTS),$(O)/$(v)/tests/net/$(t)))
	@mkdir -p $(O)/results
	@rc=0; for v in plain asan; do for t in $(NET_TESTS); do \
		timeout 120 $(O)/$$v/tests/net/$$t \
			> $(O)/results/net-$$t-$$v.tap 2>&1 || rc=1; \
		cat $(O)/results/net-$$t-$$v.tap; \
	done; done; exit $$rc
CHECK_PARTS += net-check

# How often a step of rths-coord crosses between backend.c and the files
# of tools/net (tests/net/crossings.sh, under uftrace): at most what the
# session layer brought it to, per site, over TCP and over TLS.
DEB_PKGS += uftrace
.PHONY: crossings-check
crossings-check: $(O)/plain/tools/rths-coord $(O)/plain/tools/rths-site
	@mkdir -p $(O)/results
	@rc=0; timeout 300 tests/net/crossings.sh $(O) 8 14 \
		> $(O)/results/crossings.tap 2>&1 || rc=1; \
	cat $(O)/results/crossings.tap; exit $$rc
CHECK_PARTS += crossings-check
