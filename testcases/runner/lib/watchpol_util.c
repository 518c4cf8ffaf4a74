// SPDX-License-Identifier: GPL-2.0
/*
 * watchpol_util.c - write watchpol's securityfs files, read its decision
 * log; save and restore the policy in force around a test that sets its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "watchpol_util.h"
#include "wl.h"

int wp_write_one(const char *path, const char *text, size_t len)
{
	return wl_try_write(path, text, len) ? -errno : 0;
}

/*
 * Where the text's last statement is an end line: 0 it is not, 1 it is
 * and its newline is in the text, 2 it is the text's last, unended line.
 */
static int end_line_state(const char *text, size_t len)
{
	size_t start = len, i;

	/* Walk back over lines that hold only blanks or a comment. */
	while (start > 0) {
		size_t end = start;

		while (start > 0 && text[start - 1] != '\n')
			start--;
		for (i = start; i < end && (text[i] == ' ' || text[i] == '\t'); i++)
			;
		if (i < end && text[i] != '#') {
			if (end - i < 3 || memcmp(text + i, "end", 3) ||
			    (end - i > 3 && !(text[i + 3] && strchr(" \t#", text[i + 3]))))
				return 0;
			return end < len ? 1 : 2;
		}
		if (start > 0)
			start--;
	}
	return 0;
}

int wp_write_policy_chunked(const char *text, size_t len, size_t chunk)
{
	int fd = open(WP_POLICY, O_WRONLY | O_CLOEXEC);
	const char *tail = "";
	size_t pos = 0;
	int r = 0;

	if (fd < 0)
		return -errno;
	/* The end line completes the policy once its newline arrives. */
	switch (end_line_state(text, len)) {
	case 0:
		tail = len && text[len - 1] != '\n' ? "\nend\n" : "end\n";
		break;
	case 2:
		tail = "\n";
		break;
	}
	while (pos < len && !r) {
		size_t n = chunk && chunk < len - pos ? chunk : len - pos;
		ssize_t w = write(fd, text + pos, n);

		if (w < 0)
			r = -errno;
		else if ((size_t)w != n)
			r = -EIO;
		pos += n;
	}
	if (!r && *tail) {
		ssize_t w = write(fd, tail, strlen(tail));

		if (w < 0)
			r = -errno;
		else if ((size_t)w != strlen(tail))
			r = -EIO;
	}
	/* close() reports a policy that never got its end line. */
	if (close(fd) && !r)
		r = -errno;
	return r;
}

int wp_write_policy(const char *text, size_t len)
{
	return wp_write_policy_chunked(text, len, 0);
}

int wp_write_policy_str(const char *text)
{
	return wp_write_policy(text, strlen(text));
}

char *wp_read_policy(void)
{
	char *buf = malloc(WP_MAX_TEXT * 4 + 1);

	if (!buf)
		return NULL;
	if (wl_read_file(WP_POLICY, buf, WP_MAX_TEXT * 4 + 1) < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The policy in force when a test starts, put back when it ends. */
static char *saved_policy;

bool wp_save_policy(void)
{
	saved_policy = wp_read_policy();
	return saved_policy != NULL;
}

bool wp_restore_policy(void)
{
	int r;

	if (!saved_policy)
		return false;
	r = wp_write_policy_str(saved_policy);
	if (r)
		wl_diag("restoring the policy: %s", strerror(-r));
	free(saved_policy);
	saved_policy = NULL;
	return r == 0;
}

/* The log, held open from the first drain: see wp_drain_log(). */
static int log_fd = -1;

char *wp_drain_log(void)
{
	size_t size = 1 << 20, len = 0;
	char *buf = malloc(size);
	ssize_t n;

	if (!buf)
		return NULL;
	if (log_fd < 0)
		log_fd = open(WP_LOG, O_RDONLY | O_CLOEXEC);
	if (log_fd < 0) {
		wl_diag("open %s: %s", WP_LOG, strerror(errno));
		free(buf);
		return NULL;
	}
	while ((n = read(log_fd, buf + len, size - 1 - len)) > 0) {
		len += n;
		if (len > (4 << 20))
			break;
		if (size - 1 - len < 4096) {
			char *nb = realloc(buf, size * 2);

			if (!nb)
				break;
			buf = nb;
			size *= 2;
		}
	}
	if (n < 0)
		wl_diag("read %s: %s", WP_LOG, strerror(errno));
	buf[len] = '\0';
	return buf;
}

void wp_log_detach(void)
{
	if (log_fd >= 0)
		close(log_fd);
	log_fd = -1;
}

unsigned int wp_log_lines_with(const char *log, const char *const *words)
{
	unsigned int n = 0;

	for (const char *line = log; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		bool all = true;

		for (const char *const *w = words; *w && all; w++)
			all = memmem(line, len, *w, strlen(*w)) != NULL;
		n += all;
		line = end ? end + 1 : NULL;
	}
	return n;
}

long wp_stat(const char *name)
{
	static char stats[8192];
	char key[64];
	const char *l;

	if (wl_try_read(WP_STATS, stats, sizeof(stats)) <= 0)
		return -1;
	snprintf(key, sizeof(key), "\n%s ", name);
	l = strstr(stats, key);
	return l ? strtol(l + strlen(key), NULL, 10) : -1;
}

/* A model name that judges each post, under @recheck. */
static bool model_judges_posts(const char *model, bool recheck)
{
	return !strcmp(model, "schaufler") || !strcmp(model, "strict") ||
	       (recheck && !strcmp(model, "watcher"));
}

bool wp_sb_posts_judged(void)
{
	char dflt[16] = "none", sb[16] = "", word[16];
	char *text = wp_read_policy(), *line, *save;
	bool recheck = false;
	int enforce = 0;

	if (!text)
		return false;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "default %15s", word) == 1)
			snprintf(dflt, sizeof(dflt), "%s", word);
		else if (sscanf(line, "model sb %15s", word) == 1)
			snprintf(sb, sizeof(sb), "%s", word);
		else if (sscanf(line, "recheck %15s", word) == 1)
			recheck = !strcmp(word, "on");
		else if (sscanf(line, "enforce %d", &enforce) == 1)
			continue;
	}
	free(text);
	return enforce == 1 && model_judges_posts(sb[0] ? sb : dflt, recheck);
}
