# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The network test bed of the distributed tests, the demo and the bench:
# a namespace for the coordinator and one per site, each site joined to
# the coordinator by its own veth pair, and on each link a faultproxy
# (tests/dist/faultproxy.c) that carries its delay and its faults.
# Source it, then:
#
#   netns_up N DIR [DELAY_MS]
#                           namespaces and links for N sites; logs, control
#                           sockets and pid files go to DIR.  With DELAY_MS
#                           the links are not veth pairs but TUN pairs of
#                           one $TUNDELAY (bench/dist/tundelay.c) that
#                           holds every packet DELAY_MS each way, nothing
#                           acknowledged early (bench-dist-scale); same
#                           addresses, no proxies needed over TLS
#   netns_exec WHERE CMD... run in a namespace: "coord" or a site number
#   netns_spawn WHERE NAME CMD...
#                           start CMD in the background there, its output in
#                           DIR/NAME.log; stopped at netns_down
#   netns_stop NAME [SIG]   stop it (SIGTERM, then SIGKILL after 5 s)
#   netns_link I SITE_PORT [ARGS...]
#                           link I: the coordinator reaches the site's
#                           127.0.0.1:SITE_PORT at 127.0.0.1:$(netns_port I)
#                           in its own namespace, across the veth pair,
#                           through a faultproxy with ARGS (-f, -e ...)
#   netns_fault I COMMAND   a faultproxy command on link I ("stall down 3")
#   netns_port I            the port the coordinator dials for site I
#   netns_down              stop everything, delete the namespaces (also on
#                           exit, by the trap netns_up sets)
#
# Topology, for site i (1..N):
#
#   [coord ns]                                     [site i ns]
#   coordinator -> 127.0.0.1:9100+i                rths-site 127.0.0.1:P
#   faultproxy "link i" -> 10.201.i.2:9000 --veth-- relay "relay i" -> :P
#                 10.201.i.1/24                    10.201.i.2/24
#
# Both ends speak plain TCP on loopback only, as rths-coord and rths-site
# allow it without TLS; the relay (a faultproxy without faults) carries
# the link across the namespaces, and the link's faultproxy injects the
# faults on the coordinator's side.  With TLS the proxies carry the
# records unchanged (-f tls).
# Names carry the shell's pid, so that runs at the same time do not meet.
# Root is needed (ip netns); callers skip when they are not root.  Safe
# under "set -e".

FAULTPROXY=${FAULTPROXY:-build/plain/tests/dist/faultproxy}
TUNDELAY=${TUNDELAY:-build/plain/bench/dist/tundelay}
NETNS_PREFIX=rd$$
NETNS_DIR=
NETNS_N=0
NETNS_PIDS=()		# "name:pid"

netns_name() {		# WHERE -> the namespace's name
	if [ "$1" = coord ]; then
		echo "${NETNS_PREFIX}c"
	else
		echo "${NETNS_PREFIX}s$1"
	fi
}

netns_site_addr() {
	echo "10.201.$1.2"
}

netns_coord_addr() {
	echo "10.201.$1.1"
}

netns_exec() {
	local ns
	ns=$(netns_name "$1")
	shift
	ip netns exec "$ns" "$@"
}

netns_can() {		# 0 if this process may create namespaces
	[ "$(id -u)" -eq 0 ] && command -v ip >/dev/null &&
		ip netns add "${NETNS_PREFIX}probe" 2>/dev/null &&
		ip netns del "${NETNS_PREFIX}probe"
}

