#!/bin/bash
# The kernel command line of one boot, less the console arguments every
# boot shares (harness/qemu-machine.sh): what run-profile.sh boots with and
# what a LAVA job of the same boot appends (harness/lava-jobs.sh).
# usage: boot-args.sh OBJDIR PROFILE [debug] [ARG+ARG...]
# ARG+ARG...: more kernel arguments, joined by '+' (the selinux-early boot:
# a bad watchpol.model= and watchlab.early=1, see suite_early.c).
# The kernel gets lsm= from images/profiles and, as watchlab.lsm=, the list
# /sys/kernel/security/lsm must show: lsm= less what this kernel lacks.
# PROFILE byo boots the LSM a make compare brings (LSM=NAME).
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
obj=$1 profile=$2 debug=${3:-} extra=${4:-}

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
# A kernel with fault injection (the debug and coverage configs) runs
# suite_failnth: /proc/thread-self/fail-nth and failslab's debugfs knobs.
! grep -qx 'CONFIG_FAILSLAB=y' "$obj/.config" 2>/dev/null || args="$args watchlab.failslab=1"
# KUnit tests the kernel, not the profile: it runs in the plain boot of
# each kernel (plain, plain-debug); the other boots of the same bzImage
# would repeat the same cases (report.py checks each boot that ran them
# against the tree's list).
[ "$profile" = plain ] || args="$args kunit.enable=0"
[ -z "$extra" ] || args="$args ${extra//+/ }"
# SUITES="a b": run only those runner suites (for iterating on one suite).
[ -z "${SUITES:-}" ] || args="$args watchlab.suites=$(echo "$SUITES" | tr ' ' ',')"
echo "$args"
