#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rths-site's sim-card device substructures in the test guest, driven from
# the host through QEMU's forwards (run-vm.sh --hostfwd): two sites in the
# guest (tests/vm/site-device-guest.sh), and per site two GenericClient
# sessions from the host (site_client).  Under the manual clock (pier1)
# both must get the same bits (the sim card with a fixed seed); under
# the hrtimer clock (pier2) the steps must go through whatever their
# lateness.  On both the measured displacement follows the command and
# the force is the specimen's stiffness times it.  Prints the host's TAP; the guest's goes
# to RESULTS/vm-site-device-FLAVOUR-guest.tap.
#
# usage: site-device.sh FLAVOUR RESULTS KMOD_DIR SITE_BIN CLIENT_BIN
set -uo pipefail

flavour=$1 results=$2 kmod=$3 site=$4 client=$5
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
# shellcheck source=tests/lib/tap.sh disable=SC2154 # it sets $failed
. tests/lib/tap.sh
steps=60
gport=8090
mkdir -p "$results"
work=$results/vm-site-device-$flavour
rm -rf "$work"
mkdir -p "$work"

# Two free loopback ports on the host (bound, then left for QEMU).
ports=$(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
read -r p1 p2 <<<"$ports"

echo "TAP version 13"
echo "1..6"
"$top/tests/vm/run-vm.sh" --timeout 1200 --log "$work/console.log" \
	--hostfwd "$p1:$gport" --hostfwd "$p2:$((gport + 1))" \
	--stdout "$work/guest.tap" "$flavour" "$work" -- \
	tests/vm/site-device-guest.sh "$work" "$kmod" "$site" "$gport" &
vm=$!

# The guest says when its sites listen (or that they failed).
while ! [ -e "$work/ready" ] && ! [ -e "$work/failed" ] &&
	kill -0 $vm 2>/dev/null; do
	sleep 1
done
ok=1
[ -e "$work/ready" ] || ok=0
for i in 1 2; do
	[ $ok = 1 ] || break
	port=p$i
	for r in 1 2; do
		"$client" 127.0.0.1 "${!port}" $steps >"$work/pier$i-run$r.txt" \
			2>"$work/pier$i-run$r.err" || ok=0
	done
done
touch "$work/done"
st=0
wait $vm || st=$?
check "the host drove $steps steps twice on each guest site" test $ok = 1
for f in "$work"/*.err; do sed "s|^|# ${f##*/}: |" "$f"; done
check "pier1 (manual clock): two sessions, the same bits" \
	cmp "$work/pier1-run1.txt" "$work/pier1-run2.txt"
check "pier2 (hrtimer clock): both sessions ran every step" \
	test "$(grep -vc '^#' "$work/pier2-run2.txt")" = $steps
# The measured displacement follows the 5 mm command: lag, delay and
# compensation leave a small error under the manual clock; under the
# hrtimer clock every command is late here (a TCG guest's round trip is
# tens of ms, the step 8 ms), and the event-driven policy's extrapolation
# overshoots by up to about half the amplitude.  The force is k times
# the displacement plus the noise (k = i MN/m).
emax_ok=(- 0.002 0.005)
for i in 1 2; do
	# shellcheck disable=SC2016 # awk's own $fields
	check "pier$i: displacement tracks the command, force = k disp" \
		awk -v k=$((i * 1000000)) -v n=$steps -v elim="${emax_ok[i]}" '
		/^#/ { next }
		{ u = $5; d = $6; f = $7; rows++
		  if (d < 0 ? -d > 0.0075 : d > 0.0075) bad = "disp " d
		  e = u - d; if (e < 0) e = -e; if (e > emax) emax = e
		  r = f - k * d; if (r < 0) r = -r; if (r > rmax) rmax = r
		  if (d * d > 1e-6) moved++ }
		END { printf "# %d rows, max |u - d| %g m, max |f - k d| %g N\n",
			rows, emax, rmax
		      exit !(rows == n && bad == "" && moved > n / 4 &&
			     emax < elim && rmax < 0.01 * k * 0.005) }' \
		"$work/pier$i-run2.txt"
done
echo "# pier2 (hrtimer): $(grep -c 'late' "$work/pier2.log") late steps of $((2 * steps))"
check "the guest ran its part (run-vm.sh status $st)" test $st = 0
cp "$work/guest.tap" "$results/vm-site-device-$flavour-guest.tap" 2>/dev/null
exit "$failed"
