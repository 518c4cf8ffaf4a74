// SPDX-License-Identifier: GPL-2.0
/*
 * watchpol - what watchpol assumes of the other LSMs (see interop.h).
 */

#include <linux/lsm_hooks.h>
#include <linux/security.h>
#include <uapi/linux/lsm.h>

#include "interop.h"

/**
 * watchpol_lsm_aliases_secids() - may one label have several secids?
 *
 * Only SELinux issues several secids for one context (its initial SIDs,
 * see WATCHPOL_ALIAS_SIDS).  Smack maps a secid it never issued to its
 * "?" label, so a round trip through text would alias secids it has yet
 * to issue: the map is built only under SELinux.
 *
 * Return: true if watchpol_lsm_canon_secid() must be asked for the secids
 * below WATCHPOL_ALIAS_SIDS.
 */
bool watchpol_lsm_aliases_secids(void)
{
	u32 i;

	for (i = 0; i < lsm_active_cnt; i++)
		if (lsm_idlist[i]->id == LSM_ID_SELINUX)
			return true;
	return false;
}

/**
 * watchpol_lsm_canon_secid() - the secid a secid's label resolves to
 * @secid: a secid that may be an alias
 * @canon: set to the secid its label resolves to
 *
 * Return: 0, or the LSM's error when @secid has no label.
 */
int watchpol_lsm_canon_secid(u32 secid, u32 *canon)
{
	char *ctx;
	u32 len;
	int rc;

	rc = security_secid_to_secctx(secid, &ctx, &len);
	if (rc)
		return rc;
	rc = security_secctx_to_secid(ctx, len, canon);
	security_release_secctx(ctx, len);
	return rc;
}

/**
 * watchpol_lsm_id_capable_follows_policy() - may one LSM's answers be kept?
 * @id: an LSM_ID_* of uapi/linux/lsm.h
 *
 * True for an LSM whose capable hook answers the same until an
 * LSM_POLICY_CHANGE notification (SELinux), or always (commoncap, which
 * reads the cred), or that has none (the others listed, as of 6.12).
 * AppArmor profile replacement, SafeSetID policy writes, BPF programs and
 * any LSM not listed here change answers without that notification.
 *
 * Return: true if a capable answer of @id may be kept until the next LSM
 * policy change.
 */
bool watchpol_lsm_id_capable_follows_policy(u64 id)
{
	switch (id) {
	case LSM_ID_CAPABILITY:
	case LSM_ID_SELINUX:
	case LSM_ID_SMACK:
	case LSM_ID_TOMOYO:
	case LSM_ID_YAMA:
	case LSM_ID_LOADPIN:
	case LSM_ID_LOCKDOWN:
	case LSM_ID_LANDLOCK:
	case LSM_ID_IMA:
	case LSM_ID_EVM:
	case LSM_ID_IPE:
	case LSM_ID_WATCHPOL:
		return true;
	default:
		return false;
	}
}

/**
 * watchpol_lsm_capable_follows_policy() - may capable answers be kept?
 *
 * Call once every LSM is up.
 *
 * Return: true if every active LSM's capable answers may be kept until
 * the next LSM policy change (watchpol_lsm_id_capable_follows_policy()).
 */
bool watchpol_lsm_capable_follows_policy(void)
{
	u32 i;

	for (i = 0; i < lsm_active_cnt; i++)
		if (!watchpol_lsm_id_capable_follows_policy(lsm_idlist[i]->id))
			return false;
	return true;
}
