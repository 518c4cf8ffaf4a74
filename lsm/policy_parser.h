/* SPDX-License-Identifier: GPL-2.0 */
/*
 * watchpol - the policy parser (policy_parser.c).
 */

#ifndef _SECURITY_WATCHPOL_POLICY_PARSER_H
#define _SECURITY_WATCHPOL_POLICY_PARSER_H

#include "policy.h"

struct watchpol_policy *watchpol_policy_parse(const char *text, size_t len,
					      watchpol_resolve_t resolve,
					      struct watchpol_parse_error *err);
struct watchpol_policy *watchpol_boot_policy(const char *models, bool enforce,
					     watchpol_resolve_t resolve,
					     struct watchpol_parse_error *err);

#endif /* _SECURITY_WATCHPOL_POLICY_PARSER_H */
