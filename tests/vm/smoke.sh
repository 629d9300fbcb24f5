#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Smoke test of the test guest itself; runs inside it (tests/vm/run-vm.sh
# sets RTHS_VM_*) and prints TAP.  Each check runs in a subshell under
# set -e: the first failing command fails the check, and its output
# becomes TAP diagnostics.  Exit status 1 if any check failed.
set -euo pipefail

: "${RTHS_VM_FLAVOUR:?not in the rths test guest (see tests/vm/run-vm.sh)}"
: "${RTHS_VM_KREL:?}" "${RTHS_VM_RW:?}"
top=$PWD

plan=10
n=0
failed=0
echo "TAP version 13"
echo "1..$plan"

# check DESCRIPTION FUNCTION
check() {
	local out st
	n=$((n + 1))
	st=0
	out=$( (set -e; "$2") 2>&1) || st=$?
	if [ $st -eq 0 ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		failed=$((failed + 1))
		printf '%s\n' "$out" | sed 's/^/# /'
	fi
}

t_kernel() {
	echo "uname -r: $(uname -r), expected $RTHS_VM_KREL"
	[ "$(uname -r)" = "$RTHS_VM_KREL" ]
}

# PREEMPT_RT kernels have /sys/kernel/realtime = 1; others have none.
t_realtime() {
	if [ "${RTHS_VM_FLAVOUR%-*}" = rt ]; then
		[ "$(cat /sys/kernel/realtime)" = 1 ]
		uname -v | grep -q PREEMPT_RT
	else
		[ ! -e /sys/kernel/realtime ]
		if uname -v | grep -q PREEMPT_RT; then return 1; fi
	fi
}

t_repo_ro() {
	[ -f "$top/tests/vm/smoke.sh" ]
	[ -x "$top/tests/vm/run-vm.sh" ]
	if touch "$top/.vm-write-test" 2>/dev/null; then
		echo "the repository is writable in the guest"
		return 1
	fi
	grep -q ' / 9p ro,' /proc/mounts
}

t_rw_dir() {
	local f=$RTHS_VM_RW/.smoke-$RTHS_VM_FLAVOUR.$$
	echo "written in the guest" >"$f"
	[ "$(cat "$f")" = "written in the guest" ]
	rm "$f"
}

t_tmp() {
	grep -q '^tmpfs /tmp ' /proc/mounts
	local f
	f=$(mktemp)
	echo x >"$f"
	rm "$f"
}

# devtmpfs with the usual nodes, and /dev/fd for bash.
t_dev() {
	local d
	for d in null zero console ttyS0 urandom; do
		[ -c /dev/$d ] || {
			echo "/dev/$d is missing"
			return 1
		}
	done
	[ "$(echo hi | cat /dev/stdin)" = hi ]
	[ "$(cat <(echo hi))" = hi ]
}

# comedi_test auto-configures comedi0: the module loads and its device
# node appears.  modprobe reads /lib/modules/$(uname -r) here.
t_modprobe() {
	modprobe comedi_test
	[ -d /sys/module/comedi_test ]
	# Wait up to 5 s: the node is created asynchronously.
	local _
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ -c /dev/comedi0 ] && break
		sleep 0.5
	done
	[ -c /dev/comedi0 ]
	modprobe -r comedi_test comedi
	[ ! -d /sys/module/comedi_test ]
}

t_debugfs() {
	grep -q '^debugfs /sys/kernel/debug ' /proc/mounts
	[ -d /sys/kernel/debug/sched ] || [ -e /sys/kernel/debug/sched_features ]
}

# IFF_UP is bit 0 of the interface flags.
t_loopback() {
	local flags
	flags=$(cat /sys/class/net/lo/flags)
	[ $((flags & 1)) -eq 1 ]
}

# chrt from the host's util-linux, run under SCHED_FIFO 50.
t_fifo() {
	local out
	# shellcheck disable=SC2016 # $$ of the inner shell
	out=$(chrt -f 50 sh -c 'chrt -p $$' 2>&1)
	echo "$out"
	echo "$out" | grep -q 'SCHED_FIFO'
	echo "$out" | grep -q 'scheduling priority: 50'
}

check "kernel is $RTHS_VM_KREL" t_kernel
if [ "${RTHS_VM_FLAVOUR%-*}" = rt ]; then
	check "PREEMPT_RT: /sys/kernel/realtime is 1" t_realtime
else
	check "not PREEMPT_RT: no /sys/kernel/realtime" t_realtime
fi
check "repository visible read-only at $top" t_repo_ro
check "rw dir $RTHS_VM_RW writable" t_rw_dir
check "/tmp is a writable tmpfs" t_tmp
check "/dev populated (devtmpfs, /dev/fd)" t_dev
check "modprobe comedi_test creates /dev/comedi0, modprobe -r" t_modprobe
check "debugfs mounted" t_debugfs
check "lo is up" t_loopback
check "SCHED_FIFO priority 50 can be set (chrt)" t_fifo

[ "$n" -eq "$plan" ] || {
	echo "# ran $n checks, planned $plan"
	exit 1
}
[ $failed -eq 0 ]
