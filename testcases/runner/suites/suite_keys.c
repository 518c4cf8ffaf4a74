// SPDX-License-Identifier: GPL-2.0
/*
 * suite_keys.c - key notifications on both transports (6.12's pipe queue
 * and the /dev/watch_queue ring).  suite_keys, under every model: the
 * events a key owner sees on its own keys (matrix rows; on the ring they
 * end in "-ring").  suite_keys_queue, once per boot, since no model takes
 * part: the kernel's View check on setting a watch, and what the reader
 * is told when the queue overflows (a loss record on the pipe, the overrun
 * flag on the ring).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <keyutils.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/watch_queue.h>

#include "wl.h"

#define RING_WATCH_ID 0x11
#define KEY_WATCH_ID 0x22

struct key_event {
	const char *what;
	unsigned int subtype;
	key_serial_t key_id, aux;
	unsigned int watch_id;
};

/* Read one record and check it is exactly the key event described. */
static int expect_key_event(int fd, const struct key_event *e)
{
	struct key_notification kn;
	struct wl_record rec;
	int r = wl_wq_read(fd, &rec, WL_EVENT_TIMEOUT_MS * 4);

	if (r <= 0) {
		wl_diag("%s: no record arrived", e->what);
		return -1;
	}
	if (rec.type != WATCH_TYPE_KEY_NOTIFY || rec.subtype != e->subtype ||
	    rec.len != sizeof(kn)) {
		wl_diag("%s: got type %u subtype %u len %u, want type %u subtype %u len %zu",
			e->what, rec.type, rec.subtype, rec.len,
			WATCH_TYPE_KEY_NOTIFY, e->subtype, sizeof(kn));
		return -1;
	}
	memcpy(&kn, rec.data, sizeof(kn));
	if ((key_serial_t)kn.key_id != e->key_id || rec.watch_id != e->watch_id ||
	    (e->aux && (key_serial_t)kn.aux != e->aux)) {
		wl_diag("%s: got key %d aux %d watch %u, want key %d aux %d watch %u",
			e->what, kn.key_id, kn.aux, rec.watch_id, e->key_id,
			e->aux, e->watch_id);
		return -1;
	}
	return 0;
}

static int no_more_records(int fd, const char *after)
{
	return wl_wq_expect_none(fd, after, WL_EVENT_TIMEOUT_MS / 5);
}

static void matrix_cell(const char *scenario, bool delivered)
{
	struct wl_cell cell = {
		.scenario = scenario, .model = wl_model(), .expected = "delivered",
		.observed = delivered ? "delivered" : "blocked", .threat = "use",
	};

	wl_matrix(&cell);
}

/* The suffix a transport's matrix scenarios carry: none for the pipe. */
static const char *scenario_suffix(enum wl_transport t)
{
	return t == WL_TRANSPORT_PIPE ? "" : t == WL_TRANSPORT_RING ? "-ring" : "-?";
}

/*
 * As the caller's uid: make a keyring and a key, watch both on a queue of
 * transport t, then link the key into the keyring, update it and revoke it.
 */
static int own_keyring_events_on(const char *who, enum wl_transport t)
{
	char scenario[64];
	key_serial_t ring, key;
	int fd, bad = 0;

	fd = wl_queue_open(t, 32);
	if (fd < 0)
		return 1;
	ring = add_key("keyring", "wl-ring", NULL, 0, KEY_SPEC_PROCESS_KEYRING);
	key = add_key("user", "wl-key", "v1", 2, KEY_SPEC_PROCESS_KEYRING);
	if (ring < 0 || key < 0) {
		wl_diag("%s: add_key: %s", who, strerror(errno));
		return 1;
	}
	if (keyctl_watch_key(ring, fd, RING_WATCH_ID) ||
	    keyctl_watch_key(key, fd, KEY_WATCH_ID)) {
		wl_diag("%s: KEYCTL_WATCH_KEY: %s", who, strerror(errno));
		return 1;
	}

	const struct {
		const char *op;
		struct key_event ev;
	} steps[] = {
		{ "link", { "link", NOTIFY_KEY_LINKED, ring, key, RING_WATCH_ID } },
		{ "update", { "update", NOTIFY_KEY_UPDATED, key, 0, KEY_WATCH_ID } },
		{ "revoke", { "revoke", NOTIFY_KEY_REVOKED, key, 0, KEY_WATCH_ID } },
	};

	for (size_t i = 0; i < WL_ARRAY_SIZE(steps); i++) {
		long r;

		if (i == 0)
			r = keyctl_link(key, ring);
		else if (i == 1)
			r = keyctl_update(key, "v2", 2);
		else
			r = keyctl_revoke(key);
		if (r) {
			wl_diag("%s: keyctl %s: %s", who, steps[i].op, strerror(errno));
			return 1;
		}
		snprintf(scenario, sizeof(scenario), "key-own-%s-%s%s", who, steps[i].op,
			 scenario_suffix(t));
		if (expect_key_event(fd, &steps[i].ev)) {
			matrix_cell(scenario, false);
			bad = 1;
			continue;
		}
		matrix_cell(scenario, true);
	}
	if (!bad && no_more_records(fd, "revoke"))
		bad = 1;
	wl_wq_close(fd);
	if (bad)
		wl_diag("%s: failed on the %s transport", who, wl_transport_name(t));
	return bad;
}

