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
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* As uid 1000: unshare -Urm, then the same loop on a mount of our own. */
static int userns_child(void *arg)
{
	char map[64];

	(void)arg;
	/* The uid switch made us undumpable: its /proc/self maps would be root's. */
	if (prctl(PR_SET_DUMPABLE, 1)) {
		wl_diag("prctl(PR_SET_DUMPABLE): %s", strerror(errno));
		return 1;
	}
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS)) {
		wl_diag("unshare(CLONE_NEWUSER | CLONE_NEWNS) as uid 1000: %s",
			strerror(errno));
		return 1;
	}
	snprintf(map, sizeof(map), "0 %u 1", 1000u);
	if (wl_write_file("/proc/self/setgroups", "deny") ||
	    wl_write_file("/proc/self/uid_map", map) ||
	    wl_write_file("/proc/self/gid_map", map))
		return 1;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		wl_diag("make / private in the new mount namespace: %s", strerror(errno));
		return 1;
	}
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

static const struct wl_test tests[] = {
	{ "close_vs_umount", close_vs_umount },
	{ "close_vs_umount_userns", close_vs_umount_userns },
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
