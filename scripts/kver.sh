#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print the Debian kernel ABI of a series to build and test against:
#   kver.sh [6.1]   e.g. 6.1.0-57          ($KVER wins)
#   kver.sh 6.12    e.g. 6.12.111+deb12    ($KVER612 wins)
# Never the running kernel: the override, then the newest ABI whose
# headers are installed in both flavours (stock and -rt), then the newest
# that apt knows in both.
set -euo pipefail

series=${1:-6.1}
case $series in
6.1)	override=${KVER:-} glob='6.1.0-*' re='6\.1\.0-[0-9]+' ;;
6.12)	override=${KVER612:-} glob='6.12.*+deb12' re='6\.12\.[0-9]+\+deb12' ;;
*)	echo "kver: unknown series '$series' (6.1 or 6.12)" >&2; exit 2 ;;
esac
if [ -n "$override" ]; then
	echo "$override"
	exit 0
fi
newest() { sort -V | tail -n 1; }
best=$(for d in /usr/src/linux-headers-$glob-rt-amd64; do
	[ -d "$d" ] || continue
	v=${d#/usr/src/linux-headers-}
	v=${v%-rt-amd64}
	[ -d "/usr/src/linux-headers-$v-amd64" ] && echo "$v"
done | newest)
if [ -n "$best" ]; then
	echo "$best"
	exit 0
fi
# Both flavours' headers must exist in the archive.
best=$(apt-cache pkgnames linux-headers- 2>/dev/null |
	sed -En "s/^linux-headers-($re)-rt-amd64$/\1/p" |
	while read -r v; do
		apt-cache show "linux-headers-$v-amd64" >/dev/null 2>&1 &&
			echo "$v"
	done | newest)
if [ -z "$best" ]; then
	echo "kver: cannot find a Debian $series kernel ABI (apt-get update?)" >&2
	exit 1
fi
echo "$best"
