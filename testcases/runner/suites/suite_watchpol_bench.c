// SPDX-License-Identifier: GPL-2.0
/*
 * suite_watchpol_bench.c - the per-event cost of posting a notification to
 * 1 and 8 queues, under each LSM configuration this boot offers.  It prints
 * figures (BENCH lines), not verdicts: the test fails on a real error (a
 * system call, a record missing or extra, a label that is not what the
 * configuration says), never on a timing.  `make bench` boots the kernel
 * with the lsm= lists that give every configuration and prints them side by
 * side; `make test` runs it in every boot.
 *
 * What is timed: keyctl_update() on three keys, one watched by no queue, one
 * by 1 queue and one by 8 (pipe queues), in blocks of BENCH_BLOCK updates
 * per key, the three keys' blocks back to back in a rotating order.  Between
 * blocks the runner drains every queue, untimed, and checks that each holds
 * exactly one "key updated" record per update.  Per update and queue:
 *
 *	q1 = t(1 queue) - t(no queue)		q8 = (t(8 queues) - t(no queue)) / 8
 *
 * Each block also times a reference operation, BENCH_BLOCK getppid()
 * calls: no LSM hooks it and it posts nothing, so it moves only with the
 * host's load and the guest's speed.  Every figure is also given in units
 * of it (n1 = q1 / ref, n8 = q8 / ref, taken per round), and the goal
 * ratios (harness/bench.sh) come from those: boots differ by the host's
 * load more than by the effects measured.
 *
 * Who: the runner (root) owns the keys, with View and Write for others.
 * The watches are set by a watcher child (uid 1000, the watcher label), so
 * every watch carries the watcher's creds.  The updates are made by a
 * triggerer child (uid 1001 keeping only CAP_KILL, a label per
 * configuration), so every post takes an LSM's cross-credential path:
 * Smack looks for a write rule from the triggerer's label to the
 * watcher's in the triggerer's rule list; watchpol finds the uids differ,
 * looks its post rules up for the label pair and checks CAP_KILL (which
 * lets its schaufler and strict DAC part allow the post: the costliest way
 * a cross-uid post is allowed).  Under none watchpol returns at once;
 * every model's verdict is evaluated and recorded only while a consumer
 * holds watchpol/log open (the -consumer configurations).
 *
 * Noise: under TCG one run of one configuration says little, and the host's
 * load shows in every timing.  A round times 30 blocks per key and keeps
 * each key's fastest block (report()).  The configurations a boot offers
 * run interleaved, one round each in turn (A B C A B C ...), after one
 * warm-up round each; each BENCH line gives the median over the rounds, and
 * their quartiles and min and max as the spread.
 *
 * The configurations, by what the boot runs (lsm= and profile):
 *	no-lsm				lsm=capability: no LSM has a post hook
 *	smack-same-label		the triggerer has the watcher's label:
 *					Smack's (and watchpol's) fast path
 *	smack-lab-rules			(no watchpol) the triggerer label wlT with
 *					the lab's 3 rules; the write rule to wlW
 *					is the first Smack looks at
 *	smack-100-rules			the triggerer label wlbT with 100 rules;
 *					the write rule to wlW is the last
 *	watchpol-none			default none
 *	watchpol-strict-100-rules	default strict, enforce 1, 100 post rules
 *					for the triggerer's label, one naming the
 *					watcher's (smack profile: Smack's own lab
 *					rules allow the post too)
 *	watchpol-strict-1-rule		selinux: SELinux rejects the 99 made-up
 *					labels; the one real rule
 *	watchpol-strict-no-labels	plain: no labels, only the DAC part
 * `make bench` (watchlab.bench=full on the command line) adds, so that
 * each goal's comparison is made inside one boot:
 *	watchpol-none-consumer		none, with watchpol/log held open
 *	smack-lab-rules			also with watchpol (at none) in the boot
 *	watchpol-strict-1-rule		smack: the pair's rule alone
 *	watchpol-strict-10000-rules	smack: the 100 rules and 9900 more
 *					between the bench labels
 *	watchpol-strict-100-consumer	the 100 rules, with watchpol/log open
 * With watchpol in the boot, the Smack configurations run with its policy
 * at "default none" (watchpol=none in the BENCH line); without it, the
 * line says watchpol=absent.
 *
 * Clock: `make bench` boots QEMU with -icount shift=0,sleep=off unless
 * BENCH_CLOCK=wall, and says so with watchlab.clock=icount.  The TSC then
 * counts guest instructions (one per nanosecond of guest time), the figures
 * are instructions and every round gives the same one; the fastest block
 * still leaves out the blocks a timer tick landed in.
 *
 * bench_watch_cost (watchlab.bench=full only): what setting a watch costs
 * under each watchpol model this boot offers, for each set-watch hook
 * (BENCH setwatch lines).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <keyutils.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>
#include <linux/capability.h>
/* glibc's <fcntl.h> already defines what <linux/fcntl.h> would redefine. */
#define _LINUX_FCNTL_H
#include <linux/watch_queue.h>

#include "devices_util.h"
#include "label.h"
#include "vfs_util.h"
#include "watchpol_util.h"
#include "wl.h"

