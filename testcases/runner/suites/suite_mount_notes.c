// SPDX-License-Identifier: GPL-2.0
/*
 * suite_mount_notes.c - the notes a mount change holds until it posts them
 * (kernel-patches 0005; issue 31, H1 and M1): how many, and in what order
 * their records arrive.
 *
 * A change collects one note per (changed mount, watched mount on its
 * rootwards walk) under mount_lock and posts them once it is dropped.
 *
 * notes_past_bound_flag_loss: a recursive mount_setattr() over a chain of
 * CHAIN_DEPTH nested mounts, each watched, collects D * (D + 1) / 2 notes,
 * more than the 16384 the kernel holds for one change.  The notes past the
 * bound are not posted under mount_lock (where they would overtake the
 * ones before them): they are dropped, and the watchers told.  The watch on
 * the top of the chain must get the records of the first FIRST_FIT mounts
 * changed, exactly in the order they were changed, then a loss flag.  (The
 * kernel keeps no note for a mount whose watch list has emptied, so a
 * mount above the chain that some earlier test watched takes no share.)  A kernel that posts the notes it cannot keep, or
 * keeps them all, or drops them silently, fails.
 *
 * posts_past_budget_flag_loss: notes bound the records a change holds, not
 * their deliveries (12-07 review H1).  BUDGET_QUEUES queues watch one
 * mount, and a recursive mount_setattr() over it and its BUDGET_SUBS
 * submounts collects BUDGET_SUBS + 1 notes, each for all the queues: more
 * than the POSTS_MAX watches the kernel examines in posting one lock hold's
 * notes.  Exactly POSTS_MAX SETATTR records must arrive in all, each queue
 * getting its share in order (POSTS_MAX / BUDGET_QUEUES, or one more), and
 * then every queue a loss flag.  A kernel that posts every delivery gives
 * (BUDGET_SUBS + 1) * BUDGET_QUEUES records; one that stops silently, no
 * loss.  A second change (clearing what the first set) must do the same:
 * a kernel that leaves the watch list marked as lost after flagging it
 * never flags it again.
 *
 * concurrent_setattr_order: two threads turn one watched mount read-only
 * and read-write with mount_setattr(), ORDER_ROUNDS rounds in which both
 * wait for each other and then call at once, so that their calls overlap
 * whatever the host's load.  Each change that flips the state posts one
 * READONLY record, so the records must alternate between IS_NOW_RO set and
 * clear, and the last one must say what the mount is now.  Two changes
 * whose posts cross show as two records in a row that say the same.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>
/* glibc's <fcntl.h> already defines what <linux/fcntl.h> would redefine. */
#define _LINUX_FCNTL_H
#include <linux/watch_queue.h>

#include "vfs_util.h"
#include "wl.h"

#define NOTES_BASE "/tmp/wlnotesbound"
/* 190 * 191 / 2 = 18145 notes: past the kernel's 16384. */
#define CHAIN_DEPTH 190
#define NOTES_MAX 16384
/* The chain's first mounts whose notes all fit: 180 * 181 / 2 <= 16384. */
#define FIRST_FIT 180
_Static_assert(FIRST_FIT * (FIRST_FIT + 1) / 2 <= NOTES_MAX &&
	       (FIRST_FIT + 1) * (FIRST_FIT + 2) / 2 > NOTES_MAX &&
	       CHAIN_DEPTH * (CHAIN_DEPTH + 1) / 2 > NOTES_MAX,
	       "FIRST_FIT is the last chain depth whose notes all fit");
#define TOP_WATCH_ID 1
#define CHAIN_WATCH_ID 2

#define BUDGET_BASE "/tmp/wlpostbudget"
/* The kernel's MOUNT_POSTS_MAX: watches examined in posting one hold's notes. */
#define POSTS_MAX 65536
#define BUDGET_QUEUES 200
#define BUDGET_SUBS 400
#define BUDGET_WATCH_ID 7
/* A queue's share, or one more; each fits a queue of 512 records. */
#define BUDGET_SHARE (POSTS_MAX / BUDGET_QUEUES)
_Static_assert((BUDGET_SUBS + 1) * BUDGET_QUEUES > POSTS_MAX && BUDGET_SHARE + 2 <= 512,
	       "the change must exceed the budget, and a share fit a queue");

