#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench-dist-scale (also in make bench): rths-coord driving 1, 8, 16,
# 32 and 64 numerical rths-site sites in parallel, each site in its own
# network namespace behind its own link of a 20 ms round trip.  The links
# are TUN pairs of one tundelay process (bench/dist/tundelay.c, one poll
# loop for all of them): every packet held 10 ms each way, nothing
# acknowledged early, so the segments and ACKs are the coordinator's and
# the sites' own; the coordinator dials each site's own address over TLS
# (pre-shared keys: plain TCP is loopback only), with no proxy in between.
#
# First, the link itself: the best round trip of one site over a veth
# pair and over tundelay at 0 ms, and how long tundelay held a packet
# past its time.  Then, per site count, the time:
#   step_ms      the mean step (summary.json's step_time: from posting
#                the step to the last site's answer)
#   floor_ms     the slowest site's best round trip plus its mean compute
#                time (as bench-dist.sh defines it)
#   step/floor   how close the step gets to the floor (goal <= 1.05)
#   p50/floor    the same for the median step (steps.csv): without the
#                few steps that a loaded machine stalls
#   period/floor the wall time from step to step (between the samples
#                below) against the floor: the step plus the coordinator's
#                own work between steps, the journal's fdatasync included
#   loop_us      the mean, over the steps, of the step less the slowest
#                site's round trip in it (steps.csv): what the
#                coordinator's poll loop adds to the link (sending to N
#                sites one after another, then taking the last answer)
#   late_us      how late past its time tundelay wrote a packet, on
#                average and at most (its loop's wake-up, all links)
# and the cost:
#   cpu_us/step  rths-coord's CPU per step: its threads' time on a CPU
#                (/proc/PID/task/*/schedstat, to the ns) between two
#                steps it journaled, 1/8 and 7/8 of the way, over the
#                steps between them: setup and outputs do not count
#   cpu_us/site  the same per step and per site
#   load         cpu per step over the period: the share of one CPU that
#                the coordinator's single poll loop keeps busy
#   hwm_kib      rths-coord's peak resident memory (VmHWM) at 7/8
#   kib/site     its growth per site over the fewest sites' run
#   site_kib     one site process's resident memory (VmRSS) after the run
# Last, whether the loop's share grows with the sites, and at how many
# sites, by its cost per site, it would take 5 % of a 20 ms step.  All of
# it twice: rths-coord and the sites as plain processes, then at
# SCHED_FIFO 5 (chrt), ahead of whatever else the machine runs, so that
# what the loop costs shows apart from what a loaded machine costs.
# rths-coord takes at most RTHS_HS_MAX_INTERFACE sites (256: one
# interface coordinate each, include/rths/hs_backend.h); larger counts are
# skipped, saying so.  Nothing is asserted: the numbers are the machine's.
#
# Usage: bench-dist-scale.sh RTHS_COORD RTHS_SITE TUNDELAY WORKDIR
# BENCH_DIST_QUICK=1 runs fewer steps (a smoke run); BENCH_DIST_SITES,
# the site counts ("8": tests/dist/scale.sh); BENCH_DIST_PASSES, which of
# the two passes ("other fifo");
# BENCH_DIST_COORD_ARGS adds options to rths-coord (--no-journal-sync).
set -euo pipefail

coord=$1 site=$2 work=$4
export TUNDELAY=$3
# shellcheck source=bench/dist/common.sh
source bench/dist/common.sh
dist_need_root bench-dist-scale

SITES=(1 8 16 32 64)
RTT_MS=20
K=200			# about 3 s of 20 ms steps between the samples
K_LINK=400		# the link alone (0 ms), 1 site
if [ -n "${BENCH_DIST_QUICK:-}" ]; then
	SITES=(1 8)
	K=24 K_LINK=40
fi
[ -z "${BENCH_DIST_SITES:-}" ] || read -ra SITES <<< "$BENCH_DIST_SITES"
PORT=9001
MAX_SITES=$(awk '$2 == "RTHS_HS_MAX_INTERFACE" { print $3 }' \
	include/rths/hs_backend.h)

