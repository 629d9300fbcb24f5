#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rthsctl loads the RTHS benchmark's plant into a sim card (in the test
# guest): the coefficients the card reports equal librths's design at the
# device's rate, nominal and perturbed; "plant none" removes it; a new
# rate without the plant and a bad key are refused, and a refused command
# changes nothing.  Then the benchmark's three-story example runs 2 s of
# El Centro on the sim card (manual clock, seeded noise) and its J1..J9
# agree with the offline backend's run of the same file.  Prints TAP.
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
echo "1..13"
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
check "a new rate without the plant is refused (status $st, 1: the device's state)" \
	sh -c "[ $st -eq 1 ] && grep -q 'give it again' '$work/out'"
check "the refused command changed nothing" \
	sh -c "[ '$(rate_of)' = 4096 ] && [ '$(card_sections)' = '$want' ]"
"$ctl" dev set $dev plant benchmark:k=1 >"$work/out" 2>&1
st=$?
check "an unknown plant key is refused by name (status $st)" \
	sh -c "[ $st -ne 0 ] && grep -q 'unknown plant benchmark key \"k\"' '$work/out'"
check "dev set plant none" "$ctl" dev set $dev plant none
check "the card is back on its lag" same "no sections" "[]" "$(card_sections)"

# The benchmark example on the card and offline: the offline backend runs
# the card's integer plant, but rounds the specimen (N*s/m, uN) and draws
# its noise from another generator, so the figures agree to a few
# hundredths, not to the bit.
ex=examples/benchmark/three-story.json
# the checkout is read-only in the guest: the file goes to $work, with
# the record's path (relative to the example) made absolute
rec=$(jq -r .ground_motion.file "$ex")
rec=$(cd "$(dirname "$ex")/$(dirname "$rec")" && pwd)/$(basename "$rec")
jq --arg n "bm$$" --arg f "$rec" '.ground_motion.file = $f
	| .device.backend = "device" | .device.clock = "manual"
	| .device.name = $n' "$ex" >"$work/card.json"
jq '.device.backend = "offline"' "$work/card.json" >"$work/offline.json"
"$run" -q --no-plots -t 2 -o "$work/card" "$work/card.json" \
	>"$work/card.log" 2>&1
check "the benchmark example runs 2 s on the sim card (status $?)" \
	test -s "$work/card/summary.json"
"$run" -q --no-plots -t 2 -o "$work/offline" "$work/offline.json" \
	>"$work/offline.log" 2>&1
check "and offline (status $?)" test -s "$work/offline/summary.json"
jvals() {
	jq -r '[.actuators[0].J1_ms, .actuators[0].J2_pct,
		.actuators[0].J3_pct,
		(.dofs[] | .reference.rms_pct, .reference.peak_pct)]
		| map(tostring) | join(" ")' "$1/summary.json"
}
card=$(jvals "$work/card") off=$(jvals "$work/offline")
echo "# J1..J9 on the card: $card"
echo "# J1..J9 offline:     $off"
check "J1..J9 on the card agree with offline within 0.05 (or 1 %)" \
	awk -v a="$card" -v b="$off" 'BEGIN {
		n = split(a, x, " "); m = split(b, y, " ")
		if (n != 9 || m != 9) exit 1
		for (i = 1; i <= 9; i++) {
			d = x[i] - y[i]; if (d < 0) d = -d
			t = y[i] < 0 ? -y[i] : y[i]
			if (d > 0.05 && d > 0.01 * t) exit 1
		}
	}'
exit $failed
