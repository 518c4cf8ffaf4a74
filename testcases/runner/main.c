// SPDX-License-Identifier: GPL-2.0
/*
 * wlrun - watchlab's in-guest runner.  Runs every suite that applies to
 * this boot (or those named on the command line) and reports KTAP on stdout
 * (core/run.c runs each).  The entry point, above the runner's layers
 * (core, lib, scenario, cmd, suites: the Makefile's RUNNER_LAYERS): as
 * another name (wl, request-key), the program registered under it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "ktap.h"
#include "registry.h"
#include "run.h"
#include "wl.h"

/*
 * A suite named on the command line runs whether it applies or not.  A
 * bring-your-own-LSM boot runs (and lists) its own suites only.
 */
static bool selected(const struct wl_suite *s, int argc, char **argv)
{
	if (argc < 2)
		return !wl_byo_lsm() || s->byo;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], s->name) == 0)
			return true;
	return false;
}

static void usage(FILE *f, const struct wl_suite *const *suites, size_t n)
{
	fprintf(f, "usage: wlrun [--list] [SUITE...]\n"
		"Run the suites that apply to this boot, or the SUITEs named (whether they\n"
		"apply or not), and print KTAP on stdout.\n"
		"  --list     print the KTAP this boot must produce, running nothing\n"
		"             (the boot's command line from $WATCHLAB_CMDLINE)\n"
		"  -h, --help this text\n"
		"The suites, in the order they run:\n");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  %s%s\n", suites[i]->name,
			suites[i]->axis == WL_AXIS_TRANSPORT ? " (and _ring)" :
			suites[i]->axis == WL_AXIS_MODEL ? " (@MODEL, once per model)" : "");
	fprintf(f, "The workbench commands (wl --help) are the same program, as /bin/wl.\n");
}

int main(int argc, char **argv)
{
	unsigned int nsel = 0, num = 0;
	size_t nsuites;
	const struct wl_suite *const *suites = wl_suites(&nsuites);
	int (*program)(int, char **) = wl_program(basename(argv[0]));
	bool ok = true;

	if (program)
		return program(argc, argv);
	/* KTAP goes to the console; a test's own stdout must not buffer. */
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout, suites, nsuites);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "--list") == 0) {
		wl_set_listing();
		argv[1] = argv[0];
		argv++;
		argc--;
	} else {
		wl_run_inits();
	}
	for (int a = 1; a < argc; a++) {
		size_t i;

		for (i = 0; i < nsuites && strcmp(argv[a], suites[i]->name); i++)
			;
		if (i == nsuites) {
			fprintf(stderr, "wlrun: %s %s\n", argv[a][0] == '-' ?
				"unknown option" : "no suite named", argv[a]);
			usage(stderr, suites, nsuites);
			return 2;
		}
	}
	for (size_t i = 0; i < nsuites; i++)
		if (selected(suites[i], argc, argv))
			nsel += wl_runs_of(suites[i]);
	ktap_line("KTAP version 1");
	ktap_line("1..%u", nsel);
	for (size_t i = 0; i < nsuites; i++) {
		const struct wl_suite *s = suites[i];

		if (selected(s, argc, argv))
			ok &= wl_run_selected(s, argc < 2 && s->applies && !s->applies(), &num);
	}
	ktap_line("# watchlab: runner finished, profile=%s", wl_profile());
	return ok ? 0 : 1;
}
