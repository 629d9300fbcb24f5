#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench-dist: the step rate of a distributed test against the round
# trip of each site's link (0, 5, 20, 50 ms) and the number of sites (1, 3,
# 8), with rths-coord driving the sites in parallel and one after another
# (--serial); then one substructure stepped with OpenFresco's messages per
# step (protocol A: 3, 6, 5; protocol C: 3, 10, 5) against the native
# protocol's one round trip.  Every site is numerical, in its own network
# namespace, behind a faultproxy that delays each message by half the round
# trip (tests/dist/netns.sh).
#
# The floor of a step is the slowest site's round trip plus its step time:
# here the largest, over the sites, of the best round trip rths-coord
# measured on the link plus the site's mean compute time (both from its
# summary.json).  "floor/step" is how close a configuration gets to it.  Nothing is asserted: the numbers are
# the machine's (2 shared CPUs here) and the proxy's.
#
# Usage: bench-dist.sh RTHS_COORD RTHS_SITE FAULTPROXY STEP_CLIENT WORKDIR
# BENCH_DIST_QUICK=1 runs fewer steps (a smoke run).
set -euo pipefail

coord=$1 site=$2 client=$4 work=$5
export FAULTPROXY=$3
# shellcheck source=bench/dist/common.sh
source bench/dist/common.sh
dist_need_root bench-dist

RTTS=(0 5 20 50)
SITES=(1 3 8)
# Steps per round trip: about a second of links per configuration.
declare -A STEPS=([0]=400 [5]=60 [20]=25 [50]=12)
if [ -n "${BENCH_DIST_QUICK:-}" ]; then
	STEPS=([0]=40 [5]=10 [20]=5 [50]=3)
fi

rm -rf "$work"
mkdir -p "$work"

# the port the coordinator dials for site I (through its proxy)
site_keys() {		# I
	printf '"port": %d' "$(netns_port "$1")"
}

site_file() {		# FILE
	cat > "$1" <<EOF
{ "substructures": [
  { "name": "s", "protocol": "native", "port": 9001, "dof": 1,
    "stiffness": [ [ 1e6 ] ] },
  { "name": "a", "protocol": "site", "port": 9002, "dof": 1,
    "stiffness": [ [ 1e6 ] ] },
  { "name": "c", "protocol": "element", "port": 9003, "dof": 1,
    "stiffness": [ [ 1e6 ] ] } ] }
EOF
}
site_file "$work/site.json"
for ((i = 1; i <= 8; i++)); do
	sed "s/\"name\": \"s\"/\"name\": \"s$i\"/" "$work/site.json" \
		> "$work/site$i.json"
done

# Namespaces and sites for N sites with links of RTT ms; PORT of each
# site behind its link.
bed() {			# N RTT PORT
	local n=$1 rtt=$2 port=$3 i
	netns_up "$n" "$work/bed-$n-$rtt-$port"
	for ((i = 1; i <= n; i++)); do
		netns_spawn "$i" "site$i" "$site" -q "$work/site$i.json"
		netns_wait_port "$i" "$port"
		netns_link "$i" "$port" -f raw \
			-e "delay both $(awk -v r="$rtt" 'BEGIN { print r / 2 }')"
	done
}

# ------------------------------------------------- rths-coord: rate
echo "bench-dist: rths-coord, numerical sites, each behind a link of the given round trip"
printf '%7s %5s %-9s %6s %9s %9s %9s %11s\n' rtt_ms sites mode steps \
	step_ms steps/s floor_ms floor/step
