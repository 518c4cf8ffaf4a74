// SPDX-License-Identifier: GPL-2.0
/*
 * suite_devices_loss.c - device records raised in hard interrupt context
 * that the device list could not defer are flagged to every device watcher
 * as lost (issue 14, bug 5).
 *
 * A null_blk disk completing from an hrtimer (irqmode 2) fails reads of its
 * bad range: each failure is a block record raised in hard interrupt
 * context, which the list copies and posts from a work item, at most 256
 * waiting at a time.  Reader threads at SCHED_FIFO 60 fail up to READERS * READS_EACH
 * reads while spinners at SCHED_FIFO 50 keep both CPUs from the work item,
 * so more than 256 records wait and the rest are lost before any queue
 * sees them.  Then one more failure is raised after the flood.  Each
 * watcher - a ring and a pipe, both large enough for every record - must
 * either get every record, or be told of the loss: WATCH_INFO_OVERRUN on
 * a ring record, a META LOSS record in the pipe.  A kernel that drops the
 * records silently fails here whenever the flood outran the work item,
 * which the test also reports.
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
#include <unistd.h>
/* glibc's <fcntl.h> already defines what <linux/fcntl.h> would redefine. */
#define _LINUX_FCNTL_H
#include <linux/watch_queue.h>

#include "devices_util.h"
#include "wl.h"

#define READERS		8
#define READS_EACH	80
#define SPINNERS	2
/* How long the spinners and readers may hold the CPUs. */
#define FLOOD_SECONDS	0.5

struct flood {
	const struct nullb *nb;
	double end;		/* CLOCK_MONOTONIC end of the flood, set before go */

	pthread_barrier_t go;	/* every thread and the main one */
	atomic_int failed, reads;
};

static int set_fifo(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	return pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
}

static void *spinner(void *arg)
{
	struct flood *f = arg;
	int r;

	/* Sleep until every thread exists, only then take the CPU. */
	pthread_barrier_wait(&f->go);
	r = set_fifo(50);
	if (r) {
		wl_diag("SCHED_FIFO 50 for a spinner: %s", strerror(r));
		atomic_store(&f->failed, 1);
	}
	/* Bounded in time: RT spinning must never starve RCU for long. */
	while (wl_now_s() < f->end)
		;
	return NULL;
}

static void *reader(void *arg)
{
	struct flood *f = arg;
	void *buf;
	int fd, i, r;

	pthread_barrier_wait(&f->go);
	r = set_fifo(60);
	if (r) {
		wl_diag("SCHED_FIFO 60 for a reader: %s", strerror(r));
		atomic_store(&f->failed, 1);
		return NULL;
	}
	fd = open(f->nb->dev, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0 || posix_memalign(&buf, 4096, 4096)) {
		wl_diag("open %s: %s", f->nb->dev, strerror(errno));
		atomic_store(&f->failed, 1);
		return NULL;
	}
	for (i = 0; i < READS_EACH && wl_now_s() < f->end; i++)
		if (pread(fd, buf, 4096, (off_t)BAD_SECTOR * 512) != -1 || errno != EIO) {
			wl_diag("read of the bad range of %s did not fail with EIO", f->nb->dev);
			atomic_store(&f->failed, 1);
			break;
		} else {
			atomic_fetch_add(&f->reads, 1);
		}
	free(buf);
	close(fd);
	return NULL;
}

/* Count the block records on fd and whether a loss was flagged. */
static int drain(int fd, const char *what, unsigned int *records, int *lost)
{
	struct wl_record rec;
	int r;

	*records = 0;
	*lost = 0;
	while ((r = wl_wq_read(fd, &rec, WL_EVENT_TIMEOUT_MS * (wl_debug_kernel() ? 20 : 4))) == 1) {
		if (rec.type == WATCH_TYPE_META && rec.subtype == WATCH_META_LOSS_NOTIFICATION) {
			*lost = 1;
			continue;
		}
		if (rec.info & WATCH_INFO_OVERRUN)
			*lost = 1;
		if (rec.type == WATCH_TYPE_BLOCK_NOTIFY)
			(*records)++;
	}
	if (r < 0)
		wl_diag("%s: read error", what);
	return r;
}

static enum wl_result lost_records_flagged(void)
{
	pthread_t spin[SPINNERS], rd[READERS];
	struct flood f = { .nb = NULL };
	struct nullb nb;
	int q[WL_TRANSPORT_NR], t, i, ok = 1;
	unsigned int want;

	for (t = 0; t < WL_TRANSPORT_NR; t++) {
		/* 513 block records of 24 bytes: within 16 ring pages and 512+ notes. */
		q[t] = wl_queue_open(t, t == WL_TRANSPORT_RING ? 2048 : 512);
		WL_EXPECT(q[t] >= 0, "a %s queue", wl_transport_name(t));
		WL_EXPECT(wl_watch_devices(q[t], 0x33, 0) == 0, "watch_devices on the %s queue: %s",
			  wl_transport_name(t), strerror(errno));
	}
	WL_EXPECT(wl_nullb_create(2, &nb) == 0, "null_blk disk, hrtimer completions");
	f.nb = &nb;
	/*
	 * Every thread sleeps on the barrier until all exist and only then
	 * turns SCHED_FIFO, so that none can keep this (SCHED_OTHER) thread
	 * from creating the others; the flood then lasts FLOOD_SECONDS.
	 */
	pthread_barrier_init(&f.go, NULL, SPINNERS + READERS + 1);
	for (i = 0; i < SPINNERS; i++)
		pthread_create(&spin[i], NULL, spinner, &f);
	for (i = 0; i < READERS; i++)
		pthread_create(&rd[i], NULL, reader, &f);
	f.end = wl_now_s() + FLOOD_SECONDS;
	pthread_barrier_wait(&f.go);
	for (i = 0; i < READERS; i++)
		pthread_join(rd[i], NULL);
	for (i = 0; i < SPINNERS; i++)
		pthread_join(spin[i], NULL);
	pthread_barrier_destroy(&f.go);
	/* One more, after the flood: the ring's overrun flag rides on it. */
	ok = !atomic_load(&f.failed) && wl_nullb_read_bad(&nb) == 0;
	want = atomic_load(&f.reads) + 1;
	for (t = 0; t < WL_TRANSPORT_NR; t++) {
		unsigned int n;
		int lost;

		if (drain(q[t], wl_transport_name(t), &n, &lost) < 0)
			ok = 0;
		wl_diag("%s queue: %u of %u block records, loss %s", wl_transport_name(t),
			n, want, lost ? "flagged" : "not flagged");
		if (n > want || (n < want && !lost)) {
			wl_diag("%s queue: %u records missing and no loss flagged",
				wl_transport_name(t), want - n);
			ok = 0;
		}
		wl_wq_close(q[t]);
	}
	wl_nullb_destroy();
	return ok ? WL_PASS : WL_FAIL;
}

static const struct wl_test tests[] = {
	{ "lost_records_flagged", lost_records_flagged },
};

WL_SUITE(suite_devices_loss, tests);
