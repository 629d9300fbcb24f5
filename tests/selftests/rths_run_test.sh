#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rths-run on the sim card (in the test guest): the same test with and
# without delay compensation, where compensation must track better (J2),
# the actuator-rate trace has a record per tick, the step thread runs
# SCHED_FIFO without a page fault after its first step, and Ctrl-C holds the rig
# and still writes every output.  Prints TAP.
# Usage: rths_run_test.sh (from the top of the tree; RTHS_RUN set)
set -uo pipefail

run=${RTHS_RUN:?RTHS_RUN: path of rths-run}
example=examples/two-story-frame-sim.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Reference BLAS: the same numbers everywhere, no CPU-specific kernels.
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/blas:/usr/lib/x86_64-linux-gnu/lapack

. tests/lib/tap.sh
j2() { sed -n 's/.*"J2_pct": *\([0-9.eE+-]*\).*/\1/p' "$1/summary.json" | head -n 1; }
field() { sed -n "s/.*\"$2\": *\\([a-z0-9.eE+-]*\\).*/\\1/p" "$1/summary.json" | head -n 1; }
less_than() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }

echo "TAP version 13"
echo "1..22"
# The same file with the compensation block replaced by "none" alone.
sed '/"compensation": {/,/}/c\  "compensation": { "method": "none" },' "$example" >"$work/none.json"

"$run" -q --no-plots -t 8 -o "$work/ats" "$example" >"$work/ats.log" 2>&1
check "rths-run with ATS compensation on the sim card" test $? -eq 0
# Uncompensated delay acts as negative damping: the response may grow
# until the stroke limit trips, which is the kernel doing its job.
"$run" -q --no-plots -t 8 -o "$work/none" "$work/none.json" >"$work/none.log" 2>&1
st=$?
check "rths-run without compensation finishes or stops at a limit (status $st)" \
	test $st -eq 0 -o \( $st -eq 3 -a -n "$(grep 'holding (reason limit)' "$work/none.log")" \)
a=$(j2 "$work/ats") b=$(j2 "$work/none")
echo "# J2 with ATS $a %, without compensation $b %"
check "J2 with compensation ($a %) below J2 without ($b %)" less_than "$a" "$b"
check "every planned step ran" test "$(field "$work/ats" steps)" = \
	"$(field "$work/ats" steps_planned)"
rows=$(($(grep -vc '^#' "$work/ats/trace.csv") - 1))
steps=$(field "$work/ats" steps)
echo "# trace rows $rows for $steps steps of 8 ticks"
check "the actuator-rate trace has a row per tick" test "$rows" -ge $((steps * 8))
check "trace.csv starts with its header row (no comment line)" \
	grep -q '^tick,time_s,step,' <(head -1 "$work/ats/trace.csv")
check "trace.csv-metadata.json names the device and the run's provenance" \
	jq -e '."rths:device".rate_hz > 0 and ."rths:provenance".tool == "rths-run"' \
	"$work/ats/trace.csv-metadata.json"
check "the history has a row per step" test \
	"$(($(grep -vc '^#' "$work/ats/history.csv") - 1))" -ge "$steps"
# The step thread (the experiment's "realtime" defaults): SCHED_FIFO
# below the kernel loop, locked, and not one page fault after step 1.
st=$(jq -c .step_thread "$work/ats/summary.json")
echo "# step thread: $st"
check "the step thread ran SCHED_FIFO at priority 70 with its memory locked" \
	test "$(jq -r '.step_thread | "\(.policy) \(.priority) \(.memory_locked)"' \
		"$work/ats/summary.json")" = "SCHED_FIFO 70 true"
check "no major page fault in the step thread after the first step" \
	test "$(jq .step_thread.major_faults "$work/ats/summary.json")" = 0
check "no minor page fault in the step thread after the first step" \
	test "$(jq .step_thread.minor_faults "$work/ats/summary.json")" = 0

# Under the manual clock rths-run runs the ticks itself: no real time, and
# the sim card makes every run the same, sample for sample.
sed 's/"backend": "device",/"backend": "device", "clock": "manual",/' \
	"$example" >"$work/manual.json"
