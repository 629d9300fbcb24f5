# SPDX-License-Identifier: GPL-2.0
# Hybrid simulation engine (lib/hs), rths-run, its tests and benchmark.

# cblas.h and the BLAS/LAPACK libraries; gnuplot draws the PNG plots
# (at run time: the tests need it, the build does not).
DEB_PKGS_userspace += libjansson-dev liblapacke-dev liblapack-dev libblas-dev
DEB_PKGS += gnuplot-nox

LIBRTHS_SRCS += $(sort $(wildcard lib/hs/*.c))
TOOLS += rths-run
UNIT_TESTS += $(sort $(basename $(notdir $(wildcard tests/unit/test_hs_*.c))))
BENCHES += bench-hs
MAN_PAGES += Documentation/man/rths-run.1

# Tests find their data files wherever they are run from.
$(foreach v,$(VARIANTS),$(O)/$(v)/tests/unit/test_hs_%.o): \
	CPPFLAGS_COMMON += -DRTHS_HS_TESTDATA='"$(TOP)/tests/data/hs"' \
		-DRTHS_HS_EXAMPLES='"$(TOP)/examples"'

# rths-run's summary and plots are the tool's, not the library's; their
# test links them in.
# (plain: the tool's own objects; tools/rths-run is the binary there)
HS_RUN_PARTS := report plot indicators
$(O)/plain/tests/unit/test_hs_output: \
	$(patsubst %,$(O)/plain/tools/rths-run.parts/%.o,$(HS_RUN_PARTS)) \
	$(O)/plain/tools/common/gnuplot.o $(O)/plain/tools/common/provenance.o
$(O)/asan/tests/unit/test_hs_output: \
	$(patsubst %,$(O)/asan/tools/rths-run/%.o,$(HS_RUN_PARTS)) \
	$(O)/asan/tools/common/gnuplot.o $(O)/asan/tools/common/provenance.o
# What rths-run and rths-coord share (gnuplot, mkdir -p, the reference
# run) is in tools/common.
TOOL_OBJS_rths-run = $(O)/plain/tools/common/gnuplot.o \
	$(O)/plain/tools/common/hsrun.o $(O)/plain/tools/common/steprt.o \
	$(O)/plain/tools/common/cli.o $(O)/plain/tools/common/provenance.o \
	$(LIVE_OBJS_plain) $(O)/plain/tools/net/tls.o
# the live view (mk/live.mk); GSL's FFT for the frequency evaluation
# index (tools/rths-run/indicators.c)
TOOL_LIBS_rths-run = $(LIVE_LIBS) $(NET_LIBS) -lgsl
DEB_PKGS_userspace += libgsl-dev
$(foreach v,$(VARIANTS),$(O)/$(v)/tests/unit/test_hs_output): \
	LIBRTHS_LIBS += -lgsl

# The benchmark: one program, linked like a tool.
HS_BENCH := $(O)/plain/bench/hs/bench-hs-step
$(HS_BENCH): $(patsubst %.c,$(O)/plain/%.o,$(wildcard bench/hs/*.c)) \
		$(O)/plain/librths.a
	$(CC) -o $@ $^ $(LIBRTHS_LIBS)

# The plane frames of the second part: their sizes in DOF, and the
# largest frame also stepped on the dense path (whose setup factors and
# inverts n x n matrices: about 16 minutes of CPU at 5,000 DOF with
# Debian's reference BLAS; HS_FRAME_DENSE_MAX=5000 asks for it).
HS_FRAME_DOFS ?= 2000 5000
HS_FRAME_DENSE_MAX ?= 2000
# The frames of the growth part (sparse only): sparse models
# (rths_hs_stepper_new_sparse()), so no n x n matrix limits their size.
HS_GROWTH_DOFS ?= 300 1000 3000 10000 30000 100000

.PHONY: bench-hs
# One BLAS thread: the step and its dgemv bound are measured alike.
# The growth plot: $(O)/bench-hs/growth.png (bench/hs/growth.gp).
bench-hs: $(HS_BENCH)
	@mkdir -p $(O)/bench-hs
	OPENBLAS_NUM_THREADS=1 $(HS_BENCH) -f "$(HS_FRAME_DOFS)" \
		-d $(HS_FRAME_DENSE_MAX) -g "$(HS_GROWTH_DOFS)" \
		-p $(O)/bench-hs/growth.dat
	gnuplot -e "data='$(O)/bench-hs/growth.dat'; out='$(O)/bench-hs/growth.png'" \
		bench/hs/growth.gp
	@echo "bench-hs: the growth plot: $(O)/bench-hs/growth.png"

# rths-run's exit status as its man page gives it (plain and ASan/UBSan
# builds of the tool; the ASan one in bin/, as asan/tools/rths-run holds
# the objects test_hs_output links).
RUN_SRCS := tools/rths-run.c $(sort $(wildcard tools/rths-run/*.c)) \
	tools/common/gnuplot.c tools/common/hsrun.c tools/common/steprt.c \
	tools/common/cli.c tools/common/provenance.c \
	$(sort $(wildcard tools/live/*.c)) tools/net/tls.c
$(O)/asan/bin/rths-run: $(RUN_SRCS) $(wildcard tools/rths-run/*.h) \
		$(wildcard tools/common/*.h) $(wildcard tools/live/*.h) \
		$(O)/asan/tools/live/page.o $(RTHS_GIT_H) $(O)/asan/librths.a \
		| $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(CFLAGS_asan) $(LDFLAGS_asan) -o $@ \
		$(CPPFLAGS_COMMON) -I$(O)/gen $(RUN_SRCS) $(O)/asan/tools/live/page.o \
		$(O)/asan/librths.a -lmicrohttpd -lgnutls -lgsl $(LIBRTHS_LIBS)

.PHONY: run-exit-check
run-exit-check: $(O)/plain/tools/rths-run $(O)/asan/bin/rths-run
	@mkdir -p $(O)/results
	@rc=0; for v in plain asan; do \
		r=$(O)/results/run-exit-$$v.tap; \
		b=$(O)/plain/tools/rths-run; \
		[ $$v = asan ] && b=$(O)/asan/bin/rths-run; \
		tests/hs/run-exit.sh $$b $(TOP)/examples \
			> $$r 2>&1 || rc=1; \
		cat $$r; \
	done; exit $$rc
CHECK_PARTS += run-exit-check
