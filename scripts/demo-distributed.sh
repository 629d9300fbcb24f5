#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo-distributed: the four-pier bridge of examples/bridge/ under El
# Centro 1940 NS.  The deck is rths-coord's numerical model; each pier is
# a substructure at its own rths-site, in its own network namespace, on a
# link with its own delay (a faultproxy; tests/dist/netns.sh).  Piers 1
# and 4 are numerical, piers 2 and 3 devices (DEMO_DEVICES):
#
#   sim        sim cards (manual clock, fixed seed) on this machine, if its
#              kernel is the one the modules were built for and may load
#              them
#   guest      sim cards, each pier in its own QEMU test guest (stock
#              kernel) run in the pier's namespace, reached through the
#              guest's TCP forward (tests/vm/run-vm.sh --net-ns --hostfwd)
#   offline    librths's offline model of the sim card, on this machine
#   numerical  numerical stand-ins of the same stiffness
#   auto       (default) sim, else guest, else offline: the first this
#              machine and this rths-site can do; numerical if rths-site
#              serves no device over the native protocol
#
# Usage: demo-distributed.sh OUTDIR RTHS_COORD RTHS_SITE FAULTPROXY
#                            KMOD_STOCK KMOD_RT
# Environment: DEMO_RTT="2 5 10 20" the round trip of each link in ms,
# DEMO_DURATION seconds of the record (default: the example's, 10 s),
# DEMO_DEVICES as above; O and KVER for run-vm.sh (make sets them).
#
# In the guest: demo-distributed.sh --guest RWDIR KMOD RTHS_SITE FAULTPROXY
# SITE_FILE serves one pier until RWDIR/done appears.
set -euo pipefail

# ------------------------------------------------------------ guest
if [ "${1:-}" = --guest ]; then
	rw=$2 kmod=$3 site=$4 proxy=$5 file=$6
	grep -q '^rths ' /proc/modules || insmod "$kmod/kernel/rths.ko"
	grep -q '^rths_sim ' /proc/modules ||
		insmod "$kmod/kernel/cards/rths_sim.ko"
	# The site speaks plain TCP on loopback only; a relay takes QEMU's
	# forward (to 10.0.2.15:8090) there, as on the host.
	"$site" "$file" > "$rw/site.log" 2>&1 &
	spid=$!
	"$proxy" -n guest-relay -f raw 0.0.0.0:8090 127.0.0.1:9001 \
		> "$rw/relay.log" 2>&1 &
	ppid=$!
	for ((i = 0; i < 300; i++)); do
		ss -Hltn 'sport = :9001' | grep -q . && break
		kill -0 $spid 2>/dev/null || break
		sleep 0.1
	done
	if ! ss -Hltn 'sport = :9001' | grep -q .; then
		touch "$rw/failed"
		kill $ppid 2>/dev/null || true
		exit 1
	fi
	touch "$rw/ready"
	while [ ! -e "$rw/done" ] && kill -0 $spid 2>/dev/null; do
		sleep 1
	done
	kill $spid $ppid 2>/dev/null || true
	wait $spid || true
	exit 0
fi

# ------------------------------------------------------------ host
out=$1 coord=$2 site=$3 kstock=$5 krt=$6
export FAULTPROXY=$4
read -ra rtt <<< "${DEMO_RTT:-2 5 10 20}"
mode=${DEMO_DEVICES:-auto}
ex=examples/bridge
if [ ${#rtt[@]} -ne 4 ]; then
	echo "demo-distributed: DEMO_RTT: expected 4 round trips in ms, one per pier" >&2
	exit 2
fi
case $mode in
auto | sim | guest | offline | numerical) ;;
*)	echo "demo-distributed: DEMO_DEVICES=$mode: expected auto, sim, guest, offline or numerical" >&2
	exit 2 ;;
esac
if [ "$(id -u)" -ne 0 ]; then
	echo "demo-distributed: the sites run in network namespaces: run it as root" >&2
	exit 1
fi
# shellcheck source=tests/dist/netns.sh
source tests/dist/netns.sh

rm -rf "$out"
mkdir -p "$out/sites"
netns_up 4 "$out/sites"

# The modules of this machine's kernel, if it may load them.
native_kmod() {
	local krel
	krel=$(uname -r)
	[ "$(cat /proc/sys/kernel/modules_disabled 2>/dev/null)" = 0 ] ||
		return 1
	case $krel in
	*-rt-amd64) k=$krt ;;
	*) k=$kstock ;;
	esac
	[ -f "$k/kernel/rths.ko" ] &&
		[ "$krel" = "$(modinfo -F vermagic "$k/kernel/rths.ko" |
			cut -d' ' -f1)" ] && echo "$k"
}

