#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Extract the kernel's YNL tooling from Debian's linux-source-6.12 tarball
# into DIR, with the tree's layout: tools/net/ynl (cli.py and its lib) and
# Documentation/netlink (the spec schemas and the kernel's own specs, of
# which the checks use nlctrl.yaml).  DIR/.stamp names the tarball.
set -euo pipefail

dir=${1:?usage: extract-ynl.sh DIR}
tarball=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -n 1)
if [ -z "$tarball" ]; then
	echo "extract-ynl: linux-source-6.12 is not installed" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xf "$tarball" -C "$tmp" --wildcards \
	'*/tools/net/ynl/cli.py' '*/tools/net/ynl/lib/*.py' \
	'*/Documentation/netlink/*.yaml'  # with specs/: * matches /
src=$(echo "$tmp"/linux-source-6.12)
rm -rf "$dir"
mkdir -p "$dir/tools/net" "$dir/Documentation"
cp -r "$src/tools/net/ynl" "$dir/tools/net/"
cp -r "$src/Documentation/netlink" "$dir/Documentation/"
echo "$tarball" >"$dir/.stamp"
