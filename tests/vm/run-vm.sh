#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run one command as root inside a QEMU (TCG) guest that boots Debian's
# own 6.1 or 6.12 kernel, stock or PREEMPT_RT (or the debug kernel built
# from linux-source-6.1), with the host's root file system
# mounted read-only and RWDIR writable at the same path.  See --help and
# Documentation/testing.rst.
set -euo pipefail

prog=${0##*/}
usage() {
	cat <<EOF
usage: $prog [OPTIONS] FLAVOUR RWDIR -- CMD [ARGS...]

Boot Debian's linux-image-\$KVER-amd64 (FLAVOUR stock) or -rt-amd64
(FLAVOUR rt), or the 6.12 series' linux-image-\$KVER612-amd64 (stock-6.12)
or -rt-amd64 (rt-6.12), or the lockdep/KASAN kernel that
scripts/build-debug-kernel.sh builds from linux-source-6.1 (debug), under
qemu-system-x86_64 -accel tcg and run CMD as root in the guest, with the current directory at the top of the repository.
The guest sees the host's / read-only and RWDIR (created if needed)
writable at the same absolute path; /tmp and /run are the guest's own.
Kernel and initramfs are fetched and built on first use, under \$O/vm
(\$O defaults to build/ at the top of the repository).

Options:
  --timeout SEC   kill the guest after SEC seconds (default $timeout)
  --smp N         virtual CPUs (default $smp)
  --mem MB        guest memory (default $mem)
  --stdout FILE   CMD's standard output goes to FILE (inside RWDIR)
                  instead of the console
  --append ARGS   more kernel command line arguments (white space
                  separated), e.g. kasan_multi_shot
  --bzimage       boot vmlinuz (bzImage, self-decompressing) instead of
                  the unpacked vmlinux through its PVH entry (~6 s slower)
  --log FILE      write the guest console to FILE (absolute, or relative
                  to the current directory) instead of standard output;
                  its last lines are printed if anything fails
  --hostfwd [ADDR:]HOSTPORT:GUESTPORT
                  give the guest QEMU's user-mode network (10.0.2.15,
                  gateway 10.0.2.2) with this TCP forward from the host's
                  ADDR:HOSTPORT (default 127.0.0.1) to the guest's
                  GUESTPORT; repeatable.  The guest reaches nothing else
                  (restrict=on).  Without it the guest has no network
  --net-ns NAME   run QEMU in the network namespace NAME (ip netns), so
                  that the forwards listen there (needs root)
  -h, --help      this text

The guest console is streamed to standard output unless --log is given.
CMD gets RTHS_VM=1, RTHS_VM_FLAVOUR, RTHS_VM_KREL and RTHS_VM_RW in its
environment and /dev/null as standard input.

A guest whose kernel crashes while booting, before the command starts,
is booted again, up to three boots in all (an emulator fault, not the
test's); the message says so and CTL/console-bootN.log keeps each
crashed boot's console.

Exit status: CMD's exit status; 125 if the guest reported none (boot
failure, kernel panic, timeout; a message says which); 2 for bad usage.
EOF
}

timeout=600
smp=2
mem=1024
stdout_file=
log=
bzimage=
fwds=()
netns=
extra=
while [ $# -gt 0 ]; do
	case $1 in
	--timeout | --smp | --mem | --stdout | --log | --hostfwd | --net-ns | \
		--append)
		[ $# -ge 2 ] || {
			echo "$prog: $1 needs an argument" >&2
			exit 2
		}
		case $1 in
		--timeout) timeout=$2 ;;
		--smp) smp=$2 ;;
		--mem) mem=$2 ;;
		--stdout) stdout_file=$2 ;;
		--log) log=$2 ;;
		--hostfwd) fwds+=("$2") ;;
		--net-ns) netns=$2 ;;
		--append) extra="$extra $2" ;;
		esac
		shift 2
		;;
	--bzimage)
		bzimage=1
		shift
		;;
	-h | --help)
		usage
		exit 0
		;;
	--)
		break
		;;
	-*)
		echo "$prog: unknown option $1 (see --help)" >&2
		exit 2
		;;
	*) break ;;
	esac
done
for n in "$timeout" "$smp" "$mem"; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || {
		echo "$prog: --timeout, --smp and --mem take positive integers" >&2
		exit 2
	}
