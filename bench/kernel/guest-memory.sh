#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test guest ("make bench-memory"): the kernel memory a
# device costs, from /proc/meminfo before and after adding COUNT devices
# (and starting them), against the bytes its rings' records need.
#   needed = cmd-entries x (16 + 8 n) + fb-entries x (32 + 24 n)
#            + trace-entries x (40 + 24 n)          (n channels)
# The record sizes are the uapi's RTHS_*_ENTRY_SIZE(n).
# Usage: guest-memory.sh KMOD_DIR RTHSCTL [COUNT]
set -euo pipefail

kmod=$1 ctl=$2 count=${3:-32}
insmod "$kmod/kernel/rths.ko"
insmod "$kmod/kernel/cards/rths_sim.ko"
echo "kernel $(uname -r), $count devices a row"

# The kernel's own memory, in KiB: slab (which counts kmalloc's large,
# page-allocator blocks too), vmalloc (the mmap region; the loop
# thread's stack, with VMAP_STACK, so KernelStack is not added again)
# and per-CPU.  MemFree moves with the page cache and the per-CPU page
# lists as well, and is too noisy for this.
snap() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	awk '/^(Slab|VmallocUsed|Percpu):/ { printf "%s=%s ", $1, $2 }' \
		/proc/meminfo | tr -d :
}
val() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

printf '  %-30s %9s %9s %9s %9s %9s %6s\n' "device" "needed B" "kernel B" \
	"region B" "vmalloc B" "slab B" "ratio"
row() {	# row LABEL CHANNELS CMD FB TRACE [start]
	local label=$1 n=$2 cmd=$3 fb=$4 trace=$5 start=${6:-} i b a
	local need region clock="clock manual"
	need=$((cmd * (16 + 8 * n) + fb * (32 + 24 * n) + trace * (40 + 24 * n)))
	# A running device on the hrtimer clock has its loop thread too.
	[ -z "$start" ] || clock="clock hrtimer rate 128"
	b=$(snap)
	for i in $(seq 1 "$count"); do
		"$ctl" dev add "m$i" type sim channels "$n" >/dev/null
		"$ctl" dev set "m$i" $clock cmd-entries "$cmd" \
			fb-entries "$fb" trace-entries "$trace" >/dev/null
		[ -z "$start" ] || "$ctl" run start "m$i" >/dev/null
	done
	a=$(snap)
	region=$("$ctl" -j dev show m1 | grep -o '"mmap_size": *[0-9]*' |
		grep -o '[0-9]*$')
	awk -v l="$label" -v c="$count" -v need="$need" -v region="$region" \
		-v v0="$(val "$b" VmallocUsed)" -v v1="$(val "$a" VmallocUsed)" \
		-v p0="$(val "$b" Percpu)" -v p1="$(val "$a" Percpu)" \
		-v s0="$(val "$b" Slab)" -v s1="$(val "$a" Slab)" 'BEGIN {
		v = (v1 - v0) * 1024 / c; s = (s1 - s0) * 1024 / c
		k = v + s + (p1 - p0) * 1024 / c
		printf "  %-30s %9d %9.0f %9d %9.0f %9.0f %6.2f\n", l, need, k,
			region, v, s, k / need }'
	for i in $(seq 1 "$count"); do
		[ -z "$start" ] || "$ctl" run stop "m$i" now >/dev/null
		"$ctl" dev del "m$i" >/dev/null
	done
}

row "1 channel, default rings" 1 64 1024 0
row "8 channels, default rings" 8 64 1024 0
row "8 channels, trace 16384" 8 64 1024 16384
row "8 channels, default, running" 8 64 1024 0 start
