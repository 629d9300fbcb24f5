#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test guest ("make bench-kernel"): rths_bench, the
# per-step exchange cost through the rings against netlink.  The loop's
# latency is "make bench-latency" (bench/latency/guest-latency.sh).
# Usage: guest-bench.sh KMOD_DIR BENCH_BIN
set -euo pipefail

kmod=$1 bench=$2
insmod "$kmod/kernel/rths.ko"
insmod "$kmod/kernel/cards/rths_sim.ko"
echo "kernel $(uname -r)"
"$bench"