done
# QEMU's hostfwd rules, checked here so that a typo is a usage error.
nic=(-nic none)
if [ ${#fwds[@]} -gt 0 ]; then
	user=user,model=virtio-net-pci,restrict=on
	for f in "${fwds[@]}"; do
		[[ $f =~ ^(([0-9]{1,3}\.){3}[0-9]{1,3}:)?[0-9]{1,5}:[0-9]{1,5}$ ]] || {
			echo "$prog: --hostfwd $f: expected [ADDR:]HOSTPORT:GUESTPORT" >&2
			exit 2
		}
		[[ $f =~ ^[0-9]+:[0-9]+$ ]] && f=127.0.0.1:$f
		user="$user,hostfwd=tcp:${f%:*}-:${f##*:}"
	done
	nic=(-nic "$user")
fi
if [ -n "$netns" ] && ! [[ $netns =~ ^[A-Za-z0-9_.-]+$ ]]; then
	echo "$prog: --net-ns $netns: not a network namespace name" >&2
	exit 2
fi
if [ $# -lt 4 ] || [ "$3" != -- ]; then
	usage >&2
	exit 2
fi
flavour=$1
rwdir=$2
shift 3
case $flavour in
stock | rt | stock-6.12 | rt-6.12 | debug | kcsan) ;;
*)
	echo "$prog: FLAVOUR is stock, rt, stock-6.12, rt-6.12, debug or kcsan, not '$flavour'" >&2
	exit 2
	;;
esac

top=$(cd "$(dirname "$0")/../.." && pwd)
O=${O:-$top/build}
export O
vmdir=$O/vm
kdir=$vmdir/$flavour
initrd=$vmdir/initramfs-$flavour.cpio.gz

mkdir -p "$rwdir"
rwdir=$(cd "$rwdir" && pwd -P)
# The path goes on the kernel command line (no white space there) and
# into a -virtfs option (where a comma is written twice).
if [[ $rwdir =~ [[:space:]] ]] || [ "$rwdir" = / ]; then
	echo "$prog: RWDIR must not be / or contain white space: $rwdir" >&2
	exit 2
fi
if [ -n "$stdout_file" ]; then
	case $stdout_file in /*) ;; *) stdout_file=$PWD/$stdout_file ;; esac
	d=$(cd "$(dirname "$stdout_file")" 2>/dev/null && pwd -P) || {
		echo "$prog: --stdout: no directory $(dirname "$stdout_file")" >&2
		exit 2
	}
	stdout_file=$d/$(basename "$stdout_file")
	case $stdout_file in
	"$rwdir"/*) ;;
	*)
		echo "$prog: --stdout FILE must be inside RWDIR ($rwdir)" >&2
		exit 2
		;;
	esac
fi
case $log in "" | /*) ;; *) log=$PWD/$log ;; esac

# The guest's /tmp and /run are its own tmpfs.  The checkout and the
# build directory stay visible even if they are there (rthsvm.keep=).
keep=
for d in "$top" "$O"; do
	d=$(cd "$d" 2>/dev/null && pwd -P) || continue
	case $d/ in
	"$rwdir"/*) ;;
	/tmp/* | /run/*)
		if [[ $d =~ [[:space:]] ]]; then
			echo "$prog: warning: $d has white space; the guest will not see it" >&2
		else
			keep="$keep rthsvm.keep=$d"
		fi
		;;
	esac
done

command -v qemu-system-x86_64 >/dev/null || {
	echo "$prog: qemu-system-x86_64 missing (apt-get install qemu-system-x86)" >&2
	exit 125
}

# Kernel (cheap when cached) and initramfs (rebuilt when its inputs
# change).
"$top/scripts/vm-kernels.sh" "$flavour" "$kdir" >/dev/null
# shellcheck source=/dev/null
. "$kdir/kernel.env"
here=$top/tests/vm
for f in "$kdir/kernel.env" "$here/init" "$here/stage2" "$here/mkinitramfs.sh"; do
	if ! [ "$initrd" -nt "$f" ]; then
		"$here/mkinitramfs.sh" "$flavour" "$kdir" "$initrd" >/dev/null
		break
	fi
done

# The control directory: the command for the guest, and what it leaves.
ctlname=.rths-vm-$flavour-$$
ctl=$rwdir/$ctlname
rm -rf "$ctl"
mkdir -p "$ctl"
tmp=$(mktemp -d)
qpid=
# shellcheck disable=SC2317 # called through the trap
cleanup() {
	[ -z "$qpid" ] || kill -TERM "$qpid" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# Single quotes for /bin/sh in the guest.
q() {
	local s=${1//\'/\'\\\'\'}
	printf "'%s'" "$s"
}
{
	echo "# written by $prog; run by tests/vm/stage2 in the guest"
	echo "export RTHS_VM=1 RTHS_VM_FLAVOUR=$flavour RTHS_VM_KREL=$KREL"
	echo "export RTHS_VM_RW=$(q "$rwdir")"
	echo "cd $(q "$top") || exit 125"
	[ -z "$stdout_file" ] || echo "exec >$(q "$stdout_file") || exit 125"
	printf 'exec'
	for a in "$@"; do printf ' %s' "$(q "$a")"; done
	echo
} >"$ctl/cmd"

kernel=${VMLINUX:-$VMLINUZ}
[ -z "$bzimage" ] || kernel=$VMLINUZ

# loglevel=5 keeps errors and warnings (WARN_ON, "tainting kernel") on
# the console and drops the info chatter; oops and panic raise it anyway.
# panic=-1 reboots at once, which -no-reboot turns into QEMU's exit.
# tsc=reliable: TCG derives every vCPU's TSC from one host clock, so it
# is sound, but the clocksource watchdog, reading an emulated HPET late,
# sometimes calls it skewed and marks it unstable at run time; the
# static-key flip that follows is text patching on a running SMP guest,
# which TCG has crashed on (a CI run: RIP in the middle of an
# instruction in sched_clock_cpu, "Fatal exception in interrupt").
append="console=ttyS0 loglevel=5 panic=-1 tsc=reliable rthsvm.rw=$rwdir rthsvm.ctl=$ctlname$keep"
# stage2 brings the interface up.
[ ${#fwds[@]} -eq 0 ] || append="$append rthsvm.net=1"
for a in $extra; do append="$append $a"; done
# -nic none by default: the guest needs no network and must not reach
# any; with --hostfwd only the forwards reach it, and it reaches nothing.
# shellcheck disable=SC2054 # the commas belong to QEMU's option syntax
qemu=(qemu-system-x86_64 -accel tcg -smp "$smp" -m "$mem"
	-nographic -no-reboot "${nic[@]}"
	-kernel "$kernel" -initrd "$initrd" -append "$append"
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
	-virtfs "local,path=${rwdir//,/,,},mount_tag=rw,security_model=none")
[ -z "$netns" ] || qemu=(ip netns exec "$netns" "${qemu[@]}")

console=$ctl/console.log
# The serial console ends lines with CR LF, and SeaBIOS clears the
# screen with escape sequences; strip both.  sed -u: stream, unbuffered.
filter='s/\r$//; s/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g'
interrupted=
# Boots the guest and waits for QEMU: qrc, elapsed.
boot_guest() {
	rm -f "$tmp/console"
	mkfifo "$tmp/console"
	if [ -n "$log" ]; then
		sed -u "$filter" <"$tmp/console" | tee "$console" >"$log" &
	else
		sed -u "$filter" <"$tmp/console" | tee "$console" &
	fi
	spid=$!
	start=$SECONDS
	# stdin from /dev/null: QEMU must not grab the terminal, and CI has none.
	timeout -k 10 "$timeout" "${qemu[@]}" </dev/null >"$tmp/console" 2>&1 &
	qpid=$!
	# A signal to us stops QEMU too, instead of leaving it running.
	trap 'interrupted=1; kill -TERM "$qpid" 2>/dev/null || true' INT TERM HUP
	qrc=0
	while :; do
		wait "$qpid" && qrc=0 || qrc=$?
		kill -0 "$qpid" 2>/dev/null || break
	done
	qpid=
	wait "$spid" || true
	elapsed=$((SECONDS - start))
}

# A kernel that crashes while it boots, before stage2 ran the command
# (CTL/started), failed for the emulator, not for the test: Debian's
# 6.12-rt under TCG hits an int3 of its own text patching 2.5 s into the
# boot, before any module, in about one CI run in two.  Boot again, up
# to three boots in all, and say so.
boot=1
boot_guest
while [ $boot -lt 3 ] && [ ! -f "$ctl/status" ] && [ ! -e "$ctl/started" ] &&
	[ -z "$interrupted" ] && grep -qE 'Kernel panic|Oops|BUG:' "$console"; do
	mv "$console" "$ctl/console-boot$boot.log"
	echo "$prog: $flavour guest: the kernel crashed while booting, before the command ran ($(grep -m1 -E 'Oops|BUG:|Kernel panic' "$ctl/console-boot$boot.log")); booting again" >&2
	boot=$((boot + 1))
	boot_guest
done

tail_console() {
	if [ -n "$log" ]; then
		echo "--- last lines of the guest console ($log):" >&2
		tail -n 40 "$console" >&2
		echo "---" >&2
	fi
}

if [ -f "$ctl/status" ]; then
	rc=$(cat "$ctl/status")
	# The command may pass while the kernel complained: say so, loudly.
	if grep -qE 'Oops|BUG:|WARNING:|Call Trace:' "$ctl/dmesg" 2>/dev/null; then
		echo "$prog: warning: the $flavour guest kernel logged an oops, BUG or WARNING:" >&2
		grep -m 5 -E 'Oops|BUG:|WARNING:' "$ctl/dmesg" >&2 || true
	fi
	if [ "$rc" -ne 0 ]; then
		echo "$prog: $flavour guest: '$*' exited with status $rc (${elapsed}s)" >&2
		tail_console
		if [ -s "$ctl/dmesg" ]; then
			echo "--- guest dmesg, last lines:" >&2
			tail -n 25 "$ctl/dmesg" >&2
			echo "---" >&2
		fi
		echo "$prog: kept $ctl" >&2
	else
		rm -rf "$ctl"
	fi
	exit "$rc"
fi

if [ -n "$interrupted" ]; then
	why="interrupted"
elif [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	why="timed out after ${timeout}s (--timeout)"
elif grep -q 'Kernel panic' "$console"; then
	why="kernel panic: $(grep -m1 'Kernel panic' "$console")"
elif grep -qE 'BUG:|Oops|Call Trace' "$console"; then
	why="kernel oops, then no exit status"
elif [ "$qrc" -ne 0 ]; then
	why="QEMU failed with status $qrc"
else
	why="guest powered off without an exit status (boot or init failure)"
fi
echo "$prog: $flavour guest reported no exit status: $why (${elapsed}s)" >&2
tail_console
echo "$prog: console log kept in $console" >&2
exit 125
