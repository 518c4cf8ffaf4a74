#!/bin/bash
# The mount-table scale benchmark (issue 44, make bench-scale): figures,
# never pass/fail.  Boots the lab kernel as the exact guest
# (harness/qemu-machine.sh's exact_guest: QEMU's -icount
# shift=0,sleep=off, so the guest's TSC counts its instructions, one vCPU,
# QEMU's random numbers seeded with BENCH_SCALE_SEED, 1, and the RTC
# fixed: the same seed gives the same figures) with
# lsm=capability,watchpol and watchpol.model=none, so
# that no policy decides anything and the figures are the mechanisms', and
# runs only suite_mount_scale (testcases/runner/suites/suite_mount_scale.c):
# a watcher's cost to learn one mount change per mechanism (watch_mount,
# fanotify mount-namespace marks, mountinfo, listmount) at N = 10 to 10000
# mounts in a wide and a deep tree, the mounter's cost with 0 to 1000
# watching queues, and a consumer keeping a mount table through a storm of
# 1000 changes at N = 8000, in sync and with its queue overrun.
# usage: bench-scale.sh OBJDIR   (after `make kernel guest`; make bench-scale does both)
#        bench-scale.sh --report DIR   the tables and plots again from DIR's
#        bench-lines.txt, without booting
# The three tests boot side by side, BENCH_SCALE_JOBS at a time (2): the
# figures do not depend on the host's load.  Console logs, the
# BENCH lines, the tables (table.txt) and the plots (PNG, gnuplot) go to
# results/bench-scale/.  Fails when a boot fails or a figure is missing.
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
results=${BENCH_SCALE_RESULTS:-$top/results/bench-scale}
report_only=0
if [ "${1:-}" = --report ]; then
	report_only=1
	results=$2
	obj=
else
	obj=$1
fi
timeout=${BENCH_SCALE_TIMEOUT:-3600}
seed=${BENCH_SCALE_SEED:-1}
jobs=${BENCH_SCALE_JOBS:-2}
kernel=$obj/arch/x86/boot/bzImage
initrd=$build/initramfs.cpio
lsm=capability,watchpol

fail() {
	echo "watchlab bench-scale: $*" >&2
	exit 1
}

command -v gnuplot >/dev/null || fail "no gnuplot (harness/deps.sh installs gnuplot-nox)"
lines=$results/bench-lines.txt
start=$(date +%s)
# Boot the three parts and collect their BENCH lines in $lines.
boot_all() {
	[ "${KVM:-0}" != 1 ] || fail "the figures are instructions under QEMU's -icount, which needs TCG: not KVM=1"
	[ -f "$kernel" ] || fail "no kernel at $kernel (make kernel)"
	[ -f "$initrd" ] || fail "no initramfs at $initrd (make guest)"
	built=$("$top/harness/lsm-built.sh" "$obj" "$lsm")
	[ "$built" = "$lsm" ] || fail "$obj/.config builds in only $built of $lsm"

	rm -rf "$results"
	mkdir -p "$results"
	# shellcheck source=harness/qemu-machine.sh
	. "$top/harness/qemu-machine.sh"
	exact_guest "$seed"

	# One boot per part of the suite (watchlab.scale_part=), the longest
	# first: a boot's name, then the tests it runs.
	running=0
	for boot in deep:deep wide:wide storm:storm,walk; do
		part=${boot%%:*}
		if [ "$running" -ge "$jobs" ]; then
			wait -n || true
			running=$((running - 1))
		fi
		log=$results/console-$part.log
		echo "watchlab bench-scale: booting $part (lsm=$lsm, watchpol.model=none, clock icount)"
		"$top/harness/boot.sh" "$kernel" "$initrd" plain "$log" "$timeout" \
			"lsm=$lsm" watchpol.model=none watchlab.profile=plain "watchlab.lsm=$lsm" \
			watchlab.suites=suite_mount_scale "watchlab.scale_part=${boot#*:}" watchlab.clock=icount \
			>"$results/boot-$part.out" 2>&1 &
		running=$((running + 1))
	done
	wait

	echo "BENCH scale-guest seed=$seed cpus=1" >"$lines"
	for part in deep wide storm; do
		log=$results/console-$part.log
		read -r status secs <"$log.status" || status=missing
		[ "$status" = ok ] || fail "boot $part: $(cat "$log.status" 2>/dev/null) (console: $log)"
		echo "watchlab bench-scale: boot $part took ${secs} s"
		if ! grep -aq '^ok 1 suite_mount_scale' "$log"; then
			grep -a '^ *# ' "$log" | grep -av 'BENCH' | tail -20 >&2 || true
			fail "boot $part: suite_mount_scale did not pass (console: $log)"
		fi
		grep -a "# BENCH scale-" "$log" | sed -e 's/^.*# BENCH /BENCH /' -e 's/\r$//' >>"$lines"
	done
}

