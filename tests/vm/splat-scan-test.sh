#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# splat-scan-test.sh: the splat scanner of "make check-debug"
# (splat-scan.sh) against sample kernel reports in splats/ (hand-made in
# the formats of 6.1's lockdep, KASAN, KFENCE, UBSAN, kmemleak...; not
# captured from a run): each must be found, with its first line in the
# diagnostics, and a clean boot log with the checkers' own banners must
# pass.  TAP on standard output.
#
# splat-scan-test.sh --live LOG...: the same scanner against what the
# debug kernel logged while tests/vm/splat/rths_splat.ko made each checker
# report once (tests/vm/debug-run.sh): every report must be found.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
scan=$here/splat-scan.sh
d=$here/splats
n=0 failed=0

# expect NAME STATUS PATTERN LOG...: the scanner exits with STATUS and
# its output matches the extended regular expression PATTERN.
expect() {
	local name=$1 want=$2 pat=$3 out st
	shift 3
	n=$((n + 1))
	out=$("$scan" "$name" "$@" 2>&1)
	st=$?
	if [ "$st" -eq "$want" ] && grep -Eq -- "$pat" <<<"$out"; then
		echo "ok $n $name"
	else
		echo "not ok $n $name: status $st (want $want), output:"
		sed 's/^/#   /' <<<"$out"
		failed=$((failed + 1))
	fi
}

# --live-kcsan: the KCSAN kernel's self-check (no KASAN, UBSAN, kmemleak).
if [ "${1:-}" = --live-kcsan ]; then
	shift
	echo "TAP version 13"
	echo "1..3"
	expect "self-check: lockdep reports rths_splat's ABBA" 1 \
		'^#   WARNING: possible circular locking dependency detected$' "$@"
	expect "self-check: might_sleep() under a spinlock is reported" 1 \
		'^#   BUG: sleeping function called from invalid context' "$@"
	expect "self-check: KCSAN reports rths_splat's racing threads" 1 \
		'^#   BUG: KCSAN: data-race in rths_splat_racer' "$@"
	echo "$((n - failed)) passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
fi

if [ "${1:-}" = --live ]; then
	shift
	echo "TAP version 13"
	echo "1..5"
	expect "self-check: lockdep reports rths_splat's ABBA" 1 \
		'^#   WARNING: possible circular locking dependency detected$' "$@"
	expect "self-check: KASAN reports rths_splat's out-of-bounds read" 1 \
		'^#   BUG: KASAN: slab-out-of-bounds in rths_splat' "$@"
	expect "self-check: UBSAN reports rths_splat's shift" 1 \
		'^#   UBSAN: shift-out-of-bounds in .*rths_splat' "$@"
	expect "self-check: might_sleep() under a spinlock is reported" 1 \
		'^#   BUG: sleeping function called from invalid context' "$@"
	expect "self-check: kmemleak reports rths_splat's leak" 1 \
		'^#   unreferenced object 0x[0-9a-f]+ \(size 64\)' "$@"
	echo "$((n - failed)) passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
fi

echo "TAP version 13"
echo "1..15"
expect "lockdep circular dependency" 1 \
	'^#   WARNING: possible circular locking dependency detected$' \
	"$d/lockdep-comedi.log"
expect "lockdep report keeps its lock lines" 1 \
	'^#   ffff888006a1c0a8 \(&rd->lock\)' "$d/lockdep-comedi.log"
expect "KASAN" 1 '^#   BUG: KASAN: slab-out-of-bounds in rths_ring_push' \
	"$d/kasan.log"
expect "KCSAN: a race in rths's code fails" 1 \
	'^#   BUG: KCSAN: data-race in rths_fill_dev \[rths\] / rths_loop_tick' \
	"$d/kcsan-rths.log"
SPLAT_KCSAN_OWN='rths_|\[rths' expect \
	"KCSAN: with SPLAT_KCSAN_OWN, a race in rths's code still fails" 1 \
	'^not ok 1 .*: 1 kernel report' "$d/kcsan-rths.log"
SPLAT_KCSAN_OWN='rths_|\[rths' expect \
	"KCSAN: with SPLAT_KCSAN_OWN, a race inside the kernel is listed, not counted" 0 \
	'^#   BUG: KCSAN: data-race in tick_nohz_idle_stop_tick' "$d/kcsan-core.log"
expect "UBSAN" 1 '^#   UBSAN: shift-out-of-bounds in kernel/loop.c' \
	"$d/ubsan.log"
expect "sleeping in atomic context" 1 \
	'^#   BUG: sleeping function called from invalid context' \
	"$d/atomic-sleep.log"
expect "hung task" 1 '^#   INFO: task rths_stress_tes:402 blocked' \
	"$d/hung-task.log"
expect "KFENCE" 1 '^#   BUG: KFENCE: use-after-free read' "$d/kfence.log"
expect "kmemleak" 1 '^#   unreferenced object 0xffff88800a2f6c80 \(size 64\)' \
	"$d/kmemleak.txt"
expect "clean boot log passes" 0 '^ok 1 clean boot log passes' \
	"$d/clean.log"
expect "a report in console and dmesg counts once" 1 \
	'^not ok 1 .*: 1 kernel report\(s\)$' "$d/kasan.log" "$d/kasan.log"
expect "reports in several logs all count" 1 \
	'^not ok 1 .*: 3 kernel report\(s\)$' "$d/clean.log" "$d/kasan.log" \
	"$d/ubsan.log" "$d/kmemleak.txt"
expect "an unreadable log is an error" 2 'cannot read' "$d/no-such.log"
echo "$((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
