#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The rths Python package on the sim card, in one boot of the test guest
# (tests/vm/run-vm.sh).  The guest loads the modules, makes a one-channel
# sim device (stiffness 5e5 N/m, 1024 Hz, 10 ticks a step, event-driven),
# runs tests/python with RTHS_DEVICE set (the device tests too; pytest's
# TAP in RESULTS/vm-python-pytest.tap) and bench-python's device half,
# then removes the device.  /usr/bin/python3 is the host's, read-only.
#
#   python-guest.sh test  FLAVOUR RESULTS KMOD_DIR TOOLS_DIR PY_DIR C_BENCH
#   python-guest.sh bench FLAVOUR RESULTS KMOD_DIR TOOLS_DIR PY_DIR C_BENCH
#
# "test" prints the host's TAP (the guest's goes to
# RESULTS/vm-python-guest.tap); "bench" boots for the bench alone and
# prints its lines.  The guest half is "guest-test" / "guest-bench" WORK
# KMOD_DIR TOOLS_DIR PY_DIR C_BENCH.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
# shellcheck source=tests/lib/tap.sh disable=SC2154 # it sets $failed
. tests/lib/tap.sh
mode=$1
shift
dev=pydev
ke=500000
bench_steps=${BENCH_PYTHON_VM_STEPS:-1000}

guest() {
	local what=$1 work=$2 kmod=$3 tools=$4 pydir=$5 cbench=$6
	: "${RTHS_VM:?not in the rths test guest (see tests/vm/run-vm.sh)}"
	local rthsctl=$tools/rthsctl
	export PYTHONPATH=$pydir PYTHONPYCACHEPREFIX=/tmp/pycache
	echo "TAP version 13"
	[ "$what" = test ] && echo "1..5" || echo "1..3"
	insmod "$kmod/kernel/rths.ko" && insmod "$kmod/kernel/cards/rths_sim.ko"
	check "insmod rths.ko rths_sim.ko ($(uname -r))" test $? -eq 0
	"$rthsctl" dev add $dev type sim channels 1 stiffness $ke \
		>"$work/add.log" 2>&1 &&
		"$rthsctl" dev set $dev rate 1024 step-ticks 10 \
			late-policy event-driven >>"$work/add.log" 2>&1
	check "a sim device $dev at 1024 Hz, 10 ticks a step" test $? -eq 0 ||
		sed 's/^/# /' "$work/add.log"
	if [ "$what" = test ]; then
		RTHS_DEVICE=$dev RTHS_KE=$ke RTHS_TAP=$work/pytest.tap \
			timeout 900 /usr/bin/python3 -m pytest -q \
			-p no:cacheprovider tests/python >"$work/pytest.log" 2>&1
		check "pytest tests/python with RTHS_DEVICE=$dev" test $? -eq 0
		tail -n 3 "$work/pytest.log" | sed 's/^/# /'
		tests/python/bench.sh "$cbench" "$bench_steps" -d $dev \
			>"$work/bench.txt" 2>&1
		check "bench-python on the sim card" test $? -eq 0
		sed 's/^/# /' "$work/bench.txt"
	else
		tests/python/bench.sh "$cbench" "$bench_steps" -d $dev \
			2>&1 | tee "$work/bench.txt" | sed 's/^/# /'
	fi
	"$rthsctl" dev del $dev >/dev/null 2>&1
	local left=0
	"$rthsctl" dev show $dev >/dev/null 2>&1 && left=1
	"$rthsctl" dev show pyexp >/dev/null 2>&1 && left=1
	check "no device is left behind" test $left = 0
	exit "$failed"
}

case $mode in
guest-test) guest test "$@" ;;
guest-bench) guest bench "$@" ;;
test | bench) ;;
*)
	echo "usage: $0 test|bench FLAVOUR RESULTS KMOD_DIR TOOLS_DIR PY_DIR C_BENCH" >&2
	exit 2
	;;
esac

flavour=$1 results=$2 kmod=$3 tools=$4 pydir=$5 cbench=$6
work=$results/vm-python-$mode-$flavour
rm -rf "$work"
mkdir -p "$work"
st=0
"$top/tests/vm/run-vm.sh" --timeout 1500 --log "$work/console.log" \
	--stdout "$work/guest.tap" "$flavour" "$work" -- \
	tests/vm/python-guest.sh "guest-$mode" "$work" "$kmod" "$tools" \
	"$pydir" "$cbench" || st=$?
if [ "$mode" = bench ]; then
	cat "$work/bench.txt" 2>/dev/null
	[ $st = 0 ] || tail -n 20 "$work/guest.tap"
	exit $st
fi
echo "TAP version 13"
echo "1..1"
check "the guest ran the Python package on the sim card ($flavour, status $st)" \
	test $st = 0
cp "$work/guest.tap" "$results/vm-python-guest.tap" 2>/dev/null
cp "$work/pytest.tap" "$results/vm-python-pytest.tap" 2>/dev/null
exit "$failed"
