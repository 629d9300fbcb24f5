#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# splat-scan.sh NAME LOG...
#
# Scan kernel logs (a guest's console log, its dmesg) for the reports of
# the debug kernel's checkers and print one TAP test, NAME: "ok" if there
# is none, else "not ok" followed by each report's first lines as TAP
# diagnostics ("# ...").  Exit status 1 if a report was found, 2 on bad
# usage or an unreadable LOG.
#
# A report starts at a line (after the optional "[  12.345678] " time
# stamp) that begins with one of
#   WARNING:  lockdep (possible circular locking dependency, recursive
#             locking, inconsistent lock state, suspicious RCU usage...),
#             WARN_ON() and debugobjects' ODEBUG warnings
#   BUG:      KASAN, KFENCE, sleeping function called from invalid context,
#             scheduling while atomic, soft lockup, bad unlock balance...
#   UBSAN:    undefined behaviour
#   unreferenced object 0x   kmemleak, after "echo scan > .../kmemleak"
#   kmemleak: ... disabled   kmemleak gave up (then it checks nothing)
#   INFO: task ... blocked for more than   the hung task detector
#   INFO: rcu... stall   RCU stalls
#   Oops:, general protection fault, Kernel panic
# and takes up to 16 lines (a KCSAN report, "BUG: KCSAN: data-race in
# ...", 40: its two stacks).  The same report found in two logs (console
# and dmesg) is listed once.
#
# SPLAT_KCSAN_OWN=REGEX: a KCSAN report none of whose lines matches the
# extended regular expression REGEX (e.g. "rths_|\[rths"), a race between
# two places of the kernel itself, is listed as a diagnostic but does not
# fail the test: what the scan judges is this project's code.
set -uo pipefail

if [ $# -lt 2 ]; then
	echo "usage: ${0##*/} NAME LOG..." >&2
	exit 2
fi
name=$1
shift
for f in "$@"; do
	[ -r "$f" ] || {
		echo "${0##*/}: cannot read $f" >&2
		exit 2
	}
done

# awk prints each report as lines "R<n>\t<text>"; the first line of a
# report, stripped of its time stamp, is what duplicates share.
reports=$(awk '
function strip(s) {
	sub(/\r$/, "", s)
	sub(/^<[0-9]+>/, "", s)
	sub(/^\[ *[0-9]+\.[0-9]+\] */, "", s)
	sub(/^\[ *T[0-9]+\] */, "", s)
	return s
}
function starts(s) {
	return s ~ /^(WARNING:|BUG:|UBSAN:|Oops:|Oops[ :]|general protection fault|Kernel panic)/ ||
		s ~ /^unreferenced object 0x/ ||
		s ~ /^kmemleak: .*(disabled|[Cc]annot)/ ||
		s ~ /^INFO: task .* blocked for more than/ ||
		s ~ /^INFO: rcu.* stall/
}
FNR == 1 { left = 0 }
{
	s = strip($0)
	if (starts(s)) {
		key = s
		# kmemleak: the address differs between objects; one leak
		# per backtrace would be better, but the object and its
		# size already tell two leaks apart.
		if (!(key in seen)) {
			seen[key] = 1
			n++
			left = s ~ /^BUG: KCSAN:/ ? 40 : 16
			print "R" n "\t" s
			next
		}
		left = 0
		next
	}
	if (left > 1) {
		left--
		print "R" n "\t" s
		# a KCSAN report ends at its rule
		if (s ~ /^=+$/)
			left = 0
	}
}' "$@")

# KCSAN reports that do not touch our code: set apart, not counted.
foreign=
if [ -n "${SPLAT_KCSAN_OWN:-}" ] && [ -n "$reports" ]; then
	split=$(printf '%s\n' "$reports" | awk -F'\t' -v own="$SPLAT_KCSAN_OWN" '
		{ id[NR] = $1; line[NR] = $0
		  if (!($1 in first)) first[$1] = $2
		  if ($2 ~ own) mine[$1] = 1 }
		END {
			for (i = 1; i <= NR; i++) {
				r = id[i]
				f = first[r] ~ /^BUG: KCSAN:/ && !(r in mine)
				print (f ? "F" : "K") line[i]
			}
		}')
	reports=$(printf '%s\n' "$split" | sed -n 's/^K//p')
	foreign=$(printf '%s\n' "$split" | sed -n 's/^F//p')
fi

echo "TAP version 13"
echo "1..1"
if [ -n "$foreign" ]; then
	echo "# KCSAN reports outside this project's code (not counted):"
	printf '%s\n' "$foreign" | awk -F'\t' '
		$1 != last { print "# ---"; last = $1 }
		{ print "#   " $2 }'
fi
if [ -z "$reports" ]; then
	echo "ok 1 $name: no lockdep, KASAN, KFENCE, UBSAN, kmemleak or other kernel report"
	exit 0
fi
count=$(printf '%s\n' "$reports" | cut -f1 | sort -u | wc -l)
echo "not ok 1 $name: $count kernel report(s)"
printf '%s\n' "$reports" | awk -F'\t' '
	$1 != last { print "# ---"; last = $1 }
	{ print "#   " $2 }'
exit 1
