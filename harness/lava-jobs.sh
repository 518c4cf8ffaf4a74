#!/bin/bash
# Each boot as a LAVA job definition (make lava-jobs), and the QEMU device
# a local lava-run boots them on.
#
# usage: lava-jobs.sh OUTDIR OBJDIR:PROFILE:LOGNAME:TIMEOUT_S[:debug[:ARG+ARG...]]...
#
# Writes OUTDIR/LOGNAME.yaml per boot (the specs harness/boot-all.sh takes)
# and OUTDIR/device-qemu.yaml.  A job deploys the boot's bzImage and the
# lab initramfs to tmpfs, boots them with QEMU on the command line
# harness/boot-args.sh gives the lab's own boot, and reads the console
# with a LAVA test monitor: every KTAP result line (KUnit's and the
# runner's, nested or not) becomes a LAVA test case of the definition
# "watchlab-LOGNAME", ok as pass, not ok as fail, "ok ... # SKIP" as skip.
#
# LAVA_ARTIFACTS=URL: the kernels and the initramfs are fetched from
# URL/kbuild-lab/bzImage (or kbuild-debug), URL/initramfs.cpio, the layout
# of make kernel-artifacts plus the initramfs; without it, file:// URLs
# of this checkout's build, for lava-run on this machine.
#
# The device file is the dictionary a LAVA server would render for a qemu
# device from its device-type template, with the lab's machine
# (harness/qemu-machine.sh) as its options: lava-run needs it rendered.  A
# LAVA lab uses its own qemu device; the job's context carries the same
# machine for the device-type template (arch, machine, cpu, memory,
# extra_options).
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
[ $# -ge 2 ] || { echo "usage: lava-jobs.sh OUTDIR SPEC..." >&2; exit 2; }
out=$1
shift
# shellcheck source=harness/qemu-machine.sh
. "$top/harness/qemu-machine.sh"
qemu_machine tcg max

tree=$(git -C "$top" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
series=$(cat "$build/linux.patches-key" 2>/dev/null || echo unknown)

# One line of a YAML sequence per QEMU option, its value in single quotes.
yaml_list() {
	local indent=$1 item
	shift
	for item in "$@"; do
		printf "%s- '%s'\n" "$indent" "${item//\'/\'\'}"
	done
}

# QEMU_MACHINE as "option value" pairs, the form a device's options take.
machine_pairs() {
	local i=0
	PAIRS=()
	while [ "$i" -lt "${#QEMU_MACHINE[@]}" ]; do
		case ${QEMU_MACHINE[$i]} in
		-nodefaults | -nographic | -no-reboot)
			PAIRS+=("${QEMU_MACHINE[$i]}")
			i=$((i + 1)) ;;
		*)
			PAIRS+=("${QEMU_MACHINE[$i]} ${QEMU_MACHINE[$((i + 1))]}")
			i=$((i + 2)) ;;
		esac
	done
}
machine_pairs

# The pairs a qemu device-type template does not write itself (it gives
# the machine, the CPU, the memory and the console): the job's
# extra_options.
EXTRA=()
for pair in "${PAIRS[@]}"; do
	case $pair in
	"-machine "* | "-cpu "* | "-m "* | -nodefaults | -nographic) ;;
	*) EXTRA+=("$pair") ;;
	esac
done

url_of() {
	if [ -n "${LAVA_ARTIFACTS:-}" ]; then
		echo "${LAVA_ARTIFACTS%/}/$2"
	else
		echo "file://$1"
	fi
}

mkdir -p "$out"
{
	echo "# The qemu device lava-run boots watchlab's jobs on (harness/lava-jobs.sh)."
	echo "device_type: qemu"
	echo "available_architectures: [amd64]"
	echo "actions:"
	echo "  deploy:"
	echo "    methods:"
	echo "      tmpfs: {}"
	echo "      image:"
	echo "        parameters:"
	echo "          guest: {size: 512, interface: virtio, driveid: lavatest}"
	echo "  boot:"
	echo "    connections:"
	echo "      serial: {}"
	echo "    methods:"
	echo "      qemu:"
	echo "        parameters:"
	echo "          command: qemu-system-x86_64"
	echo "          options:"
	yaml_list "          " "${PAIRS[@]}" "-serial stdio"
	echo "timeouts:"
	echo "  actions: {}"
	echo "  connections: {}"
} >"$out/device-qemu.yaml"

# The monitor's pattern.  LAVA takes the result from the group "result"
# through fixupdict, and a KTAP SKIP is an "ok" line: the SKIP alternative
# captures the bare "o" of such a line (the lookahead checks its directive)
# and "k?" takes the rest, so fixupdict can tell the three apart.  A name
# may hold spaces; it ends before " # " or the line's end, and the match
# needs the newline, since pexpect matches as the console arrives and would
# otherwise take a line's first part; the pty adds a \r to the console's
# \r\n.
name='[^#\r\n]*[^#\s]'
pattern="(?P<result>not ok|ok(?! \\d+ $name # SKIP)|o(?=k \\d+ $name # SKIP))k? \\d+ (?P<test_case_id>$name)(?: +#[^\\r\\n]*)?\\r*\\n"

for spec in "$@"; do
	IFS=: read -r obj profile name timeout debug extra <<<"$spec"
	obj=$(realpath -m "$obj")
	args=$("$top/harness/boot-args.sh" "$obj" "$profile" "${debug:-}" "${extra:-}")
	kernel=$(url_of "$obj/arch/x86/boot/bzImage" "$(basename "$obj")/bzImage")
	initrd=$(url_of "$build/initramfs.cpio" initramfs.cpio)
	minutes=$(((timeout + 59) / 60))
	{
		echo "# watchlab boot $name, written by harness/lava-jobs.sh"
		echo "device_type: qemu"
		echo "job_name: 'watchlab $name ($tree)'"
		echo "metadata:"
		echo "  watchlab.boot: '$name'"
		echo "  watchlab.tree: '$tree'"
		echo "  watchlab.series: '$series'"
		echo "timeouts:"
		echo "  job: {minutes: $((minutes + 5))}"
		echo "  action: {minutes: $minutes}"
		echo "priority: medium"
		echo "visibility: public"
		echo "context:"
		echo "  arch: amd64"
		echo "  machine: 'pc'"
		echo "  cpu: max"
		echo "  memory: ${GUEST_MEM:-1024}"
		echo "  extra_options:"
		yaml_list "  " "${EXTRA[@]}"
		echo "actions:"
		echo "- deploy:"
		echo "    to: tmpfs"
		echo "    timeout: {minutes: 5}"
		echo "    images:"
		echo "      kernel:"
		echo "        image_arg: '-kernel {kernel} -append \"$KERNEL_CONSOLE_ARGS $args\"'"
		echo "        url: '$kernel'"
		echo "      initrd:"
		echo "        image_arg: '-initrd {initrd}'"
		echo "        url: '$initrd'"
		echo "- boot:"
		echo "    method: qemu"
		echo "    media: tmpfs"
		# The monitor waits for each result up to the timeout of the
		# boot action that made the connection: the boot's whole budget.
		echo "    timeout: {minutes: $minutes}"
		echo "- test:"
		echo "    timeout: {minutes: $minutes}"
		echo "    monitors:"
		echo "    - name: 'watchlab-$name'"
		echo "      start: 'KTAP version 1'"
		echo "      end: 'watchlab: runner finished'"
		echo "      pattern: '$pattern'"
		echo "      fixupdict: {ok: pass, not ok: fail, o: skip}"
	} >"$out/$name.yaml"
done