#define ORDER_MNT "/tmp/wlnotesorder"
/* Rounds of one set and one clear side by side; at most 2 records each. */
#define ORDER_ROUNDS 120
#define ORDER_MIN_RECORDS 8

static int read_record(int fd, struct wl_record *rec)
{
	return wl_wq_read(fd, rec, WL_EVENT_TIMEOUT_MS * (wl_debug_kernel() ? 8 : 2));
}

/*
 * Mount the chain, then watch it: mounting below watched mounts would post
 * as many notes as the change under test, for nothing.  The top of the
 * chain is watched on top_q, the rest on chain_q.
 */
static int chain_setup(char paths[][sizeof(NOTES_BASE) + 2 * CHAIN_DEPTH],
		       unsigned int *ids, int top_q, int chain_q)
{
	size_t len = strlen(NOTES_BASE);
	int i;

	if (wl_tmpfs(NOTES_BASE, NULL))
		return -1;
	for (i = 0; i < CHAIN_DEPTH; i++) {
		memcpy(paths[i], i ? paths[i - 1] : NOTES_BASE, len);
		memcpy(paths[i] + len, "/c", 3);
		len += 2;
		/* A mount on a private mount is private. */
		if (wl_tmpfs_here(paths[i], NULL))
			return -1;
		ids[i] = wl_mnt_id(paths[i], false);
		if (!ids[i])
			return -1;
	}
	for (i = 0; i < CHAIN_DEPTH; i++)
		if (wl_watch_mount(AT_FDCWD, paths[i], 0, i ? chain_q : top_q,
				   i ? CHAIN_WATCH_ID : TOP_WATCH_ID)) {
			wl_diag("watch_mount(%s): %s", paths[i], strerror(errno));
			return -1;
		}
	return 0;
}

/* Read what the top watch got: SETATTR records in chain order, then a loss. */
static enum wl_result check_top_queue(int top_q, const unsigned int *ids)
{
	struct mount_notification mn;
	struct wl_record rec;
	unsigned int n = 0;
	int lost = 0, r;

	while ((r = read_record(top_q, &rec)) == 1) {
		if (rec.type == WATCH_TYPE_META) {
			lost |= rec.subtype == WATCH_META_LOSS_NOTIFICATION;
			continue;
		}
		lost |= !!(rec.info & WATCH_INFO_OVERRUN);
		WL_EXPECT(!lost, "a record arrived after the loss was flagged");
		WL_EXPECT(rec.type == WATCH_TYPE_MOUNT_NOTIFY &&
			  rec.subtype == NOTIFY_MOUNT_SETATTR && rec.len == sizeof(mn) &&
			  rec.watch_id == TOP_WATCH_ID,
			  "record %u: type %u subtype %u len %u watch %u, want a SETATTR for watch %u",
			  n, rec.type, rec.subtype, rec.len, rec.watch_id, TOP_WATCH_ID);
		memcpy(&mn, rec.data, sizeof(mn));
		WL_EXPECT(n < CHAIN_DEPTH && mn.changed_mount == ids[n] &&
			  mn.triggered_on == ids[0],
			  "record %u: changed %u triggered_on %u, want changed %u (depth %u) on %u",
			  n, mn.changed_mount, mn.triggered_on, n < CHAIN_DEPTH ? ids[n] : 0,
			  n + 1, ids[0]);
		n++;
	}
	WL_EXPECT(r == 0, "reading the top watch's queue");
	wl_diag("the top watch got the records of the first %u of %u mounts changed, loss %s",
		n, CHAIN_DEPTH, lost ? "flagged" : "not flagged");
	WL_EXPECT(n == FIRST_FIT, "%u records of %u, want %u: the notes past the bound were %s",
		  n, CHAIN_DEPTH, FIRST_FIT, n > FIRST_FIT ? "posted all the same" :
		  "dropped early, or notes went to a mount above the chain");
	WL_EXPECT(lost, "%u records of %u arrived and nobody was told of the rest",
		  n, CHAIN_DEPTH);
	return WL_PASS;
}

