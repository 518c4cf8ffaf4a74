// SPDX-License-Identifier: GPL-2.0
/*
 * watchpol - LSM hooks on setting watches and posting notifications.
 *
 * W is the watch's creds (the task that set the watch), T the creds of
 * the task whose action triggered a notification (&init_cred for the
 * kernel, as watch_cred_is_kernel() decides in the core) and O the
 * watched object.  The model in force for the watch type decides, and
 * only denies when enforce is 1.  Set-watch decisions are evaluated under
 * all four models (shadow evaluation), counted and logged.  Posting is
 * the hot path: the post hook is called only while the model in force
 * checks posts or someone consumes the decisions (watchpol/log open), and
 * a post is counted and logged with every model's verdict only while
 * someone consumes them or when it is denied; see
 * watchpol_post_notification().
 */

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/init_task.h>
#include <linux/jump_label.h>
#include <linux/key.h>
#include <linux/lsm_hooks.h>
#include <linux/moduleparam.h>
#include <linux/notifier.h>
#include <linux/path.h>
#include <linux/sched.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/watch_queue.h>
#include <uapi/linux/lsm.h>

#include "audit.h"
#include "eval.h"
#include "interop.h"
#include "log.h"
#include "policy.h"
#include "policy_parser.h"
#include "watchpol.h"

#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "watchpol."

/* watchpol.model=<model> or a list like "strict,key:watcher,usb:none". */
static char *boot_model = "none";
module_param_named(model, boot_model, charp, 0400);
MODULE_PARM_DESC(model, "Initial model: <model> or [<type>:]<model>,...");

static bool boot_enforce = true;
module_param_named(enforce, boot_enforce, bool, 0400);
MODULE_PARM_DESC(enforce, "Initial enforce setting (0: log only)");

bool watchpol_enabled __ro_after_init;
struct watchpol_policy __rcu *watchpol_active;
/* On while a decision consumer is attached: watchpol_consumer_get(). */
DEFINE_STATIC_KEY_FALSE(watchpol_consumed);
/*
 * Serialises policy replacement, the lock flag, policy text reads and
 * the switching of the post hook.
 */
DEFINE_MUTEX(watchpol_policy_mutex);
bool watchpol_locked;
/*
 * The post hook is registered switched off (LSM_HOOK_INIT_RUNTIME()) and
 * is on only while the policy in force checks posts for some type or a
 * decision consumer is attached; otherwise a post runs exactly the code it
 * runs without watchpol.  See post_hook_sync().
 */
static bool watchpol_post_policy;
static unsigned int watchpol_consumers;
static void post_hook_sync(void);

/**
 * watchpol_resolve_label - resolve a label through the active major LSM
 * @label: a NUL-terminated context string
 * @secid: set to its secid, 0 when no LSM provides labels
 *
 * Return: 0 or the LSM's error for an invalid context.
 */
int watchpol_resolve_label(const char *label, u32 *secid)
{
	return security_secctx_to_secid(label, strlen(label), secid);
}

/*
 * Resolving the text in force again: a label the LSM now rejects (a type
 * its new policy dropped, or one accepted before SELinux had a policy)
 * leaves its rules unresolved, never matching and counted in
 * unresolved_rules, rather than keeping every rule at its old secids.
 */
static int watchpol_reresolve_label(const char *label, u32 *secid)
{
	int rc = watchpol_resolve_label(label, secid);

	if (rc) {
		pr_warn_ratelimited("label \"%s\" no longer resolves (%d); its rules never match\n",
				    label, rc);
		*secid = 0;
	}
	return 0;
}

/*
 * Bumped on every LSM policy change: the CAP_KILL answers kept in creds
 * are asked again.
 */
static atomic_t watchpol_lsm_gen = ATOMIC_INIT(0);
/*
 * Bumped whenever a label may resolve otherwise than before (a policy
 * change, a new label): a load that raced one resolves again.
 */
static atomic_t watchpol_label_gen = ATOMIC_INIT(0);
atomic_long_t watchpol_label_resolves = ATOMIC_LONG_INIT(0);

/**
 * watchpol_policy_build - parse a policy and resolve its labels
 * @text: the policy text
 * @len: its length
 * @err: why it was rejected
 * @gen: set to the LSM policy generation the labels were resolved in
 * @again: the text is the one in force, resolved again: a label the LSM
 *	rejects leaves its rules unresolved instead of rejecting the text
 *
 * Resolves the rules' labels and learns the secid aliases (see
 * watchpol_sid()) of the major LSM's policy as it is now.
 *
 * Return: the policy or an ERR_PTR, as watchpol_policy_parse().
 */
