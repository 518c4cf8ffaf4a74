// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_as.c - `wl as PARTY -- COMMAND [ARGS...]`: become a party (label,
 * mount namespace, groups, uids, capabilities, user namespace: the
 * scenario engine's own scn_party_enter()) and exec the command.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "wl.h"

static void as_usage(FILE *f)
{
	fprintf(f, "usage: wl as PARTY -- COMMAND [ARGS...]\n"
		"Become PARTY, then exec COMMAND (found in $PATH).  PARTY, as in scenario files:\n"
		"  uid=N            uid (and, unless given, euid, suid and gid); required\n"
		"  euid=N suid=N gid=N groups=A,B\n"
		"  label=NAME       the SELinux context or Smack label /etc/watchlab/labels\n"
		"                   gives NAME in this profile (watcher, triggerer, bystander,\n"
		"                   object); ignored, but checked, in the plain profile\n"
		"  caps=C,D         capabilities kept across the uid switch and the exec\n"
		"                   (kill, sys_admin, setuid, setgid, dac_override, mac_admin)\n"
		"  userns           a new user namespace, root in it mapped to uid\n"
		"  mntns            a new mount namespace\n"
		"Exit status: COMMAND's; 125 if PARTY could not be entered, 127 if COMMAND\n"
		"could not be run, 2 for bad arguments.\n"
		"example: wl as uid=1001 label=triggerer -- keyctl update $key v2\n");
}

static int as_main(int argc, char **argv)
{
	struct scn_party p;
	int n = wl_cmd_party(&wl_cmd_as, argc - 1, argv + 1, &p);

	if (n < 0)
		return WL_CMD_USAGE;
	/* argv[1 + n] is "--"; the command follows it. */
	if (1 + n >= argc || 2 + n >= argc)
		return wl_cmd_bad(&wl_cmd_as, "no command: want PARTY -- COMMAND [ARGS...]");
	if (wl_cmd_become(&p))
		return WL_EXIT_NO_CREDS;
	execvp(argv[2 + n], argv + 2 + n);
	wl_diag("as: exec %s: %s", argv[2 + n], strerror(errno));
	return 127;
}

const struct wl_cmd wl_cmd_as = {
	.name = "as",
	.summary = "run a command as a party: uid/gid, groups, label, caps, namespaces",
	.main = as_main,
	.usage = as_usage,
};
