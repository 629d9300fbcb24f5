#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# examples/c/own-loop (a researcher's own loop on librths) on the sim card
# in the test guest: it owns and runs a one-channel device through the
# whole El Centro record, and the forces it reads back are the sim
# card's specimen (stiffness ke) at the displacements it sent, from a
# SCHED_FIFO thread (rths_rt_enter()).  Prints TAP.
# Usage: own_loop_test.sh (from the top of the tree; RTHS_RUN set: the
# example is built next to the tools, in $(O)/plain/examples/c)
set -uo pipefail

bin=$(dirname "${RTHS_RUN:?RTHS_RUN: path of rths-run}")
loop=$bin/../examples/c/own-loop
rthsctl=$bin/rthsctl
record=tests/data/elcentro-ns-1940.AT2
ke=500000		# N/m, as own-loop.c's offline specimen
work=$(mktemp -d)
dev=exloop
trap '"$rthsctl" dev del $dev >/dev/null 2>&1; rm -rf "$work"' EXIT

. tests/lib/tap.sh
echo "TAP version 13"
echo "1..5"

"$rthsctl" dev add $dev type sim channels 1 stiffness $ke >"$work/add.log" 2>&1 &&
	"$rthsctl" dev set $dev rate 1024 step-ticks 10 \
		late-policy event-driven >>"$work/add.log" 2>&1
check "a sim device at 1024 Hz, 10 ticks a step" test $? -eq 0 ||
	sed 's/^/# /' "$work/add.log"
"$loop" -d $dev "$record" >"$work/out" 2>"$work/err"
check "own-loop runs the device to the end of the record" test $? -eq 0 ||
	sed 's/^/# /' "$work/err"
# (1560 - 1) samples of 0.02 s in steps of 10/1024 s
check "a line per step ($(wc -l <"$work/out"))" test "$(wc -l <"$work/out")" -eq 3193
# The force is ke times the actuator's position, which is the command
# when it came in time: the peaks must agree to a few percent.
awk -v ke=$ke '{ u = $2 < 0 ? -$2 : $2; r = $3 < 0 ? -$3 : $3
	if (u > pu) pu = u; if (r > pr) pr = r }
	END { printf "# peak |u| %.4g m, peak |r| %.4g N, ratio %.4g N/m\n",
		pu, pr, pr / pu
	      exit !(pu > 1e-3 && pr / pu > 0.95 * ke && pr / pu < 1.05 * ke) }' \
	"$work/out" >"$work/peaks"
st=$?
cat "$work/peaks"
check "the forces read back are the specimen's (ke $ke N/m)" test $st -eq 0
# rths_rt_enter(): the loop ran SCHED_FIFO, off the kernel loop's CPU
sed 's/^/# /' "$work/err"
check "own-loop's step thread ran SCHED_FIFO" \
	grep -q '^own-loop: step thread SCHED_FIFO 70 on CPU' "$work/err"
exit $failed
