#!/bin/bash
# The posting benchmark: boot the lab kernel once per lsm= list the
# benchmark needs, run only suite_watchpol_bench in each boot (with
# watchlab.bench=full: every configuration), and print every configuration's
# BENCH line side by side in one table, with the issue's goal ratios; then
# one boot of suite_mount_bench (mount_lock hold time against the number of
# watches).
# BENCH_CLOCK=icount (the default) boots QEMU with -icount shift=0,sleep=off
# (harness/boot.sh, BOOT_ICOUNT=1): the guest's TSC counts its instructions,
# one per nanosecond, so every figure is an instruction count, the same
# from one run to the next whatever the host's load; one repetition.
# BENCH_CLOCK=wall is the plain TCG mode: the TSC counts host time, and the
# boots are interleaved and repeated BENCH_REPEAT times (3): A B C D A B C D
# A B C D, so a change in the host's load shows as a spread between
# repetitions rather than as a difference between configurations.
# usage: bench.sh OBJDIR   (after `make kernel guest`; `make bench` does both)
# Console logs and the table go to results/bench/.  Fails when a boot
# fails or a configuration's BENCH line is missing.
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
results=${BENCH_RESULTS:-$top/results/bench}
obj=$1
clock=${BENCH_CLOCK:-icount}
timeout=${BENCH_TIMEOUT:-300}
kernel=$obj/arch/x86/boot/bzImage
initrd=$build/initramfs.cpio

# One boot a line: its name, the profile (which labels and Smack rules the
# guest loads), the lsm= list, and the configurations its BENCH lines name
# (testcases/runner/suites/suite_watchpol_bench.c).
boots="no-lsm plain capability no-lsm
watchpol plain capability,watchpol watchpol-none,watchpol-none-consumer,watchpol-strict-no-labels
smack smack capability,smack smack-same-label,smack-lab-rules,smack-100-rules
watchpol-smack smack capability,watchpol,smack smack-same-label,smack-lab-rules,smack-100-rules,watchpol-strict-1-rule,watchpol-strict-100-rules,watchpol-strict-10000-rules,watchpol-strict-100-consumer"

fail() {
	echo "watchlab bench: $*" >&2
	exit 1
}

case $clock in
icount)
	[ "${KVM:-0}" != 1 ] || fail "BENCH_CLOCK=icount needs TCG: use BENCH_CLOCK=wall with KVM=1"
	repeat=${BENCH_REPEAT:-1}
	export BOOT_ICOUNT=1
	;;
wall)
	repeat=${BENCH_REPEAT:-3}
	export BOOT_ICOUNT=0
	;;
*)
	fail "BENCH_CLOCK=$clock: want icount or wall"
	;;
esac
clock_arg=watchlab.clock=$clock

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
wlines=$results/setwatch-lines.txt
: >"$lines"
: >"$wlines"

for rep in $(seq 1 "$repeat"); do
	while read -r name profile lsm configs; do
		log=$results/console-$name-$rep.log
		echo "watchlab bench: booting $name, repetition $rep of $repeat (lsm=$lsm, clock $clock)"
		"$top/harness/boot.sh" "$kernel" "$initrd" "$profile" "$log" "$timeout" \
			"lsm=$lsm" "watchlab.profile=$profile" "watchlab.lsm=$lsm" \
			watchlab.suites=suite_watchpol_bench watchlab.bench=full "$clock_arg"
		read -r status _ <"$log.status" || status=missing
		[ "$status" = ok ] || fail "boot $name: $(cat "$log.status" 2>/dev/null) (console: $log)"
		if ! grep -aq '^ok 1 suite_watchpol_bench' "$log"; then
			grep -a '^ *# ' "$log" | grep -av 'BENCH' | tail -20 >&2 || true
			fail "boot $name: suite_watchpol_bench did not pass (console: $log)"
		fi
		for c in ${configs//,/ }; do
			n=$(grep -ac "# BENCH profile=.* lsm=$lsm config=$c .* clock=$clock " "$log" || true)
			[ "$n" = 1 ] || fail "boot $name: $n BENCH lines for lsm=$lsm config=$c clock=$clock, want 1 (console: $log)"
		done
		# The set-watch figures: no-lsm or no-watchpol alone, else none and strict.
		case $lsm in
		*watchpol*) wconfigs="watchpol-none watchpol-strict" ;;
		capability) wconfigs=no-lsm ;;
		*) wconfigs=no-watchpol ;;
		esac
		for c in $wconfigs; do
			n=$(grep -ac "# BENCH setwatch .* lsm=$lsm config=$c clock=$clock " "$log" || true)
			[ "$n" = 1 ] || fail "boot $name: $n BENCH setwatch lines for config=$c clock=$clock, want 1 (console: $log)"
		done
		grep -a "# BENCH profile=" "$log" |
			sed -e "s/^.*# BENCH /BENCH boot=$name rep=$rep /" -e 's/\r$//' >>"$lines"
		grep -a "# BENCH setwatch " "$log" |
			sed -e "s/^.*# BENCH setwatch /BENCH boot=$name rep=$rep /" -e 's/\r$//' >>"$wlines"
	done <<<"$boots"
