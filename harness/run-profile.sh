#!/bin/bash
# Boot one profile of a built kernel variant with the lab initramfs.
# usage: run-profile.sh OBJDIR PROFILE LOGNAME TIMEOUT_S [debug] [ARG+ARG...]
# ARG+ARG...: more kernel arguments, joined by '+' (the selinux-early boot:
# a bad watchpol.model= and watchlab.early=1, see suite_early.c).
# The kernel gets lsm= from images/profiles and, as watchlab.lsm=, the list
# /sys/kernel/security/lsm must show: lsm= less what this kernel lacks.
# PROFILE byo boots the LSM a make compare brings (LSM=NAME).
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
results=${RESULTS:-$top/results/latest}
obj=$1 profile=$2 name=$3 timeout=$4 debug=${5:-} extra=${6:-}

# Profile byo: the LSM brought for make compare ($LSM), after watchpol, in
# an unlabelled boot; it must be active whether or not it has a Kconfig
# symbol of its own.
if [ "$profile" = byo ]; then
	[ -n "${LSM:-}" ] || { echo "watchlab: profile byo needs LSM=NAME" >&2; exit 1; }
	lsm=capability,watchpol,$LSM
	expect=$("$top/harness/lsm-built.sh" "$obj" capability,watchpol),$LSM
	args="lsm=$lsm watchlab.profile=plain watchlab.byo=$LSM watchlab.lsm=$expect"
else
	lsm=$(awk -v p="$profile" '$1 == p { print $2 }' "$top/images/profiles")
	[ -n "$lsm" ] || { echo "watchlab: no profile $profile in images/profiles" >&2; exit 1; }
	expect=$("$top/harness/lsm-built.sh" "$obj" "$lsm")
	args="lsm=$lsm watchlab.profile=$profile watchlab.lsm=$expect"
fi
[ -z "$debug" ] || args="$args watchlab.debug=1"
# KUnit tests the kernel, not the profile: it runs in the plain boot of
# each kernel (plain, plain-debug); the other boots of the same bzImage
# would repeat the same cases (report.py checks each boot that ran them
# against the tree's list).
[ "$profile" = plain ] || args="$args kunit.enable=0"
[ -z "$extra" ] || args="$args ${extra//+/ }"
# SUITES="a b": run only those runner suites (for iterating on one suite).
[ -z "${SUITES:-}" ] || args="$args watchlab.suites=$(echo "$SUITES" | tr ' ' ',')"
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
# shellcheck disable=SC2086 # one suite name per word
WATCHLAB_CMDLINE="$args" WATCHLAB_SCENARIOS="$top/testcases/scenarios" \
	WATCHLAB_GUEST_BINDIR="$build/guest" \
	"$build/guest/wlrun" --list ${only//,/ } >"$results/manifest-$name.ktap"

# A passing boot of the same inputs is replayed (harness/boot-cache.sh).
cache="$top/harness/boot-cache.sh"
key=$("$cache" key "$kernel" "$initrd" "$top/harness/boot.sh" -- \
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
