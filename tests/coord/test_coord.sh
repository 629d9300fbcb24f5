#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# rths-coord on loopback: a coordinator and three rths-site processes
# serving the numerical hysteretic piers of examples/distributed.  Every
# disturbed run must give the undisturbed run's history bit for bit
# (history-exact.txt, C99 hex floats), and no site may execute a step
# twice (its exit line counts executed, cached and replayed steps).
#
# Usage: test_coord.sh RTHS_COORD RTHS_SITE EXAMPLES_DIR (rths-run beside
# RTHS_SITE: the all-numerical run the 24-site test is checked against)
# No wall-clock thresholds: faults are timed by the journal's progress
# and by stopping a process (SIGSTOP), never by how fast a step is.
set -u

COORD=$1
SITE=$2
EX=$3
T=$(mktemp -d /tmp/rths-coord-test.XXXXXX)
N=0
FAILS=0
STEPS=4096		# 40 s of record at 10/1024 s a step

cleanup() {
	for f in "$T"/*.pid; do
		[ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
	done
	rm -rf "$T"
}
trap cleanup EXIT INT TERM

ok() {
	N=$((N + 1))
	echo "ok $N - $1"
}

notok() {
	N=$((N + 1))
	FAILS=$((FAILS + 1))
	echo "not ok $N - $1"
}

# check DESCRIPTION COMMAND...: one TAP line.
check() {
	d=$1
	shift
	if "$@"; then ok "$d"; else notok "$d"; fi
}

# wait_for FILE PATTERN: up to 60 s for a line to appear.
wait_for() {
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 6000 ] && return 1
		sleep 0.01
	done
}

# wait_steps JOURNAL N: until the journal holds step N.
wait_steps() {
	wait_for "$1" "^step $2 "
}

# start_site I PORT: pier I on PORT (0: any free one); sets its port.
start_site() {
	sed -e "s/\"port\": 910$1/\"port\": $2/" -e "${SITE_SED:-}" \
		"$EX/site-pier$1.json" > "$T/site$1.json"
	: > "$T/site$1.log"
	"$SITE" ${SITE_ARGS:-} "$T/site$1.json" 2>> "$T/site$1.log" &
	echo $! > "$T/site$1.pid"
	wait_for "$T/site$1.log" "listening on" || return 1
	eval "PORT$1=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' \
		"$T/site$1.log" | tail -n 1)"
}

# stop_site I: SIGTERM, wait; its last counts line is in site I's log.
stop_site() {
	kill -TERM "$(cat "$T/site$1.pid")" 2>/dev/null
	wait "$(cat "$T/site$1.pid")" 2>/dev/null
	rm -f "$T/site$1.pid"
}

start_sites() {
	start_site 1 0 && start_site 2 0 && start_site 3 0 || {
		echo "Bail out! rths-site did not start: $(cat "$T"/site*.log)"
		exit 1
	}
	sed -e "s/\"port\": 9101/\"port\": $PORT1/" \
	    -e "s/\"port\": 9102/\"port\": $PORT2/" \
	    -e "s/\"port\": 9103/\"port\": $PORT3/" \
	    -e "s/\"duration\": 10/\"duration\": 40/" \
		"$EX/bridge.json" > "$T/bridge.json"
}

# with_tls SED_EXPR: the test's bridge with a "tls" object in each site.
with_tls() {
	sed "s/\"dofs\": \[\([0-9]\)\] }/\"dofs\": [\1], \"tls\": $1 }/" \
		"$T/bridge.json" > "$T/bridge-tls.json"
}

# A key file (psktool's format) and a CA with a site and a client
# certificate, made for this test only.
make_credentials() {
	key=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
	echo "coord:$key" > "$T/keys.psk"
	key=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
	echo "coord:$key" > "$T/wrong.psk"
	k="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
	openssl req -x509 $k -keyout "$T/ca.key" -out "$T/ca.pem" -days 2 \
		-subj /CN=rths-test-ca 2>/dev/null || return 1
	echo "subjectAltName=DNS:localhost,IP:127.0.0.1" > "$T/ext"
	for n in site coord; do
		openssl req $k -keyout "$T/$n.key" -out "$T/$n.csr" \
			-subj /CN=$n 2>/dev/null &&
		openssl x509 -req -in "$T/$n.csr" -CA "$T/ca.pem" \
			-CAkey "$T/ca.key" -CAcreateserial -out "$T/$n.pem" \
			-days 2 -extfile "$T/ext" 2>/dev/null || return 1
	done
}

stop_sites() {
	stop_site 1
	stop_site 2
	stop_site 3
}

# counts I: "executed cached replayed" of site I's last exit line.
counts() {
	sed -n 's/.*steps executed \([0-9]*\), cached \([0-9]*\), replayed \([0-9]*\).*/\1 \2 \3/p' \
		"$T/site$1.log" | tail -n 1
}

