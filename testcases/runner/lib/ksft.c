// SPDX-License-Identifier: GPL-2.0
/*
 * ksft.c - run a kselftest binary and turn its TAP into the suite's tests;
 * on the host, turn its "-l" list into the names the run will print.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksft.h"

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

static void add_listed(struct wl_ksft *k, const char *fixture, char variants[][64],
		       size_t nv, char tests[][64], size_t nt)
{
	for (size_t v = 0; v < (nv ? nv : 1); v++)
		for (size_t t = 0; t < nt && k->nresults < WL_KSFT_MAX; t++, k->nresults++)
			snprintf(k->results[k->nresults].name,
				 sizeof(k->results[0].name), "%s%s%s.%s", fixture,
				 nv ? "." : "", nv ? variants[v] : "", tests[t]);
}

/*
 * wlrun --list on the host: the names the kselftest's run will print, from
 * its own list ("-l": per fixture, its variants and tests side by side; a
 * run covers every variant x test, named fixture[.variant].test).
 */
static void list(struct wl_ksft *k)
{
	char line[512], fixture[64] = "", variants[16][64], tests[32][64], w[64];
	const char *dir = getenv("WATCHLAB_GUEST_BINDIR");
	size_t nv = 0, nt = 0;
	FILE *f;

	snprintf(line, sizeof(line), "%s/%s -l 2>&1", dir ? dir : "/bin", k->bin);
	f = popen(line, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		const char *p = line;

		if (line[0] == '#' || line[0] == '-')
			continue;
		if (*column(&p, 20, w, sizeof(w))) {
			if (fixture[0])
				add_listed(k, fixture, variants, nv, tests, nt);
			snprintf(fixture, sizeof(fixture), "%s", w);
			nv = nt = 0;
		}
		if (*column(&p, 25, w, sizeof(w)) && nv < 16)
			snprintf(variants[nv++], sizeof(variants[0]), "%s", w);
		if (*column(&p, 0, w, sizeof(w)) && nt < 32)
			snprintf(tests[nt++], sizeof(tests[0]), "%s", w);
	}
	if (fixture[0])
		add_listed(k, fixture, variants, nv, tests, nt);
	pclose(f);
}

/* One "ok N name[ # diag]" or "not ok ..." line; false for any other. */
static bool parse_result(const char *line, struct wl_ksft_result *r, char **pending)
{
	char *name, *hash;
	unsigned int n;
	int off = 0;

	if (sscanf(line, "ok %u %n", &n, &off) == 1 && off)
		r->ok = true;
	else if (sscanf(line, "not ok %u %n", &n, &off) == 1 && off)
		r->ok = false;
	if (!off)
		return false;
	name = strdup(line + off);
	if (!name)
		return false;
	name[strcspn(name, "\n")] = '\0';
	hash = strstr(name, " # ");
	if (hash) {
		r->skip = strstr(hash, "SKIP") != NULL;
		add_diag(pending, hash + 1);
		add_diag(pending, "\n");
		*hash = '\0';
	}
	snprintf(r->name, sizeof(r->name), "%s", name);
	free(name);
	r->diag = *pending;
	*pending = NULL;
	return true;
}

static void run(struct wl_ksft *k)
{
	char line[512], *pending = NULL;
	FILE *f;
	int st;

	fflush(NULL);
	snprintf(line, sizeof(line), "/bin/%s 2>&1", k->bin);
	f = popen(line, "r");
	if (!f) {
		snprintf(k->ran_diag, sizeof(k->ran_diag), "popen /bin/%s: %s",
			 k->bin, strerror(errno));
		return;
	}
	/* Read to the end even past WL_KSFT_MAX, so the kselftest can finish. */
	while (fgets(line, sizeof(line), f)) {
		struct wl_ksft_result spare = { 0 };
		struct wl_ksft_result *r = k->nresults < WL_KSFT_MAX ?
					   &k->results[k->nresults] : &spare;

		if (parse_result(line, r, &pending)) {
			if (r == &spare) {
				free(spare.diag);
				k->overflow++;
			} else {
				k->nresults++;
			}
		} else if (line[0] == '#') {
			add_diag(&pending, line);
		}
	}
	free(pending);
	st = pclose(f);
	if (!k->nresults)
		snprintf(k->ran_diag, sizeof(k->ran_diag),
			 "/bin/%s gave no results (status %d)", k->bin, st);
}

size_t wl_ksft_count(struct wl_ksft *k)
{
	/* The runner may ask more than once: run (or list) the kselftest once. */
	if (!k->ran) {
		k->ran = true;
		snprintf(k->ran_name, sizeof(k->ran_name), "%s_ran", k->bin);
		if (wl_listing())
			list(k);
		else
			run(k);
	}
	return k->nresults ? k->nresults : 1;
}

const char *wl_ksft_name(struct wl_ksft *k, size_t i)
{
	return k->nresults ? k->results[i].name : k->ran_name;
}

enum wl_result wl_ksft_run(struct wl_ksft *k, size_t i)
{
	struct wl_ksft_result *r = &k->results[i];
	char *line, *save = NULL;

	if (!k->nresults) {
		wl_diag("%s", k->ran_diag);
		return WL_FAIL;
	}
	/* Results past the table are not dropped unseen: the last one fails. */
	if (k->overflow && i == k->nresults - 1) {
		wl_diag("/bin/%s printed %zu results more than the %d this suite keeps (WL_KSFT_MAX)",
			k->bin, k->overflow, WL_KSFT_MAX);
		return WL_FAIL;
	}
	for (line = r->diag ? strtok_r(r->diag, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		wl_diag("%s", line[0] == '#' ? line + 1 + (line[1] == ' ') : line);
	return r->skip ? WL_SKIP : r->ok ? WL_PASS : WL_FAIL;
}