#define BENCH_W_UID 1000
#define BENCH_T_UID 1001
/* Updates per key per timed block: fewer than a queue's slots. */
#define BENCH_BLOCK 200
#define BENCH_QSLOTS 256
#define BENCH_NQ 8
#define BENCH_MAX_CFGS 8
#define BENCH_MAX_ROUNDS 15
#define BENCH_MAX_BLOCKS 30

/* The Smack bench labels: a triggerer and the objects of its other rules. */
#define BENCH_SMACK_T "wlbT"
#define BENCH_SMACK_OTHER "wlbX"
#define BENCH_SMACK_RULES 100
#define BENCH_MANY_RULES 10000
#define SMACK_FLOOR "_"

/* What a block times: the three keys' updates, then the reference. */
enum { K0, K1, K8, NKEYS, REF = NKEYS, NTIMED };

/*
 * What every configuration of a boot posts to: the same keys and queues,
 * so no configuration gets a luckier memory layout than another.
 */
struct bench_obj {
	key_serial_t key[NKEYS];
	int q[1 + BENCH_NQ];	/* q[0] watches key[K1], q[1..8] key[K8] */
	char w_seen[128];	/* the watcher's label, as it read it */
};

struct bench_cfg {
	char name[48];
	const char *watchpol;	/* "absent", "none" or "strict" */
	bool consumer;		/* hold watchpol/log open during its rounds */
	char t_label[128];	/* the triggerer's label; "" in plain */
	bool same_label;	/* the triggerer has the watcher's label */
	char *policy;		/* watchpol policy for its rounds; NULL: none */
	char *control;		/* strict: the policy less the pair's rule */
	const struct bench_obj *o;
	char t_seen[128];	/* the triggerer's label, as it read it */
	uint64_t ticks[BENCH_MAX_ROUNDS][BENCH_MAX_BLOCKS][NTIMED];
};

/* What the triggerer sends after each block. */
struct bench_msg {
	int err;		/* errno of a failed update, else 0 */
	uint64_t ticks[NTIMED];
};

struct bench {
	char lsm[128];		/* /sys/kernel/security/lsm */
	char w_label[128];	/* the watcher's label; "" in plain */
	struct bench_obj o;
	struct bench_cfg cfg[BENCH_MAX_CFGS];
	unsigned int ncfg, rounds, blocks;
	bool full;		/* watchlab.bench=full: `make bench` */
	bool icount;		/* watchlab.clock=icount: TSC ticks are instructions */
};

