// SPDX-License-Identifier: GPL-2.0
/*
 * watchpol - assembling a policy from any number of writes (see load.h).
 *
 * The state machine of one open file:
 *
 *	OPEN --(a write that ends a line starting with "end")--> COMPLETE
 *	COMPLETE --(blank lines and comments)--> COMPLETE
 *	COMPLETE --(loaded or refused, at its writer's close)--> DONE
 *	OPEN, COMPLETE --(a statement after the end line, a bad character,
 *		or the text would exceed WATCHPOL_MAX_POLICY)--> DONE
 *
 * A zero-length write changes nothing.  Writes in DONE fail.  What may
 * follow the end line is judged here, byte by byte, so the verdict does
 * not depend on where the writes split the text.  Nothing here touches the
 * live policy, so KUnit drives it directly.
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "load.h"
#include "policy.h"

/* The first allocation; the buffer then doubles up to the policy limit. */
#define WATCHPOL_LOAD_MIN	4096

/**
 * watchpol_is_end_line() - is this the line that completes a policy?
 * @line: the line, without its newline
 * @len: its length
 *
 * A line whose first word is "end" completes the policy; what else the
 * line holds is the parser's business ("end" takes no argument, but a
 * comment may follow).  Blanks and a comment alone do not.
 *
 * Return: true for an end line.
 */
bool watchpol_is_end_line(const char *line, size_t len)
{
	size_t i = 0;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (len - i < 3 || memcmp(line + i, "end", 3))
		return false;
	i += 3;
	return i == len || line[i] == ' ' || line[i] == '\t' || line[i] == '#';
}

/**
 * watchpol_load_reserve() - make room for the next write
 * @l: the open file's text
 * @count: the size of the write
 * @gfp: allocation flags (GFP_KERNEL_ACCOUNT charges the text to the
 *	writer's memory cgroup)
 * @dst: set to where the @count bytes go
 *
 * Return:
 * * %0		- copy @count bytes to *@dst, then call watchpol_load_append()
 * * %-EINVAL	- @count is 0; nothing changed
 * * %-EBADFD	- this open file's policy was already loaded or rejected;
 *		  nothing changed
 * * %-EFBIG	- the text would exceed WATCHPOL_MAX_POLICY; the load is
 *		  abandoned (state DONE)
 * * %-ENOMEM	- no memory; nothing changed
 */
int watchpol_load_reserve(struct watchpol_load *l, size_t count, gfp_t gfp,
			  char **dst)
{
	size_t want, size;
	char *buf;

	if (l->state == WATCHPOL_LOAD_DONE)
		return -EBADFD;
	if (!count)
		return -EINVAL;
	if (count > WATCHPOL_MAX_POLICY - l->len) {
		watchpol_load_finish(l);
		return -EFBIG;
	}
	want = l->len + count;
	if (want > l->size) {
		size = max_t(size_t, l->size, WATCHPOL_LOAD_MIN);
		while (size < want)
			size *= 2;
		size = min_t(size_t, size, WATCHPOL_MAX_POLICY);
		buf = kvrealloc(l->buf, size, gfp);
		if (!buf)
			return -ENOMEM;
		l->buf = buf;
		l->size = size;
	}
	*dst = l->buf + l->len;
	return 0;
}

/* A byte the parser rejects anywhere in a policy. */
static bool watchpol_bad_char(unsigned char c)
{
	return c != '\t' && c != '\n' && (c < 0x20 || c > 0x7e);
}

/**
 * watchpol_load_append() - take in the bytes of a write
 * @l: the open file's text; watchpol_load_reserve() made room
 * @count: bytes copied to the reserved space
 * @err: set when the text is rejected
 *
 * Scans the new bytes for the end of a line; the first line that is an
 * end line completes the policy.  Every byte after it, in this write or a
 * later one, must belong to a blank line or a comment, as the parser
 * requires of a whole text: a word there ("statement after end") or a
 * byte the parser refuses ("invalid character") rejects the policy, with
 * its line number, whatever the writes' boundaries.
 *
 * Return: 1 if the policy is complete (the end line came in this write
 * or before), 0 if not, or -EINVAL with @err set when the text is rejected
 * (the caller then calls watchpol_load_finish()).
 */
int watchpol_load_append(struct watchpol_load *l, size_t count,
			 struct watchpol_parse_error *err)
{
	size_t i, end = l->len + count;
	unsigned char c;

	for (i = l->len; i < end; i++) {
		c = l->buf[i];
		if (l->state == WATCHPOL_LOAD_OPEN) {
			if (c != '\n')
				continue;
			l->lines++;
			if (watchpol_is_end_line(l->buf + l->line_start,
						 i - l->line_start)) {
				l->state = WATCHPOL_LOAD_COMPLETE;
				l->in_comment = false;
			}
			l->line_start = i + 1;
			continue;
		}
		if (watchpol_bad_char(c)) {
			err->reason = "invalid character";
		} else if (c == '\n') {
			l->lines++;
			l->in_comment = false;
			continue;
		} else if (l->in_comment || c == ' ' || c == '\t') {
			continue;
		} else if (c == '#') {
			l->in_comment = true;
			continue;
		} else {
			err->reason = "statement after end";
		}
		err->line = l->lines + 1;
		l->len = end;
		return -EINVAL;
	}
	l->len = end;
	return l->state == WATCHPOL_LOAD_COMPLETE;
}

/**
 * watchpol_load_finish() - free the text; later writes fail with -EBADFD
 * @l: the open file's text
 */
void watchpol_load_finish(struct watchpol_load *l)
{
	kvfree(l->buf);
	l->buf = NULL;
	l->len = 0;
	l->size = 0;
	l->line_start = 0;
	l->lines = 0;
	l->in_comment = false;
	l->state = WATCHPOL_LOAD_DONE;
}
