/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scenario_run.h - running one scenario variant: the context the parties
 * share, the calls into the sources (scenario_sources.c) and the engine
 * (scenario_run.c).
 */
#ifndef WL_SCENARIO_RUN_H
#define WL_SCENARIO_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "devices_util.h"
#include "evidence.h"
#include "scenario.h"

#define SCN_WATCH_ID 0x5c
#define SCN_FENCE_ID 0xfe
#define SCN_PROBE_ID 0x9b	/* counter_probe_watch()'s watch */

/* One run: built by the runner before it forks the parties, read by them. */
struct scn_ctx {
	const struct scenario *s;
	unsigned int variant;
	char dir[64];		/* the fixture's mount point (mount and sb sources) */
	char via[32];		/* watch-via trigger: "/proc/PID/root" of T, else "" */
	char attr[96];		/* sb-ext4*: its /sys/fs/ext4/<dev> directory */
	int mfd;		/* fsmount objects: the detached tree's fd, else -1 */
	pid_t owner_pid;	/* looker actions: the owner, and the fd it holds */
	int owner_fd;
	int pass[2];		/* fsmount-pass-close: owner -> triggerer socket */
	int qfd;		/* setter: the watcher's queue */
	int32_t key, member;	/* key objects: the object and its keyring member */
	struct nullb nb;	/* block: the disk with a bad range */
	struct usbdev usb;	/* usb: the QEMU keyboard */
	enum scn_mechanism mech;	/* how W observes: watch_queue, or mainline's */
};

/* As the runner: the source's fixture and the action's prepare; and their undoing. */
int scn_fixture_setup(struct scn_ctx *c);
void scn_fixture_teardown(struct scn_ctx *c);

/* The owner creates the object before the watch (keys), else it only hands off. */
bool scn_owner_creates(const struct scenario *s);
/* As the owner: create the object; 0 or -1 (diagnosed). */
int scn_object_create(struct scn_ctx *c);
/* As the owner: withdraw View from everyone but the possessor (perm-drop). */
int scn_object_drop_view(struct scn_ctx *c);
/* As the owner of an upcall key: request_key(), blocking in the upcall. */
int scn_object_request(struct scn_ctx *c);
/* As the owner, after the watch is set: the fsmount-pass-close hand-off. */
int scn_object_hand_off(struct scn_ctx *c);

/* As the watcher or setter: set the watch; 0 or the errno. */
int scn_watch(struct scn_ctx *c, int qfd, int watch_id);
/*
 * The fixture's directory as the watcher reaches it (through c->via).
 * Inline: the sources (source_*.c) use it, and scenario_sources.c above
 * them calls them.
 */
static inline void scn_object_path(const struct scn_ctx *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", c->via, c->dir);
}

/*
 * As the triggerer of a watch-via row, in its own mount namespace: the
 * source's object there, then the action's prepare; 0 or -1 (diagnosed).
 */
int scn_trigger_ns_setup(struct scn_ctx *c);

/* As the triggerer: the action; 0, or -1 (diagnosed). */
int scn_act(struct scn_ctx *c);

/*
 * The mainline column's watcher (observe_mainline.c), for c->mech: set the
 * watch as W (the fd, or -errno), then read after the action up to the
 * fence (0 with *delivered, or -1 diagnosed).  The runner raises the fence
 * once the triggerer is done: scn_mainline_fence() returns what the
 * watcher needs to know it (a mount's unique ID, or 0), or -1 (diagnosed).
 */
int scn_mainline_watch(struct scn_ctx *c);
int scn_mainline_drain(struct scn_ctx *c, int fd, uint64_t fence, bool *delivered);
int64_t scn_mainline_fence(struct scn_ctx *c);

/*
 * Run one variant of a scenario under the policy in force.  Returns the
 * observed SCN_DELIVERED or SCN_BLOCKED, or SCN_UNSET when the scenario
 * could not be run as written (diagnosed).  The records the LSMs emit go
 * into @ev (wl_evidence_begin() done by the caller): those up to a refused
 * watch, whose errno is then *@watch_err, or those up to the watcher's fence
 * (and, for an event the kernel posts later, up to the end of the wait).
 */
enum scn_result scn_run(const struct scenario *s, unsigned int variant,
			struct wl_evidence *ev, int *watch_err);

/*
 * Become the party, in scn_run()'s order: label, mount namespace, groups,
 * uids, kept capabilities, user namespace.  0, or -1 (diagnosed).
 */
int scn_party_enter(const struct scn_party *p);

/* One cell: what was expected, what was observed, and where a block stopped. */
struct scn_cell {
	enum scn_result want, got;	/* got SCN_UNSET: the scenario could not run */
	const char *want_where;		/* the row's "STEP:WHO" for a blocked want, or "" */
	char where[160];		/* a block's evidence (evidence.h) */
	bool explained;			/* false: blocked, but no record says by whom */
	int watch_err;			/* the errno that refused the watch, or 0 */
	char misattributed[256];	/* "posted-as": why the posts' t_uid is not the row's */
	unsigned int posts;		/* watchpol's post records of the event to W */
	/* What watchpol's model said of the event's posts to W, enforced or not. */
	unsigned int verdict_allow, verdict_deny;
};

/*
 * Run one variant under the policy in force and judge it against the
 * expectation for profile/model, with the evidence window around it
 * (@ev holds its records afterwards).  0, or -1 when it has no expectation
 * there or the window could not open (diagnosed).  In a bring-your-own-LSM
 * boot there is none: want stays SCN_UNSET.
 */
int scn_run_cell(const struct scenario *s, unsigned int variant, const char *profile,
		 const char *model, struct wl_evidence *ev, struct scn_cell *cell);

#endif /* WL_SCENARIO_RUN_H */
