// SPDX-License-Identifier: GPL-2.0
/*
 * suite_ring.c - /dev/watch_queue, the mmap'able notification ring
 * (kernel-patches 0004): the record layout, wrapping with a skip record,
 * the overrun flag, poll, filters, the errno of every bad argument, the
 * queue's lifecycle, hostile values in the shared meta slots, and the cost
 * of the ring against the pipe.
 *
 * The events are key attribute changes: keyctl(KEYCTL_SETPERM) is the
 * cheapest system call that posts a record (NOTIFY_KEY_SETATTR, 16 bytes,
 * two slots).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <keyutils.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

/* glibc's <fcntl.h> already defines what <linux/fcntl.h> would redefine. */
#define _LINUX_FCNTL_H
#include "ring.h"
#include "wl.h"

#define META_SLOTS (sizeof(((struct watch_queue_buffer *)0)->meta) / WL_RING_SLOT)
#define KEY_PERM (KEY_POS_ALL | KEY_USR_ALL)
#define KEY_REC_LEN sizeof(struct key_notification)
#define KEY_REC_SLOTS (KEY_REC_LEN / WL_RING_SLOT)
#define WATCH_ID 0x5a

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* A sized, mapped ring queue with one key watched on it. */
struct ring_q {
	int fd;
	struct wl_ring r;
	key_serial_t key;
};

/*
 * KEYCTL_WATCH_KEY, allowing for the watches of closed queues: they count
 * against the user's RLIMIT_NOFILE until an RCU grace period frees them
 * (EAGAIN until then), and with two CPUs under TCG a grace period can take
 * longer than a test's loop takes to close a thousand queues.
 */
static long watch_key_retry(key_serial_t key, int fd, int id)
{
	int tries = 0;
	long r;

	while ((r = keyctl_watch_key(key, fd, id)) && errno == EAGAIN && tries++ < 100)
		usleep(10 * 1000);
	return r;
}

static int ring_q_open(struct ring_q *q, unsigned int pages, const char *keyname)
{
	memset(q, 0, sizeof(*q));
	q->fd = open("/dev/watch_queue", O_RDWR | O_CLOEXEC);
	if (q->fd < 0) {
		wl_diag("open /dev/watch_queue: %s", strerror(errno));
		return -1;
	}
	if (ioctl(q->fd, IOC_WATCH_QUEUE_SET_SIZE, pages)) {
		wl_diag("IOC_WATCH_QUEUE_SET_SIZE(%u): %s", pages, strerror(errno));
		return -1;
	}
	if (wl_ring_map(&q->r, q->fd, pages * page_size())) {
		wl_diag("mmap %u pages: %s", pages, strerror(errno));
		return -1;
	}
	q->key = add_key("user", keyname, "x", 1, KEY_SPEC_PROCESS_KEYRING);
	if (q->key < 0) {
		wl_diag("add_key %s: %s", keyname, strerror(errno));
		return -1;
	}
	if (keyctl_setperm(q->key, KEY_PERM) ||
	    watch_key_retry(q->key, q->fd, WATCH_ID)) {
		wl_diag("keyctl setperm/watch on key %d: %s", q->key, strerror(errno));
		return -1;
	}
	return 0;
}

static void ring_q_close(struct ring_q *q)
{
	wl_ring_unmap(&q->r);
	if (q->fd >= 0)
		close(q->fd);
	if (q->key > 0)
		keyctl_invalidate(q->key);
}

/* Post one NOTIFY_KEY_SETATTR record for key. */
static int post(key_serial_t key)
{
	if (keyctl_setperm(key, KEY_PERM)) {
		wl_diag("keyctl_setperm(%d): %s", key, strerror(errno));
		return -1;
	}
	return 0;
}

static unsigned int head_of(const struct ring_q *q)
{
	return wl_ring_head(&q->r);
}

/* Check that slot holds the SETATTR record of key, with or without overrun. */
static int check_key_rec(const struct watch_notification *n, key_serial_t key,
			 bool overrun, const char *what)
{
	const struct key_notification *kn = (const void *)n;
	unsigned int want_info = KEY_REC_LEN | WATCH_ID << WATCH_INFO_ID__SHIFT |
				 (overrun ? WATCH_INFO_OVERRUN : 0);

	if (n->type != WATCH_TYPE_KEY_NOTIFY || n->subtype != NOTIFY_KEY_SETATTR ||
	    n->info != want_info || (key_serial_t)kn->key_id != key || kn->aux) {
		wl_diag("%s: got type %u subtype %u info %#x key %d aux %u, want %u/%u info %#x key %d aux 0",
			what, n->type, n->subtype, n->info, kn->key_id, kn->aux,
			WATCH_TYPE_KEY_NOTIFY, NOTIFY_KEY_SETATTR, want_info, key);
		return -1;
	}
	return 0;
}

static int check_skip(const struct watch_notification *n, unsigned int slots,
		      const char *what)
{
	if (n->type != WATCH_TYPE_META || n->subtype != WATCH_META_SKIP_NOTIFICATION ||
	    n->info != slots * WL_RING_SLOT) {
		wl_diag("%s: got type %u subtype %u info %#x, want a %u-slot skip record",
			what, n->type, n->subtype, n->info, slots);
		return -1;
	}
	return 0;
}

/* The meta slots after sizing, then one record at the first data slot. */
static enum wl_result record_layout(void)
{
	struct ring_q q;
	const struct watch_notification *n;
	unsigned int size = page_size() / WL_RING_SLOT;

