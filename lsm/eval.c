// SPDX-License-Identifier: GPL-2.0
/*
 * watchpol - evaluation: every model's verdict on setting a watch and on
 * posting a notification (shadow evaluation).  The post hook's own path
 * uses the inline verdicts of policy.h; these give the mask of every
 * model's verdict at once.  Nothing here touches the live system, so KUnit
 * drives it with facts it makes up.
 */

#include <linux/kernel.h>
#include <uapi/linux/watch_queue.h>

#include "eval.h"
#include "policy.h"

/**
 * watchpol_post_denials - shadow-evaluate a notification under every model
 * @p: the policy
 * @wtype: the record's type; META records always pass
 * @f: the triggerer, the watcher and T's CAP_KILL in W's user namespace
 *
 * none and watcher allow every post; schaufler and strict give the verdict
 * of watchpol_post_check(), with T's CAP_KILL as @f says.  With
 * "recheck on", watcher and strict also deny a post to a W that may no
 * longer observe O (@f->w_blind, as the object's source judges it now).
 *
 * Return: a mask of WATCHPOL_DENY(model) bits, one per denying model.
 */
u8 watchpol_post_denials(const struct watchpol_policy *p,
			 unsigned int wtype,
			 const struct watchpol_post_facts *f)
{
	if (wtype == WATCH_TYPE_META)
		return 0;
	return watchpol_post_mask(watchpol_post_check(p, f)) |
	       watchpol_recheck_mask(p, f);
}

/**
 * watchpol_watch_denials - shadow-evaluate setting a watch under every model
 * @p: the policy
 * @f: the watcher, the object's label and whether W can see the object
 *
 * none and schaufler allow every watch.  watcher and strict require that W
 * is entitled to observe O: the object is visible to W (system-wide
 * objects always are) and, with labels, a watch rule unless they match.
 *
 * Return: a mask of WATCHPOL_DENY(model) bits, one per denying model.
 */
u8 watchpol_watch_denials(const struct watchpol_policy *p,
			  const struct watchpol_watch_facts *f)
{
	if (f->system_wide)
		return 0;
	if (f->visible &&
	    watchpol_rule_ok(&p->watch, watchpol_sid(p, f->w->sid),
			     watchpol_sid(p, f->o_sid)))
		return 0;
	return WATCHPOL_DENY(WATCHPOL_MODEL_WATCHER) |
	       WATCHPOL_DENY(WATCHPOL_MODEL_STRICT);
}
