#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench-dist-nagle (and the end of make bench-dist): Nagle on a link
# with a real delay.  OpenFresco's protocol A sends [3] then [6] before it
# reads, with Nagle on; on a delayed link the [6] may wait for the ACK of
# [3], a round trip more, and a delayed ACK more still.  The client and
# the site sit in two network namespaces joined by tundelay (TUN devices,
# every packet delayed by half the round trip each way, nothing
# acknowledged early: the segments and ACKs are the endpoints' own), as
# netem would do on a kernel that has it.  Per round trip, one
# substructure is stepped with protocol A (3, 6, 5) and C (3, 10, 5) with
# Nagle on (as OpenFresco) and with TCP_NODELAY on the client (-D), and
# with the native protocol (STEP, RESULT; TCP_NODELAY), which reaches the
# site through a relay in the site's namespace (native plain TCP is
# loopback only): the relay's ACKs are the far end's, as the site's.
#
# Printed: the mean step, the ratio to the native step, and the step in
# round trips.  Nothing is asserted: the numbers are the machine's.
#
# Usage: nagle.sh RTHS_SITE FAULTPROXY STEP_CLIENT TUNDELAY WORKDIR
# BENCH_DIST_QUICK=1 runs fewer steps.
set -euo pipefail

site=$1 proxy=$2 client=$3 tundelay=$4 work=$5
if [ "$(id -u)" -ne 0 ]; then
	echo "bench-dist-nagle: the link runs in network namespaces: run it as root" >&2
	exit 1
fi

RTTS=(1 5 20 50)
declare -A STEPS=([1]=200 [5]=60 [20]=25 [50]=12)
if [ -n "${BENCH_DIST_QUICK:-}" ]; then
	STEPS=([1]=20 [5]=10 [20]=5 [50]=3)
fi
NC=nd$$c NS=nd$$s
C_ADDR=10.77.0.1 S_ADDR=10.77.0.2
PIDS=()

down() {
	local p
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	PIDS=()
	ip netns del "$NC" 2>/dev/null || true
	ip netns del "$NS" 2>/dev/null || true
}
trap down EXIT

wait_port() {		# NS ADDR PORT
	local i
	for ((i = 0; i < 100; i++)); do
		ip netns exec "$1" bash -c "exec 3<>/dev/tcp/$2/$3" \
			2>/dev/null && return 0
		sleep 0.05
	done
	echo "nagle.sh: nothing listens on $2:$3 in $1" >&2
	return 1
}

# The link: ONE_WAY ms each way, then addresses on both ends.
link_up() {		# ONE_WAY_MS
	local i
	"$tundelay" "$1" "$NC" "$NS" > "$work/tundelay.log" 2>&1 &
	PIDS+=($!)
	for ((i = 0; i < 100; i++)); do
		ip -n "$NS" link show tdl0 > /dev/null 2>&1 && break
		sleep 0.05
	done
	ip -n "$NC" addr add "$C_ADDR" peer "$S_ADDR" dev tdl0
	ip -n "$NS" addr add "$S_ADDR" peer "$C_ADDR" dev tdl0
	ip -n "$NC" link set tdl0 up
	ip -n "$NS" link set tdl0 up
}

rm -rf "$work"
mkdir -p "$work"
cat > "$work/site.json" <<EOF
{ "substructures": [
  { "name": "s", "protocol": "native", "port": 9001, "dof": 1,
    "stiffness": [ [ 1e6 ] ] },
  { "name": "a", "protocol": "site", "address": "$S_ADDR", "port": 9002,
    "dof": 1, "stiffness": [ [ 1e6 ] ] },
  { "name": "c", "protocol": "element", "address": "$S_ADDR",
    "port": 9003, "dof": 1, "stiffness": [ [ 1e6 ] ] } ] }
EOF

echo "bench-dist: Nagle on a delayed link (tundelay: packets delayed both ways, no early ACK)"
printf '%7s %-28s %6s %9s %10s %10s\n' rtt_ms protocol steps step_ms \
	"vs native" "RTTs/step"
for rtt in "${RTTS[@]}"; do
	steps=${STEPS[$rtt]}
	ip netns add "$NC"
	ip netns add "$NS"
	ip -n "$NC" link set lo up
	ip -n "$NS" link set lo up
	link_up "$(awk -v r="$rtt" 'BEGIN { print r / 2 }')"
	ip netns exec "$NS" "$site" -q "$work/site.json" \
		> "$work/site-$rtt.log" 2>&1 &
	PIDS+=($!)
	wait_port "$NS" 127.0.0.1 9001
	ip netns exec "$NS" "$proxy" -n relay -f raw "$S_ADDR:9011" \
		127.0.0.1:9001 > "$work/relay-$rtt.log" 2>&1 &
	PIDS+=($!)
	wait_port "$NS" "$S_ADDR" 9011
	native=
	for run in "native:9011::native (STEP, RESULT)" \
		   "a:9002::A 3, 6, 5, Nagle on" \
		   "a:9002:-D:A 3, 6, 5, TCP_NODELAY" \
		   "c:9003::C 3, 10, 5, Nagle on" \
		   "c:9003:-D:C 3, 10, 5, TCP_NODELAY"; do
		IFS=: read -r proto port opt label <<< "$run"
		# shellcheck disable=SC2086
		line=$(ip netns exec "$NC" "$client" -P "$proto" -N s $opt \
			-s "$steps" "$S_ADDR:$port")
		ms=$(awk '{ for (i = 1; i < NF; i++) if ($i == "mean") print $(i + 1) }' \
			<<< "$line")
		[ -n "$native" ] || native=$ms
		awk -v r="$rtt" -v l="$label" -v k="$steps" -v m="$ms" \
			-v b="$native" 'BEGIN {
			printf "%7g %-28s %6d %9.3f %9.2fx %10.2f\n",
				r, l, k, m, m / b, m / r }'
	done
	down
done
