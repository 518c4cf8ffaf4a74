/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run.h - run a suite in each of its variants, as KTAP (run.c); the entry
 * point (../main.c) picks which.
 */
#ifndef WL_RUN_H
#define WL_RUN_H

#include <stdbool.h>

#include "wl.h"

/* How many KTAP results a suite produces in this boot. */
unsigned int wl_runs_of(const struct wl_suite *s);

/*
 * Run a suite once per variant, numbering its KTAP results from *num + 1
 * (or, with skip, report each variant skipped); false on any failure.
 */
bool wl_run_selected(const struct wl_suite *s, bool skip, unsigned int *num);

#endif /* WL_RUN_H */
