#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages named on the command line that are missing.
# Uses apt exactly as this machine has it configured.  Quiet when nothing
# is missing, so that it can run before every build.
#
# A name with @KVER@ (linux-headers-@KVER@-amd64) stands for the 6.1
# kernel ABI scripts/kver.sh names, @KVER612@ for the 6.12 one; they are
# resolved after the other packages are in, and after apt-get update if
# apt does not know the ABI yet.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

sudo=
updated=
apt_update() {
	[ -n "$updated" ] && return 0
	$sudo apt-get update -qq
	updated=1
}

install_missing() {
	local missing=() p
	for p in "$@"; do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
				grep -q "install ok installed"; then
			missing+=("$p")
		fi
	done
	[ ${#missing[@]} -eq 0 ] && return 0

	echo "deps: installing ${missing[*]}"
	if [ "$(id -u)" -ne 0 ]; then
		sudo=sudo
		command -v sudo >/dev/null || {
			echo "deps: missing packages and not root: ${missing[*]}" >&2
			exit 1
		}
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt_update
	$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

plain=() kdep=()
for p in "$@"; do
	case $p in
	*@KVER@* | *@KVER612@*) kdep+=("$p") ;;
	*) plain+=("$p") ;;
	esac
done
install_missing "${plain[@]}"
[ ${#kdep[@]} -eq 0 ] && exit 0

abi() {
	"$top/scripts/kver.sh" "$1" 2>/dev/null || {
		apt_update
		"$top/scripts/kver.sh" "$1"
	}
}
kver=$(abi 6.1)
kdep=("${kdep[@]//@KVER@/$kver}")
if [[ "${kdep[*]}" == *@KVER612@* ]]; then
	kver612=$(abi 6.12)
	kdep=("${kdep[@]//@KVER612@/$kver612}")
fi
install_missing "${kdep[@]}"
