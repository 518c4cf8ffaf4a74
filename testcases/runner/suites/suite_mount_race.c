// SPDX-License-Identifier: GPL-2.0
/*
 * suite_mount_race.c - closing a queue that watches a mount while the mount
 * is unmounted (issue 14, bug 1).
 *
 * A mount watch holds a reference on the watched dentry.  Closing the queue
 * unlinks the watch from the mount's list and then drops that reference with
 * no lock held; an umount() running in between finds the list empty, frees
 * it and shuts the superblock down under the closer's feet: "BUG: Dentry
 * still in use" (a panic with panic_on_warn=1), then a dput() on a dead
 * superblock.  The watch must keep the superblock alive until it is
 * released.
 *
 * Each round mounts a tmpfs, watches it (the watched directory is the mount
 * root or a subdirectory), then one thread closes the queue while another
 * unmounts, both released at once.  Rounds alternate the transports.  The
 * same loop runs again as an unprivileged user inside its own user and
 * mount namespace (unshare -Urm), which is how anyone can reach it.  The
 * window is short: the test asserts that every round's calls succeed, and
 * the kernel log check (any WARNING/BUG/KASAN fails the boot) does the rest.
 *
 * The second race (issue 31, C1) is between the notes that a mount change
 * collects for later posting and the umount of a watched mount they point
 * into.  A recursive mount_setattr() holds namespace_sem for reading while
 * it collects and posts one note per (changed mount, watched mount on its
 * rootwards walk); each note holds a reference on a dentry of the watched
 * mount's superblock.  If the notes outlive namespace_sem, an umount of the
 * watched mount that was waiting for it kills that superblock while a note
 * still holds its dentry: "BUG: Dentry still in use", then dput() on a
 * freed superblock.  The umount's synchronize_rcu_expedited() waits for the
 * setattr's CPU to pass a quiescent state, which a kernel without
 * preemption reaches only on return to user space: the window opens on
 * Debian's kernels (voluntary preemption, a quiescent state at every
 * dput()) and on the lab's debug kernel, which is built the same way.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
/* glibc's <fcntl.h> already defines what <linux/fcntl.h> would redefine. */
#define _LINUX_FCNTL_H
#include <linux/watch_queue.h>

#include "devices_util.h"
#include "vfs_util.h"
#include "wl.h"

#define RACE_DIR "/tmp/wlrace"
#define RACE_SUB RACE_DIR "/sub"
/* Rounds are bounded by time: TCG speed varies by tens of percent. */
#define RACE_SECONDS 3.0
#define RACE_DEBUG_SECONDS 8.0

struct closer {
	atomic_int go;
	int fd;
};

static void *close_queue(void *arg)
{
	struct closer *c = arg;

	while (!atomic_load_explicit(&c->go, memory_order_acquire))
		;
	/* Both ends of a pipe: the queue is released with the last one. */
	wl_wq_close(c->fd);
	return NULL;
}

/* One round: mount, watch, then close and umount at once.  0 or -1. */
static int race_round(unsigned long i)
{
	enum wl_transport t = i % WL_TRANSPORT_NR;
	const char *watched = i & 2 ? RACE_SUB : RACE_DIR;
	struct closer c = { .fd = -1 };
	pthread_t thr;
	int r, err;

	if (mount("wlrace", RACE_DIR, "tmpfs", 0, NULL)) {
		wl_diag("round %lu: mount tmpfs on %s: %s", i, RACE_DIR, strerror(errno));
		return -1;
	}
	if (wl_mkdir(RACE_SUB))
		goto err_umount;
	c.fd = wl_queue_open(t, 8);
	if (c.fd < 0)
		goto err_umount;
	if (wl_watch_mount(AT_FDCWD, watched, 0, c.fd, 7)) {
		wl_diag("round %lu: watch_mount(%s) on a %s queue: %s", i, watched,
			wl_transport_name(t), strerror(errno));
		wl_wq_close(c.fd);
		goto err_umount;
	}
	r = pthread_create(&thr, NULL, close_queue, &c);
	if (r) {
		wl_diag("round %lu: pthread_create: %s", i, strerror(r));
		wl_wq_close(c.fd);
		goto err_umount;
	}
	atomic_store_explicit(&c.go, 1, memory_order_release);
	/*
	 * On odd rounds let the closer start first, by a varying few tens of
	 * microseconds: with one CPU (or no preemption) that is the only way
	 * the umount can run while the close is releasing the watch.
	 */
	if (i & 1)
		usleep(10 + (i * 37) % 200);
	r = umount2(RACE_DIR, 0);
	err = errno;
	pthread_join(thr, NULL);
	if (r) {
		/* A watch must never make the mount busy. */
		wl_diag("round %lu: umount %s while closing its watcher: %s", i,
			RACE_DIR, strerror(err));
		umount2(RACE_DIR, MNT_DETACH);
		return -1;
	}
	return 0;

err_umount:
	umount2(RACE_DIR, MNT_DETACH);
	return -1;
}

