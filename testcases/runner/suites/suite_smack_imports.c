// SPDX-License-Identifier: GPL-2.0
/*
 * suite_smack_imports.c - Smack label imports that any user can cause do
 * not make watchpol resolve its policy again (issue 26, M4).
 *
 * In a user namespace of its own, any user can make Smack import a label:
 * fsconfig(FSCONFIG_SET_STRING, "smackfsdef", NAME) on a new tmpfs context
 * imports NAME before any privilege check (smack_add_opt()).  Each first
 * import is announced to the LSM chain (kernel-patches 0017).  Taken as a
 * policy change, each would make watchpol parse and resolve its whole
 * policy again (up to 256 KiB of text, under its policy mutex) and forget
 * the CAP_KILL answers it keeps: a storm on demand.  A Smack label, once
 * imported, never changes its secid, so a new one can only resolve rules
 * that named it and were unresolved: watchpol resolves again only for a
 * label its policy names and could not resolve.
 *
 * The test loads a policy with one rule naming a label nobody has imported
 * (unresolved_rules 1); uid 1000 imports IMPORTS other new labels, then
 * the rule's own.  Exactly one re-resolution must follow (label_resolves
 * counts them; the work item that runs them is never run twice at once, so
 * the count is complete once the rule has resolved), and the rule must be
 * resolved.  Before the fix every import scheduled one.  The figures
 * (imports, re-resolutions, wall time per import) are printed, not judged.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "watchpol_util.h"
#include "wl.h"

#define IMPORTS 256
#define IMPORTER_UID 1000
#define FSCONFIG_SET_STRING 1

struct imports {
	const char *prefix;	/* labels PREFIX0 .. PREFIX<n-1>, or PREFIX alone */
	unsigned int n;
};

/* Import one label as a tmpfs context's smackfsdef; 0 or -1 (diagnosed). */
static int import_label(const char *label)
{
	int fs = syscall(SYS_fsopen, "tmpfs", 0);
	int r;

	if (fs < 0) {
		wl_diag("fsopen: %s", strerror(errno));
		return -1;
	}
	r = syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "smackfsdef", label, 0);
	if (r)
		wl_diag("fsconfig smackfsdef=%s: %s", label, strerror(errno));
	close(fs);
	return r ? -1 : 0;
}

/* Child, as uid 1000 in a user and mount namespace of its own. */
static int importer(void *arg)
{
	const struct imports *im = arg;
	char label[64];

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS)) {
		wl_diag("unshare: %s", strerror(errno));
		return 1;
	}
	if (!im->n)
		return import_label(im->prefix) ? 1 : 0;
	for (unsigned int i = 0; i < im->n; i++) {
		snprintf(label, sizeof(label), "%s%u", im->prefix, i);
		if (import_label(label))
			return 1;
	}
	return 0;
}

static int run_importer(const char *prefix, unsigned int n)
{
	struct wl_creds c = wl_user(IMPORTER_UID);
	struct imports im = { .prefix = prefix, .n = n };

	return wl_run_as(&c, importer, &im);
}

static enum wl_result unprivileged_imports_cause_no_reresolution(void)
{
	char hit[32], others[32], text[128];
	long before, after, unresolved;
	uint64_t t0, ns;
	int r;

	/* Labels no earlier test (or run of this one) has imported. */
	snprintf(hit, sizeof(hit), "wlHit%ld", (long)getpid());
	snprintf(others, sizeof(others), "wlMiss%ldx", (long)getpid());
	snprintf(text, sizeof(text), "default none\npost %s wlW\n", hit);
	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	r = wp_write_policy_str(text);
	WL_EXPECT(r == 0, "load a rule for %s: %s", hit, strerror(-r));
	WL_EXPECT(wp_stat("unresolved_rules") == 1,
		  "the rule for %s, a label not imported yet, is not counted as unresolved", hit);
	before = wp_stat("label_resolves");

	t0 = wl_now_ns();
	r = run_importer(others, IMPORTS);
	ns = wl_now_ns() - t0;
	WL_EXPECT(r == 0, "uid %d could not import %d labels in a user namespace",
		  IMPORTER_UID, IMPORTS);
	WL_EXPECT(run_importer(hit, 0) == 0, "uid %d could not import %s", IMPORTER_UID, hit);
	for (int i = 0; i < 200 && wp_stat("unresolved_rules") != 0; i++)
		usleep(wl_slow_ms(50) * 1000);
	after = wp_stat("label_resolves");
	unresolved = wp_stat("unresolved_rules");
	wp_restore_policy();
	wl_diag("figure: %d label imports by uid %d in %.1f ms (%.1f us each); "
		"re-resolutions: %ld", IMPORTS + 1, IMPORTER_UID, ns / 1e6,
		ns / 1e3 / IMPORTS, after - before);
	WL_EXPECT(after - before == 1,
		  "%ld re-resolutions for %d imports of labels the policy does not name and "
		  "one it does: want 1", after - before, IMPORTS);
	WL_EXPECT(unresolved == 0, "the rule for %s is unresolved (%ld) after uid %d imported it",
		  hit, unresolved, IMPORTER_UID);
	return WL_PASS;
}

static const struct wl_test tests[] = {
	{ "unprivileged_imports_cause_no_reresolution",
	  unprivileged_imports_cause_no_reresolution },
};

static bool smack_imports_applies(void)
{
	return strcmp(wl_profile(), "smack") == 0 && wl_have_watchpol();
}

WL_SUITE_IF(suite_smack_imports, tests, smack_imports_applies);
