// SPDX-License-Identifier: GPL-2.0
/*
 * watchpol - audit records: policy loads and rejections, refused policy
 * writes, enforce changes, the lock, and denials, through the kernel's
 * audit like IPE, SELinux and Smack, so the tools reviewers already run
 * see them.
 *
 * Records of policy changes and of refused changes are never limited
 * here.  Denial records go through audit's own rate limit and backlog
 * (auditctl -r, -b), which count what they drop as lost, and before that
 * through a limit per subject: the task whose action was refused (the
 * watcher setting a watch, the triggerer of a post, the kernel), so that
 * no one user's refusals can keep another's out of audit.  What the
 * per-subject limit holds back is counted in stats as audit_suppressed.
 * Without CONFIG_AUDIT the audit calls compile away.
 */

#include <linux/atomic.h>
#include <linux/audit.h>
#include <linux/cred.h>
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "audit.h"
#include "log.h"
#include "policy.h"

/* Long enough for a decision record with two full SELinux contexts. */
#define WATCHPOL_AUDIT_TEXT	768

/*
 * Denial records per subject: a burst of 10 per 5 s for each of 64
 * buckets, chosen by the subject's uid (the kernel has one of its own).
 * Lock-free: a bucket's window restarts with a compare-and-exchange, and
 * a record takes its slot with an atomic increment, so two CPUs denying
 * at once both get theirs while the burst lasts.
 */
#define WATCHPOL_AUDIT_BUCKETS_SHIFT	6
#define WATCHPOL_AUDIT_BURST		10
#define WATCHPOL_AUDIT_INTERVAL		(5 * HZ)

struct audit_bucket {
	atomic_long_t start;	/* jiffies when the window began */
	atomic_t used;		/* records in this window */
};

static struct audit_bucket
	watchpol_audit_buckets[(1 << WATCHPOL_AUDIT_BUCKETS_SHIFT) + 1];
atomic_long_t watchpol_audit_suppressed = ATOMIC_LONG_INIT(0);

/* The subject of a denial: who did what was refused. */
static struct audit_bucket *audit_bucket_of(const struct watchpol_decision *d)
{
	if (d->hook == WATCHPOL_HOOK_POST && (d->flags & WATCHPOL_DEC_T_KERNEL))
		return &watchpol_audit_buckets[1 << WATCHPOL_AUDIT_BUCKETS_SHIFT];
	return &watchpol_audit_buckets[hash_32(d->hook == WATCHPOL_HOOK_POST ?
					       d->t_uid : d->w_uid,
					       WATCHPOL_AUDIT_BUCKETS_SHIFT)];
}

static bool audit_subject_allowed(const struct watchpol_decision *d)
{
	struct audit_bucket *b = audit_bucket_of(d);
	unsigned long now = jiffies;
	long start = atomic_long_read(&b->start);

	/* 0: no window yet (jiffies start near their wrap, not at 0). */
	if ((!start ||
	     time_after(now, (unsigned long)start + WATCHPOL_AUDIT_INTERVAL)) &&
	    atomic_long_cmpxchg(&b->start, start, now) == start)
		atomic_set(&b->used, 0);
	if (atomic_inc_return(&b->used) <= WATCHPOL_AUDIT_BURST)
		return true;
	atomic_long_inc(&watchpol_audit_suppressed);
	return false;
}

/* Who made the change, as SELinux and IPE name it. */
static void audit_subject(struct audit_buffer *ab)
{
	audit_log_format(ab, " auid=%u ses=%u",
			 from_kuid(&init_user_ns, audit_get_loginuid(current)),
			 audit_get_sessionid(current));
}

/* A policy's settings, as "policy" reads them back, and its rule counts. */
static void audit_policy(struct audit_buffer *ab,
			 const struct watchpol_policy *p)
{
	audit_log_format(ab, " default=%s enforce=%d kernel_events=%s",
			 watchpol_model_names[p->default_model], p->enforce,
			 p->kernel_events ? "allow" : "deny");
	audit_log_format(ab, " post_dac=%s post_label=%s rules=%u unresolved=%u",
			 p->post_dac ? "on" : "off",
			 p->post_label ? "on" : "off",
			 p->nr_text_rules, p->unresolved);
	/* w_creator: one bit per type (key = 1, mount = 2, sb = 4, ...). */
	audit_log_format(ab, " recheck=%s w_creator=%#x",
			 p->recheck ? "on" : "off", p->w_creator);
}

