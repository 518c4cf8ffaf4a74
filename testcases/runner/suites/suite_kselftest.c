// SPDX-License-Identifier: GPL-2.0
/*
 * suite_kselftest.c - the kernel's own watch_queue kselftest
 * (tools/testing/selftests/watch_queue/, kernel-patches 0013), built from
 * the patched tree and packed as /bin/watch_queue_test.  It runs once, when
 * the suite is counted; each of its results becomes one test of this suite,
 * with the kselftest's diagnostics, so they reach the KTAP and JUnit like
 * the rest.  A kselftest SKIP passes with its reason as a diagnostic.
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

static size_t count(void)
{
	char line[512], *pending = NULL;
	static bool ran;
	FILE *f;
	int st;

	/* The runner may ask more than once: run the kselftest only once. */
	if (ran)
		return nresults ? nresults : 1;
	ran = true;
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
	return results[i].ok ? WL_PASS : WL_FAIL;
}

static const struct wl_dynamic ksft = { count, name, run };

const struct wl_suite suite_kselftest = {
	.name = "suite_kselftest",
	.dynamic = &ksft,
};
