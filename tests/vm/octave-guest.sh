#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rths_mex on the sim card, inside the test guest (make vm-octave, one
# boot of the stock flavour through tests/vm/run-vm.sh): loads the
# modules, makes two sim-card devices (rig0 under the hrtimer clock,
# rigm under the manual one: 1 channel, 1024 Hz, 10 ticks a step, a
# perfect actuator and a 5e5 N/m specimen, as examples/c/own-loop.c
# expects), runs tests/octave/test_device.m against them
# (RESULTS/vm-octave-stock-device.tap) and removes them.  Prints TAP.
#
# usage: octave-guest.sh RESULTS KMOD_DIR MEX_DIR TOOLS_DIR
set -uo pipefail

results=$1 kmod=$2 mexdir=$3 tools=$4
: "${RTHS_VM:?not in the rths test guest (see tests/vm/run-vm.sh)}"
# shellcheck source=tests/lib/tap.sh disable=SC2154 # it sets $failed
. tests/lib/tap.sh
rthsctl=$tools/rthsctl
# Octave writes its history and caches under HOME: the guest's /tmp.
export HOME=/tmp/octave-home
mkdir -p "$HOME"

echo "TAP version 13"
echo "1..5"
insmod "$kmod/kernel/rths.ko" && insmod "$kmod/kernel/cards/rths_sim.ko"
check "insmod rths.ko rths_sim.ko ($(uname -r))" test $? -eq 0
made=0
for d in rig0:hrtimer rigm:manual; do
	"$rthsctl" dev add "${d%:*}" type sim channels 1 lag 0 delay 0 \
		stiffness 5e5 damping 0 &&
		"$rthsctl" dev set "${d%:*}" clock "${d#*:}" rate 1024 \
			step-ticks 10 && made=$((made + 1))
done
check "two sim-card devices, hrtimer and manual clock" test $made = 2
st=0
RTHS_MEX_DEVICE=rig0 RTHS_MEX_MANUAL=rigm RTHS_TAP_PREFIX=vm-octave-stock \
	tests/octave/run.sh "$results" "$mexdir" "$tools" \
	tests/octave/test_device.m >/dev/null 2>&1 || st=$?
sed 's/^/# /' "$results/vm-octave-stock-device.tap"
check "tests/octave/test_device.m on the sim card (vm-octave-stock-device.tap)" \
	test $st = 0
del=0
for d in rig0 rigm; do
	"$rthsctl" dev del $d && del=$((del + 1))
done
check "both devices removed" test $del = 2
left=$("$rthsctl" -j dev show 2>/dev/null | grep -c '"name"')
check "no device left behind ($left)" test "$left" = 0
exit "$failed"
