// SPDX-License-Identifier: GPL-2.0
/*
 * wq.c - notification queues on either transport: open one, read records.
 *
 * The pipe transport (6.12):
 * read(2) on a notification pipe returns whole records, as many as fit, so
 * each open queue keeps the bytes it has read but not yet handed out.
 *
 * 6.12's pipe_poll() does not report a pending loss record: the kernel flags
 * loss on the last buffer and pipe_read() inserts the META loss record on
 * the read after that buffer is consumed, even with the pipe empty.  So the
 * pipe is non-blocking and, when poll() times out, one more read() collects
 * a loss record a poll-only consumer would never see.
 *
 * The ring transport (/dev/watch_queue): the queue's ring is mapped once;
 * after poll() says POLLIN, the records are copied out of the ring with
 * ring.h and handed out like the pipe's, with no system call per record.
 * A loss shows as WATCH_INFO_OVERRUN on the next record, not as a record.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
/* glibc's <fcntl.h> already defines what <linux/fcntl.h> would redefine. */
#define _LINUX_FCNTL_H
#include <linux/watch_queue.h>

#include "ring.h"
#include "wl.h"

#define WL_MAX_QUEUES 64

struct wq_buf {
	int fd;			/* read end, -1 when the slot is free */
	int wfd;		/* pipe: write end, kept open for the queue's life */
	struct wl_ring ring;	/* ring: the mapping (buf NULL for a pipe) */
	size_t len, off;
	unsigned char data[4096];
};

static struct wq_buf queues[WL_MAX_QUEUES] = {
	[0 ... WL_MAX_QUEUES - 1] = { .fd = -1, .wfd = -1 },
};

static struct wq_buf *wq_find(int fd)
{
	for (int i = 0; i < WL_MAX_QUEUES; i++)
		if (queues[i].fd == fd)
			return &queues[i];
	return NULL;
}