[ "$report_only" = 1 ] || boot_all

# Every figure the tables need, or the run failed.
want() {
	local n
	n=$(grep -c "$1" "$lines" || true)
	[ "$n" = "$2" ] || fail "$n BENCH lines matching '$1', want $2 ($lines)"
}
want 'BENCH scale-watcher ' 32
want 'BENCH scale-mounter ' 104
want 'BENCH scale-storm ' 8
[ "$report_only" = 1 ] || want 'BENCH scale-walk ' 1

# KEY=value fields of a BENCH line: awk_field.
# shellcheck source=harness/bench-field.sh
. "$top/harness/bench-field.sh"

tables() {
	awk "$awk_field"'
function fmt(v) { return v == "" ? "n/a" : v }
BEGIN { nn = split("10 100 1000 10000", NS, " ")
	nm = split("watch_mount fanotify mountinfo listmount", MS, " ")
	np = split("none parent root self fanotify", PS, " ")
	nq = split("1 100 1000", QS, " ") }
/^BENCH scale-watcher / {
	s = field("shape"); n = field("n"); m = field("mech")
	C[s, m, n] = field("change"); A[s, m, n] = field("attach"); D[s, m, n] = field("detach")
	T[s, n] = field("table")
}
/^BENCH scale-guest / { GUEST = sprintf(", one vCPU, -seed %s", field("seed")) }
/^BENCH scale-mounter / {
	s = field("shape"); n = field("n"); p = field("place"); q = field("queues")
	P[s, p, q, n] = field("pair"); CH[s, p, q, n] = field("change")
}
/^BENCH scale-walk / {
	WALK = sprintf("a mount+umount at the top of a chain of %s mounts, no watch left in the system: %s before a watch on / came and went, %s after (%+.1f%%)",
		field("depth"), field("before"), field("after"), (field("after") - field("before")) * 100 / field("before"))
}
/^BENCH scale-storm / {
	ns++
	ST[ns] = sprintf("%-12s %-9s %5s %6s %12s %9s %8s %12s %12s   %s, %s entries (mountinfo %s, %s differ)",
		field("consumer"), field("recovery"), field("batch"), field("queue"), field("total"),
		field("per_op"), field("overruns"), field("recovery_total"), field("recovery_median"),
		field("table_equal"), field("entries"), field("mountinfo"), field("differ"))
	SN = field("n"); SO = field("ops")
	SE[field("consumer"), field("recovery")] = field("table_equal")
	SR[field("consumer"), field("recovery")] = field("recovery_median")
}
END {
	printf "watchlab bench-scale: learning one mount change, per mechanism, in guest instructions\n"
	printf "(lab kernel, TCG, QEMU -icount shift=0,sleep=off%s; lsm=capability,watchpol, watchpol.model=none)\n", GUEST
	printf "a. the watcher, from the change to its table being right: (attach + detach) / 2, each the\n"
	printf "fastest of its rounds; N: mounts in the tree (the namespace has 7 more)\n\n"
	for (si = 1; si <= 2; si++) {
		s = si == 1 ? "wide" : "deep"
		printf "%-6s %-12s", s, "mechanism"
		for (i = 1; i <= nn; i++)
			printf " %12s", "N=" NS[i]
		printf " %10s\n", "10000/10"
		for (j = 1; j <= nm; j++) {
			m = MS[j]
			printf "%-6s %-12s", s, m
			for (i = 1; i <= nn; i++)
				printf " %12s", fmt(C[s, m, NS[i]])
			printf " %10s\n", (C[s, m, 10] > 0 && C[s, m, 10000] != "") ? \
				sprintf("%.3f", C[s, m, 10000] / C[s, m, 10]) : "n/a"
		}
		printf "\n"
	}
	printf "attach / detach apart:\n"
	for (si = 1; si <= 2; si++) {
		s = si == 1 ? "wide" : "deep"
		for (j = 1; j <= nm; j++) {
			m = MS[j]
			printf "%-6s %-12s", s, m
			for (i = 1; i <= nn; i++)
				printf " %21s", fmt(A[s, m, NS[i]]) "/" fmt(D[s, m, NS[i]])
			printf "\n"
		}
	}

	printf "\nb. the mounter: mount (fsopen..move_mount) + umount (umount2 MNT_DETACH + close), instructions\n"
	printf "per pair, the fastest of 9, with Q queues watching: parent (watch_mount on the changed\n"
	printf "mount'"'"'s parent), root (on \"/\"), self (on the changed mount, set between mount and umount),\n"
	printf "fanotify (Q groups with a mount-namespace mark); per queue: (change(Q) - change(0)) / Q, the\n"
	printf "change being move_mount + umount, the part a watch sees (fsopen..fsmount builds the tmpfs)\n\n"
	for (si = 1; si <= 2; si++) {
		s = si == 1 ? "wide" : "deep"
		printf "%-6s %-9s %5s", s, "place", "Q"
		for (i = 1; i <= nn; i++)
			printf " %10s %8s", "N=" NS[i], "/queue"
		printf "\n"
		printf "%-6s %-9s %5s", s, "none", 0
		for (i = 1; i <= nn; i++)
			printf " %10s %8s", fmt(P[s, "none", 0, NS[i]]), ""
		printf "\n"
		for (k = 2; k <= np; k++)
			for (l = 1; l <= nq; l++) {
				p = PS[k]; q = QS[l]
				printf "%-6s %-9s %5s", s, p, q
				for (i = 1; i <= nn; i++) {
					v = CH[s, p, q, NS[i]]; b = CH[s, "none", 0, NS[i]]
					printf " %10s %8s", fmt(P[s, p, q, NS[i]]), v == "" || b == "" ? "n/a" : \
						sprintf("%.1f", (v - b) / q)
				}
				printf "\n"
			}
		printf "\n"
	}

	printf "c. a consumer keeping a table of every mount through %s changes at N = %s (wide); it wakes\n", SO, SN
	printf "every batch changes; total: its instructions over the storm; recovery: after a lost record\n\n"
	printf "%-12s %-9s %5s %6s %12s %9s %8s %12s %12s   %s\n", "consumer", "recovery", "batch",
		"queue", "total", "per op", "overruns", "recov total", "recov median", "table==mountinfo"
	for (i = 1; i <= ns; i++)
		print ST[i]

	printf "\nd. kernel-patches 0035 (walk_after_last_watch): %s\n", WALK
	printf "\nThe goals (issue 44); figures, not verdicts:\n"
	for (si = 1; si <= 2; si++) {
		s = si == 1 ? "wide" : "deep"
		for (j = 1; j <= 2; j++) {
			m = MS[j]
			r = C[s, m, 10] > 0 ? C[s, m, 10000] / C[s, m, 10] : 0
			printf "goal 1 (%s, %s): cost per change flat in N, 10 -> 10000 within 10%%: %s -> %s (%+.1f%%): %s",
				s, m, C[s, m, 10], C[s, m, 10000], (r - 1) * 100,
				r >= 0.9 && r <= 1.1 ? "met" : "not met"
			printf "; attach (with statmount) %s -> %s, detach (the notification alone) %s -> %s\n",
				A[s, m, 10], A[s, m, 10000], D[s, m, 10], D[s, m, 10000]
			r = C[s, m, 10000] > 0 ? C[s, "mountinfo", 10000] / C[s, m, 10000] : 0
			printf "goal 2 (%s, %s): >= 1000x below a mountinfo re-read at N=10000: %s vs %s, %.0fx: %s\n",
				s, m, C[s, m, 10000], C[s, "mountinfo", 10000], r, r >= 1000 ? "met" : "not met"
		}
	}
	printf "goal 3: table == mountinfo after the storm: in sync watch_mount %s, fanotify %s, mountinfo %s, listmount %s;\n",
		SE["watch_mount", "none"], SE["fanotify", "none"], SE["mountinfo", "none"], SE["listmount", "none"]
	printf "  overrun watch_mount+counters %s (recovery median %s), watch_mount+rescan %s (%s), fanotify+rescan %s (%s), fanotify+counters %s (%s)\n",
		SE["watch_mount", "counters"], SR["watch_mount", "counters"], SE["watch_mount", "rescan"],
		SR["watch_mount", "rescan"], SE["fanotify", "rescan"], SR["fanotify", "rescan"],
		SE["fanotify", "counters"], SR["fanotify", "counters"]
	for (si = 1; si <= 2; si++) {
		s = si == 1 ? "wide" : "deep"
		printf "goal 4 (%s): the mounter'"'"'s extra cost per watching queue, (change(1000) - change(0)) / 1000\n  [slope (change(1000) - change(100)) / 900], N=10 -> N=10000:", s
		for (k = 2; k <= np; k++) {
			p = PS[k]
			a = CH[s, p, 1000, 10]; b = CH[s, "none", 0, 10]; c = CH[s, p, 1000, 10000]; d = CH[s, "none", 0, 10000]
			printf " %s %.1f [%.1f] -> %.1f [%.1f];", p, (a - b) / 1000, (a - CH[s, p, 100, 10]) / 900,
				(c - d) / 1000, (c - CH[s, p, 100, 10000]) / 900
		}
		printf "\n  the mounter with no watch: %s -> %s instructions a pair\n", P[s, "none", 0, 10], P[s, "none", 0, 10000]
	}
}' "$lines"
}