/* own_keyring_events_on() on every transport.  Runs in a child. */
static int own_keyring_events(void *arg)
{
	int bad = 0;

	for (int t = 0; t < WL_TRANSPORT_NR; t++)
		bad |= own_keyring_events_on(arg, t);
	return bad;
}

static enum wl_result own_keyring_events_uid0(void)
{
	struct wl_creds root = wl_user(0);

	return wl_run_as(&root, own_keyring_events, "uid0") == 0 ? WL_PASS : WL_FAIL;
}

static enum wl_result own_keyring_events_uid1000(void)
{
	struct wl_creds user = wl_user(1000);

	return wl_run_as(&user, own_keyring_events, "uid1000") == 0 ? WL_PASS : WL_FAIL;
}

/*
 * uid 1000 may not watch a key it cannot view, whatever the queue's
 * transport: EACCES, and no watch is set.
 */
static int watch_unviewable(void *arg)
{
	key_serial_t key = *(key_serial_t *)arg;
	int bad = 0;

	for (int t = 0; t < WL_TRANSPORT_NR; t++) {
		int fd = wl_queue_open(t, 32), err;
		long r;

		if (fd < 0)
			return 1;
		r = keyctl_watch_key(key, fd, 1);
		err = errno;
		wl_wq_close(fd);
		if (r != -1 || err != EACCES) {
			wl_diag("%s: KEYCTL_WATCH_KEY on key %d without View returned %ld (%s), want EACCES",
				wl_transport_name(t), key, r, r ? strerror(err) : "success");
			bad = 1;
		}
	}
	return bad;
}

static enum wl_result watch_without_view_is_eacces(void)
{
	struct wl_creds user = wl_user(1000);
	key_serial_t key;

	key = add_key("user", "wl-private", "secret", 6, KEY_SPEC_PROCESS_KEYRING);
	WL_EXPECT(key > 0, "add_key: %s", strerror(errno));
	/* Possessor and owner (root) everything; group and other nothing. */
	WL_EXPECT(keyctl_setperm(key, KEY_POS_ALL | KEY_USR_ALL) == 0,
		  "keyctl_setperm: %s", strerror(errno));
	WL_EXPECT(wl_run_as(&user, watch_unviewable, &key) == 0,
		  "uid 1000 could watch root's unviewable key %d", key);
	return WL_PASS;
}

/*
 * A one-page queue on transport t and a key *key watched on it (watch 3),
 * updated total times: the queue, or -1 (diagnosed).
 */
static int flooded_queue(enum wl_transport t, const char *desc, unsigned int total,
			 key_serial_t *key)
{
	int fd = t == WL_TRANSPORT_RING ? wl_queue_open(t, 1) : wl_wq_open(1);

	if (fd < 0)
		return -1;
	*key = add_key("user", desc, "x", 1, KEY_SPEC_PROCESS_KEYRING);
	if (*key < 0 || keyctl_watch_key(*key, fd, 3)) {
		wl_diag("add and watch key %s: %s", desc, strerror(errno));
		return -1;
	}
	for (unsigned int i = 0; i < total; i++)
		if (keyctl_update(*key, "y", 1)) {
			wl_diag("keyctl_update: %s", strerror(errno));
			return -1;
		}
	return fd;
}