ok=1
for r in 1 2; do
	"$run" -q --no-plots --no-reference -t 3 -o "$work/manual$r" \
		"$work/manual.json" >"$work/manual$r.log" 2>&1 || ok=0
	# the compute time column is the only one that may differ
	cut -d, -f1-13,15- "$work/manual$r/history.csv" >"$work/manual$r.cut"
	# 3 s of 8/1024 s steps, and not a single late command
	[ "$(wc -l <"$work/manual$r.cut")" -gt 384 ] || ok=0
	grep -q '"late_steps": 0' "$work/manual$r/summary.json" || ok=0
done
check "rths-run under the manual clock" test $ok = 1
check "two runs under the manual clock give the same history" \
	cmp -s "$work/manual1.cut" "$work/manual2.cut"

# The RTHS benchmark's plant in place of the lag, under the manual clock:
# the card runs it (the summary says so), and the delay ATS finds in it
# (about 23 ms, not the example's 4 ms lag) is the offline backend's,
# which runs the card's recursion.
jq '.device.actuator = {"delay_ticks": 0, "plant": "benchmark"}' \
	"$work/manual.json" >"$work/plant.json"
"$run" -q --no-plots --no-reference -t 3 -o "$work/plant" "$work/plant.json" \
	>"$work/plant.log" 2>&1
check "rths-run with the benchmark plant on the sim card" \
	grep -q "plant benchmark at 1024 Hz (3 sections)" "$work/plant/summary.txt"
"$run" -q --no-plots --no-reference --offline -t 3 -o "$work/plant-off" \
	"$work/plant.json" >"$work/plant-off.log" 2>&1
a=$(jq '.actuators[0].compensation[1] * 1e3' "$work/plant/summary.json")
b=$(jq '.actuators[0].compensation[1] * 1e3' "$work/plant-off/summary.json")
echo "# ATS delay on the card $a ms, offline $b ms"
check "ATS finds the plant's delay on the card ($a ms) as offline ($b ms)" \
	awk -v a="$a" -v b="$b" \
	'BEGIN { d = a - b; exit !(a > 15 && a < 35 && d * d < 1) }'
# A +-2 mm stroke limit under the manual clock: the kernel holds the sim
# card (reason limit) and the offline backend, which applies the limits
# as the kernel does, holds at the same step.
jq '.device.limits = [{"stroke_min": -0.002, "stroke_max": 0.002}]' \
	"$work/manual.json" >"$work/limit.json"
"$run" -q --no-plots --no-reference -t 3 -o "$work/limit" "$work/limit.json" \
	>"$work/limit.log" 2>&1
st=$?
check "a stroke limit trip on the card exits 4, holding (status $st)" \
	test $st -eq 4 -a -n "$(grep 'holding (reason limit)' "$work/limit.log")"
"$run" -q --no-plots --no-reference --offline -t 3 -o "$work/limit-off" \
	"$work/limit.json" >"$work/limit-off.log" 2>&1
st=$?
a=$(($(grep -vc '^#' "$work/limit/history.csv") - 1))
b=$(($(grep -vc '^#' "$work/limit-off/history.csv") - 1))
echo "# held after $a steps on the card, $b offline (status $st)"
check "offline, the same limit holds at the same step ($a, $b)" \
	test $st -eq 4 -a "$a" = "$b" -a \
	-n "$(grep 'holding (reason limit: channel 0 stroke' "$work/limit-off.log")"
# A pendulum tuned-mass damper on the roof: a multibody ODE
# substructure (SI2, GSTIFF capped) stepped while the sim card moves.
"$run" --no-progress --no-plots --no-reference -t 3 -o "$work/tmd" \
	examples/two-story-frame-sim-tmd.json >"$work/tmd.log" 2>&1
check "rths-run with a multibody ODE substructure on the sim card" test $? -eq 0
check "its summary has the pendulum's work per step and its drift" \
	grep -q '"drift_m"' "$work/tmd/summary.json"
grep -A2 -e 'ODE sub' -e '^timing' "$work/tmd.log" | sed 's/^/# /'

# Ctrl-C in the middle of a long test.
"$run" -q --no-plots -o "$work/int" "$example" >"$work/int.log" 2>&1 &
pid=$!
sleep 4
kill -INT $pid
wait $pid
st=$?
check "Ctrl-C ends rths-run with status 130 (got $st)" test $st -eq 130
check "an interrupted run still writes its summary" grep -q '"interrupted": true' \
	"$work/int/summary.json"
check "and its step history" test -s "$work/int/history.csv"
for f in ats none tmd int; do
	sed 's/^/# /' "$work/$f.log" | tail -n 5
done
exit $failed
