#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The running kernel's view of the rths family (nlctrl's getfamily and
# getpolicy, CTRL_CMD_GETPOLICY, read with the YNL CLI and the kernel's
# nlctrl.yaml) checked against Documentation/netlink/specs/rths.yaml by
# ynl_policy_check.py: operations, their flags and every attribute's type,
# range and length, and the sim card's ranges by probing.  Prints TAP.
# Usage: rths_ynl_policy_test.sh (from the top of the tree; RTHS_YNL is
# the tree scripts/extract-linux-source.sh made)
set -uo pipefail

ynl_dir=${RTHS_YNL:?RTHS_YNL: the extracted YNL tree}
nlctrl=$ynl_dir/Documentation/netlink/specs/nlctrl.yaml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ctrl() {
	/usr/bin/python3 "$ynl_dir/tools/net/ynl/cli.py" --spec "$nlctrl" \
		--no-schema --output-json "$@"
}

if ! ctrl --do getfamily --json '{ "family-name": "rths" }' \
		>"$work/family.json" 2>"$work/err" ||
   ! ctrl --dump getpolicy --json '{ "family-name": "rths" }' \
		>"$work/policy.json" 2>>"$work/err"; then
	printf 'TAP version 13\n1..1\nnot ok 1 read the family and its policies\n'
	sed 's/^/# /' "$work/err"
	exit 1
fi
/usr/bin/python3 tests/selftests/ynl_policy_check.py "$ynl_dir" \
	Documentation/netlink/specs/rths.yaml "$work/family.json" \
	"$work/policy.json" sim
