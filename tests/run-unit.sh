#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run TAP-producing test binaries; save each one's output as
# RESULTS/<variant>-<name>.tap.  A binary that dies without reporting a
# failure gets a "not ok" line of its own, so nothing is lost silently.
set -uo pipefail

results=${1:?usage: run-unit.sh RESULTS_DIR BINARY...}
shift
mkdir -p "$results"
rc=0
for bin in "$@"; do
	variant=$(basename "$(dirname "$(dirname "$(dirname "$bin")")")")
	name=$variant-$(basename "$bin")
	out=$results/$name.tap
	echo "== $name"
	timeout 600 "$bin" >"$out" 2>&1
	st=$?
	cat "$out"
	if [ $st -ne 0 ] && ! grep -q '^not ok' "$out"; then
		echo "not ok - $name exited with status $st" | tee -a "$out"
	fi
	[ $st -eq 0 ] || rc=1
done
exit $rc
