// SPDX-License-Identifier: GPL-2.0
/*
 * suite_fput.c - the fs.fput_creds switch (kernel-patches 0002) and whose
 * creds the UNMOUNT posted by the last fput() of an fsmount() fd carries.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>
/* glibc's <fcntl.h> already defines what <linux/fcntl.h> would redefine. */
#define _LINUX_FCNTL_H
#include <linux/watch_queue.h>

#include "fdpass.h"
#include "label.h"
#include "vfs_util.h"
#include "evidence.h"
#include "wl.h"

/*
 * Whose creds does the UNMOUNT notification posted by the last fput() of an
 * fsmount() fd carry?  The post is judged by the LSM's post_notification
 * hook with those creds, so the only in-guest observation point is the
 * verdict: the watcher gets the record or not.  With Smack (smack profile)
 * the tests give the watcher, the creator, the last closer and an exec
 * target different labels and allow only "closer -> watcher" writes, so the
 * record arrives if and only if the post was attributed to the closer.
 * Without a label-based LSM nothing in the guest can tell whose creds were
 * used, so those tests are skipped (see NOTES-fput-creds.md).
 */

#define SMACK_LOAD WL_SMACK_LOAD2
#define L_WATCHER "wlW"
#define L_CREATOR "wlA"
#define L_CLOSER "wlB"
#define L_EXEC "wlC"
#define EXEC_COPY "/tmp/wl-exec-true"

static int read_switch(void)
{
	char buf[8];

	return wl_read_file(WL_FPUT_SYSCTL, buf, sizeof(buf)) > 0 ? atoi(buf) : -1;
}

/* Quiet: a test writes 2 and expects EINVAL. */
static int write_switch(const char *v)
{
	return wl_try_write(WL_FPUT_SYSCTL, v, strlen(v));
}

/* The switch exists, defaults to on, takes 0 and 1 and nothing else. */
static enum wl_result switch_sysctl(void)
{
	char v[8];
	int initial = read_switch();

	WL_EXPECT(initial == 0 || initial == 1, "%s missing or not 0/1", WL_FPUT_SYSCTL);
	if (!wl_cmdline("fput_creds", v, sizeof(v)))
		WL_EXPECT(initial == 1, "fs.fput_creds defaults to %d, want 1", initial);
	WL_EXPECT(write_switch("0") == 0 && read_switch() == 0, "set 0: %s", strerror(errno));
	WL_EXPECT(write_switch("1") == 0 && read_switch() == 1, "set 1: %s", strerror(errno));
	WL_EXPECT(write_switch("2") == -1 && errno == EINVAL, "2 accepted (errno %s)",
		  strerror(errno));
	WL_EXPECT(read_switch() == 1, "a rejected write changed the switch");
	write_switch(initial ? "1" : "0");
	return WL_PASS;
}

/* From the boot's command line: suite_boot checks the kernel agrees. */
static bool smack_active(void)
{
	return wl_boot_has_lsm("smack");
}