done

# KEY=value fields of a BENCH line: awk_field.
# shellcheck source=harness/bench-field.sh
. "$top/harness/bench-field.sh"

# The icount table: one row per boot and configuration; per repetition the
# instructions per event per queue (8 queues; the median of the rounds, and
# their min..max, equal when the figure is exact); d: against no-lsm, in
# instructions.  Then the goals, as differences in instructions.
icount_table() {
	awk "$awk_field"'
# q8 of a configuration in a boot and repetition; "" when absent.
function q(boot, cfg, r) {
	return ((boot SUBSEP cfg SUBSEP r) in Q8) ? Q8[boot, cfg, r] : ""
}
function diff(a, b) {
	return a == "" || b == "" ? "n/a" : sprintf("%+.1f", a - b)
}
function rel(a, b) {
	return a == "" || b == "" || b <= 0 ? "n/a" : sprintf("%+.1f%%", (a - b) * 100 / b)
}
function goal(label, which,   r) {
	printf "%s:\n", label
	for (r = 1; r <= reps; r++)
		printf "  %s%s\n", (reps > 1 ? "repetition " r ": " : ""), figure(which, r)
}
function figure(which, r,   base, s, w, lab, wlab) {
	base = q("no-lsm", "no-lsm", r)
	if (which == 1)
		return "watchpol-none " q("watchpol", "watchpol-none", r) " - no-lsm " base " = " \
			diff(q("watchpol", "watchpol-none", r), base) " instructions (" \
			rel(q("watchpol", "watchpol-none", r), base) ")"
	if (which == 2) {
		s = q("watchpol-smack", "watchpol-strict-100-rules", r)
		w = q("watchpol-smack", "smack-lab-rules", r)
		lab = q("smack", "smack-lab-rules", r)
		return "watchpol-strict-100-rules " s " - smack-lab-rules " w " (watchpol-smack boot) = " \
			diff(s, w) "; smack-lab-rules " lab " (smack boot) - no-lsm " base " = " \
			diff(lab, base) (s == "" || w == "" || lab == "" || lab - base <= 0 ? "" : \
			sprintf("; ratio %.2f", (s - w) / (lab - base))) \
			" (smack-lab-rules of the watchpol-smack boot - no-lsm = " diff(w, base) ")"
	}
	if (which == 3)
		return "watchpol-strict-10000-rules " q("watchpol-smack", "watchpol-strict-10000-rules", r) \
			" - watchpol-strict-1-rule " q("watchpol-smack", "watchpol-strict-1-rule", r) " = " \
			diff(q("watchpol-smack", "watchpol-strict-10000-rules", r),
			     q("watchpol-smack", "watchpol-strict-1-rule", r))
	if (which == 4)
		return "none " diff(q("watchpol", "watchpol-none-consumer", r),
				    q("watchpol", "watchpol-none", r)) \
			", strict 100 rules " diff(q("watchpol-smack", "watchpol-strict-100-consumer", r),
						   q("watchpol-smack", "watchpol-strict-100-rules", r))
}
{
	b = field("boot"); c = field("config"); r = field("rep") + 0
	if (!((b SUBSEP c) in seen)) {
		seen[b, c] = 1
		n++
		rb[n] = b; rc[n] = c
	}
	if (r > reps)
		reps = r
	Q8[b, c, r] = field("q8")
	Q1[b, c, r] = field("q1")
	R8[b, c, r] = field("q8_min") ".." field("q8_max")
	REF[b, r] = field("ref_ns")
	rounds = field("rounds")
}
END {
	printf "watchlab bench: posting a key notification to 8 queues, per event per queue\n"
	printf "(lab kernel, TCG, clock icount: QEMU -icount shift=0,sleep=off; figures are guest instructions)\n"
	printf "q8: (t(8 queues) - t(no queue)) / 8 per update, each round its fastest block; the median of %s rounds\n", rounds
	printf "(min..max of the rounds); q1: the same with 1 queue; d: q8 against no-lsm\n\n"
	fmt = "%-15s %-29s"
	printf fmt, "boot", "config"
	for (r = 1; r <= reps; r++)
		printf " %-22s %7s", "q8 insn" (reps > 1 ? " run " r : ""), "q1"
	printf " %8s\n", "d"
	for (i = 1; i <= n; i++) {
		printf fmt, rb[i], rc[i]
		sum = 0; base = 0
		for (r = 1; r <= reps; r++) {
			printf " %-22s %7s", Q8[rb[i], rc[i], r] " (" R8[rb[i], rc[i], r] ")", Q1[rb[i], rc[i], r]
			sum += Q8[rb[i], rc[i], r]; base += q("no-lsm", "no-lsm", r)
		}
		printf " %8s\n", reps ? diff(sum / reps, base / reps) : "n/a"
	}
	printf "\nreference operation, instructions per getppid():"
	for (i = 1; i <= n; i++)
		if (!(rb[i] in shown)) {
			shown[rb[i]] = 1
			printf " %s", rb[i]
			for (r = 1; r <= reps; r++)
				printf " %s%s", REF[rb[i], r], r < reps ? "/" : ""
		}
	printf "\n\nThe goals (issues 13 and 28), in instructions per event per queue; figures, not verdicts:\n"
	goal("goal 1, watchpol with no post-time model (none) over no LSM", 1)
	goal("goal 2, what strict adds to Smack'"'"'s work, against what Smack'"'"'s lab rules add to no LSM", 2)
	goal("goal 3, strict 10000 rules over strict 1 rule, in the same boot", 3)
	goal("goal 4, a consumer attached (watchpol/log open) over none attached, in the same boot", 4)
	printf "\nInstructions, not cycles: icount says nothing of cache misses or branch mispredictions.\n"
	printf "BENCH lines: %s\n", lines
}' lines="$lines" "$lines"
}

