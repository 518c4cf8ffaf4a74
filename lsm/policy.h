/* SPDX-License-Identifier: GPL-2.0 */
/*
 * watchpol - policy engine: the parsed policy, its canonical text and the
 * per-model verdicts.  Nothing in here touches the live system, so that the
 * whole engine can be driven by KUnit with a fake label resolver.
 */

#ifndef _SECURITY_WATCHPOL_POLICY_H
#define _SECURITY_WATCHPOL_POLICY_H

#include <linux/rcupdate.h>
#include <linux/types.h>
#include <linux/uidgid.h>

/* Largest policy text, the end line included. */
#define WATCHPOL_MAX_POLICY	(256 * 1024)
/* Longest label (context string) in a rule. */
#define WATCHPOL_MAX_LABEL	255
/* Most label rules (post + watch) in one policy. */
#define WATCHPOL_MAX_RULES	16384
/*
 * Secids below this may be aliases: SELinux's initial SIDs (1 to
 * SECINITSID_NUM, 27 in 6.12) keep their own SID even when their context is
 * another SID's, so one context can have several secids.  Every other
 * secid SELinux issues is unique to its context, and Smack issues one per
 * label.
 */
#define WATCHPOL_ALIAS_SIDS	28

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

/* A sorted, duplicate-free set of (subject secid, object secid) pairs. */
struct watchpol_ruleset {
	u32 nr;
	u64 *keys;
};

/* A label rule as written, kept for the canonical text. */
struct watchpol_text_rule {
	const char *subj;
	const char *obj;
	u8 kind;
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

struct watchpol_policy *watchpol_policy_parse(const char *text, size_t len,
					      watchpol_resolve_t resolve,
					      struct watchpol_parse_error *err);
void watchpol_policy_free(struct watchpol_policy *p);
struct watchpol_policy *watchpol_boot_policy(const char *models, bool enforce,
					     watchpol_resolve_t resolve,
					     struct watchpol_parse_error *err);

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

int watchpol_record_type(unsigned int wtype);
u8 watchpol_model_for(const struct watchpol_policy *p, int type);

bool watchpol_dac_uid_ok(const struct watchpol_subj *t,
			 const struct watchpol_subj *w);
bool watchpol_rule_ok(const struct watchpol_ruleset *rs, u32 ssid, u32 osid);
u8 watchpol_post_denials(const struct watchpol_policy *p,
			 unsigned int wtype,
			 const struct watchpol_post_facts *f);
u8 watchpol_watch_denials(const struct watchpol_policy *p,
			  const struct watchpol_watch_facts *f);

/* Is W the queue's creator (not the watch's setter) for this type? */
static inline bool watchpol_w_is_creator(const struct watchpol_policy *p,
					 int type)
{
	return type < WATCHPOL_TYPE__NR && (p->w_creator & BIT(type));
}

#endif /* _SECURITY_WATCHPOL_POLICY_H */
