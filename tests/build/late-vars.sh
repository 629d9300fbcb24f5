#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A variable the top-level Makefile assigns only after it includes the
# mk/*.mk fragments is still empty when a fragment's rule line is read:
# such a prerequisite silently disappears (DEPS_STAMP, HARNESS and
# LIBRTHS_SO each did).  Prints the fragment lines that name one.
# Usage: late-vars.sh TOP; exit 1 if any.
set -euo pipefail
top=${1:-.}
late=$(awk '/^include .*mk\/\*\.mk/ { after = 1; next }
	after && /^[A-Za-z_][A-Za-z0-9_]* *(:|::|\?|\+)?= */ {
		sub(/ *(:|::|\?|\+)?=.*/, ""); print }' "$top/Makefile" | sort -u)
bad=0
for f in "$top"/mk/*.mk; do
	for v in $late; do
		# rule lines: not a recipe (tab), not an assignment, a ':' after
		# the reference or before it
		awk -v v="$v" -v f="${f#"$top"/}" '
			/^\t/ || /^ *#/ { next }
			/^[A-Za-z_][A-Za-z0-9_ ]*(:|::|\?|\+)?=/ { next }
			index($0, "$(" v ")") && /[^:=]:([^=]|$)/ {
				print f ":" FNR ": $(" v ") is assigned after the fragments are included"
				bad = 1 }
			END { exit bad }' "$f" || bad=1
	done
done
exit $bad
