#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test guest: loads the freshly built modules of this
# kernel's flavour and runs every module selftest, one TAP file each, into
# RESULTS/vm-FLAVOUR-NAME.tap; then checks the kernel log for oopses and
# warnings.  Usage: guest-run.sh FLAVOUR RESULTS KMOD_DIR BIN_DIR TEST...
set -uo pipefail

flavour=$1 results=$2 kmod=$3 bins=$4
shift 4
export RTHS_KMOD_DIR=$kmod
export RTHS_RUN=$bins/../../tools/rths-run
export RTHS_YNL=$bins/../../../ynl
mkdir -p "$results"

tap_one() {	# NAME OK DESCRIPTION
	{
		echo "TAP version 13"
		echo "1..1"
		if [ "$2" = 1 ]; then
			echo "ok 1 $3"
		else
			echo "not ok 1 $3"
		fi
	} >"$results/vm-$flavour-$1.tap"
}

if insmod "$kmod/kernel/rths.ko" && insmod "$kmod/kernel/cards/rths_sim.ko"
then
	tap_one load 1 "insmod rths.ko rths_sim.ko ($(uname -r))"
else
	tap_one load 0 "insmod rths.ko rths_sim.ko ($(uname -r))"
	exit 1
fi

rc=0
for t in "$@"; do
	out=$results/vm-$flavour-$t.tap
	echo "== vm-$flavour-$t"
	case $t in
	*.sh) bin=tests/selftests/$t ;;
	*) bin=$bins/$t ;;
	esac
	t0=$SECONDS
	timeout 1200 "$bin" >"$out" 2>&1
	st=$?
	cat "$out"
	echo "== vm-$flavour-$t: status $st after $((SECONDS - t0)) s"
	if [ $st -ne 0 ] && ! grep -q '^not ok' "$out"; then
		echo "not ok - $t exited with status $st" | tee -a "$out"
	fi
	[ $st -eq 0 ] || rc=1
done

# Anything the kernel complained about is a failure, whichever test hit it.
# KCSAN's reports (the KCSAN kernel of check-debug) are the host's splat
# scan's to judge: it tells the kernel's races with itself from rths's.
if dmesg | grep -v 'BUG: KCSAN: ' |
	grep -E -q 'BUG:|WARNING:|Oops|general protection|Call Trace'
then
	dmesg | tail -n 80
	tap_one dmesg 0 "kernel log free of oopses and warnings"
	rc=1
else
	tap_one dmesg 1 "kernel log free of oopses and warnings"
fi
exit $rc
