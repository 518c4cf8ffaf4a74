// SPDX-License-Identifier: GPL-2.0
/*
 * io.c - the runner's one way to read and write the small files of /proc,
 * /sys and securityfs, to run a shell command and to check an errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <unistd.h>

#include "wl.h"

int wl_try_write(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -1;
	n = write(fd, buf, len);
	err = n < 0 ? errno : EIO;
	/* A file may refuse what was written only at close (watchpol's policy). */
	if (close(fd) && n == (ssize_t)len) {
		err = errno;
		n = -1;
	}
	if (n == (ssize_t)len)
		return 0;
	errno = err;
	return -1;
}

int wl_write_file(const char *path, const char *text)
{
	int err;

	if (wl_try_write(path, text, strlen(text)) == 0)
		return 0;
	err = errno;
	wl_diag("write '%s' to %s: %s", text, path, strerror(err));
	errno = err;
	return -1;
}

ssize_t wl_try_read(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -1;
	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	err = errno;
	close(fd);
	if (n < 0) {
		errno = err;
		return -1;
	}
	buf[len] = '\0';
	return len;
}

ssize_t wl_read_file(const char *path, char *buf, size_t size)
{
	ssize_t n = wl_try_read(path, buf, size);
	int err = errno;

	if (n < 0) {
		wl_diag("read %s: %s", path, strerror(err));
		errno = err;
	}
	return n;
}

int wl_sh(const char *cmd)
{
	int r = system(cmd);

	if (r != 0)
		wl_diag("'%s' exited with %d", cmd, r);
	return r ? -1 : 0;
}

int wl_want_errno(const char *what, long r, int want)
{
	int got = r < 0 ? errno : 0;

	if (got == want && (!want || r == -1))
		return 0;
	wl_diag("%s: returned %ld (%s), want %s", what, r, got ? strerror(got) : "success",
		want ? strerror(want) : "success");
	return -1;
}

long wl_klog_count(const char *needle)
{
	size_t size = 1 << 20, n_needle = strlen(needle);
	char *klog = malloc(size);
	const char *at;
	long count = 0;
	int n;

	if (!klog) {
		wl_diag("no memory for the kernel log");
		return -1;
	}
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, klog, size - 1);
	if (n < 0) {
		wl_diag("klogctl: %s", strerror(errno));
		free(klog);
		return -1;
	}
	klog[n] = '\0';
	for (at = strstr(klog, needle); at; at = strstr(at + n_needle, needle))
		count++;
	free(klog);
	return count;
}