tables | tee "$results/table.txt"

# The plots: cost per change against N, one line per mechanism, log-log;
# and the mounter's extra cost per watching queue (Q = 1000) against N.
for shape in wide deep; do
	for m in watch_mount fanotify mountinfo listmount; do
		awk "$awk_field"'/^BENCH scale-watcher / && field("shape") == s && field("mech") == m {
			print field("n"), field("change") }' s="$shape" m="$m" "$lines" >"$results/watcher-$shape-$m.dat"
	done
	for p in parent root self fanotify; do
		awk "$awk_field"'/^BENCH scale-mounter / && field("shape") == s {
			if (field("place") == "none") base[field("n")] = field("change")
			if (field("place") == p && field("queues") == 1000) v[field("n")] = field("change")
		}
		END { for (n = 10; n <= 10000; n *= 10) if ((n in v) && (n in base)) print n, (v[n] - base[n]) / 1000 }' \
			s="$shape" p="$p" "$lines" >"$results/mounter-$shape-$p.dat"
	done
done
(
	cd "$results"
	for shape in wide deep; do
		gnuplot <<EOF
set terminal png size 800,560 noenhanced
set format y "%.0e"
set output 'watcher-$shape.png'
set title "Learning one mount change ($shape tree): the watcher's instructions"
set xlabel 'mounts in the tree (N)'
set ylabel 'guest instructions per change'
set logscale xy
set key top left
set grid
plot 'watcher-$shape-watch_mount.dat' with linespoints title 'watch_mount + statmount (2019)', \
     'watcher-$shape-fanotify.dat' with linespoints title 'fanotify mntns mark + statmount', \
     'watcher-$shape-mountinfo.dat' with linespoints title 'poll + re-read mountinfo', \
     'watcher-$shape-listmount.dat' with linespoints title 'listmount + statmount rescan'
EOF
		gnuplot <<EOF
set terminal png size 800,560 noenhanced
set format y "%.0e"
set output 'mounter-$shape.png'
set title "The mounter's extra instructions per watching queue, Q = 1000 ($shape tree)"
set xlabel 'mounts in the tree (N)'
set ylabel 'guest instructions per queue per mount+umount'
set logscale xy
set key top left
set grid
plot 'mounter-$shape-parent.dat' with linespoints title 'watch_mount on the parent', \
     'mounter-$shape-root.dat' with linespoints title 'watch_mount on /', \
     'mounter-$shape-self.dat' with linespoints title 'watch_mount on the changed mount', \
     'mounter-$shape-fanotify.dat' with linespoints title 'fanotify mntns mark'
EOF
	done
)
secs=$(($(date +%s) - start))
echo "watchlab bench-scale: plots in $results/*.png; table in $results/table.txt; $((secs / 60)) min $((secs % 60)) s"
