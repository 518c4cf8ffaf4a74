// SPDX-License-Identifier: GPL-2.0
/*
 * watchpol - decision log and counters.
 *
 * Decisions are made under RCU and spinlocks, sometimes in interrupt
 * context, so recording one must never block: counters are per-CPU, the
 * sequence number is one atomic increment, and the log is a bounded
 * lock-free ring that drops (and counts) records when the reader lags.
 * Labels are stored as secids and turned into text only by the reader.
 */

#include <linux/cred.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/security.h>
#include <linux/uidgid.h>

#include "log.h"
#include "policy.h"

struct watchpol_counters {
	unsigned long model[WATCHPOL_HOOK__NR][WATCHPOL_MODEL__NR][2];
	unsigned long result[WATCHPOL_HOOK__NR][2];
	unsigned long meta;
};

static DEFINE_PER_CPU(struct watchpol_counters, watchpol_counters);
static atomic64_t watchpol_seq = ATOMIC64_INIT(0);
static struct watchpol_log_slot watchpol_slots[WATCHPOL_LOG_SIZE];

struct watchpol_log watchpol_decision_log;
atomic_long_t watchpol_policy_loads = ATOMIC_LONG_INIT(0);
atomic_long_t watchpol_policy_rejects = ATOMIC_LONG_INIT(0);

static const char *const hook_names[WATCHPOL_HOOK__NR] = {
	[WATCHPOL_HOOK_WATCH_KEY]	= "watch_key",
	[WATCHPOL_HOOK_WATCH_MOUNT]	= "watch_mount",
	[WATCHPOL_HOOK_WATCH_SB]	= "watch_sb",
	[WATCHPOL_HOOK_WATCH_DEVICES]	= "watch_devices",
	[WATCHPOL_HOOK_POST]		= "post_notification",
};

/**
 * watchpol_log_init - set up an empty ring
 * @log: the ring
 * @slots: its storage
 * @size: the number of slots, a power of two
 */
void watchpol_log_init(struct watchpol_log *log,
		       struct watchpol_log_slot *slots, unsigned int size)
{
	unsigned int i;

	atomic_long_set(&log->head, 0);
	log->tail = 0;
	atomic_long_set(&log->dropped, 0);
	atomic_long_set(&log->recorded, 0);
	mutex_init(&log->read_lock);
	log->slots = slots;
	log->mask = size - 1;
	for (i = 0; i < size; i++)
		slots[i].seq = i;
}

/**
 * watchpol_decision_log_init - set up the system's decision log
 */
void __init watchpol_decision_log_init(void)
{
	watchpol_log_init(&watchpol_decision_log, watchpol_slots,
			  WATCHPOL_LOG_SIZE);
}

/**
 * watchpol_log_put - append a record without ever waiting
 * @log: the ring
 * @d: the record
 *
 * Return: true if stored, false if the ring was full (counted as dropped).
 */
bool watchpol_log_put(struct watchpol_log *log,
		      const struct watchpol_decision *d)
{
	struct watchpol_log_slot *slot;
	long pos = atomic_long_read(&log->head);
	long diff;

	for (;;) {
		slot = &log->slots[pos & log->mask];
		/* Pairs with the release in watchpol_log_consume(). */
		diff = (long)smp_load_acquire(&slot->seq) - pos;
		if (diff < 0) {
			/* The reader has not freed this slot yet: full. */
			atomic_long_inc(&log->dropped);
			return false;
		}
		/* On failure, try_cmpxchg reloads pos with the new head. */
		if (diff == 0 &&
		    atomic_long_try_cmpxchg(&log->head, &pos, pos + 1))
			break;
		if (diff > 0)
			pos = atomic_long_read(&log->head);
	}
	slot->d = *d;
	/* Publish the record; pairs with the acquire in watchpol_log_peek(). */
	smp_store_release(&slot->seq, pos + 1);
	atomic_long_inc(&log->recorded);
	return true;
}

/**
 * watchpol_log_peek - look at the oldest published record
 * @log: the ring; the caller holds @log->read_lock
 * @d: filled with the record
 *
 * Return: true if a record is ready, false if none is.
 */
bool watchpol_log_peek(struct watchpol_log *log, struct watchpol_decision *d)
{
	unsigned long pos = log->tail;
	struct watchpol_log_slot *slot = &log->slots[pos & log->mask];

	lockdep_assert_held(&log->read_lock);
	/* Pairs with the release in watchpol_log_put(): the record is whole. */
	if ((long)(smp_load_acquire(&slot->seq) - (pos + 1)) < 0)
		return false;
	*d = slot->d;
	return true;
}

/**
 * watchpol_log_consume - hand the record last peeked at back to producers
 * @log: the ring; the caller holds @log->read_lock and peeked successfully
 */
void watchpol_log_consume(struct watchpol_log *log)
{
	unsigned long pos = log->tail;

	lockdep_assert_held(&log->read_lock);
	/* Hand the slot to the producer one lap ahead, after our copy. */
	smp_store_release(&log->slots[pos & log->mask].seq,
			  pos + log->mask + 1);
	log->tail = pos + 1;
}

/**
 * watchpol_decide - count, number and log one decision
 * @d: the decision; its seq is assigned here
 *
 * Never sleeps, allocates or formats: safe under spinlocks and in IRQs.
 */
