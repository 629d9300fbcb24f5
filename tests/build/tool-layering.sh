#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A tool's main file (tools/NAME.c) includes its parts (tools/NAME/),
# never the reverse: no part includes the main file or calls a function
# it defines (main alone is not static there), and the files of a
# tool's folder include each other without a cycle.  Issue 20.
# Usage: tool-layering.sh [TOP]; TAP on stdout, exit 1 if a row fails.
set -uo pipefail
top=${1:-.}
cd "$top" || exit 1

tools="rthsctl rths-run rths-site rths-coord"
n=0
nfail=0
row() {		# row ID OK DESCRIPTION [DETAIL]
	local ok=$2 what=$3 detail=${4:-}

	n=$((n + 1))
	if [ "$ok" = 1 ]; then
		echo "ok $n $what"
	else
		echo "not ok $n $what"
		[ -n "$detail" ] && printf '%s\n' "$detail" | sed 's/^/# /'
		nfail=$((nfail + 1))
	fi
}

# The files of tool $1 a quoted include names, as "FROM TO" edges among
# the main file and the folder's files (paths from the top).
edges() {
	local t=$1 f inc to

	for f in "tools/$t.c" tools/"$t"/*.[ch]; do
		[ -f "$f" ] || continue
		sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
		while read -r inc; do
			to=$(realpath -m --relative-to=. "$(dirname "$f")/$inc")
			case "$to" in
			"tools/$t.c" | "tools/$t/"*) echo "$f $to" ;;
			esac
		done
	done
}

# Functions tools/$1.c defines without static, but main.
main_functions() {
	grep -E '^[A-Za-z_][A-Za-z0-9_ *]*[ *][a-z_][a-z0-9_]*\(' "tools/$1.c" |
		grep -vE '^(static|extern|typedef|return)' | grep -v ';$' |
		sed -E 's/^.*[ *]([a-z_][a-z0-9_]*)\(.*/\1/' | grep -vx main
}

echo "TAP version 13"
echo "1..$(($(echo $tools | wc -w) * 2))"
for t in $tools; do
	e=$(edges "$t")
	up=$(printf '%s\n' "$e" | awk -v m="tools/$t.c" '$2 == m { print $1 " includes " m }')
	for fn in $(main_functions "$t"); do
		up+=$(grep -lw "$fn" tools/"$t"/*.[ch] 2>/dev/null |
			sed "s|\$| calls $fn (defined in tools/$t.c)|")$'\n'
	done
	up=$(printf '%s' "$up" | sed '/^$/d')
	row "$t:up" "$([ -z "$up" ] && echo 1 || echo 0)" \
		"$t: no part includes or calls back up into tools/$t.c" "$up"
	# tsort names a loop on stderr
	cyc=$( (printf '%s\n' "$e" | sed '/^$/d'; echo "tools/$t.c tools/$t.c") |
		tsort 2>&1 >/dev/null)
	row "$t:cycle" "$([ -z "$cyc" ] && echo 1 || echo 0)" \
		"$t: no include cycle among the files of tools/$t" "$cyc"
done
echo "# $((n - nfail)) of $n passed"
[ $nfail -eq 0 ]
