// SPDX-License-Identifier: GPL-2.0
/*
 * suite_audit - watchpol's decisions through the kernel's audit.
 *
 * The runner becomes the audit daemon for a window (lib/evidence.c) and
 * reads what watchpol records there: policy loads and rejections
 * (AUDIT_MAC_POLICY_LOAD), enforce changes (AUDIT_MAC_STATUS) and
 * denials (AUDIT_AVC, "lsm=watchpol").  Loads are never limited; denials
 * are limited per subject (a burst of 10 per 5 s for each uid), so the
 * suite runs first, before other suites' denials use up the runner's
 * burst.  The debug kernel has no CONFIG_AUDIT.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "evidence.h"
#include "scenario_run.h"
#include "vfs_util.h"
#include "watchpol_util.h"
#include "wl.h"

static bool audit_applies(void)
{
	return wl_have_watchpol() && !wl_debug_kernel();
}

/* The whole line of the window's audit text that holds every one of want[]. */
static bool has_record(const struct wl_evidence *ev, const char *const *want, size_t n)
{
	for (const char *l = ev->audit_text; *l; ) {
		size_t len = strcspn(l, "\n");
		size_t hit = 0;
		char line[1024];

		snprintf(line, sizeof(line), "%.*s", (int)len, l);
		for (size_t i = 0; i < n; i++)
			hit += strstr(line, want[i]) != NULL;
		if (hit == n)
			return true;
		l += len + (l[len] == '\n');
	}
	return false;
}

#define EXPECT_RECORD(ev, ...)							\
	do {									\
		static const char *const want_[] = { __VA_ARGS__ };		\
		WL_EXPECT(has_record(ev, want_, WL_ARRAY_SIZE(want_)),		\
			  "no audit record with %s ...; the window had:\n%s",	\
			  want_[1], (ev)->audit_text);				\
	} while (0)

/*
 * Loads, a rejection, an enforce change and a post-time denial each leave
 * an audit record naming watchpol, with the fields lsm/README.md lists.
 * key-update-other-uid under strict: uid 1001 updates its key, uid 1000's
 * watch is refused the record.
 */
static enum wl_result audit_records_changes_and_denials(void)
{
	static const char path[] = "/etc/watchlab/scenarios/keys.scn";
	static struct wl_evidence ev;
	const struct scenario *s = NULL;
	struct scn_set set = { 0 };
	unsigned int v[4];
	char err[256];
	int watch_err = 0, r;
	enum scn_result got;

	WL_EXPECT(!scn_parse_file(&set, path, err, sizeof(err)), "%s", err);
	for (size_t i = 0; i < set.n; i++)
		if (!strcmp(set.v[i].name, "key-update-other-uid"))
			s = &set.v[i];
	WL_EXPECT(s, "%s has no scenario key-update-other-uid", path);
	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	WL_EXPECT(wl_evidence_begin(&ev) == 0 && ev.audit >= 0,
		  "no audit window: is CONFIG_AUDIT on?");
	r = wp_write_policy_str("default none\nenforce 0\n");
	WL_EXPECT(r == 0, "load enforce 0: %s", strerror(-r));
	r = wp_write_policy_str("default strict\nenforce 1\n");
	WL_EXPECT(r == 0, "load strict: %s", strerror(-r));
	r = wp_write_policy_str("default nosuchmodel\n");
	WL_EXPECT(r == -EINVAL, "a bad policy loaded (%s)", strerror(-r));
	WL_EXPECT(scn_variant_list(s, v, 4) > 0, "key-update-other-uid has no variant");
	got = scn_run(s, v[0], &ev, &watch_err);
	wl_evidence_end(&ev);
	scn_set_free(&set);
	WL_EXPECT(wp_restore_policy(), "could not restore the policy");
	WL_EXPECT(got == SCN_BLOCKED, "key-update-other-uid under strict: %s",
		  scn_result_name(got));
	EXPECT_RECORD(&ev, "lsm=watchpol", "op=load", "default=strict", "enforce=1",
		      "kernel_events=allow", "rules=0", "auid=", "res=1");
	EXPECT_RECORD(&ev, "lsm=watchpol", "enforcing=1 old_enforcing=0", "res=1");
	EXPECT_RECORD(&ev, "lsm=watchpol", "op=load line=1", "reason=", "res=0");
	EXPECT_RECORD(&ev, "lsm=watchpol", "hook=post_notification", "type=key",
		      "w_uid=1000", "t_uid=1001", "model=strict", "verdict=deny",
		      "result=deny");
	return WL_PASS;
}

/* The lines of the window's audit text that hold every one of want[]. */
static unsigned int count_records(const struct wl_evidence *ev, const char *const *want,
				  size_t n)
{
	unsigned int count = 0;

	for (const char *l = ev->audit_text; *l; ) {
		size_t len = strcspn(l, "\n");
		size_t hit = 0;

		for (size_t i = 0; i < n; i++)
			hit += memmem(l, len, want[i], strlen(want[i])) != NULL;
		count += hit == n;
		l += len + (l[len] == '\n');
	}
	return count;
}

#define JAIL "/tmp/wlaudit-jail"

