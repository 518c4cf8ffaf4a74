// SPDX-License-Identifier: GPL-2.0
/*
 * suite_scenarios.c - the data-driven scenarios of testcases/scenarios/
 * (packed as /etc/watchlab/scenarios/), one KTAP test and one matrix cell
 * per scenario variant, under every watchpol model; a row that states a
 * kernel property runs once per boot instead (suite_properties, at the
 * end of this file).  A test passes when the
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

/* The rows each model decides, and the rows that state a kernel property. */
static struct row *rows, *props;
static size_t nrows, nprops;
static bool parsed;

/* Parse the scenario files and list their variants, once; 0 on success. */
static int parse(void)
{
	if (parsed)
		return rows ? 0 : -1;
	parsed = true;
	/* wlrun --list on the host reads the scenarios from the source tree. */
	if (scn_parse_dir(&set, wl_listing() && getenv("WATCHLAB_SCENARIOS") ?
			  getenv("WATCHLAB_SCENARIOS") : SCENARIO_DIR,
			  parse_err, sizeof(parse_err)))
		return -1;
	rows = calloc(set.n * 4, sizeof(*rows));
	props = calloc(set.n * 4, sizeof(*props));
	if (!rows || !props) {
		free(rows);
		rows = NULL;
		snprintf(parse_err, sizeof(parse_err), "out of memory");
		return -1;
	}
	for (size_t i = 0; i < set.n; i++) {
		unsigned int v[4];
		size_t nv = scn_variant_list(&set.v[i], v, 4);

		for (size_t j = 0; j < nv; j++) {
			struct row *r = set.v[i].property[0] ? &props[nprops++] : &rows[nrows++];

			r->s = &set.v[i];
			r->variant = v[j];
			scn_row_name(&set.v[i], v[j], r->name, sizeof(r->name));
		}
	}
	return 0;
}

/* Each suite's tests; a malformed file is one failing test, scenario_files. */
static size_t count(void)
{
	return !parse() && nrows ? nrows : 1;
}

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

/*
 * The shadow pass's pair of decisions on a cell, as "watchpol:V,smack:V"
 * (V: allow, deny, none, or mixed when posts differ), into buf.  Smack's
 * is the outcome: the event arrived (allow), Smack's audit record refused
 * its post (deny), or it was never posted (none; a row that observes by
 * reading O or a counter has no post to W).  watchpol's is what its model
 * said of each post to W, logged but not enforced.  True if the two are
 * the same.
 */
static bool shadow_pair(const struct scenario *s, const struct scn_cell *c, char *buf,
			size_t len)
{
	const char *smack = "none", *wp = "none";

	if (s->observe == SCN_OBSERVE_WATCH && c->got == SCN_DELIVERED)
		smack = "allow";
	else if (s->observe == SCN_OBSERVE_WATCH && c->got == SCN_BLOCKED &&
		 !strcmp(c->where, "post:smack"))
		smack = "deny";
	if (c->verdict_allow && c->verdict_deny)
		wp = "mixed";
	else if (c->verdict_allow)
		wp = "allow";
	else if (c->verdict_deny)
		wp = "deny";
	snprintf(buf, len, "watchpol:%s,smack:%s", wp, smack);
	return !strcmp(wp, smack);
}

/*
 * Run row i under @model and judge it.  @column is the matrix column's
 * model name (the model, or MODEL-noconsumer for the quiet pass, or
 * SHADOW_COLUMN for the shadow pass, which also pairs the decisions).
 */
