/* SPDX-License-Identifier: GPL-2.0 */
/*
 * watchpol - state shared by the hooks and the securityfs interface.
 */

#ifndef _SECURITY_WATCHPOL_WATCHPOL_H
#define _SECURITY_WATCHPOL_WATCHPOL_H

#include <linux/atomic.h>
#include <linux/jump_label.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>

#include "policy.h"

#ifdef pr_fmt
#undef pr_fmt
#endif
#define pr_fmt(fmt) "watchpol: " fmt

extern bool watchpol_enabled;
/* The policy in force; readers use RCU, writers hold watchpol_policy_mutex. */
extern struct watchpol_policy __rcu *watchpol_active;
extern struct mutex watchpol_policy_mutex;
/* Set by writing 1 to watchpol/lock; policy changes then fail with EPERM. */
extern bool watchpol_locked;

int watchpol_resolve_label(const char *label, u32 *secid);
struct watchpol_policy *watchpol_policy_build(const char *text, size_t len,
					      struct watchpol_parse_error *err,
					      int *gen, bool again);
bool watchpol_policy_stale(int gen);
/* Label re-resolutions done after LSM policy changes (stats). */
extern atomic_long_t watchpol_label_resolves;
void watchpol_set_policy(struct watchpol_policy *p);
/* Consumers of post decisions (an open watchpol/log); process context. */
DECLARE_STATIC_KEY_FALSE(watchpol_consumed);
void watchpol_consumer_get(void);
void watchpol_consumer_put(void);

#if IS_ENABLED(CONFIG_SECURITY_WATCHPOL_KUNIT_TEST)
struct cred;
struct watch;
bool watchpol_test_post_fast(const struct watchpol_policy *p,
			     const struct watch *watch,
			     const struct cred *cred, int type);
u8 watchpol_test_post_full(const struct watchpol_policy *p,
			   const struct watch *watch, const struct cred *cred,
			   int type);
void watchpol_test_cred_sid(struct cred *cred, u32 sid);
bool watchpol_test_cap_kill_kept(void);
#endif

#endif /* _SECURITY_WATCHPOL_WATCHPOL_H */
