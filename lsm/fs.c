// SPDX-License-Identifier: GPL-2.0
/*
 * watchpol - securityfs interface: watchpol/{policy,stats,log,lock}.
 *
 * policy	read: the policy in force, canonical; write: a new policy in
 *		any number of writes, ending in an "end" line; swapped in
 *		atomically when its writer closes the file, or rejected
 *		whole
 * stats	allow/deny counters per hook and per model
 * log		the decision log; each read takes whole records off the ring
 * lock	write 1: the policy is immutable until reboot
 *
 * Writes and reading the log (it shows other users' events) need
 * CAP_MAC_ADMIN, both in the opener's and in the caller's creds; opening
 * stats needs it too.
 */

#include <crypto/sha2.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "load.h"
#include "audit.h"
#include "log.h"
#include "policy.h"
#include "watchpol.h"

/* Longest line of the log file. */
#define WATCHPOL_LOG_LINE	1024

static bool mac_admin(const struct file *file)
{
	return file_ns_capable(file, &init_user_ns, CAP_MAC_ADMIN) &&
	       capable(CAP_MAC_ADMIN);
}

struct policy_snapshot {
	size_t len;
	char text[];
};

/*
 * Loads through this file, under watchpol_policy_mutex: a text begun
 * before a later load is stale and never goes in force over it.
 */
static u64 policy_load_seq;

/*
 * One open file writing a policy: see load.h for the protocol.  Once the
 * end line has arrived, @pending is the parsed policy, put in force when
 * the writer that wrote the end line closes its descriptor.
 */
struct policy_writer {
	struct mutex lock;	/* serialises writes on this open file */
	struct watchpol_load load;
	struct watchpol_policy *pending;
	int gen;		/* the LSM policy generation @pending saw */
	u64 base;		/* policy_load_seq when the text began */
	fl_owner_t owner;	/* the file table that wrote the end line */
};

static const char policy_end_line[] = "end\n";

/*
 * Readers get the text in force at open(), so reads are never torn.  It
 * ends in an end line, so what a reader gets is a policy it can write back.
 */
static int policy_open_read(struct file *file)
{
	const struct watchpol_policy *p;
	struct policy_snapshot *snap;
	size_t len, end_len = strlen(policy_end_line);

	mutex_lock(&watchpol_policy_mutex);
	p = rcu_dereference_protected(watchpol_active,
				      lockdep_is_held(&watchpol_policy_mutex));
	len = p ? p->text_len : 0;
	snap = kvmalloc(struct_size(snap, text, len + end_len),
			GFP_KERNEL_ACCOUNT);
	if (snap) {
		snap->len = len + end_len;
		if (len)
			memcpy(snap->text, p->text, len);
		memcpy(snap->text + len, policy_end_line, end_len);
	}
	mutex_unlock(&watchpol_policy_mutex);
	if (!snap)
		return -ENOMEM;
	file->private_data = snap;
	return 0;
}

/*
 * Writers need CAP_MAC_ADMIN when they open the file (and again at every
 * write, see policy_write()).  The file is a stream: the text arrives in
 * order, pwrite() and lseek() fail with ESPIPE.
 */
static int policy_open_write(struct inode *inode, struct file *file)
{
	struct policy_writer *w;

	if (!mac_admin(file))
		return -EPERM;
	if (READ_ONCE(watchpol_locked)) {
		watchpol_audit_refused("locked");
		return -EPERM;
	}
	w = kzalloc(sizeof(*w), GFP_KERNEL_ACCOUNT);
	if (!w)
		return -ENOMEM;
	mutex_init(&w->lock);
	file->private_data = w;
	return stream_open(inode, file);
}

/**
 * policy_open() - open watchpol/policy for reading or for writing
 * @inode: the securityfs inode
 * @file: the file being opened
 *
 * Return:
 * * %0		- opened
 * * %-EINVAL	- opened for reading and writing at once
 * * %-EPERM	- opened for writing without CAP_MAC_ADMIN, or locked
 * * %-ENOMEM	- no memory
 */
static int policy_open(struct inode *inode, struct file *file)
{
	bool rd = file->f_mode & FMODE_READ, wr = file->f_mode & FMODE_WRITE;

	if (rd && wr)
		return -EINVAL;
	if (wr)
		return policy_open_write(inode, file);
	return rd ? policy_open_read(file) : 0;
}

/* The text will not load: free it and what was parsed of it. */
static void policy_discard(struct policy_writer *w)
{
	watchpol_load_finish(&w->load);
	watchpol_policy_free(w->pending);
	w->pending = NULL;
}