rm -rf "$work"
mkdir -p "$work"
# psktool's format: identity:hex key
printf 'coord:%s\n' "$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')" \
	> "$work/keys.psk"
for ((i = 1; i <= ${SITES[-1]}; i++)); do
	cat > "$work/site$i.json" <<EOF
{ "substructures": [ { "name": "s$i", "protocol": "native", "tls": true,
  "address": "$(netns_site_addr "$i")", "port": $PORT, "dof": 1,
  "stiffness": [ [ 1e6 ] ] } ] }
EOF
done

# the coordinator dials site I at its own address, over TLS
site_keys() {		# I
	printf '"address": "%s", "port": %d, "tls": { "psk_file": "keys.psk", "psk_identity": "coord" }' \
		"$(netns_site_addr "$1")" $PORT
}

# N sites, each behind a link of DELAY ms each way (none: veth pairs).
bed() {			# N DIR [DELAY]
	local n=$1 i
	netns_up "$n" "$2" ${3:+"$3"}
	for ((i = 1; i <= n; i++)); do
		netns_spawn "$i" "site$i" "${RT[@]}" "$site" -q \
			--psk "$work/keys.psk" "$work/site$i.json"
	done
	for ((i = 1; i <= n; i++)); do
		netns_wait_port "$i" $PORT
	done
}

# rths-coord on N sites for STEPS steps into OUT; 0, or 1 with its last
# line of error in OUT.log.  With SAMPLE, OUT.cpu gets "STEPS_A CPU_A
# WALL_A HWM_A STEPS_B CPU_B WALL_B HWM_B": the steps journaled, its CPU
# (ns), the time (s) and its VmHWM (KiB) at about 1/8 and 7/8 of the
# steps.
run() {			# N STEPS OUT [SAMPLE]
	local exp=$work/chain$1-$2.json pid a b s
	[ -f "$exp" ] || chain_experiment "$1" "$2" "$exp" site_keys
	# ip netns exec, not the function netns_exec: it execs rths-coord
	# (chrt too), so $! is rths-coord's pid
	# shellcheck disable=SC2086
	ip netns exec "$(netns_name coord)" "${RT[@]}" "$coord" -q --no-plots \
		--no-reference --reset ${BENCH_DIST_COORD_ARGS:-} -o "$3" \
		"$exp" > "$3.log" 2>&1 &
	pid=$!
	if [ -n "${4:-}" ]; then
		a=$(($2 / 8 > 2 ? $2 / 8 : 2)) b=$(($2 - $2 / 8))
		for s in $a $b; do
			sample "$pid" "$3/journal.txt" "$s" || break
		done > "$3.cpu"
	fi
	wait "$pid"
}

