#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages named on the command line that are missing.
# Uses apt exactly as this machine has it configured.  Quiet when nothing
# is missing, so that it can run before every build.
set -euo pipefail

missing=()
for p in "$@"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	sudo=sudo
	command -v sudo >/dev/null || {
		echo "deps: missing packages and not root: ${missing[*]}" >&2
		exit 1
	}
else
	sudo=
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
