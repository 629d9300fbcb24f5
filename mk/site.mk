# SPDX-License-Identifier: GPL-2.0
# tools/rths-site: numerical substructures (with the engine's springs from
# librths' element API) served over OpenFresco's protocols and the rths
# native protocol (Documentation/rths-site.rst), and its loopback tests:
# clients that follow OpenFresco's sources and the native protocol's
# specification drive the plain build and an ASan/UBSan build of the tool.

DEB_PKGS += libjansson-dev
TOOLS += rths-site

SITE_SRCS := tools/rths-site.c $(sort $(wildcard tools/rths-site/*.c))
SITE_ASAN := $(O)/asan/tools/rths-site
$(SITE_ASAN): $(SITE_SRCS) $(NET_SRCS) $(wildcard tools/rths-site/*.h) \
		$(wildcard tools/net/*.h) $(O)/asan/librths.a | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(CFLAGS_asan) $(LDFLAGS_asan) -o $@ \
		$(CPPFLAGS_COMMON) $(SITE_SRCS) $(NET_SRCS) \
		$(O)/asan/librths.a $(LIBRTHS_LIBS)

SITE_TEST := $(O)/plain/tests/site/test_site
$(SITE_TEST): tests/site/test_site.c $(HARNESS) $(O)/plain/librths.a \
		| $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -Wno-missing-prototypes $(HARNESS_FLAGS) \
		$(CPPFLAGS_COMMON) $(CFLAGS_plain) -o $@ $< \
		$(O)/plain/librths.a $(LIBRTHS_LIBS)

# The native protocol's test speaks it with the codec the tools share.
NATIVE_TEST := $(O)/plain/tests/site/test_native
$(NATIVE_TEST): tests/site/test_native.c $(NET_SRCS) $(wildcard tools/net/*.h) \
		$(HARNESS) $(O)/plain/librths.a | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -Wno-missing-prototypes $(HARNESS_FLAGS) \
		$(CPPFLAGS_COMMON) -Itools/net $(CFLAGS_plain) -o $@ $< \
		$(NET_SRCS) $(O)/plain/librths.a $(LIBRTHS_LIBS)

.PHONY: site-check
site-check: $(O)/plain/tools/rths-site $(SITE_ASAN) $(SITE_TEST) $(NATIVE_TEST)
	@mkdir -p $(O)/results
	@rc=0; for v in plain asan; do \
		for t in site native; do \
			RTHS_SITE=$(O)/$$v/tools/rths-site timeout 300 \
				$(O)/plain/tests/site/test_$$t \
				> $(O)/results/$$t-$$v.tap 2>&1 || rc=1; \
			cat $(O)/results/$$t-$$v.tap; \
		done; \
	done; exit $$rc
CHECK_PARTS += site-check
MAN_PAGES += Documentation/man/rths-site.1