/* What a reader finds in a flooded queue until it runs dry. */
struct flood_read {
	key_serial_t key;	/* the flooded key */
	int r;			/* wl_wq_read()'s last return: 0 dry, -1 error */
	unsigned int updates;	/* UPDATED records of watch 3 */
	unsigned int flagged;	/* of those, with WATCH_INFO_OVERRUN */
	unsigned int losses;	/* META loss records */
	unsigned int others;	/* anything else (diagnosed) */
};

/* Flood a one-page queue on transport t and read it dry: the queue, or -1. */
static int flood_and_read(enum wl_transport t, const char *desc, unsigned int total,
			  struct flood_read *f)
{
	struct wl_record rec;
	int fd;

	memset(f, 0, sizeof(*f));
	fd = flooded_queue(t, desc, total, &f->key);
	if (fd < 0)
		return -1;
	while ((f->r = wl_wq_read(fd, &rec, WL_EVENT_TIMEOUT_MS / 5)) > 0) {
		if (rec.type == WATCH_TYPE_META &&
		    rec.subtype == WATCH_META_LOSS_NOTIFICATION) {
			f->losses++;
		} else if (rec.type == WATCH_TYPE_KEY_NOTIFY &&
			   rec.subtype == NOTIFY_KEY_UPDATED && rec.watch_id == 3) {
			f->updates++;
			f->flagged += !!(rec.info & WATCH_INFO_OVERRUN);
		} else {
			f->others++;
			wl_diag("unexpected record type %u subtype %u watch %u",
				rec.type, rec.subtype, rec.watch_id);
		}
	}
	return fd;
}

/* Overflow a one-page queue: the reader must be told records were lost. */
static enum wl_result overflow_delivers_loss_record(void)
{
	unsigned int total = 100;
	struct flood_read f;
	int fd = flood_and_read(WL_TRANSPORT_PIPE, "wl-flood", total, &f);

	WL_EXPECT(fd >= 0, "flooding a notification pipe failed");
	wl_wq_close(fd);
	wl_diag("%u updates posted, %u delivered, %u loss records", total, f.updates, f.losses);
	WL_EXPECT(f.r == 0, "reading the queue failed");
	WL_EXPECT(f.losses == 1, "want exactly one loss record, got %u", f.losses);
	WL_EXPECT(f.updates > 0 && f.updates < total,
		  "want some but not all %u updates, got %u", total, f.updates);
	return WL_PASS;
}

/*
 * Overflow a one-page ring: the records that fit arrive, the rest are
 * lost, and once the reader has made room the next record carries
 * WATCH_INFO_OVERRUN (the ring has no loss record).
 */
static enum wl_result overflow_sets_overrun_flag_ring(void)
{
	unsigned int total = 400;
	struct wl_record rec;
	struct flood_read f;
	int fd = flood_and_read(WL_TRANSPORT_RING, "wl-flood-ring", total, &f), r;

	WL_EXPECT(fd >= 0, "flooding a notification ring failed");
	WL_EXPECT(f.others == 0 && f.losses == 0, "the ring has no loss record, and only updates");
	WL_EXPECT(f.r == 0, "reading the ring failed");
	WL_EXPECT(f.updates > 0 && f.updates < total && f.flagged == 0,
		  "want some but not all %u updates, none flagged; got %u, %u flagged",
		  total, f.updates, f.flagged);
	WL_EXPECT(keyctl_update(f.key, "z", 1) == 0, "keyctl_update: %s", strerror(errno));
	r = wl_wq_read(fd, &rec, WL_EVENT_TIMEOUT_MS * 4);
	wl_wq_close(fd);
	wl_diag("%u updates posted, %u delivered before the reader made room", total,
		f.updates);
	WL_EXPECT(r == 1, "no record after the reader made room");
	WL_EXPECT(rec.info & WATCH_INFO_OVERRUN,
		  "the first record after the loss (info %#x) lacks WATCH_INFO_OVERRUN",
		  rec.info);
	return WL_PASS;
}

static const struct wl_test tests[] = {
	{ "own_keyring_events_uid0", own_keyring_events_uid0 },
	{ "own_keyring_events_uid1000", own_keyring_events_uid1000 },
};

WL_SCENARIO_SUITE(suite_keys, tests);

static const struct wl_test queue_tests[] = {
	{ "watch_without_view_is_eacces", watch_without_view_is_eacces },
	{ "overflow_delivers_loss_record", overflow_delivers_loss_record },
	{ "overflow_sets_overrun_flag_ring", overflow_sets_overrun_flag_ring },
};

WL_SUITE(suite_keys_queue, queue_tests);
