#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Extract files or directories from Debian's linux-source-SERIES tarball
# into DIR, with the tree's layout (DIR/PATH); DIR/.stamp names the
# tarball.  Used for the kselftest harness and checkpatch.pl (6.1) and
# the YNL tooling with the netlink specs (6.12).
# Usage: extract-linux-source.sh SERIES DIR PATH...
set -euo pipefail

series=${1:?usage: extract-linux-source.sh SERIES DIR PATH...}
dir=${2:?usage: extract-linux-source.sh SERIES DIR PATH...}
shift 2
[ $# -gt 0 ] || { echo "usage: extract-linux-source.sh SERIES DIR PATH..." >&2; exit 2; }
tarball=$(ls /usr/src/linux-source-"$series".tar.* 2>/dev/null | head -n 1)
if [ -z "$tarball" ]; then
	echo "extract-linux-source: linux-source-$series is not installed" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
patterns=()
for p in "$@"; do
	patterns+=("*/$p")	# a directory comes whole
done
tar -xf "$tarball" -C "$tmp" --wildcards "${patterns[@]}"
src=$tmp/linux-source-$series
rm -rf "$dir"
for p in "$@"; do
	mkdir -p "$dir/$(dirname "$p")"
	cp -r "$src/$p" "$dir/$p"
done
echo "$tarball" >"$dir/.stamp"
