/* SPDX-License-Identifier: GPL-2.0 */
/*
 * watchpol - shadow evaluation: every model's verdict at once (eval.c).
 */

#ifndef _SECURITY_WATCHPOL_EVAL_H
#define _SECURITY_WATCHPOL_EVAL_H

#include <linux/types.h>

#include "policy.h"

u8 watchpol_post_denials(const struct watchpol_policy *p,
			 unsigned int wtype,
			 const struct watchpol_post_facts *f);
u8 watchpol_watch_denials(const struct watchpol_policy *p,
			  const struct watchpol_watch_facts *f);

#endif /* _SECURITY_WATCHPOL_EVAL_H */
