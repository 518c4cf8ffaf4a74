// SPDX-License-Identifier: GPL-2.0
/*
 * scenario_mainline.c - the mainline column's rules: which mechanism
 * mainline carries each row's event by, and what mainline's code lets
 * through.  Written from the code (kernel-patches 0026-0032 for the mount
 * marks, fs/notify/fanotify/fanotify_user.c, security/selinux/hooks.c,
 * lib/kobject_uevent.c), not from observation: a cell that disagrees
 * fails, and either the rule or the kernel is wrong.
 *
 * - Keys: mainline's watch_queue, the series' own code path with 6.12's
 *   watch_key hook; the row expects what it expects of model none.
 * - Mount attach, detach (unmount, expiry) and move: a mount-namespace
 *   mark.  do_fanotify_mark() wants CAP_SYS_ADMIN in the user namespace the
 *   group was made in and in the one owning the watched mount namespace;
 *   a watcher that may not read /proc/T/ns/mnt fails before (ptrace
 *   access).  Then security_path_notify(): SELinux's file:watch_mountns on
 *   the nsfs file, which policy/selinux/watchlab.te gives the runner, W
 *   and T, not B; Smack has no such hook.  No hook runs per event.
 * - Superblock errors (ext4): a filesystem mark, CAP_SYS_ADMIN in the
 *   filesystem's user namespace (the initial one), then SELinux's
 *   filesystem:watch and file:watch_sb.
 * - USB device and bus add and remove: uevents, which any process hears
 *   (NL_CFG_F_NONROOT_RECV) and no hook judges.
 * - Everything else has no mainline event: a read-only remount, a
 *   mount_setattr(), a superblock remount or quota, a block I/O error, a
 *   USB reset or stall, a detached fsmount tree's release (its anonymous
 *   namespace cannot be marked), the series' statmount() counters.
 *
 * Here too is where every cell's expectation comes from (scn_expected()):
 * its row's expect line, the one of the model a model is like or builds
 * on, or, in a mainline column, the rules above.  The two call each other
 * (a key row's mainline cell expects what its none cell expects), so they
 * share this file with the profile and model lists they read
 * (images/profiles, policy/watchpol/models); the parser checks each row
 * with them.
 */
#include <stdio.h>
#include <string.h>
#include <linux/capability.h>

#include "scenario.h"
#include "wl_lists.h"

const char *const scn_profiles[] = { WL_PROFILES, NULL };
const char *const scn_models[] = { WL_MODELS, NULL };
static const char *const model_profiles[] = { WL_MODEL_PROFILES };
static const char *const model_like[] = { WL_MODEL_LIKE };
static const char *const model_from[] = { WL_MODEL_FROM };
static const char *const model_mechanism[] = { WL_MODEL_MECHANISM };

static int model_index(const char *model)
{
	for (int i = 0; scn_models[i]; i++)
		if (strcmp(scn_models[i], model) == 0)
			return i;
	return -1;
}

bool scn_model_in_profile(const char *model, const char *profile)
{
	int m = model_index(model);
	char list[128], *save = NULL;

	if (m < 0 || !model_profiles[m][0])
		return m >= 0;
	snprintf(list, sizeof(list), "%s", model_profiles[m]);
	for (char *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save))
		if (strcmp(p, profile) == 0)
			return true;
	return false;
}

bool scn_model_mainline(const char *model)
{
	int m = model_index(model);

	return m >= 0 && strcmp(model_mechanism[m], "mainline") == 0;
}

const char *scn_mechanism_name(enum scn_mechanism m)
{
	static const char *const names[] = {
		[SCN_MECH_WATCH_QUEUE] = "watch_queue",
		[SCN_MECH_FANOTIFY_MNTNS] = "fanotify-mntns",
		[SCN_MECH_FANOTIFY_FS_ERROR] = "fanotify-fs-error",
		[SCN_MECH_UEVENT] = "uevent",
		[SCN_MECH_NONE] = "none",
	};

	return m <= SCN_MECH_NONE ? names[m] : "?";
}

static bool action_is(const struct scenario *s, const char *const *names)
{
	for (; *names; names++)
		if (!strcmp(s->action->name, *names))
			return true;
	return false;
}

enum scn_mechanism scn_mainline_mechanism(const struct scenario *s)
{
	static const char *const mount_events[] = { "mount", "unmount", "expire", "move", NULL };
	static const char *const sb_errors[] = { "fs-error", "read-bad-dir", NULL };
	static const char *const usb_uevents[] = {
		"port-disable", "port-enable", "bus-unbind", "bus-bind", NULL
	};

