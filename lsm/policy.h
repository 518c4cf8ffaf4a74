/* SPDX-License-Identifier: GPL-2.0 */
/*
 * watchpol - the policy: its settings, rules and canonical text, and the
 * verdicts the post hook makes inline.  Parsing is in policy_parser.h,
 * shadow evaluation in eval.h.  Nothing in here touches the live system,
 * so that the whole engine can be driven by KUnit with a fake label
 * resolver.
 */

#ifndef _SECURITY_WATCHPOL_POLICY_H
#define _SECURITY_WATCHPOL_POLICY_H

#include <linux/hash.h>
#include <linux/rcupdate.h>
#include <linux/types.h>
#include <linux/uidgid.h>

#include "interop.h"

/* Largest policy text, the end line included. */
#define WATCHPOL_MAX_POLICY	(256 * 1024)
/* Longest label (context string) in a rule. */
#define WATCHPOL_MAX_LABEL	255
/* Most label rules (post + watch) in one policy. */
#define WATCHPOL_MAX_RULES	16384

enum watchpol_model {
	WATCHPOL_MODEL_NONE,
	WATCHPOL_MODEL_WATCHER,
	WATCHPOL_MODEL_SCHAUFLER,
	WATCHPOL_MODEL_STRICT,
	WATCHPOL_MODEL__NR
};

/*
 * Watch types policed per type.  The notification record types are
 * WATCH_TYPE_META = 0, then KEY = 1, MOUNT = 2, SB = 3, BLOCK = 4 and
 * USB = 5, so a record type t maps to watchpol type t - 1.
 */
enum watchpol_type {
	WATCHPOL_TYPE_KEY,
	WATCHPOL_TYPE_MOUNT,
	WATCHPOL_TYPE_SB,
	WATCHPOL_TYPE_BLOCK,
	WATCHPOL_TYPE_USB,
	WATCHPOL_TYPE__NR,
	/* Pseudo types for the decision log only. */
	WATCHPOL_TYPE_DEVICES = WATCHPOL_TYPE__NR,
	WATCHPOL_TYPE_OTHER,
};

/* One bit per model in a denial mask. */
#define WATCHPOL_DENY(model)	(1U << (model))

/*
 * A set of (subject secid, object secid) pairs, as an open-addressed hash
 * table of (subject << 32 | object) keys built at load time: a lookup is
 * O(1) in the number of rules.  Both secids are non-zero, so key 0 marks
 * an empty slot; the table is at most half full.
 */
struct watchpol_ruleset {
	u32 nr;		/* distinct pairs */
	u32 mask;	/* slots - 1, a power of two minus one */
	u64 *slots;	/* NULL when nr is 0 */
};

/* A label rule as written, kept for the canonical text. */
struct watchpol_text_rule {
	const char *subj;
	const char *obj;
	u8 kind;
	bool unresolved;	/* a label of it mapped to no secid */
};

struct watchpol_policy {
	struct rcu_head rcu;
	u8 default_model;
	u8 type_model[WATCHPOL_TYPE__NR];	/* effective model per type */
	u8 type_set;				/* types set explicitly */
	bool enforce;
	bool kernel_events;			/* true: allow */
	bool post_dac;				/* post check: DAC part on */
	bool post_label;			/* post check: label part on */
	bool recheck;				/* W observes O, at every post */
	u8 w_creator;				/* types whose W is the creator */
	u8 w_set;				/* types with a w_creds line */
	bool posts;				/* a type's model checks posts */
	bool set_default, set_enforce, set_kernel_events, set_end;
	bool set_post_dac, set_post_label, set_recheck;
	struct watchpol_ruleset post;		/* T-label may post to W-label */
	struct watchpol_ruleset watch;		/* W-label may watch O-label */
	u32 unresolved;				/* rules whose labels map to 0 */
	/* canon[s]: the secid s's context resolves to, when not s (or 0). */
	u32 canon[WATCHPOL_ALIAS_SIDS];
	u32 nr_text_rules;
	struct watchpol_text_rule *text_rules;
	char *input;				/* tokenised copy of the input */
	char *text;				/* canonical form */
	size_t text_len;
};

/* Why a policy was rejected. */
struct watchpol_parse_error {
	unsigned int line;	/* 1-based; 0 when not tied to a line */
	const char *reason;
};

/*
 * Resolve a NUL-terminated label to a secid.  Returns 0 (with *secid, which
 * may be 0 when no LSM knows the label) or a negative errno.
 */
