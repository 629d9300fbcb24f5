#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Tables of "make bench-latency", on the host, from what
# bench/latency/guest-latency.sh left for one kernel flavour: FILE (its
# standard output: the kernel and the setup) and the directory of the
# same name without ".txt" (the tools' outputs and traces).
#   report.sh table FLAVOUR FILE        p50/p99/p99.9/max per tool and load, and
#                                       the ratios of p99 and max, rths
#                                       over cyclictest and timerlat
#   report.sh summary FLAVOUR FILE...   one row per kernel and load
# Latencies in microseconds, percentiles by nearest rank.  The rths
# loop's p99.9 is also read from the kernel's 1 us histogram (rthsctl
# latency's percentile lines); it must be the trace's, floored to the
# microsecond, as both count the same ticks.  Figures are
# printed, never judged; missing output, no samples, a trace that lost
# events or disagrees with its tool's count is an error: a broken bench,
# not a figure.
set -euo pipefail

prog=${0##*/}
usage() {
	echo "usage: $prog table FLAVOUR FILE | summary FLAVOUR FILE [FLAVOUR FILE...]" >&2
	exit 2
}
fail() {
	echo "$prog: $*" >&2
	exit 1
}
[ $# -ge 3 ] && [ $(($# % 2)) -eq 1 ] || usage
mode=$1
shift
case $mode in
table) [ $# -eq 2 ] || usage ;;
summary) ;;
*) usage ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "lat LOAD TOOL SAMPLES P50 P99 P99.9 MAX" (ns) of the values in $tmp/v;
# MAX_NS, if given, is the tool's own maximum (a few of cyclictest's last
# loops never reach its -v output).
series() {	# LOAD TOOL WHERE [MAX_NS]
	sort -n "$tmp/v" | awk -v l="$1" -v t="$2" -v m="${4:-0}" '
		{ v[NR] = $1 }
		END {
			if (!NR) exit 1
			max = v[NR] > m ? v[NR] : m
			print "lat", l, t, NR, v[int((NR * 50 + 99) / 100)],
			      v[int((NR * 99 + 99) / 100)],
			      v[int((NR * 999 + 999) / 1000)], max
		}' || fail "$3: no samples"
}
# No event lost from the measured CPU's trace buffer.
no_lost() {	# STATS_FILE
	local n
	[ -r "$1" ] || fail "$1: missing"
	n=$(awk '/^(overrun|dropped events):/ { n += $NF } END { print n + 0 }' "$1")
	[ "$n" = 0 ] || fail "$1: the trace buffer lost $n events"
}
# C of a cyclictest-style T: line.
t_count() {
	sed -n 's/^T: .* C: *\([0-9]*\) .*/\1/p' "$1" | grep . ||
		fail "$1: no T: line"
}
# FILE's kernel, setup and lat lines.
figures() {	# FILE
	local f=$1 d=${1%.txt} l o c n max
	grep -E '^(kernel|setup) ' "$f" 2>/dev/null || fail "$f: no kernel and setup lines"
	for l in idle stress; do
		# rths: one rths_tick event per loop rthsctl counted
		o=$d/$l-rths
		[ -r "$o.out" ] && [ -r "$o.trace" ] || fail "$o.out, .trace: missing"
		no_lost "$o.stats"
		c=$(t_count "$o.out")
		sed -n 's/.* thread_lat=\([0-9]*\) .*/\1/p' "$o.trace" >"$tmp/v"
		n=$(wc -l <"$tmp/v")
		[ "$n" = "$c" ] || fail "$o.trace: $n rths_tick events for $c loops"
		series $l rths-thread "$o.trace" >"$tmp/lat"
		cat "$tmp/lat"
		# the kernel's 1 us histogram agrees with the trace
		h=$(sed -n 's/^# thread percentiles (us, cpu [0-9]*): .* p99.9 \([0-9]*\)$/\1/p' \
			"$o.out")
		t=$(awk '{ print int($7 / 1000) }' "$tmp/lat")
		[ -n "$h" ] || grep -q '^# thread percentiles .* p99.9 >=' "$o.out" ||
			fail "$o.out: no p99.9 from the kernel's histogram"
		[ -z "$h" ] || [ "$h" = "$t" ] ||
			fail "$o.out: the histogram's p99.9 ($h us) is not the trace's ($t us)"
		sed -n "s/^# missed: \([0-9]*\) of \([0-9]*\) periods$/missed $l \1 \2/p" \
			"$o.out"
		sed -n 's/.* irq_lat=\([0-9]*\) .*/\1/p' "$o.trace" >"$tmp/v"
		series $l rths-irq "$o.trace"
		# cyclictest -N -v: "thread: loop: ns" lines, then the T: line
		o=$d/$l-cyclictest.out
		[ -r "$o" ] || fail "$o: missing"
		c=$(t_count "$o")
		max=$(sed -n 's/^T: .* Max: *\([0-9]*\).*/\1/p' "$o")
		awk -F: 'NF == 3 && $1 + 0 == 0 && $2 ~ /^ *[0-9]+$/ { print $3 + 0 }' \
			"$o" >"$tmp/v"
		n=$(wc -l <"$tmp/v")
		[ "$n" -le "$c" ] && [ $((n * 100)) -ge $((c * 95)) ] ||
			fail "$o: $n values printed for $c loops"
		series $l cyclictest "$o" "$max"
		# timerlat: "#N context thread timer_latency 1234 ns", irq alike
		o=$d/$l-timerlat
		if [ -e "$o.trace" ]; then
			no_lost "$o.stats"
			awk '/ context +thread timer_latency / { print $(NF - 1) }' \
				"$o.trace" >"$tmp/v"
			series $l timerlat-thread "$o.trace"
			awk '/ context +irq timer_latency / { print $(NF - 1) }' \
				"$o.trace" >"$tmp/v"
			series $l timerlat-irq "$o.trace"
		else
			echo "lat $l timerlat-thread - - - - -"
			echo "lat $l timerlat-irq - - - - -"
		fi
	done
}