static enum wl_result judge_row(const struct row *r, const char *model, const char *column,
				bool quiet, bool shadow)
{
	static struct wl_evidence ev;
	struct scn_cell c;
	char at[128], want[64], pair[64];
	bool agree = true;

	ev.quiet = quiet;
	if (scn_run_cell(r->s, r->variant, wl_profile(), model, &ev, &c))
		return WL_FAIL;
	if (quiet && c.posts) {
		/* watchpol logs an allowed post only for a consumer: one was attached. */
		wl_diag("%s: %u post record(s) of an allowed post: a consumer held watchpol's log",
			r->name, c.posts);
		c.got = SCN_UNSET;
	}
	if (shadow)
		agree = shadow_pair(r->s, &c, pair, sizeof(pair));
	snprintf(at, sizeof(at), "%s:%u", basename(r->s->file), r->s->line);
	/* "blocked@post:watchpol" when the row names where; the report checks it. */
	snprintf(want, sizeof(want), "%s%s%s", c.want == SCN_UNSET ? "-" : scn_result_name(c.want),
		 c.want_where[0] ? "@" : "", c.want_where);
	wl_matrix(&(struct wl_cell){
		.scenario = r->name, .model = column,
		.expected = want,
		.observed = c.got == SCN_UNSET ? "error" : scn_result_name(c.got),
		.evidence = c.explained ? c.where : "unexplained", .at = at,
		.threat = r->s->threat, .shadow = shadow ? pair : NULL });
	if (c.got == SCN_UNSET) {
		wl_diag("%s (%s) could not run", r->name, at);
		return WL_FAIL;
	}
	if (!c.explained)
		wl_diag("%s: blocked without a record of who refused it: %s", r->name, c.where);
	if (c.misattributed[0])
		wl_diag("%s: MISATTRIBUTED: %s (%s)", r->name, c.misattributed, at);
	if (!agree)
		wl_diag("%s: SHADOW MISMATCH: %s: smackemu's verdict is not Smack's decision (%s)",
			r->name, pair, at);
	/* A foreign LSM has no expectations: its cells are what it does. */
	if (c.want == SCN_UNSET)
		return c.explained ? WL_PASS : WL_FAIL;
	if (c.got != c.want)
		wl_diag("%s: %s: %s, expected %s (%s)", r->name,
			c.got == SCN_DELIVERED ? "LEAK" : c.want == SCN_DELIVERED ?
			"OVER-BLOCK" : "WRONG-OUTCOME", scn_result_name(c.got),
			scn_result_name(c.want), at);
	if (c.got != c.want || !c.explained || c.misattributed[0] || !agree)
		show_log_tail(&ev);
	return c.got == c.want && c.explained && !c.misattributed[0] && agree ?
		WL_PASS : WL_FAIL;
}

/* Row i of the model-decided rows, or the parse error when there are none. */
static enum wl_result run_cell(size_t i, const char *model, const char *column, bool quiet,
			       bool shadow)
{
	if (!nrows) {
		wl_diag("%s", parse_err[0] ? parse_err : "no scenarios");
		return WL_FAIL;
	}
	return judge_row(&rows[i], model, column, quiet, shadow);
}

static enum wl_result run(size_t i)
{
	return run_cell(i, wl_model(), wl_model(), false, false);
}

static const struct wl_dynamic scenarios = { .count = count, .name = name, .run = run };

WL_SUITE_DEFINE(suite_scenarios, .axis = WL_AXIS_MODEL, .dynamic = &scenarios, .byo = true);

/*
 * suite_scenarios_noconsumer: every row once more under every model
 * watchpol decides, with nobody holding watchpol's decision log, the path
 * a system without a log reader runs (lsm/hooks.c: no consumer, no shadow
 * verdicts, allowed posts not logged, the fast path post_allowed()).  The
 * cells are the matrix columns MODEL-noconsumer, which the report requires
 * to equal MODEL's; a refused post is still logged, and read once the
 * scenario is over.  Every model, not only strict: the fast path has
 * branches of its own for the queue creator's creds (creator, closed),
 * the re-check (closed) and post_dac off (smackemu), and a wrong one is
 * seen only where its model runs (12-07 review M1).
 */
static bool noconsumer_applies(void)
{
	return wl_have_watchpol() && !wl_debug_kernel();
}

static enum wl_result run_noconsumer(size_t i)
{
	char column[64];

