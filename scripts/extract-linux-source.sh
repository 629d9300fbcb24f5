#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Extract what rths needs from Debian's linux-source-6.1 tarball into DIR:
# the kselftest harness headers and checkpatch.pl with its data files.
set -euo pipefail

dir=${1:?usage: extract-linux-source.sh DIR}
tarball=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -n 1)
if [ -z "$tarball" ]; then
	echo "extract-linux-source: linux-source-6.1 is not installed" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xf "$tarball" -C "$tmp" --wildcards \
	'*/tools/testing/selftests/kselftest_harness.h' \
	'*/tools/testing/selftests/kselftest.h' \
	'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
	'*/scripts/const_structs.checkpatch'
src=$(echo "$tmp"/linux-source-6.1)
mkdir -p "$dir/scripts"
cp "$src"/tools/testing/selftests/kselftest_harness.h \
	"$src"/tools/testing/selftests/kselftest.h "$dir/"
cp "$src"/scripts/checkpatch.pl "$src"/scripts/spelling.txt \
	"$src"/scripts/const_structs.checkpatch "$dir/scripts/"
