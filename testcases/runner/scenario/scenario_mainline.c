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
 */
#include <string.h>
#include <linux/capability.h>

#include "scenario.h"

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
