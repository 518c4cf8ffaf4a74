// SPDX-License-Identifier: GPL-2.0
/*
 * suite_kselftest.c - the kernel's own watch_queue kselftest
 * (tools/testing/selftests/watch_queue/, kernel-patches 0012), built from
 * the patched tree and packed as /bin/watch_queue_test.  It runs once, when
 * the suite is counted; each of its results becomes one test of this suite,
 * with the kselftest's diagnostics, so they reach the KTAP and JUnit like
 * the rest.  A kselftest SKIP is a KTAP SKIP (WL_SKIP), its reason a
 * diagnostic: counted apart, never as a pass.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl.h"

#define KSFT_BIN "/bin/watch_queue_test"
#define KSFT_MAX 64

struct ksft_result {
	char name[128];
	bool ok, skip;
	char *diag;		/* the "# " lines before the result */
};

static struct ksft_result results[KSFT_MAX];
static size_t nresults;
static char ran_diag[256];

static void add_diag(char **diag, const char *line)
{
	size_t old = *diag ? strlen(*diag) : 0;
	char *p = realloc(*diag, old + strlen(line) + 1);

	if (!p)
		return;
	strcpy(p + old, line);
	*diag = p;
}

/* One column of a "-l" line ("%-20s %-25s %s"): its word, or "" when blank. */
static const char *column(const char **p, int width, char *out, size_t len)
{
	size_t n = **p == ' ' ? 0 : strcspn(*p, " \n");
	size_t skip = n > (size_t)width ? n : (size_t)width;

	snprintf(out, len, "%.*s", (int)n, *p);
	*p += strnlen(*p, skip + 1);
	return out;
}

static void add_listed(const char *fixture, char variants[][64], size_t nv,
		       char tests[][64], size_t nt)
{
	for (size_t v = 0; v < (nv ? nv : 1); v++)
		for (size_t t = 0; t < nt && nresults < KSFT_MAX; t++, nresults++)
			snprintf(results[nresults].name, sizeof(results[nresults].name),
				 "%s%s%s.%s", fixture, nv ? "." : "", nv ? variants[v] : "",
				 tests[t]);
}

/*
 * wlrun --list on the host: the names the kselftest's run will print, from
 * its own list ("-l": per fixture, its variants and tests side by side; a
 * run covers every variant x test, named fixture[.variant].test).
 */
static size_t list_count(void)
{
	char line[512], fixture[64] = "", variants[16][64], tests[32][64], w[64];
	const char *bin = getenv("WATCHLAB_KSELFTEST");
	size_t nv = 0, nt = 0;
	FILE *f;

	snprintf(line, sizeof(line), "%s -l 2>&1", bin ? bin : KSFT_BIN);
	f = popen(line, "r");
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f)) {
		const char *p = line;

		if (line[0] == '#' || line[0] == '-')
			continue;
		if (*column(&p, 20, w, sizeof(w))) {
			if (fixture[0])
				add_listed(fixture, variants, nv, tests, nt);
			snprintf(fixture, sizeof(fixture), "%s", w);
			nv = nt = 0;
		}
		if (*column(&p, 25, w, sizeof(w)) && nv < 16)
			snprintf(variants[nv++], sizeof(variants[0]), "%s", w);
		if (*column(&p, 0, w, sizeof(w)) && nt < 32)
			snprintf(tests[nt++], sizeof(tests[0]), "%s", w);
	}
	if (fixture[0])
		add_listed(fixture, variants, nv, tests, nt);
	pclose(f);
	return nresults ? nresults : 1;
}

static size_t count(void)
{
	char line[512], *pending = NULL;
	static bool ran;
	FILE *f;
	int st;

	/* The runner may ask more than once: run (or list) the kselftest once. */
	if (ran)
		return nresults ? nresults : 1;
	ran = true;
	if (wl_listing())
		return list_count();
	fflush(NULL);
	f = popen(KSFT_BIN " 2>&1", "r");
	if (!f) {
		snprintf(ran_diag, sizeof(ran_diag), "popen %s: %s", KSFT_BIN, strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		struct ksft_result *r = &results[nresults];
		char *name = NULL, *hash;
		unsigned int n;
		int off = 0;

		if (sscanf(line, "ok %u %n", &n, &off) == 1 && off)
			r->ok = true;
		else if (sscanf(line, "not ok %u %n", &n, &off) == 1 && off)
			r->ok = false;
		if (!off) {
			if (line[0] == '#')
				add_diag(&pending, line);
			continue;
		}
		if (nresults == KSFT_MAX)
			break;
		name = line + off;
		name[strcspn(name, "\n")] = '\0';
		hash = strstr(name, " # ");
		if (hash) {
			r->skip = strstr(hash, "SKIP") != NULL;
			add_diag(&pending, hash + 1);
			add_diag(&pending, "\n");
			*hash = '\0';
		}
		snprintf(r->name, sizeof(r->name), "%s", name);
		r->diag = pending;
		pending = NULL;
		nresults++;
	}
	free(pending);
	st = pclose(f);
	if (!nresults)
		snprintf(ran_diag, sizeof(ran_diag), "%s gave no results (status %d)",
			 KSFT_BIN, st);
	return nresults ? nresults : 1;
}

static const char *name(size_t i)
{
	return nresults ? results[i].name : "watch_queue_test_ran";
}

static enum wl_result run(size_t i)
{
	char *line, *save = NULL;

	if (!nresults) {
		wl_diag("%s", ran_diag);
		return WL_FAIL;
	}
	for (line = results[i].diag ? strtok_r(results[i].diag, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		wl_diag("%s", line[0] == '#' ? line + 1 + (line[1] == ' ') : line);
	return results[i].skip ? WL_SKIP : results[i].ok ? WL_PASS : WL_FAIL;
}

static const struct wl_dynamic ksft = { .count = count, .name = name, .run = run };

WL_SUITE_DEFINE(suite_kselftest, .dynamic = &ksft);
