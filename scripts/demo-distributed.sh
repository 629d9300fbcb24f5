#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo-distributed: the four-pier bridge of examples/bridge/ under El
# Centro 1940 NS.  The deck is rths-coord's numerical model; each pier is
# a substructure at its own rths-site, in its own network namespace, on a
# link with its own delay (a faultproxy; tests/dist/netns.sh).  Piers 1
# and 4 are numerical, piers 2 and 3 devices (librths's offline model of
# the sim card, deterministic) where this rths-site serves devices over
# the native protocol, else numerical stand-ins of the same stiffness.
#
# Usage: demo-distributed.sh OUTDIR RTHS_COORD RTHS_SITE FAULTPROXY
# Environment: DEMO_RTT="2 5 10 20" the round trip of each link in ms,
# DEMO_DURATION seconds of the record (default: the example's, 10 s).
set -euo pipefail

out=$1 coord=$2 site=$3
export FAULTPROXY=$4
read -ra rtt <<< "${DEMO_RTT:-2 5 10 20}"
ex=examples/bridge
if [ ${#rtt[@]} -ne 4 ]; then
	echo "demo-distributed: DEMO_RTT: expected 4 round trips in ms, one per pier" >&2
	exit 2
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "demo-distributed: the sites run in network namespaces: run it as root" >&2
	exit 1
fi
# shellcheck source=tests/dist/netns.sh
source tests/dist/netns.sh

rm -rf "$out"
mkdir -p "$out/sites"
netns_up 4 "$out/sites"
for i in 1 2 3 4; do
	file=$ex/pier$i.json
	netns_spawn "$i" "site$i" "$site" "$file"
	if ! netns_wait_port "$i" 9001 2>/dev/null; then
		# A device pier on a site that cannot serve it yet.
		echo "demo: pier$i: $(tail -1 "$out/sites/site$i.log")"
		echo "demo: pier$i: using its numerical stand-in ($ex/pier$i-numerical.json)"
		netns_stop "site$i"
		file=$ex/pier$i-numerical.json
		netns_spawn "$i" "site$i" "$site" "$file"
		netns_wait_port "$i" 9001
	fi
	half=$(awk -v r="${rtt[i - 1]}" 'BEGIN { print r / 2 }')
	netns_link "$i" 9001 -f native -s "$i" -e "delay both $half"
	echo "demo: pier$i at its own site ($file), link round trip ${rtt[i - 1]} ms"
done

args=()
[ -n "${DEMO_DURATION:-}" ] && args+=(-t "$DEMO_DURATION")
echo "demo: rths-coord drives the four sites (progress below)"
rc=0
netns_exec coord "$coord" "${args[@]}" -o "$out" "$ex/bridge.json" || rc=$?
netns_down
if [ $rc -ne 0 ]; then
	echo "demo-distributed: rths-coord failed ($rc); the sites' logs are in $out/sites/" >&2
	exit $rc
fi
echo
cat "$out/summary.txt"
echo
echo "demo: the plots are $out/response.png, loop-pier1.png .. loop-pier4.png,"
echo "      steptime.png and steptime-hist.png; the history is $out/history.csv,"
echo "      the sites' and the links' logs are in $out/sites/"
