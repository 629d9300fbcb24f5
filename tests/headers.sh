#!/bin/bash
# shellcheck disable=SC2317  # the functions run through step()
# SPDX-License-Identifier: GPL-2.0
#
# TAP: every public header (include/rths/*.h) compiles alone as strict
# C11 (no _GNU_SOURCE) and as C++, <rths/hs.h> includes every hs_*.h, and
# a C++ program calling the engine links against librths and runs: the
# API is usable from both languages.  Run by "make abi-check".
#
#   headers.sh SO      SO: the shared library (build/plain/librths.so.N)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
so=${1:?SO}
CC=${CC:-gcc}
CXX=${CXX:-g++}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
inc=(-I"$top/include/uapi" -I"$top/include")
headers=$(cd "$top/include/rths" && printf '%s\n' ./*.h | sed 's|^\./||')
n=0
rc=0

echo "TAP version 13"
echo "1..$(($(echo "$headers" | wc -l) * 2 + 2))"
step() {	# DESCRIPTION COMMAND...: ok if COMMAND succeeds
	local what=$1
	shift
	n=$((n + 1))
	if "$@" >"$tmp/out" 2>&1; then
		echo "ok $n - $what"
	else
		echo "not ok $n - $what"
		sed 's/^/# /' "$tmp/out"
		rc=1
	fi
}
for h in $headers; do
	printf '#include <rths/%s>\n' "$h" >"$tmp/c.c"
	step "rths/$h alone as C11" \
		"$CC" -std=c11 -Wall -Wextra -Werror -pedantic "${inc[@]}" \
		-fsyntax-only "$tmp/c.c"
	printf '#include <rths/%s>\n' "$h" >"$tmp/c.cc"
	step "rths/$h alone as C++" \
		"$CXX" -std=c++17 -Wall -Wextra -Werror "${inc[@]}" \
		-fsyntax-only "$tmp/c.cc"
done

# <rths/hs.h> is the engine's one include: it has every hs_*.h
hs_all() {
	local h missing=0
	for h in $headers; do
		case $h in hs_*.h) ;; *) continue ;; esac
		grep -q "^#include <rths/$h>" "$top/include/rths/hs.h" ||
			{ echo "hs.h lacks rths/$h"; missing=1; }
	done
	return "$missing"
}
step "rths/hs.h includes every rths/hs_*.h" hs_all

# extern "C": the engine's names link unmangled from C++
cat >"$tmp/prog.cc" <<'CC'
#include <rths/hs.h>

int main()
{
	const double acc[] = { 0.0, 1.0, -2.0 };
	struct rths_hs_gm gm;
	struct rths_error err;

	if (rths_hs_gm_from_array(&gm, acc, 3, 0.01, "c++", &err) < 0)
		return 1;
	int ok = rths_hs_gm_pga(&gm) == 2.0;
	rths_hs_gm_free(&gm);
	rths_hs_gm_free(nullptr);
	return ok ? 0 : 2;
}
CC
build_and_run() {
	"$CXX" -std=c++17 -Wall -Wextra -Werror "${inc[@]}" -o "$tmp/prog" \
		"$tmp/prog.cc" "$so" -Wl,-rpath,"$(dirname "$so")" &&
		"$tmp/prog"
}
step "a C++ program calls the engine through librths" build_and_run
exit $rc
