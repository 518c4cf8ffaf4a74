# shellcheck shell=bash
# The guest every boot runs on, sourced by harness/boot.sh (the lab's own
# boots) and harness/lava-jobs.sh (the same boots as LAVA jobs), so that
# the two describe one machine.
#
# qemu_machine ACCEL CPU: sets QEMU_MACHINE, QEMU's options for the machine
# and its devices (no kernel, initrd or console redirection).
#
# Two vCPUs (GUEST_CPUS, 2; make bench-scale boots one) as sockets of one
# core each.  The lab kernel has no ACPI,
# so it finds the CPUs in SeaBIOS's MP table, and SeaBIOS lists only the
# first logical CPU of each package there when CPUID says the package has
# more than one (HTT).  A bare "-smp 2" is one socket of two cores in QEMU
# 7.2, so the guest saw one CPU (nr_cpu_ids:1); two sockets list both.
# The xHCI controller and its keyboard are the USB devices suite_devices
# takes away and brings back (it unbinds and binds xhci_hcd in sysfs).
#
# TCG runs single-threaded (thread=single: the two vCPUs take turns on one
# host thread).  The lab kernels have CONFIG_JUMP_LABEL=y, as distributions
# ship them, and QEMU 7.2's multi-threaded TCG breaks the cross-modifying
# code rule text_poke_bp() relies on: a vCPU can run a stale translation
# holding the int3 of a patch already finished.  A private static key
# flipped on one vCPU while the other ran its site oopsed ("Oops: int3")
# in 6 boots of 6 under multi-threaded TCG, within 2 to 76 flips, and
# watchpol's hook toggle in 3 of 3; single-threaded TCG and icount never
# did, over 54,000 flips and 12,000 toggles (docs/benchmarks.md, "Jump labels").
qemu_machine() {
	local accel=$1 cpus=${GUEST_CPUS:-2}

	[ "$accel" != tcg ] || accel=tcg,thread=single
	# shellcheck disable=SC2034 # used by the scripts that source this file
	QEMU_MACHINE=(-nodefaults -nographic -no-reboot
		-machine pc -accel "$accel" -cpu "$2" -smp "$cpus,sockets=$cpus,cores=1,threads=1"
		-m "${GUEST_MEM:-1024}"
		-device "qemu-xhci,id=xhci" -device "usb-kbd,bus=xhci.0")
}

# The console arguments every boot's command line starts with.
# no5lvl: with -cpu max the guest would use 5-level paging, and the KASAN
# kernel then reports a "wild-memory-access" from an interrupt that lands
# while identify_cpu() has cleared the LA57 bit it computes the shadow
# bounds from (seen at boot, 6.12.118).  4-level paging is all the lab needs.
# shellcheck disable=SC2034 # used by the scripts that source this file
KERNEL_CONSOLE_ARGS="console=ttyS0 panic=-1 oops=panic panic_on_warn=1 no5lvl"

# exact_guest SEED: what harness/boot.sh boots next is the exact guest, a
# deterministic one: QEMU's -icount shift=0,sleep=off (BOOT_ICOUNT: the
# guest's clock and TSC count its instructions), one vCPU (GUEST_CPUS: with
# two, the vCPUs' turns and the second one's wake-ups moved a mount's cost
# by up to 15,000 instructions from one boot to the next) and QEMU's random
# numbers and RTC fixed (BOOT_SEED), so that the same boot of the same
# kernel and initramfs counts the same instructions.  make bench-scale and
# make test's plain-icount boot use it (docs/bench-scale.md).
exact_guest() {
	export BOOT_ICOUNT=1 BOOT_SEED=$1 GUEST_CPUS=1
}