static enum wl_result notes_past_bound_flag_loss(void)
{
	static char paths[CHAIN_DEPTH][sizeof(NOTES_BASE) + 2 * CHAIN_DEPTH];
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_NOSUID };
	unsigned int ids[CHAIN_DEPTH];
	enum wl_result res = WL_FAIL;
	int top_q, chain_q;
	long r;

	/* One SETATTR record per mount of the chain fits the top watch's queue. */
	top_q = wl_wq_open(256);
	chain_q = wl_wq_open(16);
	if (top_q < 0 || chain_q < 0 || chain_setup(paths, ids, top_q, chain_q))
		goto out;
	r = syscall(SYS_mount_setattr, AT_FDCWD, paths[0], AT_RECURSIVE, &attr, sizeof(attr));
	if (r) {
		wl_diag("mount_setattr(%s, AT_RECURSIVE, NOSUID): %s", paths[0], strerror(errno));
		goto out;
	}
	res = check_top_queue(top_q, ids);
out:
	if (top_q >= 0)
		wl_wq_close(top_q);
	if (chain_q >= 0)
		wl_wq_close(chain_q);
	umount2(NOTES_BASE, MNT_DETACH);
	return res;
}

/*
 * What one raw notification pipe holds: the SETATTR records triggered on
 * @mnt_id for BUDGET_WATCH_ID before any loss, and whether a loss came.
 * Records after the loss, or of another kind, are counted in *bad.
 */
static void budget_read(int fd, unsigned int mnt_id, unsigned int *records, bool *lost,
			unsigned int *bad)
{
	union {
		char buf[4096];
		struct watch_notification wn;
	} u;
	struct mount_notification mn;
	ssize_t n;

	while ((n = read(fd, u.buf, sizeof(u.buf))) > 0) {
		for (ssize_t off = 0; off + (ssize_t)sizeof(u.wn) <= n;) {
			struct watch_notification *wn = (void *)(u.buf + off);
			unsigned int len = (wn->info & WATCH_INFO_LENGTH) >> WATCH_INFO_LENGTH__SHIFT;

			if (len < sizeof(*wn) || (size_t)off + len > (size_t)n) {
				(*bad)++;
				break;
			}
			if (wn->type == WATCH_TYPE_META &&
			    wn->subtype == WATCH_META_LOSS_NOTIFICATION) {
				*lost = true;
			} else if (!*lost && wn->type == WATCH_TYPE_MOUNT_NOTIFY &&
				   wn->subtype == NOTIFY_MOUNT_SETATTR && len == sizeof(mn) &&
				   (wn->info & WATCH_INFO_ID) >> WATCH_INFO_ID__SHIFT ==
				   BUDGET_WATCH_ID) {
				memcpy(&mn, wn, sizeof(mn));
				if (mn.triggered_on == mnt_id)
					(*records)++;
				else
					(*bad)++;
			} else {
				(*bad)++;
			}
			off += len;
		}
	}
}

