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
 * watcher setting a watch, the triggerer of a post, the kernel).  A
 * subject is only ever charged for its own denials, so that no user's
 * refusals can keep another's out of audit, and what the limit held back
 * is itself audited, so that a subject that spends its burst first cannot
 * hide the denial it cares about without a trace.  What the limit holds
 * back is also counted in stats as audit_suppressed.
 * Without CONFIG_AUDIT the audit calls compile away.
 */

#include <crypto/sha2.h>
#include <linux/atomic.h>
#include <linux/audit.h>
#include <linux/cred.h>
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string_choices.h>

#include "audit.h"
#include "log.h"
#include "policy.h"

/* Long enough for a decision record with two full SELinux contexts. */
#define WATCHPOL_AUDIT_TEXT	768

/*
 * Denial records per subject: a burst of 10 per 5 s.  The windows live in
 * 64 buckets chosen by the subject's uid (the kernel has one of its own);
 * a window belongs to the uid that opened it.  A denial of another uid
 * that lands in a bucket while its window is open is not limited here at
 * all: that uid cannot spend the owner's burst, nor the owner its.  What
 * gets past the limit this way is bounded by audit's own rate limit and
 * backlog, as every other LSM's records are.
 */
#define WATCHPOL_AUDIT_BUCKETS_SHIFT	6
#define WATCHPOL_AUDIT_BURST		10
#define WATCHPOL_AUDIT_INTERVAL		(5 * HZ)

struct audit_bucket {
	spinlock_t lock;	/* posts deny in any context, hard irq too */
	unsigned long start;	/* jiffies when the window began */
	u32 uid;		/* whose window it is */
	bool kernel;		/* the kernel's own bucket */
	unsigned int used;	/* records in this window, 0: no window */
	unsigned int held;	/* records held back in this window */
};

#define WATCHPOL_AUDIT_NR_BUCKETS	((1 << WATCHPOL_AUDIT_BUCKETS_SHIFT) + 1)

static struct audit_bucket watchpol_audit_buckets[WATCHPOL_AUDIT_NR_BUCKETS] = {
	[0 ... WATCHPOL_AUDIT_NR_BUCKETS - 1] = {
		.lock = __SPIN_LOCK_UNLOCKED(watchpol_audit_buckets.lock),
	},
};

atomic_long_t watchpol_audit_suppressed = ATOMIC_LONG_INIT(0);

/* What a closed window held back, to be said in audit. */
struct audit_held {
	u32 uid;
	bool kernel;
	unsigned int count;
};

/* The subject of a denial: who did what was refused. */
static bool audit_subject_kernel(const struct watchpol_decision *d)
{
	return d->hook == WATCHPOL_HOOK_POST && (d->flags & WATCHPOL_DEC_T_KERNEL);
}

static u32 audit_subject_uid(const struct watchpol_decision *d)
{
	return d->hook == WATCHPOL_HOOK_POST ? d->t_uid : d->w_uid;
}

/*
 * May @d's record go to audit?  When a window closes with records held
 * back, *@held says whose and how many.
 */
static bool audit_subject_allowed(const struct watchpol_decision *d,
				  struct audit_held *held)
{
	bool kernel = audit_subject_kernel(d);
	u32 uid = audit_subject_uid(d);
	struct audit_bucket *b;
	unsigned long flags;
	bool allowed = true;

	b = &watchpol_audit_buckets[kernel ? 1 << WATCHPOL_AUDIT_BUCKETS_SHIFT :
				    hash_32(uid, WATCHPOL_AUDIT_BUCKETS_SHIFT)];
	spin_lock_irqsave(&b->lock, flags);
	if (!b->used ||
	    time_after(jiffies, b->start + WATCHPOL_AUDIT_INTERVAL)) {
		held->uid = b->uid;
		held->kernel = b->kernel;
		held->count = b->held;
		b->start = jiffies;
		b->uid = uid;
		b->kernel = kernel;
		b->used = 1;
		b->held = 0;
	} else if (kernel || b->uid == uid) {
		if (++b->used > WATCHPOL_AUDIT_BURST) {
			b->held++;
			allowed = false;
		}
	}
	spin_unlock_irqrestore(&b->lock, flags);
	if (!allowed)
		atomic_long_inc(&watchpol_audit_suppressed);
	return allowed;
}

/* One record for the denials a subject's window held back. */
static void audit_held_back(const struct audit_held *held)
{
	struct audit_buffer *ab;

	ab = audit_log_start(audit_context(), GFP_ATOMIC | __GFP_NOWARN,
			     AUDIT_AVC);
	if (!ab)
		return;
	if (held->kernel)
		audit_log_format(ab, "lsm=watchpol op=audit_limit subject=kernel");
	else
		audit_log_format(ab, "lsm=watchpol op=audit_limit subject_uid=%u",
				 held->uid);
	audit_log_format(ab, " burst=%u interval=%u held_back=%u",
			 WATCHPOL_AUDIT_BURST, WATCHPOL_AUDIT_INTERVAL / HZ,
			 held->count);
	audit_log_end(ab);
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
			 str_on_off(p->post_dac),
			 str_on_off(p->post_label),
			 p->nr_text_rules, p->unresolved);
	/* w_creator: one bit per type (key = 1, mount = 2, sb = 4, ...). */
	audit_log_format(ab, " recheck=%s w_creator=%#x",
			 str_on_off(p->recheck), p->w_creator);
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
	struct audit_held held = {};
	struct audit_buffer *ab;
	bool allowed;
	char *text;
	int n;

	if (!IS_ENABLED(CONFIG_AUDIT))
		return;
	allowed = audit_subject_allowed(d, &held);
	if (held.count)
		audit_held_back(&held);
	if (!allowed)
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
 * @digest: SHA-256 of the text as written, or NULL
 *
 * AUDIT_MAC_POLICY_LOAD with the policy's settings, rule count and the
 * digest of its text (what sha256sum prints for the file written, as IPE
 * records its policies), or res=0 with the line and reason; and, when the
 * load changed it, AUDIT_MAC_STATUS with the new and old enforce setting.
 * Never limited.
 */
void watchpol_audit_load(const struct watchpol_policy *p,
			 const struct watchpol_parse_error *err,
			 bool old_enforce, const u8 *digest)
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
		if (digest)
			audit_log_format(ab, " digest=sha256:%*phN",
					 SHA256_DIGEST_SIZE, digest);
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