struct watchpol_policy *watchpol_policy_build(const char *text, size_t len,
					      struct watchpol_parse_error *err,
					      int *gen, bool again)
{
	struct watchpol_policy *p;

	*gen = atomic_read(&watchpol_label_gen);
	p = watchpol_policy_parse(text, len, again ? watchpol_reresolve_label :
						     watchpol_resolve_label,
				  err);
	if (!IS_ERR(p) && watchpol_lsm_aliases_secids())
		watchpol_policy_canon(p, watchpol_lsm_canon_secid);
	return p;
}

/**
 * watchpol_policy_stale - did the LSM policy change since a build?
 * @gen: what watchpol_policy_build() returned in *@gen
 *
 * Return: true if the labels must be resolved again.
 */
bool watchpol_policy_stale(int gen)
{
	return atomic_read(&watchpol_label_gen) != gen;
}

static void watchpol_free_rcu(struct rcu_head *head)
{
	watchpol_policy_free(container_of(head, struct watchpol_policy, rcu));
}

/**
 * watchpol_set_policy - make a policy the one in force
 * @p: the new policy; the old one is freed after a grace period
 *
 * The caller holds watchpol_policy_mutex.
 */
void watchpol_set_policy(struct watchpol_policy *p)
{
	struct watchpol_policy *old;

	/*
	 * The post hook goes on before a policy that checks posts is
	 * published, and off only after one that does not: no post starts
	 * with the hook off while the policy in force checks posts.
	 */
	if (p && p->posts) {
		watchpol_post_policy = true;
		post_hook_sync();
	}
	old = rcu_replace_pointer(watchpol_active, p,
				  lockdep_is_held(&watchpol_policy_mutex));
	if (!p || !p->posts) {
		watchpol_post_policy = false;
		post_hook_sync();
	}
	if (old)
		call_rcu(&old->rcu, watchpol_free_rcu);
}

/**
 * watchpol_consumer_get - a consumer of post decisions attaches
 *
 * From its return on, every post is evaluated under every model, counted
 * per model and logged, whatever the model in force.  Process context
 * (it patches code); called when watchpol/log is opened.
 */
void watchpol_consumer_get(void)
{
	mutex_lock(&watchpol_policy_mutex);
	static_branch_inc(&watchpol_consumed);
	watchpol_consumers++;
	post_hook_sync();
	mutex_unlock(&watchpol_policy_mutex);
}

/**
 * watchpol_consumer_put - a consumer of post decisions detaches
 *
 * Process context; called when the last reference to an open
 * watchpol/log goes away.
 */
void watchpol_consumer_put(void)
{
	mutex_lock(&watchpol_policy_mutex);
	watchpol_consumers--;
	post_hook_sync();
	static_branch_dec(&watchpol_consumed);
	mutex_unlock(&watchpol_policy_mutex);
}

/* The uids of a subject. */
static __always_inline void subj_uids(const struct cred *c,
				      struct watchpol_subj *s)
{
	s->kernel = false;
	s->uid = c->uid;
	s->euid = c->euid;
	s->suid = c->suid;
}

static void subj_from_cred(const struct cred *c, struct watchpol_subj *s)
{
	subj_uids(c, s);
	security_cred_getsecid(c, &s->sid);
}

static int finish(struct watchpol_decision *d, const struct watchpol_subj *w,
		  bool enforce)
{
	bool denied = d->denials & WATCHPOL_DENY(d->model);

	d->w_uid = __kuid_val(w->uid);
	d->w_sid = w->sid;
	if (denied)
		d->flags |= WATCHPOL_DEC_DENIED;
	if (enforce)
		d->flags |= WATCHPOL_DEC_ENFORCED;
	watchpol_decide(d);
	if (unlikely(denied))
		watchpol_audit_decision(d);
	return denied && enforce ? -EACCES : 0;
}

/*
 * Rule on a watch, or on a query for it (@query: statmount() asking for a
 * counter, which tells what the watch would).  A query is answered as the
 * watch would be and leaves no trace: no decision logged or counted, no
 * audit record; nobody watched.  A superblock's counter counts every
 * triggerer's events, so while the model for superblocks judges each post
 * its query is refused: the counter would tell W of the posts it withholds.
 */
