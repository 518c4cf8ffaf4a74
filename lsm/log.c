// SPDX-License-Identifier: GPL-2.0
/*
 * watchpol - decision log and counters.
 *
 * Decisions are made under RCU and spinlocks, sometimes in interrupt
 * context, so recording one must never block: counters are per-CPU, the
 * sequence number is one atomic increment, and the log is a bounded
 * lock-free ring that keeps the newest records: when the reader lags, the
 * oldest are overwritten, and the reader counts what it missed.
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
		slots[i].seq = 0;
}

/**
 * watchpol_decision_log_init - set up the system's decision log
 */
void __init watchpol_decision_log_init(void)
{
	watchpol_log_init(&watchpol_decision_log, watchpol_slots,
			  WATCHPOL_LOG_SIZE);
}

/*
 * Slot states: seq is 2 * pos + 1 while the record of position pos is being
 * written into it and 2 * pos + 2 once it is whole (0: never written).
 */
static unsigned long slot_writing(unsigned long pos)
{
	return 2 * pos + 1;
}

static unsigned long slot_whole(unsigned long pos)
{
	return 2 * pos + 2;
}

/**
 * watchpol_log_put - append a record without ever waiting
 * @log: the ring
 * @d: the record
 *
 * The ring keeps the newest records: a writer takes the next position
 * whatever the reader has consumed, overwriting the oldest record when the
 * ring is full (the reader counts what it missed).  A writer that finds its
 * slot still being written one lap earlier drops its own record instead of
 * waiting; the reader stops at that position until a lap has passed it,
 * then counts it with the overwritten ones.
 *
 * Return: true if stored.
 */
bool watchpol_log_put(struct watchpol_log *log,
		      const struct watchpol_decision *d)
{
	unsigned long pos = atomic_long_fetch_inc(&log->head);
	struct watchpol_log_slot *slot = &log->slots[pos & log->mask];
	unsigned long old = READ_ONCE(slot->seq);

	/* Its position is then a gap the reader counts when it steps over. */
	if ((old & 1) || old > slot_writing(pos) ||
	    !try_cmpxchg(&slot->seq, &old, slot_writing(pos)))
		return false;
	/* Readers that see the odd seq, or a changed one after, retry. */
	smp_wmb();
	slot->d = *d;
	/* Publish the record; pairs with the acquire in watchpol_log_peek(). */
	smp_store_release(&slot->seq, slot_whole(pos));
	atomic_long_inc(&log->recorded);
	return true;
}

/**
 * watchpol_log_peek - look at the oldest record still in the ring
 * @log: the ring; the caller holds @log->read_lock
 * @d: filled with the record
 *
 * Records overwritten before they were read are skipped and counted in
 * @log->dropped; the gap shows in the records' sequence numbers too.
 *
 * Return: true if a record is ready, false if none is.
 */
bool watchpol_log_peek(struct watchpol_log *log, struct watchpol_decision *d)
{
	struct watchpol_log_slot *slot;
	unsigned long pos, seq, head;

	lockdep_assert_held(&log->read_lock);
	for (;;) {
		pos = log->tail;
		head = atomic_long_read(&log->head);
		if (head - pos > log->mask + 1) {
			/* Lapped: the oldest record left is head - size. */
			atomic_long_add(head - (log->mask + 1) - pos, &log->dropped);
			WRITE_ONCE(log->tail, head - (log->mask + 1));
			continue;
		}
		slot = &log->slots[pos & log->mask];
		/* Pairs with the release in watchpol_log_put(). */
		seq = smp_load_acquire(&slot->seq);
		if (seq < slot_whole(pos))
			return false;	/* not written yet, or being written */
		if (seq == slot_whole(pos)) {
			*d = slot->d;
			/* The copy is good if no writer took the slot since. */
			smp_rmb();
			if (READ_ONCE(slot->seq) == seq)
				return true;
		}
		/* Overwritten by a later lap (before or during the copy). */
		atomic_long_inc(&log->dropped);
			WRITE_ONCE(log->tail, pos + 1);
	}
}

/**
 * watchpol_log_dropped - records lost so far
 * @log: the ring
 *
 * Those the reader skipped or a writer gave up, plus those overwritten
 * that the reader has yet to step over.  A snapshot, without the lock.
 *
 * Return: the number of records lost.
 */
unsigned long watchpol_log_dropped(struct watchpol_log *log)
{
	unsigned long head = atomic_long_read(&log->head);
	unsigned long tail = READ_ONCE(log->tail);
	unsigned long behind = head - tail > log->mask + 1 ?
			       head - tail - (log->mask + 1) : 0;

	return atomic_long_read(&log->dropped) + behind;
}

/**
 * watchpol_log_consume - step past the record last peeked at
 * @log: the ring; the caller holds @log->read_lock and peeked successfully
 */
void watchpol_log_consume(struct watchpol_log *log)
{
	lockdep_assert_held(&log->read_lock);
	WRITE_ONCE(log->tail, log->tail + 1);
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
	seq_printf(m, "log_dropped %lu\n",
		   watchpol_log_dropped(&watchpol_decision_log));
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
		       " model=%s verdict=%s result=%s enforce=%d",
		       watchpol_model_names[d->model],
		       d->flags & WATCHPOL_DEC_DENIED ? "deny" : "allow",
		       (d->flags & WATCHPOL_DEC_DENIED) &&
		       (d->flags & WATCHPOL_DEC_ENFORCED) ? "deny" : "allow",
		       !!(d->flags & WATCHPOL_DEC_ENFORCED));
	/* Only when the policy asks for them: older readers see no change. */
	if (d->flags & WATCHPOL_DEC_W_CREATOR)
		n += scnprintf(buf + n, size - n, " w=creator");
	if (d->flags & WATCHPOL_DEC_W_BLIND)
		n += scnprintf(buf + n, size - n, " recheck=deny");
	n += scnprintf(buf + n, size - n, "\n");
	return n;
}
