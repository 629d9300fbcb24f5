#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/live/viewers.py on the sim card, in one boot of the test guest
# (tests/vm/run-vm.sh): the guest loads the modules and runs the demo on
# the sim card (examples/two-story-frame-sim.json; rths-run makes the
# card and its step thread real-time) with no viewer and with five.  The
# viewers are the host's, through QEMU's forward (run-vm.sh --hostfwd) to
# the guest's 10.0.2.15, so that they take none of the guest's CPUs; off
# loopback the view needs HTTPS and a token, made here with openssl into
# the folder the guest shares (viewers.py --remote).
#
#   viewers-guest.sh FLAVOUR RESULTS KMOD_DIR RTHS_RUN [ROUNDS]
set -uo pipefail

gport=8443
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
if [ "${1:-}" = guest ]; then
	share=$2 kmod=$3 run=$4 rounds=$5
	: "${RTHS_VM:?not in the rths test guest (see tests/vm/run-vm.sh)}"
	insmod "$kmod/kernel/rths.ko" && insmod "$kmod/kernel/cards/rths_sim.ko" ||
		{ touch "$share/done"; exit 1; }
	/usr/bin/python3 bench/live/viewers.py "$run" \
		examples/two-story-frame-sim.json "$rounds" \
		--remote "$share" "10.0.2.15:$gport" -- -t 6
	st=$?
	touch "$share/done"
	exit $st
fi
flavour=$1 results=$2 kmod=$3 run=$4 rounds=${5:-2}
work=$results/bench-live-$flavour
rm -rf "$work"
mkdir -p "$work"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	-days 2 -subj /CN=rths-live-bench -keyout "$work/key.pem" \
	-out "$work/cert.pem" 2>/dev/null || exit 1
python3 -c 'import secrets; print(secrets.token_urlsafe(24))' >"$work/token"
# a free loopback port on the host (bound, then left for QEMU)
hport=$(python3 -c '
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
"$top/tests/vm/run-vm.sh" --timeout 1500 --log "$work/console.log" \
	--hostfwd "$hport:$gport" --stdout "$work/bench.txt" "$flavour" "$work" \
	-- bench/live/viewers-guest.sh guest "$work" "$kmod" "$run" "$rounds" &
vm=$!
python3 bench/live/viewers.py --viewers "$work" "127.0.0.1:$hport" \
	>"$work/viewers.txt" 2>&1 &
viewers=$!
st=0
wait $vm || st=$?
touch "$work/done"
wait $viewers
cat "$work/bench.txt" "$work/viewers.txt"
exit $st
