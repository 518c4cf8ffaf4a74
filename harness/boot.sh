#!/bin/bash
# Boot one profile under QEMU and save its console log.
# usage: boot.sh KERNEL INITRD PROFILE LOG TIMEOUT_S [KERNEL ARGS...]
# TCG by default; KVM=1 opts in to KVM (it hangs at boot on some hosts).
# BOOT_ICOUNT=1 (harness/bench.sh sets it, and qemu-machine.sh's
# exact_guest) adds QEMU's -icount shift=0,sleep=off: the guest's clock and
# TSC advance by exactly one nanosecond per guest instruction, and QEMU
# runs the vCPUs in turn in one thread.  TIMEOUT_S stays host time.
# BOOT_TTYS1=1 (make coverage sets it; nothing else does) gives the guest a
# second serial port, ttyS1, written to LOG.ttyS1: the gcov kernel's init
# writes its coverage data there (images/init.sh, harness/coverage.sh).
# The outcome goes to LOG.status ("ok SECONDS", "timeout SECONDS" or
# "qemu-exit RC") for the report; a boot that runs out of time is also
# reported here, naming the profile and showing the last console lines.
set -eu -o pipefail

kernel=$1 initrd=$2 profile=$3 log=$4 timeout=$5
shift 5

accel=tcg
cpu=max
if [ "${KVM:-0}" = 1 ]; then
	accel=kvm
	cpu=host
fi
icount=()
if [ "${BOOT_ICOUNT:-0}" = 1 ]; then
	if [ "$accel" != tcg ]; then
		echo "watchlab: BOOT_ICOUNT=1 needs TCG, not KVM=1" >&2
		echo "qemu-exit icount-needs-tcg" >"$log.status"
		exit 1
	fi
	icount=(-icount "shift=0,sleep=off")
	# BOOT_SEED=N: what else the guest takes from the host fixed too, the
	# random numbers RDRAND gives (QEMU's -seed) and the RTC's date, kept
	# on the guest's clock (make bench-scale: docs/bench-scale.md).
	if [ -n "${BOOT_SEED:-}" ]; then
		icount+=(-seed "$BOOT_SEED" -rtc "base=2026-01-01T00:00:00,clock=vm")
	fi
fi

# shellcheck source=harness/qemu-machine.sh
. "$(dirname "$0")/qemu-machine.sh"
qemu_machine "$accel" "$cpu"

ttys1=()
if [ "${BOOT_TTYS1:-0}" = 1 ]; then
	rm -f "$log.ttyS1"
	ttys1=(-serial "file:$log.ttyS1")
fi

start=$(date +%s.%N)
set +e
timeout --foreground -k 5 "$timeout" qemu-system-x86_64 "${QEMU_MACHINE[@]}" \
	${icount[@]+"${icount[@]}"} \
	-serial stdio ${ttys1[@]+"${ttys1[@]}"} \
	-kernel "$kernel" -initrd "$initrd" \
	-append "$KERNEL_CONSOLE_ARGS $*" \
	</dev/null >"$log" 2>&1
rc=$?
set -e
secs=$(echo "$(date +%s.%N) - $start" | bc)

if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	echo "timeout $timeout" >"$log.status"
	echo "watchlab: boot of profile $profile timed out after $timeout s; last console lines:" >&2
	tail -15 "$log" >&2
elif [ "$rc" -ne 0 ]; then
	echo "qemu-exit $rc" >"$log.status"
	echo "watchlab: qemu for profile $profile exited with $rc; last console lines:" >&2
	tail -15 "$log" >&2
else
	printf 'ok %.1f\n' "$secs" >"$log.status"
	printf 'watchlab: profile %s finished in %.1f s\n' "$profile" "$secs"
fi
