#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fault matrix of a distributed test (issue 8, section 5): a
# coordinator and three numerical sites, each in its own network namespace
# with a faultproxy on its link (tests/dist/netns.sh).  First the
# undisturbed run; then, each on a fresh test bed:
#
#   kill      a site is killed (SIGKILL) mid-test and restarted: the
#             coordinator replays its history to it
#   stall     a link forwards nothing for longer than the step timeout:
#             the step is re-issued
#   coord     the coordinator is killed mid-test and resumed from its
#             journal
#   drop      a RESULT is lost (the connection then breaks): the step is
#             re-issued and the site answers it from its cache
#   tls       the same over TLS (pre-shared keys): the TLS record that
#             carries a RESULT is lost
#
# and the rest of the fault policy (Documentation/distributed-testing.rst,
# one test a row):
#
#   device    pier 2 answers ERROR device from step 50 on (tests/dist/
#             testpeer errsite): its device gets step 50 once, every site
#             is told to end the test, exit status 4
#   replay    pier 2 restarted with another stiffness: the replay differs,
#             the run stops (6); with "replay": {"on_mismatch": "warn"} it
#             goes on (0)
#   auth      a wrong pre-shared key: one connection a link, "authentication
#             failed", exit status 5
#   refused   the file names a substructure the site does not serve: ERROR
#             unknown, exit status 3 at once
#   gone      pier 3 never comes back: max_retries reconnects with backoff,
#             then exit status 3
#   flood     300 connects to pier 2's port while the coordinator's session
#             to it is reset: the run finishes; the slowest reconnect and a
#             probe's answer time are printed
#   sigint    SIGINT to the coordinator: exit status 130
#
# RUNS (default: all) selects sections by name, e.g. RUNS="device auth".
#
# Each time the final response history (history-exact.txt, every double
# in %a) must equal the undisturbed run's byte for byte, and the sites'
# reports at exit ("steps executed E, cached C, replayed R") must show that
# no step was executed twice: a site that ran the whole test executed
# each step once; a restarted one executed the rest once after its replay.
#
# Usage: faults.sh RESULTS_DIR WORK_DIR   (TAP on stdout; root)
# Binaries: RTHS_COORD, RTHS_SITE, FAULTPROXY, TESTPEER (defaults under
# build/plain).
set -uo pipefail

results=${1:?usage: faults.sh RESULTS_DIR WORK_DIR}
work=${2:?usage: faults.sh RESULTS_DIR WORK_DIR}
RTHS_COORD=${RTHS_COORD:-build/plain/tools/rths-coord}
RTHS_SITE=${RTHS_SITE:-build/plain/tools/rths-site}
FAULTPROXY=${FAULTPROXY:-build/plain/tests/dist/faultproxy}
TESTPEER=${TESTPEER:-build/plain/tests/dist/testpeer}
RUNS=${RUNS:-reference kill stall coord drop tls device replay auth refused gone flood sigint}
export FAULTPROXY
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/dist/netns.sh
source "$here/netns.sh"

NSITES=3
SITE_PORT=9001
TIMEOUT=0.3		# the coordinator's step timeout (s)
STALL=1.2		# a stall of 4 step timeouts (s)
BREAK_MS=600		# a dropped RESULT breaks its connection 2 timeouts later
TEST_ID=0x5eed0001	# the same test id every run: the sites' logs agree

ntest=0 nfail=0
tap() {			# RESULT NAME [DIAGNOSTIC...]
	local r=$1 name=$2
	shift 2
	ntest=$((ntest + 1))
	if [ "$r" = ok ]; then
		echo "ok $ntest $name"
	else
		nfail=$((nfail + 1))
		echo "not ok $ntest $name"
	fi
	local d
	for d in "$@"; do
		[ -n "$d" ] && printf '# %s\n' "${d//$'\n'/$'\n'# }"
	done
	return 0
}

rm -rf "$work"
mkdir -p "$work" "$results"
echo "TAP version 13"
if ! netns_can; then
	echo "1..0 # SKIP network namespaces need root and ip(8)"
	exit 0
fi
for b in "$RTHS_COORD" "$RTHS_SITE" "$FAULTPROXY" "$TESTPEER"; do
	if [ ! -x "$b" ]; then
		echo "1..0 # SKIP $b is not built"
		exit 0
	fi
done

run() {			# NAME: is section NAME selected?
	case " $RUNS " in *" $1 "*) return 0 ;; esac
	return 1
}

