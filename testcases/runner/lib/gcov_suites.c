// SPDX-License-Identifier: GPL-2.0
/*
 * gcov_suites.c - make coverage's counters suite by suite.
 *
 * On a kernel with gcov (images/cov.config), a copy of every .gcda file of
 * /sys/kernel/debug/gcov is taken before the first suite (000-boot: the
 * boot and KUnit) and after each suite (NNN-SUITE), into
 * /tmp/gcov/suites/, which images/init.sh carries out of the guest with
 * the boot's own data.  The counters are never reset: each copy holds
 * what ran so far, and harness/coverage.py credits a line to the suites
 * during which its count grew (the suites a generated mutant of it runs
 * first: harness/mutants-gen.py).  Other kernels have no gcov directory,
 * and nothing is copied.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wl.h"

#define GCOV_DIR "/sys/kernel/debug/gcov"
#define SUITES_DIR "/tmp/gcov/suites"

static char dest[PATH_MAX];
static unsigned int copies;
static bool failed;

/* mkdir -p of @path's parent directories. */
static int make_parents(char *path)
{
	for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return 0;
}

/* debugfs reports the files' size as 0: read each to its end. */
static int copy_file(const char *from, char *to)
{
	char buf[65536];
	int in, out, ret = 0;
	ssize_t n;

	if (make_parents(to))
		return -1;
	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			ret = -1;
			break;
		}
	if (n < 0)
		ret = -1;
	close(in);
	close(out);
	return ret;
}

static int copy_gcda(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	char to[PATH_MAX];
	size_t len = strlen(path);

	(void)st;
	(void)ftw;
	if (type != FTW_F || len < 5 || strcmp(path + len - 5, ".gcda"))
		return 0;
	if (snprintf(to, sizeof(to), "%s%s", dest, path + strlen(GCOV_DIR)) >= (int)sizeof(to) ||
	    copy_file(path, to))
		failed = true;
	return 0;
}

/* One copy of the counters, named @name, after the copies before it. */
static void copy_counters(const char *name)
{
	if (access(GCOV_DIR, F_OK))
		return;
	snprintf(dest, sizeof(dest), "%s/%03u-%s", SUITES_DIR, copies++, name);
	failed = false;
	if (nftw(GCOV_DIR, copy_gcda, 16, FTW_PHYS) || failed)
		wl_diag("gcov: the counters after %s were not all copied", name);
}

static int copy_boot_counters(void)
{
	copy_counters("boot");
	return 0;
}

WL_REGISTER(gcov_suites_register)
{
	wl_register_init("copy the gcov counters of the boot", copy_boot_counters);
	wl_register_after_suite(copy_counters);
}
