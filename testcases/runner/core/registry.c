// SPDX-License-Identifier: GPL-2.0
/*
 * registry.c - the suites registered by their own files, in run order, and
 * the programs and init work the layers above core add to the entry point.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "registry.h"

#define WL_MAX_SUITES 64
#define WL_MAX_HOOKS 8

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

static struct {
	const char *name;
	int (*main)(int argc, char **argv);
} programs[WL_MAX_HOOKS];
static size_t nprograms;

static struct {
	const char *what;
	int (*fn)(void);
} inits[WL_MAX_HOOKS];
static size_t ninits;

static void full(const char *what)
{
	fprintf(stderr, "wlrun: more than %d %s: raise WL_MAX_HOOKS\n", WL_MAX_HOOKS, what);
	exit(1);
}

void wl_register_program(const char *name, int (*main)(int argc, char **argv))
{
	if (nprograms == WL_MAX_HOOKS)
		full("programs");
	programs[nprograms].name = name;
	programs[nprograms++].main = main;
}

int (*wl_program(const char *name))(int argc, char **argv)
{
	for (size_t i = 0; i < nprograms; i++)
		if (strcmp(programs[i].name, name) == 0)
			return programs[i].main;
	return NULL;
}

void wl_register_init(const char *what, int (*fn)(void))
{
	if (ninits == WL_MAX_HOOKS)
		full("init functions");
	inits[ninits].what = what;
	inits[ninits++].fn = fn;
}

void wl_run_inits(void)
{
	for (size_t i = 0; i < ninits; i++)
		if (inits[i].fn())
			ktap_line("# watchlab: could not %s", inits[i].what);
}

static void (*after_suite[WL_MAX_HOOKS])(const char *name);
static size_t nafter;

void wl_register_after_suite(void (*fn)(const char *name))
{
	if (nafter == WL_MAX_HOOKS)
		full("after-suite functions");
	after_suite[nafter++] = fn;
}

void wl_run_after_suite(const char *name)
{
	if (wl_listing())
		return;
	for (size_t i = 0; i < nafter; i++)
		after_suite[i](name);
}
