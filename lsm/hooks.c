// SPDX-License-Identifier: GPL-2.0
/*
 * watchpol - LSM hooks on setting watches and posting notifications.
 *
 * W is the watch's creds (the task that set the watch), T the creds of
 * the task whose action triggered a notification (the kernel as
 * watch_cred_is_kernel() decides) and O the watched object.  Each
 * decision is evaluated under all four models (shadow evaluation), counted
 * and logged; the model in force for the watch type decides, and only
 * denies when enforce is 1.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/init_task.h>
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
#include "log.h"
#include "policy.h"
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
/* Serialises policy replacement, the lock flag and policy text reads. */
DEFINE_MUTEX(watchpol_policy_mutex);
bool watchpol_locked;

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
 * Only SELinux issues several secids for one context (its initial SIDs);
 * Smack maps a secid it never issued to its "?" label, so a round trip
 * through text would alias secids it has yet to issue.
 */
static bool watchpol_selinux(void)
{
	u32 i;

	for (i = 0; i < lsm_active_cnt; i++)
		if (lsm_idlist[i]->id == LSM_ID_SELINUX)
			return true;
	return false;
}

static int watchpol_canon_label(u32 secid, u32 *canon)
{
	char *ctx;
	u32 len;
	int rc;

	rc = security_secid_to_secctx(secid, &ctx, &len);
	if (rc)
		return rc;
	rc = security_secctx_to_secid(ctx, len, canon);
	security_release_secctx(ctx, len);
	return rc;
}

/* Bumped on every LSM policy change: a load that raced one resolves again. */
static atomic_t watchpol_lsm_gen = ATOMIC_INIT(0);
atomic_long_t watchpol_label_resolves = ATOMIC_LONG_INIT(0);

/**
 * watchpol_policy_build - parse a policy and resolve its labels
 * @text: the policy text
 * @len: its length
 * @err: why it was rejected
 * @gen: set to the LSM policy generation the labels were resolved in
 *
 * Resolves the rules' labels and learns the secid aliases (see
 * watchpol_sid()) of the major LSM's policy as it is now.
 *
 * Return: the policy or an ERR_PTR, as watchpol_policy_parse().
 */
struct watchpol_policy *watchpol_policy_build(const char *text, size_t len,
					      struct watchpol_parse_error *err,
					      int *gen)
{
	struct watchpol_policy *p;

	*gen = atomic_read(&watchpol_lsm_gen);
	p = watchpol_policy_parse(text, len, watchpol_resolve_label, err);
	if (!IS_ERR(p) && watchpol_selinux())
		watchpol_policy_canon(p, watchpol_canon_label);
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
	return atomic_read(&watchpol_lsm_gen) != gen;
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

	old = rcu_replace_pointer(watchpol_active, p,
				  lockdep_is_held(&watchpol_policy_mutex));
	if (old)
		call_rcu(&old->rcu, watchpol_free_rcu);
}

static void subj_from_cred(const struct cred *c, struct watchpol_subj *s)
{
	s->kernel = false;
	s->uid = c->uid;
	s->euid = c->euid;
	s->suid = c->suid;
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

static int watch_decide(enum watchpol_hook hook, int type,
			const struct cred *w_cred, u32 o_sid, bool visible,
			bool system_wide)
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
	bool enforce;

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
	rcu_read_unlock();
	return finish(&d, &w, enforce);
}

#ifdef CONFIG_KEY_NOTIFICATIONS
/*
 * The key's label: the LSM exposes a key's context only as text, so map it
 * back to a secid (the canonical one; watchpol_sid() maps W's alias to it).
 * Returns 0 when the key has no label.
 */
static u32 key_secid(struct key *key)
{
	char *ctx = NULL;
	u32 sid = 0;
	int rc;

	rc = security_key_getsecurity(key, &ctx);
	if (rc > 0 && ctx && security_secctx_to_secid(ctx, strlen(ctx), &sid))
		sid = 0;
	kfree(ctx);
	return sid;
}

/**
 * watchpol_watch_key - rule on watching a key
 * @key: the key; the watcher is current
 *
 * The kernel has already required View permission (with possession) on
 * the key, which is the DAC part of the watcher model; watchpol adds the
 * label part: a watch rule from W's label to the key's.
 *
 * Return: 0 or -EACCES.
 */
static int watchpol_watch_key(struct key *key)
{
	const struct cred *w_cred = current_cred();
	u32 w_sid, o_sid = 0;

	security_cred_getsecid(w_cred, &w_sid);
	if (w_sid)
		o_sid = key_secid(key);
	return watch_decide(WATCHPOL_HOOK_WATCH_KEY, WATCHPOL_TYPE_KEY, w_cred,
			    o_sid, true, false);
}
#endif /* CONFIG_KEY_NOTIFICATIONS */

#if defined(CONFIG_MOUNT_NOTIFICATIONS) || defined(CONFIG_SB_NOTIFICATIONS) || \
	defined(CONFIG_DEVICE_NOTIFICATIONS)
/**
 * watcher_cred - the creds of the task setting a watch
 * @watch: the watch being set
 *
 * The set-watch hooks run before add_watch_to_object() fills in
 * @watch->cred, so the watcher is the current task, as for watch_key.
 *
 * Return: @watch->cred if already set, else current_cred().
 */
static const struct cred *watcher_cred(const struct watch *watch)
{
	return watch->cred ? watch->cred : current_cred();
}
#endif

