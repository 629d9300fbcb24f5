# SPDX-License-Identifier: GPL-2.0
# TAP for the shell tests: source it, then "check DESCRIPTION COMMAND...".
# Each check prints "ok N - DESCRIPTION" or "not ok N - ...", sets
# $failed on a failure and returns the command's status; end with
# "exit $failed".
n=0
failed=0

check() {
	local what=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $what"
	else
		local st=$?
		echo "not ok $n - $what"
		failed=1
		return $st
	fi
}
