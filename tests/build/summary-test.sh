#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# summary-test.sh   (TAP on stdout)
#
# tests/summary.sh, the closing lines of make check, against results
# folders made here: CI shows only the tail of a run, so the tail must
# name every failure and the guest's crash, and the count must be right.
# The crash is a whole report in 6.1's format (tests/vm/splats/
# atomic-sleep.log, the splat scanner's sample), not a single line.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
summary=$top/tests/summary.sh
splat=$top/tests/vm/splats/atomic-sleep.log
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

run() {		# run DIR: the summary's output in DIR.out, status in DIR.rc
	"$summary" "$1" >"$1.out" 2>&1
	echo $? >"$1.rc"
}

has() { grep -qF -- "$2" "$1.out"; }
lacks() { ! grep -qF -- "$2" "$1.out"; }
last_line() { [ "$(tail -n 1 "$1.out")" = "$2" ]; }
status() { [ "$(cat "$1.rc")" = "$2" ]; }

echo "TAP version 13"
echo "1..17"

# All passed, one skipped; a guest log with a crash in it is not shown,
# since nothing failed (the splat tests boot such guests on purpose).
ok=$work/ok
mkdir "$ok"
printf 'TAP version 13\n1..3\nok 1 - a\nok 2 - b\nok 3 - c # SKIP no card\n' >"$ok/unit.tap"
cp "$splat" "$ok/vm-stock-6.1.log"
printf 'unit-check 259\nvm-check 805\n' >"$ok/part-seconds"
run "$ok"
check "all passed: status 0" status "$ok" 0
check "all passed: the closing line counts two passed" last_line "$ok" "2 passed, 0 failed"
check "all passed: the skip is counted apart" has "$ok" "1 skipped"
check "all passed: no 'what failed' block" lacks "$ok" "--- what failed"
check "all passed: the parts' times, longest first" \
	has "$ok" "time by part: vm-check 13m25s, unit-check 4m19s"

# A guest that died in its selftests: one not ok, and the console log
# holds a whole kernel report.  Seven failures in another file: five are shown.
fail=$work/fail
mkdir "$fail"
printf 'TAP version 13\n1..2\nok 1 - vm-rt-6.12-netlink\nnot ok 2 - vm-rt-6.12-ring # exit=1\n' >"$fail/vm-rt-6.12.tap"
cp "$splat" "$fail/vm-rt-6.12.log"
{
	echo "TAP version 13"
	echo "1..8"
	echo "ok 1 - fine"
	for i in 2 3 4 5 6 7 8; do echo "not ok $i - broken $i"; done
} >"$fail/unit.tap"
run "$fail"
check "a failure: status 1" status "$fail" 1
check "a failure: the closing line counts every failure" last_line "$fail" "2 passed, 8 failed"
check "a failure: the block names it" has "$fail" "vm-rt-6.12: not ok 2 - vm-rt-6.12-ring # exit=1"
check "a failure: at most five lines of one file" has "$fail" "unit: not ok 6 - broken 6"
check "a failure: the sixth line of that file is left out" lacks "$fail" "unit: not ok 7 - broken 7"
check "a failure: the guest log with the crash is named" \
	has "$fail" "--- vm-rt-6.12.log: first lines that look like a crash"
check "a failure: the guest's own BUG line is shown" \
	has "$fail" "BUG: sleeping function called from invalid context"
check "a failure: the block comes before the closing line" \
	bash -c "[ \$(grep -n -- '--- what failed' '$fail.out' | cut -d: -f1) -lt \$(wc -l <'$fail.out') ]"

# A guest that never reported: the runner writes this line, and the
# summary shows it as a crash.
mute=$work/mute
mkdir "$mute"
printf 'TAP version 13\n1..1\nnot ok 1 - vm-stock-6.1 reported no exit status\n' >"$mute/vm-stock-6.1.tap"
printf 'Booting...\nvm-stock-6.1 reported no exit status\n' >"$mute/vm-stock-6.1.log"
run "$mute"
check "a silent guest: its log line is shown" has "$mute" "--- vm-stock-6.1.log: first lines that look like a crash"
check "a silent guest: status 1" status "$mute" 1

# Nothing ran at all: that is a failure too, not a pass.
none=$work/none
mkdir "$none"
run "$none"
check "nothing ran: status 1" status "$none" 1
check "nothing ran: the closing line says so" last_line "$none" "0 passed, 0 failed"

exit $failed