typedef int (*watchpol_resolve_t)(const char *label, u32 *secid);

/*
 * The canonical secid of a secid: the one its context resolves to.
 * Returns 0 with *canon set, or a negative errno when it has no context.
 */
typedef int (*watchpol_canon_t)(u32 secid, u32 *canon);

/* Credentials as the verdicts see them. */
struct watchpol_subj {
	kuid_t uid, euid, suid;
	u32 sid;
	bool kernel;
};

struct watchpol_post_facts {
	const struct watchpol_subj *t;	/* triggerer */
	const struct watchpol_subj *w;	/* watcher */
	bool t_cap_kill;		/* T has CAP_KILL in W's user ns */
	bool w_blind;			/* recheck: W may no longer observe O */
};

struct watchpol_watch_facts {
	const struct watchpol_subj *w;	/* watcher */
	u32 o_sid;			/* object label, 0 if none */
	bool visible;			/* O reachable from W's namespace */
	bool system_wide;		/* devices: everyone may observe */
};

extern const char *const watchpol_model_names[WATCHPOL_MODEL__NR];
extern const char *const watchpol_type_names[WATCHPOL_TYPE_OTHER + 1];

void watchpol_policy_free(struct watchpol_policy *p);
void watchpol_policy_canon(struct watchpol_policy *p, watchpol_canon_t canon);

/**
 * watchpol_sid() - the canonical form of a secid
 * @p: the policy in force
 * @sid: a secid from creds, an inode or a key
 *
 * Labels compare by context, not by which alias an LSM issued: an alias
 * maps to the secid its context resolves to, as the rules' labels do.
 * One compare and at most one load.
 *
 * Return: the canonical secid.
 */
static inline u32 watchpol_sid(const struct watchpol_policy *p, u32 sid)
{
	if (sid < WATCHPOL_ALIAS_SIDS && p->canon[sid])
		return p->canon[sid];
	return sid;
}

/*
 * What the post hook needs is inline here: under TCG and with return
 * thunks, each call on the path costs as much as the work it does.
 */

/**
 * watchpol_record_type - map a notification record type to a watchpol type
 * @wtype: the record's type (struct watch_notification::type)
 *
 * Return: the watchpol type, or WATCHPOL_TYPE_OTHER for unknown types.
 */
static inline int watchpol_record_type(unsigned int wtype)
{
	if (wtype >= 1 && wtype <= WATCHPOL_TYPE__NR)
		return wtype - 1;
	return WATCHPOL_TYPE_OTHER;
}

/**
 * watchpol_model_posts - does a model check notifications as they are posted?
 * @p: the policy
 * @model: the model
 *
 * none and watcher decide everything when the watch is set, unless
 * "recheck on" asks watcher to judge W against O again at every post; a
 * policy whose models never check posts lets the post hook return at once
 * (see watchpol_post_notification()).
 *
 * Return: true if the post hook must evaluate @model's verdict.
 */
static inline bool watchpol_model_posts(const struct watchpol_policy *p,
					u8 model)
{
	return model == WATCHPOL_MODEL_SCHAUFLER ||
	       model == WATCHPOL_MODEL_STRICT ||
	       (p->recheck && model == WATCHPOL_MODEL_WATCHER);
}

/**
 * watchpol_model_for - the model in force for a watch type
 * @p: the policy
 * @type: a watchpol type; pseudo types get the default model
 *
 * Return: the model.
 */
static inline u8 watchpol_model_for(const struct watchpol_policy *p, int type)
{
	if (type >= 0 && type < WATCHPOL_TYPE__NR)
		return p->type_model[type];
	return p->default_model;
}

/**
 * watchpol_dac_uid_ok - the uid part of kill_ok_by_cred()
 * @t: the triggerer, in the role of the signal sender
 * @w: the watcher, in the role of the signalled task
 *
 * Return: true if T's uid or euid equals W's uid or suid.
 */
static inline bool watchpol_dac_uid_ok(const struct watchpol_subj *t,
				       const struct watchpol_subj *w)
{
	return uid_eq(t->euid, w->suid) || uid_eq(t->euid, w->uid) ||
	       uid_eq(t->uid, w->suid) || uid_eq(t->uid, w->uid);
}

/* (subject << 32 | object), never 0 for a stored pair. */
static inline u64 watchpol_rule_key(u32 ssid, u32 osid)
{
	return (u64)ssid << 32 | osid;
}

