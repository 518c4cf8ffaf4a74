// SPDX-License-Identifier: GPL-2.0
/* registry.c - the suites registered by their own files, in run order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"

#define WL_MAX_SUITES 64

static const struct wl_suite *suites[WL_MAX_SUITES];
static size_t nsuites;
static bool sorted;

void wl_register_suite(const struct wl_suite *s)
{
	if (nsuites == WL_MAX_SUITES) {
		/* Before main(): no KTAP yet, but the console shows it. */
		fprintf(stderr, "wlrun: more than %d suites: raise WL_MAX_SUITES\n",
			WL_MAX_SUITES);
		exit(1);
	}
	suites[nsuites++] = s;
}

static int by_stage_then_name(const void *a, const void *b)
{
	const struct wl_suite *x = *(const struct wl_suite *const *)a;
	const struct wl_suite *y = *(const struct wl_suite *const *)b;

	if (x->stage != y->stage)
		return x->stage < y->stage ? -1 : 1;
	return strcmp(x->name, y->name);
}

const struct wl_suite *const *wl_suites(size_t *n)
{
	if (!sorted) {
		qsort(suites, nsuites, sizeof(suites[0]), by_stage_then_name);
		sorted = true;
	}
	*n = nsuites;
	return suites;
}
