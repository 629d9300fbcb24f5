#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-kernels.sh FLAVOUR DIR
#
# Fetch Debian's linux-image package for FLAVOUR (stock, rt: the 6.1
# series; stock-6.12, rt-6.12: the 6.12 series) of the ABI that
# scripts/kver.sh names for the series, unpack it into DIR and run depmod there, so
# that QEMU can boot DIR/boot/vmlinuz-KREL and the guest can modprobe from
# DIR/lib/modules/KREL.  Prints the paths (vmlinuz=, vmlinux=, modules=)
# and records them, with the package name and version, in DIR/kernel.env
# (shell syntax) for tests/vm/mkinitramfs.sh and tests/vm/run-vm.sh.
#
# FLAVOUR debug is not Debian's: the lockdep/KASAN kernel that
# scripts/build-debug-kernel.sh builds from linux-source-6.1 (cached under
# $O/debug-kernel), with a DIR/kernel.env of the same form; FLAVOUR kcsan
# its KCSAN kernel (--kcsan, cached under $O/debug-kernel-kcsan).
#
# The .deb is cached in $O/vm/debs ($O defaults to build/ at the top).
# Nothing is downloaded or unpacked again while DIR/kernel.env records the
# very package version that would be fetched.
#
# Package choice: the signed linux-image-KREL first, -unsigned as a
# fallback.  The two carry the same kernel and the same modules (Debian
# signs the modules at build time in both); only the EFI signature on
# vmlinuz differs, which QEMU's -kernel boot ignores.  The signed one is
# what linux-image-amd64 pulls onto a lab PC, so that is what we test.
set -euo pipefail

usage() {
	echo "usage: $0 stock|rt|stock-6.12|rt-6.12|debug|kcsan DIR" >&2
	exit 2
}
[ $# -eq 2 ] || usage
flavour=$1
dir=$2
top=$(cd "$(dirname "$0")/.." && pwd)
case $flavour in
stock | rt) series=6.1 ;;
stock-6.12 | rt-6.12) series=6.12 ;;
debug) exec "$top/scripts/build-debug-kernel.sh" "$dir" ;;
kcsan) exec "$top/scripts/build-debug-kernel.sh" --kcsan "$dir" ;;
*) usage ;;
esac
kver=$("$top/scripts/kver.sh" $series)
case $flavour in
stock*) krel=$kver-amd64 ;;
rt*) krel=$kver-rt-amd64 ;;
esac
O=${O:-$top/build}
cache=$O/vm/debs
mkdir -p "$cache"
dir=$(mkdir -p "$dir" && cd "$dir" && pwd)
envfile=$dir/kernel.env

# Version of a package as apt knows it; empty when apt does not.
candidate() {
	apt-cache show --no-all-versions "$1" 2>/dev/null |
		sed -n 's/^Version: //p' | head -n 1
}

# Prefer the exact version of the installed headers: modules built
# against them then match the image byte for byte (vermagic, modversions).
want=$(dpkg-query -W -f='${Version}' "linux-headers-$krel" 2>/dev/null || true)

vmlinuz=$dir/boot/vmlinuz-$krel
moddir=$dir/lib/modules/$krel

# Is DIR complete, and from package version $1?
unpacked() {
	[ -f "$envfile" ] && grep -qx "VERSION=$1" "$envfile" &&
		grep -q "^VMLINUX=" "$envfile" &&
		grep -qx "MODDIR=$moddir" "$envfile" &&
		[ -f "$vmlinuz" ] && [ -f "$moddir/modules.dep" ]
}
print_paths() {
	sed -n 's/^VMLINUZ=/vmlinuz=/p; s/^VMLINUX=/vmlinux=/p; s/^MODDIR=/modules=/p' "$envfile"
}

# Already unpacked at the headers' version: no need to ask apt (which
# takes a second or two, on every boot).
if [ -n "$want" ] && unpacked "$want"; then
	print_paths
	exit 0
fi

pick() {
	pkg='' ver=''
	local p v
	for p in "linux-image-$krel" "linux-image-$krel-unsigned"; do
		v=$(candidate "$p")
		[ -n "$v" ] || continue
		# Is the headers' version still downloadable?
		if [ -n "$want" ] && [ "$v" != "$want" ] &&
			apt-cache show "$p=$want" >/dev/null 2>&1; then
			v=$want
		fi
		pkg=$p ver=$v
		return 0
	done
	return 1
}