# When rths-coord PID has journaled STEPS steps: the steps, its CPU time
# in ns, the time and its VmHWM in KiB; 1 if it ended first.
sample() {		# PID JOURNAL STEPS
	local lines=() t cpu=0 f
	while kill -0 "$1" 2>/dev/null; do
		[ -f "$2" ] && mapfile -t lines < "$2"
		# 3 lines of header, then one a step
		if [ $((${#lines[@]} - 3)) -ge "$3" ]; then
			for f in /proc/"$1"/task/*/schedstat; do
				read -r t _ < "$f" && cpu=$((cpu + t))
			done
			printf '%d %d %s ' $((${#lines[@]} - 3)) "$cpu" \
				"$EPOCHREALTIME"
			awk '/^VmHWM:/ { printf "%d ", $2 }' "/proc/$1/status"
			return 0
		fi
		sleep 0.02
	done
	return 1
}

# tundelay's lateness from its log: "MEAN/MAX" in us (-ONE: MEAN only).
late() {		# LOG [-one]
	awk -v one="${2:-}" '/late past/ {
		if (one != "") printf "%.1f", $(NF - 7)
		else printf "%.0f/%.0f", $(NF - 7), $(NF - 3) }' "$1"
}

RT=()			# a command rths-coord and the sites run under

# ------------------------------------------------------------ the link
for link in veth tun0; do
	if [ $link = veth ]; then bed 1 "$work/bed-link-$link"
	else bed 1 "$work/bed-link-$link" 0; fi
	if run 1 $K_LINK "$work/link-$link"; then
		jq -r '.sites[0].round_trip.min_s' \
			"$work/link-$link/summary.json" > "$work/link-$link.min"
	fi
	netns_down
done
echo "bench-dist-scale: rths-coord, numerical sites over TLS, each behind its own link of $RTT_MS ms round trip (tundelay: packets held both ways, no early ACK)"
awk -v k=$K_LINK -v v="$(cat "$work/link-veth.min" 2>/dev/null)" \
    -v t="$(cat "$work/link-tun0.min" 2>/dev/null)" \
    -v l="$(late "$work/bed-link-tun0/tundelay.log" -one)" 'BEGIN {
	if (v == "" || t == "") { print "link: the 0 ms runs failed"; exit }
	printf "link: best round trip (1 site, %d steps) over veth %.1f us, over tundelay at 0 ms %.1f us (%+.1f us); tundelay wrote each packet %s us after reading it\n",
		k, v * 1e6, t * 1e6, (t - v) * 1e6, l }'
awk -v k=$K -v d="$DT_TICKS" 'BEGIN {
	printf "(%d steps of %.4g ms of the test each, as fast as the links allow)\n",
		k, d * 1000 / 1024 }'

# The table of every site count, rths-coord and the sites run as
# "${RT[@]}" says; their files are OUT-TAG-N, BED-TAG-N.
scale() {		# TAG LABEL
	local tag=$1 label=$2 n out site_kib step_s floor_s p50_s loop_s \
		ka ca wa kb cb wb hwm dk dc w hwm1='' n1=''
	local TIME=() COST=() NS=() LOOP=() P50=()
	for n in "${SITES[@]}"; do
		if [ -n "$MAX_SITES" ] && [ "$n" -gt "$MAX_SITES" ]; then
			TIME+=("$(printf '%5d   skipped: rths-coord takes at most %d sites (RTHS_HS_MAX_INTERFACE)' \
				"$n" "$MAX_SITES")")
			continue
		fi
		bed "$n" "$work/bed-$tag-$n" "$(awk -v r=$RTT_MS 'BEGIN { print r / 2 }')"
		out=$work/out-$tag-$n
		if ! run "$n" $K "$out" sample; then
			TIME+=("$(printf '%5d   rths-coord failed: %s' "$n" \
				"$(tail -1 "$out.log")")")
			netns_down
			continue
		fi
		site_kib=$(awk '/^VmRSS:/ { print $2 }' \
			"/proc/$(netns_pid site1)/status" 2>/dev/null || echo 0)
		netns_down
		read -r step_s floor_s < <(jq -r \
			'[.step_time.mean_s, ([.sites[] | .round_trip.min_s + .site_compute.mean_s] | max)] | @tsv' \
			"$out/summary.json")
		# the median step; the mean of each step less its slowest round trip
		p50_s=$(awk -F, 'NR > 1 { print $3 / 1e3 }' "$out/steps.csv" |
			sort -g | awk '{ v[NR] = $1 } END {
				print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
		loop_s=$(awk -F, 'NR > 1 {
			m = 0
			for (i = 4; i <= NF; i += 4)	# s<i>_rtt_ms
				if ($i > m)
					m = $i
			d += $3 - m; k++
		} END { printf "%.9g", k ? d / k / 1e3 : 0 }' "$out/steps.csv")
		read -r ka ca wa _ kb cb wb hwm < "$out.cpu" || true
		[ -n "$hwm1" ] || hwm1=${hwm:-0} n1=$n
		NS+=("$n") LOOP+=("$loop_s") P50+=("$(awk -v m="$p50_s" -v f="$floor_s" \
			'BEGIN { printf "%.3f", m / f }')")
		dk=$((${kb:-0} - ${ka:-0})) dc=$((${cb:-0} - ${ca:-0}))
		w=$(awk -v a="${wa:-0}" -v b="${wb:-0}" 'BEGIN { print b - a }')
		TIME+=("$(awk -v n="$n" -v s="$step_s" -v f="$floor_s" -v m="$p50_s" \
			-v dk=$dk -v w="$w" -v o="$loop_s" \
			-v l="$(late "$work/bed-$tag-$n/tundelay.log")" 'BEGIN {
			per = dk > 0 ? w / dk : 0
			printf "%5d %8.3f %8.3f %9.3fx %8.3fx %11.3fx %8.1f %12s",
				n, s * 1e3, f * 1e3, s / f, m / f, per / f, o * 1e6, l }')")
		COST+=("$(awk -v n="$n" -v dk=$dk -v c=$dc -v w="$w" -v h="${hwm:-0}" \
			-v h1="$hwm1" -v n1="$n1" -v sk="$site_kib" 'BEGIN {
			cps = dk > 0 ? c / dk / 1e9 : 0
			per = dk > 0 ? w / dk : 0
			printf "%5d %11.1f %11.2f %5.1f%% %8d %8s %8d",
				n, cps * 1e6, cps * 1e6 / n,
				(per > 0 ? 100 * cps / per : 0), h,
				(n > n1 ? sprintf("%.1f", (h - h1) / (n - n1)) : "-"),
				sk }')")
	done

	echo "$label:"
	printf '%5s %8s %8s %10s %9s %12s %8s %12s\n' sites step_ms floor_ms \
		step/floor p50/floor period/floor loop_us late_us
	printf '%s\n' "${TIME[@]}"
	echo
	printf '%5s %11s %11s %6s %8s %8s %8s\n' sites cpu_us/step cpu_us/site \
		load hwm_kib kib/site site_kib
	[ ${#COST[@]} -eq 0 ] || printf '%s\n' "${COST[@]}"
	echo

	# Whether the loop's share grows with the sites: the median's ratio
	# (the mean's follows the machine's stalls), and the loop's cost per
	# site (a line through the loop_us of the fewest and the most sites).
	if [ ${#NS[@]} -ge 2 ]; then
		awk -v n0="${NS[0]}" -v n1="${NS[-1]}" -v l0="${LOOP[0]}" \
		    -v l1="${LOOP[-1]}" -v r0="${P50[0]}" -v r1="${P50[-1]}" \
		    -v rtt=$RTT_MS 'BEGIN {
			per = (l1 - l0) / (n1 - n0)
			printf "scale: p50/floor %.3fx at %d site(s), %.3fx at %d; the loop adds %.1f us a step per site",
				r0, n0, r1, n1, per * 1e6
			if (per > 0)
				printf ", 5%% of a %d ms step at about %d sites", rtt,
					0.05 * rtt / 1e3 / per
			printf "\n"
			if (r1 > r0 + 0.05)
				printf "scale: the median step grows with the sites: the single poll loop (or this machine, sites and loop sharing its CPUs) stops holding the floor by %d sites\n", n1
			else
				printf "scale: the median step holds within 0.05 from %d to %d sites: the single poll loop keeps up\n", n0, n1
		}'
	fi
}

for pass in ${BENCH_DIST_PASSES:-other fifo}; do
	case $pass in
	other)
		RT=()
		scale other "rths-coord and the sites as plain processes (SCHED_OTHER)"
		;;
	fifo)
		# the endpoints ahead of the machine's other work (tundelay,
		# the link, stays above them at 10)
		RT=(chrt -f 5)
		scale fifo "rths-coord and the sites at SCHED_FIFO 5 (chrt -f 5): the machine's other work out of the way"
		;;
	*)
		echo "bench-dist-scale: BENCH_DIST_PASSES: '$pass': expected other or fifo" >&2
		exit 2
		;;
	esac
done
