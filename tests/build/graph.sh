#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# graph.sh [REPO [REV]]   (TAP on stdout)
#
# The dependency graph of the Makefile, from a fresh clone of REPO's REV
# (default: this tree's HEAD), on a machine that already has every
# package: the package install cannot fail here, so the test watches its
# order instead.  In the clone scripts/deps.sh is a stand-in that records
# "install" and (after a pause, so that "make -j" shows what does not
# wait) marks the packages installed; scripts/kver.sh and the tools that
# come from packages (gcc, rsync, sparse, qemu, python3, apt-cache...) are
# wrapped by PATH shims that record each call and flag one made before
# the install.  Then:
#   - "make help" and "make clean" run nothing of that (no install either);
#   - for each top-level goal, "make -n GOAL" runs and prints nothing
#     that needs a package before the install, and nothing that uses the
#     kselftest harness before it is extracted;
#   - for each package profile (userspace: lib, tools, install; modules:
#     "modules KVER=RELEASE"; deb: deb), "make -n GOAL" orders the same
#     way and installs only its profile: no QEMU, linux-source, stress-ng,
#     abigail nor the test kernels' headers (modules: only RELEASE's);
#   - "make -j4 lib docs-check" really runs in a fresh build tree.
# No VM boots: the goals that boot one are only dry runs.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
repo=${1:-$top}
rev=${2:-HEAD}
goals="demo demo-distributed all selftests kstyle-check bench-ode check docs-check"
# Goals of the small profiles, and the one kernel "make modules" builds
# for here: any release whose headers are installed (the running kernel
# may have none, in a container).
profile_goals="lib tools install modules deb"
krel=$(ls -d /lib/modules/*/build 2>/dev/null | head -n 1 | cut -d/ -f4)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
events=$work/events
installed=$work/installed

. "$top/tests/lib/tap.sh"
show() { sed 's/^/# /' "$@" | head -n 30; }

echo "TAP version 13"
echo "1..$((5 + 2 * $(echo $goals | wc -w) + 3 * $(echo $profile_goals | wc -w)))"

git clone -q "$repo" "$work/src" && git -C "$work/src" checkout -q "$rev"
check "fresh clone of $rev" test $? -eq 0 || exit 1
src=$work/src

# The stand-ins.
mv "$src/scripts/kver.sh" "$src/scripts/kver.real"
cat >"$src/scripts/deps.sh" <<EOS
#!/bin/bash
echo "install \$*" >>'$events'
echo '@@ install @@'
sleep 2
touch '$installed'
EOS
cat >"$src/scripts/kver.sh" <<EOS
#!/bin/bash
echo "kver" >>'$events'
[ -e '$installed' ] || echo "EARLY kver.sh" >>'$events'
exec "\$(dirname "\$0")/kver.real" "\$@"
EOS
chmod +x "$src/scripts/deps.sh" "$src/scripts/kver.sh"
mkdir "$work/shims"
realpath_=$PATH
for t in gcc cc c99 ld ar rsync sparse qemu-system-x86_64 python3 \
	apt-cache apt-get dpkg-query abidw abidiff pkg-config depmod; do
	cat >"$work/shims/$t" <<EOS
#!/bin/bash
echo "$t" >>'$events'
[ -e '$installed' ] || echo "EARLY $t \$*" >>'$events'
PATH='$realpath_' exec $t "\$@"
EOS
	chmod +x "$work/shims/$t"
done
export PATH=$work/shims:$PATH
unset MAKEFLAGS MFLAGS MAKELEVEL O

fresh() { rm -rf "$src/build" "$installed"; : >"$events"; }
early() { grep -q '^EARLY' "$events"; }

# help and clean: nothing at all.
fresh
(cd "$src" && make help && make clean) >"$work/help.out" 2>&1
check "make help and make clean run no package tool and install nothing" \
	eval "[ ! -s '$events' ] && grep -q 'check' '$work/help.out'" ||
	{ show "$events"; show "$work/help.out"; }

# Printed before the install (dry run): only directory bookkeeping.
ordered() {	# OUT: the install comes first, the harness before its users
	awk '
	/@@ install @@|scripts\/deps\.sh / { inst = 1; next }
	/extract-linux-source\.sh/ { harness = 1 }
	/^make(\[[0-9]+\])?: / || /^(mkdir|rm|touch|echo|for|true|:)( |$)/ || /^$/ { next }
	!inst { print "before the install: " $0; bad = 1 }
	/\/harness\b|harness\/scripts/ && !harness {
		print "harness used before extracting it: " $0; bad = 1 }
	END { exit bad }' "$1" >"$1.bad"
}
# A missing rule is a broken graph, but for kbuild's own dry run in a
# module tree that only a real run copies.
norule() { grep 'No rule to make target' "$1" | grep -v '/kmod-[^/]*/Makefile'; }
for g in $goals; do
	fresh
	(cd "$src" && make -n "$g") >"$work/$g.out" 2>&1
	# Its status does not count: recursive makes (kbuild, check's parts)
	# run as dry runs too and stumble on files a dry run does not make.
	check "make -n $g: nothing needing a package runs before the install" \
		eval "! early && ! norule '$work/$g.out'" ||
		{ show "$events"; norule "$work/$g.out" | show; }
	check "make -n $g: nothing needing a package is printed before the install" \
		ordered "$work/$g.out" || show "$work/$g.out.bad"
done

# The small profiles: ordered as above, and only their own packages.
foreign='qemu|linux-source|linux-headers|stress-ng|abigail|rt-tests|sundials'
for g in $profile_goals; do
	fresh
	args=$g
	[ "$g" = modules ] && args="modules KVER=$krel"
	(cd "$src" && make -n $args) >"$work/$g.out" 2>&1
	check "make -n $args: nothing needing a package runs before the install" \
		eval "! early && ! norule '$work/$g.out'" ||
		{ show "$events"; norule "$work/$g.out" | show; }
	check "make -n $args: nothing needing a package is printed before the install" \
		ordered "$work/$g.out" || show "$work/$g.out.bad"
	pkgs=$(sed -n 's/^install //p' "$events" | tr ' ' '\n' | sort -u)
	bad=$(echo "$pkgs" | grep -E "$foreign")
	[ "$g" = modules ] && bad=$(echo "$bad" | grep -vx "linux-headers-$krel")
	check "make $args installs its profile only ($(echo $pkgs | wc -w) packages)" \
		eval "[ -n '$pkgs' ] && [ -z '$bad' ] &&
			{ [ '$g' != modules ] ||
			  echo '$pkgs' | grep -qx 'linux-headers-$krel'; }" ||
		{ echo "# installs: $(echo $pkgs)"; echo "# not of the profile: $(echo $bad)"; }
done

# Statically: a fragment's rule that names a variable the Makefile sets
# only after including the fragments loses that prerequisite.
"$top/tests/build/late-vars.sh" "$src" >"$work/late.out" 2>&1
check "no fragment rule names a variable assigned after the fragments" \
	test $? -eq 0 || show "$work/late.out"

# A real parallel build: nothing may overtake the (slow) install.
fresh
(cd "$src" && make -j4 lib docs-check) >"$work/j.out" 2>&1
st=$?
check "make -j4 lib docs-check from a fresh clone (status $st)" test $st -eq 0 ||
	show "$work/j.out"
check "make -j4: no package tool ran before the install" eval "! early" ||
	grep '^EARLY' "$events" | show
exit $failed
