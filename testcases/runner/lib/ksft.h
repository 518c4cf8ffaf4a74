/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksft.h - a kernel kselftest binary run as one of the runner's suites.
 *
 * The binary is built from the patched tree and packed as /bin/NAME.  It
 * runs once, when the suite is counted; each of its results becomes one
 * test of the suite, with the kselftest's diagnostics, so they reach the
 * KTAP and JUnit like the rest.  A kselftest SKIP is a KTAP SKIP (WL_SKIP),
 * its reason a diagnostic: counted apart, never as a pass, and against the
 * suite's .skip_budget (core/wl.h).  On the host
 * (wlrun --list) the binary is $WATCHLAB_GUEST_BINDIR/NAME and only lists
 * its tests ("-l").
 */
#ifndef WL_KSFT_H
#define WL_KSFT_H

#include <stdbool.h>
#include <stddef.h>

#include "wl.h"

#define WL_KSFT_MAX 64

struct wl_ksft_result {
	char name[128];
	bool ok, skip;
	char *diag;		/* the "# " lines before the result */
};

struct wl_ksft {
	const char *bin;	/* the file name in /bin */
	bool ran;
	size_t nresults;
	size_t overflow;	/* results past WL_KSFT_MAX, which fail the last */
	struct wl_ksft_result results[WL_KSFT_MAX];
	char ran_diag[256];	/* why the run gave no result */
	char ran_name[64];	/* the one test a run without results reports */
};

size_t wl_ksft_count(struct wl_ksft *k);
const char *wl_ksft_name(struct wl_ksft *k, size_t i);
enum wl_result wl_ksft_run(struct wl_ksft *k, size_t i);

/*
 * WL_KSFT_SUITE(suite_x, "binary"[, more fields]): the suite that runs
 * /bin/binary, e.g. with .skip_budget = 2.
 */
#define WL_KSFT_SUITE(sname, binary, ...)				\
	static struct wl_ksft sname##_ksft = { .bin = binary };		\
	static size_t sname##_count(void)				\
	{								\
		return wl_ksft_count(&sname##_ksft);			\
	}								\
	static const char *sname##_name(size_t i)			\
	{								\
		return wl_ksft_name(&sname##_ksft, i);			\
	}								\
	static enum wl_result sname##_run(size_t i)			\
	{								\
		return wl_ksft_run(&sname##_ksft, i);			\
	}								\
	static const struct wl_dynamic sname##_dynamic = {		\
		.count = sname##_count, .name = sname##_name,		\
		.run = sname##_run,					\
	};								\
	WL_SUITE_DEFINE(sname, .dynamic = &sname##_dynamic, __VA_ARGS__)

#endif
