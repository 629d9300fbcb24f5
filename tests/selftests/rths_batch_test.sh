#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rthsctl -b FILE against the kernel (in the test guest): a good file
# creates and configures its devices, from a file and from standard
# input; a bad line (syntax, or a name the kernel's devices contradict)
# applies nothing and names FILE:LINE; a line the kernel refuses midway
# (a cpu that is not online) deletes again the devices the file created
# and leaves the others.  Prints TAP.
# Usage: rths_batch_test.sh (from the top of the tree; RTHS_RUN set)
set -uo pipefail

run=${RTHS_RUN:?RTHS_RUN: path of rths-run}
ctl=${run%/tools/rths-run}/tools/rthsctl
p=b$$
work=$(mktemp -d)
trap 'for d in ${p}a ${p}b ${p}c ${p}x; do "$ctl" dev del $d >/dev/null 2>&1; done
	rm -rf "$work"' EXIT

. tests/lib/tap.sh
exists() { "$ctl" dev show "$1" >/dev/null 2>&1; }
none() { ! exists ${p}a && ! exists ${p}b && ! exists ${p}c; }
rate() { "$ctl" -j dev show "$1" | jq -r '.[0].rate'; }

echo "TAP version 13"
echo "1..9"

cat >"$work/good.conf" <<EOC
# two rigs
dev add ${p}a type sim channels 1   # the first
dev set ${p}a rate 2048 plant benchmark limit 0 stroke -50mm 50mm

dev add "${p}b" type sim channels 2
EOC
"$ctl" -b "$work/good.conf" 2>"$work/err"
st=$?
check "good file: status 0 ($st), both devices, ${p}a at 2048 Hz ($(rate ${p}a))" \
	eval "[ $st -eq 0 ] && exists ${p}b && [ '$(rate ${p}a)' = 2048 ]" ||
	sed 's/^/# /' "$work/err"
"$ctl" dev del ${p}a && "$ctl" dev del ${p}b
"$ctl" -b - <"$work/good.conf" 2>"$work/err"
check "the same file from standard input (-b -)" \
	eval "[ $? -eq 0 ] && exists ${p}a && exists ${p}b" ||
	sed 's/^/# /' "$work/err"
"$ctl" dev del ${p}a && "$ctl" dev del ${p}b

# Syntax on line 3: nothing of lines 1-2 applied.
printf 'dev add %sa type sim channels 1\ndev add %sb type sim channels 1\ndev set %sa rate fast\n' \
	$p $p $p >"$work/bad.conf"
"$ctl" -b "$work/bad.conf" 2>"$work/err"
st=$?
check "a bad line 3: status 2 ($st), named $(basename "$work")/bad.conf:3" \
	eval "[ $st -eq 2 ] && grep -q 'bad.conf:3: ' '$work/err'" ||
	sed 's/^/# /' "$work/err"
check "and nothing applied" none

# The kernel's devices: line 2 adds a name that exists.
"$ctl" dev add ${p}x type sim channels 1
printf 'dev add %sa type sim channels 1\ndev add %sx type sim channels 1\n' \
	$p $p >"$work/exists.conf"
"$ctl" -b "$work/exists.conf" 2>"$work/err"
st=$?
check "line 2 adds an existing device: status 1 ($st), exists.conf:2 named" \
	eval "[ $st -eq 1 ] && grep -q 'exists.conf:2: .*nothing applied' '$work/err'" ||
	sed 's/^/# /' "$work/err"
check "and nothing applied" none

# The kernel refuses line 4 (no such cpu): lines 1-2's devices go again,
# the device that existed before (line 3 set it) stays.
printf 'dev add %sa type sim channels 1\ndev add %sb type sim channels 1\ndev set %sx rate 512\ndev set %sb cpu 4095\n' \
	$p $p $p $p >"$work/refused.conf"
"$ctl" -b "$work/refused.conf" 2>"$work/err"
st=$?
check "the kernel refuses line 4: status 1 ($st), refused.conf:4 named" \
	eval "[ $st -eq 1 ] && grep -q 'refused.conf:4: refused' '$work/err'" ||
	sed 's/^/# /' "$work/err"
sed 's/^/# /' "$work/err"
check "the devices the file added are gone" none
check "the one that existed stays, as line 3 set it ($(rate ${p}x) Hz)" \
	eval "exists ${p}x && [ '$(rate ${p}x)' = 512 ]"
exit $failed
