#!/bin/bash
# Boot one profile of a built kernel variant with the lab initramfs.
# usage: run-profile.sh OBJDIR PROFILE LOGNAME TIMEOUT_S [debug] [ARG+ARG...]
# The command line comes from harness/boot-args.sh (PROFILE, debug, ARGs).
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
results=${RESULTS:-$top/results/latest}
obj=$1 profile=$2 name=$3 timeout=$4 debug=${5:-} extra=${6:-}

args=$("$top/harness/boot-args.sh" "$obj" "$profile" "$debug" "$extra")
kernel=$obj/arch/x86/boot/bzImage initrd=$build/initramfs.cpio
log=$results/console-$name.log

# What this boot must report, before it boots: the runner lists, on the
# host, every suite, variant, test and scenario row x model for this
# command line (report.py fails the boot on anything missing or extra).
# A boot whose command line names its suites (watchlab.suites=, the last
# one wins as in the guest's init) lists only those.
only=""
for a in $args; do
	case $a in watchlab.suites=*) only=${a#watchlab.suites=} ;; esac
done
# A boot told its clock counts instructions (watchlab.clock=icount, the
# Makefile's plain-icount) boots the exact guest.
case " $args " in
*" watchlab.clock=icount "*)
	# shellcheck source=harness/qemu-machine.sh
	. "$top/harness/qemu-machine.sh"
	exact_guest 1
	;;
esac
# shellcheck disable=SC2086 # one suite name per word
WATCHLAB_CMDLINE="$args" WATCHLAB_SCENARIOS="$top/testcases/scenarios" \
	WATCHLAB_GUEST_BINDIR="$build/guest" \
	"$build/guest/wlrun" --list ${only//,/ } >"$results/manifest-$name.ktap"

# A passing boot of the same inputs is replayed (harness/boot-cache.sh).
cache="$top/harness/boot-cache.sh"
key=$("$cache" key "$kernel" "$initrd" "$top/harness/boot.sh" "$top/harness/qemu-machine.sh" -- \
	"$args" "KVM=${KVM:-0}" "GUEST_MEM=${GUEST_MEM:-1024}")
if [ "${FRESH:-0}" != 1 ] && when=$("$cache" replay "$name" "$key" "$log"); then
	echo "watchlab: profile $profile${debug:+ (debug kernel)}: replayed its passing boot of $when (same kernel, initramfs and command line; FRESH=1 boots again)"
	exit 0
fi

echo "watchlab: booting profile $profile${debug:+ (debug kernel)}"
# shellcheck disable=SC2086 # the kernel arguments are separate words
"$top/harness/boot.sh" "$kernel" "$initrd" "$name" "$log" "$timeout" $args

if [ "$(cut -d' ' -f1 "$log.status")" = ok ]; then
	"$cache" store "$name" "$key" "$log"
fi
