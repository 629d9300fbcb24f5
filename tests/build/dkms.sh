#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dkms.conf as a lab PC uses it: "dkms build" of the tree against each
# kernel whose headers are given, in a private DKMS tree (nothing is
# installed).  Every kernel gets rths.ko and rths_sim.ko, and
# rths_comedi.ko exactly when its .config has CONFIG_COMEDI; each module's
# vermagic names that kernel.  TAP.
# Then "make dkms-install" for the first kernel, twice (the second
# removes the first), into private trees: HEAD's sources alone, the
# version in dkms.conf, the modules installed.
# Usage: dkms.sh KREL... (from the top of the tree; $MAKE, $O), e.g.
# 6.1.0-57-amd64
set -uo pipefail

top=$(pwd)
# Not the calling make's variables (O=...) into the kbuilds dkms runs.
unset MAKEFLAGS MFLAGS MAKELEVEL
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$top/tests/lib/tap.sh"
version=$(scripts/version.sh)
src=$work/src/rths-$version
mkdir -p "$src" "$work/tree" "$work/inst"
cp -r Kbuild kernel include "$src/"
sed "s/#MODULE_VERSION#/$version/" dkms.conf >"$src/dkms.conf"

echo "TAP version 13"
echo "1..$(($# * 2 + 3))"
for krel in "$@"; do
	log=$work/$krel.log
	dkms build "rths/$version" -k "$krel" --sourcetree "$work/src" \
		--dkmstree "$work/tree" --installtree "$work/inst" \
		>"$log" 2>&1
	check "dkms build against $krel" test $? -eq 0 ||
		sed 's/^/# /' "$log" | tail -n 20
	want="rths rths_sim"
	grep -Eq '^CONFIG_COMEDI=(y|m)$' "/lib/modules/$krel/build/.config" &&
		want="$want rths_comedi"
	dir=$work/tree/rths/$version/$krel/x86_64/module
	got=$(cd "$dir" 2>/dev/null && ls | sed 's/\.ko\(\.[a-z]*\)\?$//' |
		sort | xargs)
	bad=
	for m in $want; do
		f=$(ls "$dir/$m.ko"* 2>/dev/null | head -n 1)
		magic=$(modinfo -F vermagic "$f" 2>/dev/null)
		[ "${magic%% *}" = "$krel" ] || bad="$bad $m:'${magic%% *}'"
	done
	check "$krel: modules {$(echo $want | tr ' ' ,)} built for it (got {$(echo $got | tr ' ' ,)})" \
		test -z "$bad" -a "$got" = "$(echo $want | tr ' ' '\n' | sort | xargs)" ||
		echo "# wrong or missing vermagic:$bad"
done

# make dkms-install, as on a lab PC but into $work/di.
di=$work/di
krel=$1
mkdir -p "$di/src" "$di/tree" "$di/inst/$krel"
for run in 1 2; do
	${MAKE:-make} --no-print-directory ${O:+O="$O"} dkms-install \
		KVER="$krel" DKMS_SRC_ROOT="$di/src" DKMS_FLAGS="--sourcetree \
		$di/src --dkmstree $di/tree --installtree $di/inst" \
		>"$work/di-$run.log" 2>&1
	st=$?
	check "make dkms-install KVER=$krel, run $run (status $st)" \
		test $st -eq 0 || tail -n 20 "$work/di-$run.log" | sed 's/^/# /'
done
got=$(ls -A "$di/src/rths-$version" | xargs)
check "/usr/src/rths-$version holds HEAD's {$got} and dkms.conf's version, rths.ko installed" \
	eval "[ '$got' = 'Kbuild dkms.conf include kernel' ] &&
		grep -qx 'PACKAGE_VERSION=\"$version\"' '$di/src/rths-$version/dkms.conf' &&
		ls '$di/inst/$krel/updates/dkms/rths.ko'* >/dev/null 2>&1"
exit $failed
