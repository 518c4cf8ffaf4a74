// SPDX-License-Identifier: GPL-2.0
/*
 * scenario_actions.c - the vocabulary of scenario files: sources, actions,
 * the record each action posts and the functions that run it, and subtype
 * names.  Shared by the in-guest runner and the host's scenario-lint (which
 * builds it with SCN_HOST: data only).
 */
#include <string.h>
#include <linux/watch_queue.h>

#include "scenario.h"
#include "scenario_source.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char *const source_names[SCN_NR_SOURCES] = {
	[SCN_KEY] = "key", [SCN_MOUNT] = "mount", [SCN_SB] = "sb",
	[SCN_BLOCK] = "block", [SCN_USB] = "usb",
};

static const char *const key_subtypes[] = {
	[NOTIFY_KEY_INSTANTIATED] = "instantiated",
	[NOTIFY_KEY_UPDATED] = "updated",
	[NOTIFY_KEY_LINKED] = "linked",
	[NOTIFY_KEY_UNLINKED] = "unlinked",
	[NOTIFY_KEY_CLEARED] = "cleared",
	[NOTIFY_KEY_REVOKED] = "revoked",
	[NOTIFY_KEY_INVALIDATED] = "invalidated",
	[NOTIFY_KEY_SETATTR] = "setattr",
};

static const char *const mount_subtypes[] = {
	[NOTIFY_MOUNT_NEW_MOUNT] = "new-mount",
	[NOTIFY_MOUNT_UNMOUNT] = "unmount",
	[NOTIFY_MOUNT_EXPIRY] = "expiry",
	[NOTIFY_MOUNT_READONLY] = "readonly",
	[NOTIFY_MOUNT_SETATTR] = "setattr",
	[NOTIFY_MOUNT_MOVE_FROM] = "move-from",
	[NOTIFY_MOUNT_MOVE_TO] = "move-to",
};

static const char *const sb_subtypes[] = {
	[NOTIFY_SUPERBLOCK_READONLY] = "readonly",
	[NOTIFY_SUPERBLOCK_ERROR] = "error",
	[NOTIFY_SUPERBLOCK_EDQUOT] = "edquot",
};

static const char *const block_subtypes[] = {
	[NOTIFY_BLOCK_ERROR_IO] = "error-io",
};

static const char *const usb_subtypes[] = {
	[NOTIFY_USB_DEVICE_ADD] = "device-add",
	[NOTIFY_USB_DEVICE_REMOVE] = "device-remove",
	[NOTIFY_USB_BUS_ADD] = "bus-add",
	[NOTIFY_USB_BUS_REMOVE] = "bus-remove",
	[NOTIFY_USB_DEVICE_RESET] = "device-reset",
	[NOTIFY_USB_DEVICE_ERROR] = "device-error",
};

static const struct {
	const char *const *names;
	size_t n;
} subtypes[SCN_NR_SOURCES] = {
	[SCN_KEY] = { key_subtypes, ARRAY_SIZE(key_subtypes) },
	[SCN_MOUNT] = { mount_subtypes, ARRAY_SIZE(mount_subtypes) },
	[SCN_SB] = { sb_subtypes, ARRAY_SIZE(sb_subtypes) },
	[SCN_BLOCK] = { block_subtypes, ARRAY_SIZE(block_subtypes) },
	[SCN_USB] = { usb_subtypes, ARRAY_SIZE(usb_subtypes) },
};

/* The host's scenario-lint links none of the runner's functions. */
#ifdef SCN_HOST
#define FN(f) NULL
#else
#define FN(f) f
#endif

/*
 * One line per action: source, name, the record it posts, then any of
 * .async, .destruction, .upcall, .hand_off and the functions.  .act is
 * required; .prepare and .restore only where the fixture must change.
 */
#define ACTION(src, n, wtype, st, fn, ...)					\
	{ .source = src, .name = n, .type = wtype, .subtype = st,		\
	  .act = FN(fn), __VA_ARGS__ }
