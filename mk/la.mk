# SPDX-License-Identifier: GPL-2.0
# librths' linear-algebra layer (lib/la, private), which lib/hs and
# lib/ode share, and its unit test.

# cblas.h, lapacke.h and the BLAS/LAPACK libraries.
DEB_PKGS_userspace += liblapacke-dev liblapack-dev libblas-dev
# KLU, the sparse LU (lib/la/sparse.c).
DEB_PKGS_userspace += libsuitesparse-dev
CPPFLAGS_COMMON += -I/usr/include/suitesparse
LIBRTHS_LIBS += -lklu

LIBRTHS_SRCS += $(sort $(wildcard lib/la/*.c))
UNIT_TESTS += test_la

# BLAS/LAPACK are called from lib/la only; old row-major Jacobian
# callbacks do not compile.
.PHONY: la-check
la-check:
	@mkdir -p $(O)/results
	@CC="$(CC)" tests/la/one-layer.sh $(TOP) | tee $(O)/results/la.tap; \
		! grep -q '^not ok' $(O)/results/la.tap
CHECK_PARTS += la-check