static int watch_decide(enum watchpol_hook hook, int type,
			const struct cred *w_cred, u32 o_sid, bool visible,
			bool system_wide, bool query)
{
	struct watchpol_decision d = { .hook = hook, .type = type };
	struct watchpol_subj w;
	struct watchpol_watch_facts f = {
		.w = &w,
		.o_sid = o_sid,
		.visible = visible,
		.system_wide = system_wide,
	};
	const struct watchpol_policy *p;
	bool enforce, counts_withheld;

	subj_from_cred(w_cred, &w);
	d.o_sid = o_sid;
	rcu_read_lock();
	p = rcu_dereference(watchpol_active);
	if (!p) {
		rcu_read_unlock();
		return 0;
	}
	d.denials = watchpol_watch_denials(p, &f);
	d.model = watchpol_model_for(p, type);
	enforce = p->enforce;
	counts_withheld = type == WATCHPOL_TYPE_SB &&
			  watchpol_model_posts(p, d.model);
	rcu_read_unlock();
	if (query)
		return enforce && (counts_withheld ||
				   (d.denials & WATCHPOL_DENY(d.model))) ?
		       -EACCES : 0;
	return finish(&d, &w, enforce);
}

#ifdef CONFIG_KEY_NOTIFICATIONS
/*
 * The key's label: the LSM exposes a key's context only as text, so map it
 * back to a secid (the canonical one; watchpol_sid() maps W's alias to it).
 * *@sid is 0 when the key has no label.  Returns 0, or the LSM's error
 * when it could not say (out of memory): the caller must not read that as
 * "no label", which passes every label rule.
 */
static int key_secid(struct key *key, u32 *sid)
{
	char *ctx = NULL;
	int rc;

	*sid = 0;
	rc = security_key_getsecurity(key, &ctx);
	if (rc > 0 && ctx)
		rc = security_secctx_to_secid(ctx, strlen(ctx), sid);
	kfree(ctx);
	return rc < 0 ? rc : 0;
}

/**
 * watchpol_watch_key - rule on watching a key
 * @key: the key; the watcher is current
 *
 * The kernel has already required View permission (with possession) on
 * the key, which is the DAC part of the watcher model; watchpol adds the
 * label part: a watch rule from W's label to the key's.  A labelled W
 * whose key's label cannot be read is refused by the watcher models, as if
 * it could not see the key.
 *
 * Return: 0 or -EACCES.
 */
static int watchpol_watch_key(struct key *key)
{
	const struct cred *w_cred = current_cred();
	u32 w_sid, o_sid = 0;
	bool known = true;

	security_cred_getsecid(w_cred, &w_sid);
	if (w_sid)
		known = !key_secid(key, &o_sid);
	return watch_decide(WATCHPOL_HOOK_WATCH_KEY, WATCHPOL_TYPE_KEY, w_cred,
			    o_sid, known, false, false);
}
#endif /* CONFIG_KEY_NOTIFICATIONS */

#if defined(CONFIG_MOUNT_NOTIFICATIONS) || defined(CONFIG_SB_NOTIFICATIONS) || \
	defined(CONFIG_DEVICE_NOTIFICATIONS)
/**
 * watcher_cred - the creds of the task setting a watch
 * @watch: the watch being set, or NULL for a query
 *
 * The set-watch hooks run before add_watch_to_object() fills in
 * @watch->cred, so the watcher is the current task, as for watch_key; a
 * query (statmount() asking for a counter) is the current task's too.
 *
 * Return: @watch->cred if already set, else current_cred().
 */
static const struct cred *watcher_cred(const struct watch *watch)
{
	return watch && watch->cred ? watch->cred : current_cred();
}
#endif

#if defined(CONFIG_MOUNT_NOTIFICATIONS) || defined(CONFIG_SB_NOTIFICATIONS)
/**
 * reachable - can the task setting a watch reach what it names?
 * @path: the path the watch was set through
 *
 * A path from outside the task's root (a directory descriptor kept across
 * chroot() or received over a unix socket, or /proc/PID/root of a task in
 * another mount namespace) names something the task cannot see.
 *
 * Return: true if @path is under the current task's root.
 */
static bool reachable(const struct path *path)
{
	struct path root;
	bool under;

	get_fs_root(current->fs, &root);
	under = path_is_under(path, &root);
	path_put(&root);
	return under;
}
#endif