# json_top DIR FIELD: a top-level field of summary.json.
json_top() {
	python3 -c 'import json,sys
print(json.load(open(sys.argv[1] + "/summary.json"))[sys.argv[2]])' "$1" "$2"
}

# json_site DIR SITE FIELD: a per-site counter of summary.json.
json_site() {
	python3 -c 'import json,sys
s = json.load(open(sys.argv[1] + "/summary.json"))
print([x for x in s["sites"] if x["name"] == sys.argv[2]][0][sys.argv[3]])' \
		"$1" "$2" "$3"
}

same_history() {
	cmp -s "$T/a/history-exact.txt" "$1/history-exact.txt"
}

# run OPTIONS...: the coordinator on the test's bridge (or on $EXP), its
# log in $T/coord-TEST_ID.log.  No fdatasync of the journal (a few ms a
# step on a disk): run_bg, which the kill tests use, keeps it.
run() {
	"$COORD" -q --no-plots --no-journal-sync --test-id "$TEST_ID" "$@" \
		"${EXP:-$T/bridge.json}" 2>> "$T/coord-$TEST_ID.log"
}

# run_bg OPTIONS...: the same in the background, its pid in CPID (the
# coordinator's own, not a subshell's: the tests signal it).
run_bg() {
	"$COORD" -q --no-plots --test-id "$TEST_ID" "$@" "$T/bridge.json" \
		2>> "$T/coord-$TEST_ID.log" &
	CPID=$!
}

echo "TAP version 13"
echo "1..51"

# ------------------------------------------------------------ undisturbed
start_sites
TEST_ID=0x1001
run -o "$T/a" --no-reference
check "an undisturbed run completes" [ $? -eq 0 ]
check "it ran every step" [ "$(grep -c '^step ' "$T/a/journal.txt")" -eq $STEPS ]
check "its journal ends" [ "$(tail -n 1 "$T/a/journal.txt")" = end ]
stop_sites
check "each site executed every step once, none cached or replayed" \
	[ "$(counts 1)" = "$STEPS 0 0" -a "$(counts 2)" = "$STEPS 0 0" \
	  -a "$(counts 3)" = "$STEPS 0 0" ]

# The sign convention: the piers' forces enter as restoring forces, so
# the response matches the all-numerical structure with the piers inside.
start_sites
TEST_ID=0x1002
run -o "$T/ref"
check "the sites' response equals the all-numerical reference (to 1e-6 %)" \
	python3 -c 'import json,sys
s = json.load(open(sys.argv[1]))
sys.exit(not all(d["ref_rms_pct"] < 1e-6 and d["peak_m"] > 0.01 for d in s["dofs"]))' \
	"$T/ref/summary.json"
check "the piers yielded (the loops are hysteretic)" \
	python3 -c 'import sys
rows = [l.split() for l in open(sys.argv[1]) if not l.startswith("#")]
# f_meas of pier 1 against its stiffness 6e6: below it once yielded
f = [abs(float.fromhex(r[-3])) for r in rows]
x = [abs(float.fromhex(r[-6])) for r in rows]
sys.exit(not any(xi > 0.025 and fi < 0.95 * 6e6 * xi for xi, fi in zip(x, f)))' \
	"$T/ref/history-exact.txt"

