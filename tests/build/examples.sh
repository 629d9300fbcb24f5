#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# examples/c as a researcher builds it: "make install DESTDIR=STAGE
# PREFIX=/usr", then the example's own Makefile with pkg-config pointed at
# the staged install, shared and static (pkg-config --static), run offline
# and compared with an independent central-difference reference.  TAP.
# Usage: examples.sh RESULTS_DIR (from the top of the tree; $MAKE, $O)
set -uo pipefail

top=$(pwd)
make=${MAKE:-make}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stage=$work/stage
record=$top/tests/data/elcentro-ns-1940.AT2
# What a careful user builds with: warnings are errors.
cflags="-O2 -g -Wall -Wextra -Werror"
. "$top/tests/lib/tap.sh"
show() { sed 's/^/# /' "$1" | tail -n 20; }

echo "TAP version 13"
echo "1..14"
$make --no-print-directory ${O:+O="$O"} install DESTDIR="$stage" PREFIX=/usr \
	>"$work/install.log" 2>&1
check "make install DESTDIR=... PREFIX=/usr" test $? -eq 0 || show "$work/install.log"

# A static link sees the API alone, as the shared library exports it:
# librths's internals (la_*, ode_*, json readers) are local in the archive.
foreign=$(nm -g --defined-only "$stage/usr/lib/librths.a" 2>&1 |
	awk 'NF == 3 && $3 !~ /^rths_/ { print $3 }')
check "the installed librths.a defines no global symbol but rths_*" \
	test -z "$foreign" -a -s "$stage/usr/lib/librths.a" ||
	echo "$foreign" | head -n 5 | sed 's/^/# /'

# Only the staged rths.pc, as if installed in /usr on this machine.
export PKG_CONFIG_SYSROOT_DIR=$stage
export PKG_CONFIG_PATH=$stage/usr/lib/pkgconfig
for kind in shared static; do
	mkdir -p "$work/$kind"
	cp examples/c/own-loop.c examples/c/Makefile "$work/$kind/"
done
make -C "$work/shared" CFLAGS="$cflags" >"$work/shared.log" 2>&1
check "the example builds with pkg-config --cflags --libs rths" \
	test $? -eq 0 || show "$work/shared.log"
check "it links librths.so.2" \
	grep -q 'NEEDED.*\[librths\.so\.2\]' <(readelf -d "$work/shared/own-loop" 2>&1)
make -C "$work/static" STATIC=1 CFLAGS="$cflags" >"$work/static.log" 2>&1
check "the example links librths.a with pkg-config --static --libs rths" \
	test $? -eq 0 || show "$work/static.log"
check "the static one needs no librths.so" \
	eval "! readelf -d '$work/static/own-loop' | grep -q 'NEEDED.*librths'"

LD_LIBRARY_PATH=$stage/usr/lib "$work/shared/own-loop" -o "$record" \
	>"$work/shared.out" 2>"$work/shared.err"
check "it runs offline to the end of the record" test $? -eq 0 -a \
	"$(wc -l <"$work/shared.out")" -gt 1000 || show "$work/shared.err"
"$work/static/own-loop" -o "$record" >"$work/static.out" 2>&1
check "the static build gives the same history" \
	cmp -s "$work/shared.out" "$work/static.out"

# An ideal actuator and a linear specimen (ke) make the loop a plain
# central-difference run with kn + ke: the example's constants.
awk -v m=2000 -v c=5477 -v k=1.5e6 -v dt=0.009765625 \
	-f tests/build/cd-reference.awk "$record" >"$work/ref.out"
cmp_ref() {
	[ "$(wc -l <"$work/ref.out")" -eq "$(wc -l <"$work/shared.out")" ] &&
		paste "$work/ref.out" "$work/shared.out" | awk '
		{ d = $2 - $4; if (d < 0) d = -d; if (d > md) md = d
		  a = $2 < 0 ? -$2 : $2; if (a > p) p = a }
		END { printf "# peak %.6g m, largest difference %.3g m\n", p, md
		      exit !(p > 1e-3 && md <= 1e-9 * p) }'
}
check "offline, it agrees with the reference (rel. 1e-9)" cmp_ref

# examples/plugin as a researcher builds it: its Makefile against the
# staged headers, no librths in the object; the staged rths-run runs
# examples/two-story-frame.json with "cr" and with the plug-in, and the
# histories agree in every column but the compute time.
mkdir -p "$work/plugin"
cp examples/plugin/cr_plugin.c examples/plugin/poly_comp.c \
	examples/plugin/Makefile examples/plugin/two-story-frame.json \
	examples/plugin/two-story-frame-poly.json "$work/plugin/"
make -C "$work/plugin" CFLAGS="$cflags" >"$work/plugin.log" 2>&1
check "examples/plugin builds with pkg-config --cflags rths" \
	test $? -eq 0 || show "$work/plugin.log"
# a plug-in exports its type and needs no librths symbol
exports_type() {
	nm -D --defined-only "$1" | grep -q " $2\$" &&
		! nm -D --undefined-only "$1" | grep -q ' rths_'
}
check "the plug-in exports rths_integrator_type and needs no rths_ symbol" \
	exports_type "$work/plugin/cr_plugin.so" rths_integrator_type
check "the compensator exports rths_compensator_type and needs no rths_ symbol" \
	exports_type "$work/plugin/poly_comp.so" rths_compensator_type
run() {
	"$stage/usr/bin/rths-run" --offline -q --no-plots --no-reference \
		-d 4 -o "$@" >>"$work/run.log" 2>&1
}
# every column of the history but the compute time
hist() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "compute_us") c = i }
		{ if (c) $c = ""; print }' "$1/history.csv"
}
same_history() {
	run "$work/cr.out" examples/two-story-frame.json &&
		run "$work/plugin.out" "$work/plugin/two-story-frame.json" &&
		[ "$(wc -l <"$work/cr.out/history.csv")" -gt 1000 ] &&
		cmp -s <(hist "$work/cr.out") <(hist "$work/plugin.out")
}
check "rths-run: the plug-in's history is cr's (all but compute_us)" \
	same_history || show "$work/run.log"
# the compensator: the same file with the built-in polynomial of the
# same order and delay
jq '.compensation = { "method": "polynomial", "order": 2, "delay": 0.012 }' \
	examples/plugin/two-story-frame-poly.json >"$work/poly-builtin.json"
same_compensation() {
	run "$work/poly.out" "$work/poly-builtin.json" &&
		run "$work/polyplug.out" \
			"$work/plugin/two-story-frame-poly.json" &&
		[ "$(wc -l <"$work/poly.out/history.csv")" -gt 1000 ] &&
		cmp -s <(hist "$work/poly.out") <(hist "$work/polyplug.out")
}
check "rths-run: the compensator's history is polynomial's (all but compute_us)" \
	same_compensation || show "$work/run.log"
exit $failed