#ifdef CONFIG_MOUNT_NOTIFICATIONS
/**
 * watchpol_watch_mount - rule on watching a mount topology subtree
 * @watch: the watch being set (its creds: see watcher_cred()), or NULL for
 *	a query (statmount() asking for the mount's counter)
 * @path: the mount point to watch
 *
 * The watcher model requires the mount to be reachable from the watcher's
 * root in its mount namespace, and a watch rule from W's label to the
 * label of the mount's root inode.
 *
 * Return: 0 or -EACCES.
 */
static int watchpol_watch_mount(struct watch *watch, const struct path *path)
{
	u32 o_sid = 0;

	security_inode_getsecid(d_backing_inode(path->mnt->mnt_root), &o_sid);
	return watch_decide(WATCHPOL_HOOK_WATCH_MOUNT, WATCHPOL_TYPE_MOUNT,
			    watcher_cred(watch), o_sid, reachable(path), false,
			    !watch);
}
#endif /* CONFIG_MOUNT_NOTIFICATIONS */

#ifdef CONFIG_SB_NOTIFICATIONS
/**
 * watchpol_watch_sb - rule on watching a superblock
 * @watch: the watch being set (its creds: see watcher_cred()), or NULL for
 *	a query (statmount() asking for the superblock's counter)
 * @path: the path that names the superblock
 *
 * The watcher model requires the path to be reachable from the watcher's
 * root, as for a mount, and a watch rule from W's label to the label of
 * the superblock's root inode.
 *
 * Return: 0 or -EACCES.
 */
static int watchpol_watch_sb(struct watch *watch, const struct path *path)
{
	struct super_block *sb = path->dentry->d_sb;
	u32 o_sid = 0;

	if (sb->s_root)
		security_inode_getsecid(d_backing_inode(sb->s_root), &o_sid);
	return watch_decide(WATCHPOL_HOOK_WATCH_SB, WATCHPOL_TYPE_SB,
			    watcher_cred(watch), o_sid, reachable(path), false,
			    !watch);
}
#endif /* CONFIG_SB_NOTIFICATIONS */

#ifdef CONFIG_DEVICE_NOTIFICATIONS
/**
 * watchpol_watch_devices - rule on watching the global device list
 * @watch: the watch being set (its creds: see watcher_cred())
 *
 * Device events are system-wide, like uevents: every model allows the
 * watch; the decision is still counted and logged.
 *
 * Return: 0.
 */
static int watchpol_watch_devices(struct watch *watch)
{
	return watch_decide(WATCHPOL_HOOK_WATCH_DEVICES, WATCHPOL_TYPE_DEVICES,
			    watcher_cred(watch), 0, true, true, false);
}
#endif /* CONFIG_DEVICE_NOTIFICATIONS */

/*
 * What watchpol learns of a cred the first time it posts or is posted to,
 * in the cred's security blob: creds are immutable, so their secid is too;
 * the answer to CAP_KILL in the initial user namespace holds until an LSM's
 * policy changes (watchpol_lsm_gen).  Written without a lock by whoever
 * gets there first, each field in one store: racing writers store the same
 * value.  A new cred starts with a zeroed blob (nothing known).
 */
struct watchpol_cred {
	u64 sid;	/* WATCHPOL_CRED_SID | secid; 0: not read yet */
	u32 cap_kill;	/* (generation + 1) << 1 | answer; 0: not asked */
};

#define WATCHPOL_CRED_SID	BIT_ULL(32)

static struct lsm_blob_sizes watchpol_blob_sizes __ro_after_init = {
	.lbs_cred = sizeof(struct watchpol_cred),
};

/*
 * Whether CAP_KILL answers may be kept until the next LSM policy change
 * (see watchpol_lsm_capable_follows_policy()).  Set once every LSM is up.
 */
static bool watchpol_cap_cacheable __ro_after_init;

static int __init watchpol_cap_cache_init(void)
{
	if (watchpol_enabled)
		watchpol_cap_cacheable = watchpol_lsm_capable_follows_policy();
	return 0;
}
late_initcall(watchpol_cap_cache_init);

static struct watchpol_cred *watchpol_cred(const struct cred *cred)
{
	return cred->security + watchpol_blob_sizes.lbs_cred;
}

/* The cred's secid if cred_sid() has read it already. */
static __always_inline bool cred_sid_known(const struct cred *cred, u32 *sid)
{
	u64 v = READ_ONCE(watchpol_cred(cred)->sid);

	*sid = (u32)v;
	return v;
}