/* The tests' own check: Smack runs and its rules can be loaded. */
static bool smack_usable(void)
{
	char buf[32] = "";
	int fd;
	ssize_t n;

	if (access(SMACK_LOAD, F_OK) && access("/sys/fs/smackfs", F_OK) == 0)
		mount("smackfs", "/sys/fs/smackfs", "smackfs", 0, NULL);
	fd = open("/proc/self/attr/smack/current", O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	return n > 0 && access(SMACK_LOAD, W_OK) == 0;
}

struct fput_ctx {
	int sock[2];
	int mfd;
	bool exec_last;		/* the closer execs instead of closing */
};

/* uid 1000: hand the fsmount fd to the closer and drop its own copy. */
static int creator(void *arg)
{
	struct fput_ctx *c = arg;

	if (wl_send_fd(c->sock[0], c->mfd))
		return 1;
	close(c->mfd);
	return 0;
}

/* uid 1001: receive the fd and drop the last reference, by close or exec. */
static int closer(void *arg)
{
	struct fput_ctx *c = arg;
	int fd = wl_recv_fd(c->sock[1]);

	if (fd < 0)
		return 1;
	if (!c->exec_last) {
		close(fd);
		return 0;
	}
	/* O_CLOEXEC: exec drops it, then runs under the exec target's label. */
	execl(EXEC_COPY, "true", (char *)NULL);
	wl_diag("exec %s: %s", EXEC_COPY, strerror(errno));
	return 1;
}

/*
 * Run the scenario with the switch set to sw; return 1 if the watcher got
 * the UNMOUNT, 0 if not, -1 on error.
 */
static int fput_scenario(bool exec_last, const char *sw)
{
	struct wl_creds c1000 = wl_user(1000), c1001 = wl_user(1001);
	struct fput_ctx ctx = { .exec_last = exec_last };
	struct wl_record rec;
	int fs, q, r;

	c1000.label = L_CREATOR;
	c1001.label = L_CLOSER;
	if (write_switch(sw)) {
		wl_diag("set %s to %s: %s", WL_FPUT_SYSCTL, sw, strerror(errno));
		return -1;
	}
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, ctx.sock)) {
		wl_diag("socketpair: %s", strerror(errno));
		return -1;
	}
	fs = syscall(SYS_fsopen, "tmpfs", 0);
	if (fs < 0 || syscall(SYS_fsconfig, fs, 6, NULL, NULL, 0)) {
		wl_diag("fsopen/fsconfig: %s", strerror(errno));
		return -1;
	}
	ctx.mfd = syscall(SYS_fsmount, fs, 1 /* FSMOUNT_CLOEXEC */, 0);
	close(fs);
	q = wl_wq_open(16);
	if (ctx.mfd < 0 || q < 0) {
		wl_diag("fsmount/queue: %s", strerror(errno));
		return -1;
	}
	/*
	 * Set the watch as uid 1001 (saved uid 0 to come back), so that a
	 * DAC "may T signal W" rule (watchpol's schaufler model) passes for
	 * the closer and only the labels decide.
	 */
	if (setresuid(1001, 1001, 0)) {
		wl_diag("setresuid(1001, 1001, 0): %s", strerror(errno));
		return -1;
	}
	r = wl_watch_mount(ctx.mfd, "", AT_EMPTY_PATH, q, 0x51);
	if (r)
		wl_diag("watch_mount(fsmount fd) as uid 1001: %s", strerror(errno));
	if (setresuid(0, 0, 0)) {
		wl_diag("setresuid(0, 0, 0): %s", strerror(errno));
		return -1;
	}
	if (r)
		return -1;
	/* The creator sends it on; only the in-flight skb holds it then. */
	r = wl_run_as(&c1000, creator, &ctx);
	close(ctx.mfd);
	if (r == 0)
		r = wl_run_as(&c1001, closer, &ctx);
	close(ctx.sock[0]);
	close(ctx.sock[1]);
	if (r != 0) {
		wl_diag("scenario children failed (%d)", r);
		wl_wq_close(q);
		return -1;
	}
	r = wl_wq_expect(q, WATCH_TYPE_MOUNT_NOTIFY, NOTIFY_MOUNT_UNMOUNT, &rec,
			 WL_EVENT_TIMEOUT_MS * 2);
	wl_wq_close(q);
	return r < 0 ? -1 : r;
}

