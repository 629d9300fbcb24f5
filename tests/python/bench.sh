#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-python: the same loop in C (bench_loop) and in Python
# (bench_loop.py, through the rths package) for STEPS steps, offline (-o)
# or on a device (-d DEVICE); prints both lines, the per-step cost of
# each, the ratio Python/C, and the step rate Python keeps up to
# (1 / its p99 per-step cost).  Never asserts on time.
#
# usage: bench.sh C_BENCH STEPS -o | -d DEVICE   (PYTHONPATH set)
set -uo pipefail

cbench=$1 steps=$2
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
record=$top/tests/data/elcentro-ns-1940.AT2
py=${PYTHON:-/usr/bin/python3}

c=$("$cbench" "$@" "$steps" "$record") || exit 1
p=$("$py" "$top/tests/python/bench_loop.py" "$@" "$steps" "$record") ||
	exit 1
echo "$c"
echo "$p"
# shellcheck disable=SC2016 # awk's own $fields
printf '%s\n%s\n' "$c" "$p" | awk '
	{ mode = $3; for (i = 4; i < NF; i += 2) v[$2, $i] = $(i + 1) }
	END {
		printf "%s, %d steps: per step C %.2f us (p50 %.2f, p99 %.2f), Python %.2f us (p50 %.2f, p99 %.2f): Python/C %.1f (mean), %.1f (p50), %.1f (p99)\n",
			mode, v["python", "steps"], v["c", "mean_us"],
			v["c", "p50_us"], v["c", "p99_us"],
			v["python", "mean_us"], v["python", "p50_us"],
			v["python", "p99_us"],
			v["python", "mean_us"] / v["c", "mean_us"],
			v["python", "p50_us"] / v["c", "p50_us"],
			v["python", "p99_us"] / v["c", "p99_us"]
		printf "%s: the Python loop keeps up to about %.0f Hz step rate (1 / its p99 per-step cost); C to about %.0f Hz\n",
			mode, 1e6 / v["python", "p99_us"], 1e6 / v["c", "p99_us"]
	}'