# The bridge of the tests: three piers with bilinear springs, so that a
# replay that missed a step would show in the forces.
exp=$work/bridge3.json
cat > "$exp" <<EOF
{
  "name": "bridge3",
  "model": {
    "type": "matrices",
    "mass": [ 2000, 2000, 2000 ],
    "stiffness": [ [ 1.3e6, -0.8e6, 0 ], [ -0.8e6, 1.6e6, -0.8e6 ],
                   [ 0, -0.8e6, 1.3e6 ] ],
    "damping": { "type": "rayleigh", "ratio": 0.02, "modes": [ 1, 2 ] }
  },
  "substructure": {
    "command_map": [ [ 1, 0, 0 ], [ 0, 1, 0 ], [ 0, 0, 1 ] ]
  },
  "specimen": {
    "stiffness": 0,
    "nonlinear": [
      { "type": "bilinear", "stiffness": 1.2e6, "yield_force": 1500 },
      { "type": "bilinear", "stiffness": 1.6e6, "yield_force": 2000 },
      { "type": "bilinear", "stiffness": 1.0e6, "yield_force": 1200 }
    ]
  },
  "device": { "rate": 1024, "step_ticks": 8 },
  "ground_motion": { "file": "$(cd "$here/../data" && pwd)/elcentro-ns-1940.AT2" },
  "duration": 3,
  "integrator": { "method": "cr" },
  "sites": [
$(for ((i = 1; i <= NSITES; i++)); do
	printf '    { "name": "pier%d", "port": %d, "dofs": [ %d ], "step_timeout": %s, "give_up": 30 }%s\n' \
		"$i" "$(netns_port "$i")" $((i - 1)) "$TIMEOUT" \
		"$([ "$i" -lt $NSITES ] && echo ,)"
done)
  ]
}
EOF
ks=(0 1.2e6 1.6e6 1.0e6)
fy=(0 1500 2000 1200)
for ((i = 1; i <= NSITES; i++)); do
	cat > "$work/pier$i.json" <<EOF
{ "substructures": [ { "name": "pier$i", "protocol": "native",
  "port": $SITE_PORT, "dof": 1, "stiffness": [ [ 0 ] ],
  "elements": [ { "type": "bilinear", "dofs": [ 0, -1 ],
    "stiffness": ${ks[i]}, "yield_force": ${fy[i]} } ] } ] }
EOF
	sed 's/"protocol": "native",/& "tls": true,/' "$work/pier$i.json" \
		> "$work/pier$i-tls.json"
done
# psktool's format: identity:hex key
printf 'coord:%s\n' "$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')" \
	> "$work/keys.psk"
exp_tls=$work/bridge3-tls.json
sed 's/"give_up": 30 }/"give_up": 30, "tls": { "psk_file": "keys.psk", "psk_identity": "coord" } }/' \
	"$exp" > "$exp_tls"

# A fresh test bed for run NAME: namespaces, sites, links (TLS=1: the
# sites speak TLS with pre-shared keys, the proxies cut TLS records).
TLS=0
bed_up() {
	local name=$1 i frames=native
	shift
	[ $TLS = 1 ] && frames=tls
	netns_up $NSITES "$work/$name" || return 1
	for ((i = 1; i <= NSITES; i++)); do
		site_start "$i" || return 1
		# 2 ms round trips: the faults land mid-test
		netns_link "$i" $SITE_PORT -f $frames -s "$i" \
			-e "delay both 1" "$@" || return 1
	done
}

# PEER2: a command that stands in for pier 2's rths-site (testpeer).
PEER2=
site_start() {		# I [FILE]: rths-site of pier I in its namespace
	# one log per run of the site: site1.<time>.log
	local tls=()
	local suffix=
	[ $TLS != 0 ] && tls=(--psk "$work/keys.psk") suffix=-tls
	if [ "$1" = 2 ] && [ -n "$PEER2" ]; then
		# shellcheck disable=SC2086
		netns_spawn 2 "site2.$(date +%s%N)" $PEER2 || return 1
	else
		netns_spawn "$1" "site$1.$(date +%s%N)" "$RTHS_SITE" \
			"${tls[@]}" "${2:-$work/pier$1$suffix.json}" || return 1
	fi
	netns_wait_port "$1" $SITE_PORT
}

site_name() {		# I -> the netns_spawn name of its running site
	local e
	for e in "${NETNS_PIDS[@]}"; do
		case ${e%%:*} in site"$1".*) echo "${e%%:*}"; return ;; esac
	done
}

# COORD_ARGS: more options for the next runs of the coordinator.
COORD_ARGS=()
coord_run() {		# OUT [ARGS...]: the coordinator in its namespace
	local out=$1
	shift
	netns_exec coord "$RTHS_COORD" -q --no-plots --test-id $TEST_ID \
		--reset -o "$out" "${COORD_ARGS[@]}" "$@" "$(experiment)"
}

