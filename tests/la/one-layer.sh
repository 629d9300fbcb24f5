#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# librths has one linear-algebra layer: BLAS and LAPACK are called from
# lib/la only, no public header speaks of row-major matrices, and a
# Jacobian callback written for the old row-major double * no longer
# compiles, whatever the warning flags (it would run with a transposed
# matrix).  TAP.
# usage: one-layer.sh TOP
top=${1:-.}
cc=${CC:-cc}
echo "TAP version 13"
echo "1..4"
calls=$(grep -rlE 'LAPACKE_|cblas_|<lapacke\.h>|<cblas\.h>' \
	"$top/lib" --include='*.c' --include='*.h' | grep -v "^$top/lib/la/")
if [ -z "$calls" ]; then
	echo "ok 1 BLAS/LAPACK only in lib/la"
else
	echo "not ok 1 BLAS/LAPACK only in lib/la"
	printf '#   called from %s\n' $calls
fi
rowmajor=$(grep -lE 'dense,? (and )?row-major|\(row-major|J\[i \* ' \
	"$top"/include/rths/ode*.h)
if [ -z "$rowmajor" ]; then
	echo "ok 2 ode headers: no row-major matrices"
else
	echo "not ok 2 ode headers: no row-major matrices"
	printf '#   in %s\n' $rowmajor
fi

# $1: the callback's matrix parameter; compiles against the ode header?
compiles() {
	printf '%s\n' '#include <rths/ode.h>' \
		"static int jac(double t, const double *y, $1, void *p)" \
		'{ (void)t; (void)y; (void)J; (void)p; return 0; }' \
		'const struct rths_ode_system sys = { .dim = 1, .jac = jac };' |
		$cc -std=c11 -fsyntax-only -I"$top/include" -x c - 2>/dev/null
}
if compiles 'struct rths_mat *J'; then
	echo "ok 3 a struct rths_mat * Jacobian callback compiles"
else
	echo "not ok 3 a struct rths_mat * Jacobian callback compiles"
fi
if compiles 'double *J'; then
	echo "not ok 4 a row-major double * Jacobian callback is rejected"
else
	echo "ok 4 a row-major double * Jacobian callback is rejected"
fi
