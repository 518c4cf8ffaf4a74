// SPDX-License-Identifier: GPL-2.0
/*
 * suite_scenarios.c - the data-driven scenarios of testcases/scenarios/
 * (packed as /etc/watchlab/scenarios/), one KTAP test and one matrix cell
 * per scenario variant, under every watchpol model.  A test passes when the
 * observed result is the one the scenario expects for this profile and
 * model: "delivered where blocked was expected" is a leak, the reverse an
 * over-block; the host counts the two apart from the matrix cells.  In a
 * bring-your-own-LSM boot there is no expectation: a test passes when its
 * scenario ran and the outcome has its evidence (the host compares).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evidence.h"
#include "scenario_run.h"
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
	/* wlrun --list on the host reads the scenarios from the source tree. */
	if (scn_parse_dir(&set, wl_listing() && getenv("WATCHLAB_SCENARIOS") ?
			  getenv("WATCHLAB_SCENARIOS") : SCENARIO_DIR,
			  parse_err, sizeof(parse_err)))
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

/* The newest LOG_TAIL of the window's watchpol records: why a cell came out so. */
static void show_log_tail(const struct wl_evidence *ev)
{
	const char *p = ev->log + ev->loglen;
	size_t nl = 0;

	for (; p > ev->log && nl <= LOG_TAIL; p--)
		if (p[-1] == '\n')
			nl++;
	while (*p) {
		size_t n = strcspn(p, "\n");

		wl_diag("watchpol log: %.*s", (int)n, p);
		p += n + (p[n] == '\n');
	}
	if (ev->audit_text[0])
		wl_diag("audit: %.300s", ev->audit_text);
}

static enum wl_result run(size_t i)
{
	static struct wl_evidence ev;
	const struct row *r = &rows[i];
	const char *model = wl_model();
	struct scn_cell c;
	char at[128];

	if (!nrows) {
		wl_diag("%s", parse_err[0] ? parse_err : "no scenarios");
		return WL_FAIL;
	}
	if (scn_run_cell(r->s, r->variant, wl_profile(), model, &ev, &c))
		return WL_FAIL;
	snprintf(at, sizeof(at), "%s:%u", basename(r->s->file), r->s->line);
	wl_matrix(&(struct wl_cell){
		.scenario = r->name, .model = model,
		.expected = c.want == SCN_UNSET ? "-" : scn_result_name(c.want),
		.observed = c.got == SCN_UNSET ? "error" : scn_result_name(c.got),
		.evidence = c.explained ? c.where : "unexplained", .at = at,
		.threat = r->s->threat });
	if (c.got == SCN_UNSET) {
		wl_diag("%s (%s) could not run", r->name, at);
		return WL_FAIL;
	}
	if (!c.explained)
		wl_diag("%s: blocked without a record of who refused it: %s", r->name, c.where);
	/* A foreign LSM has no expectations: its cells are what it does. */
	if (c.want == SCN_UNSET)
		return c.explained ? WL_PASS : WL_FAIL;
	if (c.got != c.want)
		wl_diag("%s: %s: %s, expected %s (%s)", r->name,
			c.got == SCN_DELIVERED ? "LEAK" : c.want == SCN_DELIVERED ?
			"OVER-BLOCK" : "WRONG-OUTCOME", scn_result_name(c.got),
			scn_result_name(c.want), at);
	if (c.got != c.want || !c.explained)
		show_log_tail(&ev);
	return c.got == c.want && c.explained ? WL_PASS : WL_FAIL;
}

static const struct wl_dynamic scenarios = { count, name, run };

WL_SUITE_DEFINE(suite_scenarios, .axis = WL_AXIS_MODEL, .dynamic = &scenarios, .byo = true);
