// SPDX-License-Identifier: GPL-2.0
/*
 * suite_hook_toggle.c - watchpol's post hook switched on and off while
 * another CPU posts (kernel-patches 0018, issue 43 item 3).
 *
 * The lab kernels have CONFIG_JUMP_LABEL=y, so each switch of the hook's
 * slot patches the call sites with text_poke_bp() while the other vCPU may
 * be executing them.  Opening watchpol/log attaches a decision consumer and
 * closing it detaches it: under model none (no policy that checks posts)
 * each open and each close flips the slot.  CPU 0 does that TOGGLES times
 * while a child on CPU 1 updates a key that a queue watches, as fast as it
 * can.  A stale or torn call site shows as an oops (the boot dies:
 * host.runner_finished and host.console_clean), and the hook must end up
 * doing what the consumer count says: a post is logged while the log is
 * open, none while it is closed.  The debug kernel runs it too, fewer
 * times, under KASAN and lockdep.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <keyutils.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "watchpol_util.h"
#include "wl.h"

#define TOGGLES 2000
#define TOGGLES_DEBUG 300

struct poster {
	atomic_int stop;
	atomic_ulong updates;
	atomic_ulong failed;
};

/* CPU 1: update the key until told to stop. */
static int post_loop(struct poster *ps, key_serial_t key)
{
	wl_pin_cpu(1);
	while (!atomic_load(&ps->stop)) {
		if (keyctl_update(key, "x", 1))
			atomic_fetch_add(&ps->failed, 1);
		else
			atomic_fetch_add(&ps->updates, 1);
	}
	return 0;
}

/* Records waiting on the queue, read and counted. */
static unsigned int drain_records(int q)
{
	struct wl_record rec;
	unsigned int n = 0;

	while (wl_wq_read(q, &rec, 0) == 1)
		n++;
	return n;
}

static const char *const post_words[] = { "hook=post_notification", "type=key", NULL };

/*
 * Update the key and say whether watchpol logged the post: with the log
 * held open (@open, a consumer attached: the hook is on) or closed until
 * after the update (no consumer: the hook is off, nothing is logged).
 * 0, or -1 (diagnosed).
 */
static int post_logged(key_serial_t key, bool open, bool *logged)
{
	char *log;

	free(wp_drain_log());
	if (!open)
		wp_log_detach();
	if (keyctl_update(key, "y", 1)) {
		wl_diag("keyctl_update: %s", strerror(errno));
		return -1;
	}
	log = wp_drain_log();
	wp_log_detach();
	if (!log)
		return -1;
	*logged = wp_log_lines_with(log, post_words) > 0;
	free(log);
	return 0;
}

static enum wl_result toggle_under_posts(void)
{
	unsigned int toggles = wl_debug_kernel() ? TOGGLES_DEBUG : TOGGLES, records = 0;
	unsigned long updates, failed;
	bool on = false, off = true;
	struct poster *ps;
	key_serial_t key;
	int q, fd, r, status, checked;
	unsigned int i;
	pid_t pid;

	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	WL_EXPECT(wl_load_model("none") == 0, "load model none");
	ps = mmap(NULL, sizeof(*ps), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	WL_EXPECT(ps != MAP_FAILED, "mmap: %s", strerror(errno));
	key = add_key("user", "wl-toggle", "x", 1, KEY_SPEC_PROCESS_KEYRING);
	WL_EXPECT(key > 0, "add_key: %s", strerror(errno));
	WL_EXPECT(keyctl_setperm(key, KEY_POS_ALL | KEY_USR_ALL) == 0, "keyctl_setperm: %s",
		  strerror(errno));
	q = wl_wq_open(256);
	WL_EXPECT(q >= 0, "notification pipe");
	WL_EXPECT(keyctl_watch_key(key, q, 3) == 0, "keyctl_watch_key: %s", strerror(errno));

	fflush(NULL);
	pid = fork();
	WL_EXPECT(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0)
		_exit(post_loop(ps, key));
	wl_pin_cpu(0);
	for (i = 0; i < toggles; i++) {
		fd = open(WP_LOG, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			break;
		close(fd);
		if (i % 64 == 0)
			records += drain_records(q);
	}
	atomic_store(&ps->stop, 1);
	r = waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status);
	records += drain_records(q);
	updates = atomic_load(&ps->updates);
	failed = atomic_load(&ps->failed);
	munmap(ps, sizeof(*ps));
	wl_diag("%u hook toggles against %lu key updates (%lu failed), %u records read",
		i, updates, failed, records);

	/* Whatever the flips left, the hook follows the consumer count. */
	checked = post_logged(key, false, &off) || post_logged(key, true, &on);
	keyctl_invalidate(key);
	wl_wq_close(q);
	wp_restore_policy();
	WL_EXPECT(i == toggles, "open %s after %u toggles: %s", WP_LOG, i, strerror(errno));
	WL_EXPECT(r, "the posting child did not finish cleanly");
	WL_EXPECT(updates > 0 && !failed, "%lu key updates, %lu failed", updates, failed);
	WL_EXPECT(records > 0, "no key record reached the queue");
	WL_EXPECT(!checked, "could not check the hook's state after the toggles");
	WL_EXPECT(on, "a post made with the log open was not logged: the hook is off");
	WL_EXPECT(!off, "a post made with the log closed was logged: the hook is on");
	return WL_PASS;
}

static bool hook_toggle_applies(void)
{
	return wl_have_watchpol() && !strcmp(wl_profile(), "plain") && !wl_byo_lsm();
}

static const struct wl_test tests[] = {
	{ "toggle_under_posts", toggle_under_posts },
};

WL_SUITE_IF(suite_hook_toggle, tests, hook_toggle_applies, "the plain boots only");
