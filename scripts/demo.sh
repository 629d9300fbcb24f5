#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: the bundled two-story frame whose first-story column is the
# specimen, played by the sim card, under a synthetic ground motion.  Runs
# on this machine if its kernel is the one the modules were built for and
# may load them; otherwise inside the QEMU test guest (stock kernel).
# Usage: demo.sh OUTDIR KMOD_STOCK KMOD_RT RTHS_RUN [--guest KMOD]
set -euo pipefail

out=$1 kstock=$2 krt=$3 run=$4
example=examples/two-story-frame-sim.json

guest() {	# KMOD: load the modules here and run the example
	# Reference BLAS: the same numbers on every machine, and no
	# CPU-specific kernels under emulation.
	export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/blas:/usr/lib/x86_64-linux-gnu/lapack
	grep -q '^rths ' /proc/modules || insmod "$1/kernel/rths.ko"
	grep -q '^rths_sim ' /proc/modules ||
		insmod "$1/kernel/cards/rths_sim.ko"
	"$run" --no-progress -o "$out" "$example"
}

if [ "${5:-}" = --guest ]; then
	guest "$6"
	exit
fi

mkdir -p "$out"
krel=$(uname -r)
native=
if [ "$(id -u)" -eq 0 ] &&
   [ "$(cat /proc/sys/kernel/modules_disabled 2>/dev/null)" = 0 ]; then
	case $krel in
	*-rt-amd64) [ "$krel" = "$(modinfo -F vermagic "$krt/kernel/rths.ko" |
		cut -d' ' -f1)" ] && native=$krt ;;
	*) [ "$krel" = "$(modinfo -F vermagic "$kstock/kernel/rths.ko" |
		cut -d' ' -f1)" ] && native=$kstock ;;
	esac
fi
if [ -n "$native" ]; then
	echo "demo: running on this machine's kernel ($krel)"
	guest "$native"
else
	echo "demo: this kernel ($krel) cannot load the modules; running in the QEMU guest (Debian's stock 6.1 kernel, software emulation)"
	rc=0
	tests/vm/run-vm.sh --timeout 1200 --log "$out/console.log" \
		--stdout "$out/demo.out" stock "$out" -- scripts/demo.sh \
		"$out" "$kstock" "$krt" "$run" --guest "$kstock" || rc=$?
	cat "$out/demo.out" 2>/dev/null || true
	[ $rc -eq 0 ] || { echo "demo: failed (guest console: $out/console.log)" >&2; exit $rc; }
fi
echo
echo "demo: the plots are $out/response.png, tracking.png and hysteresis.png;"
echo "      the step history is $out/history.csv, the actuator-rate trace $out/trace.csv"
