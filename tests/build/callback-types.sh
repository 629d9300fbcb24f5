#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP: an ODE callback of the row-major type librths.so.1 took (a double *
# matrix) does not compile against <rths/ode.h>, in C with GCC and clang
# whatever the warning flags (GCC 12 only warned, and the old Jacobian
# then hung Newton), and in C++; one of the current type (a struct
# rths_mat view) compiles cleanly.  Run by "make abi-check".
#
#   callback-types.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# as installed headers are seen: system headers
inc=(-isystem "$top/include/uapi" -isystem "$top/include")
compilers=(gcc clang)
n=0
rc=0

# The same program with the callbacks of one convention: old or new.
program() {	# old|new
	local mat='struct rths_mat *' set='RTHS_MAT(J, 0, 0) = -1;'

	[ "$1" = old ] && { mat='double *'; set='J[0] = -1;'; }
	cat <<EOF
#include <rths/ode.h>
#include <rths/ode_mech.h>

static int rhs(double t, const double *y, double *f, void *p)
{
	(void)t; (void)p;
	f[0] = -y[0];
	return 0;
}

static int jac(double t, const double *y, $mat J, void *p)
{
	(void)t; (void)y; (void)p;
	$set
	return 0;
}

static int mass(double t, const double *q, $mat J, void *p)
{
	(void)t; (void)q; (void)p;
	$set
	return 0;
}

int main(void)
{
	struct rths_ode_system sys = { .dim = 1, .rhs = rhs, .jac = jac };
	struct rths_ode_mech mech = { .nq = 1 };

	mech.mass = mass;
	return sys.jac == 0 || mech.mass == 0;
}
EOF
}
program old >"$tmp/old.c"
program new >"$tmp/new.c"
cp "$tmp/old.c" "$tmp/old.cc"

echo "TAP version 13"
echo "1..$((${#compilers[@]} * 3 + 1))"
result() {	# OK DESCRIPTION: one TAP line, the compiler's words if not OK
	n=$((n + 1))
	if [ "$1" = 1 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		sed 's/^/# /' "$tmp/out"
		rc=1
	fi
}
refused() {	# DESCRIPTION COMMAND...: ok if it fails on the old types
	local what=$1 ok=0 errors
	shift
	if ! "$@" >"$tmp/out" 2>&1; then
		# the jac initializer and the mass assignment, each an error
		# that shows the old matrix type against the new one
		errors=$(grep -c 'error:.*double \*.*\|error:.*rths_mat' \
			"$tmp/out")
		grep -q 'rths_mat' "$tmp/out" && [ "$errors" -ge 2 ] && ok=1
	fi
	result "$ok" "$what"
	[ "$ok" = 1 ] && sed -n 's/^.*error: /# /p' "$tmp/out" | head -n 1
}
accepted() {	# DESCRIPTION COMMAND...: ok if it compiles without a word
	local what=$1 ok=0
	shift
	"$@" >"$tmp/out" 2>&1 && [ ! -s "$tmp/out" ] && ok=1
	result "$ok" "$what"
}
for cc in "${compilers[@]}"; do
	if ! command -v "$cc" >/dev/null; then
		for _ in 1 2 3; do
			n=$((n + 1))
			echo "ok $n # SKIP $cc not installed"
		done
		continue
	fi
	refused "$cc: old row-major callbacks do not compile (no flags)" \
		"$cc" -std=c11 -c "${inc[@]}" "$tmp/old.c" -o "$tmp/o.o"
	refused "$cc: nor with -Wno-incompatible-pointer-types" \
		"$cc" -std=c11 -Wno-incompatible-pointer-types \
		-Wno-incompatible-function-pointer-types -Wno-unknown-warning-option \
		-c "${inc[@]}" "$tmp/old.c" -o "$tmp/o.o"
	accepted "$cc: struct rths_mat callbacks compile, -Wall -Wextra -Werror -pedantic" \
		"$cc" -std=c11 -Wall -Wextra -Werror -pedantic -c "${inc[@]}" \
		"$tmp/new.c" -o "$tmp/n.o"
done
refused "g++: old row-major callbacks do not compile as C++" \
	g++ -std=c++17 -fsyntax-only "${inc[@]}" "$tmp/old.cc"
exit $rc
