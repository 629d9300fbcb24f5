# SPDX-License-Identifier: GPL-2.0
# tools/live: the live view a tool serves (rths-run --live), over
# libmicrohttpd, with its page (tools/live/page/) compiled in and
# Debian's dygraphs served from /usr/share/javascript/dygraphs.  A tool
# that links LIVE_OBJS_plain links LIVE_LIBS and the TLS wrapper
# (tools/net) too.  Its tests: live-check (hostile clients, viewers that
# stall, the values on the page against history.csv in headless
# Chromium).

DEB_PKGS_userspace += libmicrohttpd-dev libjs-dygraphs
DEB_PKGS += chromium
LIVE_LIBS := -lmicrohttpd

LIVE_SRCS := $(sort $(wildcard tools/live/*.c))
LIVE_PAGE := tools/live/page/index.html tools/live/page/live.js \
	tools/live/page/live.css
LIVE_OBJS_plain = $(patsubst %.c,$(O)/plain/%.o,$(LIVE_SRCS)) \
	$(O)/plain/tools/live/page.o
LIVE_OBJS_asan = $(patsubst %.c,$(O)/asan/%.o,$(LIVE_SRCS)) \
	$(O)/asan/tools/live/page.o

# The page as C strings: live_page_html, live_page_js, live_page_css.
define live_page_rule
$(O)/$(1)/tools/live/page.c: $(LIVE_PAGE) mk/live.mk | $(DEPS_STAMP)
	@mkdir -p $$(@D)
	@{ echo '/* generated from tools/live/page/ by mk/live.mk */'; \
	for f in html:index.html js:live.js css:live.css; do \
		echo "const char live_page_$$$${f%%:*}[] ="; \
		sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$$$/\\n"/' \
			tools/live/page/$$$${f#*:}; \
		echo ';'; \
	done; } > $$@.tmp && mv $$@.tmp $$@
$(O)/$(1)/tools/live/page.o: $(O)/$(1)/tools/live/page.c
	$$(CC) $$(CSTD) $$(CFLAGS_$(1)) -Wall -Wextra -Werror \
		$$(CPPFLAGS) $$(CFLAGS) -fPIC -c $$< -o $$@
endef
$(foreach v,plain asan,$(eval $(call live_page_rule,$(v))))

# rths-run --live from outside (tests/live/live_test.py), with the plain
# and the ASan/UBSan tool: hostile clients, a stalled viewer, a token,
# HTTPS off loopback (openssl makes the certificate), and the page in
# headless Chromium over the DevTools protocol (python3-websocket), whose
# screenshot during the run goes to results/live-view.png.
DEB_PKGS += python3-websocket openssl curl
# The ring alone, plain and under ASan/UBSan (tests/live/test_ring.c).
define live_ring_test_rule
$(O)/$(1)/tests/live/test_ring: tests/live/test_ring.c tools/live/ring.c \
		tools/live/ring.h $(HARNESS) | $(DEPS_STAMP)
	@mkdir -p $$(@D)
	$$(CC) $$(CSTD) $$(WARN) -Wno-missing-prototypes $$(HARNESS_FLAGS) \
		-Itools/live $$(CFLAGS_$(1)) $$(LDFLAGS_$(1)) -o $$@ $$< \
		tools/live/ring.c -lpthread
endef
$(foreach v,plain asan,$(eval $(call live_ring_test_rule,$(v))))

.PHONY: live-check
live-check: $(O)/plain/tools/rths-run $(O)/asan/bin/rths-run \
		$(O)/plain/tests/live/test_ring $(O)/asan/tests/live/test_ring
	@mkdir -p $(O)/results
	@rc=0; for v in plain asan; do \
		timeout 300 $(O)/$$v/tests/live/test_ring \
			> $(O)/results/live-ring-$$v.tap 2>&1 || rc=1; \
		cat $(O)/results/live-ring-$$v.tap; \
	done; \
	for v in plain asan; do \
		b=$(O)/plain/tools/rths-run; \
		[ $$v = asan ] && b=$(O)/asan/bin/rths-run; \
		echo "== live-check-$$v"; \
		timeout 600 /usr/bin/python3 tests/live/live_test.py $$b \
			$(TOP)/examples/two-story-frame.json $(O)/results \
			> $(O)/results/live-check-$$v.tap 2>&1 || rc=1; \
		cat $(O)/results/live-check-$$v.tap; \
	done; exit $$rc
CHECK_PARTS += live-check

# Does the view touch the step loop?  The same run with no viewer and
# with five (one stalled), alternately, in one invocation: offline at
# the record's pace with a real-time step thread on the host, then the
# demo on the sim card in a stock guest, its viewers on the host through
# QEMU's forward with HTTPS and a token (BENCH_LIVE_VM=0 leaves the
# guest out).  Prints; asserts nothing about time.
BENCH_LIVE_VM ?= 1
BENCHES += bench-live
.PHONY: bench-live
bench-live: $(O)/plain/tools/rths-run
	@/usr/bin/python3 bench/live/viewers.py $(O)/plain/tools/rths-run \
		examples/two-story-frame.json 2 -- --offline --pace \
		--realtime -t 6
	@if [ '$(BENCH_LIVE_VM)' != 0 ]; then \
		$(MAKE) --no-print-directory module vm-kernels && \
		$(VM_ENV) bench/live/viewers-guest.sh stock $(O)/results \
			$(O)/kmod-stock $(O)/plain/tools/rths-run 2; \
	fi
