/* SPDX-License-Identifier: GPL-2.0 */
/*
 * watchpol_util.h - watchpol's securityfs files, for the suites that read
 * and set its policy (suite_watchpol.c, suite_watchpol_bench.c).
 */
#ifndef WL_WATCHPOL_UTIL_H
#define WL_WATCHPOL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "wl.h"

#define WP_DIR WL_WATCHPOL_DIR
#define WP_POLICY WP_DIR "/policy"
#define WP_STATS WP_DIR "/stats"
#define WP_LOG WP_DIR "/log"
#define WP_LOCK WP_DIR "/lock"

#define WP_MAX_TEXT 65536

/* One write(2) of the whole text; 0 or -errno (-EIO for a short write). */
int wp_write_one(const char *path, const char *text, size_t len);

/*
 * Replace the policy: the text in writes of at most chunk bytes (0: one
 * write), then an end line unless its last statement is one, then close;
 * 0 or the first -errno of a write or of close().
 */
int wp_write_policy_chunked(const char *text, size_t len, size_t chunk);
int wp_write_policy(const char *text, size_t len);
int wp_write_policy_str(const char *text);

/* The policy in force, malloc'd; NULL (diagnosed) on error. */
char *wp_read_policy(void);

/*
 * Save the policy in force, and put it back: a test that sets policies
 * calls wp_save_policy() first and wp_restore_policy() before it ends.
 */
bool wp_save_policy(void);
bool wp_restore_policy(void);

/*
 * Read (and so consume) the decision log, up to 4 MiB: under an event
 * storm it never runs dry.  A malloc'd string, or NULL (diagnosed).
 * The first call opens the log and keeps it open: watchpol records post
 * decisions only while a reader holds it open (lsm/README.md), so every
 * post from then on is in the next drain.  wp_log_detach() closes it.
 */
char *wp_drain_log(void);
void wp_log_detach(void);

/* The number of lines of a drained log that hold every word of @words (NULL-ended). */
unsigned int wp_log_lines_with(const char *log, const char *const *words);

/* The value of one counter of watchpol's stats ("label_resolves"), or -1. */
long wp_stat(const char *name);

/*
 * Does the policy in force, read back from watchpol/policy, judge each post
 * of a superblock event and enforce the verdict ("model sb", else
 * "default", is schaufler or strict, or watcher with "recheck on";
 * "enforce 1")?  Then watchpol refuses every query for a superblock's
 * notification counter (lsm/hooks.c watch_decide()).  false without a
 * policy, or when it cannot be read (diagnosed).
 */
bool wp_sb_posts_judged(void);

#endif /* WL_WATCHPOL_UTIL_H */
