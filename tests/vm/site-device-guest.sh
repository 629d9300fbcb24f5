#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of tests/vm/site-device.sh; runs inside the test guest
# (tests/vm/run-vm.sh --hostfwd).  Loads the rths modules, starts two
# rths-site processes, each serving one sim-card device substructure
# on the guest's 10.0.2.15 at GUESTPORT and GUESTPORT+1: pier1 under the
# manual clock (deterministic), pier2 under the hrtimer clock (real time:
# a command late over the network is the kernel's to absorb), waits until the host writes DIR/done, stops them with
# SIGTERM and checks that each device came to rest and was removed.
# Prints TAP.
#
# usage: site-device-guest.sh DIR KMOD_DIR SITE_BIN GUESTPORT
set -uo pipefail

dir=$1 kmod=$2 site=$3 port=$4
: "${RTHS_VM:?not in the rths test guest (see tests/vm/run-vm.sh)}"
# shellcheck source=tests/lib/tap.sh disable=SC2154 # it sets $failed
. tests/lib/tap.sh
rthsctl=$(dirname "$site")/rthsctl

echo "TAP version 13"
echo "1..7"
insmod "$kmod/kernel/rths.ko" && insmod "$kmod/kernel/cards/rths_sim.ko"
check "insmod rths.ko rths_sim.ko ($(uname -r))" test $? -eq 0

# One pier a site; every session creates its sim card and removes it.
pids=()
clocks=(- manual hrtimer)
for i in 1 2; do
	cat >/tmp/pier$i.json <<JSON
{"substructures": [{
  "name": "pier$i", "protocol": "element", "address": "10.0.2.15",
  "port": $((port + i - 1)), "dof": 1,
  "device": {"name": "pier$i", "card": "sim", "clock": "${clocks[i]}",
             "rate": 1024, "step_ticks": 8,
             "actuator": {"lag": 0.003, "delay_ticks": 2,
                          "noise_disp": 1e-7, "noise_force": 0.2,
                          "seed": $((40 + i))}},
  "specimen": {"stiffness": $((i * 1000000)), "damping": 0},
  "compensation": {"method": "polynomial", "order": 2, "delay": 0.005}
}]}
JSON
	"$site" /tmp/pier$i.json 2>"$dir/pier$i.log" &
	pids+=($!)
done
# Up when both log that they listen; exec over 9p is slow under TCG.
running=0
for _ in $(seq 1 120); do
	up=$(cat "$dir/pier1.log" "$dir/pier2.log" | grep -c 'listening on')
	[ "$up" != 2 ] || { running=1; break; }
	for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null || break 2; done
	sleep 0.5
done
check "two rths-site processes serve a sim-card device each" \
	test $running = 1
# The host starts its clients on "ready", gives up on "failed".
if [ $running = 1 ]; then touch "$dir/ready"; else touch "$dir/failed"; fi

# The host drives its sessions meanwhile.
for _ in $(seq 1 900); do
	[ -e "$dir/done" ] && break
	sleep 1
done
check "the host's client finished" test -e "$dir/done"
st=0
for p in "${pids[@]}"; do
	kill -TERM "$p"
	wait "$p" || st=$?
done
check "SIGTERM stops both sites cleanly (status $st)" test $st = 0
for i in 1 2; do
	sed "s/^/# pier$i: /" "$dir/pier$i.log"
done
rest=$(grep -c 'device at rest after' "$dir/pier1.log" "$dir/pier2.log" |
	awk -F: '{ s += $2 } END { print s }')
check "every session brought its device to rest ($rest of 4)" \
	test "$rest" = 4
# each session's step thread: real-time, no page fault after its first
# step (rths-site logs it as the session's device comes to rest)
rt=$(cat "$dir/pier1.log" "$dir/pier2.log" | grep -c \
	'step thread, steps 1 to [0-9]*: SCHED_FIFO .*minor faults 0, major faults 0,')
check "every session's step thread ran SCHED_FIFO without a page fault ($rt of 4)" \
	test "$rt" = 4
left=0
for i in 1 2; do
	"$rthsctl" dev show pier$i >/dev/null 2>&1 && left=1
done
check "no device is left behind" test $left = 0
exit "$failed"