# Every FILE's figures as "FLAVOUR<TAB>line" on one stream.
for ((i = 1; i < $#; i += 2)); do
	f=${*:i:1} file=${*:i+1:1}
	figures "$file" >"$tmp/fig"
	sed "s/^/$f\t/" "$tmp/fig"
done >"$tmp/all"
awk -F'\t' -v mode="$mode" '
function us(ns) { return ns == "-" ? "-" : sprintf("%.1f", ns / 1000) }
function ratio(a, b) { return (a == "-" || b == "-" || b == 0) ? "n/a" : sprintf("%.2f", a / b) }
{
	split($2, w, " ")
	f = $1
	if (!(f in seen)) { seen[f] = 1; order[++nf] = f }
	if (w[1] == "kernel") krel[f] = w[2]
	else if (w[1] == "setup") setup[f] = sprintf("cpu %s, period %s us, SCHED_FIFO %s, %s s per tool and load", w[2], w[3], w[4], w[5])
	else if (w[1] == "missed") missed[f, w[2]] = w[3] " of " w[4]
	else if (w[1] == "lat") {
		k = f SUBSEP w[2] SUBSEP w[3]
		n[k] = w[4]; p50[k] = w[5]; p99[k] = w[6]; p999[k] = w[7]; max[k] = w[8]
		if (!((f, w[2]) in hasload)) { hasload[f, w[2]] = 1; loads[f, ++nl[f]] = w[2] }
		if (!((f, w[2], w[3]) in hastool)) { hastool[f, w[2], w[3]] = 1; tools[f, w[2], ++nt[f, w[2]]] = w[3] }
	}
}
function v(arr, f, l, t) { return ((f, l, t) in arr) ? arr[f, l, t] : "-" }
function table(f,   i, j, l, t) {
	printf "bench-latency %s: kernel %s, %s\n", f, krel[f], setup[f]
	printf "%-7s %-16s %8s %9s %9s %9s %9s\n", "load", "tool", "samples", "p50 us", "p99 us", "p99.9 us", "max us"
	for (i = 1; i <= nl[f]; i++) {
		l = loads[f, i]
		for (j = 1; j <= nt[f, l]; j++) {
			t = tools[f, l, j]
			printf "%-7s %-16s %8s %9s %9s %9s %9s\n", l, t, n[f, l, t],
			       us(p50[f, l, t]), us(p99[f, l, t]), us(p999[f, l, t]),
			       us(max[f, l, t])
		}
	}
	for (i = 1; i <= nl[f]; i++)
		if ((f, loads[f, i]) in missed)
			printf "%-7s rths: %s periods missed (no tick of their own)\n",
			       loads[f, i], missed[f, loads[f, i]]
	printf "%-7s %-30s %6s %6s\n", "ratios", "rths / other", "p99", "max"
	for (i = 1; i <= nl[f]; i++) {
		l = loads[f, i]
		pair(f, l, "rths-thread", "cyclictest")
		pair(f, l, "rths-thread", "timerlat-thread")
		pair(f, l, "rths-irq", "timerlat-irq")
	}
}
function pair(f, l, a, b) {
	printf "%-7s %-30s %6s %6s\n", l, a " / " b,
	       ratio(v(p99, f, l, a), v(p99, f, l, b)),
	       ratio(v(max, f, l, a), v(max, f, l, b))
}
function summary(   i, j, f, l, a, c, t) {
	print "bench-latency summary: p99 / max in us; ratios of the rths loop thread over cyclictest and over the timerlat thread"
	printf "%-24s %-6s %19s %19s %19s %13s %13s\n", "kernel", "load",
	       "rths thread", "cyclictest", "timerlat thread", "rths/cyc", "rths/timerlat"
	printf "%-31s %9s %9s %9s %9s %9s %9s %6s %6s %6s %6s\n", "",
	       "p99", "max", "p99", "max", "p99", "max", "p99", "max", "p99", "max"
	for (i = 1; i <= nf; i++) {
		f = order[i]
		for (j = 1; j <= nl[f]; j++) {
			l = loads[f, j]
			a = "rths-thread"; c = "cyclictest"; t = "timerlat-thread"
			printf "%-24s %-6s %9s %9s %9s %9s %9s %9s %6s %6s %6s %6s\n",
			       krel[f], l,
			       us(v(p99, f, l, a)), us(v(max, f, l, a)),
			       us(v(p99, f, l, c)), us(v(max, f, l, c)),
			       us(v(p99, f, l, t)), us(v(max, f, l, t)),
			       ratio(v(p99, f, l, a), v(p99, f, l, c)),
			       ratio(v(max, f, l, a), v(max, f, l, c)),
			       ratio(v(p99, f, l, a), v(p99, f, l, t)),
			       ratio(v(max, f, l, a), v(max, f, l, t))
		}
	}
}
END {
	if (mode == "table") table(order[1])
	else summary()
}' "$tmp/all"