	if (s->observe == SCN_OBSERVE_COUNT)
		return SCN_MECH_NONE;
	switch (s->source) {
	case SCN_KEY:
		return SCN_MECH_WATCH_QUEUE;
	case SCN_MOUNT:
		return !strcmp(s->object, "mount") && action_is(s, mount_events) ?
		       SCN_MECH_FANOTIFY_MNTNS : SCN_MECH_NONE;
	case SCN_SB:
		return action_is(s, sb_errors) ? SCN_MECH_FANOTIFY_FS_ERROR : SCN_MECH_NONE;
	case SCN_USB:
		return action_is(s, usb_uevents) ? SCN_MECH_UEVENT : SCN_MECH_NONE;
	default:
		return SCN_MECH_NONE;
	}
}

/*
 * CAP_SYS_ADMIN over the watched namespace or filesystem: root of the
 * initial user namespace (the runner's, the fixture's and a watch-via
 * triggerer's parent), or a party keeping CAP_SYS_ADMIN.  A watcher of
 * its own user or mount namespace is not one the rules decide.
 */
static bool watcher_admin(const struct scn_party *w)
{
	return (w->euid == 0 && !w->caps) || (w->caps & SCN_CAP(CAP_SYS_ADMIN));
}

/* The mark's LSM check: SELinux refuses B; Smack has no hook. */
static const char *mark_refuser(const struct scn_party *w, const char *profile)
{
	if (!strcmp(profile, "selinux") && !strcmp(w->label, "bystander"))
		return "watch:selinux";
	return NULL;
}

enum scn_result scn_mainline_rule(const struct scenario *s, const char *profile,
				  unsigned int variant, const char **where)
{
	const struct scn_party *w = s->setter.set ? &s->setter : &s->watcher;
	const char *lsm;

	*where = "";
	switch (scn_mainline_mechanism(s)) {
	case SCN_MECH_NONE:
		return SCN_NOT_AVAILABLE;
	case SCN_MECH_WATCH_QUEUE:
		*where = scn_expected_where(s, profile, "none", variant);
		return scn_expected(s, profile, "none", variant);
	case SCN_MECH_UEVENT:
		return SCN_DELIVERED;
	default:
		break;
	}
	/* The two fanotify marks: the rows' parties are the rules' inputs. */
	if (s->setter.set || s->watcher.userns || s->watcher.mntns)
		return SCN_UNSET;
	if (!watcher_admin(w)) {
		*where = "watch:kernel";
		return SCN_BLOCKED;
	}
	lsm = mark_refuser(w, profile);
	if (lsm && scn_mainline_mechanism(s) == SCN_MECH_FANOTIFY_FS_ERROR)
		return SCN_UNSET;	/* B's file:watch_sb depends on the fixture's label */
	if (lsm) {
		*where = lsm;
		return SCN_BLOCKED;
	}
	return SCN_DELIVERED;
}

/* The expect line that decides a cell, or NULL. */
static const struct scn_expect *expect_line(const struct scenario *s, const char *profile,
					    const char *model, unsigned int variant)
{
	const struct scn_expect *r = NULL;
	int m = model_index(model);

	/*
	 * A model that must match another's cells ("like=" in the models
	 * file) or builds on another ("from=") expects what the other does,
	 * unless an expect line names it.
	 */
	if (m >= 0 && (model_like[m][0] || model_from[m][0])) {
		const char *base = model_like[m][0] ? model_like[m] : model_from[m];
		bool named = false;

		for (size_t i = 0; i < s->nexpect; i++)
			named |= strcmp(s->expect[i].model, model) == 0;
		if (!named)
			return expect_line(s, profile, base, variant);
	}
	/* "*" is every watch_queue model: the mainline column is named, or derived. */
	for (size_t i = 0; i < s->nexpect; i++) {
		const struct scn_expect *e = &s->expect[i];

		if ((strcmp(e->profile, "*") == 0 || strcmp(e->profile, profile) == 0) &&
		    ((strcmp(e->model, "*") == 0 && !scn_model_mainline(model)) ||
		     strcmp(e->model, model) == 0) &&
		    (!e->variant || (e->variant & variant)))
			r = e;
	}
	return r;
}

enum scn_result scn_expected(const struct scenario *s, const char *profile,
			     const char *model, unsigned int variant)
{
	const struct scn_expect *e = expect_line(s, profile, model, variant);
	const char *where;

	if (!e && scn_model_mainline(model))
		return scn_mainline_rule(s, profile, variant, &where);
	return e ? e->result : SCN_UNSET;
}

const char *scn_expected_where(const struct scenario *s, const char *profile,
			       const char *model, unsigned int variant)
{
	const struct scn_expect *e = expect_line(s, profile, model, variant);
	const char *where = "";

	if (!e && scn_model_mainline(model))
		scn_mainline_rule(s, profile, variant, &where);
	return e ? e->where : where;
}