void watchpol_decide(struct watchpol_decision *d)
{
	int m;

	d->seq = atomic64_inc_return(&watchpol_seq);
	for (m = 0; m < WATCHPOL_MODEL__NR; m++)
		this_cpu_inc(watchpol_counters.model[d->hook][m]
			     [!!(d->denials & WATCHPOL_DENY(m))]);
	this_cpu_inc(watchpol_counters.result[d->hook]
		     [(d->flags & WATCHPOL_DEC_DENIED) &&
		      (d->flags & WATCHPOL_DEC_ENFORCED)]);
	watchpol_log_put(&watchpol_decision_log, d);
}

/**
 * watchpol_count_meta - count a META record, which always passes
 */
void watchpol_count_meta(void)
{
	this_cpu_inc(watchpol_counters.meta);
}

/**
 * watchpol_stats_show - print the counters, summed over CPUs
 * @m: the seq_file
 */
void watchpol_stats_show(struct seq_file *m)
{
	unsigned long model[WATCHPOL_MODEL__NR][2], result[2], meta = 0;
	int cpu, h, i;

	seq_puts(m, "# hook model allow deny\n");
	for (h = 0; h < WATCHPOL_HOOK__NR; h++) {
		memset(model, 0, sizeof(model));
		memset(result, 0, sizeof(result));
		for_each_possible_cpu(cpu) {
			struct watchpol_counters *c =
				per_cpu_ptr(&watchpol_counters, cpu);

			for (i = 0; i < WATCHPOL_MODEL__NR; i++) {
				model[i][0] += READ_ONCE(c->model[h][i][0]);
				model[i][1] += READ_ONCE(c->model[h][i][1]);
			}
			result[0] += READ_ONCE(c->result[h][0]);
			result[1] += READ_ONCE(c->result[h][1]);
		}
		for (i = 0; i < WATCHPOL_MODEL__NR; i++)
			seq_printf(m, "%s %s %lu %lu\n", hook_names[h],
				   watchpol_model_names[i], model[i][0],
				   model[i][1]);
		seq_printf(m, "%s enforced %lu %lu\n", hook_names[h],
			   result[0], result[1]);
	}
	for_each_possible_cpu(cpu)
		meta += READ_ONCE(per_cpu_ptr(&watchpol_counters, cpu)->meta);
	seq_printf(m, "meta_passed %lu\n", meta);
	seq_printf(m, "decisions %lld\n",
		   (long long)atomic64_read(&watchpol_seq));
	seq_printf(m, "log_recorded %ld\n",
		   atomic_long_read(&watchpol_decision_log.recorded));
	seq_printf(m, "log_dropped %ld\n",
		   atomic_long_read(&watchpol_decision_log.dropped));
	seq_printf(m, "policy_loads %ld\n",
		   atomic_long_read(&watchpol_policy_loads));
	seq_printf(m, "policy_rejects %ld\n",
		   atomic_long_read(&watchpol_policy_rejects));
}

/* Print a secid as its context, "-" for none; process context only. */
static int format_label(char *buf, size_t size, u32 sid)
{
	char *ctx;
	u32 len;
	int n;

	if (!sid)
		return scnprintf(buf, size, "-");
	if (security_secid_to_secctx(sid, &ctx, &len))
		return scnprintf(buf, size, "sid:%u", sid);
	n = scnprintf(buf, size, "%.*s", (int)strnlen(ctx, len), ctx);
	security_release_secctx(ctx, len);
	return n;
}

/**
 * watchpol_log_format - turn a decision into one line of the log file
 * @d: the decision
 * @buf: the output
 * @size: its size
 *
 * Process context only: labels are looked up here, not when recording.
 *
 * Return: the length of the line written, including its newline.
 */
int watchpol_log_format(const struct watchpol_decision *d, char *buf,
			size_t size)
{
	int m, n;

	n = scnprintf(buf, size, "seq=%llu hook=%s type=%s subtype=%u w_uid=%u w_label=",
		      d->seq, hook_names[d->hook],
		      watchpol_type_names[d->type], d->subtype, d->w_uid);
	n += format_label(buf + n, size - n, d->w_sid);
	if (d->flags & WATCHPOL_DEC_T_KERNEL)
		n += scnprintf(buf + n, size - n, " t_uid=kernel t_label=");
	else if (d->hook == WATCHPOL_HOOK_POST)
		n += scnprintf(buf + n, size - n, " t_uid=%u t_label=",
			       d->t_uid);
	else
		n += scnprintf(buf + n, size - n, " t_uid=- t_label=");
	n += format_label(buf + n, size - n, d->t_sid);
	n += scnprintf(buf + n, size - n, " o_label=");
	n += format_label(buf + n, size - n, d->o_sid);
	for (m = 0; m < WATCHPOL_MODEL__NR; m++)
		n += scnprintf(buf + n, size - n, " %s=%s",
			       watchpol_model_names[m],
			       d->denials & WATCHPOL_DENY(m) ? "deny" : "allow");
	n += scnprintf(buf + n, size - n,
		       " model=%s verdict=%s result=%s enforce=%d\n",
		       watchpol_model_names[d->model],
		       d->flags & WATCHPOL_DEC_DENIED ? "deny" : "allow",
		       (d->flags & WATCHPOL_DEC_DENIED) &&
		       (d->flags & WATCHPOL_DEC_ENFORCED) ? "deny" : "allow",
		       !!(d->flags & WATCHPOL_DEC_ENFORCED));
	return n;
}
