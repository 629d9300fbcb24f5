# SPDX-License-Identifier: GPL-2.0
# ODE/DAE integrators (lib/ode), their unit tests and the work-precision
# benchmark against SUNDIALS and GSL.

# LAPACK for the Newton matrices; SUNDIALS and GSL are the benchmark's
# reference solvers (not linked into librths), gnuplot draws its plot.
DEB_PKGS_userspace += liblapacke-dev liblapack-dev libblas-dev
DEB_PKGS += libsundials-dev libgsl-dev gnuplot-nox

LIBRTHS_SRCS += $(sort $(wildcard lib/ode/*.c))
ODE_UNIT_TESTS := $(sort $(basename $(notdir \
	$(wildcard tests/unit/test_ode_*.c))))
UNIT_TESTS += $(ODE_UNIT_TESTS)
BENCHES += bench-ode

# The test problems (tests/ode/*.c) are linked into every ode unit test
# (the unit test rule puts such objects before librths.a).
ODE_PROBLEM_SRCS := $(sort $(wildcard tests/ode/*.c))
define ode_test_rule
$(O)/$(1)/tests/unit/$(2): $(patsubst %.c,$(O)/$(1)/%.o,$(ODE_PROBLEM_SRCS))
endef
$(foreach v,$(VARIANTS),$(foreach t,$(ODE_UNIT_TESTS),\
	$(eval $(call ode_test_rule,$(v),$(t)))))

# The benchmark links SUNDIALS and GSL; only "make bench-ode" builds it.
ODE_BENCH := $(O)/plain/bench/ode/bench-ode
ODE_BENCH_LIBS := -lsundials_cvode -lsundials_ida -lsundials_nvecserial \
	-lsundials_sunmatrixdense -lsundials_sunlinsoldense \
	-lsundials_sunnonlinsolfixedpoint -lgsl -lgslcblas
$(ODE_BENCH): $(patsubst %.c,$(O)/plain/%.o,$(wildcard bench/ode/*.c)) \
		$(patsubst %.c,$(O)/plain/%.o,$(ODE_PROBLEM_SRCS)) \
		$(O)/plain/librths.a
	$(CC) -o $@ $^ $(ODE_BENCH_LIBS) $(LIBRTHS_LIBS)

# Large sparse problems (bench/ode_large): rths sparse (KLU) and dense
# against CVODE with its KLU and band solvers.  The default sizes keep the
# run to a few minutes; ODE_LARGE_CHAINS, ODE_LARGE_GRIDS (side lengths)
# and ODE_LARGE_MAXDENSE (equations) choose others, e.g.
#   make bench-ode ODE_LARGE_CHAINS="1000 5000 10000 20000"
ODE_LARGE_BENCH := $(O)/plain/bench/ode_large/bench-large
ODE_LARGE_CHAINS ?= 1000 2000 5000
ODE_LARGE_GRIDS ?= 20 40
ODE_LARGE_MAXDENSE ?= 1000
$(ODE_LARGE_BENCH): $(O)/plain/bench/ode_large/bench_large.o \
		$(O)/plain/tests/ode/lattice.o $(O)/plain/librths.a
	$(CC) -o $@ $^ -lsundials_cvode -lsundials_nvecserial \
		-lsundials_sunmatrixsparse -lsundials_sunmatrixband \
		-lsundials_sunlinsolklu -lsundials_sunlinsolband $(LIBRTHS_LIBS)

.PHONY: bench-ode
# One BLAS thread, so that every solver's LU runs alike.
bench-ode: $(ODE_BENCH) $(ODE_LARGE_BENCH)
	@mkdir -p $(O)/bench/ode
	OPENBLAS_NUM_THREADS=1 $(ODE_BENCH) -o $(O)/bench/ode
	OPENBLAS_NUM_THREADS=1 $(ODE_LARGE_BENCH) -o $(O)/bench/ode \
		-c "$(ODE_LARGE_CHAINS)" -g "$(ODE_LARGE_GRIDS)" \
		-d $(ODE_LARGE_MAXDENSE)
