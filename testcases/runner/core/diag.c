// SPDX-License-Identifier: GPL-2.0
/*
 * diag.c - diagnostics: KTAP "# " lines in the runner, "wl CMD: ..." on
 * stderr in the workbench (wl_diag_as()).  Below io.c and util.c, which
 * report through it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "ktap.h"
#include "wl.h"

/* A command's name (wl_diag_as()), or NULL: diagnostics are KTAP lines. */
static const char *diag_program;

void wl_diag_as(const char *program)
{
	diag_program = program;
}

void wl_diag(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!diag_program) {
		ktap_line("# %s", msg);
		return;
	}
	/* One write, as ktap_line() does, so lines from children stay whole. */
	n = dprintf(STDERR_FILENO, "%s: %s\n", diag_program, msg);
	(void)n;
}