#define K(n, st, fn, ...) \
	ACTION(SCN_KEY, n, WATCH_TYPE_KEY_NOTIFY, NOTIFY_KEY_##st, fn, __VA_ARGS__)
#define M(n, st, fn, ...) \
	ACTION(SCN_MOUNT, n, WATCH_TYPE_MOUNT_NOTIFY, NOTIFY_MOUNT_##st, fn, __VA_ARGS__)
#define S(n, st, fn, ...) \
	ACTION(SCN_SB, n, WATCH_TYPE_SB_NOTIFY, NOTIFY_SUPERBLOCK_##st, fn, __VA_ARGS__)
#define B(n, st, fn, ...) \
	ACTION(SCN_BLOCK, n, WATCH_TYPE_BLOCK_NOTIFY, NOTIFY_BLOCK_##st, fn, __VA_ARGS__)
#define U(n, st, fn, ...) \
	ACTION(SCN_USB, n, WATCH_TYPE_USB_NOTIFY, NOTIFY_USB_##st, fn, __VA_ARGS__)

static const struct scn_action actions[] = {
	/* keys: the triggerer acts on the object key or keyring by id */
	K("link", LINKED, scn_key_link),	/* links a key of its own into the keyring */
	K("unlink", UNLINKED, scn_key_unlink),	/* unlinks the keyring's member key */
	K("update", UPDATED, scn_key_update),
	K("revoke", REVOKED, scn_key_revoke),
	K("invalidate", INVALIDATED, scn_key_invalidate),
	K("clear", CLEARED, scn_key_clear),
	K("setattr", SETATTR, scn_key_set_timeout),	/* KEYCTL_SET_TIMEOUT */
	/* the owner's key under construction: the kernel's upcall instantiates it */
	K("instantiate", INSTANTIATED, NULL, .upcall = true,
	  .prepare = FN(scn_key_upcall_prepare), .restore = FN(scn_key_upcall_restore)),
	/* mounts: on the fixture's tmpfs; the triggerer works below it */
	M("mount", NEW_MOUNT, scn_mount_mount),
	M("unmount", UNMOUNT, scn_mount_unmount, .prepare = FN(scn_mount_submount)),
	M("expire", EXPIRY, scn_mount_expire, .prepare = FN(scn_mount_submount)),
	M("remount-ro", READONLY, scn_mount_remount_ro, .prepare = FN(scn_mount_submount)),
	M("setattr", SETATTR, scn_mount_setattr, .prepare = FN(scn_mount_submount)),
	/* "event move-to" checks the other side */
	M("move", MOVE_FROM, scn_mount_move, .prepare = FN(scn_mount_submount)),
	/* a detached fsmount() tree dissolved by the last fput() of its fd */
	M("fsmount-close", UNMOUNT, scn_mount_fsmount_close, .destruction = true),
	M("fsmount-pass-close", UNMOUNT, scn_mount_fsmount_pass_close, .destruction = true,
	  .hand_off = true, .prepare = FN(scn_mount_pass_prepare)),
	/* the same hand-off; the fd goes at exec of a setuid-root program */
	M("fsmount-pass-exec", UNMOUNT, scn_mount_fsmount_pass_exec, .destruction = true,
	  .hand_off = true, .prepare = FN(scn_mount_exec_prepare),
	  .restore = FN(scn_mount_exec_restore)),
	/* the owner keeps it; a looker takes a copy (pidfd_getfd) and closes last */
	M("fsmount-looker-close", UNMOUNT, scn_mount_fsmount_looker_close,
	  .destruction = true, .hand_off = true, .looker = true),
	/* ...or through /proc/OWNER/fd: a new struct file, the owner's exit is last */
	M("fsmount-proc-looker", UNMOUNT, scn_mount_fsmount_proc_looker,
	  .destruction = true, .hand_off = true, .looker = true),
	M("fsmount-unix-gc", UNMOUNT, scn_mount_fsmount_unix_gc, .destruction = true,
	  .async = true),
	/* superblocks */
	S("remount-ro", READONLY, scn_sb_remount_ro),
	S("exceed-quota", EDQUOT, scn_sb_exceed_quota),
	S("fs-error", ERROR, scn_sb_fs_error),
	S("read-bad-dir", ERROR, scn_sb_read_bad_dir),	/* object sb-ext4-bad-dir */
	/* devices: the watch is on the global device list */
	B("read-bad-sector", ERROR_IO, scn_block_read_bad),
	/* the same error raised in hard interrupt context, posted from a worker */
	B("read-bad-sector-hardirq", ERROR_IO, scn_block_read_bad, .async = true,
	  .prepare = FN(scn_block_hardirq_prepare)),
	/* sysfs port disable */
	U("port-disable", DEVICE_REMOVE, scn_usb_port_disable,
	  .restore = FN(scn_usb_port_restore)),
	/* enable + hub rescan: hub_wq posts */
	U("port-enable", DEVICE_ADD, scn_usb_port_enable, .async = true,
	  .prepare = FN(scn_usb_port_disable), .restore = FN(scn_usb_port_restore)),
	U("reset", DEVICE_RESET, scn_usb_reset),	/* USBDEVFS_RESET */
	U("stall", DEVICE_ERROR, scn_usb_stall),	/* a control request it stalls */
	/* unbind the xHCI controller, bind it back */
	U("bus-unbind", BUS_REMOVE, scn_usb_bus_unbind, .restore = FN(scn_usb_bus_restore)),
	U("bus-bind", BUS_ADD, scn_usb_bus_bind, .prepare = FN(scn_usb_bus_unbind)),
};

const struct scn_action *scn_find_action(enum scn_source src, const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(actions); i++)
		if (actions[i].source == src && strcmp(actions[i].name, name) == 0)
			return &actions[i];
	return NULL;
}

const char *scn_source_name(enum scn_source src)
{
	return src < SCN_NR_SOURCES ? source_names[src] : "?";
}

int scn_subtype(enum scn_source src, const char *name)
{
	if (src >= SCN_NR_SOURCES)
		return -1;
	for (size_t i = 0; i < subtypes[src].n; i++)
		if (subtypes[src].names[i] && strcmp(subtypes[src].names[i], name) == 0)
			return (int)i;
	return -1;
}

const char *scn_subtype_name(enum scn_source src, unsigned int subtype)
{
	if (src >= SCN_NR_SOURCES || subtype >= subtypes[src].n ||
	    !subtypes[src].names[subtype])
		return "?";
	return subtypes[src].names[subtype];
}
