// SPDX-License-Identifier: GPL-2.0
/*
 * scenario_run.c - run one scenario variant: fork the owner, the watcher,
 * the setter and the triggerer, each under its own creds and label, and
 * drive them in order over SOCK_SEQPACKET pairs (no sleeps).
 *
 * Whether an event was delivered is decided without a timeout: after the
 * action, the watcher updates a "fence" key of its own, watched on the same
 * queue.  Posting is synchronous for every source here, so a record the
 * action posted is queued before the fence record; the watcher reads up to
 * the fence.  Actions whose record is posted later (async, e.g. unix GC)
 * get a bounded wait after the fence.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <keyutils.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
/* glibc's <fcntl.h> already defines what <linux/fcntl.h> would redefine. */
#define _LINUX_FCNTL_H
#include <linux/capability.h>
#include <linux/watch_queue.h>

#include "fdpass.h"
#include "label.h"
#include "mount_counts.h"
#include "request_key.h"
#include "scenario_run.h"
#include "vfs_util.h"
#include "watchpol_util.h"
#include "wl.h"

#define STEP_TIMEOUT_MS 20000	/* a party that says nothing this long has hung */

enum msg_kind {
	MSG_READY, MSG_QUEUE, MSG_GO, MSG_DONE, MSG_DROP, MSG_HAND_OFF, MSG_RESULT, MSG_EXIT,
};

struct msg {
	int32_t kind;
	int32_t err;		/* 0, an errno, or -1 for "diagnosed failure" */
	int64_t a, b;
};

struct proc {
	pid_t pid;
	int sock;		/* the runner's end */
};

static int send_msg(int sock, int kind, int err, int64_t a, int64_t b, int pass_fd)
{
	struct msg m = { .kind = kind, .err = err, .a = a, .b = b };

	if (wl_sendmsg_fd(sock, &m, sizeof(m), pass_fd)) {
		wl_diag("scenario: send message %d: %s", kind, strerror(errno));
		return -1;
	}
	return 0;
}

/* Receive one message of the wanted kind; *fd gets a passed fd (or -1). */
static int recv_msg(int sock, int kind, struct msg *m, int *fd)
{
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	ssize_t n;
	int got;

	if (fd)
		*fd = -1;
	if (poll(&pfd, 1, wl_slow_ms(STEP_TIMEOUT_MS)) != 1) {
		wl_diag("scenario: no message %d from a party (hung or died)", kind);
		return -1;
	}
	n = wl_recvmsg_fd(sock, m, sizeof(*m), &got);
	if (n != sizeof(*m) || m->kind != kind) {
		if (got >= 0)
			close(got);
		wl_diag("scenario: want message %d, got %zd bytes kind %d", kind, n,
			n == sizeof(*m) ? m->kind : -1);
		return -1;
	}
	if (fd)
		*fd = got;
	else if (got >= 0)
		close(got);
	return 0;
}

/* An unprivileged user namespace in which the caller is root. */
static int enter_userns(const struct scn_party *p)
{
	char map[32];

	if (unshare(CLONE_NEWUSER | (p->mntns ? CLONE_NEWNS : 0))) {
		wl_diag("unshare(CLONE_NEWUSER%s) as uid %u: %s",
			p->mntns ? "|CLONE_NEWNS" : "", p->uid, strerror(errno));
		return -1;
	}
	snprintf(map, sizeof(map), "0 %u 1", p->uid);
	if (wl_write_file("/proc/self/uid_map", map) ||
	    wl_write_file("/proc/self/setgroups", "deny"))
		return -1;
	snprintf(map, sizeof(map), "0 %u 1", p->gid);
	return wl_write_file("/proc/self/gid_map", map);
}

/*
 * "object" is not a domain under SELinux: a party labelled object (a key's
 * owner) keeps its domain and creates keys with that context instead.
 */
static int enter_label(const char *name)
{
	char l[128];

	if (strcmp(name, "object") == 0 && strcmp(wl_profile(), "selinux") == 0)
		return wl_label_lookup(name, l, sizeof(l)) ? -1 :
		       wl_write_file("/proc/self/attr/keycreate", l);
	return wl_label_enter(name);
}

