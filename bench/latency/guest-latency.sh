#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test guest ("make bench-latency"): on one CPU (the
# last) at one period and one SCHED_FIFO priority, one after the other,
#   rths        a sim device on its hrtimer clock, run by "rthsctl
#               latency"; each tick's timer-irq and thread latency from
#               the rths_tick trace event (in a tracefs instance of its
#               own); rthsctl's p99.9 from the kernel's 1 us histogram
#               must agree with it (report.sh)
#   cyclictest  one thread, -N -v: each loop's latency in ns
#   timerlat    the tracer, where the kernel has it (available_tracers):
#               irq and thread latency of each period
# first idle, then under a stress-ng load (on every CPU, the measured one
# included, below the measuring threads' priority), each for SECONDS.
#
# Under TCG every exec costs seconds, so this script only runs the tools
# and keeps what they wrote, in OUTDIR: LOAD-rths.out (rthsctl's T:
# line), LOAD-rths.trace, LOAD-cyclictest.out, LOAD-timerlat.trace, and
# each trace's buffer statistics (.stats); no LOAD-timerlat.trace where
# the kernel has no timerlat.  bench/latency/report.sh reads them on the
# host.  Standard output gets "kernel KREL" and "setup CPU PERIOD_US PRIO
# SECONDS".  A tool that cannot run ends the script non-zero.
#
# Usage: guest-latency.sh KMOD_DIR RTHSCTL SECONDS PERIOD_US PRIO OUTDIR
#        [STRESS-NG ARGS...]
set -euo pipefail

prog=${0##*/}
die() {
	echo "$prog: $*" >&2
	exit 1
}
[ $# -ge 6 ] || die "usage: $prog KMOD_DIR RTHSCTL SECONDS PERIOD_US PRIO OUTDIR [STRESS-NG ARGS...]"
kmod=$1 rthsctl=$2 seconds=$3 period=$4 prio=$5 out=$6
shift 6
stress=("$@")
[ ${#stress[@]} -gt 0 ] || stress=(--cpu 0)
[[ $seconds =~ ^[1-9][0-9]*$ ]] || die "SECONDS: a positive integer, not '$seconds'"
[[ $prio =~ ^[1-9][0-9]?$ ]] || die "PRIO: 1 to 99, not '$prio'"
# rths runs at a whole rate in Hz (RTHS_RATE_MIN to RTHS_RATE_MAX)
if ! [[ $period =~ ^[1-9][0-9]*$ ]] || ((1000000 % period)) ||
	((period < 50 || period > 10000)); then
	die "PERIOD_US: from 50 to 10000 and dividing 1000000, not '$period'"
fi
rate=$((1000000 / period))
cpu=$(($(nproc) - 1))
tracefs=/sys/kernel/tracing
mountpoint -q $tracefs || mount -t tracefs nodev $tracefs
rm -rf "$out"
mkdir -p "$out/stress-tmp"
dev=latbench
inst=$tracefs/instances/rths-latbench
spid=
cleanup() {
	[ -z "$spid" ] || kill "$spid" 2>/dev/null || true
	echo 0 >$tracefs/tracing_on 2>/dev/null || true
	echo nop >$tracefs/current_tracer 2>/dev/null || true
	"$rthsctl" dev del $dev >/dev/null 2>&1 || true
	rmdir "$inst" 2>/dev/null || true
}
trap cleanup EXIT

# A time-stamped line on the console (the guest's log).
progress() {
	local up
	read -r up _ </proc/uptime
	echo "# $up s: $*" >&2
}

insmod "$kmod/kernel/rths.ko"
insmod "$kmod/kernel/cards/rths_sim.ko"
echo "kernel $(uname -r)"
echo "setup $cpu $period $prio $seconds"

"$rthsctl" dev add $dev type sim channels 1 >/dev/null
"$rthsctl" dev set $dev clock hrtimer rate $rate cpu "$cpu" priority "$prio" \
	>/dev/null
mkdir -p "$inst"
echo 8192 >"$inst/buffer_size_kb"

run_rths() {	# LOAD
	progress "$1: rths"
	echo 0 >"$inst/tracing_on"
	echo >"$inst/trace"	# also zeroes the lost-event counters
	echo 1 >"$inst/events/rths/rths_tick/enable"
	echo 1 >"$inst/tracing_on"
	"$rthsctl" latency $dev duration "${seconds}s" >"$out/$1-rths.out" ||
		die "$1: rthsctl latency $dev duration ${seconds}s failed"
	echo 0 >"$inst/tracing_on"
	echo 0 >"$inst/events/rths/rths_tick/enable"
	cat "$inst/trace" >"$out/$1-rths.trace"
	cat "$inst/per_cpu/cpu$cpu/stats" >"$out/$1-rths.stats"
}

run_cyclictest() {	# LOAD
	progress "$1: cyclictest"
	cyclictest -q -N -v -m -p "$prio" -a "$cpu" -t 1 -d 0 -i "$period" \
		-D "$seconds" >"$out/$1-cyclictest.out" ||
		die "$1: cyclictest failed"
}

run_timerlat() {	# LOAD
	local pid
	grep -qw timerlat $tracefs/available_tracers || return 0
	progress "$1: timerlat"
	echo 0 >$tracefs/tracing_on
	echo nop >$tracefs/current_tracer
	echo 8192 >$tracefs/buffer_size_kb
	echo "$cpu" >$tracefs/osnoise/cpus
	echo "$period" >$tracefs/osnoise/timerlat_period_us
	echo timerlat >$tracefs/current_tracer
	echo 1 >$tracefs/tracing_on
	# the tracer's thread is SCHED_FIFO 95: give it the others' priority,
	# then count from there
	pid=$(pgrep -x "timerlat/$cpu") || die "$1: no timerlat/$cpu thread"
	chrt -f -p "$prio" "$pid"
	echo >$tracefs/trace
	sleep "$seconds"
	echo 0 >$tracefs/tracing_on
	cat $tracefs/trace >"$out/$1-timerlat.trace"
	cat "$tracefs/per_cpu/cpu$cpu/stats" >"$out/$1-timerlat.stats"
	echo nop >$tracefs/current_tracer
}

measure() {	# LOAD
	run_rths "$1"
	run_cyclictest "$1"
	run_timerlat "$1"
}

measure idle

# The load must still be there when the three measurements are done;
# its own timeout is only a bound.
progress "stress-ng ${stress[*]}"
stress-ng "${stress[@]}" --temp-path "$out/stress-tmp" \
	--timeout $((seconds * 3 + 900))s --quiet >&2 &
spid=$!
sleep 3
kill -0 $spid 2>/dev/null || die "stress-ng ${stress[*]}: did not start"
measure stress
kill -0 $spid 2>/dev/null ||
	die "stress-ng ${stress[*]}: ended before the measurements"
progress "stopping stress-ng"
kill -INT $spid
wait $spid || true
spid=
rmdir "$out/stress-tmp" 2>/dev/null || true
progress finished
