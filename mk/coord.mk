# SPDX-License-Identifier: GPL-2.0
# tools/rths-coord: the simulation coordinator of a distributed hybrid
# test (Documentation/rths-coord.rst), and its loopback tests: a
# coordinator and three rths-site processes, plain and ASan/UBSan builds.

# openssl: the test makes its certificates with it.
DEB_PKGS_userspace += libjansson-dev libgnutls28-dev
DEB_PKGS += gnuplot-nox openssl
TOOLS += rths-coord
MAN_PAGES += Documentation/man/rths-coord.1

COORD_COMMON := tools/common/gnuplot.c tools/common/hsrun.c \
	tools/common/cli.c
TOOL_OBJS_rths-coord = $(NET_OBJS_plain) \
	$(patsubst %.c,$(O)/plain/%.o,$(COORD_COMMON)) $(LIVE_OBJS_plain)
TOOL_LIBS_rths-coord = $(NET_LIBS) $(LIVE_LIBS)

COORD_SRCS := tools/rths-coord.c $(sort $(wildcard tools/rths-coord/*.c)) \
	$(COORD_COMMON) $(sort $(wildcard tools/net/*.c)) \
	$(sort $(wildcard tools/live/*.c))
COORD_ASAN := $(O)/asan/tools/rths-coord
$(COORD_ASAN): $(COORD_SRCS) $(wildcard tools/rths-coord/*.h) \
		$(wildcard tools/common/*.h) $(wildcard tools/net/*.h) \
		$(wildcard tools/live/*.h) $(O)/asan/tools/live/page.o \
		$(O)/asan/librths.a | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(CFLAGS_asan) $(LDFLAGS_asan) -o $@ \
		$(CPPFLAGS_COMMON) $(COORD_SRCS) $(O)/asan/tools/live/page.o \
		$(O)/asan/librths.a $(NET_LIBS) $(LIVE_LIBS) $(LIBRTHS_LIBS)

.PHONY: coord-check
coord-check: $(O)/plain/tools/rths-coord $(COORD_ASAN) \
		$(O)/plain/tools/rths-site $(O)/plain/tools/rths-run
	@mkdir -p $(O)/results
	@rc=0; for v in plain asan; do \
		timeout 600 tests/coord/test_coord.sh $(O)/$$v/tools/rths-coord \
			$(O)/plain/tools/rths-site examples/distributed \
			> $(O)/results/coord-$$v.tap 2>&1 || rc=1; \
		cat $(O)/results/coord-$$v.tap; \
	done; exit $$rc
CHECK_PARTS += coord-check