# The same with a story drift (x = u2 - u1, the force back through T^T).
cat > "$T/story-site.json" <<EOF
{ "substructures": [ { "name": "story2", "protocol": "native", "port": 0,
  "dof": 1, "stiffness": [[1.0e6]], "elements": [ { "type": "bilinear",
  "dofs": [0, -1], "stiffness": 5.0e5, "yield_force": 6.0e3,
  "post_yield_ratio": 0.05 } ] } ] }
EOF
"$SITE" "$T/story-site.json" 2> "$T/story.log" &
echo $! > "$T/story.pid"
wait_for "$T/story.log" "listening on"
SP=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$T/story.log")
cat > "$T/story.json" <<EOF
{ "name": "story",
  "model": { "type": "shear_building", "stories": [
    { "mass": 1000, "stiffness": 1.19e6 }, { "mass": 1000, "stiffness": 1.5e6 } ],
    "damping": { "type": "rayleigh", "ratio": 0.05 } },
  "substructure": { "experimental_stories": [1] },
  "specimen": { "stiffness": 1.0e6, "nonlinear": { "type": "bilinear",
    "stiffness": 5.0e5, "yield_force": 6.0e3, "post_yield_ratio": 0.05 } },
  "device": { "backend": "offline", "rate": 1024, "step_ticks": 5 },
  "ground_motion": { "synthetic": { "seed": 3, "duration": 8, "pga_g": 0.5 } },
  "integrator": { "method": "cr" },
  "sites": [ { "name": "story2", "port": $SP, "dofs": [0] } ] }
EOF
"$COORD" -q -j --no-plots -o "$T/story" "$T/story.json" > "$T/story.out" \
	2>> "$T/coord-story.log"
check "a story-drift substructure runs" [ $? -eq 0 ]
check "-j prints the summary.json it wrote, and nothing else, on stdout" \
	cmp -s "$T/story.out" "$T/story/summary.json"
check "its response equals the all-numerical reference (to 1e-6 %)" \
	python3 -c 'import json,sys
s = json.load(open(sys.argv[1]))
sys.exit(not all(d["ref_rms_pct"] < 1e-6 and d["peak_m"] > 0.005 for d in s["dofs"]))' \
	"$T/story/summary.json"
kill -TERM "$(cat "$T/story.pid")"
wait "$(cat "$T/story.pid")" 2>/dev/null
rm -f "$T/story.pid"

# ------------------------------------------------------------- 24 sites
# More interface coordinates than librths's experiment holds (16): one
# rths-site serves 24 numerical springs, one a story drift of a 24-story
# shear building (command_map rows u_i - u_(i-1), forces back through
# T^T).  The coordinator's response must equal rths-run's run of the
# same building with the springs in its stories (an experiment with no
# substructure, read by librths alone), and its own reference.
W=24
python3 - "$T" $W <<'PY'
import json, sys
t, n = sys.argv[1], int(sys.argv[2])
subs = [{"name": "w%d" % i, "protocol": "native", "port": 0, "dof": 1,
         "stiffness": [[1.0e6]]} for i in range(n)]
json.dump({"substructures": subs}, open(t + "/wide-site.json", "w"))
common = {"device": {"backend": "offline", "rate": 1024, "step_ticks": 5},
          "ground_motion": {"synthetic": {"seed": 3, "duration": 4,
                                          "pga_g": 0.3}},
          "integrator": {"method": "cr"}}
T = [[1 if j == i else -1 if j == i - 1 else 0 for j in range(n)]
     for i in range(n)]
coord = dict(common, name="wide", model={"type": "shear_building",
    "stories": [{"mass": 1000, "stiffness": 5.0e5}] * n},
    substructure={"command_map": T}, specimen={"stiffness": 1.0e6})
json.dump(coord, open(t + "/wide-coord.json", "w"))
full = dict(common, name="wide-full", model={"type": "shear_building",
    "stories": [{"mass": 1000, "stiffness": 1.5e6}] * n})
json.dump(full, open(t + "/wide-full.json", "w"))
PY
"$SITE" "$T/wide-site.json" 2> "$T/wide.log" &
echo $! > "$T/wide.pid"
i=0
while [ "$(grep -c "listening on" "$T/wide.log")" -lt $W ] && [ $i -lt 6000 ]; do
	i=$((i + 1))
	sleep 0.01
