#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-octave: the loop of examples/c/own-loop.c in C
# (tests/common/bench_loop.c) and in Octave through rths_mex
# (tests/octave/bench_loop.m), N steps each, timed; then the Octave/C
# ratio of the per-step cost and the step rate each keeps up with.
# Never asserted on: it prints.
#
#   bench.sh host MEX_DIR N                    offline, the modelled
#                                              actuator, on this machine
#   bench.sh guest MEX_DIR N KMOD_DIR TOOLS    in the test guest
#                                              (run-vm.sh): the sim card
#
# Offline the whole loop is the cost (wall per step: the model's 10
# ticks a step included).  On the sim card the loop waits for each step
# (1024 Hz, 10 ticks a step: 9.77 ms), so the cost is the compute time,
# from a step's feedback to the next command posted: what must fit in a
# step; the late steps say whether it did.
set -uo pipefail

where=$1 mexdir=$2 n=$3
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
rec=tests/data/elcentro-ns-1940.AT2
octave_loop() {
	HOME=${OCTAVE_HOME_DIR:-$HOME} octave-cli --no-gui --norc --no-history \
		--eval "addpath('$mexdir', 'tests/octave', 'examples/matlab');
		bench_loop('$1', $n, '$rec')"
}
# "C|Octave N steps: wall W us/step, compute X us/step (max M), late L"
field() { sed -n "s/.* $1 \([0-9.]*\).*/\1/p" <<<"$2"; }

report() {	# TITLE C_LINE OCTAVE_LINE KEY
	local c=$2 o=$3 key=$4
	echo "== $1"
	echo "$c"
	echo "$o"
	if [ -z "$c" ] || [ -z "$o" ]; then
		echo "(a loop failed)"
		return 1
	fi
	awk -v c="$(field "$key" "$c")" -v o="$(field "$key" "$o")" \
		-v key="$key" 'BEGIN {
		printf "Octave/C %s per step: %.0f (%.2f us against %.2f us)\n",
			key, o / c, o, c
		printf "keeps up with steps up to about %.0f Hz in C, %.0f Hz in Octave (1 / %s per step)\n",
			1e6 / c, 1e6 / o, key }'
}

case $where in
host)
	c=$("$mexdir/bench_loop" -o "$n" "$rec")
	o=$(octave_loop offline 2>/dev/null)
	report "offline on the host ($(nproc) CPUs), $n steps" "$c" "$o" wall
	;;
guest)
	kmod=$4 tools=$5
	: "${RTHS_VM:?not in the rths test guest (see tests/vm/run-vm.sh)}"
	export OCTAVE_HOME_DIR=/tmp/octave-home
	mkdir -p "$OCTAVE_HOME_DIR"
	insmod "$kmod/kernel/rths.ko" &&
		insmod "$kmod/kernel/cards/rths_sim.ko" || exit 1
	"$tools/rthsctl" dev add rig0 type sim channels 1 lag 0 delay 0 \
		stiffness 5e5 damping 0 || exit 1
	"$tools/rthsctl" dev set rig0 clock hrtimer rate 1024 step-ticks 10 ||
		exit 1
	c=$("$mexdir/bench_loop" -d rig0 "$n" "$rec")
	o=$(octave_loop rig0 2>/dev/null)
	report "the sim card in the $(uname -r) guest (QEMU TCG, $(nproc) vCPUs), $n steps of 9.77 ms" \
		"$c" "$o" compute
	st=$?
	"$tools/rthsctl" dev del rig0
	exit $st
	;;
*)
	echo "usage: bench.sh host|guest MEX_DIR N [KMOD_DIR TOOLS]" >&2
	exit 2
	;;
esac
