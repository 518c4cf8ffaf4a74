// SPDX-License-Identifier: GPL-2.0
/*
 * scenario_actions.c - the vocabulary of scenario files: sources, actions
 * and the record each action posts, and subtype names.  Data only, shared
 * by the in-guest runner and the host's scenario-lint.
 */
#include <string.h>
#include <linux/watch_queue.h>

#include "scenario.h"

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

#define K(n, st) { SCN_KEY, n, WATCH_TYPE_KEY_NOTIFY, NOTIFY_KEY_##st, false, false }
#define M(n, st) { SCN_MOUNT, n, WATCH_TYPE_MOUNT_NOTIFY, NOTIFY_MOUNT_##st, false, false }
#define S(n, st) { SCN_SB, n, WATCH_TYPE_SB_NOTIFY, NOTIFY_SUPERBLOCK_##st, false, false }
#define U(n, st, async) { SCN_USB, n, WATCH_TYPE_USB_NOTIFY, NOTIFY_USB_##st, async, false }

static const struct scn_action actions[] = {
	/* keys: the triggerer acts on the object key or keyring by id */
	K("link", LINKED),		/* links a key of its own into the keyring */
	K("unlink", UNLINKED),		/* unlinks the keyring's member key */
	K("update", UPDATED),
	K("revoke", REVOKED),
	K("invalidate", INVALIDATED),
	K("clear", CLEARED),
	K("setattr", SETATTR),		/* KEYCTL_SET_TIMEOUT */
	K("instantiate", INSTANTIATED),	/* the owner's key under construction */
	/* mounts: on the fixture's tmpfs; the triggerer works below it */
	M("mount", NEW_MOUNT),
	M("unmount", UNMOUNT),
	M("expire", EXPIRY),
	M("remount-ro", READONLY),
	M("setattr", SETATTR),
	M("move", MOVE_FROM),		/* "event move-to" checks the other side */
	/* a detached fsmount() tree dissolved by the last fput() of its fd */
	{ SCN_MOUNT, "fsmount-close", WATCH_TYPE_MOUNT_NOTIFY, NOTIFY_MOUNT_UNMOUNT,
	  false, true },
	{ SCN_MOUNT, "fsmount-pass-close", WATCH_TYPE_MOUNT_NOTIFY, NOTIFY_MOUNT_UNMOUNT,
	  false, true },
	{ SCN_MOUNT, "fsmount-unix-gc", WATCH_TYPE_MOUNT_NOTIFY, NOTIFY_MOUNT_UNMOUNT,
	  true, true },
	/* superblocks */
	S("remount-ro", READONLY),
	S("exceed-quota", EDQUOT),
	S("fs-error", ERROR),
	/* devices: the watch is on the global device list */
	{ SCN_BLOCK, "read-bad-sector", WATCH_TYPE_BLOCK_NOTIFY, NOTIFY_BLOCK_ERROR_IO,
	  false, false },
	U("port-disable", DEVICE_REMOVE, false),	/* sysfs port disable */
	U("port-enable", DEVICE_ADD, true),		/* enable + hub rescan: hub_wq */
	U("reset", DEVICE_RESET, false),		/* USBDEVFS_RESET */
	U("stall", DEVICE_ERROR, false),		/* a control request it stalls */
	U("bus-unbind", BUS_REMOVE, false),		/* unbind the xHCI controller */
	U("bus-bind", BUS_ADD, false),			/* bind it back */
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
