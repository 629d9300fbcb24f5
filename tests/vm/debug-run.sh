#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the test guest on the debug kernel ("make check-debug"):
#
#   debug-run.sh RESULTS KMOD_DIR BIN_DIR SPLAT_KO TEST...
#
# 1. kmemleak: scan, then forget what boot left behind ("clear"), so that
#    only what the tests leak is reported;
# 2. the selftests, as "make vm-check" runs them (guest-run.sh, TAP into
#    RESULTS/vm-debug-NAME.tap);
# 3. kmemleak scans again (twice: an object must be seen unreferenced in
#    two scans) into RESULTS/debug-kmemleak.txt, and the kernel log goes to
#    RESULTS/debug-dmesg.txt: what the host's splat scan judges;
# 4. the self-check: a line "rths-debug: splat self-check" in the kernel
#    log, then SPLAT_KO (tests/vm/splat) makes every checker report once,
#    and what follows the line goes to RESULTS/debug-selfcheck.txt, the
#    kmemleak listing to RESULTS/debug-selfcheck-kmemleak.txt.
#
# The exit status is guest-run.sh's; the host judges the logs.
set -uo pipefail

results=$1 kmod=$2 bins=$3 splat=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
kml=/sys/kernel/debug/kmemleak
mkdir -p "$results"

kmemleak_scan() {
	[ -w $kml ] || return 0
	echo scan >$kml
	# kmemleak ignores objects younger than 5 s; a second scan sees
	# them too
	sleep 6
	echo scan >$kml
}

if [ -w $kml ]; then
	kmemleak_scan
	echo clear >$kml
else
	echo "debug-run: no $kml: is debugfs mounted, kmemleak built in?" >&2
fi

"$here/../selftests/guest-run.sh" debug "$results" "$kmod" "$bins" "$@"
rc=$?

kmemleak_scan
if [ -r $kml ]; then
	cat $kml >"$results/debug-kmemleak.txt"
else
	echo "unreadable: $kml" >"$results/debug-kmemleak.txt"
fi
dmesg >"$results/debug-dmesg.txt"

echo "rths-debug: splat self-check" >/dev/kmsg
mark=$(dmesg | grep -c .)
[ ! -w $kml ] || echo clear >$kml
if insmod "$splat"; then
	kmemleak_scan
	cat $kml >"$results/debug-selfcheck-kmemleak.txt" 2>/dev/null
else
	echo "debug-run: insmod $splat failed" >&2
fi
dmesg | tail -n +"$mark" >"$results/debug-selfcheck.txt"
exit $rc