/*
 * As uid @uid, chrooted in JAIL: @n watch_mount() calls on a directory
 * outside it (/tmp), each refused by the watcher model.  The child's exit
 * code counts calls that were not refused with EACCES.
 */
static int refused_watches(uid_t uid, int n)
{
	struct wl_creds c = wl_user(uid);
	int outside, q, bad = 0, status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		outside = open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);
		q = wl_queue_open(WL_TRANSPORT_PIPE, 16);
		if (outside < 0 || q < 0 || chroot(JAIL) || chdir("/") || wl_drop_creds(&c))
			_exit(100);
		for (int i = 0; i < n; i++)
			if (wl_watch_mount(outside, "", AT_EMPTY_PATH, q, 1) == 0 || errno != EACCES)
				bad++;
		_exit(bad > 99 ? 99 : bad);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * Denial records are limited per subject (review M2): uid 1001 making 40
 * refused watches in a burst does not keep uid 1000's one refusal out of
 * audit, and uid 1001 gets no more than its own burst (10).  Under one
 * global budget of 10 per 5 s, uid 1000's record was lost.
 */
static enum wl_result audit_denials_limited_per_subject(void)
{
	static const char *const mine[] = { "lsm=watchpol", "hook=watch_mount", "w_uid=1000 ",
					    "verdict=deny" };
	static const char *const theirs[] = { "lsm=watchpol", "hook=watch_mount",
					      "w_uid=1001 ", "verdict=deny" };
	static struct wl_evidence ev;
	int a, b, r;
	unsigned int n;

	WL_EXPECT(wl_mkdir(JAIL) == 0, "mkdir %s", JAIL);
	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	r = wp_write_policy_str("default none\nmodel mount watcher\n");
	WL_EXPECT(r == 0, "load the watcher model for mounts: %s", strerror(-r));
	WL_EXPECT(wl_evidence_begin(&ev) == 0 && ev.audit >= 0,
		  "no audit window: is CONFIG_AUDIT on?");
	a = refused_watches(1001, 40);
	b = refused_watches(1000, 1);
	wl_evidence_take(&ev);
	wl_evidence_end(&ev);
	WL_EXPECT(wp_restore_policy(), "could not restore the policy");
	WL_EXPECT(a == 0 && b == 0, "watches from outside the root were not refused (%d, %d)",
		  a, b);
	n = count_records(&ev, theirs, WL_ARRAY_SIZE(theirs));
	WL_EXPECT(n >= 1 && n <= 10, "uid 1001's 40 refusals left %u records, want 1 to 10", n);
	WL_EXPECT(count_records(&ev, mine, WL_ARRAY_SIZE(mine)) == 1,
		  "uid 1000's refusal has no audit record after uid 1001's burst; the window had:\n%s",
		  ev.audit_text);
	return WL_PASS;
}

/*
 * Policy loads and rejections are never rate-limited (review M3): 24
 * loads in a burst, a rejection and a 25th load each leave a record.
 * Under the old budget of 20 loads per 5 s, shared with rejections, the
 * last ones were lost.  Loads that succeed print nothing to the kernel
 * log, so the burst leaves the log's own rate limit to later suites.
 */
static enum wl_result audit_loads_never_limited(void)
{
	static const char *const loaded[] = { "lsm=watchpol", "op=load default=", "res=1" };
	static struct wl_evidence ev;
	unsigned int n;
	int r, bad = 0;

	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	WL_EXPECT(wl_evidence_begin(&ev) == 0 && ev.audit >= 0,
		  "no audit window: is CONFIG_AUDIT on?");
	for (int i = 0; i < 24; i++) {
		bad += wp_write_policy_str(i & 1 ? "default schaufler\n" :
						   "default watcher\n") != 0;
		/* Read as we go: audit's backlog (64) must not drop them. */
		wl_evidence_take(&ev);
	}
	bad += wp_write_policy_str("default nosuchmodel\n") != -EINVAL;
	r = wp_write_policy_str("default watcher\nkernel_events deny\n");
	wl_evidence_take(&ev);
	wl_evidence_end(&ev);
	WL_EXPECT(wp_restore_policy(), "could not restore the policy");
	WL_EXPECT(!bad && r == 0, "the writes did not go as planned (%d, %s)", bad, strerror(-r));
	n = count_records(&ev, loaded, WL_ARRAY_SIZE(loaded));
	WL_EXPECT(n == 25, "25 loads left %u audit records", n);
	EXPECT_RECORD(&ev, "lsm=watchpol", "op=load line=1", "unknown model", "res=0");
	EXPECT_RECORD(&ev, "lsm=watchpol", "op=load", "default=watcher", "kernel_events=deny",
		      "res=1");
	return WL_PASS;
}

static const struct wl_test tests[] = {
	{ "audit_records_changes_and_denials", audit_records_changes_and_denials },
	{ "audit_denials_limited_per_subject", audit_denials_limited_per_subject },
	{ "audit_loads_never_limited", audit_loads_never_limited },
};

WL_SUITE(suite_audit, tests, .stage = WL_STAGE_FIRST, .applies = audit_applies,
	 .skip_reason = "no watchpol, or the debug kernel (no CONFIG_AUDIT)");