/* The cred's secid, read through the LSMs once per cred. */
static __always_inline u32 cred_sid(const struct cred *cred)
{
	struct watchpol_cred *wc = watchpol_cred(cred);
	u64 v = READ_ONCE(wc->sid);
	u32 sid;

	if (likely(v))
		return (u32)v;
	security_cred_getsecid(cred, &sid);
	WRITE_ONCE(wc->sid, WATCHPOL_CRED_SID | sid);
	return sid;
}

/*
 * T may signal W by capability: kill_ok_by_cred()'s CAP_KILL in W's user
 * namespace, through every LSM (commoncap, then any that may only narrow
 * its answer).  None of those that may be stacked sleeps in this hook, and
 * CAP_OPT_NOAUDIT keeps audit out: commoncap reads creds and walks user
 * namespaces, SELinux asks its AVC (on a miss it computes the decision
 * under RCU and caches it with GFP_NOWAIT), Smack has no capable hook.
 * The answer for the initial user namespace (which is never freed, so its
 * address names it) is kept in T's cred until an LSM policy changes.
 */
static __always_inline u32 cap_kill_tag(void)
{
	return ((u32)atomic_read(&watchpol_lsm_gen) + 1) << 1;
}

static __always_inline bool cap_kill_cacheable(const struct cred *w_cred)
{
	return w_cred->user_ns == &init_user_ns && watchpol_cap_cacheable;
}

static bool t_has_cap_kill(const struct cred *t_cred, const struct cred *w_cred)
{
	struct watchpol_cred *wc = watchpol_cred(t_cred);
	u32 gen = cap_kill_tag();
	bool cache = cap_kill_cacheable(w_cred);
	u32 v = READ_ONCE(wc->cap_kill);
	bool ok;

	if (cache && (v & ~1U) == gen)
		return v & 1;
	ok = !security_capable(t_cred, w_cred->user_ns, CAP_KILL,
			       CAP_OPT_NOAUDIT);
	if (cache)
		WRITE_ONCE(wc->cap_kill, gen | ok);
	return ok;
}

/*
 * The two front ends of the post verdict, post_decide() and the fast
 * path post_allowed(), fill its facts with the same two helpers and ask
 * the same watchpol_post_check(); they differ only in where a secid and
 * T's CAP_KILL come from (asked, or kept in the cred), so the fast path
 * can only answer less often, never otherwise.
 */

/* W: the watch's setter, or its queue's creator ("w_creds <type> creator"). */
static __always_inline const struct cred *
post_w_cred(const struct watchpol_policy *p, const struct watch *watch,
	    int type)
{
	return watchpol_w_is_creator(p, type) ? watch_queue_cred(watch) :
						watch->cred;
}

/*
 * T and W as the verdict sees them.  The core passes &init_cred for the
 * kernel (watch_cred_is_kernel()), judged by its own label, as Smack does.
 */
static __always_inline void post_subjects(const struct cred *t_cred,
					  const struct cred *w_cred,
					  u32 t_sid, u32 w_sid,
					  struct watchpol_subj *t,
					  struct watchpol_subj *w)
{
	subj_uids(w_cred, w);
	w->sid = w_sid;
	subj_uids(t_cred, t);
	t->kernel = t_cred == &init_cred;
	t->sid = t_sid;
}

/*
 * Every model's verdict on a post, in full: the secids and T's CAP_KILL are
 * asked (and kept in the creds) when not known yet.  Fills T and W for the
 * decision record, and the WATCHPOL_DEC_W_* flags that apply.
 */
static __always_inline u8 post_denials(const struct watchpol_policy *p,
				       const struct watch *watch,
				       const struct cred *cred, int type,
				       struct watchpol_subj *t,
				       struct watchpol_subj *w, u8 *flags)
{
	struct watchpol_post_facts f = { .t = t, .w = w };
	enum watchpol_post_verdict v;
	const struct cred *w_cred;

	w_cred = post_w_cred(p, watch, type);
	if (watchpol_w_is_creator(p, type))
		*flags |= WATCHPOL_DEC_W_CREATOR;
	if (p->recheck && !watch_may_observe(watch, w_cred)) {
		f.w_blind = true;
		*flags |= WATCHPOL_DEC_W_BLIND;
	}
	post_subjects(cred, w_cred, cred_sid(cred), cred_sid(w_cred), t, w);
	v = watchpol_post_check(p, &f);
	if (v == WATCHPOL_POST_NEED_CAP)
		v = t_has_cap_kill(cred, w_cred) ? WATCHPOL_POST_OK :
						   WATCHPOL_POST_DENY;
	return watchpol_post_mask(v) | watchpol_recheck_mask(p, &f);
}

