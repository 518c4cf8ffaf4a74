// SPDX-License-Identifier: GPL-2.0
/*
 * suite_evidence - the evidence reader (lib/evidence.c) on doctored records.
 *
 * A scenario's blocked cell names who refused it from the records of its
 * window.  A record counts only if it names the scenario's W (uid, and the
 * label in a labelled profile) and, for a refused watch, the object's watch
 * hook; a watch is the kernel's only when no LSM recorded a decision on it.
 * These tests feed the reader records it must reject (another watcher's,
 * another hook's, another domain's audit denial) beside the one it must
 * take, with no kernel in the loop: the reader alone is under test.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "evidence.h"
#include "wl.h"

#define REC(hook, type, sub, wuid, wlabel, tuid, result)			\
	"seq=1 hook=" hook " type=" type " subtype=" sub " w_uid=" wuid	\
	" w_label=" wlabel " t_uid=" tuid " t_label=- o_label=- none=allow"	\
	" watcher=" result " schaufler=" result " strict=" result		\
	" model=strict verdict=" result " result=" result " enforce=1\n"

static struct wl_evidence ev;

/* W: uid 1000 labelled wlW, watching a key. */
static const struct wl_evidence_parties w_key = {
	.hook = "watch_key", .nw = 1, .w_uid = { 1000 }, .w_label = { "wlW" },
};

static void window(const char *log, const char *audit)
{
	memset(&ev, 0, sizeof(ev));
	ev.audit = -1;
	snprintf(ev.log, sizeof(ev.log), "%s", log);
	ev.loglen = strlen(ev.log);
	snprintf(ev.audit_text, sizeof(ev.audit_text), "%s", audit);
	ev.auditlen = strlen(ev.audit_text);
}

/* Where the reader says a blocked event stopped; "!" before it: unexplained. */
static const char *where(int step_err, const char *type, unsigned int subtype)
{
	static char buf[200];
	char out[160];
	bool ok = wl_evidence_blocked(&ev, &w_key, "watch", step_err, type, subtype,
				      out, sizeof(out));

	snprintf(buf, sizeof(buf), "%s%s", ok ? "" : "!", out);
	return buf;
}

/* In a bring-your-own-LSM boot, STEP:LSM instead of @otherwise. */
static const char *byo(const char *step, const char *otherwise)
{
	static char buf[64];

	if (!wl_byo_lsm())
		return otherwise;
	snprintf(buf, sizeof(buf), "%s%s", step, wl_byo_lsm());
	return buf;
}

#define WANT(got, want) WL_EXPECT(strcmp((got), (want)) == 0, "got '%s', want '%s'", \
				  (got), (want))

/* A refused post of the same type and subtype to another watcher is not W's. */
static enum wl_result post_record_of_another_watch(void)
{
	window(REC("post_notification", "key", "1", "1002", "wlB", "1001", "deny"), "");
	WANT(where(0, "key", 1), "not-posted");
	window(REC("post_notification", "key", "1", "1000", "wlB", "1001", "deny"), "");
	WANT(where(0, "key", 1), "not-posted");	/* W's uid, another label */
	window(REC("post_notification", "key", "2", "1000", "wlW", "1001", "deny"), "");
	WANT(where(0, "key", 1), "not-posted");	/* W, another subtype */
	window(REC("post_notification", "key", "1", "1000", "wlW", "1001", "deny"), "");
	WANT(where(0, "key", 1), "post:watchpol");
	return WL_PASS;
}