/* BUDGET_BASE with BUDGET_SUBS submounts, watched by the n queues in q. */
static int budget_setup(int *q, unsigned int n)
{
	if (wl_tmpfs_tree(BUDGET_BASE, BUDGET_SUBS))
		return -1;
	for (unsigned int i = 0; i < n; i++) {
		int fds[2];

		if (pipe2(fds, O_NOTIFICATION_PIPE | O_CLOEXEC | O_NONBLOCK)) {
			wl_diag("pipe2(O_NOTIFICATION_PIPE) #%u: %s", i, strerror(errno));
			return -1;
		}
		close(fds[1]);
		q[i] = fds[0];
		if (ioctl(q[i], IOC_WATCH_QUEUE_SET_SIZE, 512) ||
		    wl_watch_mount(AT_FDCWD, BUDGET_BASE, 0, q[i], BUDGET_WATCH_ID)) {
			wl_diag("queue #%u: %s", i, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/*
 * One change past the budget: mount_setattr() over BUDGET_BASE and its
 * submounts with @attr; every queue in q must get its share of the records,
 * then a loss flag.  0, or -1 (diagnosed).
 */
static int budget_round(const int *q, unsigned int id, struct mount_attr *attr,
			const char *what)
{
	unsigned int total = 0, bad = 0, unflagged = 0, short_share = 0;

	if (syscall(SYS_mount_setattr, AT_FDCWD, BUDGET_BASE, AT_RECURSIVE, attr,
		    sizeof(*attr))) {
		wl_diag("%s: mount_setattr(%s, AT_RECURSIVE): %s", what, BUDGET_BASE,
			strerror(errno));
		return -1;
	}
	for (unsigned int i = 0; i < BUDGET_QUEUES; i++) {
		unsigned int records = 0;
		bool lost = false;

		budget_read(q[i], id, &records, &lost, &bad);
		total += records;
		unflagged += !lost;
		short_share += records != BUDGET_SHARE && records != BUDGET_SHARE + 1;
	}
	wl_diag("%s: %u queues, %u notes: %u records in all, %u queues without a loss flag, %u outside their share, %u stray",
		what, BUDGET_QUEUES, BUDGET_SUBS + 1, total, unflagged, short_share, bad);
	if (total != POSTS_MAX) {
		wl_diag("%s: %u records, want exactly %u: %s", what, total, POSTS_MAX,
			total > POSTS_MAX ? "the deliveries of one change are not bounded" :
			"fewer than the budget allows");
		return -1;
	}
	if (unflagged || short_share || bad) {
		wl_diag("%s: the records past the budget were not flagged as lost to every queue, or a queue's share is off",
			what);
		return -1;
	}
	return 0;
}

/*
 * Twice: the second change past the budget must flag its loss again, to
 * the same watch lists (a list left marked as lost by the first would be
 * skipped).
 */
static enum wl_result posts_past_budget_flag_loss(void)
{
	struct mount_attr set = { .attr_set = MOUNT_ATTR_NOSUID };
	struct mount_attr clear = { .attr_clr = MOUNT_ATTR_NOSUID };
	static int q[BUDGET_QUEUES];
	enum wl_result res = WL_FAIL;
	unsigned int i, id;

	for (i = 0; i < BUDGET_QUEUES; i++)
		q[i] = -1;
	if (budget_setup(q, BUDGET_QUEUES))
		goto out;
	id = wl_mnt_id(BUDGET_BASE, false);
	if (!budget_round(q, id, &set, "set NOSUID") &&
	    !budget_round(q, id, &clear, "clear NOSUID, the second loss"))
		res = WL_PASS;
out:
	for (i = 0; i < BUDGET_QUEUES; i++)
		if (q[i] >= 0)
			close(q[i]);
	umount2(BUDGET_BASE, MNT_DETACH);
	return res;
}

struct flipper {
	atomic_uint *arrived;	/* both threads, once per round */
	bool set;		/* MOUNT_ATTR_RDONLY set, or cleared */
	int err;
};

/*
 * ORDER_ROUNDS rounds; in each, wait for the other thread, then set or
 * clear RDONLY, so that the two calls of a round overlap.
 */
static void *flip(void *arg)
{
	struct flipper *f = arg;
	struct mount_attr attr = { 0 };

	if (f->set)
		attr.attr_set = MOUNT_ATTR_RDONLY;
	else
		attr.attr_clr = MOUNT_ATTR_RDONLY;
	for (unsigned int round = 1; round <= ORDER_ROUNDS; round++) {
		atomic_fetch_add(f->arrived, 1);
		while (atomic_load(f->arrived) < 2 * round)
			;
		if (syscall(SYS_mount_setattr, AT_FDCWD, ORDER_MNT, 0, &attr, sizeof(attr)) &&
		    !f->err)
			f->err = errno;
	}
	return NULL;
}

/*
 * Read every record: READONLY records each saying the opposite of the one
 * before.  The number read, or -1 (diagnosed); *last is what the last said.
 */
static int read_alternating(int q, bool *last)
{
	struct wl_record rec;
	int n = 0, prev = -1, ro, r;

	while ((r = read_record(q, &rec)) == 1) {
		if (rec.type != WATCH_TYPE_MOUNT_NOTIFY || rec.subtype != NOTIFY_MOUNT_READONLY ||
		    (rec.info & WATCH_INFO_OVERRUN)) {
			wl_diag("record %d: type %u subtype %u info %#x, want READONLY with no loss",
				n, rec.type, rec.subtype, rec.info);
			return -1;
		}
		ro = !!(rec.info & NOTIFY_MOUNT_IS_NOW_RO);
		if (ro == prev) {
			wl_diag("records %d and %d both say %s: two changes' posts crossed",
				n - 1, n, ro ? "read-only" : "read-write");
			return -1;
		}
		prev = ro;
		n++;
	}
	if (r < 0) {
		wl_diag("reading the queue after %d records", n);
		return -1;
	}
	*last = prev == 1;
	return n;
}

/* The two flippers, side by side; 0 or -1 (diagnosed). */
static int flip_both(void)
{
	atomic_uint arrived = 0;
	struct flipper f[2] = {
		{ .arrived = &arrived, .set = true },
		{ .arrived = &arrived, .set = false },
	};
	pthread_t thr;
	int i, r;

	r = pthread_create(&thr, NULL, flip, &f[0]);
	if (r) {
		wl_diag("pthread_create: %s", strerror(r));
		return -1;
	}
	flip(&f[1]);
	pthread_join(thr, NULL);
	for (i = 0; i < 2; i++)
		if (f[i].err) {
			wl_diag("mount_setattr(%s, %s RDONLY): %s", ORDER_MNT,
				f[i].set ? "set" : "clear", strerror(f[i].err));
			return -1;
		}
	return 0;
}

static enum wl_result concurrent_setattr_order(void)
{
	enum wl_result res = WL_FAIL;
	bool now_ro, last = false;
	struct statvfs sv;
	int q, n;

	/* At most two state changes a round: every record fits. */
	q = wl_wq_open(2 * ORDER_ROUNDS + 8);
	if (q < 0 || wl_tmpfs(ORDER_MNT, NULL))
		goto out;
	if (wl_watch_mount(AT_FDCWD, ORDER_MNT, 0, q, 1)) {
		wl_diag("watch_mount(%s): %s", ORDER_MNT, strerror(errno));
		goto out;
	}
	if (flip_both())
		goto out;
	if (statvfs(ORDER_MNT, &sv)) {
		wl_diag("statvfs(%s): %s", ORDER_MNT, strerror(errno));
		goto out;
	}
	now_ro = sv.f_flag & ST_RDONLY;
	n = read_alternating(q, &last);
	if (n < 0)
		goto out;
	wl_diag("%d rounds: %d READONLY records, alternating; the mount is now %s",
		ORDER_ROUNDS, n, now_ro ? "read-only" : "read-write");
	if (n < ORDER_MIN_RECORDS)
		wl_diag("only %d READONLY records: the calls hardly ever changed the state", n);
	else if (last != now_ro)
		wl_diag("the last record says %s, the mount is %s",
			last ? "read-only" : "read-write", now_ro ? "read-only" : "read-write");
	else
		res = WL_PASS;
out:
	if (q >= 0)
		wl_wq_close(q);
	umount2(ORDER_MNT, MNT_DETACH);
	return res;
}

static const struct wl_test tests[] = {
	{ "notes_past_bound_flag_loss", notes_past_bound_flag_loss },
	{ "posts_past_budget_flag_loss", posts_past_budget_flag_loss },
	{ "concurrent_setattr_order", concurrent_setattr_order },
};

/* The plain profile only: the notes are the kernel's, not any LSM's. */
static bool mount_notes_applies(void)
{
	return strcmp(wl_profile(), "plain") == 0;
}

WL_SUITE_IF(suite_mount_notes, tests, mount_notes_applies);
