#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Kernel style as TAP: checkpatch (--strict) on every kernel and uapi file,
# then, for every kernel tree, a sparse (C=2) and W=1 build that must
# print no warning.
# Usage: kcheck.sh CHECKPATCH KDIR MODDIR [KDIR MODDIR]...
set -uo pipefail

checkpatch=$1
shift
files=$(find kernel include/uapi -name '*.[ch]' | sort)
n=$(($(wc -w <<<"$files") + $# / 2))
echo "TAP version 13"
echo "1..$n"
i=0
for f in $files; do
	i=$((i + 1))
	ignore=FILE_PATH_CHANGES,SPDX_LICENSE_TAG
	# the compat header is where an out-of-tree module tests the version
	[ "$f" = kernel/compat.h ] && ignore=$ignore,LINUX_VERSION_CODE
	out=$(perl "$checkpatch" --no-tree --strict --terse \
		--ignore "$ignore" -f "$f" 2>&1 |
		grep -E '(ERROR|WARNING|CHECK):')
	if [ -z "$out" ]; then
		echo "ok $i checkpatch $f"
	else
		echo "not ok $i checkpatch $f"
		sed 's/^/# /' <<<"$out"
	fi
done
# Every object is rebuilt so that sparse and the compiler see every file.
while [ $# -ge 2 ]; do
	kdir=$1 moddir=$2
	shift 2
	i=$((i + 1))
	find "$moddir" -name '*.o' -delete
	# its own make, not a sub-make of "make -j": no jobserver to inherit
	out=$(env -u MAKEFLAGS -u MFLAGS make -s -C "$kdir" M="$moddir" C=2 W=1 modules 2>&1 |
		grep -E 'warning|error' )
	what="sparse and W=1 build without a warning against ${kdir##*/linux-headers-}"
	if [ -z "$out" ]; then
		echo "ok $i $what"
	else
		echo "not ok $i $what"
		sed 's/^/# /' <<<"$out"
	fi
done
