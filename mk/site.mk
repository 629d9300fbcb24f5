# SPDX-License-Identifier: GPL-2.0
# tools/rths-site: numerical substructures (with the engine's springs from
# librths' element API) served over OpenFresco's protocols and the rths
# native protocol (Documentation/rths-site.rst), and its loopback tests:
# clients that follow OpenFresco's sources and the native protocol's
# specification drive the plain build and an ASan/UBSan build of the tool.

# The test's OpenFresco -ssl client is OpenSSL's, as TCP_SocketSSL's;
# openssl(1) makes its certificates at test time.
DEB_PKGS_userspace += libjansson-dev
DEB_PKGS += libssl-dev openssl
TOOLS += rths-site

SITE_SRCS := tools/rths-site.c $(sort $(wildcard tools/rths-site/*.c)) \
	tools/common/steprt.c tools/common/cli.c
# the step thread's real time, shared with rths-run; the tools' --version
# and file errors
TOOL_OBJS_rths-site += $(O)/plain/tools/common/steprt.o \
	$(O)/plain/tools/common/cli.o
# rths-site --live: the live view of its device substructures (mk/live.mk)
TOOL_OBJS_rths-site += $(LIVE_OBJS_plain)
TOOL_LIBS_rths-site += $(LIVE_LIBS)
SITE_ASAN := $(O)/asan/tools/rths-site
$(SITE_ASAN): $(SITE_SRCS) $(NET_SRCS) $(wildcard tools/rths-site/*.h) \
		$(wildcard tools/net/*.h) $(LIVE_SRCS) \
		$(wildcard tools/live/*.h) $(O)/asan/tools/live/page.o \
		$(O)/asan/librths.a | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(CFLAGS_asan) $(LDFLAGS_asan) -o $@ \
		$(CPPFLAGS_COMMON) $(SITE_SRCS) $(NET_SRCS) $(LIVE_SRCS) \
		$(O)/asan/tools/live/page.o \
		$(O)/asan/librths.a $(NET_LIBS) $(LIVE_LIBS) $(LIBRTHS_LIBS)

# The site as a child process and a blocking client, for every test.
SITE_TEST_COMMON := tests/site/site_proc.c tests/site/site_proc.h

SITE_TEST := $(O)/plain/tests/site/test_site
$(SITE_TEST): tests/site/test_site.c $(SITE_TEST_COMMON) $(HARNESS) \
		$(O)/plain/librths.a | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -Wno-missing-prototypes $(HARNESS_FLAGS) \
		$(CPPFLAGS_COMMON) $(CFLAGS_plain) -o $@ $< \
		$(filter %.c,$(SITE_TEST_COMMON)) \
		$(O)/plain/librths.a $(LIBRTHS_LIBS)

# The native protocol's tests speak it with the codec and the TLS of the
# tools (tools/net); test_tls's OpenFresco -ssl client is OpenSSL's.
define site_net_test_rule
$(O)/plain/tests/site/$(1): tests/site/$(1).c $(SITE_TEST_COMMON) \
		$(NET_SRCS) $(wildcard tools/net/*.h) $(HARNESS) \
		$(O)/plain/librths.a | $(DEPS_STAMP)
	@mkdir -p $$(@D)
	$$(CC) $$(CSTD) $$(WARN) -Wno-missing-prototypes $$(HARNESS_FLAGS) \
		$$(CPPFLAGS_COMMON) -Itools/net $$(CFLAGS_plain) -o $$@ $$< \
		$(filter %.c,$(SITE_TEST_COMMON)) $(NET_SRCS) \
		$(O)/plain/librths.a $(NET_LIBS) -lssl -lcrypto $(LIBRTHS_LIBS)
endef
SITE_NET_TESTS := test_native test_tls
$(foreach t,$(SITE_NET_TESTS),$(eval $(call site_net_test_rule,$(t))))

.PHONY: site-check
site-check: $(O)/plain/tools/rths-site $(SITE_ASAN) $(SITE_TEST) \
		$(patsubst %,$(O)/plain/tests/site/%,$(SITE_NET_TESTS))
	@mkdir -p $(O)/results
	@rc=0; for v in plain asan; do \
		for t in site native tls; do \
			r=$(O)/results/site-$$t-$$v.tap; \
			RTHS_SITE=$(O)/$$v/tools/rths-site timeout 300 \
				$(O)/plain/tests/site/test_$$t > $$r 2>&1 || rc=1; \
			cat $$r; \
		done; \
	done; exit $$rc
CHECK_PARTS += site-check
MAN_PAGES += Documentation/man/rths-site.1
