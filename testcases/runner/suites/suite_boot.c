// SPDX-License-Identifier: GPL-2.0
/*
 * suite_boot.c - the boot itself: the LSMs that are active match the
 * profile the host asked for (passed as watchlab.lsm= on the command line).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "wl.h"

static enum wl_result lsm_list_matches_profile(void)
{
	char want[256], got[256];
	ssize_t n;
	int fd;

	WL_EXPECT(wl_cmdline("watchlab.lsm", want, sizeof(want)),
		  "the host passed no watchlab.lsm= for profile %s", wl_profile());
	fd = open("/sys/kernel/security/lsm", O_RDONLY);
	WL_EXPECT(fd >= 0, "open /sys/kernel/security/lsm: %s", strerror(errno));
	n = read(fd, got, sizeof(got) - 1);
	close(fd);
	WL_EXPECT(n > 0, "read /sys/kernel/security/lsm: %s", strerror(errno));
	got[n] = '\0';
	got[strcspn(got, "\n")] = '\0';
	wl_diag("profile %s: active LSMs %s", wl_profile(), got);
	WL_EXPECT(strcmp(got, want) == 0, "profile %s wants LSMs %s, kernel has %s",
		  wl_profile(), want, got);
	return WL_PASS;
}

static const struct wl_test tests[] = {
	{ "lsm_list_matches_profile", lsm_list_matches_profile },
};

WL_SUITE(suite_boot, tests, .stage = WL_STAGE_FIRST, .byo = true);