/*
 * The full evaluation of a post: every model's verdict, counted and logged
 * when a consumer is attached or the model in force denies.  Out of line:
 * the hook calls it only when post_allowed() cannot answer alone.
 */
static noinline int post_decide(const struct watch *watch,
				const struct cred *cred,
				struct watch_notification *n)
{
	struct watchpol_subj w, t;
	struct watchpol_decision d;
	const struct watchpol_policy *p;
	bool shadow, enforce;
	u8 model, denials, flags = 0;
	int type;

	shadow = static_branch_unlikely(&watchpol_consumed);
	/* Removal and loss records always pass. */
	if (n->type == WATCH_TYPE_META) {
		if (shadow)
			watchpol_count_meta();
		return 0;
	}
	type = watchpol_record_type(n->type);

	rcu_read_lock();
	p = rcu_dereference(watchpol_active);
	if (!p) {
		rcu_read_unlock();
		return 0;
	}
	model = watchpol_model_for(p, type);
	if (!shadow && !watchpol_model_posts(p, model)) {
		rcu_read_unlock();
		return 0;
	}
	denials = post_denials(p, watch, cred, type, &t, &w, &flags);
	enforce = p->enforce;
	rcu_read_unlock();

	if (!shadow && !(denials & WATCHPOL_DENY(model)))
		return 0;
	memset(&d, 0, sizeof(d));
	d.hook = WATCHPOL_HOOK_POST;
	d.type = type;
	d.subtype = n->subtype;
	d.model = model;
	d.denials = denials;
	d.flags = flags;
	if (t.kernel)
		d.flags |= WATCHPOL_DEC_T_KERNEL;
	d.t_uid = __kuid_val(t.uid);
	d.t_sid = t.sid;
	return finish(&d, &w, enforce);
}

/* t_has_cap_kill() kept a yes for T in W's user namespace. */
static __always_inline bool t_cap_kill_kept(const struct cred *t_cred,
					    const struct cred *w_cred)
{
	return cap_kill_cacheable(w_cred) &&
	       READ_ONCE(watchpol_cred(t_cred)->cap_kill) == (cap_kill_tag() | 1);
}

/*
 * Does the model in force let this post through with nothing to record?
 * The common answer, found on the creds without building a decision and
 * without calling out: the model does not check posts, or
 * watchpol_post_check() passes on the facts post_decide() would give it,
 * filled from what the creds keep (the secids, then T's CAP_KILL).  false
 * means "evaluate in full" (post_decide()): a denial, the re-check (which
 * calls into the object's source), and a secid or CAP_KILL answer not
 * read yet, which post_decide() reads and keeps for the next post.  Under
 * RCU.
 */
static __always_inline bool post_allowed(const struct watchpol_policy *p,
					 const struct watch *watch,
					 const struct cred *cred, int type)
{
	struct watchpol_subj w, t;
	struct watchpol_post_facts f = { .t = &t, .w = &w };
	enum watchpol_post_verdict v;
	const struct cred *w_cred;
	u32 t_sid = 0, w_sid = 0;

	if (!watchpol_model_posts(p, watchpol_model_for(p, type)))
		return true;
	if (p->recheck)
		return false;
	w_cred = post_w_cred(p, watch, type);
	if (p->post_label &&
	    (!cred_sid_known(cred, &t_sid) || !cred_sid_known(w_cred, &w_sid)))
		return false;
	post_subjects(cred, w_cred, t_sid, w_sid, &t, &w);
	v = watchpol_post_check(p, &f);
	return v == WATCHPOL_POST_OK ||
	       (v == WATCHPOL_POST_NEED_CAP && t_cap_kill_kept(cred, w_cred));
}

#if IS_ENABLED(CONFIG_SECURITY_WATCHPOL_KUNIT_TEST)
/* The post verdict's two front ends and the creds' kept facts, for KUnit. */
bool watchpol_test_post_fast(const struct watchpol_policy *p,
			     const struct watch *watch,
			     const struct cred *cred, int type)
{
	return post_allowed(p, watch, cred, type);
}

