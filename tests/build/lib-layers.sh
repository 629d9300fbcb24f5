#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# librths's layers (Documentation/architecture.rst, "Userspace layers").
# It reads and writes files in one layer: lib/files (experiment files,
# ground-motion records, CSV outputs) sits above the engine, which takes
# structs, never paths or JSON.  The layers below lib/files never include
# jansson or a lib/files header; lib/hs opens no file and takes no path.
# No folder includes another folder's private header (lib/common's and
# lib/la/la.h, the bottom layers' internal API, excepted): a layer uses
# the one below through its public API.  The device layer does no
# numerics: no lib/la header in lib/dev (plant design is lib/plant's).
# TAP.  usage: lib-layers.sh TOP
top=${1:-.}
below="lib/common lib/la lib/dev lib/ode lib/hs"
# The device backend's trace (hs_backend.h's trace_path) is the one file
# the engine still opens, until the backend takes a FILE *.
opens_ok="lib/hs/backend_device.c"

echo "TAP version 13"
echo "1..6"
# $1: test number; $2: description; $3: offending files, one a line
report() {
	if [ -z "$3" ]; then
		echo "ok $1 $2"
	else
		echo "not ok $1 $2"
		printf '%s\n' "$3" | sed 's/^/#   /'
	fi
}
srcs() {
	for d in $below; do
		[ -d "$top/$d" ] && grep -rlE "$1" "$top/$d" \
			--include='*.c' --include='*.h'
	done | sed "s|^$top/||"
}

report 1 "no jansson below lib/files" "$(srcs '<jansson\.h>|json_t\b')"
report 2 "no lib/files header below lib/files" "$(srcs '#include "files/')"
opens=$(for d in lib/hs; do
	grep -rlE '\bfopen\(|\bopen\(' "$top/$d" --include='*.c' \
		--include='*.h'
done | sed "s|^$top/||" | grep -vxF "$opens_ok")
report 3 "lib/hs opens no file" "$opens"
paths=$(grep -rnE 'const char \*(path|file|filename)\b' "$top/lib/hs" \
	"$top"/include/rths/hs*.h --include='*.c' --include='*.h' |
	sed "s|^$top/||")
report 4 "lib/hs and the engine's headers take no path" "$paths"
# A folder's headers are its own; another folder's only lib/common's and
# lib/la's la.h, the two bottom layers' internal API.
cross=$(cd "$top" && grep -rnE '#include "[a-z_]+/[a-z_.]+"' lib \
	--include='*.c' --include='*.h' |
	awk -F: '{ split($1, f, "/"); split($3, h, "\""); split(h[2], g, "/");
		if (f[2] != g[1] && g[1] != "common" && g[1] != "rths" &&
		    h[2] != "la/la.h")
			print }')
report 5 "no folder includes another folder's private header" "$cross"
report 6 "no linear algebra in the device layer" \
	"$(cd "$top" && grep -rlE '#include "la/|<lapacke\.h>|<cblas\.h>' lib/dev)"
