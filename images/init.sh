#!/bin/sh
# watchlab guest /init: mount the pseudo filesystems, create the test users,
# run the in-guest runner (or a shell), then reboot -f: tinyconfig has no
# ACPI, so only a reboot (with -no-reboot on the QEMU side) ends the guest.
set -eu
export PATH=/bin:/sbin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t securityfs securityfs /sys/kernel/security
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
if [ -d /sys/kernel/debug ]; then
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null || true
fi
# The debug kernel: forget boot-time allocations so the kmemleak suite
# reports only what leaked while the lab ran.
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo clear >/sys/kernel/debug/kmemleak
fi

# Console shows EMERG..WARNING: every BUG, WARNING, KASAN and lockdep report,
# without informational noise interleaving with the KTAP.
echo 5 >/proc/sys/kernel/printk

cat >/etc/passwd <<EOP
root:x:0:0:root:/root:/bin/sh
alice:x:1000:1000:watcher:/tmp:/bin/sh
bob:x:1001:1001:triggerer:/tmp:/bin/sh
carol:x:1002:1002:bystander:/tmp:/bin/sh
EOP
cat >/etc/group <<EOG
root:x:0:
alice:x:1000:
bob:x:1001:
carol:x:1002:
EOG

# Smack: the lab's rules (policy/smack/rules), one rule a write to load2,
# which takes no comments and no second write on the same open file.
load_smack_rules() {
	mount -t smackfs smackfs /sys/fs/smackfs || return 1
	sed -e 's/#.*//' /etc/watchlab/smack/rules | while read -r subject object access; do
		[ -n "$subject" ] || continue
		echo "$subject $object $access" >/sys/fs/smackfs/load2 || return 1
	done
}

mode="test"
profile="plain"
suites=""
early=0
read -r cmdline </proc/cmdline
for arg in $cmdline; do
	case $arg in
	watchlab.mode=*) mode=${arg#watchlab.mode=} ;;
	watchlab.profile=*) profile=${arg#watchlab.profile=} ;;
	watchlab.early=*) early=${arg#watchlab.early=} ;;
	watchlab.suites=*) suites=$(echo "${arg#watchlab.suites=}" | tr ',' ' ') ;;
	esac
done

# watchlab.early=1 (the selinux-early boot, suite_early): keep the policy
# watchpol booted with, then write one with label rules while SELinux has
# no policy yet (every context resolves to the kernel SID), one of them
# naming a type the SELinux policy lacks: accepted now, invalid once
# SELinux is up (suite_early: it must not freeze the other rules).
if [ "$early" = 1 ]; then
	cat /sys/kernel/security/watchpol/policy >/tmp/watchpol-boot.policy
	{
		printf 'default none\npost_dac off\n'
		cat /etc/watchlab/watchpol/rules-selinux.policy
		echo 'post system_u:system_r:wl_no_such_t:s0 system_u:system_r:wl_watcher_t:s0'
		echo end
	} >/sys/kernel/security/watchpol/policy ||
		echo "# watchlab: the early watchpol policy did not load"
fi

# The major LSM's policy, before anything runs under it.  A failure is
# reported and the runner still runs: its labels suite then fails.
case $profile in
selinux)
	/bin/wl-selinux-load /etc/watchlab/selinux/policy.bin ||
		echo "# watchlab: the SELinux policy did not load"
	;;
smack)
	load_smack_rules || echo "# watchlab: the Smack rules did not load"
	;;
esac

# The gcov files of debugfs report size 0, so each is copied with cat
# before tar reads it.
dump_gcov() {
	(
		cd /sys/kernel/debug/gcov
		find . -name '*.gcda' | while read -r f; do
			mkdir -p "/tmp/gcov/${f%/*}"
			cat "$f" >"/tmp/gcov/$f"
		done
	)
	# The runner's copies suite by suite (testcases/runner/lib/gcov_suites.c)
	# ride along in suites/, not counted.
	n=$(find /tmp/gcov -path /tmp/gcov/suites -prune -o -name '*.gcda' -print | wc -l)
	{
		echo "WATCHLAB-GCOV-BEGIN $n"
		tar -C /tmp/gcov -cf - . | gzip | base64
		echo "WATCHLAB-GCOV-END"
	} >/dev/ttyS1
}

if [ "$mode" = shell ]; then
	echo "watchlab shell ($profile): wl --help (watch, as, policy, scenario), keyctl, wlrun --help;"
	echo "policies in /etc/watchlab, docs/workbench.md's walkthrough in /etc/watchlab/walkthrough; exit to power off"
	setsid cttyhack sh || true
else
	# shellcheck disable=SC2086 # one suite name per word
	/bin/wlrun $suites || echo "# watchlab: runner reported failures"
fi
# make coverage's kernel (gcov, images/cov.config): carry the profiled
# objects' counters out on the second serial port, ttyS1, which
# harness/boot.sh writes to the console log's .ttyS1 file
# (harness/coverage.sh reads it): a gzipped tar of the .gcda files of
# /sys/kernel/debug/gcov in base64 between two marker lines.  Other kernels
# have no /sys/kernel/debug/gcov and skip this.
if [ -d /sys/kernel/debug/gcov ]; then
	dump_gcov || echo "# watchlab: the gcov data was not written out"
fi
sync
reboot -f