	WL_EXPECT(ring_q_open(&q, 1, "wl-ring-layout") == 0, "could not set up the ring");
	WL_EXPECT(check_skip(&q.r.buf->meta.watch, META_SLOTS, "meta record") == 0,
		  "the meta slots do not start with a skip record over themselves");
	WL_EXPECT(q.r.buf->meta.head == META_SLOTS && q.r.buf->meta.tail == META_SLOTS &&
		  q.r.buf->meta.mask == size - 1,
		  "fresh ring: head %u tail %u mask %#x, want %zu %zu %#x",
		  q.r.buf->meta.head, q.r.buf->meta.tail, q.r.buf->meta.mask,
		  META_SLOTS, META_SLOTS, size - 1);
	WL_EXPECT(post(q.key) == 0, "post failed");
	WL_EXPECT(head_of(&q) == META_SLOTS + KEY_REC_SLOTS,
		  "head %u after one record, want %zu", head_of(&q),
		  META_SLOTS + KEY_REC_SLOTS);
	WL_EXPECT(check_key_rec(&q.r.buf->slots[META_SLOTS], q.key, false,
				"first record") == 0, "first record is wrong");
	WL_EXPECT(wl_ring_peek(&q.r, &n) == 1 && n == &q.r.buf->slots[META_SLOTS],
		  "the consumer did not find the record at slot %zu", META_SLOTS);
	wl_ring_advance(&q.r, n);
	WL_EXPECT(wl_ring_peek(&q.r, &n) == 0, "ring not empty after consuming");
	ring_q_close(&q);
	return WL_PASS;
}

/*
 * Two-slot records from slot 3 of a 512-slot ring: the 255th starts at
 * slot 511, one slot short, so a one-slot skip record pads the end, the
 * meta record is rewritten at slot 0 and the record lands in slot 3.
 */
static enum wl_result wrap_with_skip_record(void)
{
	unsigned int size = page_size() / WL_RING_SLOT;
	unsigned int fit = (size - META_SLOTS) / KEY_REC_SLOTS, last;
	const struct watch_notification *n;
	struct ring_q q;

	WL_EXPECT(ring_q_open(&q, 1, "wl-ring-wrap") == 0, "could not set up the ring");
	for (unsigned int i = 0; i < fit; i++) {
		WL_EXPECT(post(q.key) == 0, "post %u failed", i);
		WL_EXPECT(wl_ring_peek(&q.r, &n) == 1, "record %u missing", i);
		wl_ring_advance(&q.r, n);
	}
	last = META_SLOTS + fit * KEY_REC_SLOTS;
	WL_EXPECT(head_of(&q) == last, "head %u after %u records, want %u",
		  head_of(&q), fit, last);
	/* Scribble over the meta record: the kernel must write it afresh. */
	memset(&q.r.buf->meta.watch, 0xa5, sizeof(q.r.buf->meta.watch));
	q.r.buf->meta.mask = 0;
	WL_EXPECT(post(q.key) == 0, "wrapping post failed");
	WL_EXPECT(check_skip(&q.r.buf->slots[last], size - last, "end padding") == 0,
		  "no skip record at slot %u", last);
	WL_EXPECT(check_skip(&q.r.buf->meta.watch, META_SLOTS, "meta record") == 0,
		  "the meta record was not rewritten on wrapping");
	WL_EXPECT(q.r.buf->meta.mask == size - 1, "mask %#x after wrapping, want %#x",
		  q.r.buf->meta.mask, size - 1);
	WL_EXPECT(check_key_rec(&q.r.buf->slots[META_SLOTS], q.key, false,
				"wrapped record") == 0, "wrapped record is wrong");
	WL_EXPECT(head_of(&q) == size + META_SLOTS + KEY_REC_SLOTS,
		  "head %u after wrapping, want %zu", head_of(&q),
		  size + META_SLOTS + KEY_REC_SLOTS);
	WL_EXPECT(wl_ring_peek(&q.r, &n) == 1 && n == &q.r.buf->slots[META_SLOTS],
		  "the consumer did not step over the padding and the meta record");
	ring_q_close(&q);
	return WL_PASS;
}

/* Fill the ring unread; lost records mark the next one that fits. */
static enum wl_result overrun_flag_after_full(void)
{
	unsigned int size = page_size() / WL_RING_SLOT;
	unsigned int fit = (size - META_SLOTS) / KEY_REC_SLOTS, full;
	const struct watch_notification *n;
	struct ring_q q;

	WL_EXPECT(ring_q_open(&q, 1, "wl-ring-overrun") == 0, "could not set up the ring");
	for (unsigned int i = 0; i < fit + 10; i++)
		WL_EXPECT(post(q.key) == 0, "post %u failed", i);
	full = META_SLOTS + fit * KEY_REC_SLOTS;
	WL_EXPECT(head_of(&q) == full, "head %u after %u posts into room for %u, want %u",
		  head_of(&q), fit + 10, fit, full);
	for (unsigned int i = 0; i < fit; i++) {
		WL_EXPECT(wl_ring_peek(&q.r, &n) == 1, "record %u of %u missing", i, fit);
		WL_EXPECT(check_key_rec(n, q.key, false, "stored record") == 0,
			  "record %u is wrong", i);
		wl_ring_advance(&q.r, n);
	}
	WL_EXPECT(wl_ring_peek(&q.r, &n) == 0, "more than %u records stored", fit);
	WL_EXPECT(post(q.key) == 0 && post(q.key) == 0, "posts after draining failed");
	WL_EXPECT(wl_ring_peek(&q.r, &n) == 1 &&
		  check_key_rec(n, q.key, true, "first record after the loss") == 0,
		  "the first record after the loss lacks WATCH_INFO_OVERRUN");
	wl_ring_advance(&q.r, n);
	WL_EXPECT(wl_ring_peek(&q.r, &n) == 1 &&
		  check_key_rec(n, q.key, false, "second record after the loss") == 0,
		  "the overrun flag stayed set");
	ring_q_close(&q);
	return WL_PASS;
}