#ifdef CONFIG_MOUNT_NOTIFICATIONS
/**
 * watchpol_watch_mount - rule on watching a mount topology subtree
 * @watch: the watch being set (its creds: see watcher_cred())
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
	struct path root;
	bool visible;
	u32 o_sid = 0;

	get_fs_root(current->fs, &root);
	visible = path_is_under(path, &root);
	path_put(&root);
	security_inode_getsecid(d_backing_inode(path->mnt->mnt_root), &o_sid);
	return watch_decide(WATCHPOL_HOOK_WATCH_MOUNT, WATCHPOL_TYPE_MOUNT,
			    watcher_cred(watch), o_sid, visible, false);
}
#endif /* CONFIG_MOUNT_NOTIFICATIONS */

#ifdef CONFIG_SB_NOTIFICATIONS
/**
 * watchpol_watch_sb - rule on watching a superblock
 * @watch: the watch being set (its creds: see watcher_cred())
 * @sb: the superblock to watch
 *
 * The caller found @sb through a path it resolved in its own namespace;
 * the watcher model adds a watch rule from W's label to the label of the
 * superblock's root inode.
 *
 * Return: 0 or -EACCES.
 */
static int watchpol_watch_sb(struct watch *watch, struct super_block *sb)
{
	u32 o_sid = 0;

	if (sb->s_root)
		security_inode_getsecid(d_backing_inode(sb->s_root), &o_sid);
	return watch_decide(WATCHPOL_HOOK_WATCH_SB, WATCHPOL_TYPE_SB,
			    watcher_cred(watch), o_sid, true, false);
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
			    watcher_cred(watch), 0, true, true);
}
#endif /* CONFIG_DEVICE_NOTIFICATIONS */

/**
 * watchpol_post_notification - rule on delivering one notification
 * @watch: the watch; W is the creds of its setter (watch->cred) or, where
 *	the policy says "w_creds <type> creator", of its queue's creator
 * @cred: the triggerer's creds; the kernel as decided by
 *	watch_cred_is_kernel() (the core passes &init_cred for it)
 * @n: the notification
 *
 * Runs under RCU and spinlocks, possibly in interrupt context: no sleeping,
 * allocation, mutexes or string formatting.  The cost is two secid reads,
 * four uid compares, at most one capability check (only when the uids
 * differ), a binary search in the post rules when both sides are labelled
 * and differ, with "recheck on" the object source's check (keys: View
 * permission), and recording the decision (per-CPU counters plus one slot
 * of the lock-free ring).
 *
 * Return: 0 or -EACCES.
 */
static int watchpol_post_notification(const struct watch *watch,
				      const struct cred *cred,
				      struct watch_notification *n)
{
	struct watchpol_decision d = { .hook = WATCHPOL_HOOK_POST };
	struct watchpol_subj w, t = {};
	struct watchpol_post_facts f = { .t = &t, .w = &w };
	const struct watchpol_policy *p;
	const struct cred *w_cred;
	bool enforce;
	int type;

	/* Removal and loss records always pass. */
	if (n->type == WATCH_TYPE_META) {
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
	w_cred = watch->cred;
	if (watchpol_w_is_creator(p, type)) {
		w_cred = watch_queue_cred(watch);
		d.flags |= WATCHPOL_DEC_W_CREATOR;
	}
	if (p->recheck && !watch_may_observe(watch, w_cred)) {
		f.w_blind = true;
		d.flags |= WATCHPOL_DEC_W_BLIND;
	}
	subj_from_cred(w_cred, &w);
	/* The core's rule (kernel/watch_queue.c), for any other caller too. */
	if (watch_cred_is_kernel(cred)) {
		/* The kernel is judged by its own label, as Smack does. */
		t.kernel = true;
		d.flags |= WATCHPOL_DEC_T_KERNEL;
		security_cred_getsecid(&init_cred, &t.sid);
	} else {
		subj_from_cred(cred, &t);
		if (!watchpol_dac_uid_ok(&t, &w))
			f.t_cap_kill = !security_capable(cred, w_cred->user_ns,
							 CAP_KILL,
							 CAP_OPT_NOAUDIT);
	}

	d.type = type;
	d.subtype = n->subtype;
	d.t_uid = __kuid_val(t.uid);
	d.t_sid = t.sid;

	d.denials = watchpol_post_denials(p, n->type, &f);
	d.model = watchpol_model_for(p, type);
	enforce = p->enforce;
	rcu_read_unlock();
	return finish(&d, &w, enforce);
}

/*
 * Rule labels are resolved to secids when a policy is loaded.  When the
 * major LSM's policy changes (SELinux: its first load, every reload, when
 * every context resolved to the kernel SID before the first; Smack, with
 * kernel-patches/0014: a label imported for the first time), resolve them
 * again from the text in force, and learn the aliases again, so rules
 * written earlier keep matching.  Smack imports labels with inode and
 * superblock locks held: the work is done later, in process context.
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
		p = watchpol_policy_build(old->text, old->text_len, &err, &gen);
		if (IS_ERR(p))
			pr_err("LSM policy changed and the rules no longer resolve (line %u: %s); keeping the previous secids\n",
			       err.line, err.reason ?: "out of memory");
		else
			watchpol_set_policy(p);
	}
	atomic_long_inc(&watchpol_label_resolves);
	mutex_unlock(&watchpol_policy_mutex);
}

static DECLARE_WORK(watchpol_resolve, watchpol_resolve_work);

static int watchpol_lsm_notify(struct notifier_block *nb, unsigned long event,
			       void *data)
{
	if (event != LSM_POLICY_CHANGE)
		return NOTIFY_DONE;
	atomic_inc(&watchpol_lsm_gen);
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

static struct security_hook_list watchpol_hooks[] __ro_after_init = {
	LSM_HOOK_INIT(post_notification, watchpol_post_notification),
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
};
