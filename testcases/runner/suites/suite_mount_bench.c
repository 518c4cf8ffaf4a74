// SPDX-License-Identifier: GPL-2.0
/*
 * suite_mount_bench.c - how long a mount change holds mount_lock with 1, 64
 * and 1024 mount watches (issue 14, bug 3): figures, never pass/fail.
 *
 * mount_lock is a seqlock; while a mount change holds it for writing, every
 * RCU path walk in the system spins in path_init() until it is released.
 * The 2019 series posted its mount notifications under it: the LSM hook,
 * is_subdir() and the wake-up for every watch, for every mount changed and
 * every ancestor watched.  kernel-patches 0005 collects the notifications
 * under the lock and posts them after it.
 *
 * The measurement is what the lock does to others: one thread (CPU 1)
 * stat()s a path in a loop, the other (CPU 0) toggles MOUNT_ATTR_NOSUID
 * with AT_RECURSIVE over a tmpfs holding BENCH_SUBS submounts, watched at
 * its root by W queues (each submount's SETATTR reaches all W watches).  A
 * round's stall is the longest single stat() that overlapped the
 * mount_setattr() call: a walk that started while the lock was held waited
 * for it, so the stall is at least the hold time, plus one walk.  The BENCH
 * line gives, per W, the median and quartiles over the rounds of the
 * stall and of the mount_setattr() call itself, and the stall floor: the
 * longest stat() in a window of the same length with no mount change.
 * Times are taken with the TSC (the guest's clock may tick in jiffies) and
 * converted with the ratio of the two over the whole run.
 *
 * Under QEMU's -icount shift=0 (`make bench`'s default, watchlab.clock=icount)
 * the TSC counts guest instructions and the figures are instructions, but
 * QEMU then runs the two vCPUs in turn, not at once, so the other CPU's walk
 * cannot see the hold: only the call is measured, with the other CPU idle.
 *
 * namespace_sem_hold is the same question for namespace_sem: a change made
 * with it held for writing (here a recursive mount_setattr() of the
 * propagation, shared then private in turn, over the same BENCH_SUBS + 1
 * mounts) posts BENCH_SUBS + 1 records to each of the W + 1 watches, and
 * every statmount(), mountinfo read and mount change in the system waits
 * for namespace_sem meanwhile.  A reader
 * thread (CPU 1) sleeps in poll() on the last queue to watch the root, so it
 * is posted to first; woken by the change's first record, it calls
 * statmount() at once.  Its wait is the stall: the rest of the posting if
 * posting holds namespace_sem for writing, next to nothing if not.  The
 * floor is the same thread's statmount() just before, with no change.
 * Under icount the reader is woken but does not run until the changer's
 * turn ends, at its next tick (no high-resolution timers in the lab kernel:
 * 4M instructions, more than the posting to 1024 watches takes), so it
 * always finds namespace_sem free: its figure would say nothing, and the
 * line gives the call's instructions only, as mount_lock_hold does.
 *
 * writer_wait_fanout is the 12-07 review's H1: the fan-out of one change,
 * not of a few.  FANOUT_W queues watch the root of a tmpfs holding
 * FANOUT_SUBS submounts, and a recursive mount_setattr() of an attribute
 * (namespace_sem for reading, and mount_notes_mutex, which every remount
 * and mount_setattr() in the system takes) collects FANOUT_SUBS + 1 notes,
 * each for every watch: (FANOUT_SUBS + 1) * FANOUT_W deliveries unless the
 * kernel bounds them (MOUNT_POSTS_MAX, 0034).  A child in a mount
 * namespace of its own (CPU 1) mounts and unmounts a tmpfs in a loop, each
 * mount() needing namespace_sem for writing: the longest of its calls that
 * overlapped a round is what another namespace's mount() waits.  The floor
 * is its longest call in as long a window with no change.  Wall clock only:
 * under icount the two vCPUs run in turn and the child cannot overlap.
 *
 * It needs two CPUs (the lab boots give it two; with one the stall is not
 * measured).  It runs only when named (`make bench` does): a benchmark has
 * no place in `make test`'s time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <x86intrin.h>
/* glibc's <fcntl.h> already defines what <linux/fcntl.h> would redefine. */
#define _LINUX_FCNTL_H
#include <linux/mount.h>
#include <linux/watch_queue.h>

