/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ring.h - a consumer of /dev/watch_queue's mmap'ed notification ring.
 *
 * The kernel writes records at the head and publishes the head with a
 * store-release; the reader loads the head with a load-acquire (so the
 * records before it are visible), reads records from its tail, and
 * publishes the tail with a store-release once it is done with them (so
 * the kernel never reuses slots the reader is still reading).  Indices are
 * in slots of sizeof(struct watch_notification) and run freely; the meta
 * record at the start of the ring and the padding at its end are
 * WATCH_META_SKIP_NOTIFICATION records, which the reader steps over.
 *
 *	struct wl_ring r;
 *	const struct watch_notification *n;
 *
 *	ioctl(fd, IOC_WATCH_QUEUE_SET_SIZE, nr_pages);
 *	wl_ring_map(&r, fd, nr_pages * page_size);
 *	while (wl_ring_peek(&r, &n) > 0) {
 *		... use n, (n->info & WATCH_INFO_LENGTH) bytes ...
 *		wl_ring_advance(&r, n);
 *	}
 *	wl_ring_unmap(&r);
 */
#ifndef WL_RING_H
#define WL_RING_H

#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/watch_queue.h>

struct wl_ring {
	struct watch_queue_buffer *buf;
	size_t map_len;		/* bytes mapped */
	unsigned int size;	/* slots in the ring */
};

#define WL_RING_SLOT sizeof(struct watch_notification)

/* Slots a record of len bytes takes. */
static inline unsigned int wl_ring_slots(unsigned int len)
{
	return (len + WL_RING_SLOT - 1) / WL_RING_SLOT;
}

/* Map a sized ring of len bytes (a power of two pages). 0, or -1 (errno). */
static inline int wl_ring_map(struct wl_ring *r, int fd, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		return -1;
	r->buf = p;
	r->map_len = len;
	r->size = len / WL_RING_SLOT;
	return 0;
}

static inline void wl_ring_unmap(struct wl_ring *r)
{
	if (r->buf)
		munmap(r->buf, r->map_len);
	r->buf = NULL;
}

/* The head, with acquire: the records before it are then readable. */
static inline unsigned int wl_ring_head(const struct wl_ring *r)
{
	return __atomic_load_n(&r->buf->meta.head, __ATOMIC_ACQUIRE);
}

static inline unsigned int wl_ring_tail(const struct wl_ring *r)
{
	return __atomic_load_n(&r->buf->meta.tail, __ATOMIC_RELAXED);
}

/* Give slots back to the kernel, with release: we are done reading them. */
static inline void wl_ring_set_tail(struct wl_ring *r, unsigned int tail)
{
	__atomic_store_n(&r->buf->meta.tail, tail, __ATOMIC_RELEASE);
}

/*
 * Point *n at the next record that is not a skip record, stepping the tail
 * over skip records.  1 with *n set, 0 if the ring is empty, -1 if the ring
 * holds a record that cannot be (zero length, or running past the end).
 */
static inline int wl_ring_peek(struct wl_ring *r,
			       const struct watch_notification **n)
{
	for (;;) {
		unsigned int head = wl_ring_head(r), tail = wl_ring_tail(r);
		unsigned int t = tail & (r->size - 1), len;
		const struct watch_notification *rec;

		if (head == tail)
			return 0;
		rec = &r->buf->slots[t];
		len = wl_ring_slots(rec->info & WATCH_INFO_LENGTH);
		if (len == 0 || t + len > r->size || head - tail < len)
			return -1;
		if (rec->type != WATCH_TYPE_META ||
		    rec->subtype != WATCH_META_SKIP_NOTIFICATION) {
			*n = rec;
			return 1;
		}
		wl_ring_set_tail(r, tail + len);
	}
}

/* Consume the record wl_ring_peek() returned. */
static inline void wl_ring_advance(struct wl_ring *r,
				   const struct watch_notification *n)
{
	wl_ring_set_tail(r, wl_ring_tail(r) +
			 wl_ring_slots(n->info & WATCH_INFO_LENGTH));
}

/*
 * Copy the next record into dst (at most dstlen bytes) and consume it.
 * Its length, 0 if the ring is empty, -1 if it is corrupt or too long.
 */
static inline int wl_ring_read(struct wl_ring *r, void *dst, size_t dstlen)
{
	const struct watch_notification *n;
	unsigned int len;
	int ret = wl_ring_peek(r, &n);

	if (ret <= 0)
		return ret;
	len = n->info & WATCH_INFO_LENGTH;
	if (len > dstlen)
		return -1;
	memcpy(dst, n, len);
	wl_ring_advance(r, n);
	return (int)len;
}

#endif /* WL_RING_H */