done
# the sites' ports, in the order rths-site names them (w0 .. w23)
python3 - "$T" $W <<'PY'
import json, re, sys
t, n = sys.argv[1], int(sys.argv[2])
port = dict(re.findall(r"(w\d+): listening on 127\.0\.0\.1:(\d+)",
                       open(t + "/wide.log").read()))
x = json.load(open(t + "/wide-coord.json"))
x["sites"] = [{"name": "w%d" % i, "port": int(port["w%d" % i]),
               "dofs": [i]} for i in range(n)]
json.dump(x, open(t + "/wide.json", "w"))
PY
"$COORD" -q --no-plots --no-journal-sync -o "$T/wide" "$T/wide.json" \
	2>> "$T/coord-wide.log"
check "rths-coord runs $W sites, one interface coordinate each" [ $? -eq 0 ]
"$(dirname "$SITE")/rths-run" -q --no-plots -o "$T/wide-full" \
	"$T/wide-full.json" 2>> "$T/coord-wide.log"
check "$W sites: the response equals rths-run's all-numerical building (to 1e-7 of the peak) and the coordinator's reference (1e-6 %)" \
	python3 -c 'import csv, json, sys
rows = [l.split() for l in open(sys.argv[1]) if not l.startswith("#")]
n = int(sys.argv[3])
u = [[float.fromhex(v) for v in r[2:2 + n]] for r in rows]
full = list(csv.DictReader(open(sys.argv[2])))
ref = [[float(r["u%d_m" % (i + 1)]) for i in range(n)] for r in full]
peak = max(abs(v) for r in ref for v in r)
worst = max(abs(a - b) for ra, rb in zip(u, ref) for a, b in zip(ra, rb))
s = json.load(open(sys.argv[4]))
print("# %d steps, peak %.4g m, worst difference %.3g m" % (len(u) - 1, peak, worst))
sys.exit(not (len(u) == len(ref) == 820 and peak > 1e-3 and
              worst < 1e-7 * peak and len(s["sites"]) == n and
              all(d["ref_rms_pct"] < 1e-6 for d in s["dofs"])))' \
	"$T/wide/history-exact.txt" "$T/wide-full/history.csv" $W \
	"$T/wide/summary.json"
kill -TERM "$(cat "$T/wide.pid")"
wait "$(cat "$T/wide.pid")" 2>/dev/null
rm -f "$T/wide.pid"

# ---------------------------------------------------------------- serial
TEST_ID=0x1003
run -o "$T/b" --serial --no-reference
check "a serial run completes" [ $? -eq 0 ]
check "serial and parallel give the same history, bit for bit" \
	same_history "$T/b"

# the live view: each site's round trip, re-issues and reconnects
TEST_ID=0x1010
"$COORD" -q --no-plots --no-journal-sync --test-id "$TEST_ID" -o "$T/lv" \
	--no-reference --live 127.0.0.1:0 --live-linger 3 "$T/bridge.json" \
	2> "$T/coord-live.log" &
LPID=$!
wait_for "$T/coord-live.log" "live view at"
URL=$(sed -n 's/.*live view at //p' "$T/coord-live.log")
for _ in $(seq 300); do
	curl -s -m 2 "${URL}summary.json" > "$T/live-summary.json"
	grep -q '"state":"done"' "$T/live-summary.json" && break
	sleep 0.05
done
curl -s -m 2 -o "$T/live-page.html" "$URL"
wait $LPID
st=$?
check "rths-coord --live serves the test, and gives the same history" \
	test $st -eq 0 -a -n "$(same_history "$T/lv" && echo same)"
check "the view shows each site's round trip, re-issues and reconnects" \
	python3 -c 'import json,sys
s = json.load(open(sys.argv[1]))
sys.exit(not (s["step"] == int(sys.argv[2]) and len(s["sites"]) == 3 and
	all(x["rtt_mean_ms"] > 0 and x["reissues"] == 0 and
	    x["reconnects"] == 0 for x in s["sites"])))' \
	"$T/live-summary.json" "$STEPS"
