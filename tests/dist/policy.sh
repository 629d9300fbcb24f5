# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The fault policy's rows (Documentation/distributed-testing.rst) that the
# fault matrix's runs above do not already cover; sourced by faults.sh,
# with its test bed, helpers and reference run.  Each asserts counts and
# exit statuses, never times; the times it prints are for the reader.

elapsed() {		# START_NS -> "1.234 s"
	echo "$(( ($(date +%s%N) - $1) / 1000000 )) ms"
}

# The coordinator's summary.json field of site I (1-based) or of the run.
connections() {		# SITE -> the connections its fault proxy saw
	netns_fault "$1" stats 2>/dev/null |
		sed -n 's/.*connections \([0-9]*\).*/\1/p'
}
summary() {		# DIR JQ_FILTER
	jq -r "$2" "$1/summary.json" 2>/dev/null
}

# ------------------------------------------------------------ device
# Pier 2 answers ERROR device to step 50 and after: the coordinator never
# sends that step again (the peer counts how often it came), tells every
# site to end the test (BYE), and exits 4 naming the site, step and reason.
if run device; then
PEER2="$TESTPEER errsite $SITE_PORT 50"
bed_up device
t0=$(date +%s%N)
coord_run "$work/device/out" > "$NETNS_DIR/coord.log" 2>&1
st=$? took=$(elapsed "$t0")
sites_stop
peer=$(cat "$NETNS_DIR"/site2.[0-9]*.log | grep '^hello ')
byes=$(grep -h "BYE: test" "$NETNS_DIR"/site[13].[0-9]*.log | wc -l)
r=fail
[ $st -eq 4 ] && [[ "$peer" == *"step-50 1 "* ]] && r=ok
tap $r "device: pier2's device refused step 50: it got step 50 once, exit status 4 (was $st, in $took)" \
	"testpeer: $peer" "$(grep -E 'device|refused' "$NETNS_DIR/coord.log" | head -4)"
r=fail
[[ "$peer" == *" bye 1" ]] && [ "$byes" -eq 2 ] && r=ok
tap $r "device: every site was told to end the test (BYE: pier2 and $byes of the 2 others)"
r=fail
grep -q "pier2: the device refused step 50: ERROR device: step 50: the actuator is interlocked" \
	"$NETNS_DIR/coord.log" && [ "$(summary "$work/device/out" .fault)" = device ] &&
	r=ok
tap $r "device: the log names the site, the step and the reason; summary.json says fault \"device\""
netns_down
PEER2=
fi

# ------------------------------------------------------------ replay
# Pier 2 is killed mid-test and restarted with another stiffness: its
# replay answers other forces than the first run.  By default the run
# stops (6); with "replay": {"on_mismatch": "warn"} it goes on (0).
if run replay; then
sed 's/"stiffness": 1.6e6/"stiffness": 1.65e6/' "$work/pier2.json" \
	> "$work/pier2-stiff.json"
restart_stiff() {
	netns_stop "$(site_name 2)" KILL
	sleep 0.5
	site_start 2 "$work/pier2-stiff.json"
}
bed_up replay
run_with_fault replay 2 restart_stiff
r=fail
[ $st -eq 6 ] && grep -q "pier2: replay: step .* gave force" \
	"$NETNS_DIR/coord.log" && r=ok
tap $r "replay: pier2 restarted with k = 1.65e6 for 1.6e6: the replay differs, the run stops with status 6 (was $st)" \
	"$(grep -E 'replay' "$NETNS_DIR/coord.log" | head -3)"
netns_down
sed 's/^  "sites": \[/  "replay": { "on_mismatch": "warn" },\n&/' "$exp" \
	> "$work/bridge3-warn.json"
EXP=$work/bridge3-warn.json
bed_up replay-warn
run_with_fault replay-warn 2 restart_stiff
r=fail
[ $st -eq 0 ] && grep -q "warning: replay: step" "$NETNS_DIR/coord.log" &&
	r=ok
tap $r "replay: with \"on_mismatch\": \"warn\" the run goes on with a warning (status $st)" \
	"$(grep -E 'replay' "$NETNS_DIR/coord.log" | head -3)"
netns_down
EXP=
fi

# ------------------------------------------------------------ auth
# A wrong pre-shared key: named at once, never retried.
if run auth; then
printf 'coord:%s\n' "$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')" \
	> "$work/wrong.psk"
sed 's/"psk_file": "keys.psk"/"psk_file": "wrong.psk"/' "$exp_tls" \
	> "$work/bridge3-wrongkey.json"