#include "vfs_util.h"
#include "wl.h"

#define BENCH_DIR "/tmp/wlmbench"
#define BENCH_SUBS 8
#define BENCH_ROUNDS 25
#define BENCH_MAX_W 1024
/* Each round posts BENCH_SUBS + 1 records to each queue; it is drained after. */
#define BENCH_QUEUE_SLOTS 16

static const unsigned int bench_watches[] = { 1, 64, 1024 };

struct walker {
	atomic_int stop;
	atomic_uint window;		/* round number while one is open, else 0 */
	atomic_ullong worst[BENCH_ROUNDS + 1];
	int cpu;
};

/* Raise *v to d if d is larger, racing other writers. */
static void atomic_max(atomic_ullong *v, unsigned long long d)
{
	unsigned long long old = atomic_load(v);

	while (d > old && !atomic_compare_exchange_weak(v, &old, d))
		;
}

/*
 * Time each stat(); a stat() counts for a round if the round's window was
 * open both when it started and when it ended, or opened in between.
 */
static void *walk(void *arg)
{
	struct walker *w = arg;
	struct stat st;

	wl_pin_cpu(w->cpu);
	while (!atomic_load(&w->stop)) {
		unsigned int r0 = atomic_load(&w->window);
		uint64_t t0 = __rdtsc(), d;
		unsigned int r1;

		stat(BENCH_DIR "/s0/x", &st);
		d = __rdtsc() - t0;
		r1 = atomic_load(&w->window);
		if (r1 || r0)
			atomic_max(&w->worst[r1 ? r1 : r0], d);
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Percentile p of n sorted TSC figures, in microseconds. */
static double pct(uint64_t *v, unsigned int n, unsigned int p, double us_per_tick)
{
	return v[(n - 1) * p / 100] * us_per_tick;
}

/* A benchmark's rounds: the call, the stall and the floor of each. */
struct rounds {
	uint64_t call[BENCH_ROUNDS], stall[BENCH_ROUNDS], floor[BENCH_ROUNDS];
	unsigned int n;
	uint64_t ns0, tsc0;
};

/* Start the clocks; the number of rounds (5 in the debug kernel). */
static unsigned int rounds_start(struct rounds *rs)
{
	rs->n = wl_debug_kernel() ? 5 : BENCH_ROUNDS;
	rs->ns0 = wl_now_ns();
	rs->tsc0 = __rdtsc();
	return rs->n;
}

/*
 * Sort the figures and print the BENCH line of @lock with @nw watches: the
 * stall's and the floor's, unless @no_stall says why there are none, and
 * the call's.  Microseconds from the TSC over the run, or, under QEMU's
 * -icount shift=0 (watchlab.clock=icount), where the TSC counts the guest's
 * instructions, both CPUs', instructions.
 */
static void rounds_report(struct rounds *rs, const char *lock, unsigned int nw, bool icount,
			  const char *no_stall)
{
	double us = icount ? 1.0 : (double)(wl_now_ns() - rs->ns0) / 1e3 /
				   (double)(__rdtsc() - rs->tsc0);
	const char *unit = icount ? "insn" : "us";
	unsigned int n = rs->n;
	char stall[256];

	qsort(rs->call, n, sizeof(rs->call[0]), cmp_u64);
	qsort(rs->stall, n, sizeof(rs->stall[0]), cmp_u64);
	qsort(rs->floor, n, sizeof(rs->floor[0]), cmp_u64);
	if (no_stall)
		snprintf(stall, sizeof(stall), "stall_%s=n/a (%s)", unit, no_stall);
	else
		snprintf(stall, sizeof(stall),
			 "stall_%s=%.1f stall_p25=%.1f stall_p75=%.1f stall_min=%.1f stall_max=%.1f floor_%s=%.1f",
			 unit, pct(rs->stall, n, 50, us), pct(rs->stall, n, 25, us),
			 pct(rs->stall, n, 75, us), pct(rs->stall, n, 0, us),
			 pct(rs->stall, n, 100, us), unit, pct(rs->floor, n, 50, us));
	wl_diag("BENCH %s watches=%u mounts=%u rounds=%u clock=%s %s setattr_%s=%.1f setattr_p25=%.1f setattr_p75=%.1f setattr_min=%.1f setattr_max=%.1f",
		lock, nw, BENCH_SUBS + 1, n, icount ? "icount" : "wall", stall, unit,
		pct(rs->call, n, 50, us), pct(rs->call, n, 25, us), pct(rs->call, n, 75, us),
		pct(rs->call, n, 0, us), pct(rs->call, n, 100, us));
}

static void drain(const int *q, unsigned int n)
{
	char buf[4096];

	for (unsigned int i = 0; i < n; i++)
		while (read(q[i], buf, sizeof(buf)) > 0)
			;
}

static int setattr_toggle(unsigned int round)
{
	struct mount_attr attr = { 0 };

	if (round & 1)
		attr.attr_set = MOUNT_ATTR_NOSUID;
	else
		attr.attr_clr = MOUNT_ATTR_NOSUID;
	return syscall(SYS_mount_setattr, AT_FDCWD, BENCH_DIR, AT_RECURSIVE, &attr,
		       sizeof(attr));
}

/* One W: the rounds, then the BENCH line.  0, or -1 (diagnosed). */
static int measure(struct walker *w, const int *q, unsigned int nw, bool walker, bool icount)
{
	struct rounds rs;
	uint64_t *call = rs.call, *stall = rs.stall, *floor = rs.floor;
	unsigned int rounds = rounds_start(&rs);

	for (unsigned int r = 0; r < rounds; r++) {
		uint64_t t0, d;

		/* The floor: a window as long as the last call, no mount change. */
		atomic_store(&w->worst[r + 1], 0);
		atomic_store(&w->window, r + 1);
		t0 = __rdtsc();
		while (__rdtsc() - t0 < (r ? call[r - 1] : 1000000))
			;
		atomic_store(&w->window, 0);
		floor[r] = atomic_load(&w->worst[r + 1]);

		atomic_store(&w->worst[r + 1], 0);
		atomic_store(&w->window, r + 1);
		t0 = __rdtsc();
		if (setattr_toggle(r)) {
			wl_diag("mount_setattr(%s, AT_RECURSIVE): %s", BENCH_DIR, strerror(errno));
			atomic_store(&w->window, 0);
			return -1;
		}
		d = __rdtsc() - t0;
		/* Let a walk that started inside the call finish and count. */
		usleep(1000);
		atomic_store(&w->window, 0);
		call[r] = d;
		stall[r] = atomic_load(&w->worst[r + 1]);
		drain(q, nw);
	}
	rounds_report(&rs, "mount_lock", nw, icount,
		      walker ? NULL : icount ? "icount" : "one CPU");
	return 0;
}

/*
 * A queue of BENCH_QUEUE_SLOTS slots.  The write end is kept where @wfd
 * asks for it: the reader of namespace_sem_hold sleeps in poll(), and a
 * pipe without a writer polls POLLHUP at once.
 */
static int open_pipe_queue(int *wfd)
{
	return wl_notification_pipe(BENCH_QUEUE_SLOTS, wfd);
}

static int open_queue(void)
{
	return open_pipe_queue(NULL);
}

/* Booted by `make bench` under QEMU's icount (watchlab.clock=icount)? */
static bool clock_is_icount(void)
{
	char v[16];

	return wl_cmdline("watchlab.clock", v, sizeof(v)) && !strcmp(v, "icount");
}

/* Open queues watching BENCH_DIR until there are @w of them in @q. */
static int add_watches(int *q, unsigned int *nq, unsigned int w)
{
	while (*nq < w) {
		q[*nq] = open_queue();
		if (q[*nq] < 0)
			return -1;
		if (wl_watch_mount(AT_FDCWD, BENCH_DIR, 0, q[*nq], 0)) {
			wl_diag("watch_mount(%s) #%u: %s", BENCH_DIR, *nq, strerror(errno));
			close(q[*nq]);
			return -1;
		}
		(*nq)++;
	}
	return 0;
}

/*
 * Room for BENCH_MAX_W queues, and a private tmpfs at BENCH_DIR with
 * BENCH_SUBS tmpfs submounts: 0 or -1 (diagnosed).
 */
static int bench_setup(void)
{
	struct rlimit rl = { BENCH_MAX_W + 256, BENCH_MAX_W + 256 };
	char path[64];

	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		wl_diag("setrlimit(NOFILE, %u): %s", BENCH_MAX_W + 256, strerror(errno));
		return -1;
	}
	umount2(BENCH_DIR, MNT_DETACH);
	if (wl_tmpfs(BENCH_DIR, NULL))
		return -1;
	for (int i = 0; i < BENCH_SUBS; i++) {
		snprintf(path, sizeof(path), BENCH_DIR "/s%d", i);
		if (wl_tmpfs(path, NULL))
			return -1;
	}
	return 0;
}

/* Undo bench_setup() and close the @nq queues of @q. */
static void bench_teardown(const int *q, unsigned int nq)
{
	for (unsigned int i = 0; i < nq; i++)
		close(q[i]);
	umount2(BENCH_DIR, MNT_DETACH);
}

static enum wl_result mount_lock_hold(void)
{
	static int q[BENCH_MAX_W];
	bool icount = clock_is_icount();
	/*
	 * Under icount QEMU runs the vCPUs in turn, in slices that end at the
	 * next timer (up to a tick, millions of instructions), never at once:
	 * a walk sees the lock held only when a slice ends inside the hold,
	 * and then waits out the holder's whole slice.  The stall would
	 * measure QEMU's slices; with the other CPU idle the call's own
	 * instructions are exact.
	 */
	bool walker = sysconf(_SC_NPROCESSORS_ONLN) >= 2 && !icount;
	struct walker w = { .cpu = 1 };
	unsigned int nq = 0;
	pthread_t thr;
	int ret = 0;

	WL_EXPECT(!bench_setup(), "the tree of mounts");
	WL_EXPECT(!wl_mkdir(BENCH_DIR "/s0/x"), "mkdir");
	wl_pin_cpu(0);
	if (walker)
		WL_EXPECT(!pthread_create(&thr, NULL, walk, &w), "pthread_create");
	else if (icount)
		wl_diag("icount: the vCPUs take turns; the stall is not measured, only the call");
	else
		wl_diag("one CPU: the stall is not measured, only the call");

	for (size_t i = 0; i < WL_ARRAY_SIZE(bench_watches) && !ret; i++) {
		ret = add_watches(q, &nq, bench_watches[i]);
		if (!ret)
			ret = measure(&w, q, nq, walker, icount);
	}
	if (walker) {
		atomic_store(&w.stop, 1);
		pthread_join(thr, NULL);
	}
	bench_teardown(q, nq);
	WL_EXPECT(ret == 0, "the benchmark failed (above)");
	return WL_PASS;
}

/* The reader of namespace_sem_hold, and what it measured in each round. */
struct sem_reader {
	sem_t go, done;
	int fd;			/* the queue it sleeps on; -1 tells it to stop */
	int wfd;		/* its write end, kept open for poll() */
	uint64_t mnt_id;	/* BENCH_DIR's mount */
	uint64_t floor, stall;
	int err;		/* errno of a failed poll() or statmount() */
};

static int stat_root(uint64_t mnt_id)
{
	struct mnt_id_req req = {
		.size = MNT_ID_REQ_SIZE_VER0,
		.mnt_id = mnt_id,
		.param = STATMOUNT_SB_BASIC,
	};
	struct statmount sm;

	return syscall(__NR_statmount, &req, &sm, sizeof(sm), 0);
}

/*
 * One round: time a statmount() with nothing going on (the floor), sleep
 * until the change's first record arrives, then time a statmount() again.
 */
static void *sem_read(void *arg)
{
	struct sem_reader *r = arg;

	wl_pin_cpu(1);
	for (;;) {
		struct pollfd pfd;
		uint64_t t0;

		sem_wait(&r->go);
		if (r->fd < 0)
			return NULL;
		pfd = (struct pollfd){ .fd = r->fd, .events = POLLIN };
		t0 = __rdtsc();
		if (stat_root(r->mnt_id))
			r->err = errno;
		r->floor = __rdtsc() - t0;
		if (poll(&pfd, 1, 10000) != 1 || pfd.revents != POLLIN)
			r->err = r->err ?: errno ?: ETIMEDOUT;
		t0 = __rdtsc();
		if (stat_root(r->mnt_id))
			r->err = r->err ?: errno;
		r->stall = __rdtsc() - t0;
		sem_post(&r->done);
	}
}

/* One W: the rounds, then the BENCH line.  0, or -1 (diagnosed). */
static int measure_sem(struct sem_reader *rd, const int *q, unsigned int nw, bool icount)
{
	struct rounds rs;
	uint64_t *call = rs.call, *stall = rs.stall, *floor = rs.floor;
	unsigned int rounds = rounds_start(&rs);

	for (unsigned int r = 0; r < rounds; r++) {
		struct mount_attr attr = {
			.propagation = r & 1 ? MS_PRIVATE : MS_SHARED,
		};
		uint64_t t0;

		drain(q, nw);
		drain(&rd->fd, 1);
		sem_post(&rd->go);
		/* Idle, so that the reader takes its floor and sleeps in poll(). */
		usleep(2000);
		t0 = __rdtsc();
		if (syscall(SYS_mount_setattr, AT_FDCWD, BENCH_DIR, AT_RECURSIVE, &attr,
			    sizeof(attr))) {
			wl_diag("mount_setattr(%s, AT_RECURSIVE, %s): %s", BENCH_DIR,
				r & 1 ? "MS_PRIVATE" : "MS_SHARED", strerror(errno));
			return -1;
		}
		call[r] = __rdtsc() - t0;
		sem_wait(&rd->done);
		if (rd->err) {
			wl_diag("the reader: %s", strerror(rd->err));
			return -1;
		}
		stall[r] = rd->stall;
		floor[r] = rd->floor;
		drain(q, nw);
		drain(&rd->fd, 1);
	}
	rounds_report(&rs, "namespace_sem", nw + 1, icount, icount ? "icount" : NULL);
	return 0;
}

/*
 * W watches on BENCH_DIR, then the reader's queue, set last so that it is
 * first on the mount's watch list and first to be posted to.
 */
static int sem_watches(int *q, unsigned int *nq, unsigned int w, struct sem_reader *rd)
{
	if (add_watches(q, nq, w))
		return -1;
	if (rd->fd >= 0) {
		close(rd->fd);
		close(rd->wfd);
	}
	rd->fd = open_pipe_queue(&rd->wfd);
	if (rd->fd < 0)
		return -1;
	if (wl_watch_mount(AT_FDCWD, BENCH_DIR, 0, rd->fd, 0)) {
		wl_diag("watch_mount(%s) for the reader: %s", BENCH_DIR, strerror(errno));
		return -1;
	}
	return 0;
}

static enum wl_result namespace_sem_hold(void)
{
	static int q[BENCH_MAX_W];
	bool icount = clock_is_icount();
	struct sem_reader rd = { .fd = -1 };
	unsigned int nq = 0;
	pthread_t thr;
	int ret = 0;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		wl_diag("BENCH namespace_sem n/a: one CPU, no reader beside the change");
		return WL_PASS;
	}
	WL_EXPECT(!bench_setup(), "the tree of mounts");
	rd.mnt_id = wl_mnt_id(BENCH_DIR, true);
	WL_EXPECT(rd.mnt_id, "the mount ID of %s", BENCH_DIR);
	WL_EXPECT(!sem_init(&rd.go, 0, 0) && !sem_init(&rd.done, 0, 0), "sem_init");
	wl_pin_cpu(0);
	WL_EXPECT(!pthread_create(&thr, NULL, sem_read, &rd), "pthread_create");

	/* The reader's watch is the W + 1st: W = 0, 63, 1023 others. */
	for (size_t i = 0; i < WL_ARRAY_SIZE(bench_watches) && !ret; i++) {
		ret = sem_watches(q, &nq, bench_watches[i] - 1, &rd);
		if (!ret)
			ret = measure_sem(&rd, q, nq, icount);
	}
	if (rd.fd >= 0) {
		close(rd.fd);
		close(rd.wfd);
	}
	rd.fd = -1;
	sem_post(&rd.go);
	pthread_join(thr, NULL);
	bench_teardown(q, nq);
	WL_EXPECT(ret == 0, "the benchmark failed (above)");
	return WL_PASS;
}

