// SPDX-License-Identifier: GPL-2.0
/*
 * source_key.c - key scenarios: the owner's key or keyring, made in a new
 * session keyring and acted on by id; or a key the owner requests and the
 * kernel's request-key upcall instantiates ("trigger kernel").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <keyutils.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "request_key.h"
#include "scenario_run.h"
#include "scenario_source.h"
#include "wl.h"

#define KEY_VIEW_BITS 0x00010101	/* KEY_USR_VIEW | KEY_GRP_VIEW | KEY_OTH_VIEW */

/* As the owner: a session keyring of its own, and the object in it. */
static int key_create(struct scn_ctx *c)
{
	bool ring = strcmp(c->s->object, "keyring") == 0;
	key_serial_t sess;

	sess = keyctl_join_session_keyring(NULL);
	if (sess < 0) {
		wl_diag("owner: join a new session keyring: %s", strerror(errno));
		return -1;
	}
	if (c->s->action->upcall)
		return 0;	/* the key comes from request_key(), later */
	c->key = ring ? add_key("keyring", "wl-object", NULL, 0, sess) :
			add_key("user", "wl-object", "o", 1, sess);
	if (c->key < 0) {
		wl_diag("owner: add_key %s: %s", c->s->object, strerror(errno));
		return -1;
	}
	if (ring) {
		c->member = add_key("user", "wl-member", "m", 1, c->key);
		if (c->member < 0 || keyctl_setperm(c->member, 0x3f3f3f3f)) {
			wl_diag("owner: keyring member: %s", strerror(errno));
			return -1;
		}
	}
	if (keyctl_setperm(c->key, c->s->perm)) {
		wl_diag("owner: setperm 0x%x: %s", c->s->perm, strerror(errno));
		return -1;
	}
	return 0;
}

int scn_object_request(struct scn_ctx *c)
{
	key_serial_t k = request_key("user", "wl-instantiate", "watchlab",
				     KEY_SPEC_SESSION_KEYRING);

	if (k < 0) {
		wl_diag("owner: request_key: %s", strerror(errno));
		return -1;
	}
	c->key = k;
	return 0;
}

int scn_object_drop_view(struct scn_ctx *c)
{
	if (keyctl_setperm(c->key, c->s->perm & ~KEY_VIEW_BITS)) {
		wl_diag("owner: withdraw View: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static long key_watch(struct scn_ctx *c, int qfd, int watch_id)
{
	return keyctl(KEYCTL_WATCH_KEY, c->key, qfd, watch_id);
}

const struct scn_source_ops scn_key_source = {
	.create = key_create,
	.watch = key_watch,
};

/* ---- actions ---- */

static int key_done(const struct scn_ctx *c, long r)
{
	if (r < 0)
		wl_diag("triggerer: key %s on %d: %s", c->s->action->name, c->key,
			strerror(errno));
	return r < 0 ? -1 : 0;
}

int scn_key_link(struct scn_ctx *c)
{
	key_serial_t k = add_key("user", "wl-linked", "l", 1, KEY_SPEC_PROCESS_KEYRING);

	return key_done(c, k < 0 ? -1 : keyctl_link(k, c->key));
}

int scn_key_unlink(struct scn_ctx *c)
{
	return key_done(c, keyctl_unlink(c->member, c->key));
}

/*
 * Twice: the second post comes from a cred whose secid and CAP_KILL answer
 * watchpol already keeps, so with no consumer attached (strict-noconsumer)
 * it takes watchpol's fast path, post_allowed(), where the first took the
 * full evaluation.  A record of either counts as delivered.
 */
int scn_key_update(struct scn_ctx *c)
{
	long r = keyctl_update(c->key, "u", 1);

	if (!r)
		r = keyctl_update(c->key, "u", 1);
	return key_done(c, r);
}

int scn_key_revoke(struct scn_ctx *c)
{
	return key_done(c, keyctl_revoke(c->key));
}

int scn_key_invalidate(struct scn_ctx *c)
{
	return key_done(c, keyctl_invalidate(c->key));
}

int scn_key_clear(struct scn_ctx *c)
{
	return key_done(c, keyctl_clear(c->key));
}

int scn_key_set_timeout(struct scn_ctx *c)
{
	return key_done(c, keyctl_set_timeout(c->key, 3600));
}

/* instantiate: the FIFOs the request-key upcall and the runner meet at. */
int scn_key_upcall_prepare(struct scn_ctx *c)
{
	(void)c;
	unlink(WL_UPCALL_LOG);
	unlink(WL_UPCALL_ID_FIFO);
	unlink(WL_UPCALL_GO_FIFO);
	if (mkfifo(WL_UPCALL_ID_FIFO, 0600) || mkfifo(WL_UPCALL_GO_FIFO, 0600)) {
		wl_diag("mkfifo for the request-key upcall: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void scn_key_upcall_restore(struct scn_ctx *c)
{
	(void)c;
	unlink(WL_UPCALL_ID_FIFO);
	unlink(WL_UPCALL_GO_FIFO);
}
