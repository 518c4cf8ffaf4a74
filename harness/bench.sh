#!/bin/bash
# The posting benchmark: boot the lab kernel once per lsm= list the
# benchmark needs, run only suite_watchpol_bench in each boot, and print
# every configuration's BENCH line side by side in one table; then one boot
# of suite_mount_bench (mount_lock hold time against the number of watches).
# usage: bench.sh OBJDIR   (after `make kernel guest`; `make bench` does both)
# Console logs and the table go to results/bench/.  Fails when a boot
# fails or a configuration's BENCH line is missing.
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
results=${BENCH_RESULTS:-$top/results/bench}
obj=$1
timeout=${BENCH_TIMEOUT:-300}
kernel=$obj/arch/x86/boot/bzImage
initrd=$build/initramfs.cpio

# One boot a line: its name, the profile (which labels and Smack rules the
# guest loads), the lsm= list, and the configurations its BENCH lines name
# (testcases/runner/suites/suite_watchpol_bench.c).
boots="no-lsm plain capability no-lsm
watchpol plain capability,watchpol watchpol-none,watchpol-strict-no-labels
smack smack capability,smack smack-same-label,smack-lab-rules,smack-100-rules
watchpol-smack smack capability,watchpol,smack smack-same-label,smack-100-rules,watchpol-none,watchpol-strict-100-rules"

fail() {
	echo "watchlab bench: $*" >&2
	exit 1
}

[ -f "$kernel" ] || fail "no kernel at $kernel (make kernel)"
[ -f "$initrd" ] || fail "no initramfs at $initrd (make guest)"

# Every LSM a boot names must be built in: the guest's list would
# otherwise differ from lsm= and the boot would measure something else.
need=capability,watchpol,smack
built=$("$top/harness/lsm-built.sh" "$obj" "$need")
[ "$built" = "$need" ] || fail "$obj/.config builds in only $built of $need"

rm -rf "$results"
mkdir -p "$results"
lines=$results/bench-lines.txt
: >"$lines"

while read -r name profile lsm configs; do
	log=$results/console-$name.log
	echo "watchlab bench: booting $name (lsm=$lsm)"
	"$top/harness/boot.sh" "$kernel" "$initrd" "$profile" "$log" "$timeout" \
		"lsm=$lsm" "watchlab.profile=$profile" "watchlab.lsm=$lsm" \
		watchlab.suites=suite_watchpol_bench
	read -r status _ <"$log.status" || status=missing
	[ "$status" = ok ] || fail "boot $name: $(cat "$log.status" 2>/dev/null) (console: $log)"
	if ! grep -aq '^ok 1 suite_watchpol_bench' "$log"; then
		grep -a '^ *# ' "$log" | grep -av 'BENCH' | tail -20 >&2 || true
		fail "boot $name: suite_watchpol_bench did not pass (console: $log)"
	fi
	for c in ${configs//,/ }; do
		n=$(grep -ac "# BENCH .* lsm=$lsm config=$c " "$log" || true)
		[ "$n" = 1 ] || fail "boot $name: $n BENCH lines for lsm=$lsm config=$c, want 1 (console: $log)"
	done
	grep -a "# BENCH " "$log" | sed -e 's/^.*# BENCH /BENCH /' -e 's/\r$//' >>"$lines"
done <<<"$boots"

# KEY=value fields of a BENCH line, for both tables' awk programs.
# shellcheck disable=SC2016 # awk code, for awk to expand
awk_field='
function field(k,   i) {
	for (i = 2; i <= NF; i++)
		if (index($i, k "=") == 1)
			return substr($i, length(k) + 2)
	return ""
}
'

# The table: one row per configuration, in boot order; each figure is the
# median over the rounds with the quartiles after it (min and max are in
# the BENCH lines); the deltas compare medians with no-lsm's.
awk "$awk_field"'
function delta(v, base) {
	if (base <= 0)
		return "n/a"
	return sprintf("%+.0f%%", (v - base) * 100 / base)
}
{
	n++
	cfg[n] = field("config"); lsm[n] = field("lsm"); wp[n] = field("watchpol")
	q1[n] = field("q1"); q8[n] = field("q8"); upd[n] = field("update_ns")
	r1[n] = field("q1_p25") ".." field("q1_p75")
	r8[n] = field("q8_p25") ".." field("q8_p75")
	rounds = field("rounds")
	if (cfg[n] == "no-lsm") {
		b1 = q1[n]; b8 = q8[n]
	}
}
END {
	printf "watchlab bench: posting a key notification, ns per event per queue (lab kernel, TCG)\n"
	printf "median of %s rounds (quartiles); d: median against no-lsm'"'"'s median\n\n", rounds
	fmt = "%-26s %-26s %-8s %-18s %-18s %6s %6s %7s\n"
	printf fmt, "config", "lsm", "watchpol", "1 queue", "8 queues", "d 1q", "d 8q", "update"
	for (i = 1; i <= n; i++)
		printf fmt, cfg[i], lsm[i], wp[i], q1[i] " (" r1[i] ")", q8[i] " (" r8[i] ")",
			delta(q1[i], b1), delta(q8[i], b8), upd[i]
	printf "\nupdate: ns per keyctl_update() of a key no queue watches, the part subtracted.\n"
	printf "TCG figures are noisy: a delta inside the rows'"'"' quartile spread is not a measured difference,\n"
	printf "and rows from different boots also differ by the host'"'"'s load during each boot.\n"
	printf "Min and max per row: %s\n", lines
}' lines="$lines" "$lines" | tee "$results/table.txt"

# The mount_lock benchmark (suite_mount_bench, issue 14 bug 3): one boot, no
# LSM; how long a recursive mount_setattr() stalls a path walk on the other
# CPU with 1, 64 and 1024 mount watches.
log=$results/console-mount-lock.log
echo "watchlab bench: booting mount-lock (lsm=capability)"
"$top/harness/boot.sh" "$kernel" "$initrd" plain "$log" "$timeout" \
	lsm=capability watchlab.profile=plain watchlab.lsm=capability \
	watchlab.suites=suite_mount_bench
read -r status _ <"$log.status" || status=missing
[ "$status" = ok ] || fail "boot mount-lock: $(cat "$log.status" 2>/dev/null) (console: $log)"
grep -aq '^ok 1 suite_mount_bench' "$log" ||
	fail "boot mount-lock: suite_mount_bench did not pass (console: $log)"
n=$(grep -ac '# BENCH mount_lock ' "$log" || true)
[ "$n" = 3 ] || fail "boot mount-lock: $n BENCH mount_lock lines, want 3 (console: $log)"
{
	printf '\nwatchlab bench: a recursive mount_setattr() over 9 mounts, watched at the top by W queues;\n'
	printf 'stall: the longest path walk on the other CPU during the call (>= the mount_lock hold),\n'
	printf 'floor: the same with no mount change; median (p25..p75) of the rounds, microseconds\n\n'
	grep -a '# BENCH mount_lock ' "$log" | sed -e 's/^.*# BENCH /BENCH /' -e 's/\r$//' |
		awk "$awk_field"'
BEGIN { printf "%-8s %-24s %-10s %-24s\n", "watches", "stall", "floor", "mount_setattr" }
{
	printf "%-8s %-24s %-10s %-24s\n", field("watches"),
		field("stall_us") " (" field("stall_p25") ".." field("stall_p75") ")",
		field("floor_us"),
		field("setattr_us") " (" field("setattr_p25") ".." field("setattr_p75") ")"
}'
} | tee -a "$results/table.txt"