#define FANOUT_DIR "/tmp/wlfanout"
#define FANOUT_W 1000
#define FANOUT_ROUNDS 4

/* The mount()ing child's figures, in shared memory: TSC ticks. */
struct fanout_writer {
	atomic_int stop;
	atomic_uint window;		/* 1 + round while one is open, else 0 */
	atomic_ullong worst[2 * FANOUT_ROUNDS + 1];
	atomic_uint calls;
	int err;
};

/* In a mount namespace of its own, mount and unmount a tmpfs until told to stop. */
static int fanout_mounter(struct fanout_writer *fw)
{
	static const char dir[] = "/tmp/wlfanout-writer";

	wl_pin_cpu(1);
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    (mkdir(dir, 0700) && errno != EEXIST)) {
		fw->err = errno;
		return 1;
	}
	while (!atomic_load(&fw->stop)) {
		unsigned int r0 = atomic_load(&fw->window), r1;
		uint64_t t0 = __rdtsc(), d;

		if (mount("wlw", dir, "tmpfs", 0, NULL) || umount2(dir, 0)) {
			fw->err = errno;
			return 1;
		}
		d = __rdtsc() - t0;
		r1 = atomic_load(&fw->window);
		if (r0 || r1)
			atomic_max(&fw->worst[r1 ? r1 : r0], d);
		atomic_fetch_add(&fw->calls, 1);
	}
	return 0;
}