u8 watchpol_test_post_full(const struct watchpol_policy *p,
			   const struct watch *watch, const struct cred *cred,
			   int type)
{
	struct watchpol_subj t, w;
	u8 flags = 0;

	return post_denials(p, watch, cred, type, &t, &w, &flags);
}

void watchpol_test_cred_sid(struct cred *cred, u32 sid)
{
	WRITE_ONCE(watchpol_cred(cred)->sid, WATCHPOL_CRED_SID | sid);
}

bool watchpol_test_cap_kill_kept(void)
{
	return watchpol_cap_cacheable;
}
#endif

/**
 * watchpol_post_notification - rule on delivering one notification
 * @watch: the watch; W is the creds of its setter (watch->cred) or, where
 *	the policy says "w_creds <type> creator", of its queue's creator
 * @cred: the triggerer's creds, or &init_cred for the kernel (the core
 *	passes it for every post watch_cred_is_kernel() ascribes to the kernel)
 * @n: the notification
 *
 * Runs under RCU and spinlocks, possibly in interrupt context: no sleeping,
 * allocation, mutexes or string formatting.  What a post costs depends on
 * what is asked of it:
 *
 * * No model in force checks posts (none, watcher) and no consumer: the
 *   hook is switched off (post_hook_sync()) and not called at all.
 * * The model in force for the type checks posts and lets this one
 *   through: post_allowed(), on the creds, with T's and W's secids (read
 *   through the LSMs once per cred, see cred_sid()), one hash probe when
 *   both sides are labelled and differ, the DAC uid compares and, only
 *   when the uids differ, the CAP_KILL answer (asked once per cred and LSM
 *   policy, see t_has_cap_kill()).  Nothing is written.  The first post
 *   of a cred, before its secid or CAP_KILL answer is kept, takes the full
 *   path below.
 * * It denies the post, or "recheck on" asks the object's source again
 *   (watch_may_observe(); a key: View permission through
 *   key_task_permission()): post_decide() evaluates it in full, and a
 *   denial is counted, logged and audited, as always.
 * * A consumer is attached (watchpol/log open): every post is evaluated,
 *   counted per model and logged with every model's verdict; this is the
 *   consumer's cost.
 *
 * The verdict of the model in force does not depend on which of these
 * ran.  A post that started before the hook was switched off runs to the
 * end with the policy it read, which no longer checks posts: it returns 0.
 *
 * Return: 0 or -EACCES.
 */
static int watchpol_post_notification(const struct watch *watch,
				      const struct cred *cred,
				      struct watch_notification *n)
{
	const struct watchpol_policy *p;
	bool allowed;

	if (static_branch_unlikely(&watchpol_consumed))
		return post_decide(watch, cred, n);
	/* Removal and loss records always pass. */
	if (n->type == WATCH_TYPE_META)
		return 0;
	rcu_read_lock();
	p = rcu_dereference(watchpol_active);
	allowed = !p || post_allowed(p, watch, cred,
				     watchpol_record_type(n->type));
	rcu_read_unlock();
	if (likely(allowed))
		return 0;
	return post_decide(watch, cred, n);
}

/*
 * Rule labels are resolved to secids when a policy is loaded.  When the
 * major LSM's policy changes (SELinux: its first load, every reload, when
 * every context resolved to the kernel SID before the first), or a label
 * that a rule could not resolve comes into being (Smack: a label imported
 * for the first time), resolve them again from the text in force, and
 * learn the aliases again, so rules written earlier keep matching.  Smack
 * imports labels with inode and superblock locks held: the work is done
 * later, in process context.
 */
static void watchpol_resolve_work(struct work_struct *work)
{
	struct watchpol_parse_error err;
	struct watchpol_policy *old, *p;
	int gen;

	mutex_lock(&watchpol_policy_mutex);
	old = rcu_dereference_protected(watchpol_active,
					lockdep_is_held(&watchpol_policy_mutex));
	if (old) {
		p = watchpol_policy_build(old->text, old->text_len, &err, &gen,
					  true);
		if (IS_ERR(p))
			pr_err_ratelimited("LSM policy changed and the rules cannot be resolved again (line %u: %s); keeping the previous secids\n",
					   err.line, err.reason ?: "out of memory");
		else
			watchpol_set_policy(p);
	}
	atomic_long_inc(&watchpol_label_resolves);
	mutex_unlock(&watchpol_policy_mutex);
}

static DECLARE_WORK(watchpol_resolve, watchpol_resolve_work);

