#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The rths trace events through the usual tools (in the test guest):
# perf lists and counts them, trace-cmd extracts them and decodes their
# print formats (state names included); the counts are the ticks the
# test ran on a manual-clock device.  Prints TAP.
# Usage: rths_tracetools_test.sh (from the top of the tree; RTHS_RUN set:
# rthsctl is next to it)
set -uo pipefail

rthsctl=$(dirname "${RTHS_RUN:?RTHS_RUN: path of rths-run}")/rthsctl
dev=tt$$
work=$(mktemp -d)
tr=/sys/kernel/tracing
trap '"$rthsctl" dev del $dev >/dev/null 2>&1
	echo 0 >$tr/events/rths/enable 2>/dev/null; echo 1 >$tr/tracing_on
	rm -rf "$work"' EXIT

. tests/lib/tap.sh	# its counter is $n: not ours to set
echo "TAP version 13"
echo "1..7"

mountpoint -q /sys/kernel/tracing ||
	mount -t tracefs nodev /sys/kernel/tracing
"$rthsctl" dev add $dev type sim channels 1 >"$work/add.log" 2>&1 &&
	"$rthsctl" dev set $dev clock manual step-ticks 8 >>"$work/add.log" 2>&1 &&
	"$rthsctl" run start $dev >>"$work/add.log" 2>&1
check "a running sim device on the manual clock" test $? -eq 0 ||
	sed 's/^/# /' "$work/add.log"

perf list 'rths:*' >"$work/list" 2>&1
events=$(grep -Ec 'rths:rths_(tick|step|late|state|hold) ' "$work/list")
check "perf list shows the five rths events ($events)" test "$events" -eq 5 ||
	sed 's/^/# /' "$work/list"

# perf stat -x: "COUNT,,EVENT,..." on standard error
perf stat -x, -e rths:rths_tick -a -- "$rthsctl" run tick $dev 100 \
	2>"$work/stat" >/dev/null
count=$(awk -F, '$3 == "rths:rths_tick" { print $1 }' "$work/stat")
check "perf stat counts the 100 ticks run (${count:-none})" \
	test "${count:-0}" -eq 100 || sed 's/^/# /' "$work/stat"

# The events are switched on and off through tracefs, and trace-cmd
# extract reads what the ring buffer holds once tracing has stopped.  Not
# "trace-cmd record": its per-CPU readers sometimes saved nothing under
# TCG on -rt.  Not "trace-cmd start" either: once, on 6.12-rt under TCG,
# it ended in an int3 oops (text patching) in ttwu_do_activate; switching
# on the rths events alone, as rths_trace_test does, never has.
{ echo 0 >$tr/tracing_on && echo >$tr/trace &&
	echo 1 >$tr/events/rths/enable && echo 1 >$tr/tracing_on; } \
	>"$work/rec" 2>&1 &&
	"$rthsctl" run tick $dev 50 >>"$work/rec" 2>&1 &&
	"$rthsctl" run hold $dev >>"$work/rec" 2>&1 &&
	{ echo 0 >$tr/tracing_on && echo 0 >$tr/events/rths/enable; } \
	>>"$work/rec" 2>&1 &&
	trace-cmd extract -o "$work/t.dat" >>"$work/rec" 2>&1
check "trace-cmd extracts the rths events" test $? -eq 0 ||
	sed 's/^/# /' "$work/rec"
trace-cmd report -i "$work/t.dat" >"$work/report" 2>&1
ticks=$(grep -c "rths_tick: *dev=$dev " "$work/report")
check "trace-cmd report has the 50 ticks run ($ticks)" test "$ticks" -eq 50
# the tick numbers go on from the 100 before: 101 to 150
check "with their tick numbers, 101 to 150" grep -q "dev=$dev .*tick=150 " \
	"$work/report"

check "trace-cmd decodes a state change's names (running->holding)" \
	grep -q "dev=$dev .*running->holding reason=user" "$work/report" ||
	sed 's/^/# /' "$work/report" | tail -n 5
exit $failed
