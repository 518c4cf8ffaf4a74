// SPDX-License-Identifier: GPL-2.0
/*
 * suite_early - what only a boot with an unusual start can show.
 *
 * The boot (harness/run-profile.sh with watchlab.early=1, made by `make
 * test` as the "selinux-early" boot) starts with a bad watchpol.model=, and
 * the guest's /init, before it loads the SELinux policy:
 *   - saves the policy watchpol booted with to WL_EARLY_BOOT_POLICY;
 *   - writes a watchpol policy (default none, post_dac off, the lab's label
 *     rules) while every SELinux context still resolves to the kernel SID.
 * Nothing else runs in this boot (watchlab.suites=suite_early), so the
 * early policy is still the one in force when these tests run.  The boot
 * also gives fput_creds=0, the boot parameter of kernel-patches 0002.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/wait.h>
#include <unistd.h>

#include "evidence.h"
#include "scenario_run.h"
#include "watchpol_util.h"
#include "wl.h"

#define WL_EARLY_BOOT_POLICY "/tmp/watchpol-boot.policy"
/* As vfs_util.h's WL_FPUT_SYSCTL (which needs _GNU_SOURCE). */
#define FPUT_SYSCTL "/proc/sys/fs/fput_creds"
/* The SELinux policy /init loads, and the same without wl_spare_t. */
#define SELINUX_POLICY "/etc/watchlab/selinux/policy.bin"
#define SELINUX_POLICY_NO_SPARE "/etc/watchlab/selinux/policy-no-spare.bin"
#define SPARE_LABEL "system_u:system_r:wl_spare_t:s0"

static bool early_boot(void)
{
	char v[8];

	return wl_cmdline("watchlab.early", v, sizeof(v)) && !strcmp(v, "1");
}

/*
 * A bad watchpol.model= fails safe: the boot policy is "default strict"
 * with "kernel_events deny", and the kernel log says why.  A kernel that
 * ignored the bad value would boot with "default none".
 */
static enum wl_result bad_boot_model_fails_safe(void)
{
	static char text[4096], klog[1 << 20];
	int n;

	WL_EXPECT(wl_try_read(WL_EARLY_BOOT_POLICY, text, sizeof(text)) > 0,
		  "read %s (saved by /init): %s", WL_EARLY_BOOT_POLICY, strerror(errno));
	WL_EXPECT(strstr(text, "default strict\n") && strstr(text, "kernel_events deny\n") &&
		  strstr(text, "enforce 1\n"),
		  "booted with a bad watchpol.model=, the policy was\n%s", text);
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, klog, sizeof(klog) - 1);
	WL_EXPECT(n >= 0, "klogctl: %s", strerror(errno));
	klog[n] = '\0';
	WL_EXPECT(strstr(klog, "watchpol: bad watchpol.model=") &&
		  strstr(klog, "failing safe to \"default strict\""),
		  "the kernel log does not say the boot model was bad");
	return WL_PASS;
}

/* The rule lines of rules-selinux.policy must be in the policy in force. */
static int early_policy_in_force(void)
{
	static char text[65536];

	if (wl_try_read(WP_POLICY, text, sizeof(text)) <= 0) {
		wl_diag("read %s: %s", WP_POLICY, strerror(errno));
		return -1;
	}
	if (!strstr(text, "default none\n") || !strstr(text, "post_dac off\n") ||
	    !strstr(text, "\npost system_u:system_r:wl_triggerer_t:s0 "
			  "system_u:system_r:wl_watcher_t:s0\n")) {
		wl_diag("the early policy is not in force:\n%s", text);
		return -1;
	}
	return 0;
}

/*
 * Run key-update-label-rule (T wl_triggerer_t, W wl_watcher_t, O
 * wl_object_t, one uid) under the early policy: its model is none, so the
 * event arrives whatever the rules; the decision log's shadow verdicts say
 * whether the rules matched: watcher (a watch rule W -> O) and schaufler
 * (a post rule T -> W, post_dac off) must both allow.  Rules resolved
 * before the SELinux policy loaded name the kernel SID and match neither.
 */
static int rules_match(const char *when)
{
	static const char path[] = "/etc/watchlab/scenarios/keys.scn";
	static struct wl_evidence ev;
	const struct scenario *s = NULL;
	struct scn_set set = { 0 };
	char err[256];
	int watch_err = 0, bad = 0;
	enum scn_result got;
	const char *w, *p;

	if (scn_parse_file(&set, path, err, sizeof(err))) {
		wl_diag("%s", err);
		return -1;
	}
	for (size_t i = 0; i < set.n; i++)
		if (!strcmp(set.v[i].name, "key-update-label-rule"))
			s = &set.v[i];
	if (!s || wl_evidence_begin(&ev)) {
		wl_diag("no scenario key-update-label-rule in %s, or no evidence window", path);
		scn_set_free(&set);
		return -1;
	}
	got = scn_run(s, 0, &ev, &watch_err);
	wl_evidence_end(&ev);
	scn_set_free(&set);
	w = strstr(ev.log, "hook=watch_key");
	p = strstr(ev.log, "hook=post_notification type=key");
	if (got != SCN_DELIVERED) {
		wl_diag("%s: key-update-label-rule %s under model none", when, scn_result_name(got));
		bad = 1;
	}
	if (!w || !strstr(w, " watcher=allow ") || (p && w > p)) {
		wl_diag("%s: the watch rule W -> O did not match: %.*s", when,
			w ? (int)strcspn(w, "\n") : 0, w ? w : "");
		bad = 1;
	}
	if (!p || !strstr(p, " schaufler=allow ")) {
		wl_diag("%s: the post rule T -> W did not match: %.*s", when,
			p ? (int)strcspn(p, "\n") : 0, p ? p : "");
		bad = 1;
	}
	return bad ? -1 : 0;
}