check "its page lists the sites' table" grep -q 'id="sites"' "$T/live-page.html"
stop_sites

# -------------------------------------------- a site killed and restarted
start_sites
TEST_ID=0x1004
run_bg -o "$T/c" --no-reference
wait_steps "$T/c/journal.txt" 500
kill -STOP "$(cat "$T/site2.pid")"
kill -KILL "$(cat "$T/site2.pid")"
wait "$(cat "$T/site2.pid")" 2>/dev/null
start_site 2 "$PORT2"
wait $CPID
check "a run with a site killed mid-test completes" [ $? -eq 0 ]
check "it gives the undisturbed history, bit for bit" same_history "$T/c"
check "the coordinator replayed the restarted site" \
	[ "$(json_site "$T/c" pier2 replays)" -ge 1 ]
stop_sites
set -- $(counts 2)
check "the restarted site replayed the history and executed the rest once" \
	[ "$3" -ge 500 -a $(($1 + $3)) -eq $STEPS ]

# ------------------------------------ the coordinator killed and resumed
start_sites
TEST_ID=0x1005
run_bg -o "$T/d" --no-reference
wait_steps "$T/d/journal.txt" 500
kill -STOP "$(cat "$T/site1.pid")"
sleep 0.3
kill -KILL $CPID
wait $CPID 2>/dev/null
kill -CONT "$(cat "$T/site1.pid")"
# as if the kill had come in the middle of a line
printf 'step 99999 0x1.4p-6 x 0x1' >> "$T/d/journal.txt"
sed 's/"pga_g": 0.7/"pga_g": 0.71/' "$T/bridge.json" > "$T/changed.json"
"$COORD" -q --resume "$T/d/journal.txt" "$T/changed.json" 2> "$T/bad.log"
check "a journal is not resumed with another experiment file" \
	[ $? -eq 1 -a -n "$(grep 'journal.txt:3: the experiment file changed' "$T/bad.log")" ]
run -o "$T/d2" --resume "$T/d/journal.txt" --no-reference
check "the resumed run completes" [ $? -eq 0 ]
check "it gives the undisturbed history, bit for bit" same_history "$T/d2"
check "the sites one step ahead answered it from their cache" \
	[ $(($(json_site "$T/d2" pier1 cached) + $(json_site "$T/d2" pier2 cached) + \
	     $(json_site "$T/d2" pier3 cached))) -ge 2 ]
stop_sites
check "no site executed a step twice across the two coordinators" \
	[ "$(counts 1 | cut -d' ' -f1,3)" = "$STEPS 0" -a \
	  "$(counts 2 | cut -d' ' -f1,3)" = "$STEPS 0" -a \
	  "$(counts 3 | cut -d' ' -f1,3)" = "$STEPS 0" ]

# ----------------------------------- a site that stops answering a while
start_sites
TEST_ID=0x1006
run_bg -o "$T/e" --no-reference --step-timeout 0.2
wait_steps "$T/e/journal.txt" 500
kill -STOP "$(cat "$T/site3.pid")"
wait_for "$T/coord-$TEST_ID.log" "pier3: no RESULT for step .* re-issuing it"
R=$?
kill -CONT "$(cat "$T/site3.pid")"
wait $CPID
check "a stalled site makes the step time out and re-issue" [ $R -eq 0 ]
check "the run completes with the undisturbed history, bit for bit" \
	same_history "$T/e"
check "the summary counts the re-issue" \
	[ "$(json_site "$T/e" pier3 reissues)" -ge 1 ]
stop_sites
set -- $(counts 3)
check "the stalled site executed every step once and answered the re-issue from its cache" \
	[ "$1" -eq $STEPS -a "$2" -ge 1 -a "$3" -eq 0 ]

# ------------------------------------------ interrupted; the plot script
start_sites
TEST_ID=0x100a
run_bg -o "$T/i" --no-reference
wait_steps "$T/i/journal.txt" 200
kill -INT $CPID
wait $CPID
R=$?
stop_sites
check "SIGINT ends the run with status 130" [ $R -eq 130 ]
check "its summary says interrupted, not failed" \
	[ "$(json_top "$T/i" interrupted) $(json_top "$T/i" failed)" = "True False" ]