/**
 * names_unresolved - does a rule in force fail to resolve a label?
 * @label: the label's text
 *
 * Return: true if a rule of the policy in force names @label and has a
 * label that mapped to no secid.
 */
static bool names_unresolved(const char *label)
{
	const struct watchpol_policy *p;
	const struct watchpol_text_rule *r;
	bool named = false;
	u32 i;

	rcu_read_lock();
	p = rcu_dereference(watchpol_active);
	for (i = 0; p && p->unresolved && !named && i < p->nr_text_rules; i++) {
		r = &p->text_rules[i];
		named = r->unresolved &&
			(!strcmp(r->subj, label) || !strcmp(r->obj, label));
	}
	rcu_read_unlock();
	return named;
}

static int watchpol_lsm_notify(struct notifier_block *nb, unsigned long event,
			       void *data)
{
	if (event == LSM_POLICY_CHANGE) {
		atomic_inc(&watchpol_lsm_gen);
		atomic_inc(&watchpol_label_gen);
	} else if (event == LSM_LABEL_NEW) {
		atomic_inc(&watchpol_label_gen);
		/*
		 * Any user can make Smack import labels.  A new label gives
		 * no secid a new meaning and changes no capability answer:
		 * only a rule that named it, unresolved, can change.
		 */
		if (!names_unresolved(data))
			return NOTIFY_DONE;
	} else {
		return NOTIFY_DONE;
	}
	schedule_work(&watchpol_resolve);
	return NOTIFY_OK;
}

static struct notifier_block watchpol_lsm_nb = {
	.notifier_call = watchpol_lsm_notify,
};

static const struct lsm_id watchpol_lsmid = {
	.name = "watchpol",
	.id = LSM_ID_WATCHPOL,
};

/* post_notification first: post_hook_sync() switches watchpol_hooks[0]. */
static struct security_hook_list watchpol_hooks[] __ro_after_init = {
	LSM_HOOK_INIT_RUNTIME(post_notification, watchpol_post_notification),
#ifdef CONFIG_KEY_NOTIFICATIONS
	LSM_HOOK_INIT(watch_key, watchpol_watch_key),
#endif
#ifdef CONFIG_MOUNT_NOTIFICATIONS
	LSM_HOOK_INIT(watch_mount, watchpol_watch_mount),
#endif
#ifdef CONFIG_SB_NOTIFICATIONS
	LSM_HOOK_INIT(watch_sb, watchpol_watch_sb),
#endif
#ifdef CONFIG_DEVICE_NOTIFICATIONS
	LSM_HOOK_INIT(watch_devices, watchpol_watch_devices),
#endif
};

/*
 * Switch the post hook on or off, as the policy in force and the consumers
 * need it.  It patches code: process context, under watchpol_policy_mutex.
 */
static void post_hook_sync(void)
{
	bool on = watchpol_post_policy || watchpol_consumers;

	lockdep_assert_held(&watchpol_policy_mutex);
	WARN_ON_ONCE(security_hook_toggle(&watchpol_hooks[0], on));
}

static int __init watchpol_init(void)
{
	struct watchpol_parse_error err;
	struct watchpol_policy *p;

	watchpol_decision_log_init();
	p = watchpol_boot_policy(boot_model, boot_enforce,
				 watchpol_resolve_label, &err);
	if (IS_ERR(p)) {
		pr_err("out of memory for the boot policy\n");
		p = NULL;
	} else if (err.reason) {
		pr_err("bad watchpol.model=\"%s\": %s; failing safe to \"default strict\", \"kernel_events deny\"\n",
		       boot_model, err.reason);
	}
	RCU_INIT_POINTER(watchpol_active, p);
	security_add_hooks(watchpol_hooks, ARRAY_SIZE(watchpol_hooks),
			   &watchpol_lsmid);
	mutex_lock(&watchpol_policy_mutex);
	watchpol_post_policy = p && p->posts;
	post_hook_sync();
	mutex_unlock(&watchpol_policy_mutex);
	if (register_blocking_lsm_notifier(&watchpol_lsm_nb))
		pr_err("cannot follow LSM policy changes\n");
	watchpol_enabled = true;
	pr_info("initialized: default model %s, enforce %d\n",
		p ? watchpol_model_names[p->default_model] : "none",
		p ? p->enforce : 0);
	return 0;
}

DEFINE_LSM(watchpol) = {
	.name = "watchpol",
	.init = watchpol_init,
	.blobs = &watchpol_blob_sizes,
};
