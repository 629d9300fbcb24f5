#!/bin/bash
# shellcheck disable=SC1091,SC2154,SC2317  # check(), $failed: tests/lib/tap.sh
# SPDX-License-Identifier: GPL-2.0
#
# abi-check's own test (Documentation/abi.rst): a public array size is
# part of the ABI, and "scripts/abi.sh diff" fails when it changes.  A
# copy of librths is built from a copy of the public headers with the
# channel count doubled (RTHS_MAX_CHANNELS and RTHS_HS_MAX_CHANNELS,
# which the library keeps equal), which changes the size of struct
# rths_hs_feedback and the structs around it; the diff must fail on the
# copy, naming that size as the compiler has it, and pass on SO.
#
#   array-size.sh SO BASELINE
#
# From make (mk/abi.mk): LIBRTHS_SRCS, LIBRTHS_LIBS, LIBRTHS_MAP,
# LIBRTHS_OBJDIR (the real build's objects) and ABI_CPPFLAGS (the
# library's -I flags; the copy's headers go first).  What the copy
# compiles again it compiles at -O0, which leaves the types as they are,
# two compilers at a time.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
so=${1:?SO}
abi=${2:?BASELINE}
CC=${CC:-gcc}
: "${LIBRTHS_SRCS:?} ${LIBRTHS_LIBS:?} ${LIBRTHS_MAP:?} ${ABI_CPPFLAGS:?}"
: "${LIBRTHS_OBJDIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/lib/tap.sh"
show() { sed 's/^/# /' "$1" | tail -n 40; }
logged() {	# FILE COMMAND...: COMMAND's output into FILE
	local f=$1
	shift
	"$@" >"$f" 2>&1
}

# The headers with both channel counts doubled; each must be there once.
double_channels() {
	cp -r "$top/include" "$tmp/include" || return 1
	local h m line
	for h in uapi/linux/rths.h:RTHS_MAX_CHANNELS \
		rths/hs_setup.h:RTHS_HS_MAX_CHANNELS; do
		m=${h#*:} h=$tmp/include/${h%:*}
		line=$(grep -E "^#define ${m}[[:space:]]+[0-9]+\$" "$h") || {
			echo "${h#"$tmp"/}: no \"#define $m N\""
			return 1
		}
		sed -i -E "s/^(#define ${m}[[:space:]]+)[0-9]+\$/\\1$((
			2 * ${line##*[[:space:]]}))/" "$h"
		grep -E "^#define $m" "$h"
		echo "${h#"$tmp"/}" >>"$tmp/patched"
	done
}

# The library's objects that include a patched header are compiled again
# from the copy; the others, which the patch does not touch, are the real
# build's (their .d files list what they include).
build_copy() {
	local src obj
	mkdir -p "$tmp/obj"
	: >"$tmp/compile"
	for src in $LIBRTHS_SRCS; do
		obj=$LIBRTHS_OBJDIR/${src%.c}.o
		if [ -f "$obj" ] && [ -f "${obj%.o}.d" ] &&
			! grep -qF -f "$tmp/patched" "${obj%.o}.d"; then
			ln -s "$obj" "$tmp/obj/$(echo "$src" | tr / _).o"
		else
			echo "$src" >>"$tmp/compile"
		fi
	done
	# shellcheck disable=SC2016  # sh -c's own arguments
	xargs -P 2 -I{} sh -c '
		o="$2/obj/$(echo "$1" | tr / _).o"
		exec "$3" -std=c11 -D_GNU_SOURCE -I"$2/include/uapi" \
			-I"$2/include" $4 -O0 -g -fvisibility=hidden -fPIC \
			-c "$1" -o "$o"' sh {} "$tmp" "$CC" "$ABI_CPPFLAGS" \
		<"$tmp/compile" || return 1
	# shellcheck disable=SC2086
	"$CC" -shared -Wl,-soname,"$(basename "$so")" \
		-Wl,--version-script="$LIBRTHS_MAP" -Wl,--no-undefined \
		-o "$tmp/$(basename "$so")" "$tmp"/obj/*.o $LIBRTHS_LIBS
}

# sizeof(struct rths_hs_feedback) in bits with the headers of DIR.
feedback_bits() {
	printf '%s\n' '#include <stdio.h>' '#include <rths/hs_backend.h>' \
		'int main(void) {' \
		'printf("%zu\n", 8 * sizeof(struct rths_hs_feedback));' \
		'return 0; }' |
		"$CC" -std=c11 -D_GNU_SOURCE -I"$1/include/uapi" -I"$1/include" -x c - \
			-o "$tmp/bits" && "$tmp/bits"
}

diff_fails_naming_feedback() {
	local old new out
	old=$(feedback_bits "$top") && new=$(feedback_bits "$tmp") || return 1
	[ "$old" != "$new" ] || { echo "the size stayed $old bits"; return 1; }
	out=$("$top/scripts/abi.sh" diff "$tmp/$(basename "$so")" "$abi")
	local st=$?
	echo "$out" | head -n 3
	[ "$st" -ne 0 ] || { echo "abi.sh diff passed"; return 1; }
	local want="struct rths_hs_feedback: size $old -> $new bits"
	grep -q "^not ok 1 - .*$want.*an incompatible change" <<<"$out"
}

echo "TAP version 13"
echo "1..4"
check "$(basename "$so") passes abi.sh diff against ${abi#"$top"/}" \
	logged "$tmp/real.out" "$top/scripts/abi.sh" diff "$so" "$abi" ||
	show "$tmp/real.out"
check "the public headers with the channel count doubled" \
	logged "$tmp/patch.out" double_channels || show "$tmp/patch.out"
check "a copy of $(basename "$so") builds from them" \
	logged "$tmp/build.out" build_copy || show "$tmp/build.out"
# shellcheck disable=SC2086
echo "# $(wc -l <"$tmp/compile") of $(echo $LIBRTHS_SRCS | wc -w) objects" \
	"compiled again, the others the real build's"
check "abi.sh diff fails on the copy, naming rths_hs_feedback's new size" \
	logged "$tmp/diff.out" diff_fails_naming_feedback ||
	show "$tmp/diff.out"
exit "$failed"