static void policy_reject(const struct watchpol_parse_error *err)
{
	atomic_long_inc(&watchpol_policy_rejects);
	if (err->reason && err->line)
		pr_err_ratelimited("policy rejected: line %u: %s\n",
				   err->line, err->reason);
	else if (err->reason)
		pr_err_ratelimited("policy rejected: %s\n", err->reason);
	watchpol_audit_load(NULL, err, false, NULL);
}

/* A complete text that will not go in force: say why, once, and audit it. */
static int policy_refuse(const char *why, const char *reason, int err)
{
	atomic_long_inc(&watchpol_policy_rejects);
	pr_err_ratelimited("policy rejected: %s; nothing loaded\n", why);
	watchpol_audit_refused(reason);
	return err;
}

/*
 * Put a parsed policy in force; @text is what it was parsed from, parsed
 * again if the LSM's policy changed since.  A text begun before another
 * load (@base is behind policy_load_seq) is refused: it was written
 * against a policy no longer in force.  Frees @p if it is not used.
 */
static int policy_install(struct watchpol_policy *p, int gen, u64 base,
			  const char *text, size_t len)
{
	u8 digest[SHA256_DIGEST_SIZE];
	struct watchpol_parse_error err;
	struct watchpol_policy *old;
	bool old_enforce;

	sha256(text, len, digest);
	mutex_lock(&watchpol_policy_mutex);
	if (watchpol_locked) {
		mutex_unlock(&watchpol_policy_mutex);
		watchpol_policy_free(p);
		watchpol_audit_refused("locked");
		return -EPERM;
	}
	if (base != policy_load_seq) {
		mutex_unlock(&watchpol_policy_mutex);
		watchpol_policy_free(p);
		return policy_refuse("another policy was loaded after this text began",
				     "stale", -ESTALE);
	}
	/* The LSM's policy changed since the text was parsed: resolve again. */
	if (watchpol_policy_stale(gen)) {
		watchpol_policy_free(p);
		p = watchpol_policy_build(text, len, &err, &gen, false);
		if (IS_ERR(p)) {
			mutex_unlock(&watchpol_policy_mutex);
			policy_reject(&err);
			return PTR_ERR(p);
		}
	}
	old = rcu_dereference_protected(watchpol_active,
					lockdep_is_held(&watchpol_policy_mutex));
	old_enforce = old ? old->enforce : false;
	watchpol_set_policy(p);
	policy_load_seq++;
	watchpol_audit_load(p, NULL, old_enforce, digest);
	mutex_unlock(&watchpol_policy_mutex);
	atomic_long_inc(&watchpol_policy_loads);
	return 0;
}

/*
 * A complete text goes in force, if the task closing it may still load
 * one; the caller holds @w->lock.
 */
static int policy_commit(struct policy_writer *w, const struct file *file)
{
	int ret;

	lockdep_assert_held(&w->lock);
	if (w->load.state != WATCHPOL_LOAD_COMPLETE)
		return 0;
	if (!mac_admin(file)) {
		ret = policy_refuse("its writer lost CAP_MAC_ADMIN before closing it",
				    "no CAP_MAC_ADMIN at commit", -EPERM);
		policy_discard(w);
		return ret;
	}
	ret = policy_install(w->pending, w->gen, w->base, w->load.buf,
			     w->load.len);
	w->pending = NULL;
	watchpol_load_finish(&w->load);
	return ret;
}

/*
 * A text goes in force only from its writer's own close (policy_flush()).
 * If the file outlives that without one (the end line came through a
 * path that never flushes), the text is dropped, never loaded late by
 * whoever held the file last.
 */
static int policy_release(struct inode *inode, struct file *file)
{
	struct policy_writer *w;

	if (!(file->f_mode & FMODE_WRITE)) {
		kvfree(file->private_data);
		return 0;
	}
	w = file->private_data;
	if (w->load.state == WATCHPOL_LOAD_COMPLETE)
		policy_refuse("the file was released before its writer closed it",
			      "writer never closed", 0);
	if (w->load.state == WATCHPOL_LOAD_OPEN && w->load.len) {
		atomic_long_inc(&watchpol_policy_rejects);
		pr_err_ratelimited("policy rejected: closed without an end line; %zu bytes discarded, nothing loaded\n",
				   w->load.len);
	}
	policy_discard(w);
	mutex_destroy(&w->lock);
	kfree(w);
	return 0;
}

/*
 * A complete text goes in force when the writer that wrote its end line
 * closes a descriptor of the file, and close() returns the outcome:
 * -EPERM if the closer no longer has CAP_MAC_ADMIN, -ESTALE if another
 * policy was loaded since the text began.  Another holder's close (a
 * child forked while the file was open, a receiver over SCM_RIGHTS) does
 * and reports nothing, so a holder cannot put an old text in force over
 * a newer one.  The last close of a file that received text but no end
 * line fails, so that a tool whose input was cut short (and which checks
 * close(), as coreutils do) learns that nothing was loaded.
 */