if ! pick; then
	# An empty or stale package list; refresh it once, as configured.
	echo "vm-kernels: linux-image-$krel unknown to apt, running apt-get update" >&2
	apt-get update -qq
	pick || {
		echo "vm-kernels: no linux-image-$krel(-unsigned) package" >&2
		exit 1
	}
fi

if unpacked "$ver" && grep -qx "PKG=$pkg" "$envfile"; then
	print_paths
	exit 0
fi

# apt-get download writes into the current directory.  As root it warns
# that the _apt sandbox user cannot write there; harmless, so drop it.
# An epoch's colon is written %3a in the file name.
deb=$cache/${pkg}_${ver/:/%3a}_amd64.deb
if [ ! -f "$deb" ]; then
	echo "vm-kernels: downloading $pkg $ver" >&2
	(cd "$cache" && apt-get download -qq "$pkg=$ver" \
		2> >(grep -v 'unsandboxed as root' >&2)) >&2
	[ -f "$deb" ] || {
		echo "vm-kernels: apt-get download left no $deb" >&2
		exit 1
	}
fi

# Unpack next to DIR and swap it in, so an interrupted run leaves no
# half-extracted tree that looks complete.
echo "vm-kernels: unpacking $(basename "$deb")" >&2
tmp=$dir/.unpack.$$
trap 'rm -rf "$tmp"' EXIT
rm -rf "$tmp" "${dir:?}/boot" "${dir:?}/lib" "$envfile"
dpkg -x "$deb" "$tmp"
if [ ! -f "$tmp/boot/vmlinuz-$krel" ] || [ ! -d "$tmp/lib/modules/$krel" ]; then
	echo "vm-kernels: $deb has no vmlinuz-$krel or lib/modules/$krel" >&2
	exit 1
fi
mv "$tmp/boot" "$tmp/lib" "$dir/"
depmod -b "$dir" "$krel"

# Also unpack the ELF vmlinux inside the compressed bzImage (xz in 6.1,
# zstd in 6.12).  QEMU boots it directly through its PVH entry point,
# which skips the decompressor: about 6 s less per boot under TCG.  The
# kernel code is the same; only the decompressor's KASLR is lost.  Empty
# if this does not work out, and run-vm.sh then boots vmlinuz.
vmlinux=$dir/boot/vmlinux-$krel
# The payload's place is in the boot protocol's setup header:
# setup_sects at 0x1f1 (0 means 4), payload_offset and payload_length at
# 0x248 and 0x24c, relative to the protected-mode code after the setup.
le32() { od -An -tu4 -j "$1" -N4 "$vmlinuz" | tr -d ' '; }
unxz_payload() {
	local sects off len magic
	sects=$(od -An -tu1 -j $((0x1f1)) -N1 "$vmlinuz" | tr -d ' ')
	[ "$sects" -eq 0 ] && sects=4
	off=$(( (sects + 1) * 512 + $(le32 $((0x248))) ))
	len=$(le32 $((0x24c)))
	magic=$(od -An -tx1 -j "$off" -N4 "$vmlinuz" | tr -d ' ')
	# tail dies of SIGPIPE once head has its bytes: the decompressor's
	# status is what counts.
	case $magic in
	fd377a58) # xz
		tail -c +$((off + 1)) "$vmlinuz" | head -c "$len" |
			xz -dcq --single-stream >"$vmlinux" ||
			[ "${PIPESTATUS[2]}" -eq 0 ] ;;
	28b52ffd) # zstd, with the kernel's 4-byte size appended
		tail -c +$((off + 1)) "$vmlinuz" | head -c $((len - 4)) |
			zstd -dcq >"$vmlinux" ||
			[ "${PIPESTATUS[2]}" -eq 0 ] ;;
	*) return 1 ;;
	esac
}
if unxz_payload &&
	readelf -n "$vmlinux" 2>/dev/null | grep -c 'Xen.*(0x00000012)' >/dev/null; then
	: # XEN_ELFNOTE_PHYS32_ENTRY (18): a PVH entry point is there
else
	echo "vm-kernels: no PVH-bootable vmlinux in $vmlinuz; QEMU boots vmlinuz" >&2
	rm -f "$vmlinux"
	vmlinux=
fi

cat >"$envfile" <<EOF
KREL=$krel
PKG=$pkg
VERSION=$ver
VMLINUZ=$vmlinuz
VMLINUX=$vmlinux
MODDIR=$moddir
EOF
echo "vmlinuz=$vmlinuz"
echo "vmlinux=$vmlinux"
echo "modules=$moddir"