# The wall-clock table: one row per boot and configuration; per repetition the
# median ns per event per queue (8 queues) and the same in units of the
# boot's reference operation (n8, quartiles after it); d: the mean n8
# against no-lsm's.  Then the goal ratios, per repetition, from n8 only.
wall_table() {
	awk "$awk_field"'
function delta(v, base) {
	if (base <= 0)
		return "n/a"
	return sprintf("%+.1f%%", (v - base) * 100 / base)
}
# n8 of a configuration in a boot and repetition; "" when absent.
function n8(boot, cfg, r) {
	return ((boot SUBSEP cfg SUBSEP r) in N8) ? N8[boot, cfg, r] : ""
}
function pct(x, base) {
	return x == "" || base == "" || base <= 0 ? "n/a" : sprintf("%+.1f%%", x * 100 / base)
}
# One goal: a label, then per repetition a line with the figure f_<which>.
function goal(label, which,   r) {
	printf "%s:\n", label
	for (r = 1; r <= reps; r++)
		printf "  repetition %d: %s\n", r, figure(which, r)
}
function figure(which, r,   base, a, b) {
	base = n8("no-lsm", "no-lsm", r)
	if (which == 1)
		return delta(n8("watchpol", "watchpol-none", r), base) \
			"; beside Smack, same label " \
			delta(n8("watchpol-smack", "smack-same-label", r),
			      n8("smack", "smack-same-label", r)) \
			", lab rules " delta(n8("watchpol-smack", "smack-lab-rules", r),
					     n8("smack", "smack-lab-rules", r))
	if (which == 2) {
		a = n8("watchpol-smack", "watchpol-strict-100-rules", r)
		b = n8("watchpol-smack", "smack-lab-rules", r)
		return (a == "" || b == "" ? "n/a" : pct(a - b, base)) \
			" vs Smack lab rules " delta(n8("smack", "smack-lab-rules", r), base)
	}
	if (which == 3)
		return delta(n8("watchpol-smack", "watchpol-strict-10000-rules", r),
			     n8("watchpol-smack", "watchpol-strict-1-rule", r))
	if (which == 4)
		return "none " delta(n8("watchpol", "watchpol-none-consumer", r),
				     n8("watchpol", "watchpol-none", r)) \
			", strict " delta(n8("watchpol-smack", "watchpol-strict-100-consumer", r),
					  n8("watchpol-smack", "watchpol-strict-100-rules", r))
}
{
	b = field("boot"); c = field("config"); r = field("rep") + 0
	if (!((b SUBSEP c) in seen)) {
		seen[b, c] = 1
		n++
		rb[n] = b; rc[n] = c; rl[n] = field("lsm")
	}
	if (r > reps)
		reps = r
	N8[b, c, r] = field("n8")
	Q8[b, c, r] = field("q8")
	R8[b, c, r] = field("n8_p25") ".." field("n8_p75")
	REF[b, r] = field("ref_ns")
	rounds = field("rounds")
}
END {
	printf "watchlab bench: posting a key notification to 8 queues, per event per queue (lab kernel, TCG)\n"
	printf "per repetition (boot): median ns over %s rounds, and n8, the same in units of the boot'"'"'s reference\n", rounds
	printf "operation (one getppid(), no LSM hook), median (p25..p75) over the rounds;\n"
	printf "d: mean n8 against no-lsm'"'"'s mean n8\n\n"
	fmt = "%-15s %-29s"
	printf fmt, "boot", "config"
	for (r = 1; r <= reps; r++)
		printf " %6s %-22s", "ns" r, "n8 run " r
	printf " %7s\n", "d"
	for (i = 1; i <= n; i++) {
		printf fmt, rb[i], rc[i]
		sum = 0; base = 0
		for (r = 1; r <= reps; r++) {
			printf " %6s %-22s", Q8[rb[i], rc[i], r],
				N8[rb[i], rc[i], r] " (" R8[rb[i], rc[i], r] ")"
			sum += N8[rb[i], rc[i], r]; base += n8("no-lsm", "no-lsm", r)
		}
		printf " %7s\n", delta(sum, base)
	}
	printf "\nreference operation, ns per getppid():"
	for (i = 1; i <= n; i++)
		if (!(rb[i] in shown)) {
			shown[rb[i]] = 1
			printf " %s", rb[i]
			for (r = 1; r <= reps; r++)
				printf " %s%s", REF[rb[i], r], r < reps ? "/" : ""
		}
	printf "\n\nThe goals (issue 13), from n8; figures, not verdicts:\n"
	goal("goal 1, watchpol with no post-time model (none) over no LSM; Smack rows with watchpol (none) beside Smack over Smack alone", 1)
	goal("goal 2, watchpol strict 100 rules over Smack lab rules in its boot, in % of no LSM", 2)
	goal("goal 3, strict 10000 rules over strict 1 rule, in the same boot", 3)
	goal("goal 4, a consumer attached (watchpol/log open) over none attached, in the same boot", 4)
	printf "\nTCG figures are noisy: a difference inside the quartiles, or between the runs, is not a measured one.\n"
	printf "Min and max per row: %s\n", lines
}' lines="$lines" "$lines"
}