declare -A MEAN
for rtt in "${RTTS[@]}"; do
	for n in "${SITES[@]}"; do
		steps=${STEPS[$rtt]}
		chain_experiment "$n" "$steps" "$work/chain$n-$steps.json" \
			site_keys
		bed "$n" "$rtt" 9001
		for mode in parallel serial; do
			out=$work/out-$rtt-$n-$mode
			args=(-q --no-plots --no-reference --reset -o "$out")
			[ $mode = serial ] && args+=(--serial)
			if ! netns_exec coord "$coord" "${args[@]}" \
				"$work/chain$n-$steps.json" \
				> "$out.log" 2>&1; then
				printf '%7d %5d %-9s %6d   rths-coord failed: %s\n' \
					"$rtt" "$n" $mode "$steps" \
					"$(tail -1 "$out.log")"
				continue
			fi
			# the floor: the slowest site's best round trip
			# plus its mean compute time
			read -r step_s floor < <(jq -r \
				'[.step_time.mean_s, ([.sites[] | .round_trip.min_s + .site_compute.mean_s] | max)] | @tsv' \
				"$out/summary.json")
			MEAN[$rtt-$n-$mode]=$step_s
			awk -v r="$rtt" -v n="$n" -v m=$mode -v k="$steps" \
				-v s="$step_s" -v f="$floor" 'BEGIN {
				printf "%7d %5d %-9s %6d %9.3f %9.1f %9.3f %10.1f%%\n",
					r, n, m, k, s * 1e3, 1 / s, f * 1e3,
					100 * f / s }'
		done
		netns_down
	done
done
echo
echo "bench-dist: serial against parallel (step time ratio)"
printf '%7s' rtt_ms
for n in "${SITES[@]}"; do printf ' %9s' "$n site(s)"; done
echo
for rtt in "${RTTS[@]}"; do
	printf '%7d' "$rtt"
	for n in "${SITES[@]}"; do
		awk -v s="${MEAN[$rtt-$n-serial]:-0}" \
			-v p="${MEAN[$rtt-$n-parallel]:-0}" \
			'BEGIN { if (s > 0 && p > 0) printf " %8.2fx", s / p
				 else printf " %9s", "-" }'
	done
	echo
done

# ------------------------------------------ messages per step
echo
echo "bench-dist: one substructure, OpenFresco's messages per step against one native round trip"
echo "(the proxy ACKs at once, so a Nagle sender is not held back by the link as a real one would be)"
printf '%7s %-30s %6s %10s %9s %9s %12s\n' rtt_ms protocol steps \
	bytes/step step_ms steps/s "vs native"
for rtt in "${RTTS[@]}"; do
	steps=${STEPS[$rtt]}
	netns_up 1 "$work/msg-$rtt"
	netns_spawn 1 site1 "$site" -q "$work/site1.json"
	netns_wait_port 1 9003
	for p in 1 2 3; do
		netns_spawn 1 "relay-$p" "$FAULTPROXY" -n "relay$p" -f raw \
			"$(netns_site_addr 1):$((9010 + p))" "127.0.0.1:$((9000 + p))"
		netns_wait_port 1 $((9010 + p))
		netns_spawn coord "link-$p" "$FAULTPROXY" -n "link$p" -f raw \
			-e "delay both $(awk -v r="$rtt" 'BEGIN { print r / 2 }')" \
			"127.0.0.1:$((9110 + p))" \
			"$(netns_site_addr 1):$((9010 + p))"
		netns_wait_port coord $((9110 + p))
	done
	native=
	for pr in native:1:"native (STEP, RESULT)" a:2:"A: ShadowExpSite 3, 6, 5" \
		  c:3:"C: GenericClient 3, 10, 5"; do
		IFS=: read -r proto p label <<< "$pr"
		line=$(netns_exec coord "$client" -P "$proto" -N s1 \
			-s "$steps" "127.0.0.1:$((9110 + p))")
		ms=$(awk '{ for (i = 1; i < NF; i++) if ($i == "mean") print $(i + 1) }' \
			<<< "$line")
		by=$(awk '{ for (i = 1; i < NF; i++) if ($i == "bytes/step") print $(i + 1) }' \
			<<< "$line")
		[ -n "$native" ] || native=$ms
		awk -v r="$rtt" -v l="$label" -v k="$steps" -v m="$ms" \
			-v b="$native" -v y="$by" 'BEGIN {
			printf "%7d %-30s %6d %10d %9.3f %9.1f %11.2fx\n",
				r, l, k, y, m, 1000 / m, m / b }'
	done
	netns_down
done