static short poll_once(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (poll(&pfd, 1, timeout_ms) < 0)
		return -1;
	return pfd.revents;
}

/* A blocked poll() wakes on a record posted by another process. */
static enum wl_result poll_wakeups(void)
{
	const struct watch_notification *n;
	struct timespec t0, t1;
	struct ring_q q;
	short ev;
	pid_t pid;
	int fd, status;

	fd = open("/dev/watch_queue", O_RDWR | O_CLOEXEC);
	WL_EXPECT(fd >= 0, "open /dev/watch_queue: %s", strerror(errno));
	ev = poll_once(fd, 0);
	close(fd);
	WL_EXPECT(ev == POLLERR, "poll on an unsized ring: revents %#x, want POLLERR", ev);

	WL_EXPECT(ring_q_open(&q, 1, "wl-ring-poll") == 0, "could not set up the ring");
	ev = poll_once(q.fd, 50);
	WL_EXPECT(ev == 0, "poll on an empty ring: revents %#x, want none", ev);

	pid = fork();
	WL_EXPECT(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		usleep(200 * 1000);
		_exit(post(q.key) ? 1 : 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ev = poll_once(q.fd, 10000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	waitpid(pid, &status, 0);
	WL_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the posting child failed");
	WL_EXPECT(ev == POLLIN, "poll woke with revents %#x, want POLLIN", ev);
	wl_diag("poll woke %ld ms after it began waiting (the post came at about 200 ms)",
		(t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
	WL_EXPECT(wl_ring_peek(&q.r, &n) == 1, "POLLIN but no record");
	wl_ring_advance(&q.r, n);
	ev = poll_once(q.fd, 0);
	WL_EXPECT(ev == 0, "poll after consuming: revents %#x, want none", ev);

	/* An invalid tail is POLLERR (and POLLIN: head differs from it). */
	wl_ring_set_tail(&q.r, head_of(&q) + 1);
	ev = poll_once(q.fd, 0);
	WL_EXPECT(ev & POLLERR, "tail ahead of head: revents %#x, want POLLERR", ev);
	wl_ring_set_tail(&q.r, (head_of(&q) & ~(q.r.size - 1)) + 1);
	ev = poll_once(q.fd, 0);
	WL_EXPECT(ev & POLLERR, "tail inside the meta slots: revents %#x, want POLLERR", ev);
	wl_ring_set_tail(&q.r, head_of(&q));
	ev = poll_once(q.fd, 0);
	WL_EXPECT(ev == 0, "tail put right: revents %#x, want none", ev);
	ring_q_close(&q);
	return WL_PASS;
}

struct filter1 {
	struct watch_notification_filter f;
	struct watch_notification_type_filter t[2];
};

static int set_filter(int fd, const struct filter1 *f)
{
	return ioctl(fd, IOC_WATCH_QUEUE_SET_FILTER, f);
}

/* Subtype filters, unknown types ignored (CVE-2022-0995), filter removal. */
static enum wl_result filters(void)
{
	struct filter1 only_update = {
		.f.nr_filters = 1,
		.t[0] = { .type = WATCH_TYPE_KEY_NOTIFY,
			  .subtype_filter[0] = 1U << NOTIFY_KEY_UPDATED },
	};
	struct filter1 unknown = {
		.f.nr_filters = 2,
		.t[0] = { .type = WATCH_TYPE__NR, .subtype_filter[0] = ~0U },
		.t[1] = { .type = 0xffffffff, .subtype_filter[0] = ~0U },
	};
	const struct watch_notification *n;
	struct ring_q q;

	WL_EXPECT(ring_q_open(&q, 1, "wl-ring-filter") == 0, "could not set up the ring");
	WL_EXPECT(set_filter(q.fd, &only_update) == 0, "SET_FILTER: %s", strerror(errno));
	WL_EXPECT(post(q.key) == 0, "setperm failed");
	WL_EXPECT(keyctl_update(q.key, "y", 1) == 0, "keyctl_update: %s", strerror(errno));
	WL_EXPECT(wl_ring_peek(&q.r, &n) == 1, "the UPDATED record did not pass the filter");
	WL_EXPECT(n->type == WATCH_TYPE_KEY_NOTIFY && n->subtype == NOTIFY_KEY_UPDATED,
		  "got type %u subtype %u, want only KEY/UPDATED through the filter",
		  n->type, n->subtype);
	wl_ring_advance(&q.r, n);
	WL_EXPECT(wl_ring_peek(&q.r, &n) == 0, "a filtered-out record arrived");

	/* Types at or above WATCH_TYPE__NR are ignored, never a bit index. */
	WL_EXPECT(set_filter(q.fd, &unknown) == 0,
		  "SET_FILTER with unknown types: %s, want success", strerror(errno));
	WL_EXPECT(post(q.key) == 0, "setperm failed");
	WL_EXPECT(wl_ring_peek(&q.r, &n) == 0,
		  "a filter of only unknown types let type %u through", n->type);

	WL_EXPECT(ioctl(q.fd, IOC_WATCH_QUEUE_SET_FILTER, NULL) == 0,
		  "removing the filter: %s", strerror(errno));
	WL_EXPECT(post(q.key) == 0, "setperm failed");
	WL_EXPECT(wl_ring_peek(&q.r, &n) == 1 && check_key_rec(n, q.key, false,
				"after removing the filter") == 0,
		  "no record after removing the filter");
	ring_q_close(&q);
	return WL_PASS;
}

/* Every bad filter gets the same errno on the ring and on the pipe. */
static enum wl_result bad_filter_errnos(void)
{
	static const struct {
		const char *what;
		unsigned int nr, reserved, info_filter, info_mask;
		int err;
	} cases[] = {
		{ "no filters", 0, 0, 0, 0, EINVAL },
		{ "17 filters", 17, 0, 0, 0, EINVAL },
		{ "reserved set", 1, 1, 0, 0, EINVAL },
		{ "info_filter outside info_mask", 1, 0, 0x10000, 0, EINVAL },
		{ "info_mask on the length", 1, 0, 0, WATCH_INFO_LENGTH, EINVAL },
	};
	struct {
		struct watch_notification_filter f;
		struct watch_notification_type_filter t[17];
	} spec;

	for (int t = 0; t < WL_TRANSPORT_NR; t++) {
		int fd = wl_queue_open(t, 4);

		WL_EXPECT(fd >= 0, "could not open a %s queue", wl_transport_name(t));
		for (size_t i = 0; i < WL_ARRAY_SIZE(cases); i++) {
			memset(&spec, 0, sizeof(spec));
			spec.f.nr_filters = cases[i].nr;
			spec.f.__reserved = cases[i].reserved;
			spec.t[0].type = WATCH_TYPE_KEY_NOTIFY;
			spec.t[0].info_filter = cases[i].info_filter;
			spec.t[0].info_mask = cases[i].info_mask;
			errno = 0;
			WL_EXPECT(ioctl(fd, IOC_WATCH_QUEUE_SET_FILTER, &spec) == -1 &&
				  errno == cases[i].err,
				  "%s: SET_FILTER with %s: %s, want %s", wl_transport_name(t),
				  cases[i].what, strerror(errno), strerror(cases[i].err));
		}
		errno = 0;
		WL_EXPECT(ioctl(fd, IOC_WATCH_QUEUE_SET_FILTER, (void *)8) == -1 &&
			  errno == EFAULT, "%s: SET_FILTER from a bad address: %s, want EFAULT",
			  wl_transport_name(t), strerror(errno));
		wl_wq_close(fd);
	}
	return WL_PASS;
}

static int mmap_errno(int fd, size_t len, int prot, int flags, off_t off)
{
	void *p = mmap(NULL, len, prot, flags, fd, off);

	if (p != MAP_FAILED) {
		munmap(p, len);
		return 0;
	}
	return errno;
}

/* Every bad size, mmap and ioctl argument gets its documented errno. */
static enum wl_result bad_size_and_mmap_errnos(void)
{
	static const unsigned long bad_sizes[] = { 0, 3, 6, 17, 32, 1UL << 31, ~0UL };
	size_t pg = page_size();
	char c;
	void *p;
	int fd, e;

	fd = open("/dev/watch_queue", O_RDWR | O_CLOEXEC);
	WL_EXPECT(fd >= 0, "open /dev/watch_queue: %s", strerror(errno));
	e = mmap_errno(fd, pg, PROT_READ, MAP_SHARED, 0);
	WL_EXPECT(e == ENOBUFS, "mmap before SET_SIZE: %s, want ENOBUFS", strerror(e));
	for (size_t i = 0; i < WL_ARRAY_SIZE(bad_sizes); i++) {
		errno = 0;
		WL_EXPECT(ioctl(fd, IOC_WATCH_QUEUE_SET_SIZE, bad_sizes[i]) == -1 &&
			  errno == EINVAL, "SET_SIZE(%lu pages): %s, want EINVAL",
			  bad_sizes[i], strerror(errno));
	}
	WL_EXPECT(ioctl(fd, IOC_WATCH_QUEUE_SET_SIZE, 2) == 0, "SET_SIZE(2): %s",
		  strerror(errno));
	errno = 0;
	WL_EXPECT(ioctl(fd, IOC_WATCH_QUEUE_SET_SIZE, 2) == -1 && errno == EBUSY,
		  "second SET_SIZE(2): %s, want EBUSY", strerror(errno));
	errno = 0;
	WL_EXPECT(ioctl(fd, IOC_WATCH_QUEUE_SET_SIZE, 4) == -1 && errno == EBUSY,
		  "second SET_SIZE(4): %s, want EBUSY", strerror(errno));
	errno = 0;
	WL_EXPECT(ioctl(fd, _IO('W', 0x62), 0) == -1 && errno == ENOTTY,
		  "unknown ioctl: %s, want ENOTTY", strerror(errno));

	e = mmap_errno(fd, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, 0);
	WL_EXPECT(e == EINVAL, "MAP_PRIVATE: %s, want EINVAL", strerror(e));
	e = mmap_errno(fd, pg, PROT_READ, MAP_SHARED, pg);
	WL_EXPECT(e == EINVAL, "offset one page: %s, want EINVAL", strerror(e));
	e = mmap_errno(fd, 3 * pg, PROT_READ, MAP_SHARED, 0);
	WL_EXPECT(e == EINVAL, "three pages of a two-page ring: %s, want EINVAL", strerror(e));
	e = mmap_errno(fd, pg, PROT_READ | PROT_EXEC, MAP_SHARED, 0);
	WL_EXPECT(e == EPERM, "PROT_EXEC: %s, want EPERM", strerror(e));
	e = mmap_errno(fd, pg, PROT_READ, MAP_SHARED, 0);
	WL_EXPECT(e == 0, "one page of a two-page ring: %s, want success", strerror(e));

	p = mmap(NULL, 2 * pg, PROT_READ, MAP_SHARED, fd, 0);
	WL_EXPECT(p != MAP_FAILED, "mmap two pages: %s", strerror(errno));
	errno = 0;
	WL_EXPECT(mprotect(p, 2 * pg, PROT_READ | PROT_EXEC) == -1 && errno == EACCES,
		  "mprotect(PROT_EXEC): %s, want EACCES", strerror(errno));
	errno = 0;
	WL_EXPECT(mremap(p, 2 * pg, 4 * pg, 0) == MAP_FAILED,
		  "mremap grew the ring mapping past the ring");
	munmap(p, 2 * pg);
	errno = 0;
	WL_EXPECT(read(fd, &c, 1) == -1 && errno == EINVAL,
		  "read() on the ring: %s, want EINVAL", strerror(errno));
	close(fd);
	return WL_PASS;
}

/* Post and read back through a ring whose mapping was dropped and redone. */
static enum wl_result munmap_then_post(void)
{
	const struct watch_notification *n;
	struct ring_q q;

	WL_EXPECT(ring_q_open(&q, 1, "wl-ring-munmap") == 0, "could not set up the ring");
	wl_ring_unmap(&q.r);
	WL_EXPECT(post(q.key) == 0 && post(q.key) == 0, "post without a mapping failed");
	WL_EXPECT(wl_ring_map(&q.r, q.fd, page_size()) == 0, "mmap again: %s",
		  strerror(errno));
	for (int i = 0; i < 2; i++) {
		WL_EXPECT(wl_ring_peek(&q.r, &n) == 1 &&
			  check_key_rec(n, q.key, false, "posted while unmapped") == 0,
			  "record %d posted while unmapped is missing", i);
		wl_ring_advance(&q.r, n);
	}
	ring_q_close(&q);
	return WL_PASS;
}

/* Two mappings of one queue see the same records and the same tail. */
static enum wl_result two_mappings(void)
{
	const struct watch_notification *n;
	struct wl_ring second;
	struct ring_q q;

	WL_EXPECT(ring_q_open(&q, 2, "wl-ring-two") == 0, "could not set up the ring");
	WL_EXPECT(wl_ring_map(&second, q.fd, 2 * page_size()) == 0, "second mmap: %s",
		  strerror(errno));
	WL_EXPECT((void *)second.buf != (void *)q.r.buf, "the two mappings are one");
	WL_EXPECT(post(q.key) == 0, "post failed");
	WL_EXPECT(wl_ring_peek(&second, &n) == 1 &&
		  check_key_rec(n, q.key, false, "second mapping") == 0,
		  "the record is not visible through the second mapping");
	wl_ring_advance(&second, n);
	WL_EXPECT(wl_ring_tail(&q.r) == wl_ring_head(&q.r),
		  "the tail moved in one mapping (%u) but not the other (%u)",
		  wl_ring_tail(&second), wl_ring_tail(&q.r));
	wl_ring_unmap(&second);
	ring_q_close(&q);
	return WL_PASS;
}

/* A child inherits the mapping: it consumes, the parent sees it. */
static enum wl_result fork_while_mapped(void)
{
	const struct watch_notification *n;
	struct ring_q q;
	int status;
	pid_t pid;

	WL_EXPECT(ring_q_open(&q, 1, "wl-ring-fork") == 0, "could not set up the ring");
	WL_EXPECT(post(q.key) == 0, "post before fork failed");
	pid = fork();
	WL_EXPECT(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		int bad = post(q.key) != 0;

		for (int i = 0; i < 2 && !bad; i++) {
			if (wl_ring_peek(&q.r, &n) != 1 ||
			    check_key_rec(n, q.key, false, "in the child"))
				bad = 1;
			else
				wl_ring_advance(&q.r, n);
		}
		_exit(bad);
	}
	WL_EXPECT(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		  WEXITSTATUS(status) == 0,
		  "the child could not read both records through its mapping");
	WL_EXPECT(wl_ring_peek(&q.r, &n) == 0 && wl_ring_tail(&q.r) == wl_ring_head(&q.r),
		  "the child's consumption is not visible to the parent (tail %u head %u)",
		  wl_ring_tail(&q.r), wl_ring_head(&q.r));
	WL_EXPECT(post(q.key) == 0, "post after the child exited failed");
	WL_EXPECT(wl_ring_peek(&q.r, &n) == 1, "no record after the child exited");
	ring_q_close(&q);
	return WL_PASS;
}

/*
 * Closing a queue with active watches removes them: with RLIMIT_NOFILE
 * (the per-user watch limit) at 16, 200 queues opened, watched and closed
 * in turn must all be allowed their watch.
 */
static int open_watch_close(void *arg)
{
	key_serial_t key = *(key_serial_t *)arg;
	struct rlimit rl = { 16, 16 };

	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		wl_diag("setrlimit(NOFILE, 16): %s", strerror(errno));
		return 1;
	}
	for (int i = 0; i < 200; i++) {
		int fd = open("/dev/watch_queue", O_RDWR | O_CLOEXEC);

		if (fd < 0 || ioctl(fd, IOC_WATCH_QUEUE_SET_SIZE, 1)) {
			wl_diag("queue %d: open/SET_SIZE: %s", i, strerror(errno));
			return 1;
		}
		if (watch_key_retry(key, fd, 1)) {
			wl_diag("queue %d: KEYCTL_WATCH_KEY: %s (closed queues' watches not released?)",
				i, strerror(errno));
			return 1;
		}
		if (post(key))
			return 1;
		close(fd);
	}
	return 0;
}

static enum wl_result close_with_active_watches(void)
{
	struct wl_creds user = wl_user(1000);
	key_serial_t key;

	key = add_key("user", "wl-ring-close", "x", 1, KEY_SPEC_PROCESS_KEYRING);
	WL_EXPECT(key > 0, "add_key: %s", strerror(errno));
	WL_EXPECT(keyctl_chown(key, 1000, 1000) == 0 && keyctl_setperm(key, KEY_PERM) == 0,
		  "chown/setperm: %s", strerror(errno));
	WL_EXPECT(wl_run_as(&user, open_watch_close, &key) == 0,
		  "closing queues did not release their watches");
	keyctl_invalidate(key);
	return WL_PASS;
}

/*
 * Close while posting: a child posts to a key without pause while the
 * parent opens rings, watches the key, maps, and closes them (half of them
 * unmapped first).  Under KASAN this is the CVE-2022-1882 pattern: a post
 * racing with the queue's release.
 */
static enum wl_result close_while_posting(void)
{
	unsigned long rounds = wl_scale(2000);
	key_serial_t key;
	int status;
	pid_t pid;

	key = add_key("user", "wl-ring-race", "x", 1, KEY_SPEC_PROCESS_KEYRING);
	WL_EXPECT(key > 0 && keyctl_setperm(key, KEY_PERM) == 0, "add_key: %s",
		  strerror(errno));
	pid = fork();
	WL_EXPECT(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		for (;;)
			if (keyctl_setperm(key, KEY_PERM))
				_exit(1);
	}
	for (unsigned long i = 0; i < rounds; i++) {
		struct wl_ring r;
		int fd = open("/dev/watch_queue", O_RDWR | O_CLOEXEC);

		if (fd < 0 || ioctl(fd, IOC_WATCH_QUEUE_SET_SIZE, 1) ||
		    watch_key_retry(key, fd, i & 0xff) || wl_ring_map(&r, fd, page_size())) {
			wl_diag("round %lu: open/size/watch/map: %s", i, strerror(errno));
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return WL_FAIL;
		}
		if (i & 1)
			wl_ring_unmap(&r);
		close(fd);
		if (!(i & 1))
			wl_ring_unmap(&r);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	WL_EXPECT(WIFSIGNALED(status), "the posting child stopped early (status %#x)", status);
	wl_diag("%lu rings opened, watched and closed under a stream of posts", rounds);
	keyctl_invalidate(key);
	return WL_PASS;
}

/* xorshift64*: the fuzz's states are reproducible from the seed it prints. */
static uint64_t rnd_state;

static uint32_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return (uint32_t)((rnd_state * 0x2545f4914f6cdd1dULL) >> 32);
}

/* The kernel's documented posting rule, for one two-slot record. */
struct ring_model {
	unsigned int head, size;
	bool overrun;
};

/* Apply one post to img (a copy of the ring) as the kernel must. */
static void model_post(struct ring_model *m, unsigned char *img, unsigned int tail,
		       key_serial_t key)
{
	struct watch_notification *slots = (void *)img;
	struct watch_queue_buffer *b = (void *)img;
	unsigned int h = m->head & (m->size - 1), t = tail & (m->size - 1);
	unsigned int need = KEY_REC_SLOTS, pad = 0;
	struct key_notification kn = {
		.watch.type = WATCH_TYPE_KEY_NOTIFY,
		.watch.subtype = NOTIFY_KEY_SETATTR,
		.watch.info = KEY_REC_LEN | WATCH_ID << WATCH_INFO_ID__SHIFT,
		.key_id = key,
	};

	if (m->head - tail > m->size || (t != 0 && t < META_SLOTS)) {
		m->overrun = true;
		return;
	}
	if (h + KEY_REC_SLOTS > m->size) {
		pad = m->size - h;
		need += pad + META_SLOTS;
	} else if (h == 0) {
		need += META_SLOTS;
	}
	if (m->head - tail + need > m->size) {
		m->overrun = true;
		return;
	}
	if (pad) {
		struct watch_notification skip = { WATCH_TYPE_META,
			WATCH_META_SKIP_NOTIFICATION, pad * WL_RING_SLOT };

		memcpy(&slots[h], &skip, sizeof(skip));
		h = 0;
	}
	if (h == 0) {
		struct watch_notification skip = { WATCH_TYPE_META,
			WATCH_META_SKIP_NOTIFICATION, META_SLOTS * WL_RING_SLOT };

		memcpy(&b->meta.watch, &skip, sizeof(skip));
		b->meta.mask = m->size - 1;
		h = META_SLOTS;
	}
	if (m->overrun)
		kn.watch.info |= WATCH_INFO_OVERRUN;
	m->overrun = false;
	memcpy(&slots[h], &kn, sizeof(kn));
	m->head += need;
	b->meta.head = m->head;
}

/* Write one hostile state into the ring's meta slots; returns the tail. */
static unsigned int hostile_state(struct wl_ring *r, const struct ring_model *m,
				  unsigned long i)
{
	struct watch_queue_buffer *b = r->buf;
	unsigned int base = m->head & ~(m->size - 1), tail;

	switch (i < 16 ? i : rnd() % 16) {
	case 0: tail = 0xffffffff; break;			/* huge */
	case 1: tail = 0x80000000; break;
	case 2: tail = base + 1; break;				/* inside meta */
	case 3: tail = base + META_SLOTS - 1; break;
	case 4: tail = m->head + 1; break;			/* ahead of head */
	case 5: tail = m->head - m->size - 1; break;		/* too far behind */
	case 6: tail = m->head - 1; break;			/* mid-record */
	case 7: tail = m->head - m->size; break;		/* exactly full */
	case 8: tail = rnd(); break;				/* anything */
	default: tail = m->head - rnd() % (m->size + 1); break;	/* valid: 7 in 16 */
	}
	if (i < 16 || rnd() % 4 == 0) {
		/* Garbage over the header, the head and the mask. */
		uint32_t g[3] = { rnd(), rnd(), rnd() };

		memcpy(&b->meta.watch, g, sizeof(b->meta.watch));
		b->meta.head = g[2];
		b->meta.mask = i == 9 ? 0 : i == 10 ? 0xffffffff : rnd();
	}
	b->meta.tail = tail;
	return tail;
}

/*
 * Hostile meta slots: for each state, write a tail (huge, inside the meta
 * slots, ahead of the head, too far behind, mid-record, valid) and often
 * garbage over the header, head and mask, post one record, and compare the
 * whole ring with what the documented rule says the kernel writes: the
 * record (with the overrun flag if records were lost), the padding and the
 * meta record when wrapping, the head; or nothing at all.  Any other byte
 * changed is a failure; a write outside the ring is KASAN's (debug boot).
 */
static enum wl_result hostile_meta_slots(void)
{
	unsigned long states = 100000, posted = 0;
	struct ring_model m = { .head = META_SLOTS };
	unsigned char *want, *before;
	struct timespec t0, t1;
	struct ring_q q;
	uint64_t seed;
	double secs;

	clock_gettime(CLOCK_REALTIME, &t0);
	seed = (uint64_t)t0.tv_nsec * 2654435761ULL + (uint64_t)t0.tv_sec;
	rnd_state = seed | 1;
	WL_EXPECT(ring_q_open(&q, 1, "wl-ring-fuzz") == 0, "could not set up the ring");
	m.size = q.r.size;
	want = malloc(q.r.map_len);
	before = malloc(q.r.map_len);
	WL_EXPECT(want && before, "out of memory");
	wl_diag("seed %#llx, %lu states on a %u-slot ring", (unsigned long long)seed,
		states, m.size);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned long i = 0; i < states; i++) {
		unsigned int old_head = m.head, tail = hostile_state(&q.r, &m, i);

		memcpy(before, q.r.buf, q.r.map_len);
		memcpy(want, before, q.r.map_len);
		model_post(&m, want, tail, q.key);
		WL_EXPECT(post(q.key) == 0, "state %lu: post failed", i);
		if (memcmp(want, q.r.buf, q.r.map_len)) {
			const unsigned char *got = (const void *)q.r.buf;
			size_t off = 0;

			while (want[off] == got[off])
				off++;
			wl_diag("state %lu: tail %#x head %#x -> %#x: first difference at byte %zu (slot %zu): want %#x got %#x (was %#x)",
				i, tail, old_head, m.head, off, off / WL_RING_SLOT,
				want[off], got[off], before[off]);
			return WL_FAIL;
		}
		posted += m.head != old_head;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	wl_diag("%lu states, %lu records written, %lu refused; ring exactly as specified",
		states, posted, states - posted);
	wl_diag("BENCH ring_hostile_fuzz states=%lu seconds=%.2f us_per_state=%.1f debug=%d",
		states, secs, secs * 1e6 / states, wl_debug_kernel());
	WL_EXPECT(posted > states / 10 && posted < states,
		  "the states never or always left room (%lu of %lu written)", posted, states);
	free(want);
	free(before);
	ring_q_close(&q);
	return WL_PASS;
}

/* Queues for the benchmark: nq of one transport, all watching key. */
struct bench_q {
	int fd, wfd;
	struct wl_ring r;
};

static int bench_open(struct bench_q *b, enum wl_transport t, key_serial_t key)
{
	int fds[2];

	b->r.buf = NULL;
	b->wfd = -1;
	if (t == WL_TRANSPORT_PIPE) {
		if (pipe2(fds, O_NOTIFICATION_PIPE | O_NONBLOCK | O_CLOEXEC) ||
		    ioctl(fds[0], IOC_WATCH_QUEUE_SET_SIZE, 256))
			return -1;
		b->fd = fds[0];
		b->wfd = fds[1];
	} else {
		b->fd = open("/dev/watch_queue", O_RDWR | O_CLOEXEC);
		if (b->fd < 0 || ioctl(b->fd, IOC_WATCH_QUEUE_SET_SIZE, 2) ||
		    wl_ring_map(&b->r, b->fd, 2 * page_size()))
			return -1;
	}
	return keyctl_watch_key(key, b->fd, 1) ? -1 : 0;
}

static void bench_close(struct bench_q *b)
{
	wl_ring_unmap(&b->r);
	close(b->fd);
	if (b->wfd >= 0)
		close(b->wfd);
}

/* Consume every record in b; the number consumed, or -1. */
static long bench_drain(struct bench_q *b, enum wl_transport t)
{
	const struct watch_notification *n;
	unsigned char buf[4096];
	long got = 0;
	ssize_t len;

	if (t == WL_TRANSPORT_RING) {
		while (wl_ring_peek(&b->r, &n) == 1) {
			got += n->type == WATCH_TYPE_KEY_NOTIFY;
			wl_ring_advance(&b->r, n);
		}
		return got;
	}
	while ((len = read(b->fd, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < len; ) {
			struct watch_notification h;

			memcpy(&h, buf + off, sizeof(h));
			if ((h.info & WATCH_INFO_LENGTH) < sizeof(h)) {
				errno = EPROTO;
				return -1;
			}
			got += h.type == WATCH_TYPE_KEY_NOTIFY;
			off += h.info & WATCH_INFO_LENGTH;
		}
	}
	return len < 0 && errno != EAGAIN ? -1 : got;
}

/* What one transport with nq queues measured, in TSC cycles. */
struct bench_res {
	enum wl_transport t;
	unsigned int nq;
	unsigned long events;
	uint64_t post_cyc, drain_cyc;
};

/*
 * Post events in batches of 64 to nq queues of one transport and drain
 * them after each batch, timing the posting (the same source for both) and
 * the consumer apart.  The lab kernel's clock is jiffies (4 ms), so the
 * intervals are measured with the TSC and converted afterwards.
 */
static int bench_one(struct bench_res *res, key_serial_t key)
{
	struct bench_q q[64];
	unsigned long got = 0;
	uint64_t t0;

	res->events = (res->events + 63) / 64 * 64;
	res->post_cyc = res->drain_cyc = 0;
	for (unsigned int i = 0; i < res->nq; i++)
		if (bench_open(&q[i], res->t, key)) {
			wl_diag("bench: %s queue %u: %s", wl_transport_name(res->t), i,
				strerror(errno));
			return -1;
		}
	for (unsigned long done = 0; done < res->events; done += 64) {
		t0 = __rdtsc();
		for (int i = 0; i < 64; i++)
			if (post(key))
				return -1;
		res->post_cyc += __rdtsc() - t0;
		t0 = __rdtsc();
		for (unsigned int i = 0; i < res->nq; i++) {
			long n = bench_drain(&q[i], res->t);

			if (n < 0) {
				wl_diag("bench: draining %s queue %u: %s",
					wl_transport_name(res->t), i, strerror(errno));
				return -1;
			}
			got += n;
		}
		res->drain_cyc += __rdtsc() - t0;
	}
	for (unsigned int i = 0; i < res->nq; i++)
		bench_close(&q[i]);
	if (got != res->events * res->nq) {
		wl_diag("bench: %s x%u: %lu of %lu records consumed",
			wl_transport_name(res->t), res->nq, got, res->events * res->nq);
		return -1;
	}
	return 0;
}

/*
 * Pipe against ring on the same events, with 1, 8 and 64 watching queues:
 * posting cost per event (into all the queues), consumer cost per record
 * and the consumer's throughput.  Figures only, no pass/fail on them.
 */
static enum wl_result bench_ring_vs_pipe(void)
{
	static const unsigned int nqs[] = { 1, 8, 64 };
	struct bench_res res[WL_ARRAY_SIZE(nqs) * WL_TRANSPORT_NR];
	double t0 = wl_now_s(), ns_per_cyc;
	uint64_t c0 = __rdtsc();
	key_serial_t key;
	size_t n = 0;

	key = add_key("user", "wl-ring-bench", "x", 1, KEY_SPEC_PROCESS_KEYRING);
	WL_EXPECT(key > 0 && keyctl_setperm(key, KEY_PERM) == 0, "add_key: %s",
		  strerror(errno));
	for (size_t i = 0; i < WL_ARRAY_SIZE(nqs); i++) {
		for (int t = 0; t < WL_TRANSPORT_NR; t++, n++) {
			res[n] = (struct bench_res){ .t = t, .nq = nqs[i],
				.events = wl_scale(nqs[i] > 8 ? 2048 : 16384) };
			WL_EXPECT(bench_one(&res[n], key) == 0,
				  "benchmark of %s with %u queues failed",
				  wl_transport_name(t), nqs[i]);
		}
	}
	ns_per_cyc = (wl_now_s() - t0) * 1e9 / (double)(__rdtsc() - c0);
	for (size_t i = 0; i < n; i++) {
		double post_ns = res[i].post_cyc * ns_per_cyc / res[i].events;
		double cons_ns = res[i].drain_cyc * ns_per_cyc / (res[i].events * res[i].nq);

		wl_diag("BENCH ring_vs_pipe transport=%s queues=%u events=%lu post_ns_per_event=%.0f consume_ns_per_record=%.1f consume_records_per_s=%.0f",
			wl_transport_name(res[i].t), res[i].nq, res[i].events, post_ns,
			cons_ns, 1e9 / cons_ns);
	}
	keyctl_invalidate(key);
	return WL_PASS;
}

static const struct wl_test tests[] = {
	{ "record_layout", record_layout },
	{ "wrap_with_skip_record", wrap_with_skip_record },
	{ "overrun_flag_after_full", overrun_flag_after_full },
	{ "poll_wakeups", poll_wakeups },
	{ "filters", filters },
	{ "bad_filter_errnos", bad_filter_errnos },
	{ "bad_size_and_mmap_errnos", bad_size_and_mmap_errnos },
	{ "munmap_then_post", munmap_then_post },
	{ "two_mappings", two_mappings },
	{ "fork_while_mapped", fork_while_mapped },
	{ "close_with_active_watches", close_with_active_watches },
	{ "close_while_posting", close_while_posting },
	{ "hostile_meta_slots", hostile_meta_slots },
	{ "bench_ring_vs_pipe", bench_ring_vs_pipe },
};

WL_SUITE(suite_ring, tests);
