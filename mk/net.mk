# SPDX-License-Identifier: GPL-2.0
# tools/net: the rths native protocol (Documentation/rths-protocol.rst)
# shared by rths-site and rths-coord, and its codec test, run plain and
# under ASan/UBSan.

NET_SRCS := $(sort $(wildcard tools/net/*.c))
NET_OBJS_plain = $(patsubst %.c,$(O)/plain/%.o,$(NET_SRCS))
NET_OBJS_asan = $(patsubst %.c,$(O)/asan/%.o,$(NET_SRCS))
TOOL_OBJS_rths-site = $(NET_OBJS_plain)

define net_test_rule
$(O)/$(1)/tests/net/test_wire: tests/net/test_wire.c $(NET_SRCS) \
		$(wildcard tools/net/*.h) $(HARNESS) | $(DEPS_STAMP)
	@mkdir -p $$(@D)
	$$(CC) $$(CSTD) $$(WARN) -Wno-missing-prototypes $$(HARNESS_FLAGS) \
		$$(CPPFLAGS_COMMON) -Itools/net $$(CFLAGS_$(1)) \
		$$(LDFLAGS_$(1)) -o $$@ $$< $(NET_SRCS)
endef
$(foreach v,plain asan,$(eval $(call net_test_rule,$(v))))

.PHONY: net-check
net-check: $(O)/plain/tests/net/test_wire $(O)/asan/tests/net/test_wire
	@mkdir -p $(O)/results
	@rc=0; for v in plain asan; do \
		timeout 120 $(O)/$$v/tests/net/test_wire \
			> $(O)/results/net-$$v.tap 2>&1 || rc=1; \
		cat $(O)/results/net-$$v.tap; \
	done; exit $$rc
CHECK_PARTS += net-check
