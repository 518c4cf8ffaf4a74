// SPDX-License-Identifier: GPL-2.0
/*
 * suite_failnth.c - every slab allocation of a watch-setting call, of the
 * ring's sizing and of a policy load, failed one at a time.
 *
 * /proc/thread-self/fail-nth (CONFIG_FAULT_INJECTION with CONFIG_FAILSLAB)
 * makes the Nth slab allocation of the writing task fail.  Each test takes
 * one operation and runs it with N = 1, 2, ... until a run ends with the
 * count not reached: then every allocation the operation makes has failed
 * once.  A failed allocation must leave the call failing with ENOMEM and
 * nothing changed (the same call without a failure then succeeds and does
 * its work once), or, for an allocation the call can do without (an audit
 * record's), the call succeeding in full.  Any other errno fails the test,
 * and so does an operation that no failure made return ENOMEM.  The kernels with
 * fault injection are the debug kernel (KASAN, kmemleak, lockdep watch the
 * error paths: suite_kmemleak runs after this suite) and make coverage's;
 * harness/boot-args.sh tells the runner with watchlab.failslab=1.
 *
 * failslab leaves GFP_KERNEL allocations alone unless its debugfs
 * ignore-gfp-wait is N, and prints a stack for each failure unless its
 * verbose is 0: both are set for the suite and put back after it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <unistd.h>
/* glibc's <fcntl.h> already defines what <linux/fcntl.h> would redefine. */
#define _LINUX_FCNTL_H
#include <linux/watch_queue.h>

#include "devices_util.h"
#include "vfs_util.h"
#include "watchpol_util.h"
#include "wl.h"

#define FAILSLAB "/sys/kernel/debug/failslab"
#define FAIL_NTH "/proc/thread-self/fail-nth"
#define BASE "/tmp/wl-failnth"
/*
 * What the vfs tests watch: a tmpfs mounted anew for each run, so that
 * every run meets a mount and a superblock with no watch list yet, and
 * the list's own allocation fails in its turn.
 */
#define TARGET BASE "/t"
/* More allocations than any of these calls makes: a bound on the loop. */
#define MAX_NTH 200

/* One operation, run under a failure of its Nth allocation. */
struct fault_op {
	const char *name;
	int (*prepare)(void);		/* untouched by the failure; 0 or -1 */
	long (*act)(void);		/* the call: 0, or -1 with errno */
	int (*check)(bool done);	/* its effect: done, or nothing; 0 or -1 */
	void (*cleanup)(void);
};

/* What one operation did over every N. */
struct fault_tally {
	unsigned int allocs, enomem, absorbed;
};

static int nth_fd = -1;

/*
 * Arm the Nth allocation; nth 0 disarms.  The file stays open from the
 * suite's start: opening it, as reading it back, would allocate.
 */
static int nth_set(unsigned int nth)
{
	char buf[16];
	int n = snprintf(buf, sizeof(buf), "%u", nth);

	return pwrite(nth_fd, buf, n, 0) == n ? 0 : -1;
}

