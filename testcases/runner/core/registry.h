/* SPDX-License-Identifier: GPL-2.0 */
/*
 * registry.h - the suites the runner knows: each suite file registers its
 * suites itself (WL_SUITE in wl.h, a constructor as kselftest_harness.h
 * does), and the runner takes them in stage order, then by name.
 */
#ifndef WL_REGISTRY_H
#define WL_REGISTRY_H

#include <stddef.h>

#include "wl.h"

/* Called by WL_SUITE's constructor, before main(). */
void wl_register_suite(const struct wl_suite *s);

/* The registered suites in the order they run (sorted on first call). */
const struct wl_suite *const *wl_suites(size_t *n);

/* The program registered as name, or NULL. */
int (*wl_program(const char *name))(int argc, char **argv);

/* Run the registered init work, in registration order. */
void wl_run_inits(void);

/* Run the registered after-suite work for the suite just run, @name. */
void wl_run_after_suite(const char *name);

#endif /* WL_REGISTRY_H */
