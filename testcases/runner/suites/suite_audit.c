// SPDX-License-Identifier: GPL-2.0
/*
 * suite_audit - watchpol's decisions through the kernel's audit.
 *
 * The runner becomes the audit daemon for a window (lib/evidence.c) and
 * reads what watchpol records there: policy loads and rejections
 * (AUDIT_MAC_POLICY_LOAD), enforce changes (AUDIT_MAC_STATUS) and
 * denials (AUDIT_AVC, "lsm=watchpol").  Loads and denials are rate-limited
 * in the kernel (a burst of 20 loads and 10 denials per 5 s), so the suite
 * runs first, before the other suites' loads use up the burst.  The debug
 * kernel has no CONFIG_AUDIT.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "evidence.h"
#include "scenario_run.h"
#include "watchpol_util.h"
#include "wl.h"

static bool audit_applies(void)
{
	return wl_have_watchpol() && !wl_debug_kernel();
}

/* The whole line of the window's audit text that holds every one of want[]. */
static bool has_record(const struct wl_evidence *ev, const char *const *want, size_t n)
{
	for (const char *l = ev->audit_text; *l; ) {
		size_t len = strcspn(l, "\n");
		size_t hit = 0;
		char line[1024];

		snprintf(line, sizeof(line), "%.*s", (int)len, l);
		for (size_t i = 0; i < n; i++)
			hit += strstr(line, want[i]) != NULL;
		if (hit == n)
			return true;
		l += len + (l[len] == '\n');
	}
	return false;
}

#define EXPECT_RECORD(ev, ...)							\
	do {									\
		static const char *const want_[] = { __VA_ARGS__ };		\
		WL_EXPECT(has_record(ev, want_, WL_ARRAY_SIZE(want_)),		\
			  "no audit record with %s ...; the window had:\n%s",	\
			  want_[1], (ev)->audit_text);				\
	} while (0)

/*
 * Loads, a rejection, an enforce change and a post-time denial each leave
 * an audit record naming watchpol, with the fields lsm/README.md lists.
 * key-update-other-uid under strict: uid 1001 updates its key, uid 1000's
 * watch is refused the record.
 */
static enum wl_result audit_records_changes_and_denials(void)
{
	static const char path[] = "/etc/watchlab/scenarios/keys.scn";
	static struct wl_evidence ev;
	const struct scenario *s = NULL;
	struct scn_set set = { 0 };
	unsigned int v[4];
	char err[256];
	int watch_err = 0, r;
	enum scn_result got;

	WL_EXPECT(!scn_parse_file(&set, path, err, sizeof(err)), "%s", err);
	for (size_t i = 0; i < set.n; i++)
		if (!strcmp(set.v[i].name, "key-update-other-uid"))
			s = &set.v[i];
	WL_EXPECT(s, "%s has no scenario key-update-other-uid", path);
	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	WL_EXPECT(wl_evidence_begin(&ev) == 0 && ev.audit >= 0,
		  "no audit window: is CONFIG_AUDIT on?");
	r = wp_write_policy_str("default none\nenforce 0\n");
	WL_EXPECT(r == 0, "load enforce 0: %s", strerror(-r));
	r = wp_write_policy_str("default strict\nenforce 1\n");
	WL_EXPECT(r == 0, "load strict: %s", strerror(-r));
	r = wp_write_policy_str("default nosuchmodel\n");
	WL_EXPECT(r == -EINVAL, "a bad policy loaded (%s)", strerror(-r));
	WL_EXPECT(scn_variant_list(s, v, 4) > 0, "key-update-other-uid has no variant");
	got = scn_run(s, v[0], &ev, &watch_err);
	wl_evidence_end(&ev);
	scn_set_free(&set);
	WL_EXPECT(wp_restore_policy(), "could not restore the policy");
	WL_EXPECT(got == SCN_BLOCKED, "key-update-other-uid under strict: %s",
		  scn_result_name(got));
	EXPECT_RECORD(&ev, "lsm=watchpol", "op=load", "default=strict", "enforce=1",
		      "kernel_events=allow", "rules=0", "auid=", "res=1");
	EXPECT_RECORD(&ev, "lsm=watchpol", "enforcing=1 old_enforcing=0", "res=1");
	EXPECT_RECORD(&ev, "lsm=watchpol", "op=load line=1", "reason=", "res=0");
	EXPECT_RECORD(&ev, "lsm=watchpol", "hook=post_notification", "type=key",
		      "w_uid=1000", "t_uid=1001", "model=strict", "verdict=deny",
		      "result=deny");
	return WL_PASS;
}

static const struct wl_test tests[] = {
	{ "audit_records_changes_and_denials", audit_records_changes_and_denials },
};

WL_SUITE(suite_audit, tests, .stage = WL_STAGE_FIRST, .applies = audit_applies,
	 .skip_reason = "no watchpol, or the debug kernel (no CONFIG_AUDIT)");