netns_up() {
	local n=$1 delay=${3:-} i c s tun=()
	NETNS_DIR=$2
	mkdir -p "$NETNS_DIR"
	trap netns_down EXIT
	trap 'exit 130' INT TERM
	ip netns add "$(netns_name coord)" || return 1
	netns_exec coord ip link set lo up
	for ((i = 1; i <= n; i++)); do
		ip netns add "$(netns_name "$i")" || return 1
		NETNS_N=$i
		netns_exec "$i" ip link set lo up
		c=${NETNS_PREFIX}c$i s=${NETNS_PREFIX}s$i
		if [ -n "$delay" ]; then
			tun+=("$(netns_name coord)/$c" "$(netns_name "$i")/$s")
			continue
		fi
		ip link add "$c" netns "$(netns_name coord)" type veth \
			peer name "$s" netns "$(netns_name "$i")" || return 1
		netns_exec coord ip addr add "$(netns_coord_addr "$i")/24" \
			dev "$c"
		netns_exec coord ip link set "$c" up
		netns_exec "$i" ip addr add "$(netns_site_addr "$i")/24" dev "$s"
		netns_exec "$i" ip link set "$s" up
	done
	[ -n "$delay" ] || return 0
	"$TUNDELAY" "$delay" "${tun[@]}" > "$NETNS_DIR/tundelay.log" 2>&1 &
	NETNS_PIDS+=("tundelay:$!")
	# its devices are made in order: the last one, and all are there
	for ((i = 0; i < 100; i++)); do
		netns_exec "$n" ip link show "${NETNS_PREFIX}s$n" \
			> /dev/null 2>&1 && break
		sleep 0.05
	done
	# IPv4 only: no IPv6 neighbour discovery sent down a link whose far
	# end is not up yet (tundelay would count it dropped)
	for ((i = 1; i <= n; i++)); do
		c=${NETNS_PREFIX}c$i s=${NETNS_PREFIX}s$i
		netns_exec coord sysctl -qw "net.ipv6.conf.$c.disable_ipv6=1"
		netns_exec "$i" sysctl -qw "net.ipv6.conf.$s.disable_ipv6=1"
		netns_exec coord ip addr add "$(netns_coord_addr "$i")" \
			peer "$(netns_site_addr "$i")" dev "$c" || return 1
		netns_exec coord ip link set "$c" up
		netns_exec "$i" ip addr add "$(netns_site_addr "$i")" \
			peer "$(netns_coord_addr "$i")" dev "$s" || return 1
		netns_exec "$i" ip link set "$s" up
	done
}

netns_spawn() {
	local where=$1 name=$2
	shift 2
	# ip itself, not a function, in the background: $! is then the pid
	# of the command (ip netns exec execs it)
	ip netns exec "$(netns_name "$where")" "$@" \
		>"$NETNS_DIR/$name.log" 2>&1 &
	NETNS_PIDS+=("$name:$!")
}

netns_pid() {		# NAME -> its pid, if running
	local e
	for e in "${NETNS_PIDS[@]}"; do
		[ "${e%%:*}" = "$1" ] && { echo "${e#*:}"; return 0; }
	done
	return 1
}

netns_stop() {
	local name=$1 sig=${2:-TERM} pid keep=() e i
	pid=$(netns_pid "$name") || return 0
	kill -"$sig" "$pid" 2>/dev/null || true
	for ((i = 0; i < 50; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	for e in "${NETNS_PIDS[@]}"; do
		[ "${e%%:*}" = "$name" ] || keep+=("$e")
	done
	NETNS_PIDS=("${keep[@]}")
}

# Wait until something in namespace WHERE listens on PORT (5 s).
netns_wait_port() {
	local where=$1 port=$2 i
	for ((i = 0; i < 100; i++)); do
		netns_exec "$where" ss -Hltn "sport = :$port" 2>/dev/null |
			grep -q . && return 0
		sleep 0.05
	done
	echo "netns: nothing listens on port $port in $where" >&2
	return 1
}

netns_port() {
	echo $((9100 + $1))
}

netns_link() {
	local i=$1 up=$2
	shift 2
	netns_spawn "$i" "relay$i" "$FAULTPROXY" -n "relay$i" -f raw \
		"$(netns_site_addr "$i"):9000" "127.0.0.1:$up"
	netns_wait_port "$i" 9000 || return 1
	netns_spawn coord "link$i" "$FAULTPROXY" -n "link$i" \
		-C "$NETNS_DIR/link$i.ctl" "$@" "127.0.0.1:$(netns_port "$i")" \
		"$(netns_site_addr "$i"):9000"
	netns_wait_port coord "$(netns_port "$i")"
}

netns_fault() {
	local i=$1
	shift
	"$FAULTPROXY" -c "$NETNS_DIR/link$i.ctl" "$@"
}

netns_down() {
	local e i
	for e in "${NETNS_PIDS[@]}"; do
		kill -TERM "${e#*:}" 2>/dev/null || true
	done
	for e in "${NETNS_PIDS[@]}"; do
		for ((i = 0; i < 30; i++)); do
			kill -0 "${e#*:}" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "${e#*:}" 2>/dev/null || true
		wait "${e#*:}" 2>/dev/null || true
	done
	NETNS_PIDS=()
	# Anything else still inside (a child of a killed wrapper) goes too.
	for ((i = 0; i <= NETNS_N; i++)); do
		local ns
		[ "$i" -eq 0 ] && ns=$(netns_name coord) || ns=$(netns_name "$i")
		ip netns pids "$ns" 2>/dev/null |
			xargs -r kill -KILL 2>/dev/null || true
		ip netns del "$ns" 2>/dev/null || true
	done
	NETNS_N=0
}