/* Become the party: label, mount namespace, groups, uids, caps, user namespace. */
int scn_party_enter(const struct scn_party *p)
{
	struct wl_creds c = {
		.uid = p->uid, .euid = p->euid, .suid = p->suid, .gid = p->gid,
		.ngroups = p->ngroups,
	};

	memcpy(c.groups, p->groups, sizeof(p->groups));
	if (p->label[0] && enter_label(p->label))
		return -1;
	if (p->mntns && !p->userns && unshare(CLONE_NEWNS)) {
		wl_diag("unshare(CLONE_NEWNS): %s", strerror(errno));
		return -1;
	}
	if (p->caps && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)) {
		wl_diag("PR_SET_KEEPCAPS: %s", strerror(errno));
		return -1;
	}
	if (wl_drop_creds(&c))
		return -1;
	/* A uid change clears it; /proc/self/uid_map needs it set. */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)) {
		wl_diag("PR_SET_DUMPABLE: %s", strerror(errno));
		return -1;
	}
	if (p->caps && wl_set_caps(p->caps))
		return -1;
	return p->userns ? enter_userns(p) : 0;
}

static int proc_start(struct proc *pr, struct scn_ctx *c, const struct scn_party *who,
		      int (*fn)(struct scn_ctx *, int))
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		wl_diag("socketpair: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pr->pid = fork();
	if (pr->pid < 0) {
		wl_diag("fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pr->pid == 0) {
		close(sv[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (scn_party_enter(who))
			_exit(WL_EXIT_NO_CREDS);
		_exit(fn(c, sv[1]) ? 1 : 0);
	}
	close(sv[1]);
	pr->sock = sv[0];
	return 0;
}

/* Reap a party; true if it exited 0. */
static bool proc_end(struct proc *pr, bool kill_it)
{
	int status;

	if (pr->pid <= 0)
		return true;
	if (kill_it)
		kill(pr->pid, SIGKILL);
	close(pr->sock);
	if (waitpid(pr->pid, &status, 0) != pr->pid)
		return false;
	pr->pid = 0;
	if (!kill_it && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		wl_diag("scenario party exited with %s %d",
			WIFEXITED(status) ? "status" : "signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		return false;
	}
	return true;
}

struct drained {
	bool delivered, fence;
	unsigned int others;		/* records of the scenario's watch, other subtypes */
	unsigned int other_type, other_subtype;
};

/* Read the queue up to the fence record (and, for async actions, a while more). */
static int drain(struct scn_ctx *c, int q, struct drained *d)
{
	const struct scn_action *a = c->s->action;
	long deadline = wl_now_ms() + wl_slow_ms(5000), settle = 0;

	memset(d, 0, sizeof(*d));
	for (;;) {
		long left = (settle ? settle : deadline) - wl_now_ms();
		struct wl_record rec;
		int r;

		if (left <= 0 || (d->fence && d->delivered))
			break;
		r = wl_wq_read(q, &rec, (int)left);
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		if (rec.watch_id == SCN_FENCE_ID && rec.type == WATCH_TYPE_KEY_NOTIFY &&
		    rec.subtype == NOTIFY_KEY_UPDATED) {
			d->fence = true;
			if (!a->async)
				break;
			/*
			 * A kernel-posted event comes within milliseconds even
			 * under KASAN; 3 s here, 9 s in the debug boot.  One that
			 * came later would not pass as blocked: its post record
			 * would be missing from the evidence window (not-posted),
			 * or allowed and undelivered (unexplained).
			 */
			settle = wl_now_ms() + (wl_debug_kernel() ? 9000 : 3000);
		} else if (rec.watch_id == SCN_WATCH_ID && rec.type == a->type &&
			   rec.subtype == c->s->ev_subtype) {
			d->delivered = true;
		} else if (rec.watch_id == SCN_WATCH_ID && rec.type != WATCH_TYPE_META) {
			d->others++;
			d->other_type = rec.type;
			d->other_subtype = rec.subtype;
		}
	}
	if (!d->fence) {
		wl_diag("watcher: the fence record never arrived");
		return -1;
	}
	return 0;
}

/*
 * The watcher of an "observe read" row: read the key's payload, say ready
 * (or refused), and read it again once the triggerer is done: a changed
 * payload is the event, seen through the object itself.
 */
static int reader_main(struct scn_ctx *c, int sock)
{
	char before[64], after[64];
	long n1, n2;
	struct msg m;

	n1 = keyctl_read(c->key, before, sizeof(before));
	if (send_msg(sock, MSG_READY, n1 < 0 ? errno : 0, 0, 0, -1))
		return -1;
	if (n1 < 0)
		return 0;	/* refused: the runner records "blocked" */
	if (recv_msg(sock, MSG_GO, &m, NULL))
		return -1;
	n2 = keyctl_read(c->key, after, sizeof(after));
	if (n2 < 0) {
		wl_diag("watcher: read the key again: %s", strerror(errno));
		return -1;
	}
	if (n1 == n2 && memcmp(before, after, n1 < 64 ? n1 : 64) == 0) {
		wl_diag("watcher: the action left the key's payload as it was");
		return -1;
	}
	return send_msg(sock, MSG_RESULT, 0, 1, 0, -1);
}

/*
 * Why W's counter was withheld.  statmount() asks the set-watch hooks with
 * a query, which leaves no record; so W sets the watch the counter stands
 * for, on a queue of its own: hooks that refused the query refuse the watch
 * too, and record it.  If the watch is allowed, the counter was withheld
 * for the posts it would tell of (count_withheld_at_post()).  The errno
 * the watch failed with, or 0.
 */
static int counter_probe_watch(const char *path, bool sb)
{
	int q = wl_wq_open(16);
	long r;
	int err;

	if (q < 0)
		return -1;
	r = sb ? wl_watch_sb(AT_FDCWD, path, 0, q, SCN_PROBE_ID) :
		 wl_watch_mount(AT_FDCWD, path, 0, q, SCN_PROBE_ID);
	err = r ? errno : 0;
	wl_wq_close(q);
	if (err)
		wl_diag("watcher: the %s watch on %s is refused too: %s", sb ? "sb" : "mount",
			path, strerror(err));
	else
		wl_diag("watcher: the %s watch on %s is allowed: the counter is withheld "
			"for the posts it would tell of", sb ? "sb" : "mount", path);
	return err;
}

/*
 * The watcher of an "observe count" row: read the object's notification
 * counter with statmount() (the submount a/'s own for a mount object, the
 * superblock's for an sb object), say ready (or refused), and read it again
 * once the triggerer is done: a counter that moved tells W that T acted,
 * with no watch and no notification hook in the way.
 */
static int counter_main(struct scn_ctx *c, int sock)
{
	bool sb = c->s->source == SCN_SB;
	struct wl_mount_counts before, after;
	char path[160];
	struct msg m;
	int err;

	snprintf(path, sizeof(path), "%s%s", c->dir, sb ? "" : "/a");
	err = wl_mount_counts_by_point(path, &before) ? errno : 0;
	if (err && err != EACCES && err != EPERM)
		wl_diag("watcher: statmount %s: %s", path, strerror(err));
	/* A counter the LSMs would not let W read is withheld: refused. */
	if (!err && !(sb ? before.have_sb : before.have_mnt)) {
		wl_diag("watcher: statmount %s: no %s counter", path, sb ? "superblock" : "mount");
		err = counter_probe_watch(path, sb);
		if (err <= 0)
			err = err ? EIO : EACCES;
	}
	if (send_msg(sock, MSG_READY, err, 0, 0, -1))
		return -1;
	if (err)
		return 0;	/* refused: the runner records "blocked" */
	if (recv_msg(sock, MSG_GO, &m, NULL))
		return -1;
	errno = 0;
	if (wl_mount_counts_by_point(path, &after) || !(sb ? after.have_sb : after.have_mnt)) {
		wl_diag("watcher: statmount %s again: %s", path, errno ? strerror(errno) :
			"the counter was withheld this time");
		return -1;
	}
	wl_diag("watcher: %s counter of %s: %llu -> %llu", sb ? "superblock" : "mount", path,
		(unsigned long long)(sb ? before.sb_count : before.mnt_count),
		(unsigned long long)(sb ? after.sb_count : after.mnt_count));
	if (sb ? after.sb_count == before.sb_count : after.mnt_count == before.mnt_count) {
		wl_diag("watcher: the action left the counter as it was");
		return -1;
	}
	return send_msg(sock, MSG_RESULT, 0, 1, 0, -1);
}

/* The watcher's fence: a key of its own, watched on the scenario's queue. */
static int watch_fence(int q, key_serial_t *fence)
{
	*fence = add_key("user", "wl-fence", "0", 1, KEY_SPEC_PROCESS_KEYRING);
	if (*fence < 0 || keyctl(KEYCTL_WATCH_KEY, *fence, q, SCN_FENCE_ID)) {
		wl_diag("watcher: fence key: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* The watcher: open the queue, set (or hand over) the watch, set the fence. */
static int watcher_main(struct scn_ctx *c, int sock)
{
	enum wl_transport t = c->variant & SCN_V_RING ? WL_TRANSPORT_RING : WL_TRANSPORT_PIPE;
	struct drained d;
	key_serial_t fence;
	struct msg m;
	int q, err = 0;

	q = wl_queue_open(t, 256);
	if (q < 0)
		return -1;
	/*
	 * The fence is watched after the scenario's watch, so that a refused
	 * watch leaves no decision of W's but its own in the evidence window
	 * (a setter's watch is told apart by its creds: the fence comes first).
	 */
	if (c->s->setter.set && watch_fence(q, &fence))
		return -1;
	if (c->s->setter.set) {
		if (c->mfd >= 0)
			close(c->mfd);
		if (send_msg(sock, MSG_QUEUE, 0, 0, 0, q) || recv_msg(sock, MSG_READY, &m, NULL))
			return -1;
	} else if (c->s->action->upcall) {
		/*
		 * KEYCTL_WATCH_KEY waits until a key under construction is
		 * instantiated (lookup_user_key() without KEY_LOOKUP_PARTIAL):
		 * say ready first, the watch lands after the upcall is done.
		 */
		if (send_msg(sock, MSG_READY, 0, 0, 0, -1))
			return -1;
		err = scn_watch(c, q, SCN_WATCH_ID);
		if (err) {
			wl_diag("watcher: watch the constructed key: %s", strerror(err));
			return -1;
		}
	} else {
		err = scn_watch(c, q, SCN_WATCH_ID);
		/* Drop our copy of an fsmount fd before the runner goes on. */
		if (c->mfd >= 0)
			close(c->mfd);
		if (send_msg(sock, MSG_READY, err, 0, 0, -1))
			return -1;
		if (err)
			return 0;	/* refused: the runner records "blocked" */
	}
	if (!c->s->setter.set && watch_fence(q, &fence))
		return -1;
	if (recv_msg(sock, MSG_GO, &m, NULL))
		return -1;
	if (keyctl_update(fence, "1", 1)) {
		wl_diag("watcher: update the fence: %s", strerror(errno));
		return -1;
	}
	if (drain(c, q, &d))
		return -1;
	return send_msg(sock, MSG_RESULT, 0, d.delivered,
			d.others ? (d.others << 16 | d.other_type << 8 | d.other_subtype) : 0, -1);
}

/* The mainline column's watcher: mainline's mechanism for the row's event. */
static int mainline_main(struct scn_ctx *c, int sock)
{
	bool delivered;
	struct msg m;
	int fd = scn_mainline_watch(c);

	if (send_msg(sock, MSG_READY, fd < 0 ? -fd : 0, 0, 0, -1))
		return -1;
	if (fd < 0)
		return 0;	/* refused: the runner records "blocked" */
	if (recv_msg(sock, MSG_GO, &m, NULL) ||
	    scn_mainline_drain(c, fd, (uint64_t)m.a, &delivered))
		return -1;
	close(fd);
	return send_msg(sock, MSG_RESULT, 0, delivered, 0, -1);
}

static int setter_main(struct scn_ctx *c, int sock)
{
	return send_msg(sock, MSG_READY, scn_watch(c, c->qfd, SCN_WATCH_ID), 0, 0, -1);
}

/* Wait until the runner says the scenario is over (or goes away). */
static void wait_exit(int sock)
{
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	struct msg m;

	if (poll(&pfd, 1, -1) == 1)
		(void)!recv(sock, &m, sizeof(m), 0);
}

static int trigger_main(struct scn_ctx *c, int sock)
{
	struct msg m;

	/* watch-via: make the object in T's own namespace before the watch. */
	if (c->s->watch_via_trigger &&
	    send_msg(sock, MSG_READY, scn_trigger_ns_setup(c) ? -1 : 0, 0, 0, -1))
		return -1;
	/*
	 * Act only once the runner has dropped its references to the object:
	 * otherwise its close() of an fsmount fd can be the last one, and
	 * the runner, not the triggerer or the kernel, is T.
	 */
	if (recv_msg(sock, MSG_GO, &m, NULL))
		return -1;
	if (send_msg(sock, MSG_DONE, scn_act(c) ? -1 : 0, 0, 0, -1))
		return -1;
	/*
	 * watch-via: T's namespace, where the watch is, lives until the
	 * watcher has read its queue; its teardown posts records of its own.
	 */
	if (c->s->watch_via_trigger)
		wait_exit(sock);
	return 0;
}

/*
 * watch-via trigger: T first, in its own namespaces, with the object made
 * there; the watcher then reaches it through /proc/T/root.
 */
static int start_trigger_first(struct scn_ctx *c, struct proc *t)
{
	struct msg m;

	if (proc_start(t, c, &c->s->trigger, trigger_main) ||
	    recv_msg(t->sock, MSG_READY, &m, NULL) || m.err) {
		wl_diag("%s: the triggerer could not make the object in its namespace",
			c->s->name);
		return -1;
	}
	snprintf(c->via, sizeof(c->via), "/proc/%d/root", (int)t->pid);
	return 0;
}

/* The owner: create the object, then serve perm-drop and the fd hand-off. */
static int owner_main(struct scn_ctx *c, int sock)
{
	struct msg m;

	if (scn_object_create(c)) {
		send_msg(sock, MSG_READY, -1, 0, 0, -1);
		return -1;
	}
	if (send_msg(sock, MSG_READY, 0, c->key, c->member, -1))
		return -1;
	for (;;) {
		struct pollfd pfd = { .fd = sock, .events = POLLIN };
		int err;

		if (poll(&pfd, 1, -1) != 1 || recv(sock, &m, sizeof(m), 0) != sizeof(m))
			return 0;	/* the runner closed: the scenario is over */
		if (m.kind == MSG_EXIT)
			return 0;
		err = m.kind == MSG_DROP ? scn_object_drop_view(c) :
		      c->s->action->upcall ? scn_object_request(c) :
		      c->s->action->looker ? 0 : scn_object_hand_off(c);
		if (send_msg(sock, MSG_DONE, err, 0, 0, -1))
			return -1;
	}
}

static int ask(struct proc *pr, int kind)
{
	struct msg m;

	if (send_msg(pr->sock, kind, 0, 0, 0, -1) || recv_msg(pr->sock, MSG_DONE, &m, NULL))
		return -1;
	return m.err ? -1 : 0;
}

/* Set the fput switch for a destruction variant; returns the old value. */
static int set_fput(unsigned int variant, char *old, size_t len)
{
	old[0] = '\0';
	if (!(variant & SCN_V_FPUT))
		return 0;
	if (wl_read_file(WL_FPUT_SYSCTL, old, len) <= 0)
		return -1;
	return wl_write_file(WL_FPUT_SYSCTL, variant & SCN_V_FPUT_ON ? "1" : "0");
}

/* Watcher ready and watch set (by the watcher or the setter): 0, or the errno. */
static int set_watch(struct scn_ctx *c, struct proc *w, struct proc *setter)
{
	struct msg m;
	int err;

	if (!c->s->setter.set) {
		if (recv_msg(w->sock, MSG_READY, &m, NULL))
			return -1;
		return m.err;
	}
	if (recv_msg(w->sock, MSG_QUEUE, &m, &c->qfd) || c->qfd < 0)
		return -1;
	err = proc_start(setter, c, &c->s->setter, setter_main);
	close(c->qfd);
	if (err || recv_msg(setter->sock, MSG_READY, &m, NULL))
		return -1;
	err = m.err;
	if (!proc_end(setter, false) || send_msg(w->sock, MSG_READY, 0, 0, 0, -1))
		return -1;
	return err;
}

/* The owner's request_key() has started the upcall: learn the key's id. */
static int read_upcall_key(struct scn_ctx *c)
{
	int fd = open(WL_UPCALL_ID_FIFO, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char buf[16] = "";
	ssize_t n;

	if (fd < 0 || poll(&pfd, 1, STEP_TIMEOUT_MS) != 1) {
		char why[160] = "no " WL_UPCALL_LOG;
		int log = open(WL_UPCALL_LOG, O_RDONLY | O_CLOEXEC);

		if (log >= 0) {
			ssize_t n = read(log, why, sizeof(why) - 1);

			why[n > 0 ? n : 0] = '\0';
			close(log);
		}
		wl_diag("the request-key upcall never reported its key (%s)", why);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	c->key = n > 0 ? atoi(buf) : 0;
	return c->key > 0 ? 0 : -1;
}

/* "trigger kernel": let the upcall go on and instantiate the key. */
static int kernel_trigger(struct proc *owner)
{
	struct msg m;
	int fd = open(WL_UPCALL_GO_FIFO, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, "g", 1) != 1) {
		wl_diag("release the upcall: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	/* The requester's request_key() returns once the key is instantiated. */
	if (recv_msg(owner->sock, MSG_DONE, &m, NULL) || m.err) {
		wl_diag("the owner's request_key() failed");
		return -1;
	}
	return 0;
}

/* What the watcher party runs: how it observes the action. */
static int (*observer_main(const struct scn_ctx *c))(struct scn_ctx *, int)
{
	if (c->mech != SCN_MECH_WATCH_QUEUE)
		return mainline_main;
	switch (c->s->observe) {
	case SCN_OBSERVE_READ:
		return reader_main;
	case SCN_OBSERVE_COUNT:
		return counter_main;
	default:
		return watcher_main;
	}
}

static enum scn_result run_parties(struct scn_ctx *c, struct wl_evidence *ev, int *watch_err)
{
	const struct scenario *s = c->s;
	struct proc owner = { 0 }, w = { 0 }, setter = { 0 }, t = { 0 };
	enum scn_result res = SCN_UNSET;
	int64_t fence = 0;
	struct msg m;
	int werr;

	if (s->owner.set && scn_owner_creates(s)) {
		if (proc_start(&owner, c, &s->owner, owner_main) ||
		    recv_msg(owner.sock, MSG_READY, &m, NULL) || m.err)
			goto out;
		c->key = (int32_t)m.a;
		c->member = (int32_t)m.b;
		if (s->action->upcall &&
		    (send_msg(owner.sock, MSG_HAND_OFF, 0, 0, 0, -1) || read_upcall_key(c)))
			goto out;
	}
	if (s->watch_via_trigger && start_trigger_first(c, &t))
		goto out;
	if (proc_start(&w, c, &s->watcher, observer_main(c)))
		goto out;
	werr = set_watch(c, &w, &setter);
	if (werr < 0)
		goto out;
	if (werr) {
		/* The watch was refused: nothing can be delivered. */
		if (werr != EACCES && werr != EPERM) {
			wl_diag("setting the watch failed with %s, not a policy denial",
				strerror(werr));
			goto out;
		}
		wl_diag("%s: the %s was refused (%s)", s->name,
			s->observe == SCN_OBSERVE_COUNT ? "counter" : "watch", strerror(werr));
		wl_evidence_take(ev);
		*watch_err = werr;
		res = SCN_BLOCKED;
		goto out;
	}
	if (s->perm_drop && ask(&owner, MSG_DROP))
		goto out;
	/*
	 * An fd hand-off (fsmount-pass-close) is complete, the owner's copy
	 * closed, before the triggerer starts: the triggerer's close is last.
	 */
	if (s->owner.set && s->action->hand_off) {
		if (proc_start(&owner, c, &s->owner, owner_main) ||
		    recv_msg(owner.sock, MSG_READY, &m, NULL))
			goto out;
		c->owner_pid = owner.pid;
		c->owner_fd = c->mfd;
		close(c->mfd);
		c->mfd = -1;
		if (ask(&owner, MSG_HAND_OFF))
			goto out;
	}
	if (s->trigger.kernel) {
		if (kernel_trigger(&owner))
			goto out;
	} else if (!t.pid && proc_start(&t, c, &s->trigger, trigger_main)) {
		goto out;
	}
	/* From here on the runner holds no reference to the object. */
	if (c->mfd >= 0) {
		close(c->mfd);
		c->mfd = -1;
	}
	if (c->pass[0] >= 0) {
		close(c->pass[0]);
		close(c->pass[1]);
		c->pass[0] = c->pass[1] = -1;
	}
	if (t.pid && send_msg(t.sock, MSG_GO, 0, 0, 0, -1))
		goto out;
	if (t.pid && (recv_msg(t.sock, MSG_DONE, &m, NULL) || m.err)) {
		wl_diag("%s: the triggerer's action failed", s->name);
		goto out;
	}
	if (!s->watch_via_trigger && !proc_end(&t, false))
		goto out;
	if (c->mech != SCN_MECH_WATCH_QUEUE && (fence = scn_mainline_fence(c)) < 0)
		goto out;
	/* The action's records, before the fence's own post joins them. */
	wl_evidence_take(ev);
	if (send_msg(w.sock, MSG_GO, 0, fence, 0, -1) || recv_msg(w.sock, MSG_RESULT, &m, NULL))
		goto out;
	/* An event the kernel posts later came (or not) while the watcher waited. */
	if (s->action->async)
		wl_evidence_take(ev);
	if (m.b)
		wl_diag("%s: %lld other record(s) on the watch, last type %lld subtype %lld",
			s->name, (long long)(m.b >> 16), (long long)((m.b >> 8) & 0xff),
			(long long)(m.b & 0xff));
	res = m.a ? SCN_DELIVERED : SCN_BLOCKED;
	if (s->watch_via_trigger && !proc_end(&t, false))
		res = SCN_UNSET;
out:
	proc_end(&t, true);
	proc_end(&setter, true);
	if (res != SCN_UNSET && !proc_end(&w, false))
		res = SCN_UNSET;
	proc_end(&w, true);
	proc_end(&owner, true);
	return res;
}

/*
 * "kernel-events allow|deny": the policy in force, its kernel_events line
 * replaced, for the length of the row (wp_restore_policy() puts it back).
 */
static int set_kernel_events(const struct scenario *s)
{
	char *text, *out, *line, *save;
	size_t len = 0;
	int r;

	if (!s->kernel_events[0])
		return 0;
	if (!wp_save_policy() || !(text = wp_read_policy()))
		return -1;
	out = malloc(strlen(text) + 32);
	if (!out) {
		free(text);
		return -1;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, "kernel_events", 13) && strcmp(line, "end"))
			len += sprintf(out + len, "%s\n", line);
	sprintf(out + len, "kernel_events %s\n", s->kernel_events);
	r = wp_write_policy_str(out);
	if (r)
		wl_diag("%s: kernel_events %s: %s", s->name, s->kernel_events, strerror(-r));
	free(out);
	free(text);
	return r ? -1 : 0;
}

/* One run of a row, observed through mech. */
static enum scn_result run_mechanism(const struct scenario *s, unsigned int variant,
				     enum scn_mechanism mech, struct wl_evidence *ev,
				     int *watch_err)
{
	struct scn_ctx c = {
		.s = s, .variant = variant, .mfd = -1, .pass = { -1, -1 }, .qfd = -1,
		.mech = mech,
	};
	enum scn_result res = SCN_UNSET;
	char old[8];

	if (set_fput(variant, old, sizeof(old)))
		return SCN_UNSET;
	if (set_kernel_events(s) == 0) {
		if (scn_fixture_setup(&c) == 0)
			res = run_parties(&c, ev, watch_err);
		scn_fixture_teardown(&c);
		if (s->kernel_events[0] && !wp_restore_policy())
			res = SCN_UNSET;
	}
	if (old[0] && wl_write_file(WL_FPUT_SYSCTL, old))
		res = SCN_UNSET;
	return res;
}

enum scn_result scn_run(const struct scenario *s, unsigned int variant,
			struct wl_evidence *ev, int *watch_err)
{
	return run_mechanism(s, variant, SCN_MECH_WATCH_QUEUE, ev, watch_err);
}

/* Who W is, as the records name it: a party's uid and its label's text. */
static void evidence_party(const struct scn_party *q, unsigned int *uid, char *label, size_t len)
{
	*uid = q->uid;
	label[0] = '\0';
	if (!strcmp(wl_profile(), "plain"))
		return;		/* no LSM labels anyone: the records say "-" */
	if ((q->label[0] ? wl_label_lookup(q->label, label, len) :
			   wl_label_current(label, len)) < 0)
		label[0] = '\0';
}

/*
 * A superblock counter withheld from a W whose watch is allowed
 * (counter_probe_watch()): the LSMs whose post hook judges superblock
 * events refuse its query to a reader their rules bind (the kernel-doc of
 * security_watch_sb(), kernel-patches 0022): watchpol while the policy in
 * force, read back, judges each post (wp_sb_posts_judged()); Smack when W
 * lacks CAP_MAC_OVERRIDE.  Writes "read:WHO" (the first of them in the LSM
 * order, watchpol before Smack, as a record names the first LSM that
 * refused) and returns true when one of them is in force; else keeps the
 * record's "unexplained" and returns false.
 */
static bool count_withheld_at_post(const struct scenario *s, char *where, size_t len)
{
	bool by_watchpol, by_smack;

	if (s->source != SCN_SB)
		return false;
	by_watchpol = wl_have_watchpol() && wp_sb_posts_judged();
	by_smack = wl_boot_has_lsm("smack") &&
		   !(s->watcher.caps & (1ULL << CAP_MAC_OVERRIDE));
	if (!by_watchpol && !by_smack)
		return false;
	/* The first in the LSM order, as for records; the report adds the rest. */
	snprintf(where, len, "read:%s", by_watchpol ? "watchpol" : "smack");
	return true;
}

static void evidence_parties(const struct scenario *s, struct wl_evidence_parties *w)
{
	static const char *const hooks[SCN_NR_SOURCES] = {
		[SCN_KEY] = "watch_key", [SCN_MOUNT] = "watch_mount", [SCN_SB] = "watch_sb",
		[SCN_BLOCK] = "watch_devices", [SCN_USB] = "watch_devices",
	};

	memset(w, 0, sizeof(*w));
	w->hook = hooks[s->source];
	w->nw = s->setter.set ? 2 : 1;
	evidence_party(s->setter.set ? &s->setter : &s->watcher, &w->w_uid[0], w->w_label[0],
		       sizeof(w->w_label[0]));
	if (s->setter.set)
		evidence_party(&s->watcher, &w->w_uid[1], w->w_label[1], sizeof(w->w_label[1]));
}

/*
 * "posted-as": the t_uid of every post record of the event to W must be the
 * party the row names (the kernel: "kernel"), in each cell the event was
 * posted in (delivered, or refused at the post).
 */
static void check_posted_as(const struct scenario *s, const struct wl_evidence *ev,
			    const struct wl_evidence_parties *w, struct scn_cell *cell)
{
	char want[16], got[96];
	unsigned int n;

	if (!s->posted_as || !(cell->got == SCN_DELIVERED ||
			       (cell->got == SCN_BLOCKED && !strncmp(cell->where, "post:", 5))))
		return;
	if (s->posted_as == SCN_POSTED_KERNEL)
		snprintf(want, sizeof(want), "kernel");
	else
		snprintf(want, sizeof(want), "%u",
			 (unsigned int)(s->posted_as == SCN_POSTED_OWNER ? s->owner.uid :
					s->trigger.uid));
	n = wl_evidence_posters(ev, w, wl_evidence_type_name(s->action->type), s->ev_subtype,
				got, sizeof(got));
	if (!n)
		snprintf(cell->misattributed, sizeof(cell->misattributed),
			 "no post record of the event names W; the row says it is posted as %s",
			 want);
	else if (strcmp(got, want))
		snprintf(cell->misattributed, sizeof(cell->misattributed),
			 "posted as t_uid=%s, the row says %s (t_uid=%s)", got,
			 s->posted_as == SCN_POSTED_KERNEL ? "kernel" :
			 s->posted_as == SCN_POSTED_OWNER ? "owner" : "trigger", want);
}

int scn_run_cell(const struct scenario *s, unsigned int variant, const char *profile,
		 const char *model, struct wl_evidence *ev, struct scn_cell *cell)
{
	enum scn_mechanism mech = scn_model_mainline(model) ? scn_mainline_mechanism(s) :
							      SCN_MECH_WATCH_QUEUE;
	struct wl_evidence_parties w;

	memset(cell, 0, sizeof(*cell));
	cell->explained = true;
	/* A bring-your-own-LSM boot has no expectations to judge against. */
	cell->want = wl_byo_lsm() ? SCN_UNSET : scn_expected(s, profile, model, variant);
	cell->want_where = cell->want == SCN_BLOCKED ?
		scn_expected_where(s, profile, model, variant) : "";
	if (cell->want == SCN_UNSET && !wl_byo_lsm()) {
		wl_diag("%s: no expectation for %s/%s", s->name, profile, model);
		return -1;
	}
	if (mech == SCN_MECH_NONE) {
		/* Mainline has no such event: nothing to watch, nothing to run. */
		cell->got = SCN_NOT_AVAILABLE;
		snprintf(cell->where, sizeof(cell->where), "no-mainline-event");
		return 0;
	}
	if (wl_evidence_begin(ev))
		return -1;
	cell->got = run_mechanism(s, variant, mech, ev, &cell->watch_err);
	wl_evidence_end(ev);
	evidence_parties(s, &w);
	if (cell->got == SCN_BLOCKED) {
		cell->explained = wl_evidence_blocked(ev, &w, s->observe == SCN_OBSERVE_WATCH ? "watch" : "read",
						      cell->watch_err,
						      wl_evidence_type_name(s->action->type),
						      s->ev_subtype, cell->where,
						      sizeof(cell->where));
		if (!cell->explained && s->observe == SCN_OBSERVE_COUNT)
			cell->explained = count_withheld_at_post(s, cell->where,
								 sizeof(cell->where));
		if (strcmp(cell->where, "not-posted") == 0)
			cell->got = SCN_NOT_POSTED;
	}
	if (ev->quiet) {
		char who[96];

		/* Without a consumer only refused posts are logged: count them all. */
		cell->posts = wl_evidence_posters(ev, &w, wl_evidence_type_name(s->action->type),
						  s->ev_subtype, who, sizeof(who));
		if (cell->got != SCN_DELIVERED)
			cell->posts = 0;
		return 0;
	}
	/* Only the watch_queue posts through the hook that records a poster. */
	if (mech == SCN_MECH_WATCH_QUEUE)
		check_posted_as(s, ev, &w, cell);
	wl_evidence_verdicts(ev, &w, wl_evidence_type_name(s->action->type), s->ev_subtype,
			     &cell->verdict_allow, &cell->verdict_deny);
	return 0;
}
