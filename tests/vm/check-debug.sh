#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-debug.sh FLAVOUR RESULTS KMOD_DIR BIN_DIR SPLAT_KO TEST...
#
# The host side of "make check-debug" (FLAVOUR debug, or kcsan for the
# KCSAN kernel; another flavour only to try the machinery): boots FLAVOUR once with
# tests/vm/debug-run.sh, then judges what it left in RESULTS:
#   debug-splats.tap     tests/vm/splat-scan.sh over the console up to
#                        the self-check's mark, debug-dmesg.txt and
#                        debug-kmemleak.txt: no checker's report
#   debug-selfcheck.tap  splat-scan-test.sh --live over what the
#                        self-check module made the kernel log: every
#                        checker was seen to report
#   vm-debug-*.tap       the selftests' own TAP (guest-run.sh)
# and ends with tests/summary.sh's "N passed, N failed" over RESULTS.
# DEBUG_TIMEOUT (seconds, default 7200) bounds the guest.
set -uo pipefail

[ $# -ge 6 ] || {
	echo "usage: ${0##*/} FLAVOUR RESULTS KMOD_DIR BIN_DIR SPLAT_KO TEST..." >&2
	exit 2
}
flavour=$1 r=$2 kmod=$3 bins=$4 splat=$5
shift 5
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

rm -rf "$r"
mkdir -p "$r"
r=$(cd "$r" && pwd -P)
start=$(date +%s)
st=0
# KCSAN watches one access in kcsan.skip_watch (4000 by default): ten
# times as many watchpoints catch more races in a suite this short.
append=kasan_multi_shot
[ "$flavour" != kcsan ] || append="kcsan.skip_watch=${KCSAN_SKIP_WATCH:-400}"
"$here/run-vm.sh" --timeout "${DEBUG_TIMEOUT:-7200}" --mem 2048 \
	--append "$append" --log "$r/console.log" \
	"$flavour" "$r" -- tests/vm/debug-run.sh "$r" "$kmod" "$bins" \
	"$splat" "$@" || st=$?
echo "check-debug: the $flavour guest ran $(($(date +%s) - start)) s (status $st)"
# guest-run.sh names its files after the flavour it is told: debug
cat "$r"/vm-debug-*.tap 2>/dev/null
if [ $st -eq 125 ] || ! [ -s "$r/console.log" ]; then
	printf 'TAP version 13\n1..1\nnot ok 1 the %s guest reported no result (status %s)\n' \
		"$flavour" "$st" >"$r/vm-debug-guest.tap"
	touch "$r/console.log"
fi

sed '/rths-debug: splat self-check/q' "$r/console.log" >"$r/console-suite.log"
logs=("$r/console-suite.log")
for f in debug-dmesg.txt debug-kmemleak.txt; do
	[ ! -f "$r/$f" ] || logs+=("$r/$f")
done
# On the KCSAN kernel, races the kernel has within itself (6.1's tick
# code has some) are listed but judge nothing: only those that touch
# rths's code fail the run.
own=
[ "$flavour" != kcsan ] || own='rths_|\[rths|Comm: rths/'
SPLAT_KCSAN_OWN=$own "$here/splat-scan.sh" \
	"$flavour kernel: selftests and stress test" \
	"${logs[@]}" >"$r/debug-splats.tap"
cat "$r/debug-splats.tap"

live=()
for f in debug-selfcheck.txt debug-selfcheck-kmemleak.txt; do
	[ ! -f "$r/$f" ] || live+=("$r/$f")
done
if [ ${#live[@]} -gt 0 ]; then
	mode=--live
	[ "$flavour" != kcsan ] || mode=--live-kcsan
	"$here/splat-scan-test.sh" $mode "${live[@]}" >"$r/debug-selfcheck.tap"
else
	printf 'TAP version 13\n1..1\nnot ok 1 the splat self-check left no log\n' \
		>"$r/debug-selfcheck.tap"
fi
cat "$r/debug-selfcheck.tap"
"$top/tests/summary.sh" "$r"
