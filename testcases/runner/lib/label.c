// SPDX-License-Identifier: GPL-2.0
/*
 * label.c - watchlab's abstract labels: look them up in /etc/watchlab/labels
 * and switch the calling process to them under the boot's major LSM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <selinux/selinux.h>

#include "label.h"
#include "wl.h"

enum wl_lsm { WL_LSM_NONE, WL_LSM_SELINUX, WL_LSM_SMACK };

static enum wl_lsm profile_lsm(void)
{
	const char *p = wl_profile();

	if (!strcmp(p, "selinux"))
		return WL_LSM_SELINUX;
	if (!strcmp(p, "smack"))
		return WL_LSM_SMACK;
	return WL_LSM_NONE;
}

/* Parse one line of the labels file; 1: it is name's, 0: another's, -1: bad. */
static int parse_line(char *line, const char *name, char *buf, size_t len)
{
	char *save, *fields[3], *extra;
	int col = profile_lsm() == WL_LSM_SELINUX ? 1 : 2;

	line[strcspn(line, "#\n")] = '\0';
	fields[0] = strtok_r(line, " \t", &save);
	if (!fields[0])
		return 0;
	fields[1] = strtok_r(NULL, " \t", &save);
	fields[2] = strtok_r(NULL, " \t", &save);
	extra = strtok_r(NULL, " \t", &save);
	if (!fields[2] || extra)
		return -1;
	if (strcmp(fields[0], name))
		return 0;
	if (profile_lsm() == WL_LSM_NONE) {
		buf[0] = '\0';
		return 1;
	}
	if (strlen(fields[col]) >= len)
		return -1;
	strcpy(buf, fields[col]);
	return 1;
}

int wl_label_lookup(const char *abstract_name, char *buf, size_t len)
{
	unsigned int lineno = 0;
	char line[512];
	int r = 0;
	FILE *f;

	f = fopen(WL_LABELS_FILE, "re");
	if (!f) {
		wl_diag("open %s: %s", WL_LABELS_FILE, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		r = parse_line(line, abstract_name, buf, len);
		if (r)
			break;
	}
	fclose(f);
	if (r < 0) {
		wl_diag("%s:%u: malformed (want: name selinux-context smack-label)",
			WL_LABELS_FILE, lineno);
		errno = EINVAL;
		return -1;
	}
	if (r == 0) {
		wl_diag("%s: no label named \"%s\"", WL_LABELS_FILE, abstract_name);
		errno = ENOENT;
		return -1;
	}
	return 0;
}

int wl_smack_enter(const char *label)
{
	return wl_write_file("/proc/self/attr/smack/current", label);
}

int wl_smack_rule(const char *subj, const char *obj, const char *access)
{
	/* Two labels of up to SMK_LONGLABEL - 1 bytes, an access string. */
	char rule[2 * 256 + 16];
	int n = snprintf(rule, sizeof(rule), "%s %s %s", subj, obj, access);

	if (n < 0 || (size_t)n >= sizeof(rule)) {
		wl_diag("Smack rule %s %s %s: too long", subj, obj, access);
		errno = ENAMETOOLONG;
		return -1;
	}
	return wl_write_file(WL_SMACK_LOAD2, rule);
}

/*
 * Switch to the abstract label now (exec false) or at the next execve()
 * (exec true: setexeccon() under SELinux; Smack has no exec context, so
 * the task is relabelled at once and keeps the label across exec).
 */
static int label_switch(const char *abstract_name, bool exec)
{
	char label[256];

	if (wl_label_lookup(abstract_name, label, sizeof(label)))
		return -1;
	switch (profile_lsm()) {
	case WL_LSM_SELINUX:
		if (exec ? setexeccon(label) : setcon(label)) {
			int saved = errno;

			wl_diag("%s(%s) for label %s: %s", exec ? "setexeccon" : "setcon",
				label, abstract_name, strerror(saved));
			errno = saved;
			return -1;
		}
		return 0;
	case WL_LSM_SMACK:
		return wl_smack_enter(label);
	case WL_LSM_NONE:
		break;
	}
	return 0;
}

int wl_label_enter(const char *abstract_name)
{
	return label_switch(abstract_name, false);
}

int wl_label_exec(const char *abstract_name)
{
	return label_switch(abstract_name, true);
}

int wl_label_current(char *buf, size_t len)
{
	ssize_t n;
	int fd, saved;

	fd = open("/proc/self/attr/current", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	saved = errno;
	close(fd);
	if (n < 0) {
		errno = saved;
		return -1;
	}
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\0'))
		n--;
	buf[n] = '\0';
	return n;
}
