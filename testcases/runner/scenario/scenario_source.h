/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scenario_source.h - a source of events as an ops table, and every
 * action's functions.
 *
 * A source (key, mount, sb, block, usb) says how its fixture is built and
 * removed, how its object is created and how a watch is set on it.  An
 * action (scenario_actions.c) says what the triggerer does, plus what it
 * needs from the fixture beforehand (prepare) and afterwards (restore).
 *
 * Adding an action: one line in scenario_actions.c's table, its function in
 * the source's file (source_*.c) and its prototype below.  Adding a source:
 * an enum scn_source entry and its names (scenario.h, scenario_actions.c),
 * a source_*.c file with its ops table, and one line in scn_sources[]
 * (scenario_sources.c).
 */
#ifndef WL_SCENARIO_SOURCE_H
#define WL_SCENARIO_SOURCE_H

#include <stdbool.h>

struct scn_ctx;

struct scn_source_ops {
	/* As the runner, before any party starts: the fixture; NULL: none. */
	int (*setup)(struct scn_ctx *c);
	/* As the owner, before the watch: create the object; NULL: the fixture is it. */
	int (*create)(struct scn_ctx *c);
	/*
	 * As the triggerer in the mount namespace it made (watch-via
	 * trigger), before the watch: the object, made there; NULL: the
	 * fixture's copy in that namespace is the object.
	 */
	int (*ns_setup)(struct scn_ctx *c);
	/*
	 * As the watcher or setter: set the watch on the object at
	 * scn_object_path(); 0, or -1 with errno set.
	 */
	long (*watch)(struct scn_ctx *c, int qfd, int watch_id);
	/* As the runner, whatever happened: remove the fixture; NULL: nothing. */
	void (*teardown)(struct scn_ctx *c);
};

extern const struct scn_source_ops scn_key_source;
extern const struct scn_source_ops scn_mount_source;
extern const struct scn_source_ops scn_sb_source;
extern const struct scn_source_ops scn_block_source;
extern const struct scn_source_ops scn_usb_source;

/*
 * Actions: act runs as the triggerer and returns 0, or -1 diagnosed;
 * prepare (0 or -1 diagnosed) and restore run as the runner, after the
 * source's setup and before its teardown.
 */
/* source_key.c */
int scn_key_link(struct scn_ctx *c);
int scn_key_unlink(struct scn_ctx *c);
int scn_key_update(struct scn_ctx *c);
int scn_key_revoke(struct scn_ctx *c);
int scn_key_invalidate(struct scn_ctx *c);
int scn_key_clear(struct scn_ctx *c);
int scn_key_set_timeout(struct scn_ctx *c);
int scn_key_upcall_prepare(struct scn_ctx *c);
void scn_key_upcall_restore(struct scn_ctx *c);
/* source_mount.c */
int scn_mount_submount(struct scn_ctx *c);
int scn_mount_mount(struct scn_ctx *c);
int scn_mount_unmount(struct scn_ctx *c);
int scn_mount_expire(struct scn_ctx *c);
int scn_mount_remount_ro(struct scn_ctx *c);
int scn_mount_setattr(struct scn_ctx *c);
int scn_mount_move(struct scn_ctx *c);
int scn_mount_fsmount_close(struct scn_ctx *c);
int scn_mount_pass_prepare(struct scn_ctx *c);
int scn_mount_fsmount_pass_close(struct scn_ctx *c);
int scn_mount_fsmount_pass_exec(struct scn_ctx *c);
int scn_mount_exec_prepare(struct scn_ctx *c);
void scn_mount_exec_restore(struct scn_ctx *c);
int scn_mount_fsmount_looker_close(struct scn_ctx *c);
int scn_mount_fsmount_proc_looker(struct scn_ctx *c);
int scn_mount_fsmount_unix_gc(struct scn_ctx *c);
/* Mount a tmpfs fixture at path (the "object" label if the watcher has one). */
int scn_tmpfs_at(const struct scn_ctx *c, const char *path, const char *extra, bool shared);
/* Unmount everything at the fixture's directory and remove it (mount, sb). */
void scn_mount_teardown(struct scn_ctx *c);
/* source_sb.c */
int scn_sb_remount_ro(struct scn_ctx *c);
int scn_sb_exceed_quota(struct scn_ctx *c);
int scn_sb_fs_error(struct scn_ctx *c);
int scn_sb_read_bad_dir(struct scn_ctx *c);
/* source_device.c */
int scn_block_read_bad(struct scn_ctx *c);
int scn_block_hardirq_prepare(struct scn_ctx *c);
int scn_usb_port_disable(struct scn_ctx *c);
int scn_usb_port_enable(struct scn_ctx *c);
void scn_usb_port_restore(struct scn_ctx *c);
int scn_usb_reset(struct scn_ctx *c);
int scn_usb_stall(struct scn_ctx *c);
int scn_usb_bus_unbind(struct scn_ctx *c);
int scn_usb_bus_bind(struct scn_ctx *c);
void scn_usb_bus_restore(struct scn_ctx *c);

#endif /* WL_SCENARIO_SOURCE_H */