# Start pier I's site from FILE in its namespace; 1 if it does not listen.
site_up() {
	netns_spawn "$1" "site$1" "$site" "$2"
	netns_wait_port "$1" 9001 2>/dev/null && return 0
	netns_stop "site$1"
	return 1
}

# Pier I in its own guest: QEMU in the pier's namespace forwards its
# 127.0.0.1:9001 to the guest's relay.
guest_up() {
	local i=$1 rw k
	rw=$out/guest$i
	mkdir -p "$rw"
	tests/vm/run-vm.sh --timeout 3600 --net-ns "$(netns_name "$i")" \
		--hostfwd 127.0.0.1:9001:8090 --log "$rw/console.log" \
		stock "$rw" -- scripts/demo-distributed.sh --guest "$rw" \
		"$kstock" "$site" "$FAULTPROXY" "$ex/pier$i-sim.json" \
		> "$rw/run-vm.out" 2>&1 &
	NETNS_PIDS+=("guest$i:$!")
	for ((k = 0; k < 1800; k++)); do
		[ -e "$rw/ready" ] && return 0
		[ -e "$rw/failed" ] && break
		kill -0 "$(netns_pid "guest$i")" 2>/dev/null || break
		sleep 0.5
	done
	echo "demo: pier$i: the guest did not serve it (see $rw/)" >&2
	return 1
}

# Piers 1 and 4: numerical.  Piers 2 and 3: by mode.
for i in 1 4; do
	site_up "$i" "$ex/pier$i.json"
done
devices=$mode
if [ "$mode" != numerical ]; then
	# Does this rths-site serve a device over the native protocol?
	if ! site_up 2 "$ex/pier2.json"; then
		echo "demo: rths-site serves no device over the native protocol: $(tail -1 "$out/sites/site2.log")"
		devices=numerical
	else
		netns_stop site2
	fi
fi
if [ "$devices" = auto ]; then
	if [ -n "$(native_kmod)" ]; then
		devices=sim
	elif grep -q -- --hostfwd tests/vm/run-vm.sh &&
	     [ -n "${O:-}" ] && [ -f "$kstock/kernel/rths.ko" ]; then
		devices=guest
	else
		devices=offline
	fi
fi
case $devices in
sim)
	kmod=$(native_kmod) || {
		echo "demo-distributed: this kernel ($(uname -r)) cannot load the modules" >&2
		exit 1
	}
	grep -q '^rths ' /proc/modules || insmod "$kmod/kernel/rths.ko"
	grep -q '^rths_sim ' /proc/modules ||
		insmod "$kmod/kernel/cards/rths_sim.ko"
	for i in 2 3; do site_up "$i" "$ex/pier$i-sim.json"; done
	what="sim card on this machine's kernel" ;;
guest)
	echo "demo: piers 2 and 3 boot a QEMU guest each (Debian's stock kernel, software emulation): this takes a while"
	for i in 2 3; do guest_up "$i"; done
	what="sim card in a QEMU guest" ;;
offline)
	for i in 2 3; do site_up "$i" "$ex/pier$i.json"; done
	what="offline model of the sim card" ;;
numerical)
	for i in 2 3; do site_up "$i" "$ex/pier$i-numerical.json"; done
	what="numerical stand-in" ;;
esac
for i in 1 2 3 4; do
	half=$(awk -v r="${rtt[i - 1]}" 'BEGIN { print r / 2 }')
	netns_link "$i" 9001 -f native -s "$i" -e "delay both $half"
	kind=numerical
	[ "$i" = 2 ] || [ "$i" = 3 ] && kind=$what
	echo "demo: pier$i ($kind) at its own site, link round trip ${rtt[i - 1]} ms"
done

args=()
[ -n "${DEMO_DURATION:-}" ] && args+=(-t "$DEMO_DURATION")
echo "demo: rths-coord drives the four sites (progress below)"
rc=0
# its summary is printed below, once the guests are down: not twice
netns_exec coord "$coord" "${args[@]}" -o "$out" "$ex/bridge.json" \
	>/dev/null || rc=$?
# The guests stop their sites (which log their counts) and power off.
for i in 2 3; do
	[ -d "$out/guest$i" ] || continue
	touch "$out/guest$i/done"
	pid=$(netns_pid "guest$i") || continue
	for ((k = 0; k < 120; k++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.5
	done
done
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
