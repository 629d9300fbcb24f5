#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Kernel style as TAP: checkpatch (--strict) on every kernel and uapi file,
# then a sparse (C=2) and W=1 build that must print no warning.
# Usage: kcheck.sh CHECKPATCH KDIR MODDIR
set -uo pipefail

checkpatch=$1 kdir=$2 moddir=$3
files=$(find kernel include/uapi -name '*.[ch]' | sort)
n=$(($(wc -w <<<"$files") + 1))
echo "TAP version 13"
echo "1..$n"
i=0
for f in $files; do
	i=$((i + 1))
	out=$(perl "$checkpatch" --no-tree --strict --terse \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG -f "$f" 2>&1 |
		grep -E '(ERROR|WARNING|CHECK):')
	if [ -z "$out" ]; then
		echo "ok $i checkpatch $f"
	else
		echo "not ok $i checkpatch $f"
		sed 's/^/# /' <<<"$out"
	fi
done
# Every object is rebuilt so that sparse and the compiler see every file.
find "$moddir" -name '*.o' -delete
out=$(make -s -C "$kdir" M="$moddir" C=2 W=1 modules 2>&1 |
	grep -E 'warning|error' )
if [ -z "$out" ]; then
	echo "ok $n sparse and W=1 build without a warning"
else
	echo "not ok $n sparse and W=1 build without a warning"
	sed 's/^/# /' <<<"$out"
fi
