// SPDX-License-Identifier: GPL-2.0
/*
 * suite_audit - watchpol's decisions through the kernel's audit.
 *
 * The runner becomes the audit daemon for a window (lib/evidence.c) and
 * reads what watchpol records there: policy loads and rejections
 * (AUDIT_MAC_POLICY_LOAD), enforce changes (AUDIT_MAC_STATUS) and
 * denials (AUDIT_AVC, "lsm=watchpol").  Loads are never limited; denials
 * are limited per subject (a burst of 10 per 5 s for each uid, and a
 * record of what the limit held back), so the
 * suite runs first, before other suites' denials use up the runner's
 * burst.  Not in the debug boots: the debug kernel has CONFIG_AUDIT, and
 * its smack boot's scenarios send Smack's and watchpol's denials through
 * audit, but a burst there can outlast the 5 s window the limit counts in,
 * so the counts asserted here would not hold.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <keyutils.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "evidence.h"
#include "fdpass.h"
#include "label.h"
#include "mount_counts.h"
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
/*
 * key-update-other-uid, the row the suite runs, from the scenario files:
 * the scenario (its first variant in *variant) or NULL, diagnosed.
 */
static const struct scenario *key_update_other_uid(struct scn_set *set, unsigned int *variant)
{
	static const char path[] = "/etc/watchlab/scenarios/keys.scn";
	unsigned int v[4];
	char err[256];

	if (scn_parse_file(set, path, err, sizeof(err))) {
		wl_diag("%s", err);
		return NULL;
	}
	for (size_t i = 0; i < set->n; i++) {
		if (strcmp(set->v[i].name, "key-update-other-uid"))
			continue;
		if (scn_variant_list(&set->v[i], v, 4) <= 0)
			break;
		*variant = v[0];
		return &set->v[i];
	}
	wl_diag("%s has no scenario key-update-other-uid with a variant", path);
	return NULL;
}

/*
 * Run key-update-other-uid once, its records in the caller's audit window
 * *ev: the result, or SCN_UNSET (diagnosed) when the row is missing.
 */
static enum scn_result run_key_update_other_uid(struct wl_evidence *ev)
{
	struct scn_set set = { 0 };
	const struct scenario *s;
	enum scn_result got = SCN_UNSET;
	unsigned int v;
	int watch_err = 0;

	s = key_update_other_uid(&set, &v);
	if (s)
		got = scn_run(s, v, ev, &watch_err);
	scn_set_free(&set);
	return got;
}

