#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The rths family driven by the kernel's own YNL CLI (tools/net/ynl/cli.py
# from linux-source-6.12) with Documentation/netlink/specs/rths.yaml, in
# the test guest: gets, dumps, mutating operations, the extack of a
# rejected request, and the monitor group's events.  Prints TAP.
# Usage: rths_ynl_test.sh (from the top of the tree; RTHS_YNL is the tree
# scripts/extract-linux-source.sh made)
set -uo pipefail

ynl_dir=${RTHS_YNL:?RTHS_YNL: the extracted YNL tree}
spec=Documentation/netlink/specs/rths.yaml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

. tests/lib/tap.sh

# The host's "make ynl-check" validated the spec: skip the schema here.
ynl() {
	/usr/bin/python3 "$ynl_dir/tools/net/ynl/cli.py" --spec "$spec" \
		--no-schema --output-json "$@"
}
# jq -e on the Nth JSON document of FILE (the CLI prints the reply, then
# the notifications): "is FILE N FILTER"; shows FILE when it fails.
is() {
	jq -e -s "length > $2 and (.[$2] | $3)" "$1" >/dev/null && return
	sed 's/^/# /' "$1" | head -c 4000
	return 1
}

echo "TAP version 13"
echo "1..21"

# The monitor: a CLI that subscribes, sleeps and then prints what came.
# (cli.py of 6.12 cannot take notifications in the middle of a request:
# its receive loop loses the request after one, so events are watched by
# a second CLI.)  It is listening once its socket is in the group's bit
# of /proc/net/netlink (groups 1..32; otherwise wait long enough).
grp=$(/usr/bin/python3 "$ynl_dir/tools/net/ynl/cli.py" --no-schema \
	--spec "$ynl_dir/Documentation/netlink/specs/nlctrl.yaml" \
	--output-json --do getfamily --json '{ "family-name": "rths" }' |
	jq '.["mcast-groups"][][] | select(.name == "monitor") | .id')
ynl --subscribe monitor --sleep 30 >"$work/ntf.json" 2>"$work/ntf.err" &
listener=$!
listening() {
	local sk eth pid groups rest
	[ -n "$grp" ] && [ "$grp" -le 32 ] || { sleep 20; return 0; }
	while read -r sk eth pid groups rest; do
		[ "$eth" = 16 ] && (((0x$groups >> (grp - 1)) & 1)) && return 0
	done < <(tail -n +2 /proc/net/netlink)
	return 1
}
for i in $(seq 600); do
	listening && break
	sleep 0.1
done
check "a YNL CLI subscribed to the monitor group ($grp)" listening

sim='"dev-card": "sim", "dev-channels": 2,
	"dev-card-params": { "lag-us": 1000, "seed": 7 }'
ynl --multi dev-new "{ \"dev-name\": \"ynl0\", $sim }" \
	--multi dev-new "{ \"dev-name\": \"ynl1\", $sim }" \
	--multi dev-set '{ "dev-name": "ynl0", "dev-clock": "manual",
		"dev-rate": 2000, "dev-limits": { "limit-channel": [
		{ "index": 1, "pos-min": -5000000, "pos-max": 5000000 } ] } }' \
	--multi dev-del '{ "dev-name": "ynl1" }' \
	--multi run-start '{ "dev-name": "ynl0" }' \
	--multi run-tick '{ "dev-name": "ynl0", "run-ticks": 100 }' \
	--multi stats-get '{ "dev-name": "ynl0" }' \
	--multi run-stop '{ "dev-name": "ynl0", "run-now": true }' \
	--multi dev-get '{ "dev-name": "ynl0" }' \
	>"$work/run.json" 2>"$work/run.err"
check "dev-new, dev-set, dev-del, run-start, run-tick, run-stop in one --multi" \
	is "$work/run.json" 0 'all(.[0,1,2,3,4,5,7]; . == null)' ||
	sed 's/^/# /' "$work/run.err"
check "stats-get after 100 manual ticks" is "$work/run.json" 0 \
	'.[6].stats.ticks == 100 and (.[6].stats["irq-lat-hist"] | length == 24)'
check "dev-get after run-stop: stopped at tick 100 by the user" \
	is "$work/run.json" 0 '.[8]["dev-state"] == "stopped" and
	 .[8]["dev-tick"] == 100 and .[8]["dev-reason"] == "user"'

ynl --do dev-get --json '{ "dev-name": "ynl0" }' >"$work/get.json"
check "dev-get: the configuration dev-set wrote" is "$work/get.json" 0 \
	'.["dev-name"] == "ynl0" and .["dev-card"] == "sim" and
	 .["dev-channels"] == 2 and .["dev-clock"] == "manual" and
	 .["dev-rate"] == 2000 and .["dev-state"] == "stopped" and
	 .["dev-card-params"]["lag-us"] == 1000 and
	 .["dev-card-params"].seed == 7'
