/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmd.h - the workbench commands of `make shell`: one program, wl, in the
 * runner's binary (/bin/wl links to /bin/wlrun), built on the runner's own
 * library and scenario engine.  Each subcommand is a file cmd_<name>.c;
 * wl.c dispatches, and cmd_util.c has the helpers they share.  A subcommand returns its exit status: 0, 1 for a
 * failure of what it did, 2 for bad arguments (after its usage).
 */
#ifndef WL_CMD_H
#define WL_CMD_H

#include <stdio.h>

#include "scenario.h"

#define WL_CMD_USAGE 2

struct wl_cmd {
	const char *name;
	const char *summary;
	int (*main)(int argc, char **argv);	/* argv[0] is the subcommand */
	void (*usage)(FILE *f);
};

extern const struct wl_cmd wl_cmd_as, wl_cmd_watch, wl_cmd_policy, wl_cmd_scenario;

/* "wl SUB: ..." on stderr, and where its usage is: WL_CMD_USAGE. */
int wl_cmd_bad(const struct wl_cmd *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* True when argv[1] asks for help (-h, --help). */
int wl_cmd_wants_help(int argc, char **argv);

/*
 * A party from words, as in scenario files (uid=N gid=N groups=A,B
 * label=NAME caps=C,D userns mntns); the words are consumed up to "--" or
 * the end.  Returns the number of words used, or -1 (diagnosed).
 */
int wl_cmd_party(const struct wl_cmd *c, int argc, char **argv, struct scn_party *p);

/* The party's label as this profile spells it ("" in plain): for messages. */
const char *wl_cmd_label_of(const struct scn_party *p, char *buf, size_t len);

/*
 * Become the party and keep its capabilities across execve() (ambient),
 * as `wl as` does before it execs.  0, or -1 (diagnosed).
 */
int wl_cmd_become(const struct scn_party *p);

/* The watchpol model in force (the policy's default), "off" without watchpol. */
const char *wl_cmd_model(char *buf, size_t len);

/*
 * One line of watchpol's decision log, readable: hook, type/subtype,
 * triggerer and watcher (uid, label), the object's label, every model's
 * verdict, and what the model in force did.
 */
void wl_cmd_print_decision(const char *line);

#endif /* WL_CMD_H */
