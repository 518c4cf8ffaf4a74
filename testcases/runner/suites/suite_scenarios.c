// SPDX-License-Identifier: GPL-2.0
/*
 * suite_scenarios.c - the data-driven scenarios of testcases/scenarios/
 * (packed as /etc/watchlab/scenarios/), one KTAP test and one matrix cell
 * per scenario variant, under every watchpol model.  A test passes when the
 * observed result is the one the scenario expects for this profile and
 * model: "delivered where blocked was expected" is a leak, the reverse an
 * over-block; the host counts the two apart from the matrix cells.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scenario_run.h"
#include "watchpol_util.h"
#include "wl.h"

#define SCENARIO_DIR "/etc/watchlab/scenarios"
#define LOG_TAIL 8

struct row {
	const struct scenario *s;
	unsigned int variant;
	char name[SCN_NAME_MAX + 24];
};

static struct scn_set set;
static char parse_err[512];

static struct row *rows;
static size_t nrows;
static bool counted;

/* Parse the scenario files and list their variants, once. */
static size_t count(void)
{
	if (counted)
		return nrows ? nrows : 1;
	counted = true;
	if (scn_parse_dir(&set, SCENARIO_DIR, parse_err, sizeof(parse_err)))
		return 1;
	rows = calloc(set.n * 4, sizeof(*rows));
	if (!rows) {
		snprintf(parse_err, sizeof(parse_err), "out of memory");
		return 1;
	}
	for (size_t i = 0; i < set.n; i++) {
		unsigned int v[4];
		size_t nv = scn_variant_list(&set.v[i], v, 4);

		for (size_t j = 0; j < nv; j++, nrows++) {
			rows[nrows].s = &set.v[i];
			rows[nrows].variant = v[j];
			scn_row_name(&set.v[i], v[j], rows[nrows].name,
				     sizeof(rows[nrows].name));
		}
	}
	return nrows ? nrows : 1;
}

/* A malformed file is one failing test that names the file and line. */
static const char *name(size_t i)
{
	return nrows ? rows[i].name : "scenario_files";
}

/*
 * Read watchpol's decision log (reading consumes it); with show, print its
 * last LOG_TAIL records: why a cell came out as it did.
 */
static void decision_log(bool show)
{
	char *buf = wl_have_watchpol() ? wp_drain_log() : NULL;
	size_t nl = 0;
	char *p;

	if (!buf)
		return;
	for (p = buf + strlen(buf); show && p > buf && nl <= LOG_TAIL; p--)
		if (p[-1] == '\n')
			nl++;
	for (char *line = strtok(p, "\n"); show && line; line = strtok(NULL, "\n"))
		wl_diag("watchpol log: %s", line);
	free(buf);
}

static enum wl_result run(size_t i)
{
	const struct row *r = &rows[i];
	const char *model = wl_model();
	enum scn_result want, got;

	if (!nrows) {
		wl_diag("%s", parse_err[0] ? parse_err : "no scenarios");
		return WL_FAIL;
	}
	want = scn_expected(r->s, wl_profile(), model, r->variant);
	if (want == SCN_UNSET) {
		wl_diag("%s: no expectation for %s/%s", r->name, wl_profile(), model);
		return WL_FAIL;
	}
	decision_log(false);
	got = scn_run(r->s, r->variant);
	wl_matrix(r->name, model, scn_result_name(want),
		  got == SCN_UNSET ? "error" : scn_result_name(got));
	if (got == SCN_UNSET) {
		wl_diag("%s (%s:%u) could not run", r->name, r->s->file, r->s->line);
		return WL_FAIL;
	}
	if (got != want) {
		wl_diag("%s: %s: %s, expected %s (%s:%u)", r->name,
			want == SCN_BLOCKED ? "LEAK" : "OVER-BLOCK", scn_result_name(got),
			scn_result_name(want), r->s->file, r->s->line);
		decision_log(true);
	}
	return got == want ? WL_PASS : WL_FAIL;
}

static const struct wl_dynamic scenarios = { count, name, run };

WL_SUITE_DEFINE(suite_scenarios, .axis = WL_AXIS_MODEL, .dynamic = &scenarios);
