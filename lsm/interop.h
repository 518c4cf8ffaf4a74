/* SPDX-License-Identifier: GPL-2.0 */
/*
 * watchpol - what watchpol assumes of the other LSMs (interop.c).
 *
 * Secids are opaque to an LSM that is not their issuer; watchpol compares
 * them, and keeps what a capable hook answered.  Both rest on facts about
 * particular LSMs that no LSM interface states.  They are all here, each
 * with the kernel version it was checked against, so that a change in
 * another LSM has one place to be reflected in.
 */

#ifndef _SECURITY_WATCHPOL_INTEROP_H
#define _SECURITY_WATCHPOL_INTEROP_H

#include <linux/types.h>

/*
 * Secids below this may be aliases of another secid: SELinux's initial
 * SIDs (1 to SECINITSID_NUM, which is 27 in 6.12) keep their own SID even
 * when their context is another SID's, so one context can have several
 * secids.  Every other secid SELinux issues is unique to its context, and
 * Smack issues one per label.  SECINITSID_NUM lives in SELinux's generated
 * flask.h, which other LSMs cannot include.
 */
#define WATCHPOL_ALIAS_SIDS	28

bool watchpol_lsm_aliases_secids(void);
int watchpol_lsm_canon_secid(u32 secid, u32 *canon);
bool watchpol_lsm_id_capable_follows_policy(u64 id);
bool watchpol_lsm_capable_follows_policy(void);

#endif /* _SECURITY_WATCHPOL_INTEROP_H */
