/* SPDX-License-Identifier: GPL-2.0 */
/*
 * watchpol - decision log (a lossy, never-blocking ring) and counters.
 */

#ifndef _SECURITY_WATCHPOL_LOG_H
#define _SECURITY_WATCHPOL_LOG_H

#include <linux/atomic.h>
#include <linux/init.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/types.h>

enum watchpol_hook {
	WATCHPOL_HOOK_WATCH_KEY,
	WATCHPOL_HOOK_WATCH_MOUNT,
	WATCHPOL_HOOK_WATCH_SB,
	WATCHPOL_HOOK_WATCH_DEVICES,
	WATCHPOL_HOOK_POST,
	WATCHPOL_HOOK__NR
};

/* struct watchpol_decision::flags */
#define WATCHPOL_DEC_DENIED	BIT(0)	/* the model in force said no */
#define WATCHPOL_DEC_ENFORCED	BIT(1)	/* enforce was 1 */
#define WATCHPOL_DEC_T_KERNEL	BIT(2)	/* the triggerer is the kernel */
#define WATCHPOL_DEC_W_CREATOR	BIT(3)	/* W is the queue's creator */
#define WATCHPOL_DEC_W_BLIND	BIT(4)	/* recheck: W may not observe O */

/*
 * One decision, as recorded on the hot path: numbers only.  Labels are
 * secids and are turned into text only when the log is read.
 */
struct watchpol_decision {
	u64 seq;
	u32 w_uid, t_uid;
	u32 w_sid, t_sid, o_sid;
	u8 hook, type, subtype;
	u8 denials;	/* WATCHPOL_DENY(model) bits from shadow evaluation */
	u8 model;	/* the model in force for this type */
	u8 flags;
};

/* Power of two. */
#define WATCHPOL_LOG_SIZE	1024

struct watchpol_log_slot {
	unsigned long seq;
	struct watchpol_decision d;
};

/*
 * A bounded multi-producer ring that keeps the newest records (a flight
 * recorder): a producer takes a position with one atomic increment and
 * writes its slot under a per-slot sequence (odd while writing), so it
 * never waits; the reader skips and counts records overwritten before it
 * got to them.  One consumer at a time (mutex).
 */
struct watchpol_log {
	atomic_long_t head;
	unsigned long tail;
	atomic_long_t dropped;
	atomic_long_t recorded;
	struct mutex read_lock;		/* serialises consumers */
	struct watchpol_log_slot *slots;
	unsigned int mask;
};

void watchpol_log_init(struct watchpol_log *log,
		       struct watchpol_log_slot *slots, unsigned int size);
bool watchpol_log_put(struct watchpol_log *log,
		      const struct watchpol_decision *d);
bool watchpol_log_peek(struct watchpol_log *log, struct watchpol_decision *d);
void watchpol_log_consume(struct watchpol_log *log);
unsigned long watchpol_log_dropped(struct watchpol_log *log);

extern struct watchpol_log watchpol_decision_log;
void __init watchpol_decision_log_init(void);

/* Count, sequence and log one decision.  Safe in any context. */
void watchpol_decide(struct watchpol_decision *d);
/* Count a META record (always passed, not logged). */
void watchpol_count_meta(void);

void watchpol_stats_show(struct seq_file *m);
int watchpol_log_format(const struct watchpol_decision *d, char *buf,
			size_t size);

extern atomic_long_t watchpol_policy_loads, watchpol_policy_rejects;

#endif /* _SECURITY_WATCHPOL_LOG_H */
