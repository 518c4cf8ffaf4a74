// SPDX-License-Identifier: GPL-2.0
/*
 * suite_mount_scale.c - what learning of a mount change costs a watcher,
 * and what the watchers cost the mounter, as the mount table grows (issue
 * 44, make bench-scale): figures, never pass/fail.  Only the answers are
 * checked: a watcher that learnt the wrong thing fails the test.
 *
 * Booted by harness/bench-scale.sh under QEMU's -icount shift=0,sleep=off
 * (watchlab.clock=icount) on one vCPU, with QEMU's random numbers and
 * the RTC fixed: the TSC counts guest instructions, so every figure is a
 * count of instructions, and the same boot gives the same figures.  Each
 * test runs in a mount namespace of its own (unshare, all private) and
 * builds there a tree of N tmpfs mounts, N = 10, 100, 1000, 10000, in one
 * of two shapes:
 *
 *  - wide: a tmpfs at SCALE_DIR/w with N - 1 tmpfs children (w/c1 ...);
 *    the change is a tmpfs attached on w/chg, a child of the tree's root.
 *  - deep: a chain of N tmpfs mounts, each on the root of the one before
 *    (the first on SCALE_DIR/d), so the chain is N mounts deep at one path
 *    and mountinfo's lines stay short; the change is a tmpfs attached on
 *    the root of the last, N + 1 deep.
 *
 * The change is a tmpfs made with fsopen()/fsmount() and attached with
 * move_mount() onto a directory fd, and taken down with
 * umount2(/proc/self/fd/N, MNT_DETACH) and close(): no path walk through
 * the chain, so the mounter's figures do not grow with N for that.
 *
 * a. scale_watcher_{wide,deep}: the watcher's instructions from the
 *    change (the syscall returned) to its table of mounts being right,
 *    per mechanism, one armed at a time:
 *    watch_mount  the 2019 series: a pipe queue watching "/"; poll(), read
 *                 the record, statmount() the one mount (or drop it from
 *                 the table for UNMOUNT);
 *    fanotify     mainline's mount-namespace mark (FAN_MNT_ATTACH/DETACH):
 *                 poll(), read the event, statmount() the one mount;
 *    mountinfo    poll() on /proc/self/mountinfo (POLLPRI), then read it
 *                 all again, parse every line into a new table and diff it
 *                 with the old (libmount's and systemd's way);
 *    listmount    listmount() every mount, statmount() each, new table,
 *                 diff (a full rescan; it needs no trigger).
 *    statmount() asks for SB_BASIC, MNT_BASIC, MNT_POINT and FS_TYPE, what
 *    a mountinfo line carries that the table keeps.  Attach and detach are
 *    timed apart; a figure is the fastest of the rounds (under icount the
 *    rounds differ only by the timer ticks that land in them).
 * b. the same tests, the mounter: fsopen..move_mount (mount) and
 *    umount2+close (umount), the fastest of 9 rounds, and the change, the
 *    move_mount() and the umount, the part a watch sees (fsopen..fsmount
 *    builds the tmpfs, and costs what the per-CPU allocator's state makes
 *    it), with Q = 0, 1, 100, 1000 queues watching:
 *    parent  each queue a watch_mount() on the changed mount's parent;
 *    root    each a watch_mount() on "/", N (deep) or 2 (wide) mounts up;
 *    self    each a watch_mount() on the changed mount itself, set after
 *            the mount and before the umount (so only umount sees them);
 *    fanotify each a fanotify group with a mark on the mount namespace.
 * c. scale_storm: a wide tree of SCALE_STORM_N mounts and 1000 changes
 *    (375 mounts, 375 umounts, 250 MOUNT_ATTR_NOEXEC toggles, in a fixed
 *    pseudo-random order), with a consumer keeping a table of every mount
 *    of the namespace that wakes every SCALE_BATCH changes; its total
 *    instructions, and its table compared field by field (ID, parent ID,
 *    mount point, ro, noexec) with a fresh parse of /proc/self/mountinfo.
 *    Then with the queue overrun on purpose (32 records, a wake-up every
 *    100 changes): the consumer drains, then recovers either through the
 *    series' counters (listmount(), statmount(STATMOUNT_MNT_NOTIFY_COUNT)
 *    of each mount, a full statmount() only of the new mounts and those
 *    whose counter moved) or by a full rescan; fanotify, whose queue is
 *    bounded by fs.fanotify.max_queued_events, recovers by rescanning.
 *
 * walk_after_last_watch is kernel-patches 0035's test: with no mount watch
 * left, a change at the end of a chain of 2000 mounts costs the same before
 * and after a watch on "/" has come and gone (it walked to the root for
 * good before the patch).
 *
 * watchlab.scale=quick stops at N = 100 and storms over 800 mounts (a
 * check of the suite, not a figure).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>
/* glibc's <fcntl.h> already defines what <linux/fcntl.h> would redefine. */
#define _LINUX_FCNTL_H
#include <linux/mount.h>
#include <linux/watch_queue.h>

#include "vfs_util.h"
#include "wl.h"

#define SCALE_DIR "/tmp/wlscale"
#define SCALE_ROUNDS 5
#define SCALE_SLOW_ROUNDS 3
/* A mount or umount is 20-60k instructions: more rounds find one no background work landed in. */
#define SCALE_MOUNTER_ROUNDS 9
#define SCALE_MAX_Q 1000
#define SCALE_STORM_N 8000
#define SCALE_STORM_OPS 1000
#define SCALE_BATCH 10
#define SCALE_OVERRUN_BATCH 100
#define SCALE_OVERRUN_SLOTS 32
#define SCALE_QUEUE_SLOTS 256
#define SCALE_SETTLE_NS (20 * 1000 * 1000)
#define SM_BUF 8192
#define SM_MASK (STATMOUNT_SB_BASIC | STATMOUNT_MNT_BASIC | STATMOUNT_MNT_POINT | \
		 STATMOUNT_FS_TYPE)

static const unsigned int scale_n[] = { 10, 100, 1000, 10000 };
static const unsigned int scale_q[] = { 1, 100, 1000 };

enum mech { M_WATCH, M_FAN, M_MOUNTINFO, M_LISTMOUNT, M_NR };
static const char *const mech_name[M_NR] = { "watch_mount", "fanotify", "mountinfo", "listmount" };

static bool quick(void)
{
	char v[16];

	return wl_cmdline("watchlab.scale", v, sizeof(v)) && !strcmp(v, "quick");
}

/*
 * watchlab.scale_part=wide,deep,storm,walk: the tests this boot runs (all
 * without it); the others skip.
 */
static bool scale_part(const char *part)
{
	char v[64];

	if (!wl_cmdline("watchlab.scale_part", v, sizeof(v)))
		return true;
	for (char *tok = strtok(v, ","); tok; tok = strtok(NULL, ","))
		if (!strcmp(tok, part))
			return true;
	wl_diag("%s: not in this boot (watchlab.scale_part=)", part);
	return false;
}