static int race_loop(const char *where)
{
	double secs = wl_debug_kernel() ? RACE_DEBUG_SECONDS : RACE_SECONDS;
	double t0 = wl_now_s();
	unsigned long i;

	if (wl_mkdir(RACE_DIR))
		return -1;
	for (i = 0; i < 8 || wl_now_s() - t0 < secs; i++)
		if (race_round(i))
			return -1;
	wl_diag("%s: %lu close-vs-umount rounds in %.1f s", where, i, wl_now_s() - t0);
	return 0;
}

static enum wl_result close_vs_umount(void)
{
	return race_loop("init namespaces") ? WL_FAIL : WL_PASS;
}

/*
 * As uid 1000 (after wl_run_as()): unshare -Urm and make every mount
 * private, so the mounts made next are ours alone.  0 or -1.
 */
static int enter_own_userns(void)
{
	char map[64];

	/* The uid switch made us undumpable: its /proc/self maps would be root's. */
	if (prctl(PR_SET_DUMPABLE, 1)) {
		wl_diag("prctl(PR_SET_DUMPABLE): %s", strerror(errno));
		return -1;
	}
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS)) {
		wl_diag("unshare(CLONE_NEWUSER | CLONE_NEWNS) as uid 1000: %s",
			strerror(errno));
		return -1;
	}
	snprintf(map, sizeof(map), "0 %u 1", 1000u);
	if (wl_write_file("/proc/self/setgroups", "deny") ||
	    wl_write_file("/proc/self/uid_map", map) ||
	    wl_write_file("/proc/self/gid_map", map))
		return -1;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		wl_diag("make / private in the new mount namespace: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int userns_child(void *arg)
{
	(void)arg;
	if (enter_own_userns())
		return 1;
	return race_loop("user namespace") ? 1 : 0;
}

static enum wl_result close_vs_umount_userns(void)
{
	struct wl_creds user = wl_user(1000);

	/* The unprivileged user mounts on it in its own namespace. */
	if (wl_mkdir(RACE_DIR))
		return WL_FAIL;
	return wl_run_as(&user, userns_child, NULL) == 0 ? WL_PASS : WL_FAIL;
}

/*
 * setattr_vs_umount_watched_userns: P is a tmpfs at NOTES_DIR; under it a
 * chain of NOTES_CHAIN nested tmpfs mounts P/c, P/c/c, ..., each watched on
 * one queue, and last G, a tmpfs at P/g watched on a queue of its own.  A
 * recursive mount_setattr(P) changes P, the chain, then G, in that order:
 * it collects NOTES_CHAIN * (NOTES_CHAIN + 1) / 2 notes for the chain and
 * then one for G, holding G's root dentry, so G's note is the last one
 * released.  Beside it, umount2(G, MNT_DETACH) waits for namespace_sem and
 * kills G's superblock as soon as it returns to user space.
 *
 * A round counts as raced only if both calls succeed, G's watch got the
 * SETATTR record about G (mount_setattr() reached G before the umount), and
 * the umount started before mount_setattr() returned.  The umount's start
 * is moved round by round towards that window, until one round lands in it;
 * the test fails if none does.  The kernel log check finds the
 * use-after-free: with the notes freed after namespace_sem, the first raced
 * round of the debug boot panicked on "BUG: Dentry ... still in use".
 */
#define NOTES_DIR "/tmp/wlnotes"
#define NOTES_G NOTES_DIR "/g"
#define NOTES_CHAIN 160
#define NOTES_ROUNDS 40
#define NOTES_RACED_WANT 1

enum notes_outcome {
	NOTES_ERROR,
	NOTES_EARLY,	/* the umount went first: mount_setattr() never met G */
	NOTES_RACED,	/* the umount ran while mount_setattr() held its notes */
	NOTES_LATE,	/* the umount started after mount_setattr() returned */
};

struct notes_round {
	int chain_q, g_q;
	unsigned long long g_unique;
};

struct setattr_call {
	atomic_int go, started;
	uint64_t t0, t1;
	long ret;
	int err;
};

static void *setattr_subtree(void *arg)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_NOSUID };
	struct setattr_call *c = arg;

	while (!atomic_load_explicit(&c->go, memory_order_acquire))
		;
	c->t0 = wl_now_ns();
	atomic_store_explicit(&c->started, 1, memory_order_release);
	c->ret = syscall(SYS_mount_setattr, AT_FDCWD, NOTES_DIR, AT_RECURSIVE,
			 &attr, sizeof(attr));
	c->err = errno;
	c->t1 = wl_now_ns();
	return NULL;
}

