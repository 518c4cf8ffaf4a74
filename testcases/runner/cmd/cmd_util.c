// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_util.c - helpers the workbench's commands share (cmd.h): usage
 * errors, parties (as scenario files write them), the model in force.
 * Below the commands and wl.c, which dispatches to them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include "cmd.h"
#include "label.h"
#include "scenario_run.h"
#include "watchpol_util.h"
#include "wl.h"

int wl_cmd_bad(const struct wl_cmd *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "wl %s: %s\n(wl %s --help: its usage)\n", c->name, msg, c->name);
	return WL_CMD_USAGE;
}

int wl_cmd_wants_help(int argc, char **argv)
{
	return argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
}

int wl_cmd_party(const struct wl_cmd *c, int argc, char **argv, struct scn_party *p)
{
	char err[256];
	int n = 0;

	while (n < argc && strcmp(argv[n], "--"))
		n++;
	if (n == 0) {
		wl_cmd_bad(c, "no party: want uid=N [label=NAME caps=... userns mntns ...]");
		return -1;
	}
	if (scn_party_parse(c->name, argv, n, p, err, sizeof(err))) {
		wl_cmd_bad(c, "%s", err);
		return -1;
	}
	return n;
}

const char *wl_cmd_label_of(const struct scn_party *p, char *buf, size_t len)
{
	buf[0] = '\0';
	if (p->label[0] && wl_label_lookup(p->label, buf, len))
		buf[0] = '\0';
	return buf;
}

/* Raise the party's kept capabilities as ambient: they survive execve(). */
static int keep_caps_across_exec(uint64_t caps)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {
		{ (uint32_t)caps, (uint32_t)caps, (uint32_t)caps },
		{ (uint32_t)(caps >> 32), (uint32_t)(caps >> 32), (uint32_t)(caps >> 32) },
	};

	if (!caps)
		return 0;
	if (syscall(SYS_capset, &h, d)) {
		wl_diag("capset(inheritable 0x%llx): %s", (unsigned long long)caps,
			strerror(errno));
		return -1;
	}
	for (unsigned int cap = 0; cap < 64; cap++)
		if ((caps >> cap) & 1 &&
		    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0)) {
			wl_diag("raise capability %u as ambient: %s", cap, strerror(errno));
			return -1;
		}
	return 0;
}

int wl_cmd_become(const struct scn_party *p)
{
	return scn_party_enter(p) || keep_caps_across_exec(p->caps) ? -1 : 0;
}

const char *wl_cmd_model(char *buf, size_t len)
{
	char *text, *line;

	snprintf(buf, len, "off");
	if (access(WP_POLICY, R_OK))
		return buf;
	text = wp_read_policy();
	if (!text)
		return buf;
	line = strstr(text, "default ");
	if (line == text || (line && line[-1] == '\n'))
		snprintf(buf, len, "%.*s", (int)strcspn(line + 8, " \n"), line + 8);
	else
		snprintf(buf, len, "none");
	free(text);
	return buf;
}
