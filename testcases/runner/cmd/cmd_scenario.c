// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_scenario.c - `wl scenario NAME`: run one scenario of
 * /etc/watchlab/scenarios under this profile and the watchpol model in
 * force, as suite_scenarios does (scn_run_cell()), and show it: the
 * parties, what was expected, what was observed, and the decision and
 * audit records behind it.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "evidence.h"
#include "scenario_run.h"
#include "wl.h"

#define SCENARIO_DIR "/etc/watchlab/scenarios"

static void scenario_usage(FILE *f)
{
	fprintf(f, "usage: wl scenario NAME | wl scenario --list\n"
		"Run the scenario NAME (every variant it has, or one row such as\n"
		"NAME[ring]) from " SCENARIO_DIR " under this boot's profile and the\n"
		"watchpol model in force (wl policy load MODEL switches), and print its\n"
		"parties, the expected and the observed result, where a blocked event\n"
		"stopped, and the watchpol decisions and LSM audit records of the run.\n"
		"  --list   the scenario rows, one a line\n"
		"Exit status: 0 if every row came out as expected; 1 otherwise; 2 usage.\n");
}

static void show_party(const char *role, const struct scn_party *p)
{
	char words[160], label[128];

	if (!p->set)
		return;
	scn_party_format(p, words, sizeof(words));
	printf("  %-9s %s", role, words);
	if (*wl_cmd_label_of(p, label, sizeof(label)))
		printf(" (%s)", label);
	printf("\n");
}

static void show_records(const struct wl_evidence *ev)
{
	char *text = strdup(ev->log);

	printf("  watchpol decisions:%s\n", ev->log[0] ? "" : " none");
	for (char *l = text ? strtok(text, "\n") : NULL; l; l = strtok(NULL, "\n")) {
		printf("    ");
		wl_cmd_print_decision(l);
	}
	free(text);
	printf("  audit:%s\n", ev->audit_text[0] ? "" : " no LSM denial");
	text = strdup(ev->audit_text);
	for (char *l = text ? strtok(text, "\n") : NULL; l; l = strtok(NULL, "\n"))
		printf("    %s\n", l);
	free(text);
}

/* Run and show one row; true if it came out as expected. */
static bool run_row(const struct scenario *s, unsigned int variant, const char *model)
{
	static struct wl_evidence ev;
	struct scn_cell c;
	char row[SCN_NAME_MAX + 24];
	const char *verdict;

	scn_row_name(s, variant, row, sizeof(row));
	printf("scenario %s (%s:%u)\n  %s\n  threat    %s\n", row, basename(s->file), s->line,
	       s->doc[0] ? s->doc : "(no doc line)", s->threat);
	printf("  action    %s %s on a %s%s%s: record %s/%s\n", scn_source_name(s->source),
	       s->action->name, s->object, s->object_opt[0] ? " " : "", s->object_opt,
	       wl_evidence_type_name(s->action->type),
	       scn_subtype_name(s->source, s->ev_subtype));
	show_party("owner", &s->owner);
	show_party("watcher", &s->watcher);
	show_party("setter", &s->setter);
	show_party("trigger", &s->trigger);
	fflush(stdout);
	if (scn_run_cell(s, variant, wl_profile(), model, &ev, &c)) {
		printf("  result    error: the scenario could not run here\n");
		return false;
	}
	printf("  expected  %s (profile %s, model %s)\n", scn_result_name(c.want),
	       wl_profile(), model);
	printf("  observed  %s%s%s\n", c.got == SCN_UNSET ? "error" : scn_result_name(c.got),
	       c.where[0] ? ", evidence " : "", c.where);
	show_records(&ev);
	verdict = c.got == SCN_UNSET ? "error: the scenario could not run" :
		  !c.explained ? "unexplained: blocked, but no record says by whom" :
		  c.got == c.want ? "as expected" :
		  c.got == SCN_DELIVERED ? "LEAK" :
		  c.want == SCN_DELIVERED ? "OVER-BLOCK" : "WRONG-OUTCOME";
	printf("  result    %s\n", verdict);
	fflush(stdout);
	return c.got == c.want && c.explained;
}

static int scenario_main(int argc, char **argv)
{
	static struct scn_set set;
	bool list = false, ok = true;
	char err[512], model[32];
	size_t found = 0;

	if (argc != 2)
		return wl_cmd_bad(&wl_cmd_scenario, "want one NAME (or --list)");
	list = !strcmp(argv[1], "--list");
	if (!list && argv[1][0] == '-')
		return wl_cmd_bad(&wl_cmd_scenario, "unknown option '%s'", argv[1]);
	if (scn_parse_dir(&set, SCENARIO_DIR, err, sizeof(err))) {
		wl_diag("scenario: %s", err);
		return 1;
	}
	wl_cmd_model(model, sizeof(model));
	for (size_t i = 0; i < set.n; i++) {
		unsigned int v[4];
		size_t nv = scn_variant_list(&set.v[i], v, 4);

		for (size_t j = 0; j < nv; j++) {
			char row[SCN_NAME_MAX + 24];

			scn_row_name(&set.v[i], v[j], row, sizeof(row));
			if (list) {
				printf("%s\n", row);
			} else if (!strcmp(row, argv[1]) || !strcmp(set.v[i].name, argv[1])) {
				ok &= run_row(&set.v[i], v[j], model);
				found++;
			}
		}
	}
	if (list)
		return 0;
	if (!found) {
		wl_diag("scenario: no scenario named '%s' in %s (wl scenario --list)",
			argv[1], SCENARIO_DIR);
		return 1;
	}
	return ok ? 0 : 1;
}

const struct wl_cmd wl_cmd_scenario = {
	.name = "scenario",
	.summary = "run one scenario here, show its parties, expectation, result, records",
	.main = scenario_main,
	.usage = scenario_usage,
};
