#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rthsctl latency on a sim device (in the test guest): cyclictest's T:
# line, its -h histogram and its JSON, each checked against the device's
# statistics (STATS_GET) and against itself; no timing thresholds.
# Prints TAP.  Usage: rths_latency_test.sh (from the top of the tree;
# RTHS_RUN set: rthsctl is next to it)
set -uo pipefail

rthsctl=$(dirname "${RTHS_RUN:?RTHS_RUN: path of rths-run}")/rthsctl
dev=lat$$
work=$(mktemp -d)
trap '"$rthsctl" dev del $dev >/dev/null 2>&1; rm -rf "$work"' EXIT

. tests/lib/tap.sh
echo "TAP version 13"
echo "1..12"

"$rthsctl" dev add $dev type sim channels 1 >"$work/add.log" 2>&1 &&
	"$rthsctl" dev set $dev clock hrtimer rate 2048 >>"$work/add.log" 2>&1
check "a sim device on the hrtimer clock at 2048 Hz" test $? -eq 0 ||
	sed 's/^/# /' "$work/add.log"

matches() { [[ $1 =~ $2 ]]; }
stat_of() {	# KEY: a counter of the device's last run
	"$rthsctl" -j stats show $dev | jq -r ".[0].$1"
}

# The T: line: cyclictest's print_stat() format, microseconds.
"$rthsctl" latency $dev loops 2000 >"$work/t" 2>"$work/t.err"
check "latency loops 2000 runs" test $? -eq 0 || sed 's/^/# /' "$work/t.err"
sed 's/^/# /' "$work/t"
re='^T: 0 \( *[0-9]+\) P: ?[0-9]+ I:488 C: *([0-9]+) Min: *([0-9]+) Act: *[0-9]+ Avg: *([0-9]+) Max: *([0-9]+)$'
line=$(head -n 1 "$work/t")
if [[ $line =~ $re ]]; then
	c=${BASH_REMATCH[1]} min=${BASH_REMATCH[2]} avg=${BASH_REMATCH[3]}
	max=${BASH_REMATCH[4]}
else
	c=0 min=1 avg=0 max=0
fi
check "the T: line is cyclictest's" matches "$line" "$re"
samples=$(stat_of lat_samples)
check "C ($c) is every loop run ($samples), at least 2000" \
	test "$c" = "$samples" -a "$c" -ge 2000
check "Min <= Avg <= Max" test "$min" -le "$avg" -a "$avg" -le "$max"
check "the irq split and the missed periods are reported" \
	grep -Eq '^# missed: [0-9]+ of [0-9]+ periods$' "$work/t"

# The -h histogram: 64 rows of one microsecond, then the summary lines.
"$rthsctl" latency $dev duration 500ms histogram 64 >"$work/h" 2>"$work/h.err"
check "latency duration 500ms histogram 64 runs" test $? -eq 0 ||
	sed 's/^/# /' "$work/h.err"
samples=$(stat_of lat_samples)
rows=$(grep -Ec $'^[0-9]{6} [0-9]{6}\t[0-9]{6}$' "$work/h")
check "64 histogram rows in cyclictest's format ($rows)" test "$rows" -eq 64
# rows + overflows = every sample, in each column
ok=$(awk -v n="$samples" '
	NF == 3 && $1 ~ /^[0-9]+$/ { t += $2; i += $3 }
	/^# Total:/ { tt = $3; ti = $4 }
	/^# Histogram Overflows:/ { ot = $4; oi = $5 }
	END { print (t == tt && i == ti && tt + ot == n && ti + oi == n) }' \
	"$work/h")
check "rows and overflows add up to the $samples samples" test "$ok" = 1
check "the T: line follows the histogram" \
	grep -Eq "^T: 0 .* C: *$samples " "$work/h"

# JSON: cyclictest's --json layout.
"$rthsctl" -j latency $dev loops 500 >"$work/j" 2>"$work/j.err"
samples=$(stat_of lat_samples)
json_ok() {
	jq -e --argjson n "$samples" '.thread["0"].cycles == $n and
		([.thread["0"].histogram[]] | add) == $n and
		([.rths.irq.histogram[]] | add) == $n and
		.rths.periods == .rths.ticks + .rths.missed and
		.thread["0"].min <= .thread["0"].max' "$work/j" >/dev/null
}
check "-j latency: thread 0's cycles ($samples) and histogram agree" json_ok ||
	sed 's/^/# /' "$work/j" "$work/j.err"
# A manual-clock device is no latency test.
"$rthsctl" dev set $dev clock manual >/dev/null 2>&1
"$rthsctl" latency $dev loops 10 >/dev/null 2>"$work/m.err"
check "a manual-clock device is refused, saying why" \
	grep -q 'needs the hrtimer clock' "$work/m.err"
exit $failed
