/* SPDX-License-Identifier: GPL-2.0 */
/* suites.h - the runner's list of suites, in the order they run. */
#ifndef WL_SUITES_H
#define WL_SUITES_H

#include <stddef.h>

#include "wl.h"

extern const struct wl_suite *const wl_suites[];
extern const size_t wl_nsuites;

#endif