/* The first slot to probe for @key; the probe goes on linearly. */
static inline u32 watchpol_rule_slot(const struct watchpol_ruleset *rs,
				     u64 key)
{
	return hash_64(key, 32) & rs->mask;
}

/**
 * watchpol_rule_ok - check the label part of a decision
 * @rs: the post or watch rules
 * @ssid: the subject's secid (0: no label)
 * @osid: the object's secid (0: no label)
 *
 * Without labels on both sides only DAC applies; the same label always
 * passes; otherwise a rule must name the pair.  Lock-free and O(1): the
 * table is at most half full, so a probe ends after a few slots whatever
 * the number of rules.
 *
 * Return: true if the pair may proceed.
 */
static __always_inline bool watchpol_rule_ok(const struct watchpol_ruleset *rs,
					     u32 ssid, u32 osid)
{
	u64 key = watchpol_rule_key(ssid, osid);
	u32 slot;

	if (!ssid || !osid || ssid == osid)
		return true;
	if (!rs->nr)
		return false;
	for (slot = watchpol_rule_slot(rs, key); rs->slots[slot];
	     slot = (slot + 1) & rs->mask)
		if (rs->slots[slot] == key)
			return true;
	return false;
}

/* watchpol_post_check() */
enum watchpol_post_verdict {
	WATCHPOL_POST_OK,
	WATCHPOL_POST_DENY,
	WATCHPOL_POST_NEED_CAP,	/* OK if and only if T has CAP_KILL */
};

/**
 * watchpol_post_check - the verdict of the post-checking models
 * @p: the policy
 * @f: the triggerer, the watcher and, if known, T's CAP_KILL
 *
 * schaufler and strict require that T may write to W.  The label part,
 * for the kernel (with the kernel's own label) as for any T: a post rule
 * unless the labels match or a side has none.  The DAC part: for the
 * kernel, kernel_events; otherwise the rule of kill_ok_by_cred() (T's
 * uid/euid against W's uid/suid, or CAP_KILL in W's user namespace).
 * "post_dac off" and "post_label off" drop one part (with post_dac off,
 * kernel_events is not consulted).  The capability is the costliest
 * test, so it is left to the caller, and only when it decides.
 *
 * Return: OK, DENY, or NEED_CAP when the uids differ, the rest passes
 * and @f->t_cap_kill is false (the verdict is then T's CAP_KILL).
 */
static __always_inline enum watchpol_post_verdict
watchpol_post_check(const struct watchpol_policy *p,
		    const struct watchpol_post_facts *f)
{
	if (p->post_label &&
	    !watchpol_rule_ok(&p->post, watchpol_sid(p, f->t->sid),
			      watchpol_sid(p, f->w->sid)))
		return WATCHPOL_POST_DENY;
	if (!p->post_dac)
		return WATCHPOL_POST_OK;
	if (f->t->kernel)
		return p->kernel_events ? WATCHPOL_POST_OK : WATCHPOL_POST_DENY;
	if (watchpol_dac_uid_ok(f->t, f->w) || f->t_cap_kill)
		return WATCHPOL_POST_OK;
	return WATCHPOL_POST_NEED_CAP;
}

/* The denial mask of a post-checking models' verdict. */
static inline u8 watchpol_post_mask(enum watchpol_post_verdict v)
{
	if (v == WATCHPOL_POST_OK)
		return 0;
	return WATCHPOL_DENY(WATCHPOL_MODEL_SCHAUFLER) |
	       WATCHPOL_DENY(WATCHPOL_MODEL_STRICT);
}

/*
 * The denial mask of the re-check: with "recheck on", the models that judge
 * W against O (watcher, strict) refuse a W that may no longer observe O.
 */
static inline u8 watchpol_recheck_mask(const struct watchpol_policy *p,
				       const struct watchpol_post_facts *f)
{
	if (!p->recheck || !f->w_blind)
		return 0;
	return WATCHPOL_DENY(WATCHPOL_MODEL_WATCHER) |
	       WATCHPOL_DENY(WATCHPOL_MODEL_STRICT);
}

/* Is W the queue's creator (not the watch's setter) for this type? */
static inline bool watchpol_w_is_creator(const struct watchpol_policy *p,
					 int type)
{
	return type < WATCHPOL_TYPE__NR && (p->w_creator & BIT(type));
}

#endif /* _SECURITY_WATCHPOL_POLICY_H */