# The set-watch table: per boot and configuration, a set+remove pair of
# each watch type, as the watcher (uid 1000, watcher label).
setwatch_table() {
	local unit=ns
	[ "$clock" = wall ] || unit=instructions
	printf '\nwatchlab bench: setting and removing a watch, per pair, %s (the fastest block of\n' "$unit"
	printf '100 pairs of 10); the set-watch hooks run on setting; strict: a watch rule from the\n'
	printf 'watcher label to the object'"'"'s\n\n'
	awk "$awk_field"'
BEGIN { printf "%-15s %-5s %-16s %9s %9s %9s %9s\n", "boot", "rep", "config", "key", "mount", "sb", "devices" }
{
	printf "%-15s %-5s %-16s %9s %9s %9s %9s\n", field("boot"), field("rep"), field("config"),
		field("key"), field("mount"), field("sb"), field("devices")
}' "$wlines"
}

if [ "$clock" = icount ]; then
	icount_table
else
	wall_table
fi | tee "$results/table.txt"
setwatch_table | tee -a "$results/table.txt"

# One row per W of a lock's BENCH lines in $log: stall, floor, the call.
lock_rows() {
	grep -a "# BENCH $1 " "$log" | sed -e 's/^.*# BENCH /BENCH /' -e 's/\r$//' |
		awk "$awk_field"'
BEGIN { printf "%-8s %-36s %-10s %-36s\n", "watches", "stall", "floor", "mount_setattr" }
{
	stall = field("stall_" u)
	if (stall != "n/a")
		stall = stall " (" field("stall_p25") ".." field("stall_p75") ") [" \
			field("stall_min") ".." field("stall_max") "]"
	floor = field("floor_" u)
	printf "%-8s %-36s %-10s %-36s\n", field("watches"), stall, floor == "" ? "n/a" : floor,
		field("setattr_" u) " (" field("setattr_p25") ".." field("setattr_p75") ") [" \
			field("setattr_min") ".." field("setattr_max") "]"
}' u="$unit"
}