/**
 * watchpol_audit_decision - record a denial (limited per subject)
 * @d: the decision, as the log has it
 *
 * An AUDIT_AVC record "lsm=watchpol" followed by the decision log's fields
 * (hook, type/subtype, W uid and label, T uid and label or "kernel", O's
 * label, every model's verdict, the model in force, verdict, result,
 * enforce).  Called in any context the hooks run in; formats only when the
 * subject's limit lets the record through, and then audit's own rate
 * limit and backlog apply.
 */
void watchpol_audit_decision(const struct watchpol_decision *d)
{
	struct audit_buffer *ab;
	char *text;
	int n;

	if (!IS_ENABLED(CONFIG_AUDIT) || !audit_subject_allowed(d))
		return;
	text = kmalloc(WATCHPOL_AUDIT_TEXT, GFP_ATOMIC | __GFP_NOWARN);
	if (!text) {
		atomic_long_inc(&watchpol_audit_suppressed);
		return;
	}
	n = watchpol_log_format(d, text, WATCHPOL_AUDIT_TEXT);
	if (n && text[n - 1] == '\n')
		text[n - 1] = '\0';
	ab = audit_log_start(audit_context(), GFP_ATOMIC | __GFP_NOWARN,
			     AUDIT_AVC);
	if (ab) {
		audit_log_format(ab, "lsm=watchpol %s", text);
		audit_log_end(ab);
	}
	kfree(text);
}

/**
 * watchpol_audit_load - record a policy load or rejection
 * @p: the policy put in force, or NULL when it was rejected
 * @err: why it was rejected (@p NULL), or NULL
 * @old_enforce: the enforce setting before the load
 *
 * AUDIT_MAC_POLICY_LOAD with the policy's settings and rule count, or
 * res=0 with the line and reason; and, when the load changed it,
 * AUDIT_MAC_STATUS with the new and old enforce setting.  Never limited.
 */
void watchpol_audit_load(const struct watchpol_policy *p,
			 const struct watchpol_parse_error *err,
			 bool old_enforce)
{
	struct audit_buffer *ab;

	if (!IS_ENABLED(CONFIG_AUDIT))
		return;
	ab = audit_log_start(audit_context(), GFP_KERNEL,
			     AUDIT_MAC_POLICY_LOAD);
	if (ab) {
		audit_log_format(ab, "lsm=watchpol op=load");
		if (p)
			audit_policy(ab, p);
		else if (err && err->reason)
			audit_log_format(ab, " line=%u reason=\"%s\"",
					 err->line, err->reason);
		audit_subject(ab);
		audit_log_format(ab, " res=%d", !!p);
		audit_log_end(ab);
	}
	if (!p || p->enforce == old_enforce)
		return;
	ab = audit_log_start(audit_context(), GFP_KERNEL, AUDIT_MAC_STATUS);
	if (!ab)
		return;
	audit_log_format(ab, "lsm=watchpol enforcing=%d old_enforcing=%d",
			 p->enforce, old_enforce);
	audit_subject(ab);
	audit_log_format(ab, " res=1");
	audit_log_end(ab);
}

/**
 * watchpol_audit_refused - record a policy write refused before parsing
 * @reason: why: "locked" or "too large"
 *
 * AUDIT_MAC_POLICY_LOAD with res=0, as for a rejected policy.  Never
 * limited: a refusal is as much a policy event as a load.
 */
void watchpol_audit_refused(const char *reason)
{
	struct audit_buffer *ab;

	if (!IS_ENABLED(CONFIG_AUDIT))
		return;
	ab = audit_log_start(audit_context(), GFP_KERNEL,
			     AUDIT_MAC_POLICY_LOAD);
	if (!ab)
		return;
	audit_log_format(ab, "lsm=watchpol op=load reason=\"%s\"", reason);
	audit_subject(ab);
	audit_log_format(ab, " res=0");
	audit_log_end(ab);
}

/**
 * watchpol_audit_lock - record that the policy was locked until reboot
 */
void watchpol_audit_lock(void)
{
	struct audit_buffer *ab;

	if (!IS_ENABLED(CONFIG_AUDIT))
		return;
	ab = audit_log_start(audit_context(), GFP_KERNEL,
			     AUDIT_MAC_CONFIG_CHANGE);
	if (!ab)
		return;
	audit_log_format(ab, "lsm=watchpol op=lock locked=1 old_locked=0");
	audit_subject(ab);
	audit_log_format(ab, " res=1");
	audit_log_end(ab);
}
