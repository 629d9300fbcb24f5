# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What the distributed benches share (bench-dist.sh, bench-dist-scale.sh):
# the test bed of tests/dist/netns.sh, sourced here, and the experiment, a
# chain of N floors, each held by its own numerical site's spring (one DOF
# each); the model holds the 1 MN/m links between floors.  Source it, then:
#
#   dist_need_root NAME     exit unless root (the sites run in network
#                           namespaces)
#   chain_experiment N STEPS FILE SITE_KEYS
#                           write the experiment file: STEPS steps of
#                           DT_TICKS/1024 s; site i (1..N) is "s<i>" with
#                           interface coordinate i-1 and the keys that the
#                           function SITE_KEYS prints for i ("port": ...)

# shellcheck source=tests/dist/netns.sh
source tests/dist/netns.sh

DT_TICKS=${DT_TICKS:-8}		# 8/1024 s a step

dist_need_root() {	# NAME
	if [ "$(id -u)" -ne 0 ]; then
		echo "$1: the sites run in network namespaces: run it as root" >&2
		exit 1
	fi
}

# An n x n matrix in JSON: entry (i, j) is awk's expression of i, j, n.
chain_matrix() {	# N EXPR
	awk -v n="$1" "BEGIN {
		printf \"[\"
		for (i = 0; i < n; i++) {
			printf \"%s[\", i ? \",\" : \"\"
			for (j = 0; j < n; j++)
				printf \"%s%.10g\", j ? \",\" : \"\", $2
			printf \"]\"
		}
		printf \"]\"
	}"
}

chain_experiment() {	# N STEPS FILE SITE_KEYS
	local n=$1 steps=$2 keys=$4 i
	{
		echo '{ "name": "chain'"$n"'", "model": { "type": "matrices",'
		echo '  "mass": '"$(chain_matrix "$n" '(i == j) * 1000')"','
		echo '  "stiffness": '"$(chain_matrix "$n" \
			'(i == j) * (i < n - 1 ? 1e6 : 5e5) - (i - j == 1 || j - i == 1) * 5e5')"' },'
		echo '  "substructure": { "command_map": '"$(chain_matrix "$n" 'i == j')"' },'
		echo '  "specimen": { "stiffness": 1e6 },'
		echo '  "device": { "rate": 1024, "step_ticks": '"$DT_TICKS"' },'
		echo '  "ground_motion": { "synthetic": { "seed": 3, "duration": 20 } },'
		echo '  "duration": '"$(awk -v s="$steps" -v d="$DT_TICKS" \
			'BEGIN { printf "%.10g", s * d / 1024 }')"','
		echo '  "outputs": { "plots": false, "reference": false },'
		echo '  "sites": ['
		for ((i = 1; i <= n; i++)); do
			printf '    { "name": "s%d", "dofs": [%d], "step_timeout": 30, %s }%s\n' \
				"$i" $((i - 1)) "$("$keys" "$i")" \
				"$([ "$i" -lt "$n" ] && echo ,)"
		done
		echo '  ] }'
	} > "$3"
}