TLS=1
EXP=$work/bridge3-wrongkey.json
bed_up auth
t0=$(date +%s%N)
coord_run "$work/auth/out" > "$NETNS_DIR/coord.log" 2>&1
st=$? took=$(elapsed "$t0")
conns=0
for i in 1 2 3; do
	c=$(connections "$i")
	[ "${c:-0}" -gt "$conns" ] && conns=${c:-0}
done
sites_stop
r=fail
[ $st -eq 5 ] && [ "$conns" -eq 1 ] &&
	grep -q "authentication failed" "$NETNS_DIR/coord.log" && r=ok
tap $r "auth: a wrong PSK: \"authentication failed\", exit status 5 (was $st), at most $conns connection a link, in $took" \
	"$(grep -m2 authentication "$NETNS_DIR/coord.log")"
netns_down
TLS=0 EXP=
fi

# ------------------------------------------------------------ refused
# The site does not serve the substructure the file names: ERROR unknown
# ends the run at once (3), without a retry.
if run refused; then
sed 's/"name": "pier3", /&"substructure": "pier9", /' "$exp" \
	> "$work/bridge3-unknown.json"
EXP=$work/bridge3-unknown.json
bed_up refused
coord_run "$work/refused/out" > "$NETNS_DIR/coord.log" 2>&1
st=$?
conns=$(connections 3)
sites_stop
r=fail
[ $st -eq 3 ] && [ "${conns:-0}" -eq 1 ] &&
	grep -q "ERROR unknown" "$NETNS_DIR/coord.log" && r=ok
tap $r "refused: ERROR unknown from pier3: exit status 3 (was $st) after ${conns:-0} connection" \
	"$(grep -m1 unknown "$NETNS_DIR/coord.log")"
netns_down
EXP=
fi

# ------------------------------------------------------------ gone
# Pier 3 is killed and never restarted: the coordinator reconnects with
# backoff, max_retries times, then exits 3.
if run gone; then
bed_up gone
COORD_ARGS=(--max-retries 4)
run_with_fault gone 3 netns_stop "$(site_name 3)" KILL
COORD_ARGS=()
reconnects=$(summary "$work/gone/out" '.sites[2].reconnects')
r=fail
[ $st -eq 3 ] && grep -q "max_retries 4), giving up" "$NETNS_DIR/coord.log" &&
	[ "${reconnects:-0}" -eq 5 ] && r=ok
tap $r "gone: pier3 gone for good: $reconnects sessions lost, then exit status 3 (was $st)" \
	"$(grep -m2 -E 'giving up|reconnecting' "$NETNS_DIR/coord.log")"
netns_down
fi

# ------------------------------------------------------------ flood
# 300 connects to pier 2's port hold still while the coordinator's
# session to it is reset: its reconnect must not wait for a SYN retry
# behind them.  The run finishes with the undisturbed history; printed:
# the coordinator's slowest reconnect to pier 2 and the time from a
# probe's connect to the site's answer to its HELLO, halfway through the
# burst (with a listen backlog of 16: over 1 s, a SYN retry).
if run flood; then
bed_up flood
coord_spawn "$work/flood/out" -v
probe=
if wait_records 2 "$half"; then
	netns_exec 2 "$TESTPEER" flood $SITE_PORT 300 3 pier2 \
		> "$NETNS_DIR/flood.out" 2>&1 &
	fpid=$!
	netns_fault 2 reset > /dev/null
	wait $fpid
	probe=$(grep '^probe:' "$NETNS_DIR/flood.out")
fi
wait "$(netns_pid coord)"
st=$?
sites_stop
slowest=$(summary "$work/flood/out" '.sites[1].slowest_reconnect_s')
r=fail
[ $st -eq 0 ] && grep -q "300 connects" "$NETNS_DIR/flood.out" && r=ok
tap $r "flood: 300 connects to pier2 during the run, its session reset: the run finished (status $st); slowest reconnect ${slowest:-?} s; $probe" \
	"$(cat "$NETNS_DIR/flood.out")"
same_history flood "$work/flood/out"
netns_down
fi

# ------------------------------------------------------------ sigint
# SIGINT: the coordinator stops, writes its outputs and exits 130; the
# sites keep the test for --resume.
if run sigint; then
bed_up sigint
coord_spawn "$work/sigint/out"
if wait_records 1 "$half"; then
	kill -INT "$(netns_pid coord)"
fi
wait "$(netns_pid coord)"
st=$?
sites_stop
r=fail
[ $st -eq 130 ] && [ "$(summary "$work/sigint/out" .interrupted)" = true ] &&
	r=ok
tap $r "sigint: SIGINT mid-test: exit status 130 (was $st), summary.json says interrupted"
netns_down
fi