static enum wl_result audit_records_changes_and_denials(void)
{
	static struct wl_evidence ev;
	enum scn_result got;
	int r;

	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	WL_EXPECT(wl_evidence_begin(&ev) == 0 && ev.audit >= 0,
		  "no audit window: is CONFIG_AUDIT on?");
	r = wp_write_policy_str("default none\nenforce 0\n");
	WL_EXPECT(r == 0, "load enforce 0: %s", strerror(-r));
	r = wp_write_policy_str("default strict\nenforce 1\n");
	WL_EXPECT(r == 0, "load strict: %s", strerror(-r));
	r = wp_write_policy_str("default nosuchmodel\n");
	WL_EXPECT(r == -EINVAL, "a bad policy loaded (%s)", strerror(-r));
	got = run_key_update_other_uid(&ev);
	wl_evidence_end(&ev);
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

/*
 * A denial watchpol does not enforce is audited all the same (lsm/README.md:
 * an AVC record "enforced or not", result=allow): under strict with
 * enforce 0, key-update-other-uid's record reaches uid 1000 and its post
 * leaves a record saying what strict would have refused.
 */
static enum wl_result audit_records_permissive_denials(void)
{
	static struct wl_evidence ev;
	enum scn_result got;
	int r;

	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	r = wp_write_policy_str("default strict\nenforce 0\n");
	WL_EXPECT(r == 0, "load strict, enforce 0: %s", strerror(-r));
	WL_EXPECT(wl_evidence_begin(&ev) == 0 && ev.audit >= 0,
		  "no audit window: is CONFIG_AUDIT on?");
	got = run_key_update_other_uid(&ev);
	wl_evidence_end(&ev);
	WL_EXPECT(wp_restore_policy(), "could not restore the policy");
	WL_EXPECT(got == SCN_DELIVERED, "key-update-other-uid under strict, enforce 0: %s",
		  scn_result_name(got));
	EXPECT_RECORD(&ev, "lsm=watchpol", "hook=post_notification", "type=key",
		      "w_uid=1000", "t_uid=1001", "model=strict", "verdict=deny",
		      "result=allow", "enforce=0");
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

/* The lines of the window's audit text that hold "w_uid=@uid " and every one of want[]. */
static unsigned int count_watch_denials(const struct wl_evidence *ev, uid_t uid)
{
	char w_uid[32];
	const char *const want[] = { "lsm=watchpol", "hook=watch_mount", w_uid, "verdict=deny" };

	snprintf(w_uid, sizeof(w_uid), "w_uid=%u ", (unsigned int)uid);
	return count_records(ev, want, WL_ARRAY_SIZE(want));
}

/*
 * Denial records are limited per subject, and a subject is charged only
 * for its own (reviews M2 of 12-04 and of 12-07): uid 1001 (a bucket of
 * its own) and uid 1089 (uid 1000's bucket: hash_32(1089, 6) ==
 * hash_32(1000, 6) == 61) each make 40 refused watches in a burst; each
 * gets 1 to 10 records, and uid 1000's one refusal, made while uid 1089's
 * window is open, still has its record.  Then, once the 5 s windows are
 * over, the next refusal of each flooder first says in audit how many of
 * its records the limit held back (40 less those recorded: 30 unless an
 * earlier test opened its window), so a subject that spent its
 * burst cannot hide a later denial without a trace.  Under one global
 * budget uid 1000's record was lost; under buckets shared by every uid
 * that hashes alike, uid 1089 kept it out.
 */
static enum wl_result audit_denials_limited_per_subject(void)
{
	char held_1001[32], held_1089[32];
	const char *const held[2][4] = {
		{ "lsm=watchpol", "op=audit_limit", "subject_uid=1001 ", held_1001 },
		{ "lsm=watchpol", "op=audit_limit", "subject_uid=1089 ", held_1089 },
	};
	static struct wl_evidence ev;
	int a, b, c, d, r;
	unsigned int n1001, n1089;

	WL_EXPECT(wl_mkdir(JAIL) == 0, "mkdir %s", JAIL);
	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	r = wp_write_policy_str("default none\nmodel mount watcher\n");
	WL_EXPECT(r == 0, "load the watcher model for mounts: %s", strerror(-r));
	WL_EXPECT(wl_evidence_begin(&ev) == 0 && ev.audit >= 0,
		  "no audit window: is CONFIG_AUDIT on?");
	a = refused_watches(1001, 40);
	b = refused_watches(1089, 40);
	c = refused_watches(1000, 1);
	wl_evidence_take(&ev);
	n1001 = count_watch_denials(&ev, 1001);
	n1089 = count_watch_denials(&ev, 1089);
	/* Past the windows: the next refusal reports what each one held back. */
	sleep(6);
	d = refused_watches(1001, 1) + refused_watches(1089, 1);
	wl_evidence_take(&ev);
	wl_evidence_end(&ev);
	WL_EXPECT(wp_restore_policy(), "could not restore the policy");
	WL_EXPECT(a == 0 && b == 0 && c == 0 && d == 0,
		  "watches from outside the root were not refused (%d, %d, %d, %d)", a, b, c, d);
	WL_EXPECT(n1001 >= 1 && n1001 <= 10,
		  "uid 1001's 40 refusals left %u records, want 1 to 10", n1001);
	WL_EXPECT(n1089 >= 1 && n1089 <= 10,
		  "uid 1089's 40 refusals left %u records, want 1 to 10", n1089);
	WL_EXPECT(count_watch_denials(&ev, 1000) == 1,
		  "uid 1000's refusal has no audit record after uid 1089's burst in its bucket; the window had:\n%s",
		  ev.audit_text);
	/* What each window held back: its 40 refusals less those it recorded. */
	snprintf(held_1001, sizeof(held_1001), "held_back=%u", 40 - n1001);
	snprintf(held_1089, sizeof(held_1089), "held_back=%u", 40 - n1089);
	WL_EXPECT(count_records(&ev, held[0], 4) == 1 && count_records(&ev, held[1], 4) == 1,
		  "no record of the refusals each flooder's limit held back (%s, %s); the window had:\n%s",
		  held_1001, held_1089, ev.audit_text);
	return WL_PASS;
}

#define POST_WATCH_ID 7

struct key_pass {
	key_serial_t key;
	int sock;
	int n;
};

/* As the watcher: a queue with a watch on the key, sent to the runner. */
static int watch_key_and_send(void *arg)
{
	const struct key_pass *p = arg;
	int q = wl_queue_open(WL_TRANSPORT_PIPE, 16);

	if (q < 0 || keyctl_watch_key(p->key, q, POST_WATCH_ID))
		return 1;
	return wl_send_fd(p->sock, q) ? 2 : 0;
}

/* As a triggerer: update the key n times; the updates that failed. */
static int update_key(void *arg)
{
	const struct key_pass *p = arg;
	int bad = 0;

	for (int i = 0; i < p->n; i++)
		bad += keyctl_update(p->key, "x", 1) != 0;
	return bad;
}

/*
 * The subject of a refused post is its triggerer (review M2): under
 * strict, uid 1003's 40 updates of a key uid 1000 watches are refused and
 * use up uid 1003's burst, and uid 1002's one refused update still leaves
 * its record.  A budget kept per watcher (1000, the same for both) lost it.
 * (1003 and 1002 hash to buckets of their own, which the earlier tests
 * leave untouched.)
 */
static enum wl_result audit_post_denials_limited_per_triggerer(void)
{
	static const char *const flood[] = { "lsm=watchpol", "hook=post_notification",
					     "w_uid=1000 ", "t_uid=1003 ", "verdict=deny" };
	static const char *const mine[] = { "lsm=watchpol", "hook=post_notification",
					    "w_uid=1000 ", "t_uid=1002 ", "verdict=deny" };
	struct wl_creds w = wl_user(1000), t1 = wl_user(1003), t2 = wl_user(1002);
	static struct wl_evidence ev;
	struct key_pass p;
	int sv[2], q, a, b, r;
	unsigned int n;