/* watch:kernel only when no LSM recorded a decision on W's watch. */
static enum wl_result watch_kernel_needs_no_record(void)
{
	window("", "");
	WANT(where(EACCES, "key", 1), "watch:kernel");
	/* Another watcher's refusal, and W's on another hook, are not this watch's. */
	window(REC("watch_key", "key", "0", "1002", "wlW", "-", "deny")
	       REC("watch_mount", "mount", "0", "1000", "wlW", "-", "deny"), "");
	WANT(where(EACCES, "key", 1), "watch:kernel");
	window(REC("watch_key", "key", "0", "1000", "wlW", "-", "deny"), "");
	WANT(where(EACCES, "key", 1), "watch:watchpol");
	/*
	 * watchpol allowed W's watch, nobody recorded a denial: not the
	 * kernel's; a brought LSM's (it runs after watchpol), or unexplained.
	 */
	window(REC("watch_key", "key", "0", "1000", "wlW", "-", "allow"), "");
	WANT(where(EACCES, "key", 1), byo("watch:",
	     "!unexplained: the watch was refused (Permission denied) after watchpol "
	     "allowed it, and no LSM recorded a denial"));
	return WL_PASS;
}

/* An audit denial counts only if it names W where the LSM puts it. */
static enum wl_result audit_denial_of_another_party(void)
{
	static const struct wl_evidence_parties w_se = {
		.hook = "watch_mount", .nw = 1, .w_uid = { 1000 },
		.w_label = { "system_u:system_r:wl_watcher_t:s0" },
	};
	char out[160];

	window("", "avc:  denied  { watch_mount } for  pid=9 comm=\"wlrun\" "
	       "scontext=system_u:system_r:wl_bystander_t:s0 "
	       "tcontext=system_u:object_r:wl_object_t:s0 tclass=dir permissive=0\n");
	WL_EXPECT(wl_evidence_blocked(&ev, &w_se, "watch", EACCES, "mount", 0, out, sizeof(out)),
		  "%s", out);
	WANT(out, "watch:kernel");
	window("", "avc:  denied  { watch_mount } for  pid=9 comm=\"wlrun\" "
	       "scontext=system_u:system_r:wl_watcher_t:s0 "
	       "tcontext=system_u:object_r:wl_object_t:s0 tclass=dir permissive=0\n");
	WL_EXPECT(wl_evidence_blocked(&ev, &w_se, "watch", EACCES, "mount", 0, out, sizeof(out)),
		  "%s", out);
	WANT(out, "watch:selinux");
	/* Smack's post denial names W as the object T may not write. */
	window(REC("post_notification", "key", "1", "1000", "wlW", "1001", "allow"),
	       "lsm=SMACK fn=smack_post_notification action=denied subject=\"wlB\" "
	       "object=\"wlX\" requested=w pid=9\n");
	WANT(where(0, "key", 1), byo("post:", "!unexplained: 1 post(s) of key/1 allowed by "
				    "every LSM, none delivered"));
	window(REC("post_notification", "key", "1", "1000", "wlW", "1001", "allow"),
	       "lsm=SMACK fn=smack_post_notification action=denied subject=\"wlB\" "
	       "object=\"wlW\" requested=w pid=9\n");
	WANT(where(0, "key", 1), "post:smack");
	return WL_PASS;
}

/*
 * SELinux has no post hook: an AVC denial naming W, in the window of a
 * post watchpol allowed, did not refuse that post (it is some read or
 * watch of W's), and the cell stays unexplained rather than post:selinux.
 */
static enum wl_result selinux_denial_is_no_post_refusal(void)
{
	window(REC("post_notification", "key", "1", "1000", "wlW", "1001", "allow"),
	       "avc:  denied  { view } for  pid=9 comm=\"wlrun\" scontext=wlW "
	       "tcontext=wlO tclass=key permissive=0\n");
	WANT(where(0, "key", 1), byo("post:", "!unexplained: 1 post(s) of key/1 allowed by "
				    "every LSM, none delivered"));
	return WL_PASS;
}

static const struct wl_test tests[] = {
	{ "post_record_of_another_watch", post_record_of_another_watch },
	{ "watch_kernel_needs_no_record", watch_kernel_needs_no_record },
	{ "audit_denial_of_another_party", audit_denial_of_another_party },
	{ "selinux_denial_is_no_post_refusal", selinux_denial_is_no_post_refusal },
};

WL_SUITE(suite_evidence, tests);
