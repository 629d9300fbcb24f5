#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Count the top-level TAP results in RESULTS/*.tap and print the closing
# line of a test run: "N passed, N failed".  Exit 1 if anything failed or
# nothing ran at all.
set -uo pipefail

results=${1:?usage: summary.sh RESULTS_DIR}
pass=0 fail=0 skip=0
shopt -s nullglob
for f in "$results"/*.tap; do
	p=$(grep -cE '^ok ' "$f")
	s=$(grep -cE '^ok .*# *SKIP' "$f")
	n=$(grep -cE '^not ok ' "$f")
	printf '%-40s %4d passed %4d failed %4d skipped\n' \
		"$(basename "$f" .tap)" $((p - s)) "$n" "$s"
	pass=$((pass + p - s))
	skip=$((skip + s))
	fail=$((fail + n))
done
[ $skip -eq 0 ] || echo "$skip skipped"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