	p.key = add_key("user", "wl-audit-post", "x", 1, KEY_SPEC_PROCESS_KEYRING);
	WL_EXPECT(p.key > 0, "add_key: %s", strerror(errno));
	WL_EXPECT(keyctl_setperm(p.key, KEY_POS_ALL | KEY_USR_ALL | KEY_OTH_ALL) == 0,
		  "keyctl_setperm: %s", strerror(errno));
	WL_EXPECT(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0,
		  "socketpair: %s", strerror(errno));
	p.sock = sv[1];
	r = wl_run_as(&w, watch_key_and_send, &p);
	q = r == 0 ? wl_recv_fd(sv[0]) : -1;
	close(sv[0]);
	close(sv[1]);
	WL_EXPECT(q >= 0, "uid 1000 could not watch the key (%d)", r);
	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	r = wp_write_policy_str("default none\nmodel key strict\n");
	WL_EXPECT(r == 0, "load the strict model for keys: %s", strerror(-r));
	WL_EXPECT(wl_evidence_begin(&ev) == 0 && ev.audit >= 0,
		  "no audit window: is CONFIG_AUDIT on?");
	p.n = 40;
	a = wl_run_as(&t1, update_key, &p);
	p.n = 1;
	b = wl_run_as(&t2, update_key, &p);
	wl_evidence_take(&ev);
	wl_evidence_end(&ev);
	wl_wq_close(q);
	keyctl_invalidate(p.key);
	WL_EXPECT(wp_restore_policy(), "could not restore the policy");
	WL_EXPECT(a == 0 && b == 0, "the updates failed (%d, %d)", a, b);
	n = count_records(&ev, flood, WL_ARRAY_SIZE(flood));
	WL_EXPECT(n >= 1 && n <= 10, "uid 1003's 40 refused posts left %u records, want 1 to 10",
		  n);
	WL_EXPECT(count_records(&ev, mine, WL_ARRAY_SIZE(mine)) == 1,
		  "uid 1002's refused post has no audit record after uid 1003's burst; the window had:\n%s",
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

/*
 * A complete text that will not go in force is audited as a refused load
 * (12-07 review H2): one begun before another load ("stale"), and a load
 * carries the SHA-256 of the text as written (what sha256sum prints for
 * "default watcher\nkernel_events deny\nend\n").
 */
static enum wl_result audit_records_refused_commits(void)
{
	static const char text[] = "default watcher\nkernel_events deny\nend\n";
	static struct wl_evidence ev;
	int fd, e, r;

	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	WL_EXPECT(wl_evidence_begin(&ev) == 0 && ev.audit >= 0,
		  "no audit window: is CONFIG_AUDIT on?");
	fd = open(WP_POLICY, O_WRONLY | O_CLOEXEC);
	e = fd < 0 ? errno : 0;
	if (fd >= 0 && write(fd, "default none\n", 13) != 13)
		e = errno;
	r = wp_write_policy(text, sizeof(text) - 1);
	if (fd >= 0 && !e && write(fd, "end\n", 4) != 4)
		e = errno;
	if (fd >= 0 && !e)
		e = close(fd) ? errno : -1;
	wl_evidence_take(&ev);
	wl_evidence_end(&ev);
	WL_EXPECT(wp_restore_policy(), "could not restore the policy");
	WL_EXPECT(r == 0, "load: %s", strerror(-r));
	WL_EXPECT(e == ESTALE, "the stale text's close got %s, want ESTALE",
		  e > 0 ? strerror(e) : "success");
	EXPECT_RECORD(&ev, "lsm=watchpol", "op=load", "default=watcher",
		      "digest=sha256:de0c9724ac6c4ac36d1eca3d5aae5033fa839712ffca081d8e05a9a846a873eb",
		      "res=1");
	EXPECT_RECORD(&ev, "lsm=watchpol", "op=load reason=\"stale\"", "auid=", "res=0");
	return WL_PASS;
}

#define CQ_FS "/tmp/wl-counter-query"

/* What the bystander's counter queries got (counter_queries()). */
struct cq_tally {
	int err;			/* the child's step that failed, or 0 */
	unsigned int mounts;		/* mounts statmount() answered */
	unsigned int mnt_withheld, sb_withheld;
	bool o_mnt_seen, o_mnt_withheld;	/* CQ_FS, whose root is O */
};

/* A tmpfs at CQ_FS whose root carries O's label (none in plain). */
static int cq_mount_object(void)
{
	const char *profile = wl_profile();
	char o[160], opts[256] = "mode=1777";

	if (strcmp(profile, "plain")) {
		if (wl_label_lookup("object", o, sizeof(o)))
			return -1;
		snprintf(opts, sizeof(opts), strcmp(profile, "selinux") ?
			 "mode=1777,smackfsroot=%s" : "mode=1777,rootcontext=\"%s\"", o);
	}
	umount2(CQ_FS, MNT_DETACH);
	if (wl_mkdir(CQ_FS) || mount("wlcq", CQ_FS, "tmpfs", 0, opts)) {
		wl_diag("mount tmpfs on %s (%s): %s", CQ_FS, opts, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * In a child that is the bystander (uid 1000, label bystander): both
 * counters of every mount of the namespace, through listmount() and
 * statmount() alone, tallied in *t.
 */
static int counter_queries(struct cq_tally *t)
{
	struct wl_creds c = wl_user(1000);
	uint64_t o_id = wl_mnt_id(CQ_FS, true), ids[512];
	int fds[2], status, n;
	pid_t pid;

	memset(t, 0, sizeof(*t));
	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(fds[0]);
		if (strcmp(wl_profile(), "plain") && wl_label_enter("bystander"))
			t->err = 1;
		else if (wl_drop_creds(&c))
			t->err = 2;
		else if ((n = wl_listmount(ids, WL_ARRAY_SIZE(ids))) < 0)
			t->err = 3;
		for (int i = 0; !t->err && i < n; i++) {
			struct wl_mount_counts m;

			if (wl_mount_counts_any(ids[i], &m))
				continue;
			t->mounts++;
			t->mnt_withheld += !m.have_mnt;
			t->sb_withheld += !m.have_sb;
			if (ids[i] == o_id) {
				t->o_mnt_seen = true;
				t->o_mnt_withheld = !m.have_mnt;
			}
		}
		_exit(write(fds[1], t, sizeof(*t)) == sizeof(*t) ? 0 : 1);
	}
	close(fds[1]);
	n = read(fds[0], t, sizeof(*t));
	close(fds[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) ||
	    n != sizeof(*t))
		return -1;
	return 0;
}

/* Lines of @text that hold any of @words (NULL-ended), written to @out. */
static unsigned int lines_with_any(const char *text, const char *const *words, char *out,
				   size_t len)
{
	unsigned int count = 0;

	out[0] = '\0';
	for (const char *l = text; *l; ) {
		size_t n = strcspn(l, "\n");

		for (const char *const *w = words; *w; w++) {
			if (memmem(l, n, *w, strlen(*w))) {
				size_t used = strlen(out);

				snprintf(out + used, len - used, "%.*s\n", (int)n, l);
				count++;
				break;
			}
		}
		l += n + (l[n] == '\n');
	}
	return count;
}

/*
 * A counter query is not a watch (review M1 of 12-07): the bystander asks
 * statmount() for both counters of every mount, under a policy whose
 * superblock model judges posts (so watchpol refuses every superblock
 * counter's query), with a tmpfs whose root is O (so, in a labelled
 * profile, SELinux's or Smack's own hook refuses that mount's counter: B
 * may not watch O).  The refused queries leave no trace: no watchpol
 * decision in its log, no audit record of watchpol, SELinux or Smack.  The
 * kernel that asked the set-watch hooks with an empty watch logged one
 * watch decision, and audited one denial, per refused counter.
 */
static enum wl_result counter_queries_leave_no_record(void)
{
	static const char *const log_words[] = { "hook=watch_mount", "hook=watch_sb", NULL };
	static const char *const audit_words[] = {
		"watch_mount", "watch_sb", "{ watch }", NULL
	};
	static struct wl_evidence ev;
	static char found[4096];
	bool labelled = strcmp(wl_profile(), "plain") != 0;
	struct cq_tally t;
	int r, q;

	WL_EXPECT(cq_mount_object() == 0, "the tmpfs whose root is O");
	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	r = wp_write_policy_str("default none\nmodel sb schaufler\n");
	WL_EXPECT(r == 0, "load schaufler for superblocks: %s", strerror(-r));
	WL_EXPECT(wl_evidence_begin(&ev) == 0 && ev.audit >= 0,
		  "no audit window: is CONFIG_AUDIT on?");
	q = counter_queries(&t);
	wl_evidence_take(&ev);
	wl_evidence_end(&ev);
	WL_EXPECT(wp_restore_policy(), "could not restore the policy");
	umount2(CQ_FS, MNT_DETACH);
	WL_EXPECT(q == 0 && !t.err, "the bystander's queries failed (step %d)", t.err);
	wl_diag("%u mounts: %u mount counters and %u superblock counters withheld", t.mounts,
		t.mnt_withheld, t.sb_withheld);
	WL_EXPECT(t.mounts > 0 && t.o_mnt_seen, "statmount() answered no mount, or not %s",
		  CQ_FS);
	WL_EXPECT(t.sb_withheld == t.mounts,
		  "%u of %u superblock counters returned under schaufler",
		  t.mounts - t.sb_withheld, t.mounts);
	WL_EXPECT(t.o_mnt_withheld == labelled,
		  "the counter of %s, whose root is O, was %s to the bystander", CQ_FS,
		  t.o_mnt_withheld ? "withheld" : "returned");
	WL_EXPECT(lines_with_any(ev.log, log_words, found, sizeof(found)) == 0,
		  "counter queries left watch decisions in watchpol's log:\n%s", found);
	WL_EXPECT(lines_with_any(ev.audit_text, audit_words, found, sizeof(found)) == 0,
		  "counter queries left audit records:\n%s", found);
	return WL_PASS;
}

static const struct wl_test tests[] = {
	{ "audit_records_changes_and_denials", audit_records_changes_and_denials },
	{ "audit_records_permissive_denials", audit_records_permissive_denials },
	{ "audit_denials_limited_per_subject", audit_denials_limited_per_subject },
	{ "audit_post_denials_limited_per_triggerer", audit_post_denials_limited_per_triggerer },
	{ "audit_loads_never_limited", audit_loads_never_limited },
	{ "audit_records_refused_commits", audit_records_refused_commits },
	{ "counter_queries_leave_no_record", counter_queries_leave_no_record },
};

WL_SUITE(suite_audit, tests, .stage = WL_STAGE_FIRST, .applies = audit_applies,
	 .skip_reason = "no watchpol, or the debug kernel (the rate limit's 5 s window)");
