#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test guest: rths_bench, then cyclictest with the same
# period and count on the same CPU, so that the loop's latency figures and
# cyclictest's come from one machine in one run.
# Usage: guest-bench.sh KMOD_DIR BENCH_BIN TICKS
set -euo pipefail

kmod=$1 bench=$2 ticks=$3
insmod "$kmod/kernel/rths.ko"
insmod "$kmod/kernel/cards/rths_sim.ko"
echo "kernel $(uname -r)"
"$bench" -t "$ticks"

# rths runs on the last CPU at SCHED_FIFO 80, 1024 Hz: 977 us is the
# nearest whole period cyclictest takes.
cpu=$(($(nproc) - 1))
line=$(cyclictest -q -m -p 80 -a "$cpu" -t 1 -i 977 -l "$ticks" | grep 'Min:')
min=$(sed -n 's/.*Min: *\([0-9]*\).*/\1/p' <<<"$line")
avg=$(sed -n 's/.*Avg: *\([0-9]*\).*/\1/p' <<<"$line")
max=$(sed -n 's/.*Max: *\([0-9]*\).*/\1/p' <<<"$line")
printf 'latency cyclictest  min %8.1f avg %8.1f max %8.1f us\n' \
	"$min" "$avg" "$max"