static int policy_flush(struct file *file, fl_owner_t id)
{
	struct policy_writer *w = file->private_data;
	int ret = 0;

	if (!(file->f_mode & FMODE_WRITE))
		return 0;
	mutex_lock(&w->lock);
	if (w->load.state == WATCHPOL_LOAD_OPEN) {
		if (w->load.len && file_count(file) == 1)
			ret = -EINVAL;
	} else if (w->load.state == WATCHPOL_LOAD_COMPLETE && id == w->owner) {
		ret = policy_commit(w, file);
	}
	mutex_unlock(&w->lock);
	return ret;
}

static ssize_t policy_read(struct file *file, char __user *buf, size_t count,
			   loff_t *ppos)
{
	struct policy_snapshot *snap = file->private_data;

	if (!snap)
		return -EBADF;
	return simple_read_from_buffer(buf, count, ppos, snap->text,
				       snap->len);
}

/**
 * policy_write() - add text to the policy being written on this open file
 * @file: the open file
 * @ubuf: the text
 * @count: its length
 * @ppos: unused: the file is a stream
 *
 * The text accumulates until a line starting with "end" arrives; the write
 * that brings it parses the whole text, and that writer's close puts it
 * in force (policy_flush()).  After the end line only blank lines and
 * comments may follow.
 *
 * Return: @count, or
 * * %-EPERM	- the opener or the caller lacks CAP_MAC_ADMIN, or the
 *		  policy is locked
 * * %-EINVAL	- a zero-length write (nothing changes), or the policy is
 *		  malformed, a statement included after its end line (the
 *		  kernel log says which line and why)
 * * %-EBADFD	- this open file's policy was already rejected
 * * %-EFBIG	- the text exceeds WATCHPOL_MAX_POLICY; nothing is loaded
 * * %-EFAULT, %-ENOMEM - nothing changes
 */
static ssize_t policy_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct policy_writer *w = file->private_data;
	struct watchpol_parse_error err = {};
	struct watchpol_policy *p;
	bool was_open;
	char *dst;
	ssize_t ret;

	if (!mac_admin(file))
		return -EPERM;
	mutex_lock(&w->lock);
	if (!w->load.len && w->load.state == WATCHPOL_LOAD_OPEN) {
		mutex_lock(&watchpol_policy_mutex);
		w->base = policy_load_seq;
		mutex_unlock(&watchpol_policy_mutex);
	}
	ret = watchpol_load_reserve(&w->load, count, GFP_KERNEL_ACCOUNT, &dst);
	if (ret == -EFBIG) {
		atomic_long_inc(&watchpol_policy_rejects);
		pr_err_ratelimited("policy rejected: larger than %d bytes\n",
				   WATCHPOL_MAX_POLICY);
		watchpol_audit_refused("too large");
		policy_discard(w);
	}
	if (ret)
		goto out;
	if (copy_from_user(dst, ubuf, count)) {
		ret = -EFAULT;
		goto out;
	}
	was_open = w->load.state == WATCHPOL_LOAD_OPEN;
	ret = watchpol_load_append(&w->load, count, &err);
	if (ret < 0) {
		policy_reject(&err);
		policy_discard(w);
		goto out;
	}
	/* Text not yet complete, or blanks and comments after the end. */
	if (!ret || !was_open) {
		ret = count;
		goto out;
	}
	/* The end line arrived: a malformed policy fails this write. */
	if (READ_ONCE(watchpol_locked)) {
		ret = -EPERM;
		watchpol_audit_refused("locked");
		policy_discard(w);
		goto out;
	}
	p = watchpol_policy_build(w->load.buf, w->load.len, &err, &w->gen,
				  false);
	if (IS_ERR(p)) {
		policy_reject(&err);
		policy_discard(w);
		ret = PTR_ERR(p);
		goto out;
	}
	w->pending = p;
	w->owner = current->files;
	ret = count;
out:
	mutex_unlock(&w->lock);
	return ret;
}

static const struct file_operations policy_fops = {
	.open		= policy_open,
	.read		= policy_read,
	.write		= policy_write,
	.flush		= policy_flush,
	.release	= policy_release,
	.llseek		= generic_file_llseek,
};

static int stats_show(struct seq_file *m, void *v)
{
	const struct watchpol_policy *p;
	u32 unresolved, sid;

	/* At every read, as the log: a descriptor handed on reads nothing. */
	if (!mac_admin(m->file))
		return -EPERM;
	watchpol_stats_show(m);
	rcu_read_lock();
	p = rcu_dereference(watchpol_active);
	unresolved = p ? p->unresolved : 0;
	rcu_read_unlock();
	seq_printf(m, "unresolved_rules %u\n", unresolved);
	seq_printf(m, "label_resolves %ld\n",
		   atomic_long_read(&watchpol_label_resolves));
	seq_printf(m, "audit_suppressed %ld\n",
		   atomic_long_read(&watchpol_audit_suppressed));
	/*
	 * Without a label source (no major LSM, or one whose creds carry no
	 * secid) every label part passes: say so rather than let it read as
	 * "no labels differ".
	 */
	security_cred_getsecid(current_cred(), &sid);
	seq_printf(m, "label_part %s\n", sid ? "active" : "inactive");
	return 0;
}

