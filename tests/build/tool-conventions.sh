#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every tool keeps the conventions of Documentation/tool-conventions.rst:
# --version (status 0, "NAME VERSION" on stdout), --help (status 0, on
# stdout), an unknown option (status 2), and, for a tool that reads a
# file, a missing one ("FILE: [io] ..." on stderr, status 1) and one
# that is not JSON ("FILE:LINE:COL: [syntax] ..."); -V is --version and
# -j is JSON (rths-run -j prints the summary.json it wrote).
# Usage: tool-conventions.sh BINDIR (build/plain/tools); TAP on stdout.
set -uo pipefail
bin=${1:?usage: tool-conventions.sh BINDIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
missing=$work/missing.json

n=0
nfail=0
# check DESCRIPTION WANT_STATUS STREAM PATTERN -- TOOL ARGS...: the status
# and an extended regex that STREAM (out or err) must match
check() {
	local what=$1 want=$2 stream=$3 pat=$4 got text
	shift 5

	n=$((n + 1))
	timeout 10 "$@" >"$work/out" 2>"$work/err" </dev/null
	got=$?
	text=$work/$stream
	if [ $got -eq "$want" ] && { [ -z "$pat" ] || grep -Eq -- "$pat" "$text"; }; then
		echo "ok $n $what"
	else
		echo "not ok $n $what (exit $got, want $want${pat:+; $stream /$pat/})"
		head -3 "$work/err" | sed 's/^/# /'
		nfail=$((nfail + 1))
	fi
}

echo "TAP version 13"
echo "1..25"
for t in rthsctl rths-run rths-site rths-coord; do
	check "$t --version prints \"$t VERSION\"" 0 out "^$t [0-9]" -- \
		"$bin/$t" --version
	check "$t -V prints \"$t VERSION\"" 0 out "^$t [0-9]" -- \
		"$bin/$t" -V
	check "$t --help prints to stdout" 0 out "[Uu]sage" -- "$bin/$t" --help
	check "$t: an unknown option exits 2" 2 err "" -- \
		"$bin/$t" --no-such-option
done
# the tools that read a file
check "rths-run: a missing experiment file: FILE: [io], exit 1" 1 err \
	"^$missing: \[io\] " -- "$bin/rths-run" "$missing"
check "rthsctl -b: a missing batch file: FILE: [io], exit 1" 1 err \
	"^$missing: \[io\] " -- "$bin/rthsctl" -b "$missing"
check "rths-site: a missing site file: FILE: [io], exit 1" 1 err \
	"^$missing: \[io\] " -- "$bin/rths-site" "$missing"
check "rths-coord: a missing experiment file: FILE: [io], exit 1" 1 err \
	"^$missing: \[io\] " -- "$bin/rths-coord" "$missing"
printf '{\n  "a": 1,\n  ,\n}\n' >"$work/bad.json"
for t in rths-run rths-site rths-coord; do
	check "$t: JSON that does not parse: FILE:3:3: [syntax], exit 1" 1 \
		err "^$work/bad.json:3:3: \[syntax\] " -- "$bin/$t" "$work/bad.json"
done
# -j: the summary that was written, as JSON, and nothing else on stdout
top=$(cd "$(dirname "$0")/../.." && pwd)
check "rths-run -j prints its summary.json on stdout" 0 out '^\{' -- \
	"$bin/rths-run" -j --offline --no-plots --no-reference -t 0.2 \
	-o "$work/run" "$top/examples/two-story-frame.json"
n=$((n + 1))
if jq -e .integrator "$work/out" >/dev/null 2>&1 &&
	cmp -s "$work/out" "$work/run/summary.json"; then
	echo "ok $n rths-run -j: stdout is valid JSON, the summary.json written"
else
	echo "not ok $n rths-run -j: stdout is valid JSON, the summary.json written"
	nfail=$((nfail + 1))
fi
echo "# $((n - nfail)) of $n passed"
[ $nfail -eq 0 ]
