#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-debug-kernel.sh [--kcsan] DIR
#
# Build a debug kernel of "make check-debug" from Debian's
# linux-source-6.1: x86_64_defconfig + kvm_guest.config +
# scripts/debug-kernel.config (lockdep, DEBUG_ATOMIC_SLEEP, KASAN, KFENCE,
# kmemleak, UBSAN; virtio and 9p built in; COMEDI as modules), bzImage and
# modules with make -j2: the VM flavour "debug".  With --kcsan,
# scripts/debug-kernel-kcsan.config is merged last (KCSAN instead of KASAN,
# which cannot share a kernel with it): the VM flavour "kcsan".  Then
# record the paths in DIR/kernel.env, in the format of
# scripts/vm-kernels.sh (KREL, PKG, VERSION, VMLINUZ, VMLINUX, MODDIR) plus
# KBUILD, the tree to build external modules against.
#
# The build is cached in $O/debug-kernel/KEY ($O/debug-kernel-kcsan/KEY
# with --kcsan; $O defaults to build/ at the top), KEY naming the source
# package's version and a hash of the config fragments and of the build
# recipe's revision (rev below: raise it when the recipe changes what gets
# built): a second run with the same inputs builds nothing.  Older keys
# are removed after a successful build (a tree is a few GB).  The
# compiler's output goes to KEY/build.log.  An interrupted build resumes
# where it stopped (make is incremental; the extraction and configuration
# are redone only if they did not finish).
set -euo pipefail

prog=${0##*/}
variant=debug
if [ "${1:-}" = --kcsan ]; then
	variant=kcsan
	shift
fi
[ $# -eq 1 ] || {
	echo "usage: $prog [--kcsan] DIR" >&2
	exit 2
}
top=$(cd "$(dirname "$0")/.." && pwd)
O=${O:-$top/build}
frags=("$top/scripts/debug-kernel.config")
cache=$O/debug-kernel
if [ $variant = kcsan ]; then
	frags+=("$top/scripts/debug-kernel-kcsan.config")
	cache=$O/debug-kernel-kcsan
fi
jobs=${DEBUG_KERNEL_JOBS:-2}

tarball=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -n 1)
ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || true)
if [ -z "$tarball" ] || [ -z "$ver" ]; then
	echo "$prog: linux-source-6.1 is not installed (scripts/deps.sh)" >&2
	exit 1
fi
rev=1
# The debug flavour's hash is the one of its single fragment, as before
# --kcsan existed: its cached build stays valid.
hash=$( (cat "${frags[@]}" && echo "rev=$rev") | sha256sum | cut -c1-12)
key=6.1-${ver//[^A-Za-z0-9.+-]/_}-$hash
kb=$cache/$key
src=$kb/linux-source-6.1
root=$kb/root

mkdir -p "$cache" "$1"
dir=$(cd "$1" && pwd)
# One build at a time; a second caller waits for the first one's result.
exec 9>"$cache/.lock"
flock 9

configure() {
	rm -rf "$kb"
	mkdir -p "$kb"
	tar -xf "$tarball" -C "$kb"
	(
		cd "$src"
		# The release name the guest's uname -r shows.
		printf 'CONFIG_LOCALVERSION="-rths-%s"\n# CONFIG_LOCALVERSION_AUTO is not set\n' \
			"$variant" >"$kb/local.config"
		make -s x86_64_defconfig
		scripts/kconfig/merge_config.sh -m .config \
			kernel/configs/kvm_guest.config "${frags[@]}" "$kb/local.config"
		make -s olddefconfig
	) >"$kb/build.log" 2>&1 || {
		echo "$prog: configuration failed; see $kb/build.log" >&2
		exit 1
	}
	# Every option the fragments ask for (the last one to name an option
	# wins) must have survived olddefconfig (a dependency left out drops
	# it silently).
	bad=0
	declare -A want=()
	local order=() line opt got
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) opt=${line%%=*} ;;
		"# CONFIG_"*" is not set") opt=${line#\# } opt=${opt%% *} line= ;;
		*) continue ;;
		esac
		[ -n "${want[$opt]+set}" ] || order+=("$opt")
		want[$opt]=$line
	done < <(cat "${frags[@]}")
	for opt in "${order[@]}"; do
		got=$(grep -E "^$opt=" "$src/.config" || true)
		if [ "$got" != "${want[$opt]}" ]; then
			echo "$prog: ${frags[*]##*/}: $opt: wanted '${want[$opt]:-not set}', .config has '${got:-not set}'" >&2
			bad=1
		fi
	done
	[ $bad -eq 0 ] || exit 1
	touch "$kb/configured"
}

if ! [ -f "$kb/built" ]; then
	start=$SECONDS
	if [ -f "$kb/configured" ]; then
		echo "$prog: resuming the $variant kernel's build in $kb (log: $kb/build.log)" >&2
	else
		echo "$prog: building the $variant kernel in $kb (log: $kb/build.log)" >&2
		configure
	fi
	if ! make -C "$src" -j"$jobs" bzImage modules >>"$kb/build.log" 2>&1; then
		echo "$prog: the kernel build failed; last lines of $kb/build.log:" >&2
		tail -n 30 "$kb/build.log" >&2
		exit 1
	fi
	make -C "$src" -s INSTALL_MOD_PATH="$root" INSTALL_MOD_STRIP=1 \
		modules_install >>"$kb/build.log" 2>&1
	krel=$(make -C "$src" -s kernelrelease)
	mkdir -p "$root/boot"
	cp "$src/arch/x86/boot/bzImage" "$root/boot/vmlinuz-$krel"
	cp "$src/vmlinux" "$root/boot/vmlinux-$krel"
	echo "$krel" >"$kb/built"
	echo "$prog: built $krel in $(((SECONDS - start) / 60)) min" >&2
	for old in "$cache"/*/; do
		[ "${old%/}" = "$kb" ] || rm -rf "${old:?}"
	done
fi

krel=$(cat "$kb/built")
# VMLINUX stays empty, so run-vm.sh boots the bzImage: QEMU's PVH entry
# into this vmlinux (117 MB with KASAN) ended the guest at once.
# Rewritten only when it changes: run-vm.sh rebuilds the initramfs when
# kernel.env is newer.
cat >"$dir/kernel.env.new" <<EOF
KREL=$krel
PKG=linux-source-6.1-$variant-$key
VERSION=$ver
VMLINUZ=$root/boot/vmlinuz-$krel
VMLINUX=
MODDIR=$root/lib/modules/$krel
KBUILD=$src
EOF
if cmp -s "$dir/kernel.env.new" "$dir/kernel.env"; then
	rm "$dir/kernel.env.new"
else
	mv "$dir/kernel.env.new" "$dir/kernel.env"
fi
echo "vmlinuz=$root/boot/vmlinuz-$krel"
echo "vmlinux="
echo "modules=$root/lib/modules/$krel"
echo "kbuild=$src"