/*
 * The counters move with every user's watches and events, so they are a
 * channel between principals that no model mediates: CAP_MAC_ADMIN only,
 * like the log, at open and at every read (stats_show()).
 */
static int stats_open(struct inode *inode, struct file *file)
{
	if (!capable(CAP_MAC_ADMIN))
		return -EPERM;
	return single_open(file, stats_show, NULL);
}

static const struct file_operations stats_fops = {
	.open		= stats_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/*
 * An open log is what makes post decisions recorded (see
 * watchpol_post_notification()): a reader gets every post decided while
 * it holds the file open, and each denial whenever it was made.
 */
static int log_open(struct inode *inode, struct file *file)
{
	int ret;

	if (!capable(CAP_MAC_ADMIN))
		return -EPERM;
	ret = stream_open(inode, file);
	if (!ret)
		watchpol_consumer_get();
	return ret;
}

static int log_release(struct inode *inode, struct file *file)
{
	watchpol_consumer_put();
	return 0;
}

/* Whole records only; an empty ring reads as end of file. */
static ssize_t log_read(struct file *file, char __user *buf, size_t count,
			loff_t *ppos)
{
	struct watchpol_log *log = &watchpol_decision_log;
	struct watchpol_decision d;
	size_t copied = 0;
	char *line;
	int n, ret = 0;

	if (!mac_admin(file))
		return -EPERM;
	line = kmalloc(WATCHPOL_LOG_LINE, GFP_KERNEL);
	if (!line)
		return -ENOMEM;
	if (mutex_lock_interruptible(&log->read_lock)) {
		kfree(line);
		return -ERESTARTSYS;
	}
	while (watchpol_log_peek(log, &d)) {
		n = watchpol_log_format(&d, line, WATCHPOL_LOG_LINE);
		if (n > count - copied) {
			if (!copied)
				ret = -EINVAL;
			break;
		}
		if (copy_to_user(buf + copied, line, n)) {
			ret = -EFAULT;
			break;
		}
		watchpol_log_consume(log);
		copied += n;
	}
	mutex_unlock(&log->read_lock);
	kfree(line);
	return copied ? copied : ret;
}

static const struct file_operations log_fops = {
	.open		= log_open,
	.read		= log_read,
	.release	= log_release,
};

static ssize_t lock_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	const char *s = READ_ONCE(watchpol_locked) ? "1\n" : "0\n";

	return simple_read_from_buffer(buf, count, ppos, s, 2);
}

static ssize_t lock_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	bool lock;
	int ret;

	if (!mac_admin(file))
		return -EPERM;
	ret = kstrtobool_from_user(buf, count, &lock);
	if (ret)
		return ret;
	mutex_lock(&watchpol_policy_mutex);
	if (!lock && watchpol_locked) {
		mutex_unlock(&watchpol_policy_mutex);
		return -EPERM;
	}
	if (lock && !watchpol_locked) {
		WRITE_ONCE(watchpol_locked, true);
		pr_info("policy locked until reboot\n");
		watchpol_audit_lock();
	}
	mutex_unlock(&watchpol_policy_mutex);
	return count;
}

static const struct file_operations lock_fops = {
	.read		= lock_read,
	.write		= lock_write,
	.llseek		= generic_file_llseek,
};

static int __init watchpol_init_securityfs(void)
{
	struct dentry *dir, *d;

	if (!watchpol_enabled)
		return 0;
	dir = securityfs_create_dir("watchpol", NULL);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	d = securityfs_create_file("policy", 0644, dir, NULL, &policy_fops);
	if (IS_ERR(d))
		goto fail;
	d = securityfs_create_file("stats", 0400, dir, NULL, &stats_fops);
	if (IS_ERR(d))
		goto fail;
	d = securityfs_create_file("log", 0400, dir, NULL, &log_fops);
	if (IS_ERR(d))
		goto fail;
	d = securityfs_create_file("lock", 0644, dir, NULL, &lock_fops);
	if (IS_ERR(d))
		goto fail;
	return 0;

fail:
	securityfs_recursive_remove(dir);
	pr_err("cannot create securityfs files: %ld\n", PTR_ERR(d));
	return PTR_ERR(d);
}

fs_initcall(watchpol_init_securityfs);
