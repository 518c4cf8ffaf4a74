// SPDX-License-Identifier: GPL-2.0
/*
 * watchpol - the policy object: the names of its models and watch types,
 * freeing it, and the secid aliases it maps.  Parsing is in
 * policy_parser.c, the verdicts in eval.c.
 */

#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "policy.h"

const char *const watchpol_model_names[WATCHPOL_MODEL__NR] = {
	[WATCHPOL_MODEL_NONE]		= "none",
	[WATCHPOL_MODEL_WATCHER]	= "watcher",
	[WATCHPOL_MODEL_SCHAUFLER]	= "schaufler",
	[WATCHPOL_MODEL_STRICT]		= "strict",
};

const char *const watchpol_type_names[WATCHPOL_TYPE_OTHER + 1] = {
	[WATCHPOL_TYPE_KEY]	= "key",
	[WATCHPOL_TYPE_MOUNT]	= "mount",
	[WATCHPOL_TYPE_SB]	= "sb",
	[WATCHPOL_TYPE_BLOCK]	= "block",
	[WATCHPOL_TYPE_USB]	= "usb",
	[WATCHPOL_TYPE_DEVICES]	= "devices",
	[WATCHPOL_TYPE_OTHER]	= "other",
};

/**
 * watchpol_policy_free - free a policy no reader can still see
 * @p: the policy, or NULL
 */
void watchpol_policy_free(struct watchpol_policy *p)
{
	if (!p)
		return;
	kvfree(p->post.slots);
	kvfree(p->watch.slots);
	kvfree(p->text_rules);
	kvfree(p->input);
	kvfree(p->text);
	kfree(p);
}

/**
 * watchpol_policy_canon() - learn which secids are aliases
 * @p: a policy not yet in force (or the caller holds the policy mutex)
 * @canon: maps a secid to the one its context resolves to
 *
 * Fills @p->canon for the secids that can be aliases (see
 * WATCHPOL_ALIAS_SIDS), outside the hot path: at every load and every LSM
 * policy change, like the rules' labels.  Then watchpol_sid() makes a
 * process that kept an initial SID match the rules naming its context.
 */
void watchpol_policy_canon(struct watchpol_policy *p, watchpol_canon_t canon)
{
	u32 sid, c;

	for (sid = 1; sid < WATCHPOL_ALIAS_SIDS; sid++) {
		if (canon(sid, &c) || c == sid)
			c = 0;
		p->canon[sid] = c;
	}
}
