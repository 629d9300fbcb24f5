#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make dist-check's smoke run of bench-dist-scale (TAP): rths-coord and
# SITES (8) numerical sites over TLS, each behind its own link of one
# tundelay process (SITES TUN pairs in one poll loop, 10 ms each way), for
# the quick run's 24 steps, rths-coord and the sites as plain processes.
# Asserted: the coordinator finished every step, every
# site answered every step, no site's best round trip was under the
# links' 20 ms (nothing went early: the delay held both ways), tundelay
# wrote packets and dropped none, and no program's log has a sanitizer's
# report (with the ASan/UBSan builds).  The times are printed, never
# compared with a budget.
#
# Usage: [SITES=N] scale.sh RTHS_COORD RTHS_SITE TUNDELAY WORKDIR (as root)
# SITES: how many sites, 8 unless given; more than rths-coord takes
# (bench-dist-scale skips the count, saying so) fails test 1 with that line.
set -uo pipefail

coord=$1 site=$2 tundelay=$3 work=$4
n=${SITES:-8} steps=24
if ! [[ "$n" =~ ^[1-9][0-9]*$ ]]; then
	echo "scale.sh: SITES='$n': expected a count of sites from 1" >&2
	exit 2
fi
echo "1..5"
if [ "$(id -u)" -ne 0 ]; then
	for i in 1 2 3 4 5; do
		echo "ok $i # SKIP the sites run in network namespaces: not root"
	done
	exit 0
fi

nfail=0
tap() {			# NUMBER RESULT NAME [DIAGNOSTIC...]
	local k=$1 r=$2 name=$3
	shift 3
	if [ "$r" = ok ]; then
		echo "ok $k $name"
	else
		nfail=$((nfail + 1))
		echo "not ok $k $name"
		printf '# %s\n' "$@"
	fi
}

BENCH_DIST_QUICK=1 BENCH_DIST_SITES=$n BENCH_DIST_PASSES=other \
	bench/dist/bench-dist-scale.sh \
	"$coord" "$site" "$tundelay" "$work" > "$work.out" 2>&1
st=$?
sed 's/^/# /' "$work.out"
sum=$work/out-other-$n/summary.json

r=fail
[ $st -eq 0 ] && [ "$(jq -r '[.steps_done, .failed] | @tsv' "$sum" 2>/dev/null)" = \
	"$steps	false" ] && r=ok
tap 1 $r "rths-coord stepped $n sites behind tundelay over TLS: $steps steps done" \
	"bench-dist-scale exit $st; summary: $(jq -c '{steps_done, failed, fault}' "$sum" 2>&1)" \
	"$(grep -h 'skipped' "$work.out" 2>/dev/null | head -1)"

r=fail
[ "$(jq -r "[.sites[] | select(.round_trip.n == $steps)] | length" "$sum" 2>/dev/null)" = "$n" ] &&
	r=ok
tap 2 $r "every one of the $n sites answered each of the $steps steps" \
	"round trips per site: $(jq -c '[.sites[].round_trip.n]' "$sum" 2>&1)"

best=$(jq -r '[.sites[].round_trip.min_s] | min' "$sum" 2>/dev/null)
r=fail
awk -v b="$best" 'BEGIN { exit !(b != "" && b >= 0.020) }' && r=ok
tap 3 $r "no site's round trip was under the links' 20 ms: the delay held both ways (best $best s)"

line=$(grep "packets written" "$work/bed-other-$n/tundelay.log" 2>/dev/null)
r=fail
[[ "$line" =~ :\ ([1-9][0-9]*)\ packets\ written,\ 0\ dropped ]] && r=ok
tap 4 $r "tundelay served the $n links in one loop and dropped nothing" \
	"its log: ${line:-nothing}"
reports=$(grep -l "Sanitizer\|runtime error:" "$work/bed-other-$n"/*.log \
	"$work/out-other-$n.log" 2>/dev/null)
r=fail
[ -z "$reports" ] && [ -f "$work/out-other-$n.log" ] && r=ok
tap 5 $r "no sanitizer report from rths-coord or the sites" "$reports"
[ $nfail -eq 0 ]