	snprintf(column, sizeof(column), "%s-noconsumer", wl_model());
	return run_cell(i, wl_model(), column, true, false);
}

static const struct wl_dynamic noconsumer = {
	.count = count, .name = name, .run = run_noconsumer
};

WL_SUITE_DEFINE(suite_scenarios_noconsumer, .dynamic = &noconsumer,
		.axis = WL_AXIS_MODEL, .watchpol_models_only = true,
		.applies = noconsumer_applies,
		.skip_reason = "no watchpol, or the debug kernel (its boot runs closed only)");

static void restore_policy(void)
{
	wp_restore_policy();
}

/*
 * suite_scenarios_smackemu_shadow: every row once more in the smack
 * profile, with smackemu's policy loaded but not enforced (enforce 0,
 * policy/watchpol/smackemu-shadow.policy).  Smack alone decides, and
 * watchpol logs what smackemu would have decided of each post.  Each cell
 * pairs the two decisions and fails unless they are equal.  The enforcing
 * smack/smackemu column compares outcomes only, and cannot see watchpol
 * allow what Smack refuses: Smack, after watchpol in lsm=, refuses it all
 * the same.  The cells are the column smackemu-shadow; their outcomes are
 * Smack's own (expected as smack/none's), and the report checks every
 * pair again.
 */
#define SHADOW_POLICY "smackemu-shadow"
#define SHADOW_COLUMN "smackemu-shadow"
#define SHADOW_EXPECT "none"

static bool shadow_applies(void)
{
	return wl_have_watchpol() && !wl_debug_kernel() && !strcmp(wl_profile(), "smack");
}

static int shadow_setup(void)
{
	return wp_save_policy() && wl_load_model(SHADOW_POLICY) == 0 ? 0 : -1;
}

static enum wl_result run_shadow(size_t i)
{
	return run_cell(i, SHADOW_EXPECT, SHADOW_COLUMN, false, true);
}

static const struct wl_dynamic shadow = { .count = count, .name = name, .run = run_shadow };

WL_SUITE_DEFINE(suite_scenarios_smackemu_shadow, .dynamic = &shadow,
		.applies = shadow_applies,
		.skip_reason = "not the smack profile, no watchpol, or the debug kernel",
		.setup = shadow_setup, .teardown = restore_policy);

/*
 * suite_properties: the rows that state a kernel property ("property" in
 * the scenario file): the kernel decides them before any LSM hook runs, so
 * no model is tested by them and they run once per boot, under closed
 * (the model that refuses most: were the kernel to let the event through,
 * watchpol would refuse it, and the cell would name watchpol, not the
 * kernel).  Each passes as an XFAIL with its property as the reason, and
 * fails if the kernel no longer decides it so.  Their cells are the
 * matrix column "property", one per profile.
 */
#define PROPERTY_MODEL "closed"
#define PROPERTY_COLUMN "property"

static size_t count_properties(void)
{
	return parse() ? 0 : nprops;
}

static const char *property_name(size_t i)
{
	return props[i].name;
}

static const char *property_reason(size_t i)
{
	return props[i].s->property;
}

static bool properties_apply(void)
{
	return wl_have_watchpol();
}

static int properties_setup(void)
{
	return wp_save_policy() && wl_load_model(PROPERTY_MODEL) == 0 ? 0 : -1;
}

static enum wl_result run_property(size_t i)
{
	enum wl_result r = judge_row(&props[i], PROPERTY_MODEL, PROPERTY_COLUMN, false, false);

	return r == WL_PASS ? WL_XFAIL : r;
}

static const struct wl_dynamic properties = {
	.count = count_properties, .name = property_name, .run = run_property,
	.xfail_reason = property_reason,
};

WL_SUITE_DEFINE(suite_properties, .dynamic = &properties, .applies = properties_apply,
		.skip_reason = "no watchpol", .setup = properties_setup,
		.teardown = restore_policy);