static long label_resolves(void)
{
	return wp_stat("label_resolves");
}

/*
 * The early policy's rule naming wl_no_such_t resolved before SELinux
 * loaded (every context did) and names no type after: it alone must be
 * unresolved, counted, and named in the kernel log, while every other
 * rule resolves again (review L2: one such label froze them all).
 */
static int one_rule_unresolved(const char *when)
{
	static char klog[1 << 20];
	long u = wp_stat("unresolved_rules");
	int n;

	if (u != 1) {
		wl_diag("%s: stats unresolved_rules %ld, want 1 (the wl_no_such_t rule)", when, u);
		return -1;
	}
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, klog, sizeof(klog) - 1);
	klog[n > 0 ? n : 0] = '\0';
	if (!strstr(klog, "wl_no_such_t")) {
		wl_diag("%s: the kernel log does not name the label that no longer resolves", when);
		return -1;
	}
	return 0;
}

static int load_selinux(void *path)
{
	execl("/bin/wl-selinux-load", "wl-selinux-load", (const char *)path, (char *)NULL);
	wl_diag("exec wl-selinux-load: %s", strerror(errno));
	return 127;
}

/*
 * Load the SELinux policy at @path and wait for watchpol to resolve its
 * rules again (stats' label_resolves moves): 0, -1 if the load failed, -2
 * if no re-resolution came.
 */
static int load_and_resolve(const char *path)
{
	long before = label_resolves();

	if (wl_reap(wl_spawn(load_selinux, (void *)path), "wl-selinux-load"))
		return -1;
	for (int i = 0; i < 200 && label_resolves() <= before; i++)
		usleep(wl_slow_ms(50) * 1000);
	return label_resolves() > before ? 0 : -2;
}

/* Reload the policy /init loaded. */
static int reload_and_resolve(void)
{
	return load_and_resolve(SELINUX_POLICY);
}

/* Remove from @text, in place, every line that contains @word. */
static void drop_lines_naming(char *text, const char *word)
{
	for (char *l = text, *nl; *l; l = nl) {
		char *hit = strstr(l, word);

		nl = strchr(l, '\n');
		nl = nl ? nl + 1 : l + strlen(l);
		if (hit && hit < nl) {
			memmove(l, nl, strlen(nl) + 1);
			nl = l;
		}
	}
}

/*
 * A watchpol policy written before the SELinux policy (every context then
 * resolves to the kernel SID) matches once SELinux is up, and again after
 * SELinux reloads its policy: watchpol resolves its rules again on every
 * LSM_POLICY_CHANGE (in a work item; stats' label_resolves counts them).
 */
static enum wl_result rules_follow_selinux_loads(void)
{
	char *text;
	int held, r;

	WL_EXPECT(early_policy_in_force() == 0, "the policy /init wrote is not in force");
	WL_EXPECT(rules_match("after the first SELinux load") == 0,
		  "rules written before the SELinux policy do not match");
	WL_EXPECT(label_resolves() >= 1,
		  "stats: no label re-resolution since the SELinux policy loaded");
	WL_EXPECT(one_rule_unresolved("after the first SELinux load") == 0,
		  "a label that no longer resolves is not handled alone");
	r = reload_and_resolve();
	WL_EXPECT(r != -1, "reload the SELinux policy");
	WL_EXPECT(r == 0, "no label re-resolution after the SELinux reload");
	WL_EXPECT(early_policy_in_force() == 0, "the early policy is no longer in force");
	WL_EXPECT(rules_match("after an SELinux reload") == 0,
		  "rules do not match after the SELinux policy reloaded");
	WL_EXPECT(one_rule_unresolved("after an SELinux reload") == 0,
		  "a label that no longer resolves is not handled alone after a reload");