static bool clock_is_icount(void)
{
	char v[16];

	return wl_cmdline("watchlab.clock", v, sizeof(v)) && !strcmp(v, "icount");
}

/* ---- the table of mounts a watcher keeps ---- */

/* attr bits kept, as mountinfo shows them */
#define E_RO 1u
#define E_NOEXEC 2u

struct ment {
	uint64_t key;		/* 0: empty slot; else the unique ID or, from mountinfo, the old ID */
	uint64_t mcount;	/* mnt_notify_count when asked for */
	uint32_t id, parent, attr;
	char *point, *fstype;
};

struct mtab {
	struct ment *s;
	size_t cap, n;
};

static size_t mt_slot(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 29) & (cap - 1);
}

static int mt_init(struct mtab *t, size_t want)
{
	t->cap = 64;
	while (t->cap < 2 * want)
		t->cap <<= 1;
	t->n = 0;
	t->s = calloc(t->cap, sizeof(*t->s));
	return t->s ? 0 : -1;
}

static void mt_clear_entry(struct ment *e)
{
	free(e->point);
	free(e->fstype);
	memset(e, 0, sizeof(*e));
}

static void mt_free(struct mtab *t)
{
	for (size_t i = 0; i < t->cap; i++)
		if (t->s[i].key)
			mt_clear_entry(&t->s[i]);
	free(t->s);
	t->s = NULL;
	t->cap = t->n = 0;
}

static struct ment *mt_find(const struct mtab *t, uint64_t key)
{
	for (size_t i = mt_slot(key, t->cap); t->s[i].key; i = (i + 1) & (t->cap - 1))
		if (t->s[i].key == key)
			return &t->s[i];
	return NULL;
}

static int mt_grow(struct mtab *t)
{
	struct mtab u;

	if (mt_init(&u, t->cap))
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		size_t j;

		if (!t->s[i].key)
			continue;
		for (j = mt_slot(t->s[i].key, u.cap); u.s[j].key; j = (j + 1) & (u.cap - 1))
			;
		u.s[j] = t->s[i];
		u.n++;
	}
	free(t->s);
	*t = u;
	return 0;
}

/* The entry of key, added empty if there was none; NULL without memory. */
static struct ment *mt_put(struct mtab *t, uint64_t key)
{
	size_t i;

	if (2 * (t->n + 1) > t->cap && mt_grow(t))
		return NULL;
	for (i = mt_slot(key, t->cap); t->s[i].key; i = (i + 1) & (t->cap - 1))
		if (t->s[i].key == key)
			return &t->s[i];
	t->s[i].key = key;
	t->n++;
	return &t->s[i];
}

/* Drop key (linear probing: shift the entries after it back). */
static void mt_del(struct mtab *t, uint64_t key)
{
	struct ment *e = mt_find(t, key);
	size_t mask = t->cap - 1, i, j;

	if (!e)
		return;
	i = (size_t)(e - t->s);
	mt_clear_entry(e);
	t->n--;
	for (j = (i + 1) & mask; t->s[j].key; j = (j + 1) & mask) {
		size_t k = mt_slot(t->s[j].key, t->cap);

		if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
			t->s[i] = t->s[j];
			memset(&t->s[j], 0, sizeof(t->s[j]));
			i = j;
		}
	}
}

/* Replace *old by *new and free the old table. */
static void mt_swap(struct mtab *old, struct mtab *new)
{
	mt_free(old);
	*old = *new;
	new->s = NULL;
}

/* ---- statmount(), listmount() ---- */

static char sm_buf[SM_BUF] __attribute__((aligned(8)));

static int do_statmount(uint64_t id, uint64_t mask)
{
	struct mnt_id_req req = {
		.size = MNT_ID_REQ_SIZE_VER0,
		.mnt_id = id,
		.param = mask,
	};

	return syscall(__NR_statmount, &req, sm_buf, sizeof(sm_buf), 0) ? -1 : 0;
}

static uint32_t sm_attr(const struct statmount *sm)
{
	return (sm->mnt_attr & MOUNT_ATTR_RDONLY ? E_RO : 0) |
	       (sm->mnt_attr & MOUNT_ATTR_NOEXEC ? E_NOEXEC : 0);
}

/* statmount() id into its table entry: 1, 0 if it is gone, -1 (diagnosed). */
static int sm_upsert(struct mtab *t, uint64_t id, uint64_t mask)
{
	const struct statmount *sm = (const void *)sm_buf;
	struct ment *e;

	if (do_statmount(id, mask)) {
		if (errno == ENOENT)
			return 0;
		wl_diag("statmount(%#llx): %s", (unsigned long long)id, strerror(errno));
		return -1;
	}
	e = mt_put(t, id);
	if (!e)
		return -1;
	e->id = sm->mnt_id_old;
	e->parent = sm->mnt_parent_id_old;
	e->attr = sm_attr(sm);
	e->mcount = sm->mask & STATMOUNT_MNT_NOTIFY_COUNT ? sm->mnt_notify_count : 0;
	free(e->point);
	free(e->fstype);
	e->point = strdup(sm->str + sm->mnt_point);
	e->fstype = strdup(sm->str + sm->fs_type);
	return e->point && e->fstype ? 1 : -1;
}

static uint64_t *lm_ids;
static size_t lm_cap;

/* Every mount's unique ID, ascending: their number, or -1 (diagnosed). */
static long list_all(void)
{
	struct mnt_id_req req = {
		.size = MNT_ID_REQ_SIZE_VER0,
		.mnt_id = LSMT_ROOT,
	};
	size_t n = 0;

	for (;;) {
		long got;

		if (n == lm_cap) {
			size_t cap = lm_cap ? 2 * lm_cap : 4096;
			uint64_t *ids = realloc(lm_ids, cap * sizeof(*ids));

			if (!ids)
				return -1;
			lm_ids = ids;
			lm_cap = cap;
		}
		got = syscall(__NR_listmount, &req, lm_ids + n, lm_cap - n, 0);
		if (got < 0) {
			wl_diag("listmount: %s", strerror(errno));
			return -1;
		}
		if (!got)
			return (long)n;
		n += got;
		req.param = lm_ids[n - 1];
	}
}

/* A full rescan into a new table keyed by unique ID: 0, or -1 (diagnosed). */
static int rescan(struct mtab *t, size_t hint, uint64_t mask)
{
	long n = list_all();

	if (n < 0 || mt_init(t, hint))
		return -1;
	for (long i = 0; i < n; i++)
		if (sm_upsert(t, lm_ids[i], mask) < 0)
			return -1;
	return 0;
}

/* ---- /proc/self/mountinfo ---- */

static char *mi_buf;
static size_t mi_cap;

