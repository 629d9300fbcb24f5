# SPDX-License-Identifier: GPL-2.0
# ODE/DAE integrators (lib/ode), their unit tests and the work-precision
# benchmark against SUNDIALS and GSL.

# LAPACK for the Newton matrices; SUNDIALS and GSL are the benchmark's
# reference solvers, gnuplot draws its plot.
DEB_PKGS += liblapacke-dev liblapack-dev libblas-dev libsundials-dev \
	libgsl-dev gnuplot-nox

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

.PHONY: bench-ode
# One BLAS thread, so that every solver's LU runs alike.
bench-ode: $(ODE_BENCH)
	@mkdir -p $(O)/bench/ode
	OPENBLAS_NUM_THREADS=1 $(ODE_BENCH) -o $(O)/bench/ode
