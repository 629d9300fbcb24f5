#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rthsctl loads the RTHS benchmark's plant into a sim card (in the test
# guest): the coefficients the card reports equal librths's design at the
# device's rate, nominal and perturbed; "plant none" removes it; a new
# rate without the plant, a bad key and a plant for a comedi card are
# refused, and a refused command changes nothing.  Prints TAP.
# Usage: rths_plant_test.sh (from the top of the tree; RTHS_RUN set)
set -uo pipefail

run=${RTHS_RUN:?RTHS_RUN: path of rths-run}
top=${run%/tools/rths-run}
ctl=$top/tools/rthsctl
design=$top/tests/plant/plant-sections
dev=plant$$
work=$(mktemp -d)
trap '"$ctl" dev del $dev >/dev/null 2>&1; rm -rf "$work"' EXIT

. tests/lib/tap.sh

# The card's sections as compact JSON, [[b0,b1,b2,a1,a2],...].
card_sections() {
	"$ctl" -j dev show $dev | tr -d ' \n' |
		sed -n 's/.*"coefficients":\(\[[][0-9,-]*\]\).*/\1/p'
}
same() {	# WHAT EXPECTED GOT
	[ -n "$2" ] && [ "$2" = "$3" ] && return 0
	echo "# $1: expected $2"
	echo "#    got $3"
	return 1
}
rate_of() { "$ctl" -j dev show $dev | tr -d ' \n' | sed -n 's/.*"rate":\([0-9]*\).*/\1/p'; }

echo "TAP version 13"
echo "1..10"
check "dev add with plant benchmark" \
	"$ctl" dev add $dev type sim channels 1 plant benchmark
want=$("$design" 1024) got=$(card_sections)
check "the card runs librths's design at 1024 Hz" same "1024 Hz" "$want" "$got"
check "dev show prints the plant" \
	sh -c "'$ctl' dev show $dev | grep -q '    plant 3 sections'"
check "dev set rate 4096 with the +2 sigma plant" \
	"$ctl" dev set $dev rate 4096 \
	plant benchmark:b1=431.6,b2=1.06576e5,a3=5.9,ke=1.29e6
want=$("$design" 4096 431.6 1.06576e5 5.9 1.29e6) got=$(card_sections)
check "the card runs the perturbed design at 4096 Hz" same "4096 Hz" \
	"$want" "$got"
"$ctl" dev set $dev rate 2048 >"$work/out" 2>&1
st=$?
check "a new rate without the plant is refused (status $st)" \
	sh -c "[ $st -ne 0 ] && grep -q 'give it again' '$work/out'"
check "the refused command changed nothing" \
	sh -c "[ '$(rate_of)' = 4096 ] && [ '$(card_sections)' = '$want' ]"
"$ctl" dev set $dev plant benchmark:k=1 >"$work/out" 2>&1
st=$?
check "an unknown plant key is refused by name (status $st)" \
	sh -c "[ $st -ne 0 ] && grep -q 'unknown plant benchmark key \"k\"' '$work/out'"
check "dev set plant none" "$ctl" dev set $dev plant none
check "the card is back on its lag" same "no sections" "[]" "$(card_sections)"
exit $failed
