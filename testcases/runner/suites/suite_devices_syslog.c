// SPDX-License-Identifier: GPL-2.0
/*
 * suite_devices_syslog.c - watch_devices() follows the kernel log's rule
 * (kernel-patches 0007; issue 31, M3).
 *
 * Device records say what the kernel log says about devices: a disk's
 * failing sectors, a USB device's name and errors.  With
 * kernel.dmesg_restrict set (Debian's default), syslog(2) and /dev/kmsg
 * refuse a reader without CAP_SYSLOG; watch_devices() must refuse the same
 * caller with EPERM, and let CAP_SYSLOG alone through.  With it clear, any
 * user may watch, as any user may read the log.  Removing a watch needs
 * nothing.  The plain profile only: there the LSMs have no say, so the
 * refusal is the kernel's own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <linux/capability.h>

#include "devices_util.h"
#include "wl.h"

#define DMESG_RESTRICT "/proc/sys/kernel/dmesg_restrict"
#define WATCHER_UID 1000

struct attempt {
	uint64_t caps;		/* what the watcher keeps: a mask of 1 << CAP_* */
	int want;		/* the errno wanted, 0 for success */
};

/* Become uid 1000 keeping exactly caps.  0 or -1 (diagnosed). */
static int become_watcher(uint64_t caps)
{
	struct wl_creds w = wl_user(WATCHER_UID);

	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)) {
		wl_diag("PR_SET_KEEPCAPS: %s", strerror(errno));
		return -1;
	}
	return wl_drop_creds(&w) || wl_set_caps(caps) ? -1 : 0;
}

/* As uid 1000 keeping only a->caps: watch the device list. */
static int watch_as_user(void *arg)
{
	const struct attempt *a = arg;
	char what[64];
	int q;

	if (become_watcher(a->caps))
		return 1;
	q = wl_wq_open(16);
	if (q < 0)
		return 1;
	snprintf(what, sizeof(what), "watch_devices as uid %u, caps %#llx", WATCHER_UID,
		 (unsigned long long)a->caps);
	return wl_want_errno(what, wl_watch_devices(q, 1, 0), a->want) ? 1 : 0;
}

/* Set kernel.dmesg_restrict; 0 or -1 (diagnosed). */
static int set_restrict(bool on)
{
	return wl_write_file(DMESG_RESTRICT, on ? "1" : "0");
}

static enum wl_result attempt_with(bool restricted, const struct attempt *a)
{
	pid_t pid;
	int r;

	if (set_restrict(restricted))
		return WL_FAIL;
	pid = wl_spawn(watch_as_user, (void *)a);
	r = pid < 0 ? -1 : wl_reap(pid, "the watcher");
	set_restrict(false);
	return r == 0 ? WL_PASS : WL_FAIL;
}

static enum wl_result restricted_refuses_uid(void)
{
	const struct attempt a = { .caps = 0, .want = EPERM };

	return attempt_with(true, &a);
}

static enum wl_result restricted_refuses_other_caps(void)
{
	/* The log takes CAP_SYSLOG and nothing else, CAP_SYS_ADMIN included. */
	const struct attempt a = { .caps = 1ULL << CAP_SYS_ADMIN, .want = EPERM };

	return attempt_with(true, &a);
}

static enum wl_result restricted_allows_cap_syslog(void)
{
	const struct attempt a = { .caps = 1ULL << CAP_SYSLOG, .want = 0 };

	return attempt_with(true, &a);
}

static enum wl_result unrestricted_allows_uid(void)
{
	const struct attempt a = { .caps = 0, .want = 0 };

	return attempt_with(false, &a);
}

struct handshake {
	int to_parent, from_parent;
};

/*
 * As uid 1000 with no capability: watch while the log is open, let the
 * parent restrict it, then remove the watch (allowed) and try to set it
 * again (refused).
 */
static int watch_then_remove(void *arg)
{
	const struct handshake *h = arg;
	char c = 'w';
	int q;

	if (become_watcher(0))
		return 1;
	q = wl_wq_open(16);
	if (q < 0)
		return 1;
	if (wl_want_errno("watch_devices while the log is open", wl_watch_devices(q, 1, 0), 0))
		return 1;
	if (write(h->to_parent, &c, 1) != 1 || read(h->from_parent, &c, 1) != 1) {
		wl_diag("handshake with the parent: %s", strerror(errno));
		return 1;
	}
	if (wl_want_errno("watch_devices(-1) once the log is restricted",
			  wl_watch_devices(q, -1, 0), 0) ||
	    wl_want_errno("watch_devices again once the log is restricted",
			  wl_watch_devices(q, 1, 0), EPERM))
		return 1;
	return 0;
}

static enum wl_result removal_needs_nothing(void)
{
	int up[2], down[2];
	struct handshake h;
	enum wl_result res = WL_FAIL;
	pid_t pid;
	char c;

	WL_EXPECT(pipe(up) == 0 && pipe(down) == 0, "pipe: %s", strerror(errno));
	h.to_parent = up[1];
	h.from_parent = down[0];
	if (set_restrict(false))
		return WL_FAIL;
	pid = wl_spawn(watch_then_remove, &h);
	if (pid < 0)
		return WL_FAIL;
	close(up[1]);
	close(down[0]);
	if (read(up[0], &c, 1) == 1 && set_restrict(true) == 0 && write(down[1], &c, 1) == 1)
		res = WL_PASS;
	close(down[1]);
	if (wl_reap(pid, "the watcher") != 0)
		res = WL_FAIL;
	close(up[0]);
	set_restrict(false);
	return res;
}

static const struct wl_test tests[] = {
	{ "restricted_refuses_uid", restricted_refuses_uid },
	{ "restricted_refuses_other_caps", restricted_refuses_other_caps },
	{ "restricted_allows_cap_syslog", restricted_allows_cap_syslog },
	{ "unrestricted_allows_uid", unrestricted_allows_uid },
	{ "removal_needs_nothing", removal_needs_nothing },
};

static bool devices_syslog_applies(void)
{
	return strcmp(wl_profile(), "plain") == 0;
}

WL_SUITE_IF(suite_devices_syslog, tests, devices_syslog_applies);