static int watch_on(const char *path, int q, unsigned int id)
{
	if (wl_watch_mount(AT_FDCWD, path, 0, q, id)) {
		wl_diag("watch_mount(%s) as id %u: %s", path, id, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Mount everything first and watch it after: mounting below watched mounts
 * would post as many notes as the race itself, for nothing.
 */
static int notes_setup(struct notes_round *r)
{
	char path[sizeof(NOTES_DIR) + 2 * NOTES_CHAIN];
	size_t len = strlen(NOTES_DIR);
	int i;

	memcpy(path, NOTES_DIR, len + 1);
	r->chain_q = wl_wq_open(16);
	r->g_q = wl_wq_open(16);
	if (r->chain_q < 0 || r->g_q < 0 || wl_tmpfs(NOTES_DIR, NULL))
		return -1;
	for (i = 0; i < NOTES_CHAIN; i++) {
		memcpy(path + len + 2 * i, "/c", 3);
		if (wl_tmpfs_here(path, NULL))
			return -1;
	}
	/* Mounted last, G is the last mount a recursive change of P reaches. */
	if (wl_tmpfs_here(NOTES_G, NULL))
		return -1;
	/* The chain's queue overflows; only G's queue is read. */
	for (i = NOTES_CHAIN; i > 0; i--) {
		path[len + 2 * i] = '\0';
		if (watch_on(path, r->chain_q, 1))
			return -1;
	}
	if (watch_on(NOTES_G, r->g_q, 2))
		return -1;
	r->g_unique = wl_mnt_id(NOTES_G, true);
	return r->g_unique ? 0 : -1;
}

/* Closing the queues first releases the watches: the umount then posts nothing. */
static void notes_teardown(struct notes_round *r)
{
	if (r->chain_q >= 0)
		wl_wq_close(r->chain_q);
	if (r->g_q >= 0)
		wl_wq_close(r->g_q);
	umount2(NOTES_DIR, MNT_DETACH);
}

/* Whether G's watch got the SETATTR record about G: 1, 0, or -1. */
static int g_saw_setattr(const struct notes_round *r)
{
	struct mount_notification mn;
	struct wl_record rec;
	int got;

	while ((got = wl_wq_read(r->g_q, &rec, 100)) > 0) {
		if (rec.type != WATCH_TYPE_MOUNT_NOTIFY ||
		    rec.subtype != NOTIFY_MOUNT_SETATTR || rec.len != sizeof(mn))
			continue;
		memcpy(&mn, rec.data, sizeof(mn));
		if (rec.watch_id == 2 && mn.changed_mount_unique == r->g_unique)
			return 1;
	}
	return got;
}

static enum notes_outcome notes_round(unsigned int delay_us)
{
	struct notes_round r = { .chain_q = -1, .g_q = -1 };
	enum notes_outcome o = NOTES_ERROR;
	struct setattr_call c = { 0 };
	uint64_t b0;
	pthread_t thr;
	int ret, err, saw;

	if (notes_setup(&r))
		goto out;
	ret = pthread_create(&thr, NULL, setattr_subtree, &c);
	if (ret) {
		wl_diag("pthread_create: %s", strerror(ret));
		goto out;
	}
	atomic_store_explicit(&c.go, 1, memory_order_release);
	while (!atomic_load_explicit(&c.started, memory_order_acquire))
		;
	if (delay_us)
		usleep(delay_us);
	b0 = wl_now_ns();
	ret = umount2(NOTES_G, MNT_DETACH);
	err = errno;
	pthread_join(thr, NULL);
	if (ret) {
		wl_diag("umount2(%s, MNT_DETACH) beside mount_setattr(%s, AT_RECURSIVE): %s",
			NOTES_G, NOTES_DIR, strerror(err));
		goto out;
	}
	if (c.ret) {
		wl_diag("mount_setattr(%s, AT_RECURSIVE, NOSUID) beside umount2(%s): %s",
			NOTES_DIR, NOTES_G, strerror(c.err));
		goto out;
	}
	saw = g_saw_setattr(&r);
	if (saw < 0)
		goto out;
	if (!saw)
		o = NOTES_EARLY;
	else if (b0 >= c.t1)
		o = NOTES_LATE;
	else
		o = NOTES_RACED;
out:
	notes_teardown(&r);
	return o;
}

static int notes_race_loop(void)
{
	unsigned int n[NOTES_LATE + 1] = { 0 };
	unsigned int delay_us = 0, i;
	double t0 = wl_now_s();
	enum notes_outcome o;

	for (i = 0; i < NOTES_ROUNDS && n[NOTES_RACED] < NOTES_RACED_WANT; i++) {
		o = notes_round(delay_us);
		if (o == NOTES_ERROR)
			return -1;
		n[o]++;
		if (o == NOTES_EARLY)
			delay_us = delay_us * 2 + 200;
		else if (o == NOTES_LATE)
			delay_us /= 2;
	}
	wl_diag("%u rounds of %u notes in %.1f s: %u raced, %u umount first, %u umount after",
		i, NOTES_CHAIN * (NOTES_CHAIN + 1) / 2 + 1, wl_now_s() - t0,
		n[NOTES_RACED], n[NOTES_EARLY], n[NOTES_LATE]);
	if (!n[NOTES_RACED]) {
		wl_diag("no umount ran while mount_setattr() held its notes: the race was not exercised");
		return -1;
	}
	return 0;
}

static int notes_child(void *arg)
{
	(void)arg;
	if (enter_own_userns())
		return 1;
	return notes_race_loop() ? 1 : 0;
}

static enum wl_result setattr_vs_umount_watched_userns(void)
{
	struct wl_creds user = wl_user(1000);

	if (wl_mkdir(NOTES_DIR))
		return WL_FAIL;
	return wl_run_as(&user, notes_child, NULL) == 0 ? WL_PASS : WL_FAIL;
}

static const struct wl_test tests[] = {
	{ "close_vs_umount", close_vs_umount },
	{ "close_vs_umount_userns", close_vs_umount_userns },
	{ "setattr_vs_umount_watched_userns", setattr_vs_umount_watched_userns },
};

/*
 * The plain profile only (its lab and debug boots): the race is in the
 * kernel, not in any LSM, and the selinux and smack profiles' policies are
 * not written for uid 1000 mounting in a user namespace.
 */
static bool mount_race_applies(void)
{
	return strcmp(wl_profile(), "plain") == 0;
}

WL_SUITE_IF(suite_mount_race, tests, mount_race_applies);
