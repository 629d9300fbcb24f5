#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/live/viewers.py on the sim card, in one boot of the test guest
# (tests/vm/run-vm.sh): the guest loads the modules and runs the demo on
# the sim card (examples/two-story-frame-sim.json; rths-run makes the
# card and its step thread real-time) with no viewer and with five.
#
#   viewers-guest.sh FLAVOUR RESULTS KMOD_DIR RTHS_RUN [ROUNDS]
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
if [ "${1:-}" = guest ]; then
	kmod=$2 run=$3 rounds=$4
	: "${RTHS_VM:?not in the rths test guest (see tests/vm/run-vm.sh)}"
	insmod "$kmod/kernel/rths.ko" && insmod "$kmod/kernel/cards/rths_sim.ko" ||
		exit 1
	/usr/bin/python3 bench/live/viewers.py "$run" \
		examples/two-story-frame-sim.json "$rounds" -- -t 6
	exit $?
fi
flavour=$1 results=$2 kmod=$3 run=$4 rounds=${5:-2}
work=$results/bench-live-$flavour
mkdir -p "$work"
"$top/tests/vm/run-vm.sh" --timeout 1500 --log "$work/console.log" \
	--stdout "$work/bench.txt" "$flavour" "$work" -- \
	bench/live/viewers-guest.sh guest "$kmod" "$run" "$rounds"
st=$?
cat "$work/bench.txt"
exit $st
