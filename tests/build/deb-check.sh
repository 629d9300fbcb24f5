#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb-check.sh DEB_DIR CACHE_DIR KREL   (TAP on stdout; from the top)
#
# The packages of "make deb" as a lab PC gets them: lintian reports no
# error on them; then in a clean chroot of this machine's release (made
# by mmdebstrap from this machine's own apt sources, cached as a tarball
# in CACHE_DIR with the packages the test needs: dkms, the headers of the
# one kernel KREL, gcc), apt installs the .debs with their dependencies,
# DKMS builds and installs the modules for KREL (a kbuild needs no
# running kernel), pkg-config finds rths and a program links librths.so,
# rthsctl runs, the postinst made the group rths, and the files of the
# lab setup are in place.
set -uo pipefail

debdir=$(cd "$1" && pwd)
mkdir -p "$2"
cache=$(cd "$2" && pwd)
krel=$3
top=$(pwd)
version=$(scripts/version.sh)
work=$(mktemp -d)
root=$work/root
trap 'rm -rf "$work"' EXIT
. "$top/tests/lib/tap.sh"
show() { sed 's/^/# /' "$@" | tail -n 30; }

echo "TAP version 13"
echo "1..17"

debs=("$debdir"/*.deb)
names=$(for d in "${debs[@]}"; do dpkg-deb -f "$d" Package; done | sort | xargs)
check "make deb built rths-dkms, librths2, librths-dev, rths-tools ($names)" \
	test "$names" = "librths-dev librths2 rths-dkms rths-tools" || exit 1

lintian "${debs[@]}" >"$work/lintian.txt" 2>&1
sed -i '/running with root privileges/d' "$work/lintian.txt"
check "lintian: no error ($(grep -c '^E:' "$work/lintian.txt") E:, $(grep -c '^W:' "$work/lintian.txt") W:)" \
	eval "! grep -q '^E:' '$work/lintian.txt'"
sed 's/^/# lintian: /' "$work/lintian.txt"

# Built with dpkg-buildflags' hardening: full RELRO (BIND_NOW), a
# non-executable stack, and _FORTIFY_SOURCE's checked calls.
ext=$work/ext
mkdir -p "$ext"
for d in "${debs[@]}"; do dpkg-deb -x "$d" "$ext"; done
soft=
for f in "$ext"/usr/bin/* "$ext"/usr/lib/*/librths.so.2; do
	readelf -lW "$f" 2>/dev/null | grep -q GNU_RELRO || soft="$soft $(basename "$f"):relro"
	readelf -dW "$f" 2>/dev/null | grep -q 'BIND_NOW' || soft="$soft $(basename "$f"):now"
	readelf -lW "$f" 2>/dev/null | grep GNU_STACK | grep -q RWE && soft="$soft $(basename "$f"):execstack"
done
# (a program with no fortifiable call has no __*_chk symbol: the
# compile lines of the build log tell instead)
ncc=$(grep -c ' -c [^ ]*\.c -o' "$debdir/build.log")
nfort=$(grep ' -c [^ ]*\.c -o' "$debdir/build.log" | grep -c -- '-D_FORTIFY_SOURCE=')
[ "$ncc" -gt 0 ] && [ "$ncc" -eq "$nfort" ] || soft="$soft fortify:$nfort/$ncc"
check "the tools and librths.so.2 are hardened (relro, bind-now; _FORTIFY_SOURCE on $nfort of $ncc compiles)${soft:+: not$soft}" \
	test -z "$soft"
check "librths2 has no lintian warning about the library's directory" \
	eval "! grep -q '^[WE]: librths.*\(multiarch\|non-multi-arch\)' '$work/lintian.txt'"

# rths-tools's units as systemd reads them, in a root that holds the
# package and this machine's own units (the targets they name):
# systemd-analyze verify says nothing, or they are wrong.
units=$work/units
mkdir -p "$units/lib/systemd"
dpkg-deb -x "$(ls "$debdir"/rths-tools_*.deb)" "$units"
cp -an /lib/systemd/system/. "$units/lib/systemd/system/"
(cd "$units" && systemd-analyze verify --man=no --root="$units" \
	rths-devices.service rths-site@test.service) >"$work/verify.log" 2>&1
st=$?
check "systemd-analyze verify rths-devices.service rths-site@test.service: clean (status $st)" \
	eval "[ $st -eq 0 ] && [ ! -s '$work/verify.log' ]" || show "$work/verify.log"

# The base: this machine's release and apt sources (no archive is named
# here), and what the test needs besides the packages' dependencies, so
# that the install needs no download.
. /etc/os-release
sources=()
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
	/etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] && grep -Eq '^[[:space:]]*(deb |Types:.*deb)' "$f" &&
		sources+=("$f")
