// SPDX-License-Identifier: GPL-2.0
/*
 * wl.c - the workbench: `wl COMMAND ...` in the guest (make shell), the
 * runner's program registered as "wl": it dispatches to the commands
 * (cmd_<name>.c), which share the helpers of cmd_util.c.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "registry.h"
#include "wl.h"

static const struct wl_cmd *const cmds[] = {
	&wl_cmd_watch, &wl_cmd_as, &wl_cmd_policy, &wl_cmd_scenario,
};

static void usage(FILE *f)
{
	fprintf(f, "usage: wl COMMAND [ARGS...]    (wl COMMAND --help for each)\n"
		"watchlab's workbench: watch, trigger, switch the watchpol policy and replay\n"
		"a scenario by hand.  Parties are written as in scenario files:\n"
		"uid=N [euid=N suid=N gid=N groups=A,B label=NAME caps=C,D userns mntns],\n"
		"label NAMEs from /etc/watchlab/labels (watcher, triggerer, bystander, object).\n"
		"Commands:\n");
	for (size_t i = 0; i < WL_ARRAY_SIZE(cmds); i++)
		fprintf(f, "  %-9s %s\n", cmds[i]->name, cmds[i]->summary);
}

static int wl_main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	wl_diag_as("wl");
	/* Under SELinux: the SID the runner's label rules name (label.h). */
	wl_run_inits();
	if (argc < 2) {
		fprintf(stderr, "wl: no command\n");
		usage(stderr);
		return WL_CMD_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < WL_ARRAY_SIZE(cmds); i++)
		if (!strcmp(argv[1], cmds[i]->name)) {
			if (wl_cmd_wants_help(argc - 1, argv + 1)) {
				cmds[i]->usage(stdout);
				return 0;
			}
			return cmds[i]->main(argc - 1, argv + 1);
		}
	fprintf(stderr, "wl: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return WL_CMD_USAGE;
}

WL_REGISTER(register_wl)
{
	wl_register_program("wl", wl_main);
}