	/*
	 * Last, as it changes the policy: the policy in force without its
	 * wl_no_such_t rule (a write must name labels that resolve), written
	 * whole on a file held open across a second reload.  Parsed against
	 * the SELinux policy before it, it is resolved again when its close
	 * puts it in force (policy_install()), and its rules match.
	 */
	text = wp_read_policy();
	WL_EXPECT(text, "read the policy in force: %s", strerror(errno));
	drop_lines_naming(text, "wl_no_such_t");
	held = open(WP_POLICY, O_WRONLY | O_CLOEXEC);
	WL_EXPECT(held >= 0, "open %s: %s", WP_POLICY, strerror(errno));
	WL_EXPECT(write(held, text, strlen(text)) == (ssize_t)strlen(text),
		  "write the policy in force again:\n%s\n%s", text, strerror(errno));
	free(text);
	r = reload_and_resolve();
	WL_EXPECT(r != -1, "reload the SELinux policy again");
	WL_EXPECT(r == 0, "no label re-resolution after the second reload");
	WL_EXPECT(close(held) == 0, "close the text written before the second reload: %s",
		  strerror(errno));
	WL_EXPECT(early_policy_in_force() == 0, "the text closed after the reload is not in force");
	WL_EXPECT(wp_stat("unresolved_rules") == 0, "stats unresolved_rules %ld, want 0",
		  wp_stat("unresolved_rules"));
	WL_EXPECT(rules_match("after a text closed across a reload") == 0,
		  "rules do not match after a text closed across a reload");
	return WL_PASS;
}

/*
 * A text held open across an SELinux load that drops a type one of its
 * rules names: its close parses it again against the policy now loaded
 * (policy_install()), so it is refused, EINVAL, and the policy in force
 * stays as it was.  Put in force with the secids it was parsed with, the
 * rule would name a type no SELinux policy has.  Then the full SELinux
 * policy again, under which the rules match as before.
 */
static enum wl_result held_text_loses_a_type(void)
{
	static const char spare[] = "post " SPARE_LABEL " system_u:system_r:wl_watcher_t:s0\n";
	char *before, *with, *after, *end;
	long rejects;
	int held, r, closed, err;

	before = wp_read_policy();
	WL_EXPECT(before, "read the policy in force: %s", strerror(errno));
	end = strstr(before, "\nend\n");
	WL_EXPECT(end, "the policy in force has no end line:\n%s", before);
	with = malloc(strlen(before) + sizeof(spare));
	WL_EXPECT(with, "malloc");
	/* The rule goes before the end line. */
	memcpy(with, before, end + 1 - before);
	strcpy(with + (end + 1 - before), spare);
	strcat(with, end + 1);
	drop_lines_naming(with, "wl_no_such_t");
	held = open(WP_POLICY, O_WRONLY | O_CLOEXEC);
	WL_EXPECT(held >= 0, "open %s: %s", WP_POLICY, strerror(errno));
	WL_EXPECT(write(held, with, strlen(with)) == (ssize_t)strlen(with),
		  "write a text naming %s while it resolves:\n%s\n%s", SPARE_LABEL, with,
		  strerror(errno));
	free(with);
	r = load_and_resolve(SELINUX_POLICY_NO_SPARE);
	WL_EXPECT(r != -1, "load the SELinux policy without wl_spare_t");
	WL_EXPECT(r == 0, "no label re-resolution after loading the policy without wl_spare_t");
	rejects = wp_stat("policy_rejects");
	closed = close(held);
	err = errno;
	after = wp_read_policy();
	WL_EXPECT(after, "read the policy in force: %s", strerror(errno));
	WL_EXPECT(closed == -1 && err == EINVAL,
		  "close of a text naming a type the SELinux policy loaded since lacks: %s, want EINVAL",
		  closed ? strerror(err) : "0");
	WL_EXPECT(!strcmp(after, before), "the refused text changed the policy in force:\n%s",
		  after);
	WL_EXPECT(wp_stat("policy_rejects") == rejects + 1, "stats policy_rejects %ld, want %ld",
		  wp_stat("policy_rejects"), rejects + 1);
	free(before);
	free(after);
	r = reload_and_resolve();
	WL_EXPECT(r != -1, "load the full SELinux policy again");
	WL_EXPECT(r == 0, "no label re-resolution after loading the full policy again");
	WL_EXPECT(rules_match("after the full SELinux policy came back") == 0,
		  "rules do not match after the full SELinux policy came back");
	return WL_PASS;
}

/*
 * fput_creds= on the command line sets fs.fput_creds: the boot gives 0,
 * and a kernel that ignored it would read the default, 1.
 */
static enum wl_result fput_creds_boot_param(void)
{
	char want[8], got[8] = "";

	WL_EXPECT(wl_cmdline("fput_creds", want, sizeof(want)),
		  "no fput_creds= on this boot's command line");
	WL_EXPECT(wl_read_file(FPUT_SYSCTL, got, sizeof(got)) > 0, "read %s: %s",
		  FPUT_SYSCTL, strerror(errno));
	WL_EXPECT(atoi(got) == atoi(want), "fput_creds=%s on the command line, %s reads %s",
		  want, FPUT_SYSCTL, got);
	return WL_PASS;
}

static const struct wl_test tests[] = {
	{ "bad_boot_model_fails_safe", bad_boot_model_fails_safe },
	{ "rules_follow_selinux_loads", rules_follow_selinux_loads },
	{ "held_text_loses_a_type", held_text_loses_a_type },
	{ "fput_creds_boot_param", fput_creds_boot_param },
};

WL_SUITE_IF(suite_early, tests, early_boot,
	    "only in the boot with watchlab.early=1 (make test's selinux-early boot)");
