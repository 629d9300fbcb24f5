#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test guest ("make bench-syscalls"): the system calls a
# step costs, counted by strace -c.  Each loop runs twice, with a short
# and a long record, and the difference is divided by the difference in
# steps, so that what runs once (setup, the outputs) cancels out.
#   - rths_bench -l, a bare post/wait loop, spinning on the ring and in
#     poll(): the floor is 0 and 1 per step;
#   - rths-run on the demo's sim card, one tick per step (-d 1).
# Usage: guest-syscalls.sh KMOD_DIR RTHS_BENCH RTHS_RUN [STEPS]
set -euo pipefail

kmod=$1 bench=$2 run=$3 steps=${4:-10000}
short=1000
long=$((short + steps))
work=${RTHS_VM_RW:-/tmp}/syscalls
mkdir -p "$work"
insmod "$kmod/kernel/rths.ko"
insmod "$kmod/kernel/cards/rths_sim.ko"
echo "kernel $(uname -r)"

# strace -c's table: "% time, seconds, usecs/call, calls, [errors,]
# syscall"; the calls are the 4th column, the name the last.
counts() {
	awk '/^------/ { n++; next } n == 1 && NF >= 5 { print $NF, $4 }' "$1"
}

# diff_per_step SHORT_FILE LONG_FILE STEPS: "name per-step" rows, the
# calls that grew with the steps, and a total row.
diff_per_step() {
	join -a 2 -e 0 -o 0,1.2,2.2 <(counts "$1" | sort) <(counts "$2" | sort) |
		awk -v n="$3" '{ d = ($3 - $2) / n; if (d > 0.0005) {
			printf "  %-20s %8.3f\n", $1, d; t += d } }
			END { printf "  %-20s %8.3f\n", "total", t }'
}

for mode in spin poll; do
	for n in $short $long; do
		strace -f -c -o "$work/loop-$mode-$n.txt" \
			"$bench" -n $n -l $mode >"$work/loop-$mode-$n.out"
	done
	echo "loop $mode: system calls per step over $steps steps" \
		"($(cat "$work/loop-$mode-$long.out"))"
	diff_per_step "$work/loop-$mode-$short.txt" "$work/loop-$mode-$long.txt" \
		$steps
done

# rths-run: the engine's own loop (poll) on the sim card.  Its records
# are written after the loop; their writes grow with the steps and are
# named apart.
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/blas:/usr/lib/x86_64-linux-gnu/lapack
for n in $short $long; do
	t=$(awk -v n=$n 'BEGIN { printf "%.6f", n / 1024 }')
	strace -f -c -o "$work/run-$n.txt" "$run" -q --no-plots --no-reference \
		-d 1 -t "$t" -o "$work/run-$n" examples/two-story-frame-sim.json \
		>"$work/run-$n.out" 2>&1 || true
	grep -o '"steps": *[0-9]*' "$work/run-$n/summary.json" | head -n 1 \
		>"$work/run-$n.steps" || true
done
s1=$(grep -o '[0-9]*$' "$work/run-$short.steps" || echo 0)
s2=$(grep -o '[0-9]*$' "$work/run-$long.steps" || echo 0)
echo "rths-run (poll): system calls per step over $((s2 - s1)) steps" \
	"($s1 and $s2 steps; the writes include the records written after the loop)"
if [ "$s2" -gt "$s1" ]; then
	diff_per_step "$work/run-$short.txt" "$work/run-$long.txt" $((s2 - s1))
else
	echo "  rths-run did not run (see $work/run-$long.out)"
	tail -n 5 "$work/run-$long.out"
fi
