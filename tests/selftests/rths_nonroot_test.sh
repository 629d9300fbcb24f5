#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Non-root operation (in the test guest): an admin creates a sim device
# and gives its node to a group, as udev does for group rths; a user of
# that group, with no capability at all, runs a whole rths-run on it and
# owns what it writes.  A user outside the group can neither open the
# node nor control the device, and nobody but an admin adds, deletes or
# reconfigures one.  Prints TAP.
# Usage: rths_nonroot_test.sh (from the top of the tree; RTHS_RUN set)
set -uo pipefail

run=${RTHS_RUN:?RTHS_RUN: path of rths-run}
rthsctl=$(dirname "$run")/rthsctl
example=examples/two-story-frame-sim.json
dev=rths0 node=/dev/rths/rths0
# group "rths", a user in it, and one outside it (no user database needed)
grp=4344 user=4343 outsider=4345
work=$(mktemp -d)
trap '"$rthsctl" dev del "$dev" >/dev/null 2>&1; rm -rf "$work"' EXIT
# Reference BLAS: the same numbers everywhere, no CPU-specific kernels.
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/blas:/usr/lib/x86_64-linux-gnu/lapack

. tests/lib/tap.sh

# setuid away from 0 drops every capability (util-linux setpriv); the
# group's rlimits are what limits/90-rths.conf gives it through PAM
as_user() {
	(ulimit -r 79 -l unlimited ||
		echo "# cannot raise the rlimits of group rths" >&2
	 exec setpriv --reuid=$user --regid=$grp --groups=$grp "$@")
}
as_outsider() { setpriv --reuid=$outsider --regid=$outsider \
	--groups=$outsider "$@"; }
fails_with() {	# PATTERN COMMAND...: fails, saying PATTERN on stderr
	local pat=$1 st
	shift
	"$@" >"$work/out.log" 2>&1
	st=$?
	sed 's/^/# /' "$work/out.log"
	[ $st -ne 0 ] && grep -q -- "$pat" "$work/out.log"
}

echo "TAP version 13"
"$rthsctl" dev del "$dev" >/dev/null 2>&1
check "admin: dev add $dev" "$rthsctl" dev add "$dev" type sim channels 1
# what udev/60-rths.rules does; the guest has no udev
check "the node to group $grp, mode 0660" \
	sh -c "chown root:$grp $node && chmod 0660 $node"
chmod 0755 "$work" && mkdir "$work/u" "$work/outsider" &&
	chown "$user:$grp" "$work/u" && chown "$outsider" "$work/outsider"

# ---- the group's user: a whole run, its files its own --------------------
as_user "$run" -q --no-plots -t 2 -o "$work/u/run" "$example" \
	>"$work/run.log" 2>&1
st=$?
sed 's/^/# /' "$work/run.log"
check "rths-run as uid $user in the node's group exits 0 (status $st)" \
	test $st -eq 0
check "rths-run wrote its summary" test -s "$work/u/run/summary.json"
check "every output is owned by uid $user" \
	test -z "$(find "$work/u/run" ! -user $user)"
check "the device is stopped after the run" \
	sh -c "'$rthsctl' -j dev show $dev | grep -q '\"state\": *\"stopped\"'"
# The user's step thread, with group rths's limits: real-time, and not
# a page fault between the first and the last step.
echo "# step thread: $(jq -c .step_thread "$work/u/run/summary.json" 2>&1)"
thread_is() { jq -e "$1" "$work/u/run/summary.json" >/dev/null 2>&1; }
check "the user's step thread ran SCHED_FIFO with its memory locked" \
	thread_is '.step_thread.policy == "SCHED_FIFO" and .step_thread.memory_locked'
check "the user's step thread took no page fault after its first step" \
	thread_is '.step_thread.minor_faults == 0 and .step_thread.major_faults == 0'

# ---- the group's user: run control without an owner ----------------------
check "group: rthsctl run start is refused, pointing to rths-run" \
	fails_with "rths-run" as_user "$rthsctl" run start "$dev"
check "group: rthsctl run stop of a stopped device borrows the node" \
	as_user "$rthsctl" run stop "$dev"
check "group: rthsctl dev set of a run setting (rate)" \
	as_user "$rthsctl" dev set "$dev" rate 2048
check "group: rthsctl dev set priority (the loop thread's) is refused" \
	fails_with "CAP_NET_ADMIN" as_user "$rthsctl" dev set "$dev" priority 90
check "group: rthsctl dev add is refused" \
	fails_with "not permitted" as_user "$rthsctl" dev add nr1 type sim channels 1
check "group: rthsctl dev del is refused" \
	fails_with "not permitted" as_user "$rthsctl" dev del "$dev"

# ---- outside the group: nothing --------------------------------------------
check "outsider: open $node read-write: permission denied" \
	fails_with "ermission denied" as_outsider sh -c "exec 3<>$node"
check "outsider: open $node read-only (to mmap): permission denied" \
	fails_with "ermission denied" as_outsider sh -c "exec 3<$node"
check "outsider: rthsctl run stop is refused" \
	fails_with "CAP_NET_ADMIN" as_outsider "$rthsctl" run stop "$dev"
check "outsider: rthsctl run hold is refused" \
	fails_with "CAP_NET_ADMIN" as_outsider "$rthsctl" run hold "$dev"
check "outsider: rthsctl stats reset is refused" \
	fails_with "CAP_NET_ADMIN" as_outsider "$rthsctl" stats reset "$dev"
check "outsider: rthsctl dev set rate is refused" \
	fails_with "CAP_NET_ADMIN" as_outsider "$rthsctl" dev set "$dev" rate 1024
check "outsider: rths-run cannot open the node" \
	fails_with "$node" as_outsider "$run" -q --no-plots -t 1 \
		-o "$work/outsider/run" "$example"
check "outsider: rthsctl dev del is refused" \
	fails_with "not permitted" as_outsider "$rthsctl" dev del "$dev"

# ---- the admin, as before --------------------------------------------------
check "admin: run start, stop without the node" \
	sh -c "'$rthsctl' run start $dev && '$rthsctl' run stop $dev"
check "admin: dev del" "$rthsctl" dev del "$dev"
echo "1..$n"
exit $failed