# The mount_lock benchmark (suite_mount_bench, issue 14 bug 3): one boot, no
# LSM; how long a recursive mount_setattr() stalls a path walk on the other
# CPU with 1, 64 and 1024 mount watches, in microseconds or, under icount,
# in instructions (both CPUs': they share the one instruction clock).
log=$results/console-mount-lock.log
unit=us
[ "$clock" = wall ] || unit=insn
echo "watchlab bench: booting mount-lock (lsm=capability, clock $clock)"
"$top/harness/boot.sh" "$kernel" "$initrd" plain "$log" "$timeout" \
	lsm=capability watchlab.profile=plain watchlab.lsm=capability \
	watchlab.suites=suite_mount_bench "$clock_arg"
read -r status _ <"$log.status" || status=missing
[ "$status" = ok ] || fail "boot mount-lock: $(cat "$log.status" 2>/dev/null) (console: $log)"
grep -aq '^ok 1 suite_mount_bench' "$log" ||
	fail "boot mount-lock: suite_mount_bench did not pass (console: $log)"
for lock in mount_lock namespace_sem; do
	n=$(grep -ac "# BENCH $lock .* clock=$clock " "$log" || true)
	[ "$n" = 3 ] || fail "boot mount-lock: $n BENCH $lock lines with clock=$clock, want 3 (console: $log)"
done
{
	printf '\nwatchlab bench: a recursive mount_setattr() over 9 mounts, watched at the top by W queues;\n'
	printf 'stall: the longest path walk on the other CPU during the call (>= the mount_lock hold),\n'
	printf 'floor: the same with no mount change; median (p25..p75) [min..max] of the rounds, %s\n' \
		"$([ "$unit" = us ] && echo microseconds || echo 'instructions (icount)')"
	if [ "$unit" = insn ]; then
		printf 'under icount QEMU runs the two vCPUs in turn, not at once: no stall is measured, only the\n'
		printf 'call, with the other CPU idle (docs/benchmarks.md, "The mount_lock benchmark"; BENCH_CLOCK=wall for the stall)\n'
	fi
	printf '\n'
	lock_rows mount_lock
} | tee -a "$results/table.txt"

# The same boot's namespace_sem benchmark: how long a statmount() issued by
# the first record of a recursive propagation change waits for the posting.
{
	printf '\nwatchlab bench: a recursive mount_setattr() of the propagation over 9 mounts, watched at\n'
	printf 'the top by W queues; stall: a statmount() on the other CPU, issued when the first record\n'
	printf 'arrives; floor: the same statmount() just before; median (p25..p75) [min..max], %s\n' \
		"$([ "$unit" = us ] && echo microseconds || echo 'instructions (icount)')"
	if [ "$unit" = insn ]; then
		printf 'under icount the woken reader runs only when the changer'"'"'s turn ends: no stall is\n'
		printf 'measured, only the call (docs/benchmarks.md, "The mount_lock benchmark"; BENCH_CLOCK=wall for the stall)\n'
	fi
	printf '\n'
	lock_rows namespace_sem
} | tee -a "$results/table.txt"