check "dev-get: nests of multi-attrs (limits, rings), binary s64 array" \
	is "$work/get.json" 0 \
	'(.["dev-limits"]["limit-channel"] | length == 2 and
	  .[1].index == 1 and .[1]["pos-min"] == -5000000 and
	  .[1]["pos-max"] == 5000000) and
	 ([.["dev-rings"].ring[].id] == ["cmd", "fb", "trace"]) and
	 (.["dev-position"] | length == 2)'
# dev-chrdev is new_encode_dev() of the char device udev made.
id=$(jq '.["dev-id"]' "$work/get.json")
chrdev=$(jq '.["dev-chrdev"]' "$work/get.json")
node=$(stat -c '%t %T' /dev/rths/ynl0 2>/dev/null)
enc=$(printf '%d' $(((0x${node% *} << 8) | (0x${node#* } & 0xff) |
	((0x${node#* } & ~0xff) << 12))) 2>/dev/null)
check "dev-chrdev ($chrdev) is /dev/rths/ynl0 (${node:-missing})" \
	test "$chrdev" = "$enc"

ynl --do dev-get --json "{ \"dev-id\": $id }" >"$work/byid.json"
check "dev-get by dev-id $id finds ynl0" is "$work/byid.json" 0 \
	'.["dev-name"] == "ynl0"'

ynl --dump dev-get >"$work/dump.json"
check "dump dev-get lists ynl0, not the deleted ynl1" is "$work/dump.json" 0 \
	'[.[]["dev-name"] | select(startswith("ynl"))] == ["ynl0"]'
ynl --dump card-get >"$work/cards.json"
check "dump card-get lists the sim card" is "$work/cards.json" 0 \
	'any(.[]; .["dev-card"] == "sim")'

# A policy rejection: the CLI names the attribute from the extack's
# offset and shows the policy the kernel reports for it.
ynl --do dev-new --json "{ \"dev-name\": \"ynl2\", \"dev-card\": \"sim\",
	\"dev-channels\": 17 }" >"$work/bad.out" 2>&1
st=$?
check "dev-new with 17 channels fails (status $st)" test $st -ne 0
check "the extack names .dev-channels and its range 1..16" \
	grep -q "'bad-attr': '.dev-channels'" "$work/bad.out"
check "and the policy's range 1..16" \
	grep -q "'min-value': 1, 'max-value': 16" "$work/bad.out" ||
	sed 's/^/# /' "$work/bad.out"

# The sim card's plant, checked by the card whatever userspace sent: a
# section with a pole at z = 1 (b0 = 1.0, a1 = -1.0 in Q40, s64 little
# endian), then 39 bytes.
z8=0000000000000000
ynl --do dev-new --json "{ \"dev-name\": \"ynl3\", \"dev-card\": \"sim\",
	\"dev-channels\": 1, \"dev-card-params\": { \"plant\":
	\"0000000000010000$z8${z8}0000000000ffffff$z8\" } }" >"$work/plant.out" 2>&1
st=$?
check "dev-new with an unstable plant fails (status $st)" test $st -ne 0
check "the extack names .dev-card-params.plant" \
	grep -q "'bad-attr': '.dev-card-params.plant'" "$work/plant.out"
check "and says the section is not stable" \
	grep -q "not stable" "$work/plant.out" || sed 's/^/# /' "$work/plant.out"
ynl --do dev-new --json "{ \"dev-name\": \"ynl3\", \"dev-card\": \"sim\",
	\"dev-channels\": 1, \"dev-card-params\": { \"plant\":
	\"${z8}${z8}${z8}${z8}00000000000000\" } }" >"$work/plant39.out" 2>&1
check "a plant of 39 bytes is refused as not whole sections" \
	grep -q "whole number of 40-byte sections" "$work/plant39.out" ||
	sed 's/^/# /' "$work/plant39.out"

ynl --do dev-del --json '{ "dev-name": "ynl0" }' >"$work/del.json"
check "dev-del ynl0" is "$work/del.json" 0 '. == null'
check "/dev/rths/ynl0 is gone" test ! -e /dev/rths/ynl0

wait $listener
# The monitor saw what the first --multi did (not the later dev-del,
# which may come after it stopped listening).
check "monitor: dev-new ynl0 and ynl1, dev-del ynl1, in order" \
	is "$work/ntf.json" 0 '[.[] | select(.name == "event") | .msg |
	 select(.event.type | startswith("dev-")) | select(.["dev-name"] != "ynl0"
	 or .event.type == "dev-new") |
	 "\(.event.type) \(.["dev-name"])"] ==
	 ["dev-new ynl0", "dev-new ynl1", "dev-del ynl1"]' ||
	sed 's/^/# /' "$work/ntf.err"
check "monitor: ynl0 went running, then stopped, by the user" \
	is "$work/ntf.json" 0 '[.[] | .msg | select(.["dev-name"] == "ynl0") |
	 .event | select(.type == "state") | "\(.state)/\(.reason)"] ==
	 ["running/user", "stopped/user"]'

exit $failed
