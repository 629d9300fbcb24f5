#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh FLAVOUR DIR OUT
#
# Build the test guest's initramfs (cpio newc, gzip) into OUT for the
# kernel that scripts/vm-kernels.sh FLAVOUR DIR unpacked into DIR: a static
# busybox, tests/vm/init as /init, tests/vm/stage2, and the virtio and 9p
# modules /init needs before the host root is reachable.
set -euo pipefail

usage() {
	echo "usage: $0 stock|rt|stock-6.12|rt-6.12|debug|kcsan DIR OUT" >&2
	exit 2
}
[ $# -eq 3 ] || usage
flavour=$1
dir=$2
out=$3
case $flavour in stock | rt | stock-6.12 | rt-6.12 | debug | kcsan) ;; *) usage ;; esac
here=$(cd "$(dirname "$0")" && pwd)

# shellcheck source=/dev/null
. "$dir/kernel.env"
case $KREL in
*-rths-debug) [ "$flavour" = debug ] ;;
*-rths-kcsan) [ "$flavour" = kcsan ] ;;
*-rt-amd64) [ "${flavour%-*}" = rt ] ;;
*) [ "${flavour%-*}" = stock ] ;;
esac || {
	echo "mkinitramfs: $dir holds $KREL, not a $flavour kernel" >&2
	exit 1
}

# Debian's busybox package is dynamically linked; the initramfs has no
# libc, so it must be busybox-static's.
busybox=/bin/busybox
if ! [ -x $busybox ] || ldd $busybox >/dev/null 2>&1; then
	echo "mkinitramfs: $busybox missing or not static (install busybox-static)" >&2
	exit 1
fi

# What /init needs, with their dependencies in load order as modules.dep
# gives them (6.1 and 6.12 differ: 6.12 folds fscache into netfs).  In
# Debian's kernels all of them are modules; a built-in one is skipped (the
# debug kernel has them all built in: modprobe says "builtin", no insmod).
# The tree above lib/modules: DIR for Debian's kernels, the build cache
# for the debug kernel (scripts/build-debug-kernel.sh).
base=${MODDIR%/lib/modules/"$KREL"}
mods=$(for m in virtio_pci 9pnet_virtio 9p; do
	modprobe -d "$base" -S "$KREL" --show-depends "$m" || {
		echo "mkinitramfs: module $m not in $KREL" >&2
		exit 1
	}
done | awk '$1 == "insmod" { n = split($2, p, "/"); m = p[n];
	sub(/\.ko(\.[a-z]+)?$/, "", m); if (!seen[m]++) print m }')

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/mods"
cp $busybox "$work/bin/busybox"
install -m 755 "$here/init" "$work/init"
install -m 755 "$here/stage2" "$work/stage2"
echo "$MODDIR" >"$work/mods/moddir"
: >"$work/mods/order"

for m in $mods; do
	f=$(modinfo -b "$base" -k "$KREL" -F filename "$m" 2>/dev/null) || {
		echo "mkinitramfs: module $m not in $KREL" >&2
		exit 1
	}
	# "(builtin)" or a file; busybox's insmod wants it uncompressed.
	case $f in
	"(builtin)" | "") continue ;;
	*.ko) cp "$f" "$work/mods/$m.ko" ;;
	*.ko.xz) xz -dc "$f" >"$work/mods/$m.ko" ;;
	*.ko.zst) zstd -qdc "$f" >"$work/mods/$m.ko" ;;
	*.ko.gz) gzip -dc "$f" >"$work/mods/$m.ko" ;;
	*)
		echo "mkinitramfs: $f: unknown module format" >&2
		exit 1
		;;
	esac
	echo "$m" >>"$work/mods/order"
done

mkdir -p "$(dirname "$out")"
(cd "$work" && find . -mindepth 1 | LC_ALL=C sort |
	cpio -o -H newc -R 0:0 --quiet) | gzip -9n >"$out.new.$$"
# Renamed into place: a guest booting at the same time gets a whole one.
mv "$out.new.$$" "$out"
echo "initramfs=$out"