/* Read the whole of fd from offset 0: its length, or -1 (diagnosed). */
static ssize_t mi_read(int fd)
{
	size_t len = 0;

	if (lseek(fd, 0, SEEK_SET)) {
		wl_diag("lseek mountinfo: %s", strerror(errno));
		return -1;
	}
	for (;;) {
		ssize_t got;

		if (mi_cap - len < 65536) {
			size_t cap = mi_cap ? 2 * mi_cap : 1 << 20;
			char *b = realloc(mi_buf, cap);

			if (!b)
				return -1;
			mi_buf = b;
			mi_cap = cap;
		}
		got = read(fd, mi_buf + len, mi_cap - len - 1);
		if (got < 0) {
			wl_diag("read mountinfo: %s", strerror(errno));
			return -1;
		}
		if (!got)
			break;
		len += got;
	}
	mi_buf[len] = 0;
	return (ssize_t)len;
}

/* A mountinfo field, unescaped (\ooo), newly allocated. */
static char *mi_str(const char *s, size_t len)
{
	char *d = malloc(len + 1), *p = d;

	if (!d)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\\' && i + 3 < len && s[i + 1] >= '0' && s[i + 1] <= '7') {
			*p++ = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
			i += 3;
		} else {
			*p++ = s[i];
		}
	}
	*p = 0;
	return d;
}

/*
 * Parse the text of mountinfo into a new table keyed by the old mount ID:
 * every field split, as libmount does, the ones the table keeps copied.
 */
static int mi_parse(struct mtab *t, size_t hint, size_t len)
{
	char *p = mi_buf, *end = mi_buf + len;

	if (mt_init(t, hint))
		return -1;
	while (p < end) {
		char *nl = memchr(p, '\n', end - p), *f[16], *q;
		size_t fl[16];
		unsigned int nf = 0, dash = 0;
		struct ment *e;

		if (!nl)
			nl = end;
		for (q = p; q < nl && nf < 16;) {
			char *sp = memchr(q, ' ', nl - q);

			if (!sp)
				sp = nl;
			f[nf] = q;
			fl[nf] = sp - q;
			if (!dash && nf >= 6 && fl[nf] == 1 && *q == '-')
				dash = nf;
			nf++;
			q = sp + 1;
		}
		if (nf < 10 || !dash || dash + 4 > nf) {
			wl_diag("a mountinfo line of %u fields: %.*s", nf, (int)(nl - p), p);
			return -1;
		}
		e = mt_put(t, strtoul(f[0], NULL, 10));
		if (!e)
			return -1;
		e->id = (uint32_t)e->key;
		e->parent = strtoul(f[1], NULL, 10);
		e->attr = (fl[5] >= 2 && !strncmp(f[5], "ro", 2) ? E_RO : 0) |
			  (memmem(f[5], fl[5], ",noexec", 7) ? E_NOEXEC : 0);
		e->point = mi_str(f[4], fl[4]);
		e->fstype = mi_str(f[dash + 1], fl[dash + 1]);
		if (!e->point || !e->fstype)
			return -1;
		p = nl + 1;
	}
	return 0;
}

/* Entries of b not in a, of a not in b, and in both but different. */
struct mdiff {
	size_t added, removed, changed;
	uint64_t last_added, last_removed;
};

static bool ment_differs(const struct ment *a, const struct ment *b)
{
	return a->id != b->id || a->parent != b->parent || a->attr != b->attr ||
	       strcmp(a->point, b->point) || strcmp(a->fstype, b->fstype);
}

static struct mdiff mt_diff(const struct mtab *old, const struct mtab *new)
{
	struct mdiff d = { 0 };
	size_t both = 0;

	for (size_t i = 0; i < new->cap; i++) {
		const struct ment *e = &new->s[i], *o;

		if (!e->key)
			continue;
		o = mt_find(old, e->key);
		if (!o) {
			d.added++;
			d.last_added = e->key;
			continue;
		}
		both++;
		if (ment_differs(o, e))
			d.changed++;
	}
	d.removed = old->n - both;
	if (d.removed)
		for (size_t i = 0; i < old->cap; i++)
			if (old->s[i].key && !mt_find(new, old->s[i].key))
				d.last_removed = old->s[i].key;
	return d;
}

/* ---- a watcher: one mechanism and its table ---- */

struct watcher {
	enum mech m;
	int fd;			/* queue, fanotify group or mountinfo; -1 for listmount */
	int wfd;		/* the queue's write end, or -1 */
	struct mtab t;		/* keyed by unique ID, or by old ID for mountinfo */
	uint64_t mask;		/* what statmount() asks for */
	bool lost;		/* the queue said it lost records */
	struct mdiff last;	/* what the last learn() found (mountinfo, listmount) */
};

static char rd_buf[65536] __attribute__((aligned(8)));

/* Records of a notification pipe: statmount() or drop each; 0 or -1. */
static int learn_watch(struct watcher *w)
{
	for (;;) {
		ssize_t n = read(w->fd, rd_buf, sizeof(rd_buf));
		size_t off = 0;

		if (n < 0) {
			if (errno == EAGAIN)
				return 0;
			wl_diag("read the queue: %s", strerror(errno));
			return -1;
		}
		if (!n)
			return 0;
		while (off + sizeof(struct watch_notification) <= (size_t)n) {
			const struct watch_notification *wn = (const void *)(rd_buf + off);
			size_t len = wn->info & WATCH_INFO_LENGTH;
			const struct mount_notification *mn = (const void *)wn;

			if (len < sizeof(*wn) || off + len > (size_t)n) {
				wl_diag("a record of %zu bytes at %zu of %zd", len, off, n);
				return -1;
			}
			off += len;
			if (wn->type == WATCH_TYPE_META &&
			    wn->subtype == WATCH_META_LOSS_NOTIFICATION) {
				w->lost = true;
				continue;
			}
			if (w->lost || wn->type != WATCH_TYPE_MOUNT_NOTIFY || len < sizeof(*mn))
				continue;
			if (wn->subtype == NOTIFY_MOUNT_UNMOUNT || wn->subtype == NOTIFY_MOUNT_EXPIRY)
				mt_del(&w->t, mn->changed_mount_unique);
			else if (sm_upsert(&w->t, mn->changed_mount_unique, w->mask) < 0)
				return -1;
		}
	}
}

