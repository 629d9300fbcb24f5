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
echo "1..30"

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
		([.thread["0"].histogram[]] | add) + .thread["0"].overflows == $n and
		([.rths.irq.histogram[]] | add) + .rths.irq.overflows == $n and
		.rths.periods == .rths.ticks + .rths.missed and
		.thread["0"].min <= .thread["0"].max' "$work/j" >/dev/null
}
check "-j latency: thread 0's cycles ($samples) and histogram agree" json_ok ||
	sed 's/^/# /' "$work/j" "$work/j.err"
jsys_ok() {
	jq -e '(.sysinfo.release | length) > 0 and (.start_time | length) > 0 and
		(.end_time | length) > 0 and (.cmdline | test("latency .* loops 500")) and
		.thread["0"].p50 != null and
		(.thread["0"].p99 == null or .thread["0"].p50 <= .thread["0"].p99) and
		(.thread["0"].p99_9 == null or
		 .thread["0"].p99 <= .thread["0"].p99_9)' "$work/j" >/dev/null
}
check "-j latency: sysinfo, start and end times, the real command line, p50 <= p99 <= p99.9" \
	jsys_ok || sed 's/^/# /' "$work/j"

# Exactness: the 1 us rows against the kernel's own log2 histogram (an
# independent count), and against Min and Max.
"$rthsctl" latency $dev loops 3000 histogram 256 >"$work/x" 2>"$work/x.err"
check "latency loops 3000 histogram 256 runs" test $? -eq 0 ||
	sed 's/^/# /' "$work/x.err"
"$rthsctl" -j stats show $dev >"$work/xs"
# log2 bucket b >= 1 holds [2^(b-1), 2^b) us: up to b = 8 inside 256 rows
ok=$(jq -r '.[0].thread_latency.hist[0:9] | map(tostring) | join(" ")' \
	"$work/xs" | awk -v f="$work/x" '
	{ for (b = 0; b < 9; b++) want[b] = $(b + 1) }
	END {
		while ((getline l < f) > 0) {
			if (l !~ /^[0-9][0-9][0-9][0-9][0-9][0-9] /) continue
			split(l, c, /[ \t]+/); us = c[1] + 0
			b = us ? int(log(us) / log(2) + 1e-9) + 1 : 0
			got[b] += c[2]
		}
		bad = 0
		for (b = 0; b < 9; b++) if (got[b] != want[b]) bad++
		print bad == 0
	}')
check "the 1 us thread rows sum to the kernel's log2 buckets below 256 us" \
	test "$ok" = 1
ok=$(awk '
	/^[0-9][0-9][0-9][0-9][0-9][0-9] / { split($0, c, /[ \t]+/); n[c[1] + 0] = c[2] + 0;
		if (c[2] + 0 && lo == "") lo = c[1] + 0; if (c[2] + 0) hi = c[1] + 0 }
	/^# Min Latencies:/ { min = $4 + 0 }
	/^# Max Latencies:/ { max = $4 + 0 }
	END { print (lo == min && (max >= 256 || hi == max)) }' "$work/x")
check "the first non-empty row is Min, the last is Max" test "$ok" = 1
# rtla timerlat hist's table of the same kind of run
"$rthsctl" latency $dev loops 1000 histogram 512 format rtla >"$work/r" \
	2>"$work/r.err"
samples=$(stat_of lat_samples)
ok=$(awk -v n="$samples" '
	/^Index +IRQ-[0-9]+ +Thr-[0-9]+$/ { hdr = 1 }
	/^[0-9]+ / { i += $2; t += $3 }
	/^over:/ { oi = $2; ot = $3 }
	/^count:/ { ci = $2; ct = $3 }
	END { print (hdr && ci == n && ct == n && i + oi == n && t + ot == n) }' \
	"$work/r")
check "format rtla: rtla timerlat hist's table, adding up to $samples" \
	test "$ok" = 1 || sed 's/^/# /' "$work/r" "$work/r.err"
check "format rtla: its header lines" \
	grep -q '^# RTLA timerlat histogram$' "$work/r"

# Durations in minutes (and the other units the parser takes)
"$rthsctl" latency $dev duration 0.005m >"$work/d" 2>"$work/d.err"
check "duration 0.005m (300 ms) runs" test $? -eq 0 ||
	sed 's/^/# /' "$work/d.err"
"$rthsctl" latency $dev duration 2w >/dev/null 2>"$work/d2.err"
check "duration 2w is refused, naming the units" \
	grep -q 'use s, ms, us, m, h, d' "$work/d2.err"

# --break: the first thread latency over 1 us (every one, in a TCG
# guest) stops the run and the trace, as cyclictest -b.
tr=/sys/kernel/tracing
mountpoint -q $tr || mount -t tracefs nodev $tr 2>/dev/null
echo >$tr/trace 2>/dev/null
"$rthsctl" latency $dev duration 20s break 1 >"$work/b" 2>"$work/b.err"
check "break 1: the run ends" test $? -eq 0 || sed 's/^/# /' "$work/b.err"
bv=$(sed -n 's/^# Break value: \([0-9]*\)$/\1/p' "$work/b")
check "break 1: cyclictest's Break thread and Break value (${bv:-none}) lines" \
	test -n "$bv" -a "${bv:-0}" -ge 1
check "break 1: it stopped long before 20 s of loops" \
	test "$(stat_of lat_samples)" -lt $((20 * 2048))
check "break 1: tracing is off" test "$(cat $tr/tracing_on 2>/dev/null)" = 0
check "break 1: the trace ends with rths_lat_break after the trace_marker" \
	awk '/rthsctl latency: start, break at 1 us/ { m = 1 }
		/rths_lat_break:/ && m { b = 1 } END { exit !b }' $tr/trace
echo 0 >$tr/events/rths/enable 2>/dev/null
echo 1 >$tr/tracing_on 2>/dev/null

# One loop per CPU, as cyclictest -a -t: the 2-vCPU guest's CPUs 0 and 1
"$rthsctl" latency $dev cpus 0-1 loops 500 histogram 128 >"$work/c" \
	2>"$work/c.err"
check "cpus 0-1 runs" test $? -eq 0 || sed 's/^/# /' "$work/c.err"
check "cpus 0-1: two T: lines, T: 0 and T: 1" \
	test "$(grep -Ec '^T: [01] \( *[0-9]+\) P:' "$work/c")" -eq 2
check "cpus 0-1: histogram rows of four columns (two threads, two irqs)" \
	test "$(grep -Ec $'^[0-9]{6} [0-9]{6}\t[0-9]{6}\t[0-9]{6}\t[0-9]{6}$' "$work/c")" -eq 128
"$rthsctl" -j latency $dev cpus 0,1 loops 300 >"$work/cj" 2>>"$work/c.err"
check "cpus 0,1 -j: num_threads 2, thread 1 on cpu 1, 300 cycles or more each" \
	jq -e '.num_threads == 2 and .thread["1"].cpu == 1 and
		.thread["0"].cpu == 0 and .thread["1"].cycles >= 300 and
		.thread["0"].cycles >= 300' "$work/cj"
check "cpus: the per-CPU devices are gone afterwards" \
	bash -c "out=\$('$rthsctl' dev show) && ! grep -q -- '-c[01]' <<<\"\$out\""

# A manual-clock device is no latency test.
"$rthsctl" dev set $dev clock manual >/dev/null 2>&1
"$rthsctl" latency $dev loops 10 >/dev/null 2>"$work/m.err"
check "a manual-clock device is refused, saying why" \
	grep -q 'needs the hrtimer clock' "$work/m.err"
exit $failed
