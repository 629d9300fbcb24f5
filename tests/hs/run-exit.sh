#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rths-run's exit status, as rths-run(1) documents it: 0 done, 1 a bad
# file or a failed run, 2 a bad option, 3 the backend could not be
# opened, 4 the device (or its offline model) held the run.
# Usage: run-exit.sh RTHS_RUN EXAMPLES_DIR
set -u
run=$1 ex=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0 nfail=0

# expect NAME STATUS PATTERN -- ARGS...: exit status and a stderr line
expect() {
	local name=$1 want=$2 pat=$3 got
	shift 4
	n=$((n + 1))
	"$run" -q --no-plots --no-progress -o "$work/out" "$@" \
		>"$work/stdout" 2>"$work/stderr"
	got=$?
	if [ "$got" = "$want" ] &&
	   { [ -z "$pat" ] || grep -q -- "$pat" "$work/stderr"; }; then
		echo "ok $n $name"
	else
		echo "not ok $n $name (exit $got, want $want)"
		sed 's/^/# /' "$work/stderr"
		nfail=$((nfail + 1))
	fi
}

echo "TAP version 13"
echo "1..16"
expect "missing file exits 1" 1 "cannot open" -- "$work/none.json"
printf '{"name": "x", "model": {"dofs": 1}}\n' >"$work/bad.json"
expect "bad file exits 1 naming the file" 1 "bad.json" -- "$work/bad.json"
sed 's/"step": 0.000244140625/"step": 1e-9/' "$ex/two-story-frame-chain.json" \
	>"$work/tiny-step.json"
expect "a tiny constant_bdf step exits 1 naming it" 1 \
	"ode_substructures\[1\].step" -- -d 8 -t 0.05 "$work/tiny-step.json"
expect "offline run exits 0" 0 "" -- --offline -t 0.05 \
	"$ex/two-story-frame-sim.json"
expect "real-time options on an offline run are warned about, not dropped" 0 \
	"have no effect: the step thread is not made real-time" -- --offline \
	--rt-priority 60 -t 0.05 "$ex/two-story-frame-sim.json"
# the device's stroke limits hold the offline backend as they hold the
# kernel: status 4, "holding (reason limit"
sed -e 's/"stroke_min": -0.05/"stroke_min": -0.002/' \
	-e 's/"stroke_max": 0.05/"stroke_max": 0.002/' \
	"$ex/two-story-frame-sim.json" >"$work/limit.json"
expect "offline run past a stroke limit exits 4, holding" 4 \
	"offline device is holding (reason limit: channel 0 stroke" -- \
	--offline --no-reference -t 3 "$work/limit.json"
# an uncapped adaptive ODE substructure: refused on the file's device
# backend, run with --offline
sed -e '/"max_steps": 100/d' -e 's/"atol": 1e-06,/"atol": 1e-06/' \
	"$ex/two-story-frame-sim-tmd.json" >"$work/uncapped.json"
expect "uncapped gstiff on a device backend exits 1 naming it" 1 \
	"ode_substructures\[0\].method: gstiff adapts its step" -- -d 8 \
	-t 0.05 "$work/uncapped.json"
expect "the same file runs with --offline" 0 "" -- --offline -d 8 -t 0.05 \
	"$work/uncapped.json"
# -d D is device.step_ticks D: a synthetic record without a dt of its
# own follows it, as it follows the file's step
jq '.device.step_ticks = 8' "$ex/two-story-frame.json" >"$work/d8.json"
expect "-d 8 on a synthetic record runs (it follows the step)" 0 "" -- \
	--offline --no-reference -d 8 -t 0.2 "$ex/two-story-frame.json"
cp "$work/out/history.csv" "$work/d8-option.csv"
expect "the same step in the file runs" 0 "" -- --offline --no-reference \
	-t 0.2 "$work/d8.json"
n=$((n + 1))
if cmp -s <(cut -d, -f1-7 "$work/d8-option.csv") \
	<(cut -d, -f1-7 "$work/out/history.csv"); then
	echo "ok $n -d 8 and step_ticks 8 in the file give the same history"
else
	echo "not ok $n -d 8 and step_ticks 8 in the file give the same history"
	nfail=$((nfail + 1))
fi
# where the outputs came from (the last run's, of d8.json)
row() {	# row NAME COMMAND...
	n=$((n + 1))
	if "${@:2}" >/dev/null 2>&1; then
		echo "ok $n $1"
	else
		echo "not ok $n $1"
		nfail=$((nfail + 1))
	fi
}
row "the experiment file is copied into the outputs as experiment.json" \
	cmp "$work/d8.json" "$work/out/experiment.json"
row "summary.json says which rths, host, kernel, start and end" \
	jq -e '.provenance | (.tool == "rths-run") and (.version | length > 0)
		and (.host | length > 0) and (.kernel | length > 0)
		and (.started | test("^[0-9-]+T[0-9:]+Z$"))
		and (.ended >= .started) and (.card == "offline")' \
	"$work/out/summary.json"
row "history.csv-metadata.json (CSV on the Web) has its columns and provenance" \
	bash -c '[ "$(jq -r "[.tableSchema.columns[].name] | join(\",\")" \
		"$1/history.csv-metadata.json")" = "$(head -1 "$1/history.csv")" ] &&
		jq -e ".\"rths:provenance\".version and .url == \"history.csv\"" \
		"$1/history.csv-metadata.json"' - "$work/out"
row "history.csv starts with its header row, no comment line" \
	grep -q '^step,time_s,' <(head -1 "$work/out/history.csv")
n=$((n + 1))
if [ -d /sys/module/rths ]; then
	echo "ok $n # SKIP the rths module is loaded here"
else
	n=$((n - 1))
	expect "device backend without the module exits 3" 3 \
		"rths module not loaded" -- -t 0.05 "$ex/two-story-frame-sim.json"
fi
echo "# $((n - nfail)) of $n passed"
[ $nfail -eq 0 ]
