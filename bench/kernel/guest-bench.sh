#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test guest ("make bench-kernel"): rths_bench, the
# per-step exchange cost through the rings against netlink, then a
# post/wait step loop's time from post to feedback against one tick
# (rths_bench -l, spinning and polling) and against the same loop on
# a bare shared page and kernel thread (rths_bench -e, bench/kernel/echo).
# The loop's latency is "make bench-latency" (bench/latency/guest-latency.sh).
# Usage: guest-bench.sh KMOD_DIR BENCH_BIN ECHO_KO
set -euo pipefail

kmod=$1 bench=$2 echo=$3
insmod "$kmod/kernel/rths.ko"
insmod "$kmod/kernel/cards/rths_sim.ko"
echo "kernel $(uname -r)"
"$bench"
# Post to feedback, end to end, against one tick, through the rings and
# through the bare echo (the floor; rths.ko's loop is idle by then).
insmod "$echo"
for mode in spin poll; do
	"$bench" -l $mode -n 10000
	"$bench" -e $mode -n 10000
done
rmmod rths_echo
