// SPDX-License-Identifier: GPL-2.0
/*
 * ktap.c - emit KTAP lines.  Every line is built whole and written with a
 * single write(2) so that lines from forked children and the kernel's own
 * console messages interleave only at line boundaries.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ktap.h"

static unsigned int ktap_depth;

void ktap_set_depth(unsigned int depth)
{
	ktap_depth = depth;
}

void ktap_line(const char *fmt, ...)
{
	char line[640];
	size_t off = 0, len;
	va_list ap;

	for (unsigned int i = 0; i < ktap_depth && off + 4 < sizeof(line); i++, off += 4)
		memcpy(line + off, "    ", 4);
	va_start(ap, fmt);
	vsnprintf(line + off, sizeof(line) - off - 1, fmt, ap);
	va_end(ap);
	len = strlen(line);
	/* A diagnostic never spans lines: newlines inside it become spaces. */
	for (size_t i = off; i < len; i++)
		if (line[i] == '\n')
			line[i] = ' ';
	line[len++] = '\n';
	if (write(STDOUT_FILENO, line, len) < 0)
		return;
}
