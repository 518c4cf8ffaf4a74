// SPDX-License-Identifier: GPL-2.0
/*
 * watchpol - audit records: policy loads and rejections, enforce changes,
 * the lock, and denials, through the kernel's audit like IPE, SELinux and
 * Smack, so the tools reviewers already run see them.
 *
 * Denials and policy loads are rate-limited (a fuzzer or a policy-swap
 * storm must not flood kauditd's backlog); what the limits hold back is
 * counted in stats as audit_suppressed.  The lock and enforce changes are
 * always recorded.  Without CONFIG_AUDIT the audit calls compile away.
 */

#include <linux/audit.h>
#include <linux/cred.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "audit.h"
#include "log.h"
#include "policy.h"

/* Long enough for a decision record with two full SELinux contexts. */
#define WATCHPOL_AUDIT_TEXT	768

/*
 * Quiet limits: what they hold back is counted below, not printed (a
 * "callbacks suppressed" line would land in the middle of whatever the
 * console shows, test output included).
 */
static struct ratelimit_state watchpol_audit_denials =
	RATELIMIT_STATE_INIT_FLAGS(watchpol_audit_denials, 5 * HZ, 10,
				   RATELIMIT_MSG_ON_RELEASE);
static struct ratelimit_state watchpol_audit_loads =
	RATELIMIT_STATE_INIT_FLAGS(watchpol_audit_loads, 5 * HZ, 20,
				   RATELIMIT_MSG_ON_RELEASE);
atomic_long_t watchpol_audit_suppressed = ATOMIC_LONG_INIT(0);

static bool audit_allowed(struct ratelimit_state *rs)
{
	if (!IS_ENABLED(CONFIG_AUDIT))
		return false;
	if (__ratelimit(rs))
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
 * watchpol_audit_decision - record a denial (rate-limited)
 * @d: the decision, as the log has it
 *
 * An AUDIT_AVC record "lsm=watchpol" followed by the decision log's fields
 * (hook, type/subtype, W uid and label, T uid and label or "kernel", O's
 * label, every model's verdict, the model in force, verdict, result,
 * enforce).  Called in any context the hooks run in; formats only when the
 * rate limit lets the record through.
 */
void watchpol_audit_decision(const struct watchpol_decision *d)
{
	char *text;
	int n;

	if (!audit_allowed(&watchpol_audit_denials))
		return;
	text = kmalloc(WATCHPOL_AUDIT_TEXT, GFP_ATOMIC);
	if (!text)
		return;
	n = watchpol_log_format(d, text, WATCHPOL_AUDIT_TEXT);
	if (n && text[n - 1] == '\n')
		text[n - 1] = '\0';
	audit_log(audit_context(), GFP_ATOMIC, AUDIT_AVC, "lsm=watchpol %s",
		  text);
	kfree(text);
}

/**
 * watchpol_audit_load - record a policy load or rejection (rate-limited)
 * @p: the policy put in force, or NULL when it was rejected
 * @err: why it was rejected (@p NULL), or NULL
 * @old_enforce: the enforce setting before the load
 *
 * AUDIT_MAC_POLICY_LOAD with the policy's settings and rule count, or
 * res=0 with the line and reason; and, when the load changed it,
 * AUDIT_MAC_STATUS with the new and old enforce setting (not rate-limited).
 */
void watchpol_audit_load(const struct watchpol_policy *p,
			 const struct watchpol_parse_error *err,
			 bool old_enforce)
{
	struct audit_buffer *ab;

	if (audit_allowed(&watchpol_audit_loads)) {
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
	}
	if (!IS_ENABLED(CONFIG_AUDIT) || !p || p->enforce == old_enforce)
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
