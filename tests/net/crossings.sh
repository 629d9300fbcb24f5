#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# How often one step of rths-coord crosses between the files of its
# session path (tools/rths-coord/backend.c and tools/net/*.c): a call
# from a function of file A to one of file B is one crossing, its return
# another.  Functions of other files (libc, GnuTLS, librths, the
# coordinator's log and journal) are not counted, nor are the calls made
# through them.  Issue 20, part 4: a step should go down the session
# layer once and come back once.
#
# Usage: tests/net/crossings.sh [BUILD_DIR [MAX_TCP MAX_TLS]]
# (run from the top of the tree after `make tools`; needs uftrace and
# python3; exits 77 without uftrace).  It builds an
# rths-coord with -pg in a scratch directory, runs examples/distributed
# (three sites, half a second of record) over plain TCP and over TLS with
# pre-shared keys under `uftrace record`, and prints the crossings of a
# step (three STEPs out, three RESULTs back; op_post to op_wait's
# return): the fewest of the run's steps from the 11th on, per site too,
# and the mean (a step that takes more poll rounds asks the session
# for its poll events again).  With MAX_TCP and MAX_TLS (per site) it
# is a TAP test that fails when the fewest per site is higher
# (`make crossings-check`).
set -eu

O=${1:-build}
MAX_TCP=${2:-}
MAX_TLS=${3:-}
T=$(mktemp -d /tmp/rths-crossings.XXXXXX)
trap 'for f in "$T"/*.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null; done; rm -rf "$T"' EXIT INT TERM

command -v uftrace > /dev/null || { echo "uftrace is not installed" >&2; exit 77; }

gcc -std=c11 -D_GNU_SOURCE -O2 -g -pg -Iinclude/uapi -Iinclude -Ilib \
	-DRTHS_VERSION='"crossings"' -I/usr/include/suitesparse \
	-o "$T/rths-coord" tools/rths-coord.c tools/rths-coord/*.c \
	tools/common/gnuplot.c tools/common/hsrun.c tools/common/cli.c \
	tools/net/*.c tools/live/*.c "$O/plain/tools/live/page.o" \
	"$O/plain/librths.a" -lgnutls -lmicrohttpd -lmnl -llapacke -llapack \
	-lblas -ljansson -lm -lpthread -lklu

# Which file defines each function of the session path.
nm -l --defined-only "$T/rths-coord" |
	sed -n 's#^[0-9a-f]* [tT] \([A-Za-z0-9_]*\)[.a-z0-9]*\t.*/\(tools/[a-z-]*/[a-z]*\.c\):.*#\1 \2#p' |
	grep -E ' tools/(rths-coord/backend|net/[a-z]*)\.c$' > "$T/files"

key=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
echo "coord:$key" > "$T/keys.psk"

# count NAME MAX SITE_ARGS TLS_SED: one traced run, its crossings
# printed.
count() {
	for i in 1 2 3; do
		sed "s/\"port\": 910$i/\"port\": 0/" \
			"examples/distributed/site-pier$i.json" > "$T/site$i.json"
		# shellcheck disable=SC2086
		"$O/plain/tools/rths-site" $3 "$T/site$i.json" \
			2> "$T/site$i.log" &
		echo $! > "$T/site$i.pid"
	done
	: > "$T/ports.sed"
	for i in 1 2 3; do
		n=0
		while ! grep -q "listening on" "$T/site$i.log"; do
			n=$((n + 1))
			[ $n -gt 500 ] && { cat "$T/site$i.log" >&2; exit 1; }
			sleep 0.01
		done
		p=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' \
			"$T/site$i.log")
		echo "s/\"port\": 910$i/\"port\": $p/" >> "$T/ports.sed"
	done
	sed -f "$T/ports.sed" -e 's/"duration": 10/"duration": 0.5/' -e "$4" \
		examples/distributed/bridge.json > "$T/bridge.json"
	uftrace record -d "$T/data" "$T/rths-coord" -q --no-plots \
		--no-journal --test-id 0x2004 -o "$T/out" "$T/bridge.json" \
		> /dev/null
	for i in 1 2 3; do
		kill "$(cat "$T/site$i.pid")"
		wait "$(cat "$T/site$i.pid")" 2> /dev/null || :
		rm -f "$T/site$i.pid"
	done
	uftrace replay -d "$T/data" -f none --no-libcall |
		python3 -c '
import re, sys
files = dict(l.split() for l in open(sys.argv[1]))
name, limit = sys.argv[2], sys.argv[3]
stack, counts, n, inside = [], [], 0, False
def owner():
	for f in reversed(stack):
		if f in files:
			return files[f]
	return None
for line in sys.stdin:
	m = re.match(r"\s*(?:\} /\* (\w+) \*/|(\w+)\(\)( \{|;))", line)
	if not m:
		continue
	if m.group(1):				# a return
		f = stack.pop()
		if inside and f in files and owner() not in (None, files[f]):
			n += 1
		if inside and f == "op_wait":
			counts.append(n)
			inside = False
		continue
	f = m.group(2)
	if f == "op_post":
		inside, n = True, 0
	if inside and f in files and owner() not in (None, files[f]):
		n += 2 if m.group(3) == ";" else 1	# a leaf: call and return
	if m.group(3) == " {":
		stack.append(f)
counts = counts[10:]		# past the sessions opening
low = min(counts)
say = "%s: %d steps, crossings a step: fewest %d (%.1f per site), mean %.1f" \
      % (name, len(counts), low, low / 3, sum(counts) / len(counts))
if not limit:
	print(say)
elif low / 3 <= float(limit):
	print("ok - %s, at most %s per site" % (say, limit))
else:
	print("not ok - %s, more than %s per site" % (say, limit))
	sys.exit(1)
' "$T/files" "$1" "$2"
	rm -rf "$T/data"
}

[ -z "$MAX_TCP" ] || echo "1..2"
rc=0
count "TCP" "$MAX_TCP" "" "" || rc=1
count "TLS" "$MAX_TLS" "--psk $T/keys.psk" \
	"s#\"dofs\": \[\([0-9]\)\] }#\"dofs\": [\1], \"tls\": { \"psk_file\": \"keys.psk\", \"psk_identity\": \"coord\" } }#" || rc=1
exit $rc
