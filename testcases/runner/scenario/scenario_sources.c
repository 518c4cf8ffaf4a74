// SPDX-License-Identifier: GPL-2.0
/*
 * scenario_sources.c - the table of sources and the engine's calls into a
 * source's ops and an action's functions (scenario_source.h).  What each
 * source does lives in its source_*.c file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "scenario_run.h"
#include "scenario_source.h"
#include "vfs_util.h"
#include "wl.h"

#define FIXTURE_BASE "/tmp/wls"

static const struct scn_source_ops *const scn_sources[SCN_NR_SOURCES] = {
	[SCN_KEY] = &scn_key_source,
	[SCN_MOUNT] = &scn_mount_source,
	[SCN_SB] = &scn_sb_source,
	[SCN_BLOCK] = &scn_block_source,
	[SCN_USB] = &scn_usb_source,
};

static const struct scn_source_ops *ops(const struct scn_ctx *c)
{
	return scn_sources[c->s->source];
}

int scn_fixture_setup(struct scn_ctx *c)
{
	const struct scn_action *a = c->s->action;

	snprintf(c->dir, sizeof(c->dir), FIXTURE_BASE "/%d", (int)getpid());
	if (wl_mkdir(FIXTURE_BASE))
		return -1;
	if (ops(c)->setup && ops(c)->setup(c))
		return -1;
	/* A watch-via row's triggerer prepares in its own namespace. */
	if (c->s->watch_via_trigger)
		return 0;
	return a->prepare ? a->prepare(c) : 0;
}

int scn_trigger_ns_setup(struct scn_ctx *c)
{
	const struct scn_action *a = c->s->action;

	if (ops(c)->ns_setup && ops(c)->ns_setup(c))
		return -1;
	return a->prepare ? a->prepare(c) : 0;
}

void scn_fixture_teardown(struct scn_ctx *c)
{
	const struct scn_action *a = c->s->action;

	if (c->mfd >= 0)
		close(c->mfd);
	if (c->pass[0] >= 0) {
		close(c->pass[0]);
		close(c->pass[1]);
	}
	if (a->restore)
		a->restore(c);
	if (ops(c)->teardown)
		ops(c)->teardown(c);
}

bool scn_owner_creates(const struct scenario *s)
{
	return scn_sources[s->source]->create != NULL;
}

int scn_object_create(struct scn_ctx *c)
{
	return ops(c)->create ? ops(c)->create(c) : 0;
}

int scn_watch(struct scn_ctx *c, int qfd, int watch_id)
{
	return ops(c)->watch(c, qfd, watch_id) ? errno : 0;
}

int scn_act(struct scn_ctx *c)
{
	const struct scn_action *a = c->s->action;

	if (!a->act) {
		wl_diag("action %s of source %s has no function", a->name,
			scn_source_name(c->s->source));
		return -1;
	}
	return a->act(c);
}
