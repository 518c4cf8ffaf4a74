/* SPDX-License-Identifier: GPL-2.0 */
/*
 * watchpol - audit records (see audit.c).
 */

#ifndef _SECURITY_WATCHPOL_AUDIT_H
#define _SECURITY_WATCHPOL_AUDIT_H

#include <linux/atomic.h>
#include <linux/types.h>

struct watchpol_decision;
struct watchpol_parse_error;
struct watchpol_policy;

/* Denial records the per-subject limit held back (stats: audit_suppressed). */
extern atomic_long_t watchpol_audit_suppressed;

void watchpol_audit_decision(const struct watchpol_decision *d);
void watchpol_audit_load(const struct watchpol_policy *p,
			 const struct watchpol_parse_error *err,
			 bool old_enforce, const u8 *digest);
void watchpol_audit_refused(const char *reason);
void watchpol_audit_lock(void);

#endif /* _SECURITY_WATCHPOL_AUDIT_H */