int wl_notification_pipe(unsigned int nslots, int *wfd)
{
	int fds[2];

	if (pipe2(fds, O_NOTIFICATION_PIPE | O_CLOEXEC | O_NONBLOCK)) {
		wl_diag("pipe2(O_NOTIFICATION_PIPE): %s", strerror(errno));
		return -1;
	}
	if (ioctl(fds[0], IOC_WATCH_QUEUE_SET_SIZE, nslots)) {
		wl_diag("IOC_WATCH_QUEUE_SET_SIZE(%u): %s", nslots, strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (wfd)
		*wfd = fds[1];
	else
		close(fds[1]);
	return fds[0];
}

int wl_wq_open(unsigned int nslots)
{
	struct wq_buf *q = wq_find(-1);
	int rfd, wfd;

	if (!q) {
		wl_diag("wl_wq_open: more than %d queues open", WL_MAX_QUEUES);
		return -1;
	}
	rfd = wl_notification_pipe(nslots, &wfd);
	if (rfd < 0)
		return -1;
	q->fd = rfd;
	q->wfd = wfd;
	q->ring.buf = NULL;
	q->len = q->off = 0;
	return rfd;
}

/* Pages for a ring of nrecords records of the largest size, a power of two. */
static unsigned int ring_pages(unsigned int nrecords)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t bytes = sizeof(((struct watch_queue_buffer *)0)->meta) +
		       (size_t)nrecords * (WATCH_INFO_LENGTH + 1);
	unsigned int pages = 1;

	while (pages < 16 && pages * page < bytes)
		pages *= 2;
	return pages;
}

static int ring_open(unsigned int nrecords)
{
	struct wq_buf *q = wq_find(-1);
	unsigned int pages = ring_pages(nrecords);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int fd;

	if (!q) {
		wl_diag("wl_queue_open: more than %d queues open", WL_MAX_QUEUES);
		return -1;
	}
	fd = open("/dev/watch_queue", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		wl_diag("open /dev/watch_queue: %s", strerror(errno));
		return -1;
	}
	if (ioctl(fd, IOC_WATCH_QUEUE_SET_SIZE, pages)) {
		wl_diag("IOC_WATCH_QUEUE_SET_SIZE(%u pages) on the ring: %s",
			pages, strerror(errno));
		close(fd);
		return -1;
	}
	if (wl_ring_map(&q->ring, fd, pages * page)) {
		wl_diag("mmap of a %u-page ring: %s", pages, strerror(errno));
		close(fd);
		return -1;
	}
	q->fd = fd;
	q->wfd = -1;
	q->len = q->off = 0;
	return fd;
}

const char *wl_transport_name(enum wl_transport t)
{
	static const char *const names[WL_TRANSPORT_NR] = {
		[WL_TRANSPORT_PIPE] = "pipe",
		[WL_TRANSPORT_RING] = "ring",
	};

	return t < WL_TRANSPORT_NR ? names[t] : "?";
}

int wl_queue_open(enum wl_transport t, unsigned int nrecords)
{
	switch (t) {
	case WL_TRANSPORT_PIPE:
		return wl_wq_open(nrecords);
	case WL_TRANSPORT_RING:
		return ring_open(nrecords);
	default:
		wl_diag("wl_queue_open: transport %s is not built yet",
			wl_transport_name(t));
		errno = ENOSYS;
		return -1;
	}
}

void wl_wq_close(int fd)
{
	struct wq_buf *q = wq_find(fd);

	if (q && q->ring.buf)
		wl_ring_unmap(&q->ring);
	close(fd);
	if (q) {
		if (q->wfd >= 0)
			close(q->wfd);
		q->fd = q->wfd = -1;
	}
}

/* Copy what the ring holds into q->data, as many whole records as fit. */
static int ring_fill(struct wq_buf *q, int timeout_ms)
{
	struct pollfd pfd = { .fd = q->fd, .events = POLLIN };
	int n;

	if (poll(&pfd, 1, timeout_ms) < 0) {
		wl_diag("poll on notification ring: %s", strerror(errno));
		return -1;
	}
	if (pfd.revents & POLLERR) {
		wl_diag("poll on notification ring: POLLERR (tail %u, head %u)",
			wl_ring_tail(&q->ring), wl_ring_head(&q->ring));
		return -1;
	}
	q->len = q->off = 0;
	while (sizeof(q->data) - q->len > WATCH_INFO_LENGTH) {
		n = wl_ring_read(&q->ring, q->data + q->len, sizeof(q->data) - q->len);
		if (n < 0) {
			wl_diag("corrupt record in the ring at tail %u (head %u)",
				wl_ring_tail(&q->ring), wl_ring_head(&q->ring));
			return -1;
		}
		if (n == 0)
			break;
		q->len += n;
	}
	return q->len > 0;
}

static int wq_fill(struct wq_buf *q, int timeout_ms)
{
	struct pollfd pfd = { .fd = q->fd, .events = POLLIN };
	ssize_t n;
	int r;

	r = poll(&pfd, 1, timeout_ms);
	if (r < 0) {
		wl_diag("poll on notification pipe: %s", strerror(errno));
		return -1;
	}
	n = read(q->fd, q->data, sizeof(q->data));
	if (n < 0 && errno == EAGAIN && r == 0)
		return 0;
	if (n < 0) {
		wl_diag("read notification pipe: %s", strerror(errno));
		return -1;
	}
	q->len = n;
	q->off = 0;
	return n > 0;
}

int wl_wq_read(int fd, struct wl_record *rec, int timeout_ms)
{
	struct wq_buf *q = wq_find(fd);
	struct watch_notification n;
	size_t len;
	int r;

	if (!q) {
		wl_diag("wl_wq_read: fd %d is not an open queue", fd);
		return -1;
	}
	if (q->off >= q->len) {
		r = q->ring.buf ? ring_fill(q, timeout_ms) : wq_fill(q, timeout_ms);
		if (r <= 0)
			return r;
	}
	if (q->len - q->off < sizeof(n)) {
		wl_diag("short record: %zu bytes left", q->len - q->off);
		return -1;
	}
	memcpy(&n, q->data + q->off, sizeof(n));
	len = n.info & WATCH_INFO_LENGTH;
	if (len < sizeof(n) || len > q->len - q->off || len > sizeof(rec->data)) {
		wl_diag("bad record length %zu (type %u subtype %u)", len,
			(unsigned int)n.type, (unsigned int)n.subtype);
		return -1;
	}
	memset(rec, 0, sizeof(*rec));
	rec->type = n.type;
	rec->subtype = n.subtype;
	rec->info = n.info;
	rec->len = len;
	rec->watch_id = (n.info & WATCH_INFO_ID) >> WATCH_INFO_ID__SHIFT;
	memcpy(rec->data, q->data + q->off, len);
	q->off += len;
	return 1;
}

int wl_wq_expect(int fd, unsigned int type, unsigned int subtype,
		 struct wl_record *rec, int timeout_ms)
{
	long end = wl_now_ms() + timeout_ms, left;
	int r;

	for (;;) {
		left = end - wl_now_ms();
		r = wl_wq_read(fd, rec, left > 0 ? (int)left : 0);
		if (r <= 0)
			return r;
		if (rec->type == type && rec->subtype == subtype)
			return 1;
		wl_diag("skipping record type %u subtype %u while waiting for %u/%u",
			rec->type, rec->subtype, type, subtype);
	}
}

int wl_wq_expect_none(int fd, const char *after, int timeout_ms)
{
	struct wl_record rec;
	int r = wl_wq_read(fd, &rec, timeout_ms);

	if (r > 0)
		wl_diag("unexpected record type %u subtype %u watch %#x after %s",
			rec.type, rec.subtype, rec.watch_id, after);
	return r == 0 ? 0 : -1;
}
