#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print the Debian 6.1 kernel ABI to build and test against, e.g. 6.1.0-57.
# Never the running kernel: $KVER wins, then the newest 6.1 headers already
# installed in both flavours, then what Debian's meta-package points at.
set -euo pipefail

if [ -n "${KVER:-}" ]; then
	echo "$KVER"
	exit 0
fi
best=
for d in /usr/src/linux-headers-6.1.0-*-rt-amd64; do
	[ -d "$d" ] || continue
	v=${d#/usr/src/linux-headers-}
	v=${v%-rt-amd64}
	[ -d "/usr/src/linux-headers-$v-amd64" ] || continue
	best=$(printf '%s\n%s\n' "$best" "$v" | sort -V | tail -n 1)
done
if [ -n "$best" ]; then
	echo "$best"
	exit 0
fi
v=$(apt-cache depends linux-headers-amd64 2>/dev/null |
	sed -n 's/.*Depends: linux-headers-\(6\.1\.0-[0-9]*\)-amd64$/\1/p' |
	head -n 1)
if [ -z "$v" ]; then
	echo "kver: cannot find a Debian 6.1 kernel ABI (apt-get update?)" >&2
	exit 1
fi
echo "$v"