# EXP: another experiment file for the next runs.
EXP=
experiment() {
	if [ -n "$EXP" ]; then echo "$EXP"
	elif [ $TLS != 0 ]; then echo "$exp_tls"; else echo "$exp"; fi
}

coord_spawn() {		# OUT [ARGS...]: in the background, as "coord"
	local out=$1
	shift
	netns_spawn coord coord "$RTHS_COORD" -q --no-plots \
		--test-id $TEST_ID --reset -o "$out" "${COORD_ARGS[@]}" "$@" \
		"$(experiment)"
}

# Wait until link I has carried at least N records down (the WELCOME,
# then a RESULT a step); AT is then the step the link is at.
AT=0
wait_records() {
	local i=$1 n=$2 k got pid
	for ((k = 0; k < 600; k++)); do
		# the coordinator gave up: no use waiting
		pid=$(netns_pid coord) && ! kill -0 "$pid" 2>/dev/null &&
			return 1
		got=$(netns_fault "$i" stats 2>/dev/null |
			sed -n 's/.*down records \([0-9]*\).*/\1/p')
		AT=$((${got:-1} - 1))
		[ -n "$got" ] && [ "$got" -ge "$n" ] && return 0
		sleep 0.02
	done
	return 1
}

# The run of test NAME with a fault mid-test: the coordinator in the
# background (-v), and once link I has carried half the steps, the command
# FAULT...; ST is then the coordinator's exit status, AT the step the
# fault came at, and the sites are stopped.
run_with_fault() {	# NAME I FAULT...
	local name=$1 i=$2
	shift 2
	coord_spawn "$work/$name/out" -v
	if wait_records "$i" "$half"; then
		"$@" > /dev/null
	fi
	wait "$(netns_pid coord)"
	st=$?
	sites_stop
}

# The site's results are held from step HALF on (faultproxy's hold), so
# the kill lands there however fast the run goes; released for the new
# site's connection.
kill_and_restart() {	# I
	netns_stop "$(site_name "$1")" KILL
	sleep 0.5
	netns_fault "$1" stall down 0 >/dev/null
	site_start "$1"
}

# Stop every site (SIGTERM: each logs its counts) and collect
# "executed cached replayed" of pier I over all its runs into REPORT[I].
declare -A REPORT
sites_stop() {
	local i e f
	for ((i = 1; i <= NSITES; i++)); do
		e=$(site_name "$i")
		[ -n "$e" ] && netns_stop "$e"
		REPORT[$i]=$(for f in "$NETNS_DIR"/site"$i".[0-9]*.log; do
			sed -n 's/.*pier[0-9]*: steps executed \([0-9]*\), cached \([0-9]*\), replayed \([0-9]*\).*/\1 \2 \3/p' "$f"
		done)
	done
}

# The history equals the reference's, byte for byte.
same_history() {	# NAME DIR
	if cmp -s "$ref/history-exact.txt" "$2/history-exact.txt"; then
		tap ok "$1: the history equals the undisturbed run's bit for bit"
	else
		tap fail "$1: the history equals the undisturbed run's bit for bit" \
			"$(cmp "$ref/history-exact.txt" "$2/history-exact.txt" 2>&1 | head -1)"
	fi
}

# Every step executed once at pier I: its processes' executed and
# replayed counts say so (the last process executed what was not replayed;
# earlier processes' counts are lost to SIGKILL and not reported).
once_each() {		# NAME I EXPECT_CACHED(any|some)
	local name=$1 i=$2 want=$3 e=0 c=0 r=0 line ok=ok
	local -a v
	while read -r line; do
		[ -n "$line" ] || continue
		read -ra v <<< "$line"
		e=$((e + v[0])) c=$((c + v[1])) r=$((r + v[2]))
	done <<< "${REPORT[$i]}"
	[ $((e + r)) -eq "$nsteps" ] && [ "$e" -ge 1 ] || ok=fail
	[ "$want" = some ] && [ "$c" -lt 1 ] && ok=fail
	tap $ok "$name: pier$i executed every step once (executed $e + replayed $r = $nsteps steps, $c cached answers)"
}

# ------------------------------------------------------------ reference
ref=$work/reference/out
bed_up reference || exit 1
coord_run "$ref" > "$work/reference/coord.log" 2>&1
st=$?
sites_stop
nsteps=$(sed -n 's/.*"steps_done": *\([0-9]*\).*/\1/p' \
	"$ref/summary.json" 2>/dev/null)
nsteps=${nsteps:-0}
if [ $st -eq 0 ] && [ "$nsteps" -gt 100 ]; then
	tap ok "reference: undisturbed run of $nsteps steps, 3 sites"
else
	tap fail "reference: undisturbed run (exit $st, $nsteps steps)" \
		"$(tail -3 "$work/reference/coord.log")"
