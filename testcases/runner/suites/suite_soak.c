// SPDX-License-Identifier: GPL-2.0
/*
 * suite_soak.c - a bounded race soak for the debug boot (KASAN, lockdep,
 * panic_on_warn): for SOAK_SECONDS, threads set and remove watches on every
 * source with both transports, close queues, size and map and unmap rings,
 * mount, remount and unmount, and post key events, all at once.
 *
 * What it asserts itself: every call fails only with an errno the race can
 * explain, and every record read has a sane length for its type (a record
 * whose length field was corrupted - issue 14, bug 2, info_id sharing the
 * watch's rcu_head - would copy stack bytes past the record).  The kernel
 * log check fails the boot on any KASAN, lockdep, BUG or WARNING report;
 * with panic_on_warn a WARN ends the boot at once.  The iteration count of
 * each kind of worker is printed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <keyutils.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
/* glibc's <fcntl.h> already defines what <linux/fcntl.h> would redefine. */
#define _LINUX_FCNTL_H
#include <linux/watch_queue.h>

#include "devices_util.h"
#include "vfs_util.h"
#include "wl.h"

#define SOAK_DIR "/tmp/wlsoak"
#define SOAK_MOUNTS 3
#define SOAK_SECONDS 60.0

enum { W_WATCH, W_MOUNT, W_KEY, W_RING, W_NR };
static const char *const worker_name[W_NR] = {
	"watch/unwatch/read/close", "mount/remount/umount", "key post", "ring size/mmap/munmap",
};

struct soak {
	atomic_int stop, failed;
	atomic_ulong iters[W_NR];
	key_serial_t key;
};

static void soak_fail(struct soak *s, const char *fmt, const char *what, int err)
{
	if (!atomic_exchange(&s->failed, 1))
		wl_diag(fmt, what, strerror(err));
}

/* Errors a call may return because another thread got there first. */
static bool race_errno(int err)
{
	return err == ENOENT || err == EBADSLT || err == EBUSY || err == ENOTDIR;
}

static bool record_len_ok(const struct wl_record *r)
{
	if (r->len < sizeof(struct watch_notification) || r->len > WATCH_INFO_LENGTH)
		return false;
	switch (r->type) {
	case WATCH_TYPE_MOUNT_NOTIFY:
		return r->len == sizeof(struct mount_notification);
	case WATCH_TYPE_SB_NOTIFY:
		return r->len == sizeof(struct superblock_notification) ||
		       r->len == sizeof(struct superblock_error_notification);
	case WATCH_TYPE_KEY_NOTIFY:
		return r->len == sizeof(struct key_notification);
	case WATCH_TYPE_BLOCK_NOTIFY:
		return r->len == sizeof(struct block_notification);
	case WATCH_TYPE_META:
		return r->len == sizeof(struct watch_notification) ||
		       r->len == sizeof(struct watch_notification_removal);
	default:
		return true;
	}
}

static void mount_path(char *buf, size_t len, unsigned int i)
{
	snprintf(buf, len, SOAK_DIR "/m%u", i % SOAK_MOUNTS);
}

static void *watch_worker(void *arg)
{
	struct soak *s = arg;
	unsigned long i;

	for (i = 0; !atomic_load(&s->stop); i++) {
		enum wl_transport t = i % WL_TRANSPORT_NR;
		struct wl_record rec;
		char path[64];
		int fd, n;

		fd = wl_queue_open(t, 16);
		if (fd < 0) {
			soak_fail(s, "%s: %s", "open a queue", errno);
			break;
		}
		mount_path(path, sizeof(path), i);
		if (wl_watch_mount(AT_FDCWD, SOAK_DIR, 0, fd, 1) ||
		    wl_watch_sb(AT_FDCWD, SOAK_DIR, 0, fd, 2) ||
		    keyctl(KEYCTL_WATCH_KEY, s->key, fd, 3) ||
		    wl_watch_devices(fd, 4, 0)) {
			soak_fail(s, "%s: %s", "watch the stable objects", errno);
			wl_wq_close(fd);
			break;
		}
		/* The churning mounts: the watch may race their umount. */
		if (wl_watch_mount(AT_FDCWD, path, 0, fd, 5) && !race_errno(errno))
			soak_fail(s, "%s: %s", "watch_mount on a churning mount", errno);
		if (wl_watch_sb(AT_FDCWD, path, 0, fd, 6) && !race_errno(errno))
			soak_fail(s, "%s: %s", "watch_sb on a churning mount", errno);
		for (n = 0; n < 4 && wl_wq_read(fd, &rec, 1) == 1; n++)
			if (!record_len_ok(&rec)) {
				wl_diag("record type %u subtype %u with length %u", rec.type,
					rec.subtype, rec.len);
				atomic_store(&s->failed, 1);
			}
		if (i & 1) {
			if (wl_watch_mount(AT_FDCWD, SOAK_DIR, 0, fd, -1) && !race_errno(errno))
				soak_fail(s, "%s: %s", "remove a mount watch", errno);
			if (keyctl(KEYCTL_WATCH_KEY, s->key, fd, -1) && !race_errno(errno))
				soak_fail(s, "%s: %s", "remove a key watch", errno);
		}
		wl_wq_close(fd);
		atomic_fetch_add(&s->iters[W_WATCH], 1);
	}
	return NULL;
}

