// SPDX-License-Identifier: GPL-2.0
/*
 * suite_watchpol_recheck - what "recheck on" costs, measured on one key.
 *
 * With recheck on, watchpol asks the key again at every post whether W may
 * View it (kernel-patches/0014), without possession: the post path cannot
 * search W's keyrings.  A watcher whose View comes only from possessing
 * the key (permissions 0x3f000000, possessor only) sets its watch, since
 * KEYCTL_WATCH_KEY counts possession, and then loses every record of its
 * own updates.  The scenario matrix shows what recheck closes
 * (watch-before-perm-change); this suite shows the legitimate events it
 * loses, with the decision records that say why.  A kernel whose key
 * source offered no re-check, or one that counted possession, would
 * deliver them and turn the test red.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <keyutils.h>
#include <stdlib.h>
#include <string.h>

#include "watchpol_util.h"
#include "wl.h"

#define RC_WATCHER 1000
#define RC_UPDATES 3
#define RC_TYPE_KEY_NOTIFY 1

/*
 * As the watcher: a key only its possessor may use, a watch on it, three
 * updates of its own; returns (as exit status) the records received.
 */
static int possessor_child(void *arg)
{
	struct wl_record rec;
	key_serial_t key;
	int fd, n = 0;

	(void)arg;
	fd = wl_wq_open(64);
	if (fd < 0)
		return 100;
	key = add_key("user", "rc-possessed", "v", 1, KEY_SPEC_PROCESS_KEYRING);
	if (key < 0 || keyctl_setperm(key, KEY_POS_ALL)) {
		wl_diag("watcher: key setup: %s", strerror(errno));
		return 100;
	}
	if (keyctl_watch_key(key, fd, 3)) {
		wl_diag("watcher: KEYCTL_WATCH_KEY with possession: %s", strerror(errno));
		return 100;
	}
	for (int i = 0; i < RC_UPDATES; i++)
		if (keyctl_update(key, "u", 1)) {
			wl_diag("watcher: keyctl_update: %s", strerror(errno));
			return 100;
		}
	while (wl_wq_read(fd, &rec, WL_EVENT_TIMEOUT_MS) > 0)
		if (rec.type == RC_TYPE_KEY_NOTIFY)
			n++;
	wl_wq_close(fd);
	return n;
}

/* Run the possessor under @policy: records delivered, and the log. */
static int run_under(const char *policy, char **log)
{
	struct wl_creds w = wl_user(RC_WATCHER);
	int r, got;

	*log = NULL;
	if (!wp_save_policy())
		return -1;
	r = wp_write_policy_str(policy);
	if (r) {
		wl_diag("write policy: %s", strerror(-r));
		wp_restore_policy();
		return -1;
	}
	free(wp_drain_log());
	got = wl_run_as(&w, possessor_child, NULL);
	*log = wp_drain_log();
	wp_restore_policy();
	return got >= 0 && got <= RC_UPDATES ? got : -1;
}

/* The control: strict without recheck delivers the possessor's updates. */
static enum wl_result possession_view_delivered_without_recheck(void)
{
	static const char *const allowed[] = {
		"hook=post_notification", "type=key", "w_uid=1000", "t_uid=1000",
		"strict=allow", "result=allow", NULL
	};
	static const char *const rechecked[] = { "recheck=", NULL };
	char *log;
	int got = run_under("default strict\nkernel_events deny\n", &log);

	WL_EXPECT(got >= 0 && log, "the key run failed");
	WL_EXPECT(got == RC_UPDATES, "%d of %d records delivered", got, RC_UPDATES);
	WL_EXPECT(wp_log_lines_with(log, allowed) == RC_UPDATES &&
		  !wp_log_lines_with(log, rechecked),
		  "decision log:\n%s", log);
	free(log);
	return WL_PASS;
}

/*
 * closed.policy's settings: W the queue's creator, recheck on.  Every
 * update is refused, each with a record naming the creator and the
 * re-check as the reason.
 */
static enum wl_result recheck_loses_possession_only_view(void)
{
	static const char *const refused[] = {
		"hook=post_notification", "type=key", "w_uid=1000", "t_uid=1000",
		"watcher=deny", "strict=deny", "model=strict", "result=deny",
		"w=creator", "recheck=deny", NULL
	};
	char *log;
	int got = run_under("default strict\nkernel_events deny\n"
			    "w_creds key creator\nrecheck on\n", &log);

	WL_EXPECT(got >= 0 && log, "the key run failed");
	WL_EXPECT(got == 0, "%d of %d records delivered, want none", got, RC_UPDATES);
	WL_EXPECT(wp_log_lines_with(log, refused) == RC_UPDATES, "decision log:\n%s", log);
	free(log);
	return WL_PASS;
}

static const struct wl_test recheck_tests[] = {
	{ "possession_view_delivered_without_recheck",
	  possession_view_delivered_without_recheck },
	{ "recheck_loses_possession_only_view", recheck_loses_possession_only_view },
};

WL_SUITE_IF(suite_watchpol_recheck, recheck_tests, wl_have_watchpol,
	    "no watchpol in this kernel");