/* Events of a FAN_REPORT_MNT group: statmount() or drop each; 0 or -1. */
static int learn_fan(struct watcher *w)
{
	for (;;) {
		ssize_t n = read(w->fd, rd_buf, sizeof(rd_buf));
		size_t off = 0;

		if (n < 0) {
			if (errno == EAGAIN)
				return 0;
			wl_diag("read the fanotify group: %s", strerror(errno));
			return -1;
		}
		while (off + sizeof(struct fanotify_event_metadata) <= (size_t)n) {
			const struct fanotify_event_metadata *md = (const void *)(rd_buf + off);
			const struct fanotify_event_info_mnt *info = (const void *)(md + 1);

			if (md->event_len < sizeof(*md) || off + md->event_len > (size_t)n) {
				wl_diag("an event of %u bytes at %zu of %zd", md->event_len, off, n);
				return -1;
			}
			off += md->event_len;
			if (md->mask & FAN_Q_OVERFLOW) {
				w->lost = true;
				continue;
			}
			if (w->lost)
				continue;
			if (md->event_len < sizeof(*md) + sizeof(*info) ||
			    info->hdr.info_type != FAN_EVENT_INFO_TYPE_MNT) {
				wl_diag("an event without its mount: mask %#llx",
					(unsigned long long)md->mask);
				return -1;
			}
			if (md->mask & FAN_MNT_ATTACH) {
				if (sm_upsert(&w->t, info->mnt_id, w->mask) < 0)
					return -1;
			} else if (md->mask & FAN_MNT_DETACH) {
				mt_del(&w->t, info->mnt_id);
			}
		}
	}
}

/* mountinfo again, all of it, and the diff with the table; 0 or -1. */
static int learn_mountinfo(struct watcher *w)
{
	struct mtab nt;
	ssize_t len = mi_read(w->fd);

	if (len < 0 || mi_parse(&nt, w->t.n, len))
		return -1;
	w->last = mt_diff(&w->t, &nt);
	mt_swap(&w->t, &nt);
	return 0;
}

static int learn_listmount(struct watcher *w)
{
	struct mtab nt;

	if (rescan(&nt, w->t.n, w->mask))
		return -1;
	w->last = mt_diff(&w->t, &nt);
	mt_swap(&w->t, &nt);
	return 0;
}

/*
 * Learn what changed.  The watcher's poll() must say there is something
 * (it is part of the cost: a watcher sleeps in poll()); 0, or -1.
 */
static int learn(struct watcher *w)
{
	struct pollfd pfd = { .fd = w->fd, .events = w->m == M_MOUNTINFO ? POLLPRI : POLLIN };

	if (w->fd >= 0 && poll(&pfd, 1, 0) != 1) {
		wl_diag("%s: poll() found nothing after the change", mech_name[w->m]);
		return -1;
	}
	switch (w->m) {
	case M_WATCH:
		return learn_watch(w);
	case M_FAN:
		return learn_fan(w);
	case M_MOUNTINFO:
		return learn_mountinfo(w);
	default:
		return learn_listmount(w);
	}
}

static int open_fan(void)
{
	int fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_MNT | FAN_CLOEXEC | FAN_NONBLOCK, 0);

	if (fd < 0) {
		wl_diag("fanotify_init(FAN_REPORT_MNT): %s", strerror(errno));
		return -1;
	}
	if (fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_MNTNS, FAN_MNT_ATTACH | FAN_MNT_DETACH,
			  AT_FDCWD, "/proc/self/ns/mnt")) {
		wl_diag("fanotify_mark(FAN_MARK_MNTNS): %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Arm mechanism m with an up-to-date table (untimed): 0, or -1 (diagnosed).
 * @slots: the queue's size (watch_mount); @mask: what statmount() asks.
 */
static int watcher_start(struct watcher *w, enum mech m, unsigned int slots, uint64_t mask)
{
	memset(w, 0, sizeof(*w));
	w->m = m;
	w->fd = w->wfd = -1;
	w->mask = mask;
	switch (m) {
	case M_WATCH:
		w->fd = wl_notification_pipe(slots, &w->wfd);
		if (w->fd < 0)
			return -1;
		if (wl_watch_mount(AT_FDCWD, "/", 0, w->fd, 0x5c)) {
			wl_diag("watch_mount(/): %s", strerror(errno));
			return -1;
		}
		break;
	case M_FAN:
		w->fd = open_fan();
		if (w->fd < 0)
			return -1;
		break;
	case M_MOUNTINFO: {
		struct pollfd pfd;
		ssize_t len;

		w->fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
		if (w->fd < 0) {
			wl_diag("open mountinfo: %s", strerror(errno));
			return -1;
		}
		/* The first poll() takes the namespace's event count as seen. */
		pfd = (struct pollfd){ .fd = w->fd, .events = POLLPRI };
		poll(&pfd, 1, 0);
		len = mi_read(w->fd);
		return len < 0 ? -1 : mi_parse(&w->t, 64, len);
	}
	default:
		break;
	}
	return rescan(&w->t, 64, mask);
}

static void watcher_stop(struct watcher *w)
{
	if (w->fd >= 0)
		close(w->fd);
	if (w->wfd >= 0)
		close(w->wfd);
	mt_free(&w->t);
}

/* ---- the tree and the change ---- */

/*
 * A new tmpfs attached on the directory dfd names: its fd, or -1
 * (diagnosed); *attach, unless NULL, the instructions of the move_mount().
 */
static int attach_tmpfs(int dfd, uint64_t *attach)
{
	int fs = syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC), m;
	uint64_t t0;

	if (fs < 0) {
		wl_diag("fsopen(tmpfs): %s", strerror(errno));
		return -1;
	}
	if (syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0)) {
		wl_diag("fsconfig(CREATE): %s", strerror(errno));
		close(fs);
		return -1;
	}
	m = syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, 0);
	close(fs);
	if (m < 0) {
		wl_diag("fsmount: %s", strerror(errno));
		return -1;
	}
	t0 = __rdtsc();
	if (syscall(SYS_move_mount, m, "", dfd, "",
		    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH)) {
		wl_diag("move_mount: %s", strerror(errno));
		close(m);
		return -1;
	}
	if (attach)
		*attach = __rdtsc() - t0;
	return m;
}

/* Detach the mount fd m is the root of, and close m: 0, or -1 (diagnosed). */
static int detach_tmpfs(int m)
{
	char path[32];
	int r;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", m);
	r = umount2(path, MNT_DETACH);
	if (r)
		wl_diag("umount2(%s, MNT_DETACH): %s", path, strerror(errno));
	close(m);
	return r;
}

struct tree {
	bool deep;
	unsigned int n;		/* mounts in the tree */
	int chg;		/* the change's directory: w/chg, or the chain's last root */
	int top;		/* deep: the chain's last mount (its fsmount fd) */
	char parent[64];	/* wide: the path of the change's parent mount */
};

/*
 * Room for the queues, and for the watches: a user's watches count against
 * its RLIMIT_NOFILE (add_one_watch()), and a removed watch is uncounted
 * only in an RCU callback, so the self placement's 5000 watches set and
 * dropped in a row need more than the 1000 open at once.
 */