check "plots.gp changes no directory" [ -z "$(grep '^cd ' "$T/a/plots.gp")" ]
(cd "$T/a" && gnuplot plots.gp > /dev/null 2>&1)
check "cd DIR && gnuplot plots.gp draws the plots" \
	[ $? -eq 0 -a -s "$T/a/response.png" ]

# -------------------------------------------------------------------- TLS
make_credentials
check "test credentials made (openssl)" [ $? -eq 0 ]
EXP=$T/bridge-tls.json

# tls_run SITE_OPTIONS TLS_OBJECT TEST_ID DIR [OPTIONS...]: fresh sites
# with those options, a run with that "tls" in every site.
tls_run() {
	SITE_ARGS=$1
	start_sites
	with_tls "$2"
	TEST_ID=$3
	d=$4
	shift 4
	run -o "$T/$d" --no-reference "$@"
}

tls_run "--psk $T/keys.psk" \
	'{ "psk_file": "keys.psk", "psk_identity": "coord" }' 0x1007 f
check "a run over TLS with pre-shared keys completes" [ $? -eq 0 ]
check "it gives the plain run's history, bit for bit" same_history "$T/f"
with_tls '{ "psk_file": "wrong.psk", "psk_identity": "coord" }'
TEST_ID=0x1008
run -o "$T/g" --no-reference
R=$?
check "a wrong key fails the run at once (status 5) as an authentication failure of the TLS handshake" \
	[ $R -eq 5 -a -n "$(grep 'pier[0-9]: authentication failed: connect to 127.0.0.1 port [0-9]*: TLS handshake' "$T/coord-$TEST_ID.log")" -a \
	  -z "$(grep 'giving up' "$T/coord-$TEST_ID.log")" ]
stop_sites
check "and the sites executed nothing for it" \
	[ "$(counts 1 | cut -d' ' -f1)" = $STEPS -a "$(counts 2 | cut -d' ' -f1)" = $STEPS ]
# An allow list without "coord": ERROR auth, named, not retried.
SITE_SED='s/"protocol": "native",/& "allow": ["lab2"],/'
tls_run "--psk $T/keys.psk" \
	'{ "psk_file": "keys.psk", "psk_identity": "coord" }' 0x1020 l
R=$?
SITE_SED=
check "a coordinator not on the sites' allow list fails at once (status 5), saying so" \
	[ $R -eq 5 -a -n "$(grep 'pier[0-9]: authentication failed: the site does not let this coordinator in: ERROR auth: not authorized' "$T/coord-0x1020.log")" -a \
	  -z "$(grep 'giving up' "$T/coord-0x1020.log")" ]
stop_sites
tls_run "--ca $T/ca.pem --cert $T/site.pem --key $T/site.key" \
	'{ "ca": "ca.pem", "cert": "coord.pem", "key": "coord.key" }' 0x1009 h
check "a run over TLS with certificates completes" [ $? -eq 0 ]
check "it gives the plain run's history, bit for bit" same_history "$T/h"
with_tls '{ "ca": "ca.pem", "cert": "coord.pem", "key": "coord.key", "server_name": "other.invalid" }'
TEST_ID=0x100b
run -o "$T/k" --no-reference
R=$?
check "a certificate for another name fails the run at once (status 5), saying why" \
	[ $R -eq 5 -a -n "$(grep 'certificate is not accepted: .*does not match.*does not name other.invalid' "$T/coord-$TEST_ID.log")" -a \
	  -z "$(grep 'giving up' "$T/coord-$TEST_ID.log")" ]
stop_sites
check "the sites authenticated the coordinator's certificate" \
	grep -q 'x509 "coord": TLS: authenticated' "$T/site1.log"
SITE_ARGS=
EXP=

# -------------------------------------------------------------- bad files
sed 's/"dofs": \[1\]/"dofs": [0]/' "$T/bridge.json" > "$T/bad-dofs.json"
"$COORD" -q "$T/bad-dofs.json" 2> "$T/bad.log"
check "a coordinate given to two sites is refused, naming the JSON path" \
	[ $? -eq 1 -a -n "$(grep 'bad-dofs.json: \[value\] sites\[1\].dofs\[0\]: interface coordinate 0 belongs to site pier1 already' "$T/bad.log")" ]
