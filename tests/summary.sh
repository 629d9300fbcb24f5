#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Count the top-level TAP results in RESULTS/*.tap and print the closing
# line of a test run: "N passed, N failed".  Exit 1 if anything failed or
# nothing ran at all.
#
# What failed is printed again just above the closing line, with the
# kernel's last words from any guest console that shows a crash: CI
# reports only the tail of a run, and the tail must say what broke.
set -uo pipefail

results=${1:?usage: summary.sh RESULTS_DIR}
pass=0 fail=0 skip=0
failed=()
shopt -s nullglob
for f in "$results"/*.tap; do
	p=$(grep -cE '^ok ' "$f")
	s=$(grep -cE '^ok .*# *SKIP' "$f")
	n=$(grep -cE '^not ok ' "$f")
	name=$(basename "$f" .tap)
	printf '%-40s %4d passed %4d failed %4d skipped\n' \
		"$name" $((p - s)) "$n" "$s"
	pass=$((pass + p - s))
	skip=$((skip + s))
	fail=$((fail + n))
	while IFS= read -r line; do
		failed+=("$name: ${line:0:200}")
	done < <(grep -E '^not ok ' "$f" | head -n 5)
done

crash='Kernel panic|BUG:|Oops|general protection fault|RIP: |reported no exit status'
crashes=()
[ $fail -eq 0 ] || for log in "$results"/*.log; do
	grep -E -q "$crash" "$log" 2>/dev/null && crashes+=("$log")
done

if [ ${#failed[@]} -gt 0 ] || [ ${#crashes[@]} -gt 0 ]; then
	echo "--- what failed"
	for l in "${failed[@]}"; do echo "$l"; done
	for log in "${crashes[@]}"; do
		echo "--- $(basename "$log"): first lines that look like a crash"
		grep -E -m 12 "$crash" "$log" | cut -c1-200
	done
fi
# Where the time went, a part each, longest first.
if [ -s "$results/part-seconds" ]; then
	sort -k2,2nr "$results/part-seconds" |
		awk '{ printf "%s%s %dm%02ds", (NR > 1 ? ", " : "time by part: "), $1, int($2 / 60), $2 % 60 }
		     END { print "" }'
fi
[ $skip -eq 0 ] || echo "$skip skipped"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
