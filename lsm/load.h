/* SPDX-License-Identifier: GPL-2.0 */
/*
 * watchpol - assembling a policy from any number of writes.
 *
 * Text written to one open file of watchpol/policy accumulates in a
 * struct watchpol_load.  The policy is complete when a line whose first
 * word is "end" has been written; the text is then parsed, and put in
 * force when the writer of the end line closes the file (see fs.c).  No
 * prefix of a policy can therefore be loaded: a writer that stops early,
 * is killed or has its text truncated never wrote the end line.  After
 * the end line only blank lines and comments may follow, whatever the
 * writes: a statement there rejects the policy, in the write that brings
 * it.
 */

#ifndef _SECURITY_WATCHPOL_LOAD_H
#define _SECURITY_WATCHPOL_LOAD_H

#include <linux/gfp.h>
#include <linux/types.h>

struct watchpol_parse_error;

/**
 * enum watchpol_load_state - where the writes to one open file stand
 * @WATCHPOL_LOAD_OPEN: accepting text; no end line yet
 * @WATCHPOL_LOAD_COMPLETE: the end line has arrived; only blanks and
 *	comments may follow
 * @WATCHPOL_LOAD_DONE: the policy was loaded or refused; later writes to
 *	this open file fail
 */
enum watchpol_load_state {
	WATCHPOL_LOAD_OPEN,
	WATCHPOL_LOAD_COMPLETE,
	WATCHPOL_LOAD_DONE,
};

/**
 * struct watchpol_load - the text written so far to one open file
 * @buf: the text, @len bytes of @size allocated
 * @len: bytes written so far
 * @size: bytes allocated
 * @line_start: offset of the first byte of the line not yet ended
 * @lines: lines ended so far
 * @in_comment: after the end line: the line not yet ended is in a comment
 * @state: see enum watchpol_load_state
 */
struct watchpol_load {
	char *buf;
	size_t len;
	size_t size;
	size_t line_start;
	unsigned int lines;
	bool in_comment;
	enum watchpol_load_state state;
};

bool watchpol_is_end_line(const char *line, size_t len);
int watchpol_load_reserve(struct watchpol_load *l, size_t count, gfp_t gfp,
			  char **dst);
int watchpol_load_append(struct watchpol_load *l, size_t count,
			 struct watchpol_parse_error *err);
void watchpol_load_finish(struct watchpol_load *l);

#endif /* _SECURITY_WATCHPOL_LOAD_H */