sed 's/"address": "127.0.0.1", "port"/"address": "192.0.2.1", "port"/' \
	"$T/bridge.json" > "$T/bad-addr.json"
"$COORD" -q "$T/bad-addr.json" 2> "$T/bad.log"
check "plain TCP to a non-loopback address is refused" \
	[ $? -eq 1 -a -n "$(grep 'sites\[0\].address: .192.0.2.1. is not a loopback address' "$T/bad.log")" ]
sed 's/"dofs": \[2\] }/"dofs": [2], "timeout": 3 }/' "$T/bridge.json" \
	> "$T/bad-key.json"
"$COORD" -q "$T/bad-key.json" 2> "$T/bad.log"
check "an unknown field in a site is refused, naming it" \
	[ $? -eq 1 -a -n "$(grep "bad-key.json: \[field\] sites\[2\]: unknown field 'timeout'" "$T/bad.log")" ]
# past the limits: 257 sites; 257 interface coordinates; a hysteretic
# specimen over 16 coordinates (the coordinator reads those itself)
python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
x = json.load(open(t + "/wide.json"))
many = dict(x, sites=[{"name": "s%d" % i, "port": 9000 + i, "dofs": [i]}
                      for i in range(257)])
json.dump(many, open(t + "/bad-sites.json", "w"))
n = 257
rows = dict(x, substructure={"command_map": [[1 if j == i else 0
    for j in range(24)] for i in range(n)]})
json.dump(rows, open(t + "/bad-rows.json", "w"))
nl = dict(x, specimen={"stiffness": 1e6, "nonlinear": [None] * 24})
json.dump(nl, open(t + "/bad-wide-nl.json", "w"))
PY
"$COORD" -q "$T/bad-sites.json" 2> "$T/bad.log"
check "more than 256 sites are refused, naming the file and the field" \
	[ $? -eq 1 -a -n "$(grep 'bad-sites.json: \[.*\] sites: expected a list of 1 to 256 sites' "$T/bad.log")" ]
"$COORD" -q "$T/bad-rows.json" 2> "$T/bad.log"
check "more than 256 interface coordinates are refused" \
	[ $? -eq 1 -a -n "$(grep 'bad-rows.json: \[.*\] substructure.command_map: expected 1 to 256 rows (interface coordinates), got 257' "$T/bad.log")" ]
"$COORD" -q "$T/bad-wide-nl.json" 2> "$T/bad.log"
check "a hysteretic specimen over 16 interface coordinates is refused" \
	[ $? -eq 1 -a -n "$(grep 'bad-wide-nl.json: \[.*\] specimen.nonlinear: not with more than 16 interface coordinates' "$T/bad.log")" ]
sed 's/"integrator": { "method": "cr" },/&\n  "compensation": { "method": "polynomial", "delay": 0.01 },/' \
	"$T/bridge.json" > "$T/bad-comp.json"
"$COORD" -q "$T/bad-comp.json" 2> "$T/bad.log"
check "compensation in the coordinator is refused" \
	[ $? -eq 1 -a -n "$(grep 'bad-comp.json: \[value\] compensation.method: expected "none"' "$T/bad.log")" ]
sed 's/"integrator": { "method": "cr" },/&\n  "ode_substructures": [ { "type": "chain", "dof": 0, "masses": [1], "stiffness": [1e4], "max_steps": 50 } ],/' \
	"$T/bridge.json" > "$T/bad-ode.json"
"$COORD" -q "$T/bad-ode.json" 2> "$T/bad.log"
check "ODE substructures in the coordinator are refused" \
	[ $? -eq 1 -a -n "$(grep 'bad-ode.json: \[value\] ode_substructures: not run by the coordinator' "$T/bad.log")" ]

if [ $FAILS -ne 0 ]; then
	for f in "$T"/coord-*.log; do
		echo "# $f:"
		sed 's/^/# /' "$f"
	done
fi
echo "# $((N - FAILS)) passed, $FAILS failed"
exit $((FAILS != 0))
