// SPDX-License-Identifier: GPL-2.0
/*
 * watchpol - securityfs interface: watchpol/{policy,stats,log,lock}.
 *
 * policy	read: the policy in force, canonical; write: a whole new policy
 *		in one write(2), swapped in atomically or rejected whole
 * stats	allow/deny counters per hook and per model
 * log		the decision log; each read takes whole records off the ring
 * lock	write 1: the policy is immutable until reboot
 *
 * Writes and reading the log (it shows other users' events) need
 * CAP_MAC_ADMIN, both in the opener's and in the caller's creds.
 */

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

/* Readers get the text in force at open(), so reads are never torn. */
static int policy_open(struct inode *inode, struct file *file)
{
	const struct watchpol_policy *p;
	struct policy_snapshot *snap;
	size_t len;

	if (!(file->f_mode & FMODE_READ))
		return 0;
	mutex_lock(&watchpol_policy_mutex);
	p = rcu_dereference_protected(watchpol_active,
				      lockdep_is_held(&watchpol_policy_mutex));
	len = p ? p->text_len : 0;
	snap = kvmalloc(struct_size(snap, text, len), GFP_KERNEL);
	if (snap) {
		snap->len = len;
		if (len)
			memcpy(snap->text, p->text, len);
	}
	mutex_unlock(&watchpol_policy_mutex);
	if (!snap)
		return -ENOMEM;
	file->private_data = snap;
	return 0;
}

static int policy_release(struct inode *inode, struct file *file)
{
	kvfree(file->private_data);
	return 0;
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

static ssize_t policy_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct watchpol_parse_error err;
	struct watchpol_policy *p;
	char *buf;

	if (!mac_admin(file))
		return -EPERM;
	/* The whole policy in one write: a later write must not patch it. */
	if (*ppos != 0)
		return -EINVAL;
	if (count > WATCHPOL_MAX_POLICY)
		return -EFBIG;
	if (READ_ONCE(watchpol_locked))
		return -EPERM;

	buf = vmemdup_user(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	p = watchpol_policy_parse(buf, count, watchpol_resolve_label, &err);
	kvfree(buf);
	if (IS_ERR(p)) {
		atomic_long_inc(&watchpol_policy_rejects);
		if (err.reason)
			pr_err_ratelimited("watchpol: policy rejected: line %u: %s\n",
					   err.line, err.reason);
		return PTR_ERR(p);
	}

	mutex_lock(&watchpol_policy_mutex);
	if (watchpol_locked) {
		mutex_unlock(&watchpol_policy_mutex);
		watchpol_policy_free(p);
		return -EPERM;
	}
	watchpol_set_policy(p);
	mutex_unlock(&watchpol_policy_mutex);
	atomic_long_inc(&watchpol_policy_loads);
	*ppos = count;
	return count;
}

static const struct file_operations policy_fops = {
	.open		= policy_open,
	.read		= policy_read,
	.write		= policy_write,
	.release	= policy_release,
	.llseek		= generic_file_llseek,
};

static int stats_show(struct seq_file *m, void *v)
{
	const struct watchpol_policy *p;
	u32 unresolved;

	watchpol_stats_show(m);
	rcu_read_lock();
	p = rcu_dereference(watchpol_active);
	unresolved = p ? p->unresolved : 0;
	rcu_read_unlock();
	seq_printf(m, "unresolved_rules %u\n", unresolved);
	return 0;
}

static int stats_open(struct inode *inode, struct file *file)
{
	return single_open(file, stats_show, NULL);
}

static const struct file_operations stats_fops = {
	.open		= stats_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static int log_open(struct inode *inode, struct file *file)
{
	if (!capable(CAP_MAC_ADMIN))
		return -EPERM;
	return stream_open(inode, file);
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
		pr_info("watchpol: policy locked until reboot\n");
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
	d = securityfs_create_file("stats", 0444, dir, NULL, &stats_fops);
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
	pr_err("watchpol: cannot create securityfs files: %ld\n", PTR_ERR(d));
	return PTR_ERR(d);
}

fs_initcall(watchpol_init_securityfs);