static int raise_limits(void)
{
	struct rlimit rl = { 1 << 16, 1 << 16 };

	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		wl_diag("setrlimit(NOFILE): %s", strerror(errno));
		return -1;
	}
	/* 128 fanotify groups per user by default; the mounter test needs 1000. */
	return wl_write_file("/proc/sys/fs/fanotify/max_user_groups", "4096");
}

/* A mount namespace of our own, all private, and the container tmpfs. */
static int scale_ns(void)
{
	if (unshare(CLONE_NEWNS)) {
		wl_diag("unshare(CLONE_NEWNS): %s", strerror(errno));
		return -1;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		wl_diag("make / private: %s", strerror(errno));
		return -1;
	}
	return wl_tmpfs(SCALE_DIR, NULL);
}

static int tree_start(struct tree *t, bool deep)
{
	memset(t, 0, sizeof(*t));
	t->deep = deep;
	t->chg = t->top = -1;
	if (deep) {
		if (wl_mkdir(SCALE_DIR "/d"))
			return -1;
		t->chg = open(SCALE_DIR "/d", O_PATH | O_DIRECTORY | O_CLOEXEC);
	} else {
		snprintf(t->parent, sizeof(t->parent), SCALE_DIR "/w");
		if (wl_tmpfs_here(t->parent, NULL) || wl_mkdir(SCALE_DIR "/w/chg"))
			return -1;
		t->n = 1;
		t->chg = open(SCALE_DIR "/w/chg", O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	if (t->chg < 0) {
		wl_diag("open the change's directory: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Grow the tree to n mounts: 0, or -1 (diagnosed). */
static int tree_grow(struct tree *t, unsigned int n)
{
	char path[64];

	while (t->n < n) {
		if (t->deep) {
			int m = attach_tmpfs(t->chg, NULL);

			if (m < 0)
				return -1;
			if (t->top >= 0)
				close(t->top);
			/* The next mount goes on this one's root. */
			t->top = m;
			t->chg = m;
		} else {
			snprintf(path, sizeof(path), SCALE_DIR "/w/c%u", t->n);
			if (wl_tmpfs_here(path, NULL))
				return -1;
		}
		t->n++;
	}
	return 0;
}

/* ---- a: the watcher's cost ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The IDs of the mount fd m is the root of. */
static int mount_ids(int m, uint64_t *unique, uint64_t *old)
{
	struct statx stx;

	if (statx(m, "", AT_EMPTY_PATH, STATX_MNT_ID_UNIQUE, &stx) ||
	    !(stx.stx_mask & STATX_MNT_ID_UNIQUE)) {
		wl_diag("statx(STATX_MNT_ID_UNIQUE): %s", strerror(errno));
		return -1;
	}
	*unique = stx.stx_mnt_id;
	if (statx(m, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx)) {
		wl_diag("statx(STATX_MNT_ID): %s", strerror(errno));
		return -1;
	}
	*old = stx.stx_mnt_id;
	return 0;
}

/* Did the watcher learn it?  @present: the mount must be in its table. */
static int check_answer(struct watcher *w, uint64_t unique, uint64_t old, bool present,
			const char *what)
{
	uint64_t key = w->m == M_MOUNTINFO ? old : unique;
	const struct ment *e = mt_find(&w->t, key);

	if (!e != !present) {
		wl_diag("%s after %s: mount %#llx (old ID %llu) %s its table", mech_name[w->m], what,
			(unsigned long long)unique, (unsigned long long)old,
			present ? "missing from" : "still in");
		return -1;
	}
	if (present && strcmp(e->fstype, "tmpfs")) {
		wl_diag("%s after %s: fstype %s", mech_name[w->m], what, e->fstype);
		return -1;
	}
	if ((w->m == M_MOUNTINFO || w->m == M_LISTMOUNT) &&
	    (w->last.added + w->last.removed + w->last.changed != 1 ||
	     (present ? w->last.last_added : w->last.last_removed) != key)) {
		wl_diag("%s after %s: the diff found %zu added, %zu removed, %zu changed",
			mech_name[w->m], what, w->last.added, w->last.removed, w->last.changed);
		return -1;
	}
	return 0;
}

static int measure_watcher(struct tree *t, enum mech m)
{
	unsigned int rounds = (m >= M_MOUNTINFO && t->n >= 1000) ? SCALE_SLOW_ROUNDS : SCALE_ROUNDS;
	uint64_t att[SCALE_ROUNDS], det[SCALE_ROUNDS], mnt[SCALE_ROUNDS], umnt[SCALE_ROUNDS];
	struct watcher w;
	int ret = -1;

	if (watcher_start(&w, m, SCALE_QUEUE_SLOTS, SM_MASK))
		goto out;
	for (unsigned int r = 0; r < rounds; r++) {
		uint64_t t0, t1, unique, old;
		int fd;

		t0 = __rdtsc();
		fd = attach_tmpfs(t->chg, NULL);
		t1 = __rdtsc();
		if (fd < 0)
			goto out;
		mnt[r] = t1 - t0;
		t0 = __rdtsc();
		if (learn(&w))
			goto out;
		att[r] = __rdtsc() - t0;
		if (mount_ids(fd, &unique, &old) ||
		    check_answer(&w, unique, old, true, "the mount"))
			goto out;
		t0 = __rdtsc();
		if (detach_tmpfs(fd))
			goto out;
		t1 = __rdtsc();
		umnt[r] = t1 - t0;
		t0 = __rdtsc();
		if (learn(&w))
			goto out;
		det[r] = __rdtsc() - t0;
		if (check_answer(&w, unique, old, false, "the umount"))
			goto out;
	}
	qsort(att, rounds, sizeof(att[0]), cmp_u64);
	qsort(det, rounds, sizeof(det[0]), cmp_u64);
	qsort(mnt, rounds, sizeof(mnt[0]), cmp_u64);
	qsort(umnt, rounds, sizeof(umnt[0]), cmp_u64);
	wl_diag("BENCH scale-watcher shape=%s n=%u mech=%s rounds=%u table=%zu attach=%llu detach=%llu change=%.1f attach_max=%llu detach_max=%llu mount=%llu umount=%llu",
		t->deep ? "deep" : "wide", t->n, mech_name[m], rounds, w.t.n,
		(unsigned long long)att[0], (unsigned long long)det[0], (att[0] + det[0]) / 2.0,
		(unsigned long long)att[rounds - 1], (unsigned long long)det[rounds - 1],
		(unsigned long long)mnt[0], (unsigned long long)umnt[0]);
	ret = 0;
out:
	watcher_stop(&w);
	return ret;
}

/* ---- b: the mounter's cost ---- */

enum place { P_NONE, P_PARENT, P_ROOT, P_SELF, P_FAN, P_NR };
static const char *const place_name[P_NR] = { "none", "parent", "root", "self", "fanotify" };

struct queues {
	int fd[SCALE_MAX_Q];
	unsigned int n;		/* open */
	unsigned int armed;	/* watching (parent, root) or marked (fanotify) */
};

static void drain(const struct queues *q, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		while (read(q->fd[i], rd_buf, sizeof(rd_buf)) > 0)
			;
}

static int watch_at(const struct tree *t, enum place p, int fd, int id)
{
	if (p == P_ROOT)
		return wl_watch_mount(AT_FDCWD, "/", 0, fd, id);
	if (t->deep)
		return t->top >= 0 ? wl_watch_mount(t->top, "", AT_EMPTY_PATH, fd, id) :
				     wl_watch_mount(AT_FDCWD, SCALE_DIR, 0, fd, id);
	return wl_watch_mount(AT_FDCWD, t->parent, 0, fd, id);
}

/* q->armed queues watching at p (parent, root: set once; fanotify: groups). */
static int arm(const struct tree *t, struct queues *q, enum place p, unsigned int want)
{
	while (q->armed < want) {
		unsigned int i = q->armed;

		if (p == P_FAN) {
			if (i == q->n) {
				q->fd[i] = open_fan();
				if (q->fd[i] < 0)
					return -1;
				q->n++;
			}
		} else {
			if (i == q->n) {
				q->fd[i] = wl_notification_pipe(32, NULL);
				if (q->fd[i] < 0)
					return -1;
				q->n++;
			}
			if (p != P_SELF && watch_at(t, p, q->fd[i], i & 0xff)) {
				wl_diag("watch_mount(%s) #%u: %s", place_name[p], i, strerror(errno));
				return -1;
			}
		}
		q->armed++;
	}
	return 0;
}

static void disarm(const struct tree *t, struct queues *q, enum place p)
{
	for (unsigned int i = 0; i < q->armed; i++)
		if (p == P_PARENT || p == P_ROOT)
			watch_at(t, p, q->fd[i], -1);
	q->armed = 0;
	drain(q, q->n);
}

static void close_queues(struct queues *q)
{
	for (unsigned int i = 0; i < q->n; i++)
		close(q->fd[i]);
	q->n = q->armed = 0;
}

static int measure_mounter(struct tree *t, struct queues *q, enum place p, unsigned int nq)
{
	uint64_t mnt[SCALE_MOUNTER_ROUNDS], umnt[SCALE_MOUNTER_ROUNDS], pair[SCALE_MOUNTER_ROUNDS];
	uint64_t change[SCALE_MOUNTER_ROUNDS];

	if (arm(t, q, p, nq))
		return -1;
	for (unsigned int r = 0; r < SCALE_MOUNTER_ROUNDS; r++) {
		uint64_t t0, t1, attach;
		int fd;

		t0 = __rdtsc();
		fd = attach_tmpfs(t->chg, &attach);
		t1 = __rdtsc();
		if (fd < 0)
			return -1;
		mnt[r] = t1 - t0;
		if (p == P_SELF)
			for (unsigned int i = 0; i < nq; i++)
				if (wl_watch_mount(fd, "", AT_EMPTY_PATH, q->fd[i], i & 0xff)) {
					wl_diag("watch_mount(the new mount) #%u: %s", i,
						strerror(errno));
					close(fd);
					return -1;
				}
		t0 = __rdtsc();
		if (detach_tmpfs(fd))
			return -1;
		t1 = __rdtsc();
		umnt[r] = t1 - t0;
		pair[r] = mnt[r] + umnt[r];
		change[r] = attach + umnt[r];
		drain(q, nq);
	}
	qsort(mnt, SCALE_MOUNTER_ROUNDS, sizeof(mnt[0]), cmp_u64);
	qsort(umnt, SCALE_MOUNTER_ROUNDS, sizeof(umnt[0]), cmp_u64);
	qsort(pair, SCALE_MOUNTER_ROUNDS, sizeof(pair[0]), cmp_u64);
	qsort(change, SCALE_MOUNTER_ROUNDS, sizeof(change[0]), cmp_u64);
	wl_diag("BENCH scale-mounter shape=%s n=%u place=%s queues=%u rounds=%u mount=%llu umount=%llu pair=%llu pair_max=%llu change=%llu",
		t->deep ? "deep" : "wide", t->n, place_name[p], nq, SCALE_MOUNTER_ROUNDS,
		(unsigned long long)mnt[0], (unsigned long long)umnt[0],
		(unsigned long long)pair[0], (unsigned long long)pair[SCALE_MOUNTER_ROUNDS - 1],
		(unsigned long long)change[0]);
	return 0;
}

static enum wl_result scale_shape(bool deep)
{
	static struct queues q;
	unsigned int maxn = quick() ? 100 : 10000;
	struct tree t;

	if (!scale_part(deep ? "deep" : "wide"))
		return WL_SKIP;
	WL_EXPECT(clock_is_icount() || quick(), "booted without watchlab.clock=icount: figures would be host time (make bench-scale)");
	WL_EXPECT(!raise_limits() && !scale_ns() && !tree_start(&t, deep), "the namespace and the tree");
	wl_pin_cpu(0);
	for (size_t i = 0; i < WL_ARRAY_SIZE(scale_n) && scale_n[i] <= maxn; i++) {
		uint64_t t0 = __rdtsc();

		WL_EXPECT(!tree_grow(&t, scale_n[i]), "grow the tree to %u", scale_n[i]);
		wl_diag("BENCH scale-build shape=%s n=%u insn=%llu", deep ? "deep" : "wide", t.n,
			(unsigned long long)(__rdtsc() - t0));
		for (enum mech m = 0; m < M_NR; m++)
			WL_EXPECT(!measure_watcher(&t, m), "%s at %u", mech_name[m], t.n);
		WL_EXPECT(!measure_mounter(&t, &q, P_NONE, 0), "no watches at %u", t.n);
		for (enum place p = P_PARENT; p < P_NR; p++) {
			for (size_t k = 0; k < WL_ARRAY_SIZE(scale_q); k++)
				WL_EXPECT(!measure_mounter(&t, &q, p, scale_q[k]), "%s, %u queues at %u",
					  place_name[p], scale_q[k], t.n);
			disarm(&t, &q, p);
			if (p == P_FAN || p == P_SELF)
				close_queues(&q);
		}
	}
	return WL_PASS;
}

static enum wl_result scale_watcher_wide(void)
{
	return scale_shape(false);
}

static enum wl_result scale_watcher_deep(void)
{
	return scale_shape(true);
}

/* ---- c: the storm ---- */

struct storm {
	unsigned int *live;	/* child numbers of w/c<k> mounted */
	unsigned int nlive, next;
	unsigned char *noexec;	/* by child number */
	uint64_t rnd;
};

static unsigned int storm_rand(struct storm *s, unsigned int n)
{
	s->rnd = s->rnd * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned int)((s->rnd >> 33) % n);
}

/* Change i of the storm: 0, or -1 (diagnosed). */
static int storm_op(struct storm *s, unsigned int i)
{
	unsigned int r = i % 4, j, k;
	char path[64];

	if (r == 0 || (r == 3 && !(i / 4 % 2))) {
		k = s->next++;
		snprintf(path, sizeof(path), SCALE_DIR "/w/c%u", k);
		if (wl_tmpfs_here(path, NULL))
			return -1;
		s->live[s->nlive++] = k;
		s->noexec[k] = 0;
		return 0;
	}
	j = storm_rand(s, s->nlive);
	k = s->live[j];
	snprintf(path, sizeof(path), SCALE_DIR "/w/c%u", k);
	if (r == 2) {
		struct mount_attr attr = { 0 };

		if (s->noexec[k])
			attr.attr_clr = MOUNT_ATTR_NOEXEC;
		else
			attr.attr_set = MOUNT_ATTR_NOEXEC;
		if (syscall(SYS_mount_setattr, AT_FDCWD, path, 0, &attr, sizeof(attr))) {
			wl_diag("mount_setattr(%s): %s", path, strerror(errno));
			return -1;
		}
		s->noexec[k] ^= 1;
		return 0;
	}
	if (umount2(path, 0)) {
		wl_diag("umount %s: %s", path, strerror(errno));
		return -1;
	}
	s->live[j] = s->live[--s->nlive];
	return 0;
}

/*
 * Compare a table with a fresh parse of mountinfo, entry by entry by old
 * ID: the number of entries that differ or are missing on either side.
 */
static long compare_mountinfo(const struct mtab *t, size_t *mi_n)
{
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	struct mtab mi;
	ssize_t len;
	long bad = 0;
	size_t both = 0;

	if (fd < 0)
		return -1;
	len = mi_read(fd);
	close(fd);
	if (len < 0 || mi_parse(&mi, t->n, len))
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		const struct ment *e = &t->s[i], *o;

		if (!e->key)
			continue;
		o = mt_find(&mi, e->id);
		if (!o) {
			bad++;
			continue;
		}
		both++;
		if (ment_differs(e, o))
			bad++;
	}
	bad += (long)(mi.n - both);
	*mi_n = mi.n;
	mt_free(&mi);
	return bad;
}

/* Recover a table from lost records through the counters: 0, or -1. */
static int recover_counters(struct watcher *w)
{
	const struct statmount *sm = (const void *)sm_buf;
	long n = list_all();
	uint64_t *gone;
	size_t ngone = 0;

	if (n < 0)
		return -1;
	for (long i = 0; i < n; i++) {
		struct ment *e = mt_find(&w->t, lm_ids[i]);

		if (do_statmount(lm_ids[i], STATMOUNT_MNT_NOTIFY_COUNT)) {
			if (errno == ENOENT)
				continue;
			wl_diag("statmount(counter): %s", strerror(errno));
			return -1;
		}
		if (!(sm->mask & STATMOUNT_MNT_NOTIFY_COUNT)) {
			wl_diag("statmount() returned no counter");
			return -1;
		}
		if ((!e || e->mcount != sm->mnt_notify_count) && sm_upsert(&w->t, lm_ids[i], w->mask) < 0)
			return -1;
	}
	/* The mounts in the table that listmount() no longer lists. */
	gone = malloc((w->t.n + 1) * sizeof(*gone));
	if (!gone)
		return -1;
	for (size_t i = 0; i < w->t.cap; i++) {
		uint64_t k = w->t.s[i].key;

		if (k && !bsearch(&k, lm_ids, n, sizeof(*lm_ids), cmp_u64))
			gone[ngone++] = k;
	}
	for (size_t i = 0; i < ngone; i++)
		mt_del(&w->t, gone[i]);
	free(gone);
	return 0;
}

enum recovery { R_NONE, R_COUNTERS, R_RESCAN };
static const char *const recovery_name[] = { "none", "counters", "rescan" };

/*
 * Before a timed wake-up of the consumer: sleep through a few timer ticks,
 * so that the work the storm's last changes left behind (RCU callbacks
 * freeing unmounted trees, delayed fputs, kworkers) runs now, untimed,
 * and the next tick is a whole tick (4M instructions at HZ=250) away.  A
 * storm's consumer is timed once, not the fastest of rounds, and a tick
 * that landed in one of its windows with a batch of frees added up to 8%
 * to the total, depending on where the boot's random numbers put it.
 * Under icount with sleep=off an idle guest's clock jumps to the next
 * timer, so the sleep costs no host time.
 */
static void settle(void)
{
	const struct timespec ts = { .tv_nsec = SCALE_SETTLE_NS };

	nanosleep(&ts, NULL);
}

/*
 * One storm with consumer m waking every @batch changes on a queue of
 * @slots records (watch_mount) or of @fan_max events (fanotify).
 */
static int storm_run(struct storm *s, enum mech m, unsigned int batch, unsigned int slots,
		     unsigned int fan_max, enum recovery rec, unsigned int n)
{
	uint64_t total = 0, rtotal = 0, rec_insn[SCALE_STORM_OPS], mask = SM_MASK;
	unsigned int wakeups = 0, overruns = 0;
	char num[16], saved[16] = "16384";
	struct watcher w;
	size_t mi_n = 0;
	long bad;
	int ret = -1;

	if (rec == R_COUNTERS)
		mask |= STATMOUNT_MNT_NOTIFY_COUNT;
	if (fan_max) {
		wl_read_file("/proc/sys/fs/fanotify/max_queued_events", saved, sizeof(saved));
		snprintf(num, sizeof(num), "%u", fan_max);
		if (wl_write_file("/proc/sys/fs/fanotify/max_queued_events", num))
			return -1;
	}
	ret = watcher_start(&w, m, slots, mask);
	if (fan_max)
		wl_write_file("/proc/sys/fs/fanotify/max_queued_events", saved);
	if (ret)
		goto out;
	ret = -1;
	for (unsigned int i = 0; i < SCALE_STORM_OPS; i++) {
		uint64_t t0, t1;

		if (storm_op(s, i))
			goto out;
		if ((i + 1) % batch)
			continue;
		wakeups++;
		settle();
		t0 = __rdtsc();
		if (learn(&w))
			goto out;
		if (w.lost) {
			t1 = __rdtsc();
			if (rec == R_COUNTERS) {
				if (recover_counters(&w))
					goto out;
			} else {
				struct mtab nt;

				if (rescan(&nt, w.t.n, mask))
					goto out;
				mt_swap(&w.t, &nt);
			}
			rec_insn[overruns++] = __rdtsc() - t1;
			rtotal += rec_insn[overruns - 1];
			w.lost = false;
		}
		total += __rdtsc() - t0;
	}
	bad = compare_mountinfo(&w.t, &mi_n);
	if (bad < 0)
		goto out;
	qsort(rec_insn, overruns, sizeof(rec_insn[0]), cmp_u64);
	wl_diag("BENCH scale-storm n=%u ops=%u consumer=%s batch=%u queue=%u recovery=%s wakeups=%u total=%llu per_op=%.1f overruns=%u recovery_total=%llu recovery_median=%llu table_equal=%s entries=%zu mountinfo=%zu differ=%ld",
		n, SCALE_STORM_OPS, mech_name[m], batch, m == M_FAN ? (fan_max ? fan_max : 16384) :
		m == M_WATCH ? slots : 0, recovery_name[rec], wakeups, (unsigned long long)total,
		(double)total / SCALE_STORM_OPS, overruns, (unsigned long long)rtotal,
		(unsigned long long)(overruns ? rec_insn[overruns / 2] : 0),
		bad ? "no" : "yes", w.t.n, mi_n, bad);
	if (rec != R_NONE && !overruns) {
		wl_diag("the %s consumer's queue never overran", mech_name[m]);
		goto out;
	}
	ret = 0;
out:
	watcher_stop(&w);
	return ret;
}

static enum wl_result scale_storm(void)
{
	unsigned int n = quick() ? 800 : SCALE_STORM_N, cap = n + 8 * SCALE_STORM_OPS;
	struct storm s = { .rnd = 44 };
	struct tree t;

	if (!scale_part("storm"))
		return WL_SKIP;
	WL_EXPECT(clock_is_icount() || quick(), "booted without watchlab.clock=icount (make bench-scale)");
	s.live = calloc(cap, sizeof(*s.live));
	s.noexec = calloc(cap, 1);
	WL_EXPECT(s.live && s.noexec, "memory");
	WL_EXPECT(!raise_limits() && !scale_ns() && !tree_start(&t, false), "the namespace and the tree");
	WL_EXPECT(!tree_grow(&t, n), "grow the tree to %u", n);
	for (unsigned int k = 1; k < n; k++)
		s.live[s.nlive++] = k;
	s.next = n;
	wl_pin_cpu(0);
	for (enum mech m = 0; m < M_NR; m++)
		WL_EXPECT(!storm_run(&s, m, SCALE_BATCH, SCALE_QUEUE_SLOTS, 0, R_NONE, n),
			  "the %s consumer", mech_name[m]);
	WL_EXPECT(!storm_run(&s, M_WATCH, SCALE_OVERRUN_BATCH, SCALE_OVERRUN_SLOTS, 0, R_COUNTERS, n),
		  "watch_mount overrun, counters");
	WL_EXPECT(!storm_run(&s, M_WATCH, SCALE_OVERRUN_BATCH, SCALE_OVERRUN_SLOTS, 0, R_RESCAN, n),
		  "watch_mount overrun, rescan");
	WL_EXPECT(!storm_run(&s, M_FAN, SCALE_OVERRUN_BATCH, 0, SCALE_OVERRUN_SLOTS, R_RESCAN, n),
		  "fanotify overrun, rescan");
	WL_EXPECT(!storm_run(&s, M_FAN, SCALE_OVERRUN_BATCH, 0, SCALE_OVERRUN_SLOTS, R_COUNTERS, n),
		  "fanotify overrun, counters");
	return WL_PASS;
}

/* ---- the walk after the last watch (kernel-patches 0035) ---- */

#define WALK_DEPTH 2000

/* The fastest of SCALE_MOUNTER_ROUNDS mount+umount pairs on the chain's top. */
static int walk_pair(const struct tree *t, uint64_t *best)
{
	*best = UINT64_MAX;
	for (unsigned int r = 0; r < SCALE_MOUNTER_ROUNDS; r++) {
		uint64_t t0 = __rdtsc(), d;
		int fd = attach_tmpfs(t->chg, NULL);

		if (fd < 0 || detach_tmpfs(fd))
			return -1;
		d = __rdtsc() - t0;
		if (d < *best)
			*best = d;
	}
	return 0;
}

/*
 * With no mount watch left in the system, a change must not walk its
 * ancestors: kernel-patches 0005 counted the mounts that have a watch
 * list, and a list outlives its last watch, so one watch set on "/" and
 * closed made every later change walk to the root for good.  A mount and
 * umount at the top of a chain of WALK_DEPTH mounts, before and after a
 * watch on "/" has come and gone, must cost the same: within 10% under
 * icount (exact; the walk added 26 instructions a level), within 50% on
 * the wall clock (the walk would double it).
 */
static enum wl_result walk_after_last_watch(void)
{
	bool icount = clock_is_icount();
	uint64_t before, after;
	struct tree t;
	int q;

	if (!scale_part("walk"))
		return WL_SKIP;
	WL_EXPECT(!raise_limits() && !scale_ns() && !tree_start(&t, true), "the namespace and the chain");
	WL_EXPECT(!tree_grow(&t, WALK_DEPTH), "a chain of %u mounts", WALK_DEPTH);
	wl_pin_cpu(0);
	WL_EXPECT(!walk_pair(&t, &before), "mount and umount before the watch");
	q = wl_notification_pipe(SCALE_QUEUE_SLOTS, NULL);
	WL_EXPECT(q >= 0, "a queue");
	WL_EXPECT(!wl_watch_mount(AT_FDCWD, "/", 0, q, 1), "watch_mount(/): %s", strerror(errno));
	close(q);
	WL_EXPECT(!walk_pair(&t, &after), "mount and umount after the watch");
	wl_diag("BENCH scale-walk depth=%u clock=%s before=%llu after=%llu", WALK_DEPTH,
		icount ? "icount" : "wall", (unsigned long long)before, (unsigned long long)after);
	WL_EXPECT(after * 100 <= before * (icount ? 110 : 150),
		  "a change at the end of a chain of %u mounts costs %llu after a watch on / came and went, %llu before: it walks the ancestors with no watch left",
		  WALK_DEPTH, (unsigned long long)after, (unsigned long long)before);
	return WL_PASS;
}

static const struct wl_test tests[] = {
	{ "scale_watcher_wide", scale_watcher_wide },
	{ "scale_watcher_deep", scale_watcher_deep },
	{ "scale_storm", scale_storm },
	{ "walk_after_last_watch", walk_after_last_watch },
};

/* Only when named: make bench-scale boots with watchlab.suites=suite_mount_scale. */
static bool mount_scale_applies(void)
{
	return false;
}

/*
 * A boot that names parts (watchlab.scale_part=) skips the other tests:
 * make bench-scale boots its parts side by side, and make test's
 * plain-icount boot runs only walk_after_last_watch.
 */
WL_SUITE(suite_mount_scale, tests, .applies = mount_scale_applies,
	 .skip_reason = "a benchmark: make bench-scale runs it",
	 .skip_budget = WL_ARRAY_SIZE(tests) - 1);