static bool lsm_active(const struct bench *b, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = b->lsm; (p = strstr(p, name)); p += n)
		if ((p == b->lsm || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

/* The calling process's label, or "-" where no LSM gives one. */
static void own_label(char *buf, size_t len)
{
	if (wl_label_current(buf, len) <= 0)
		snprintf(buf, len, "-");
}

/* ---- Smack rules and watchpol policies ---- */


/*
 * BENCH_SMACK_RULES rules for the bench triggerer: write to the watcher,
 * to 98 other labels, and to the floor (the runner's keys and pipes, the
 * console).  Smack puts each new rule at the head of the subject's list and
 * smk_access_entry() scans the list from there, so the rule to the watcher,
 * loaded first, is the last one a post from wlbT finds.
 */
static int smack_bench_rules(const char *w_label)
{
	char obj[32];

	if (wl_smack_rule(BENCH_SMACK_T, w_label, "w"))
		return -1;
	for (int i = 0; i < BENCH_SMACK_RULES - 2; i++) {
		snprintf(obj, sizeof(obj), BENCH_SMACK_OTHER "%d", i);
		if (wl_smack_rule(BENCH_SMACK_T, obj, "w"))
			return -1;
	}
	return wl_smack_rule(BENCH_SMACK_T, SMACK_FLOOR, "rwxa");
}

/*
 * watchpol's strict policy: post rules for t from the same objects as the
 * Smack bench rules (the watcher, 98 others, the floor); with_pair false
 * leaves out the rule to the watcher.  Returns a malloc'd text.
 */
static char *strict_policy(const char *t, const char *w, bool with_pair, bool others)
{
	size_t size = 16384, pos;
	char *p = malloc(size);

	if (!p)
		return NULL;
	pos = snprintf(p, size, "default strict\nenforce 1\n");
	if (with_pair)
		pos += snprintf(p + pos, size - pos, "post %s %s\n", t, w);
	for (int i = 0; others && i < BENCH_SMACK_RULES - 2; i++)
		pos += snprintf(p + pos, size - pos, "post %s " BENCH_SMACK_OTHER "%d\n", t, i);
	if (others)
		snprintf(p + pos, size - pos, "post %s " SMACK_FLOOR "\n", t);
	return p;
}

/*
 * strict with n post rules: the 100 of strict_policy() for t, then pairs
 * between the other bench labels (each one a distinct resolved pair) up to
 * n.  Returns a malloc'd text.
 */
static char *many_policy(const char *t, const char *w, bool with_pair, unsigned int n)
{
	char *head = strict_policy(t, w, with_pair, true), *p;
	char labels[BENCH_SMACK_RULES + 2][128];
	unsigned int nl = 0, have = BENCH_SMACK_RULES;
	size_t size = (size_t)n * 64 + 16384, pos;

	if (!head)
		return NULL;
	p = malloc(size);
	if (!p) {
		free(head);
		return NULL;
	}
	pos = snprintf(p, size, "%s", head);
	free(head);
	for (int i = 0; i < BENCH_SMACK_RULES - 2; i++)
		snprintf(labels[nl++], sizeof(labels[0]), BENCH_SMACK_OTHER "%d", i);
	snprintf(labels[nl++], sizeof(labels[0]), "%s", BENCH_SMACK_T);
	snprintf(labels[nl++], sizeof(labels[0]), "%s", SMACK_FLOOR);
	snprintf(labels[nl++], sizeof(labels[0]), "%s", w);
	for (unsigned int a = 0; a < nl && have < n; a++)
		for (unsigned int b = 0; b < nl && have < n; b++, have++)
			pos += snprintf(p + pos, size - pos, "post %s %s\n", labels[a], labels[b]);
	return p;
}

/* ---- the configurations ---- */

/* A configuration; policy (copied) is watchpol's for its rounds, or NULL. */
static struct bench_cfg *add_cfg(struct bench *b, const char *name, const char *watchpol,
				 const char *t_label, const char *policy)
{
	struct bench_cfg *c = &b->cfg[b->ncfg++];

	snprintf(c->name, sizeof(c->name), "%s", name);
	c->watchpol = watchpol;
	snprintf(c->t_label, sizeof(c->t_label), "%s", t_label);
	c->same_label = !strcmp(t_label, b->w_label);
	c->o = &b->o;
	c->policy = policy ? strdup(policy) : NULL;
	if (policy && !c->policy) {
		wl_diag("bench: strdup: %s", strerror(errno));
		return NULL;
	}
	return c;
}

/* "unresolved_rules" from watchpol's stats, or -1. */
static long unresolved_rules(void)
{
	static char buf[8192];
	const char *p;

	if (wl_try_read(WP_STATS, buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "\nunresolved_rules ");
	return p ? strtol(p + strlen("\nunresolved_rules "), NULL, 10) : -1;
}

/*
 * make bench, Smack: strict with the pair's rule alone, with 10000 rules,
 * and with the 100 rules and a consumer; the 10000 must all resolve.
 */
static int extra_strict(struct bench *b, const struct bench_cfg *c100,
			const char *t_label)
{
	struct bench_cfg *c1, *cn, *cc;
	long u;
	int r;

	c1 = add_cfg(b, "watchpol-strict-1-rule", "strict", t_label, NULL);
	cn = add_cfg(b, "watchpol-strict-10000-rules", "strict", t_label, NULL);
	cc = add_cfg(b, "watchpol-strict-100-consumer", "strict", t_label, c100->policy);
	if (!c1 || !cn || !cc)
		return -1;
	cc->consumer = true;
	c1->policy = strict_policy(t_label, b->w_label, true, false);
	c1->control = strict_policy(t_label, b->w_label, false, false);
	cn->policy = many_policy(t_label, b->w_label, true, BENCH_MANY_RULES);
	cn->control = many_policy(t_label, b->w_label, false, BENCH_MANY_RULES);
	if (!c1->policy || !c1->control || !cn->policy || !cn->control || !cc->policy)
		return -1;
	r = wp_write_policy_str(cn->policy);
	u = r ? -1 : unresolved_rules();
	if (r || u) {
		wl_diag("bench: the %u-rule policy: %s, %ld rules unresolved",
			BENCH_MANY_RULES, strerror(-r), u);
		return -1;
	}
	return 0;
}

/* The configurations this boot offers; 0, or -1 (diagnosed). */
static int plan(struct bench *b)
{
	bool wp = wl_have_watchpol(), smack;
	const char *none = wp ? "default none\n" : NULL;
	const char *wp_smack = wp ? "none" : "absent";
	char t_label[128];
	struct bench_cfg *c;
	int r;

	if (wl_try_read("/sys/kernel/security/lsm", b->lsm, sizeof(b->lsm)) <= 0) {
		wl_diag("bench: read /sys/kernel/security/lsm: %s", strerror(errno));
		return -1;
	}
	b->lsm[strcspn(b->lsm, "\n")] = '\0';
	smack = lsm_active(b, "smack");
	if (wl_label_lookup("watcher", b->w_label, sizeof(b->w_label)) ||
	    wl_label_lookup("triggerer", t_label, sizeof(t_label)))
		return -1;

	if (!wp && !smack &&
	    !add_cfg(b, strcmp(b->lsm, "capability") ? "no-watchpol" : "no-lsm",
		     "absent", t_label, NULL))
		return -1;
	if (smack) {
		if (smack_bench_rules(b->w_label) ||
		    !add_cfg(b, "smack-same-label", wp_smack, b->w_label, none) ||
		    ((!wp || b->full) &&
		     !add_cfg(b, "smack-lab-rules", wp_smack, t_label, none)) ||
		    !add_cfg(b, "smack-100-rules", wp_smack, BENCH_SMACK_T, none))
			return -1;
	}
	if (!wp)
		return 0;

	/* With Smack and full, smack-lab-rules is this configuration. */
	if (!(smack && b->full) && !add_cfg(b, "watchpol-none", "none", t_label, none))
		return -1;
	if (!smack && b->full) {
		c = add_cfg(b, "watchpol-none-consumer", "none", t_label, none);
		if (!c)
			return -1;
		c->consumer = true;
	}
	/* Its policy is set below: which rules it can have depends on the LSM. */
	c = add_cfg(b, "watchpol-strict-100-rules", "strict", t_label, NULL);
	if (!b->w_label[0]) {
		/* plain: no labels to name, only the DAC part applies. */
		snprintf(c->name, sizeof(c->name), "watchpol-strict-no-labels");
		c->policy = strict_policy("", "", false, false);
		return c->policy ? 0 : -1;
	}
	c->policy = strict_policy(t_label, b->w_label, true, true);
	c->control = strict_policy(t_label, b->w_label, false, true);
	if (!c->policy || !c->control)
		return -1;
	r = wp_write_policy_str(c->policy);
	if (!r && b->full && smack && extra_strict(b, c, t_label))
		return -1;
	if (r == -EINVAL) {
		/* SELinux rejects labels its policy does not define. */
		snprintf(c->name, sizeof(c->name), "watchpol-strict-1-rule");
		free(c->policy);
		free(c->control);
		c->policy = strict_policy(t_label, b->w_label, true, false);
		c->control = strict_policy(t_label, b->w_label, false, false);
		if (!c->policy || !c->control)
			return -1;
		r = wp_write_policy_str(c->policy);
	}
	if (!r)
		r = wp_write_policy_str(none);
	if (r) {
		wl_diag("bench: load the %s policy: %s", c->name, strerror(-r));
		return -1;
	}
	return 0;
}

/* ---- the watcher: sets the watches, then leaves ---- */

struct watcher_arg {
	const struct bench_obj *o;
	int label_fd;		/* where to write its label */
};

static int watcher(void *arg)
{
	struct watcher_arg *a = arg;
	const struct bench_obj *o = a->o;
	char label[128];

	for (int i = 0; i <= BENCH_NQ; i++) {
		key_serial_t key = o->key[i ? K8 : K1];

		if (keyctl_watch_key(key, o->q[i], i + 1)) {
			wl_diag("bench: watch key %d on queue %d as uid %d: %s", key, i,
				BENCH_W_UID, strerror(errno));
			return 1;
		}
	}
	own_label(label, sizeof(label));
	return write(a->label_fd, label, strlen(label) + 1) > 0 ? 0 : 1;
}

/* The keys and the queues, watched by the watcher. */
static int setup(struct bench_obj *o, const char *w_label)
{
	struct wl_creds w = wl_user(BENCH_W_UID);
	struct watcher_arg a = { .o = o };
	int lp[2], r;
	ssize_t n;

	for (int k = 0; k < NKEYS; k++) {
		char desc[32];

		snprintf(desc, sizeof(desc), "wl-bench-%d", k);
		o->key[k] = add_key("user", desc, "v", 1, KEY_SPEC_PROCESS_KEYRING);
		if (o->key[k] < 0 ||
		    keyctl_setperm(o->key[k], KEY_POS_ALL | KEY_USR_ALL |
				   KEY_OTH_VIEW | KEY_OTH_WRITE)) {
			wl_diag("bench: add_key/setperm: %s", strerror(errno));
			return -1;
		}
	}
	for (int i = 0; i <= BENCH_NQ; i++) {
		o->q[i] = wl_wq_open(BENCH_QSLOTS);
		if (o->q[i] < 0)
			return -1;
	}
	if (pipe2(lp, O_CLOEXEC)) {
		wl_diag("bench: pipe: %s", strerror(errno));
		return -1;
	}
	a.label_fd = lp[1];
	w.label = w_label[0] ? w_label : NULL;
	r = wl_run_as(&w, watcher, &a);
	close(lp[1]);
	n = read(lp[0], o->w_seen, sizeof(o->w_seen) - 1);
	close(lp[0]);
	if (r != 0 || n <= 0) {
		wl_diag("bench: the watcher (uid %d) failed", BENCH_W_UID);
		return -1;
	}
	o->w_seen[n] = '\0';
	return 0;
}

static void teardown(struct bench *b)
{
	for (int i = 0; i <= BENCH_NQ; i++)
		if (b->o.q[i] >= 0)
			wl_wq_close(b->o.q[i]);
	for (int k = 0; k < NKEYS; k++)
		if (b->o.key[k] > 0)
			keyctl_invalidate(b->o.key[k]);
	for (unsigned int i = 0; i < b->ncfg; i++) {
		free(b->cfg[i].policy);
		free(b->cfg[i].control);
	}
}

/* Take every record off every queue; each must hold want "key updated" records. */
static int drain(const struct bench_cfg *c, unsigned int want)
{
	struct wl_record rec;

	for (int i = 0; i <= BENCH_NQ; i++) {
		unsigned int n = 0;
		int r;

		while ((r = wl_wq_read(c->o->q[i], &rec, 0)) > 0) {
			if (rec.type != WATCH_TYPE_KEY_NOTIFY ||
			    rec.subtype != NOTIFY_KEY_UPDATED) {
				wl_diag("bench %s: queue %d: record type %u subtype %u, want a key update",
					c->name, i, rec.type, rec.subtype);
				return -1;
			}
			n++;
		}
		if (r < 0)
			return -1;
		if (n != want) {
			wl_diag("bench %s: queue %d holds %u records after %u updates of its key",
				c->name, i, n, want);
			return -1;
		}
	}
	return 0;
}

/* ---- the triggerer: times the updates ---- */

static int enter_triggerer(const struct bench_cfg *c)
{
	struct wl_creds t = wl_user(BENCH_T_UID);

	t.label = c->t_label[0] ? c->t_label : NULL;
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)) {
		wl_diag("PR_SET_KEEPCAPS: %s", strerror(errno));
		return -1;
	}
	if (wl_drop_creds(&t) || wl_set_caps(1ULL << CAP_KILL))
		return -1;
	return 0;
}

static int triggerer(const struct bench_cfg *c, int sock, unsigned int blocks,
		     unsigned int per_block)
{
	char label[128], go;

	own_label(label, sizeof(label));
	if (send(sock, label, strlen(label) + 1, 0) < 0)
		return 1;
	for (unsigned int b = 0; b < blocks; b++) {
		struct bench_msg m = { 0 };

		for (int j = 0; j < NKEYS && !m.err; j++) {
			int k = (b + j) % NKEYS;
			uint64_t t0 = __rdtsc();

			for (unsigned int i = 0; i < per_block; i++) {
				if (keyctl_update(c->o->key[k], "b", 1)) {
					m.err = errno;
					break;
				}
			}
			m.ticks[k] = __rdtsc() - t0;
		}
		if (!m.err) {
			uint64_t t0 = __rdtsc();

			for (unsigned int i = 0; i < per_block; i++)
				syscall(SYS_getppid);
			m.ticks[REF] = __rdtsc() - t0;
		}
		if (send(sock, &m, sizeof(m), 0) != sizeof(m) || m.err)
			return 1;
		if (recv(sock, &go, 1, 0) != 1)
			return 1;
	}
	return 0;
}

/*
 * One round of one configuration: a triggerer child updates each key
 * per_block times per block; after each block the runner checks every
 * queue holds want records.  ticks (may be NULL) gets each block's TSC
 * ticks per key.
 */
static int run_round(struct bench_cfg *c, unsigned int blocks, unsigned int per_block,
		     unsigned int want, uint64_t (*ticks)[NTIMED])
{
	int sv[2], status, bad = 0;
	struct bench_msg m;
	ssize_t n;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		wl_diag("bench: socketpair: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		wl_diag("bench: fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pid == 0) {
		close(sv[0]);
		if (enter_triggerer(c))
			_exit(WL_EXIT_NO_CREDS);
		_exit(triggerer(c, sv[1], blocks, per_block));
	}
	close(sv[1]);
	n = recv(sv[0], c->t_seen, sizeof(c->t_seen) - 1, 0);
	if (n <= 0) {
		wl_diag("bench %s: the triggerer did not start", c->name);
		bad = 1;
	} else {
		c->t_seen[n] = '\0';
	}
	for (unsigned int b = 0; b < blocks && !bad; b++) {
		n = recv(sv[0], &m, sizeof(m), 0);
		if (n != sizeof(m)) {
			wl_diag("bench %s: the triggerer stopped in block %u", c->name, b);
			bad = 1;
		} else if (m.err) {
			wl_diag("bench %s: keyctl_update as uid %d: %s", c->name,
				BENCH_T_UID, strerror(m.err));
			bad = 1;
		} else if (drain(c, want)) {
			bad = 1;
		} else if (send(sv[0], "g", 1, 0) != 1) {
			wl_diag("bench: send: %s", strerror(errno));
			bad = 1;
		}
		if (!bad && ticks)
			memcpy(ticks[b], m.ticks, sizeof(m.ticks));
	}
	close(sv[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		wl_diag("bench %s: the triggerer (uid %d) failed", c->name, BENCH_T_UID);
		bad = 1;
	}
	return bad ? -1 : 0;
}

static int load(const struct bench_cfg *c, const char *policy)
{
	int r;

	if (!policy)
		return 0;
	r = wp_write_policy_str(policy);
	if (r)
		wl_diag("bench %s: write the policy: %s", c->name, strerror(-r));
	return r;
}

/*
 * Strict: without the pair's rule, one update of each key must reach no
 * queue, so the rule the timed rounds have is the one that lets posts in.
 */
static int check_control(struct bench_cfg *c)
{
	if (!c->control)
		return 0;
	if (load(c, c->control) || run_round(c, 1, 1, 0, NULL))
		return -1;
	/* Back to none, under which the other configurations set watches. */
	return load(c, "default none\n");
}

/* The triggerer's and the watcher's labels are what the configuration says. */
static int check_labels(const struct bench_cfg *c)
{
	bool differ = strcmp(c->t_seen, c->o->w_seen) != 0;

	if (!strcmp(c->o->w_seen, "-") || differ != c->same_label)
		return 0;
	wl_diag("bench %s: triggerer label %s, watcher label %s, want them %s", c->name,
		c->t_seen, c->o->w_seen, c->same_label ? "equal" : "different");
	return -1;
}

/* ---- figures ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct spread {
	double med, p25, p75, min, max;
};

/* The p quantile of n sorted values, interpolated between neighbours. */
static double quantile(const double *v, unsigned int n, double p)
{
	double h = (n - 1) * p;
	unsigned int i = (unsigned int)h;

	return i + 1 < n ? v[i] + (h - i) * (v[i + 1] - v[i]) : v[i];
}

static struct spread spread_of(double *v, unsigned int n)
{
	struct spread s;

	qsort(v, n, sizeof(*v), cmp_double);
	s.min = v[0];
	s.max = v[n - 1];
	s.med = quantile(v, n, 0.5);
	s.p25 = quantile(v, n, 0.25);
	s.p75 = quantile(v, n, 0.75);
	return s;
}

/*
 * A round's time for each key is its fastest block: under TCG the TSC counts
 * host time, so a block that the host preempted, or that took a timer
 * interrupt, is only ever slower.  The line gives the median, the quartiles
 * (p25, p75) and the min and max of the rounds' figures.
 */
static void report(const struct bench *b, const struct bench_cfg *c, double ns_per_tick)
{
	double upd[BENCH_MAX_ROUNDS], q1[BENCH_MAX_ROUNDS], q8[BENCH_MAX_ROUNDS];
	double ref[BENCH_MAX_ROUNDS], n1[BENCH_MAX_ROUNDS], n8[BENCH_MAX_ROUNDS];
	double f = ns_per_tick / BENCH_BLOCK;
	struct spread u, s1, s8, sr, sn1, sn8;

	for (unsigned int r = 0; r < b->rounds; r++) {
		uint64_t best[NTIMED];

		for (int i = 0; i < NTIMED; i++)
			best[i] = UINT64_MAX;
		for (unsigned int k = 0; k < b->blocks; k++)
			for (int i = 0; i < NTIMED; i++)
				if (c->ticks[r][k][i] < best[i])
					best[i] = c->ticks[r][k][i];
		upd[r] = best[K0] * f;
		q1[r] = ((double)best[K1] - (double)best[K0]) * f;
		q8[r] = ((double)best[K8] - (double)best[K0]) * f / BENCH_NQ;
		ref[r] = best[REF] * f;
		n1[r] = q1[r] / ref[r];
		n8[r] = q8[r] / ref[r];
	}
	u = spread_of(upd, b->rounds);
	s1 = spread_of(q1, b->rounds);
	s8 = spread_of(q8, b->rounds);
	sr = spread_of(ref, b->rounds);
	sn1 = spread_of(n1, b->rounds);
	sn8 = spread_of(n8, b->rounds);
	wl_diag("BENCH profile=%s lsm=%s config=%s watchpol=%s t=%s w=%s clock=%s rounds=%u blocks=%u updates=%u update_ns=%.0f per_event_per_queue_ns q1=%.1f q8=%.1f q1_p25=%.1f q1_p75=%.1f q8_p25=%.1f q8_p75=%.1f q1_min=%.1f q1_max=%.1f q8_min=%.1f q8_max=%.1f ref_ns=%.1f per_ref n1=%.3f n8=%.3f n8_p25=%.3f n8_p75=%.3f",
		wl_profile(), b->lsm, c->name, c->watchpol, c->t_seen, c->o->w_seen,
		b->icount ? "icount" : "wall",
		b->rounds, b->blocks, BENCH_BLOCK, u.med, s1.med, s8.med, s1.p25, s1.p75,
		s8.p25, s8.p75, s1.min, s1.max, s8.min, s8.max, sr.med, sn1.med, sn8.med,
		sn8.p25, sn8.p75);
}

/* A timed round, with watchpol/log held open for a consumer configuration. */
static int run_timed(struct bench_cfg *c, const struct bench *b,
		     uint64_t (*ticks)[NTIMED])
{
	int fd = -1, r;

	if (c->consumer) {
		fd = open(WP_LOG, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			wl_diag("bench %s: open %s: %s", c->name, WP_LOG, strerror(errno));
			return -1;
		}
	}
	r = run_round(c, b->blocks, BENCH_BLOCK, BENCH_BLOCK, ticks);
	if (fd >= 0)
		close(fd);
	return r;
}

static int measure(struct bench *b)
{
	double c0, k0, ns_per_tick;

	if (setup(&b->o, b->w_label))
		return -1;
	for (unsigned int i = 0; i < b->ncfg; i++)
		if (check_control(&b->cfg[i]))
			return -1;
	/* One warm-up round each, then the rounds, interleaved. */
	for (unsigned int i = 0; i < b->ncfg; i++)
		if (load(&b->cfg[i], b->cfg[i].policy) ||
		    run_round(&b->cfg[i], 1, BENCH_BLOCK, BENCH_BLOCK, NULL) ||
		    check_labels(&b->cfg[i]))
			return -1;
	c0 = (double)wl_now_ns();
	k0 = (double)__rdtsc();
	for (unsigned int r = 0; r < b->rounds; r++) {
		for (unsigned int i = 0; i < b->ncfg; i++) {
			struct bench_cfg *c = &b->cfg[i];

			if (load(c, c->policy) || run_timed(c, b, c->ticks[r]))
				return -1;
		}
	}
	/*
	 * The guest's clock may tick in jiffies; the TSC does not.  Under
	 * QEMU's -icount shift=0 the TSC is the instruction count itself (one
	 * tick, one nanosecond of guest time, per guest instruction): no
	 * conversion, so the figures are instructions exactly.
	 */
	ns_per_tick = b->icount ? 1.0 :
		((double)wl_now_ns() - c0) / ((double)__rdtsc() - k0);
	for (unsigned int i = 0; i < b->ncfg; i++)
		report(b, &b->cfg[i], ns_per_tick);
	return 0;
}

/*
 * `make bench` boots with watchlab.bench=full (all the configurations) and,
 * unless BENCH_CLOCK=wall, watchlab.clock=icount (QEMU's -icount shift=0).
 */
static bool on_cmdline(const char *key, const char *value)
{
	char v[32];

	return wl_cmdline(key, v, sizeof(v)) && !strcmp(v, value);
}

static enum wl_result bench_post_cost(void)
{
	static struct bench b;
	bool wp = wl_have_watchpol();
	cpu_set_t cpu0;
	int r;

	/* The triggerer and the runner take turns: keep them on one CPU. */
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	WL_EXPECT(!sched_setaffinity(0, sizeof(cpu0), &cpu0),
		  "sched_setaffinity: %s", strerror(errno));
	for (int i = 0; i <= BENCH_NQ; i++)
		b.o.q[i] = -1;
	b.full = on_cmdline("watchlab.bench", "full");
	b.icount = on_cmdline("watchlab.clock", "icount");
	/* Posts are recorded while the log is open: measure without that. */
	wp_log_detach();
	b.rounds = wl_debug_kernel() ? 3 : BENCH_MAX_ROUNDS;
	b.blocks = wl_debug_kernel() ? 1 : BENCH_MAX_BLOCKS;
	if (wp) {
		WL_EXPECT(wp_save_policy(), "could not save the policy in force");
		/* The watches are set under none: only posting is measured. */
		r = wp_write_policy_str("default none\n");
		WL_EXPECT(r == 0, "write policy: %s", strerror(-r));
	}
	r = plan(&b);
	if (!r)
		r = measure(&b);
	teardown(&b);
	if (wp)
		WL_EXPECT(wp_restore_policy(), "restore the policy");
	WL_EXPECT(r == 0, "the benchmark failed (above)");
	return WL_PASS;
}

/* ---- the set-watch hooks (make bench only) ---- */

/*
 * What setting a watch costs, hook by hook: the watcher (uid 1000, the
 * watcher label) sets and removes one watch WATCH_PAIRS times in a block, on
 * a key (watch_key), a tmpfs (watch_mount, watch_sb) and the device list
 * (watch_devices); a hook's figure is its fastest block of WATCH_BLOCKS,
 * per set+remove pair (the removal calls no LSM hook).  Between blocks the
 * watcher drains the queue of the removal records, untimed.  Under strict
 * the policy has a watch rule from the watcher's label to the objects'
 * (the runner's label and the floor), so every watch is allowed the
 * costliest way: visible, labels differ, a rule found.
 */
#define WATCH_PAIRS 100
#define WATCH_BLOCKS 10
#define WATCH_DIR "/tmp/wlwbench"

enum { WH_KEY, WH_MOUNT, WH_SB, WH_DEVICES, NWH };

struct wcost_arg {
	key_serial_t key;
	int q;
	int fd;			/* where the watcher writes its wcost_msg */
};

struct wcost_msg {
	int err, hook;		/* errno of a failed call and its hook, else 0 */
	uint64_t best[NWH];	/* TSC ticks of each hook's fastest block */
};

static long set_watch(int hook, const struct wcost_arg *a, int id)
{
	switch (hook) {
	case WH_KEY:
		return keyctl_watch_key(a->key, a->q, id);
	case WH_MOUNT:
		return wl_watch_mount(AT_FDCWD, WATCH_DIR, 0, a->q, id);
	case WH_SB:
		return wl_watch_sb(AT_FDCWD, WATCH_DIR, 0, a->q, id);
	default:
		return wl_watch_devices(a->q, id, 0);
	}
}

static int watch_timer(void *arg)
{
	const struct wcost_arg *a = arg;
	struct wcost_msg m = { 0 };
	char buf[4096];

	for (int h = 0; h < NWH && !m.err; h++) {
		m.best[h] = UINT64_MAX;
		for (int b = 0; b < WATCH_BLOCKS && !m.err; b++) {
			uint64_t t0 = __rdtsc(), d;

			for (int i = 0; i < WATCH_PAIRS; i++) {
				if (set_watch(h, a, 1) || set_watch(h, a, -1)) {
					m.err = errno;
					m.hook = h;
					break;
				}
			}
			d = __rdtsc() - t0;
			if (d < m.best[h])
				m.best[h] = d;
			while (read(a->q, buf, sizeof(buf)) > 0)
				;
		}
	}
	return write(a->fd, &m, sizeof(m)) == sizeof(m) ? 0 : 1;
}

/* One configuration's BENCH setwatch line; 0, or -1 (diagnosed). */
static int watch_cost(const struct bench *b, const char *config, const char *policy,
		      struct wcost_arg *a, const char *w_label)
{
	static const char *const hook_name[NWH] = { "key", "mount", "sb", "devices" };
	struct wl_creds w = wl_user(BENCH_W_UID);
	uint64_t c0 = wl_now_ns(), k0 = __rdtsc();
	struct wcost_msg m;
	double ns_per_tick, f[NWH];
	int p[2], r;

	if (policy && (r = wp_write_policy_str(policy))) {
		wl_diag("bench %s: write the policy: %s", config, strerror(-r));
		return -1;
	}
	if (pipe2(p, O_CLOEXEC)) {
		wl_diag("bench: pipe: %s", strerror(errno));
		return -1;
	}
	a->fd = p[1];
	w.label = w_label[0] ? w_label : NULL;
	r = wl_run_as(&w, watch_timer, a);
	close(p[1]);
	if (read(p[0], &m, sizeof(m)) != sizeof(m))
		r = -1;
	close(p[0]);
	if (r == 0 && m.err) {
		wl_diag("bench %s: watch_%s as uid %d: %s", config, hook_name[m.hook],
			BENCH_W_UID, strerror(m.err));
		r = -1;
	}
	if (r) {
		wl_diag("bench %s: the watcher (uid %d) failed", config, BENCH_W_UID);
		return -1;
	}
	ns_per_tick = b->icount ? 1.0 :
		((double)wl_now_ns() - c0) / ((double)__rdtsc() - k0);
	for (int h = 0; h < NWH; h++)
		f[h] = m.best[h] * ns_per_tick / WATCH_PAIRS;
	wl_diag("BENCH setwatch profile=%s lsm=%s config=%s clock=%s pairs=%u blocks=%u per_set_and_remove key=%.1f mount=%.1f sb=%.1f devices=%.1f",
		wl_profile(), b->lsm, config, b->icount ? "icount" : "wall",
		WATCH_PAIRS, WATCH_BLOCKS, f[WH_KEY], f[WH_MOUNT], f[WH_SB], f[WH_DEVICES]);
	return 0;
}

/* strict, with a watch rule from w to each of the objects' labels. */
static char *strict_watch_policy(const char *w)
{
	char own[128], *p = malloc(1024);

	if (!p)
		return NULL;
	own_label(own, sizeof(own));
	if (!w[0])
		snprintf(p, 1024, "default strict\nenforce 1\n");
	else
		snprintf(p, 1024, "default strict\nenforce 1\nwatch %s %s\nwatch %s " SMACK_FLOOR "\n",
			 w, own, w);
	return p;
}

static enum wl_result bench_watch_cost(void)
{
	static struct bench b;
	struct wcost_arg a = { .q = -1 };
	bool wp = wl_have_watchpol();
	/*
	 * A removed watch leaves its user's watch count after an RCU grace
	 * period, and the count may not pass RLIMIT_NOFILE (-EAGAIN): leave
	 * room for the blocks' watches not yet freed.
	 */
	struct rlimit nofile, room = { 1 << 16, 1 << 16 };
	char *strict = NULL;
	cpu_set_t cpu0;
	int r = 0;

	/* Nothing measured, nothing checked: a SKIP, not a pass. */
	if (!on_cmdline("watchlab.bench", "full")) {
		wl_diag("the set-watch figures: make bench only (watchlab.bench=full)");
		return WL_SKIP;
	}
	b.icount = on_cmdline("watchlab.clock", "icount");
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	WL_EXPECT(!sched_setaffinity(0, sizeof(cpu0), &cpu0),
		  "sched_setaffinity: %s", strerror(errno));
	WL_EXPECT(wl_try_read("/sys/kernel/security/lsm", b.lsm, sizeof(b.lsm)) > 0,
		  "read /sys/kernel/security/lsm: %s", strerror(errno));
	b.lsm[strcspn(b.lsm, "\n")] = '\0';
	WL_EXPECT(!wl_label_lookup("watcher", b.w_label, sizeof(b.w_label)),
		  "no watcher label");
	WL_EXPECT(!getrlimit(RLIMIT_NOFILE, &nofile) && !setrlimit(RLIMIT_NOFILE, &room),
		  "setrlimit(NOFILE, %u): %s", 1 << 16, strerror(errno));
	wp_log_detach();
	umount2(WATCH_DIR, MNT_DETACH);
	WL_EXPECT(wl_tmpfs(WATCH_DIR, NULL) == 0, "mount %s", WATCH_DIR);
	a.key = add_key("user", "wl-bench-watch", "v", 1, KEY_SPEC_PROCESS_KEYRING);
	if (a.key < 0 || keyctl_setperm(a.key, KEY_POS_ALL | KEY_USR_ALL | KEY_OTH_VIEW)) {
		wl_diag("bench: add_key/setperm: %s", strerror(errno));
		r = -1;
	}
	if (!r) {
		a.q = wl_wq_open(BENCH_QSLOTS);
		r = a.q < 0 ? -1 : 0;
	}
	if (!r && !wp)
		r = watch_cost(&b, lsm_active(&b, "smack") ? "no-watchpol" : "no-lsm",
			       NULL, &a, b.w_label);
	if (!r && wp) {
		WL_EXPECT(wp_save_policy(), "could not save the policy in force");
		strict = strict_watch_policy(b.w_label);
		r = strict ? 0 : -1;
		if (!r)
			r = watch_cost(&b, "watchpol-none", "default none\n", &a, b.w_label);
		if (!r)
			r = watch_cost(&b, "watchpol-strict", strict, &a, b.w_label);
		free(strict);
		WL_EXPECT(wp_restore_policy(), "restore the policy");
	}
	if (a.q >= 0)
		wl_wq_close(a.q);
	if (a.key > 0)
		keyctl_invalidate(a.key);
	umount2(WATCH_DIR, MNT_DETACH);
	setrlimit(RLIMIT_NOFILE, &nofile);
	WL_EXPECT(r == 0, "the set-watch benchmark failed (above)");
	return WL_PASS;
}

static const struct wl_test watchpol_bench_tests[] = {
	{ "bench_post_cost", bench_post_cost },
	{ "bench_watch_cost", bench_watch_cost },
};

/*
 * Every boot: each offers its own configurations (plan()).  Its one skip:
 * bench_watch_cost outside make bench (watchlab.bench=full).
 */
WL_SUITE(suite_watchpol_bench, watchpol_bench_tests, .skip_budget = 1);