/* How many allocations were still to come: 0 when the Nth one failed. */
static long nth_left(void)
{
	char buf[16];
	ssize_t n = pread(nth_fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

/*
 * Run @op once with its Nth allocation failing, for N = 1, 2, ... until
 * the call no longer reaches N; -1 (diagnosed) at the first run whose
 * outcome or effect is wrong.
 */
static int fault_every_alloc(const struct fault_op *op, struct fault_tally *t)
{
	unsigned int nth;
	long r, left;
	int err, bad;

	memset(t, 0, sizeof(*t));
	for (nth = 1; nth <= MAX_NTH; nth++) {
		if (op->prepare()) {
			wl_diag("%s: could not prepare run %u", op->name, nth);
			return -1;
		}
		if (nth_set(nth)) {
			wl_diag("%s: arm allocation %u: %s", op->name, nth, strerror(errno));
			op->cleanup();
			return -1;
		}
		r = op->act();
		err = errno;
		left = nth_left();
		nth_set(0);
		if (left < 0) {
			wl_diag("%s: read %s back: %s", op->name, FAIL_NTH, strerror(errno));
			op->cleanup();
			return -1;
		}
		if (left > 0) {
			/* It made nth - 1 allocations, and none failed. */
			bad = r != 0 || op->check(true);
			if (r)
				wl_diag("%s: with no failure: %s", op->name, strerror(err));
			op->cleanup();
			t->allocs = nth - 1;
			return bad ? -1 : 0;
		}
		if (r == 0) {
			t->absorbed++;
			bad = op->check(true);
		} else if (r == -1 && err == ENOMEM) {
			t->enomem++;
			bad = op->check(false);
		} else {
			wl_diag("%s: allocation %u failed, the call failed with %s, want ENOMEM",
				op->name, nth, strerror(err));
			bad = 1;
		}
		op->cleanup();
		if (bad) {
			wl_diag("%s: wrong state after its allocation %u failed", op->name, nth);
			return -1;
		}
	}
	wl_diag("%s: still allocating after %u allocations", op->name, MAX_NTH);
	return -1;
}

static enum wl_result run_op(const struct fault_op *op)
{
	struct fault_tally t;

	WL_EXPECT(fault_every_alloc(op, &t) == 0, "%s under fail-nth", op->name);
	wl_diag("%s: %u allocations, each failed once: %u ENOMEM, %u absorbed", op->name,
		t.allocs, t.enomem, t.absorbed);
	WL_EXPECT(t.allocs > 0 && t.enomem > 0,
		  "%s: no allocation failure reached the call (%u allocations)", op->name,
		  t.allocs);
	return WL_PASS;
}

/* ---- watch_mount() and watch_sb() ---- */

#define WATCH_ID 0x42

static int queue = -1;

static int queue_prepare(void)
{
	queue = wl_wq_open(32);
	return queue < 0 ? -1 : 0;
}

static void queue_cleanup(void)
{
	if (queue >= 0)
		wl_wq_close(queue);
	queue = -1;
}

static int vfs_prepare(void)
{
	if (wl_tmpfs_here(TARGET, NULL))
		return -1;
	return queue_prepare();
}

static void vfs_cleanup(void)
{
	queue_cleanup();
	if (umount2(TARGET, MNT_DETACH))
		wl_diag("umount %s: %s", TARGET, strerror(errno));
}

static long mount_act(void)
{
	return wl_watch_mount(AT_FDCWD, TARGET, 0, queue, WATCH_ID);
}

static long sb_act(void)
{
	return wl_watch_sb(AT_FDCWD, TARGET, 0, queue, WATCH_ID);
}

/* Drain what is queued and count the records of @type; -1 on a read error. */
static int count_records(unsigned int type)
{
	struct wl_record rec;
	int n = 0, r;

	while ((r = wl_wq_read(queue, &rec, WL_EVENT_TIMEOUT_MS / 2)) == 1)
		if (rec.type == type)
			n++;
	return r < 0 ? -1 : n;
}

/*
 * What the call did, told by making it again, without a failure: it fails
 * with EBUSY when the first one took effect (@done: a watch on the same
 * object, queue and id, a ring already sized), and succeeds when it left
 * nothing behind.
 */
static int call_again(long (*act)(void), const char *what, bool done)
{
	long r = act();

	if (done ? !(r == -1 && errno == EBUSY) : r != 0) {
		wl_diag("%s again: %ld (%s), want %s", what, r, r ? strerror(errno) : "success",
			done ? "EBUSY" : "success");
		return -1;
	}
	return 0;
}

/*
 * The watch is there (@done) or not (call_again()); once it is set,
 * @trigger's events give @want records of @type: one watch, not two.
 */
static int vfs_check(long (*act)(void), bool done, unsigned int type,
		     int (*trigger)(void), int want)
{
	int n;

	if (call_again(act, "the watch", done) || trigger())
		return -1;
	n = count_records(type);
	if (n != want) {
		wl_diag("%d records of type %u, want %d (a watch left behind?)", n, type, want);
		return -1;
	}
	return 0;
}

/* A mount below TARGET and its umount: NEW_MOUNT and UNMOUNT. */
static int mount_trigger(void)
{
	if (wl_tmpfs_here(TARGET "/m", NULL))
		return -1;
	if (umount(TARGET "/m")) {
		wl_diag("umount %s/m: %s", TARGET, strerror(errno));
		return -1;
	}
	return 0;
}

static int mount_check(bool done)
{
	return vfs_check(mount_act, done, WATCH_TYPE_MOUNT_NOTIFY, mount_trigger, 2);
}

/* TARGET's superblock remounted r/o and back: two READONLY records. */
static int sb_trigger(void)
{
	if (mount(NULL, TARGET, NULL, MS_REMOUNT | MS_RDONLY, NULL)) {
		wl_diag("remount %s ro: %s", TARGET, strerror(errno));
		return -1;
	}
	if (mount(NULL, TARGET, NULL, MS_REMOUNT, NULL)) {
		wl_diag("remount %s rw: %s", TARGET, strerror(errno));
		return -1;
	}
	return 0;
}

static int sb_check(bool done)
{
	return vfs_check(sb_act, done, WATCH_TYPE_SB_NOTIFY, sb_trigger, 2);
}

static const struct fault_op watch_mount_op = {
	.name = "watch_mount", .prepare = vfs_prepare, .act = mount_act,
	.check = mount_check, .cleanup = vfs_cleanup,
};

static const struct fault_op watch_sb_op = {
	.name = "watch_sb", .prepare = vfs_prepare, .act = sb_act,
	.check = sb_check, .cleanup = vfs_cleanup,
};

static enum wl_result watch_mount_every_alloc(void)
{
	return run_op(&watch_mount_op);
}

static enum wl_result watch_sb_every_alloc(void)
{
	return run_op(&watch_sb_op);
}

/* ---- watch_devices() ---- */

static long devices_act(void)
{
	return wl_watch_devices(queue, WATCH_ID, 0);
}

/* No device event comes on demand here: the watch's presence is what EBUSY says. */
static int devices_check(bool done)
{
	return call_again(devices_act, "watch_devices()", done);
}

static const struct fault_op watch_devices_op = {
	.name = "watch_devices", .prepare = queue_prepare, .act = devices_act,
	.check = devices_check, .cleanup = queue_cleanup,
};

static enum wl_result watch_devices_every_alloc(void)
{
	return run_op(&watch_devices_op);
}

/* ---- the /dev/watch_queue ring's size ---- */

#define RING_PAGES 2

static long ring_act(void)
{
	return ioctl(queue, IOC_WATCH_QUEUE_SET_SIZE, RING_PAGES);
}

static int ring_prepare(void)
{
	queue = open("/dev/watch_queue", O_RDWR | O_CLOEXEC);
	if (queue < 0)
		wl_diag("open /dev/watch_queue: %s", strerror(errno));
	return queue < 0 ? -1 : 0;
}

/* A ring is sized once: EBUSY after a size took, success if none did. */
static int ring_check(bool done)
{
	return call_again(ring_act, "IOC_WATCH_QUEUE_SET_SIZE", done);
}

static const struct fault_op ring_size_op = {
	.name = "ring_set_size", .prepare = ring_prepare, .act = ring_act,
	.check = ring_check, .cleanup = queue_cleanup,
};

static enum wl_result ring_set_size_every_alloc(void)
{
	return run_op(&ring_size_op);
}

/* ---- a watchpol policy load ---- */

/* Loaded before each run, and the text each run loads. */
static const char policy_before[] = "default watcher\nenforce 1\nkernel_events allow\nend\n";
static const char policy_loaded[] =
	"default strict\nenforce 1\nkernel_events deny\n"
	"w_creds key creator\nw_creds mount creator\nend\n";
/* Each text as watchpol/policy reads it back once in force. */
static char *read_before, *read_loaded;
static int policy_fd = -1;

static int policy_prepare(void)
{
	int r = wp_write_policy_str(policy_before);

	if (r) {
		wl_diag("load the policy before: %s", strerror(-r));
		return -1;
	}
	policy_fd = open(WP_POLICY, O_WRONLY | O_CLOEXEC);
	if (policy_fd < 0)
		wl_diag("open %s: %s", WP_POLICY, strerror(errno));
	return policy_fd < 0 ? -1 : 0;
}

/* The write parses the text; the close puts it in force. */
static long policy_act(void)
{
	ssize_t n = write(policy_fd, policy_loaded, sizeof(policy_loaded) - 1);
	int err = errno, c = close(policy_fd);

	policy_fd = -1;
	if (n != (ssize_t)sizeof(policy_loaded) - 1) {
		errno = n < 0 ? err : EIO;
		return -1;
	}
	return c;
}

static int policy_check(bool done)
{
	char *now = wp_read_policy();
	const char *want = done ? read_loaded : read_before;
	int r = now && strcmp(now, want) == 0 ? 0 : -1;

	if (r)
		wl_diag("the policy in force is not the one %s", done ? "loaded" : "before");
	free(now);
	return r;
}

static void policy_cleanup(void)
{
	if (policy_fd >= 0)
		close(policy_fd);
	policy_fd = -1;
}

static const struct fault_op policy_load_op = {
	.name = "policy_load", .prepare = policy_prepare, .act = policy_act,
	.check = policy_check, .cleanup = policy_cleanup,
};

/* What each text reads back as, loaded without a failure. */
static int policy_read_backs(void)
{
	if (wp_write_policy_str(policy_loaded) || !(read_loaded = wp_read_policy()))
		return -1;
	if (wp_write_policy_str(policy_before) || !(read_before = wp_read_policy()))
		return -1;
	return 0;
}

static enum wl_result policy_load_every_alloc(void)
{
	enum wl_result r = WL_FAIL;

	if (!wl_have_watchpol())
		return WL_SKIP;
	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	if (policy_read_backs() == 0)
		r = run_op(&policy_load_op);
	else
		wl_diag("the two policies do not load without a failure");
	free(read_before);
	free(read_loaded);
	read_before = read_loaded = NULL;
	WL_EXPECT(wp_restore_policy(), "could not put the policy back");
	return r;
}

/* ---- the suite ---- */

/* failslab's knobs this suite sets, and their values before it. */
static const char *const knob_names[] = { "ignore-gfp-wait", "verbose" };
static const char *const knob_values[] = { "N", "0" };
static char knob_saved[WL_ARRAY_SIZE(knob_names)][16];

static int failnth_setup(void)
{
	char path[128];

	for (size_t i = 0; i < WL_ARRAY_SIZE(knob_names); i++) {
		snprintf(path, sizeof(path), FAILSLAB "/%s", knob_names[i]);
		if (wl_read_file(path, knob_saved[i], sizeof(knob_saved[i])) < 0 ||
		    wl_write_file(path, knob_values[i]))
			return -1;
	}
	nth_fd = open(FAIL_NTH, O_RDWR | O_CLOEXEC);
	if (nth_fd < 0) {
		wl_diag("open %s: %s", FAIL_NTH, strerror(errno));
		return -1;
	}
	if (wl_tmpfs(BASE, NULL))
		return -1;
	return 0;
}

static void failnth_teardown(void)
{
	char path[128];

	umount2(BASE, MNT_DETACH);
	if (nth_fd >= 0)
		close(nth_fd);
	nth_fd = -1;
	for (size_t i = 0; i < WL_ARRAY_SIZE(knob_names); i++) {
		snprintf(path, sizeof(path), FAILSLAB "/%s", knob_names[i]);
		knob_saved[i][strcspn(knob_saved[i], "\n")] = '\0';
		if (knob_saved[i][0])
			wl_write_file(path, knob_saved[i]);
	}
}

/* Each test sets the knobs up and puts them back: a failure leaves nothing armed. */
#define FAILNTH_TEST(fn)						\
	static enum wl_result fn##_test(void)				\
	{								\
		enum wl_result r = WL_FAIL;				\
									\
		if (failnth_setup() == 0)				\
			r = fn();					\
		else							\
			wl_diag("could not set up failslab and fail-nth"); \
		failnth_teardown();					\
		return r;						\
	}

FAILNTH_TEST(watch_mount_every_alloc)
FAILNTH_TEST(watch_sb_every_alloc)
FAILNTH_TEST(watch_devices_every_alloc)
FAILNTH_TEST(ring_set_size_every_alloc)
FAILNTH_TEST(policy_load_every_alloc)

/* From the boot's command line (harness/boot-args.sh: the kernel has FAILSLAB). */
static bool failnth_applies(void)
{
	char v[8];

	return wl_cmdline("watchlab.failslab", v, sizeof(v)) && !strcmp(v, "1") &&
	       !strcmp(wl_profile(), "plain") && !wl_byo_lsm();
}

static const struct wl_test tests[] = {
	{ "watch_mount_every_alloc", watch_mount_every_alloc_test },
	{ "watch_sb_every_alloc", watch_sb_every_alloc_test },
	{ "watch_devices_every_alloc", watch_devices_every_alloc_test },
	{ "ring_set_size_every_alloc", ring_set_size_every_alloc_test },
	{ "policy_load_every_alloc", policy_load_every_alloc_test },
};

WL_SUITE_IF(suite_failnth, tests, failnth_applies,
	    "the plain boots of a kernel with fault injection (debug, coverage)");