static int prepare_labels(bool need_exec)
{
	if (!smack_usable()) {
		wl_diag("Smack is not active or smackfs is not available");
		return -1;
	}
	if (wl_smack_rule(L_CLOSER, L_WATCHER, "rwx") ||
	    wl_smack_rule(L_CREATOR, L_WATCHER, "-") ||
	    wl_smack_rule(L_EXEC, L_WATCHER, "-") || wl_smack_enter(L_WATCHER))
		return -1;
	if (need_exec) {
		if (system("cp /bin/busybox " EXEC_COPY) != 0 ||
		    setxattr(EXEC_COPY, "security.SMACK64EXEC", L_EXEC, strlen(L_EXEC), 0)) {
			wl_diag("labelled exec target: %s", strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* A matrix cell of a scenario's run: delivered > 0, blocked 0, error < 0. */
static void fput_cell(const char *name, const char *expected, int got, const char *evidence)
{
	struct wl_cell cell = {
		.scenario = name, .model = wl_model(), .expected = expected,
		.observed = got > 0 ? "delivered" : got == 0 ? "blocked" : "error",
		.evidence = evidence, .threat = "misattribution",
	};

	wl_matrix(&cell);
}

/*
 * The brief's scenario: uid 1000 creates, passes over SCM_RIGHTS, uid 1001
 * closes last.  close(2) runs __fput() synchronously in 1001, so the post
 * carries 1001's creds whether the switch is on or off.
 */
static enum wl_result scm_rights_last_closer(void)
{
	int on, off, initial = read_switch();

	WL_EXPECT(prepare_labels(false) == 0, "Smack labels and rules");
	on = fput_scenario(false, "1");
	off = fput_scenario(false, "0");
	write_switch(initial ? "1" : "0");
	fput_cell("fput-scm-close-switch-on", "delivered", on, NULL);
	fput_cell("fput-scm-close-switch-off", "delivered", off, NULL);
	WL_EXPECT(on == 1, "switch on: UNMOUNT not attributed to the closer (%d)", on);
	WL_EXPECT(off == 1, "switch off: UNMOUNT not attributed to the closer (%d)", off);
	return WL_PASS;
}

/*
 * Where the switch matters: the last reference goes at exec (O_CLOEXEC) and
 * the deferred __fput() runs after the exec has changed the creds.  On: the
 * closer's creds (delivered); off: the exec target's (blocked).
 */
static enum wl_result exec_cloexec_last_closer(void)
{
	static struct wl_evidence ev;
	int on, off, initial = read_switch();
	char where[160] = "";
	bool explained = true;

	WL_EXPECT(prepare_labels(true) == 0, "Smack labels, rules and exec target");
	on = fput_scenario(true, "1");
	WL_EXPECT(wl_evidence_begin(&ev) == 0, "open the evidence window");
	off = fput_scenario(true, "0");
	wl_evidence_take(&ev);
	wl_evidence_end(&ev);
	write_switch(initial ? "1" : "0");
	unlink(EXEC_COPY);
	if (off == 0)
		explained = wl_evidence_blocked(&ev, NULL, "watch", 0, "mount", NOTIFY_MOUNT_UNMOUNT,
						where, sizeof(where));
	fput_cell("fput-exec-cloexec-switch-on", "delivered", on, NULL);
	fput_cell("fput-exec-cloexec-switch-off", "blocked", off,
		  explained ? where : "unexplained");
	WL_EXPECT(explained, "switch off: %s", where);
	WL_EXPECT(off != 0 || strcmp(where, "post:smack") == 0,
		  "switch off: want the post refused by Smack, got %s", where);
	WL_EXPECT(on == 1, "switch on: post not attributed to the pre-exec closer (%d)", on);
	WL_EXPECT(off == 0, "switch off: post not attributed to the exec'd creds (%d)", off);
	return WL_PASS;
}

static const struct wl_test tests[] = {
	{ "switch_sysctl", switch_sysctl },
};

/* These need Smack labels to observe whose creds the post carries. */
static const struct wl_test smack_tests[] = {
	{ "scm_rights_last_closer", scm_rights_last_closer },
	{ "exec_cloexec_last_closer", exec_cloexec_last_closer },
};

WL_SUITE(suite_fput, tests);
/* Loads the Smack rule wlB wlW rwx until reboot (fput_scenario). */
WL_SUITE(suite_fput_smack, smack_tests, .applies = smack_active,
	 .skip_reason = "Smack is not the boot's LSM", .stage = WL_STAGE_LSM_RULES);
