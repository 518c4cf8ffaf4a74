// SPDX-License-Identifier: GPL-2.0
/*
 * suite_kmemleak.c - in the debug boot, after every other suite: the kernel
 * leaked nothing while the lab ran.  /init clears kmemleak's list before the
 * runner starts, so only objects allocated during the run are reported.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "wl.h"

#define KMEMLEAK "/sys/kernel/debug/kmemleak"

static bool kmemleak_present(void)
{
	return wl_debug_kernel();
}

static int kmemleak_cmd(const char *cmd)
{
	return wl_write_file(KMEMLEAK, cmd);
}

static enum wl_result no_leaks_during_run(void)
{
	char buf[8192], *line, *save;
	unsigned int leaks = 0, shown = 0;
	ssize_t n, len = 0;
	int fd;

	/* Objects younger than kmemleak's minimum age (5 s) are not reported. */
	sleep(6);
	WL_EXPECT(kmemleak_cmd("scan") == 0, "kmemleak scan failed");
	fd = open(KMEMLEAK, O_RDONLY);
	WL_EXPECT(fd >= 0, "open %s: %s", KMEMLEAK, strerror(errno));
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, "unreferenced object"))
			leaks++;
		if (leaks && shown < 24) {
			wl_diag("kmemleak: %s", line);
			shown++;
		}
	}
	WL_EXPECT(leaks == 0, "kmemleak reports %u leaked objects", leaks);
	return WL_PASS;
}

static const struct wl_test tests[] = {
	{ "no_leaks_during_run", no_leaks_during_run },
};

WL_SUITE(suite_kmemleak, tests, .applies = kmemleak_present,
	 .skip_reason = "no kmemleak in this kernel (the debug kernel has it)",
	 .stage = WL_STAGE_LAST);