done
include="dkms linux-headers-$krel gcc make libc6-dev pkg-config
	ca-certificates libmnl-dev libjansson-dev liblapacke-dev
	libsuitesparse-dev libgnutls30"
key=$(echo "$VERSION_CODENAME $include" | cat - "${sources[@]}" | md5sum | cut -c1-12)
base=$cache/base-$VERSION_CODENAME-$key.tar
if [ ! -s "$base" ]; then
	rm -f "$cache"/base-*.tar
	mmdebstrap --variant=apt --skip=cleanup/apt/lists \
		--include="$(echo $include | tr ' ' ,)" \
		"$VERSION_CODENAME" "$cache/new.tar" "${sources[@]}" \
		>"$work/mmdebstrap.log" 2>&1 && mv "$cache/new.tar" "$base"
fi
check "a clean $VERSION_CODENAME chroot with linux-headers-$krel (cached: $(basename "$base"))" \
	test -s "$base" || { show "$work/mmdebstrap.log"; exit 1; }

mkdir -p "$root"
tar -C "$root" -xf "$base"
mkdir -p "$root/debs"
cp "${debs[@]}" "$root/debs/"
cp examples/c/own-loop.c "$root/debs/"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null
# Each command in a mount namespace of its own: /proc, /dev and /sys
# are mounted in the chroot there only, and gone when it ends (so the
# cleanup's rm -rf never reaches the host's).
in_root() {
	unshare --mount --propagation private sh -c '
		r=$1; shift
		mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" &&
			mount --rbind /sys "$r/sys" &&
			exec chroot "$r" /usr/bin/env -i \
				PATH=/usr/sbin:/usr/bin:/sbin:/bin \
				DEBIAN_FRONTEND=noninteractive "$@"' sh "$root" "$@"
}

in_root apt-get install -y --no-install-recommends \
	$(cd "$root" && ls debs/*.deb | sed 's|^|/|') >"$work/apt.log" 2>&1
check "apt-get install of the four .debs (dependencies resolved)" \
	test $? -eq 0 || show "$work/apt.log"

# The postinst builds for the kernels it finds; say which one.
in_root dkms install "rths/$version" -k "$krel" >"$work/dkms.log" 2>&1
st=$?
in_root dkms status >>"$work/dkms.log" 2>&1
check "dkms builds and installs rths/$version for $krel (status $st)" \
	eval "[ $st -eq 0 ] && grep -q 'rths/$version, $krel, x86_64: installed' '$work/dkms.log'" ||
	show "$work/dkms.log"
magic=
for m in rths rths_sim; do
	f=$(ls "$root/lib/modules/$krel/updates/dkms/$m.ko"* 2>/dev/null | head -n 1)
	v=$(modinfo -F vermagic "$f" 2>/dev/null)
	magic="$magic $m:${v%% *}"
done
check "rths.ko and rths_sim.ko in /lib/modules/$krel/updates/dkms, for $krel ($magic )" \
	test "$magic" = " rths:$krel rths_sim:$krel"

has() { [[ "$1" == $2 ]]; }
out=$(in_root pkg-config --cflags --libs rths 2>&1)
check "pkg-config --cflags --libs rths: $out" has "$out" '*-lrths*' 
in_root sh -c 'cd /debs && gcc -O2 -o own-loop own-loop.c $(pkg-config --cflags --libs rths)' \
	>"$work/cc.log" 2>&1
check "examples/c/own-loop.c builds against the installed librths-dev" \
	test $? -eq 0 || show "$work/cc.log"
in_root ldd /debs/own-loop >"$work/ldd.log" 2>&1
check "and links librths.so.2 from the multiarch directory" \
	grep -Eq "librths.so.2 => (/usr)?/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/librths.so.2 " "$work/ldd.log" ||
	show "$work/ldd.log"

out=$(in_root rthsctl --version 2>&1)
check "rthsctl --version: $out" has "$out" "rthsctl $version *"

grp=$(in_root getent group rths)
check "the postinst made the system group rths ($grp)" \
	has "$grp" 'rths:x:[0-9]*:*' 

missing=
for f in /lib/udev/rules.d/60-rths.rules /etc/security/limits.d/90-rths.conf \
	/lib/systemd/system/rths-devices.service \
	/lib/systemd/system/rths-site@.service \
	/lib/modules-load.d/rths.conf /etc/rths/devices.conf; do
	[ -f "$root$f" ] || missing="$missing $f"
done
check "the udev rule, limits, units, modules-load.d and devices.conf are installed${missing:+ (missing:$missing)}" \
	test -z "$missing"
check "rths-devices.service is enabled (multi-user.target wants it)" \
	test -L "$root/etc/systemd/system/multi-user.target.wants/rths-devices.service"
check "rthsctl -b of the installed devices.conf (comments only) does nothing, status 0" \
	in_root rthsctl -b /etc/rths/devices.conf
exit $failed
