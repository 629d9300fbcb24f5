#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run tests/octave/test_*.m under octave-cli, each into
# RESULTS/octave-NAME.tap (RTHS_TAP_PREFIX in place of "octave"), with
# RESULTS/octave-NAME.work as its scratch directory, and print them.  A test is a script that prints TAP (tap_plan, tap_ok,
# tap_error); one that dies, or prints fewer lines than its plan,
# gets a "not ok" line added.  --no-history: Octave 7.3 otherwise fails
# to save a history at exit ("ignoring const execution_exception&").
#
# usage: run.sh RESULTS MEX_DIR TOOLS_DIR TEST.m...
set -uo pipefail

results=$1 mexdir=$2 tools=$3
shift 3
top=$(cd "$(dirname "$0")/../.." && pwd)
prefix=${RTHS_TAP_PREFIX:-octave}
mkdir -p "$results"
rc=0
for t in "$@"; do
	name=$(basename "$t" .m)
	name=${name#test_}
	tap=$results/$prefix-$name.tap
	work=$results/$prefix-$name.work
	rm -rf "$work"
	mkdir -p "$work"
	st=0
	RTHS_TOP=$top RTHS_TOOLS=$tools RTHS_WORK=$work \
		timeout 600 octave-cli --no-gui --norc --no-history --eval "
		addpath('$mexdir'); addpath('$top/tests/octave');
		addpath('$top/examples/matlab');
		try
		  source('$top/$t');
		catch e
		  printf('not ok - %s died: %s (%s)\n', '$name', e.message, e.identifier);
		end" >"$tap" 2>"$work/stderr" || st=$?
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$tap")
	count=$(grep -cE '^(not )?ok ' "$tap")
	if [ $st -ne 0 ]; then
		echo "not ok - $name: octave-cli exited with status $st" >>"$tap"
	fi
	if [ -z "$plan" ] || [ "$count" -lt "$plan" ]; then
		echo "not ok - $name: $count results of a plan of ${plan:-none}" >>"$tap"
	fi
	sed 's/^/# stderr: /' "$work/stderr" >>"$tap"
	cat "$tap"
	grep -q '^not ok' "$tap" && rc=1
done
exit $rc