static void *mount_worker(void *arg)
{
	struct soak *s = arg;
	unsigned long i;

	for (i = 0; !atomic_load(&s->stop); i++) {
		char path[64];

		mount_path(path, sizeof(path), i);
		if (mount("wlsoak", path, "tmpfs", 0, NULL)) {
			soak_fail(s, "%s: %s", "mount a churning tmpfs", errno);
			break;
		}
		if (mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL))
			soak_fail(s, "%s: %s", "bind-remount read-only", errno);
		if (umount2(path, i & 1 ? MNT_DETACH : 0) &&
		    umount2(path, MNT_DETACH)) {
			soak_fail(s, "%s: %s", "umount a churning tmpfs", errno);
			break;
		}
		atomic_fetch_add(&s->iters[W_MOUNT], 1);
	}
	return NULL;
}

static void *key_worker(void *arg)
{
	struct soak *s = arg;

	while (!atomic_load(&s->stop)) {
		if (keyctl_update(s->key, "v", 1)) {
			soak_fail(s, "%s: %s", "update the key", errno);
			break;
		}
		atomic_fetch_add(&s->iters[W_KEY], 1);
	}
	return NULL;
}

/* A ring sized, mapped and unmapped while watches come and go on it. */
static void *ring_worker(void *arg)
{
	struct soak *s = arg;
	long page = sysconf(_SC_PAGESIZE);
	unsigned long i;

	for (i = 0; !atomic_load(&s->stop); i++) {
		unsigned long pages = 1UL << (i % 3);
		void *p;
		int fd = open("/dev/watch_queue", O_RDWR | O_CLOEXEC);

		if (fd < 0) {
			soak_fail(s, "%s: %s", "open /dev/watch_queue", errno);
			break;
		}
		if (keyctl(KEYCTL_WATCH_KEY, s->key, fd, 7))
			soak_fail(s, "%s: %s", "watch the key from an unsized ring", errno);
		if (ioctl(fd, IOC_WATCH_QUEUE_SET_SIZE, pages))
			soak_fail(s, "%s: %s", "size a ring", errno);
		p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			soak_fail(s, "%s: %s", "map a ring", errno);
		if (wl_watch_mount(AT_FDCWD, SOAK_DIR, 0, fd, 8))
			soak_fail(s, "%s: %s", "watch_mount from a ring", errno);
		/* Close with the mapping still there: the mapping holds the file. */
		close(fd);
		if (p != MAP_FAILED)
			munmap(p, pages * page);
		atomic_fetch_add(&s->iters[W_RING], 1);
	}
	return NULL;
}

static enum wl_result concurrent_everything(void)
{
	/* One watch worker: the runner's queue table is not thread-safe. */
	static void *(*const fn[])(void *) = {
		watch_worker, mount_worker, key_worker, ring_worker,
	};
	double secs = SOAK_SECONDS;
	pthread_t thr[WL_ARRAY_SIZE(fn)];
	struct soak s = { 0 };
	char path[64];
	unsigned int i;
	double t0;
	int r;

	umount2(SOAK_DIR, MNT_DETACH);
	WL_EXPECT(wl_tmpfs(SOAK_DIR, NULL) == 0, "tmpfs on %s", SOAK_DIR);
	for (i = 0; i < SOAK_MOUNTS; i++) {
		mount_path(path, sizeof(path), i);
		WL_EXPECT(wl_mkdir(path) == 0, "mkdir %s", path);
	}
	s.key = add_key("user", "wl-soak", "v", 1, KEY_SPEC_PROCESS_KEYRING);
	WL_EXPECT(s.key > 0, "add_key: %s", strerror(errno));

	t0 = wl_now_s();
	for (i = 0; i < WL_ARRAY_SIZE(fn); i++) {
		r = pthread_create(&thr[i], NULL, fn[i], &s);
		WL_EXPECT(r == 0, "pthread_create: %s", strerror(r));
	}
	while (wl_now_s() - t0 < secs && !atomic_load(&s.failed))
		usleep(100000);
	atomic_store(&s.stop, 1);
	for (i = 0; i < WL_ARRAY_SIZE(fn); i++)
		pthread_join(thr[i], NULL);
	for (i = 0; i < W_NR; i++)
		wl_diag("soak: %lu %s iterations in %.0f s", atomic_load(&s.iters[i]),
			worker_name[i], wl_now_s() - t0);
	for (i = 0; i < SOAK_MOUNTS; i++) {
		mount_path(path, sizeof(path), i);
		umount2(path, MNT_DETACH);
	}
	umount2(SOAK_DIR, MNT_DETACH);
	WL_EXPECT(!atomic_load(&s.failed), "every call failed only as a race explains");
	for (i = 0; i < W_NR; i++)
		WL_EXPECT(atomic_load(&s.iters[i]) > 0, "%s ran at least once", worker_name[i]);
	return WL_PASS;
}

static const struct wl_test tests[] = {
	{ "concurrent_everything", concurrent_everything },
};

/* The debug boot only: what it is for is KASAN, lockdep and panic_on_warn. */
static bool soak_applies(void)
{
	return wl_debug_kernel();
}

WL_SUITE_IF(suite_soak, tests, soak_applies);