/* FANOUT_DIR with @subs submounts, watched by FANOUT_W queues in q. */
static int fanout_setup(int *q, unsigned int subs)
{
	umount2(FANOUT_DIR, MNT_DETACH);
	if (wl_tmpfs_tree(FANOUT_DIR, subs))
		return -1;
	for (unsigned int i = 0; i < FANOUT_W; i++) {
		q[i] = open_queue();
		if (q[i] < 0)
			return -1;
		if (wl_watch_mount(AT_FDCWD, FANOUT_DIR, 0, q[i], 0)) {
			wl_diag("watch_mount(%s) #%u: %s", FANOUT_DIR, i, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/*
 * The rounds: a floor window as long as the last change, then a change
 * with the window open.  Each call's TSC ticks in call[].
 */
static int fanout_rounds(struct fanout_writer *fw, const int *q, unsigned int n,
			 uint64_t *call)
{
	for (unsigned int r = 0; r < n; r++) {
		struct mount_attr attr = { 0 };
		uint64_t t0;

		atomic_store(&fw->window, 2 * r + 1);
		t0 = __rdtsc();
		while (__rdtsc() - t0 < (r ? call[r - 1] : 100000000ULL))
			;
		if (r & 1)
			attr.attr_clr = MOUNT_ATTR_NOSUID;
		else
			attr.attr_set = MOUNT_ATTR_NOSUID;
		atomic_store(&fw->window, 2 * r + 2);
		t0 = __rdtsc();
		if (syscall(SYS_mount_setattr, AT_FDCWD, FANOUT_DIR, AT_RECURSIVE, &attr,
			    sizeof(attr))) {
			wl_diag("mount_setattr(%s, AT_RECURSIVE): %s", FANOUT_DIR, strerror(errno));
			atomic_store(&fw->window, 0);
			return -1;
		}
		call[r] = __rdtsc() - t0;
		/* Let a mount() that started inside the call finish and count. */
		usleep(20000);
		atomic_store(&fw->window, 0);
		drain(q, FANOUT_W);
	}
	return 0;
}

static void fanout_report(struct fanout_writer *fw, uint64_t *call, unsigned int n,
			  unsigned int subs, double us)
{
	uint64_t wait[FANOUT_ROUNDS], floor[FANOUT_ROUNDS];

	for (unsigned int r = 0; r < n; r++) {
		floor[r] = atomic_load(&fw->worst[2 * r + 1]);
		wait[r] = atomic_load(&fw->worst[2 * r + 2]);
	}
	qsort(call, n, sizeof(call[0]), cmp_u64);
	qsort(wait, n, sizeof(wait[0]), cmp_u64);
	qsort(floor, n, sizeof(floor[0]), cmp_u64);
	wl_diag("BENCH fanout_writer_wait watches=%u mounts=%u deliveries=%u rounds=%u clock=wall writer_wait_max_us=%.0f writer_wait_median_us=%.0f floor_max_us=%.0f setattr_median_us=%.0f setattr_max_us=%.0f writer_calls=%u",
		FANOUT_W, subs + 1, (subs + 1) * FANOUT_W, n, pct(wait, n, 100, us),
		pct(wait, n, 50, us), pct(floor, n, 100, us), pct(call, n, 50, us),
		pct(call, n, 100, us), atomic_load(&fw->calls));
}

static enum wl_result writer_wait_fanout(void)
{
	unsigned int subs = wl_debug_kernel() ? 200 : 2000;
	unsigned int n = wl_debug_kernel() ? 2 : FANOUT_ROUNDS;
	struct rlimit rl = { FANOUT_W + 256, FANOUT_W + 256 };
	uint64_t call[FANOUT_ROUNDS], ns0, tsc0;
	static int q[FANOUT_W];
	struct fanout_writer *fw;
	int ret = -1, status;
	pid_t pid;
	double us;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || clock_is_icount()) {
		wl_diag("BENCH fanout_writer_wait n/a: %s",
			clock_is_icount() ? "icount runs the vCPUs in turn" : "one CPU");
		return WL_PASS;
	}
	for (unsigned int i = 0; i < FANOUT_W; i++)
		q[i] = -1;
	fw = mmap(NULL, sizeof(*fw), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	WL_EXPECT(fw != MAP_FAILED, "mmap: %s", strerror(errno));
	WL_EXPECT(!setrlimit(RLIMIT_NOFILE, &rl), "setrlimit(NOFILE): %s", strerror(errno));
	if (fanout_setup(q, subs))
		goto out;
	wl_pin_cpu(0);
	ns0 = wl_now_ns();
	tsc0 = __rdtsc();
	pid = fork();
	if (pid == 0)
		_exit(fanout_mounter(fw));
	if (pid > 0) {
		ret = fanout_rounds(fw, q, n, call);
		atomic_store(&fw->stop, 1);
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			wl_diag("the mounting child: %s", strerror(fw->err));
			ret = -1;
		}
	}
	us = (double)(wl_now_ns() - ns0) / 1e3 / (double)(__rdtsc() - tsc0);
	if (!ret)
		fanout_report(fw, call, n, subs, us);
out:
	for (unsigned int i = 0; i < FANOUT_W; i++)
		if (q[i] >= 0)
			close(q[i]);
	umount2(FANOUT_DIR, MNT_DETACH);
	munmap(fw, sizeof(*fw));
	WL_EXPECT(ret == 0, "the benchmark failed (above)");
	return WL_PASS;
}

static const struct wl_test tests[] = {
	{ "mount_lock_hold", mount_lock_hold },
	{ "namespace_sem_hold", namespace_sem_hold },
	{ "writer_wait_fanout", writer_wait_fanout },
};

/* Only when named: `make bench` boots with watchlab.suites=suite_mount_bench. */
static bool mount_bench_applies(void)
{
	return false;
}

WL_SUITE_IF(suite_mount_bench, tests, mount_bench_applies, "a benchmark: make bench runs it");