fi
netns_down
half=$((nsteps / 2))

# ------------------------------------------------------------ kill
if run kill; then
bed_up kill
netns_fault 2 hold down "$((half + 1))" >/dev/null
run_with_fault kill 2 kill_and_restart 2
r=fail
[ $st -eq 0 ] && grep -qi replay "$NETNS_DIR/coord.log" && r=ok
tap $r \
	"kill: pier2 killed near step $AT of $nsteps and restarted; the coordinator replayed it" \
	"$(grep -i replay "$NETNS_DIR/coord.log" | head -2)"
same_history kill "$work/kill/out"
once_each kill 2 any
netns_down
fi

# ------------------------------------------------------------ stall
if run stall; then
bed_up stall
run_with_fault stall 3 netns_fault 3 stall down $STALL
r=fail
[ $st -eq 0 ] && grep -qiE 're-?issu' "$NETNS_DIR/coord.log" && r=ok
tap $r \
	"stall: link 3 stalled for 4 step timeouts near step $AT of $nsteps; the step was re-issued" \
	"$(grep -iE 're-?issu' "$NETNS_DIR/coord.log" | head -2)"
same_history stall "$work/stall/out"
once_each stall 3 some
netns_down
fi

# ------------------------------------------------------------ coord
if run coord; then
# 5 ms a way: the kill lands mid-test even in a slow (sanitized) build
bed_up coord -e "delay both 5"
coord_spawn "$work/coord/out"
if wait_records 1 "$half"; then
	netns_stop coord KILL
fi
journaled=$(grep -c '^step ' "$work/coord/out/journal.txt")
coord_run "$work/coord/out" --resume "$work/coord/out/journal.txt" \
	> "$work/coord/coord-resume.log" 2>&1
st=$?
sites_stop
r=fail
[ $st -eq 0 ] && [ "$journaled" -gt 0 ] && [ "$journaled" -lt "$nsteps" ] &&
	r=ok
tap $r "coord: the coordinator killed after $journaled of $nsteps steps journaled resumed from its journal" \
	"$(tail -2 "$work/coord/coord-resume.log")"
same_history coord "$work/coord/out"
netns_down
fi

# ------------------------------------------------------------ drop
# The RESULT of step half + 1 on link 1 is lost, and the connection only
# breaks two step timeouts later: the coordinator re-sends the STEP on the
# same session first (its answer is lost too, the stream being broken),
# then reconnects; the site answers the step from its cache.
if run drop; then
bed_up drop -b $BREAK_MS
netns_fault 1 drop down $((half + 2)) >/dev/null	# + the WELCOME
coord_run "$work/drop/out" -v > "$NETNS_DIR/coord.log" 2>&1
st=$?
sites_stop
r=fail
[ $st -eq 0 ] && grep -q "dropped record" "$NETNS_DIR/link1.log" && r=ok
tap $r \
	"drop: the RESULT of step $((half + 1)) on link 1 was lost; the run completed" \
	"$(grep "dropped record" "$NETNS_DIR/link1.log")"
same_history drop "$work/drop/out"
once_each drop 1 some
netns_down
fi

# ------------------------------------------------------------ tls
# Over TLS the proxies cut TLS records: the next record down link 2 after
# half the test, a RESULT, is lost; the connection breaks at once.
if run tls; then
TLS=1
bed_up tls
run_with_fault tls 2 netns_fault 2 drop down 1
r=fail
[ $st -eq 0 ] && grep -q "dropped record" "$NETNS_DIR/link2.log" && r=ok
tap $r "tls: over TLS, a record lost on link 2 near step $AT; the run completed" \
	"$(grep "dropped record" "$NETNS_DIR/link2.log")"
same_history tls "$work/tls/out"
once_each tls 2 some
r=fail
grep -q "listening.*TLS" "$NETNS_DIR"/site1.[0-9]*.log &&
	! grep -q "plain TCP" "$NETNS_DIR"/site1.[0-9]*.log && r=ok
tap $r "tls: the sites served TLS only" \
	"$(grep -h "listening" "$NETNS_DIR"/site1.[0-9]*.log)"
netns_down
TLS=0
fi

# shellcheck source=tests/dist/policy.sh
source "$here/policy.sh"

# The sanitized builds (make dist-check runs them too) report nothing.
reports=$(grep -l -E 'AddressSanitizer|LeakSanitizer|runtime error' \
	"$work"/*/*.log 2>/dev/null)
tap "$([ -z "$reports" ] && echo ok || echo fail)" \
	"no sanitizer report in any site's, link's or coordinator's log" \
	"$reports"

echo "1..$ntest"
echo "# $((ntest - nfail)) passed, $nfail failed"
[ $nfail -eq 0 ]
