// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_watch.c - `wl watch`: open a queue (pipe or ring), optionally as a
 * party and with a filter, set one watch and print each record decoded,
 * until interrupted, a count or a time limit.  With --then, the watcher is
 * a child: once its watch is set, the command runs (with the caller's
 * creds), and when it has exited the watcher prints what its queue holds.
 * Every post is synchronous with its system call (keys, mounts,
 * superblocks), so that is exactly what the command posted: no timeout
 * decides it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <keyutils.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
/* glibc's <fcntl.h> already defines what <linux/fcntl.h> would redefine. */
#define _LINUX_FCNTL_H
#include <linux/watch_queue.h>

#include "cmd.h"
#include "devices_util.h"
#include "evidence.h"
#include "vfs_util.h"
#include "watchpol_util.h"
#include "wl.h"

#define MAX_FILTERS 8
#define MAX_PARTY_WORDS 16

struct watch_opts {
	enum wl_transport transport;
	bool as, no_subtree;
	struct scn_party party;
	const char *then;
	unsigned long count;	/* 0: no limit */
	unsigned long timeout_s;	/* 0: no limit */
	unsigned int id;
	unsigned long size;	/* records the queue holds */
	const char *what, *arg;
	unsigned int nfilters;
	struct watch_notification_type_filter filters[MAX_FILTERS];
};

static void watch_usage(FILE *f)
{
	fprintf(f, "usage: wl watch [OPTIONS] key ID | mount PATH | sb PATH | devices\n"
		"Open a notification queue, set a watch and print each record, decoded:\n"
		"type/subtype, watch id, flags and the ids the record carries; loss records\n"
		"(pipe) and overruns (ring) too.  Runs until interrupted, or:\n"
		"  -n, --count N       stop after N records\n"
		"  -t, --timeout S     stop after S seconds\n"
		"  --then 'COMMAND'    once the watch is set, run COMMAND (sh -c, with wl's\n"
		"                      own creds, not --as's); when it has exited, print what\n"
		"                      the queue holds and stop: what COMMAND posted, exactly\n"
		"Options:\n"
		"  --as 'PARTY'        set the watch as PARTY (wl as --help), e.g.\n"
		"                      --as 'uid=1000 label=watcher'\n"
		"  --ring              the /dev/watch_queue ring (default: a notification pipe)\n"
		"  --filter TYPE[:SUBTYPE,...]  pass only these records (repeatable); TYPE is\n"
		"                      key, mount, sb, block or usb; subtypes as in the records\n"
		"  --no-subtree        mount: only events on the watched mount itself, not on\n"
		"                      mounts below it (a filter on NOTIFY_MOUNT_IN_SUBTREE)\n"
		"  --id N              the watch id (0-255, default 1)\n"
		"  --size N            records the queue holds (default 256; the kernel\n"
		"                      rounds a pipe up to 32); a full pipe reports meta/loss\n"
		"What to watch:\n"
		"  key ID              a key or keyring: its serial number, or @s @u @us @p @t\n"
		"  mount PATH          the mount at PATH and the mounts below it\n"
		"  sb PATH             the superblock of the filesystem at PATH\n"
		"  devices             the system's device list (block and USB events)\n"
		"Exit status: 0; 1 if the watch could not be set or COMMAND failed; 2 usage.\n");
}

/* The WATCH_TYPE_* and scenario source of a type name; -1 if none. */
static int type_of(const char *name, enum scn_source *src)
{
	for (unsigned int t = 1; t < WATCH_TYPE__NR; t++)
		if (!strcmp(wl_evidence_type_name(t), name)) {
			for (int s = 0; s < SCN_NR_SOURCES; s++)
				if (!strcmp(scn_source_name(s), name))
					*src = s;
			return (int)t;
		}
	return -1;
}

static int add_filter(struct watch_opts *o, char *spec)
{
	char *colon = strchr(spec, ':');
	struct watch_notification_type_filter *f;
	enum scn_source src = SCN_KEY;
	int type;

	if (colon)
		*colon = '\0';
	type = type_of(spec, &src);
	if (type < 0)
		return wl_cmd_bad(&wl_cmd_watch, "--filter: unknown type '%s'", spec);
	if (o->nfilters == MAX_FILTERS)
		return wl_cmd_bad(&wl_cmd_watch, "more than %d --filter", MAX_FILTERS);
	f = &o->filters[o->nfilters++];
	f->type = type;
	if (!colon) {
		f->subtype_filter[0] = ~0U;
		return 0;
	}
	for (char *s = strtok(colon + 1, ","); s; s = strtok(NULL, ",")) {
		int st = scn_subtype(src, s);

		if (st < 0)
			return wl_cmd_bad(&wl_cmd_watch, "--filter: %s has no subtype '%s'",
					  spec, s);
		f->subtype_filter[0] |= 1U << st;
	}
	return 0;
}

/* The filter, if any: the --filter entries, and --no-subtree's info mask. */
static int set_filter(int fd, struct watch_opts *o)
{
	struct {
		struct watch_notification_filter f;
		struct watch_notification_type_filter t[MAX_FILTERS + 1];
	} spec;

	if (o->no_subtree) {
		bool have_mount = false;

		for (unsigned int i = 0; i < o->nfilters; i++)
			have_mount |= o->filters[i].type == WATCH_TYPE_MOUNT_NOTIFY;
		if (!have_mount)
			o->filters[o->nfilters++] = (struct watch_notification_type_filter){
				.type = WATCH_TYPE_MOUNT_NOTIFY, .subtype_filter = { ~0U } };
		for (unsigned int i = 0; i < o->nfilters; i++)
			if (o->filters[i].type == WATCH_TYPE_MOUNT_NOTIFY)
				o->filters[i].info_mask = NOTIFY_MOUNT_IN_SUBTREE;
	}
	if (!o->nfilters)
		return 0;
	memset(&spec, 0, sizeof(spec));
	spec.f.nr_filters = o->nfilters;
	memcpy(spec.t, o->filters, o->nfilters * sizeof(o->filters[0]));
	if (ioctl(fd, IOC_WATCH_QUEUE_SET_FILTER, &spec)) {
		wl_diag("watch: IOC_WATCH_QUEUE_SET_FILTER: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static const struct {
	const char *name;
	key_serial_t id;
} special_keys[] = {
	{ "@t", KEY_SPEC_THREAD_KEYRING }, { "@p", KEY_SPEC_PROCESS_KEYRING },
	{ "@s", KEY_SPEC_SESSION_KEYRING }, { "@u", KEY_SPEC_USER_KEYRING },
	{ "@us", KEY_SPEC_USER_SESSION_KEYRING },
};

static int parse_key(const char *s, key_serial_t *id)
{
	unsigned long v;
	char *end;

	for (size_t i = 0; i < WL_ARRAY_SIZE(special_keys); i++)
		if (!strcmp(s, special_keys[i].name)) {
			*id = special_keys[i].id;
			return 0;
		}
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || *s == '-' || v == 0 || v > INT32_MAX)
		return -1;
	*id = (key_serial_t)v;
	return 0;
}

/* Set the watch; print what is watched.  0, or -1 (diagnosed). */
static int set_watch(int fd, const struct watch_opts *o)
{
	char label[128], party[160] = "";
	const char *what = o->what;
	long r;

	if (!strcmp(what, "key")) {
		key_serial_t id = 0;

		parse_key(o->arg, &id);
		/* A special keyring: the serial of the caller's own. */
		if (id < 0) {
			key_serial_t real = keyctl_get_keyring_ID(id, 0);

			if (real < 0) {
				wl_diag("watch: %s: no such keyring: %s", o->arg, strerror(errno));
				return -1;
			}
			id = real;
		}
		r = keyctl(KEYCTL_WATCH_KEY, id, fd, o->id);
		snprintf(label, sizeof(label), "key %d", id);
	} else if (!strcmp(what, "mount")) {
		r = wl_watch_mount(AT_FDCWD, o->arg, 0, fd, o->id);
		snprintf(label, sizeof(label), "mount %s%s", o->arg,
			 o->no_subtree ? " (not its subtree)" : "");
	} else if (!strcmp(what, "sb")) {
		r = wl_watch_sb(AT_FDCWD, o->arg, 0, fd, o->id);
		snprintf(label, sizeof(label), "sb %s", o->arg);
	} else {
		r = wl_watch_devices(fd, o->id, 0);
		snprintf(label, sizeof(label), "devices");
	}
	if (r) {
		wl_diag("watch: set the watch on %s: %s", label, strerror(errno));
		return -1;
	}
	if (o->as) {
		char l[128];

		scn_party_format(&o->party, party, sizeof(party));
		if (*wl_cmd_label_of(&o->party, l, sizeof(l)))
			snprintf(party + strlen(party), sizeof(party) - strlen(party),
				 " (%s)", l);
	}
	printf("watching %s on a %s queue, watch id %u%s%s\n", label,
	       wl_transport_name(o->transport), o->id, o->as ? ", as " : "", party);
	fflush(stdout);
	return 0;
}

static void put_flags(char *buf, size_t len, const struct wl_record *r)
{
	static const struct {
		unsigned int type, bit;
		const char *name;
	} names[] = {
		{ WATCH_TYPE_MOUNT_NOTIFY, NOTIFY_MOUNT_IN_SUBTREE, "in-subtree" },
		{ WATCH_TYPE_MOUNT_NOTIFY, NOTIFY_MOUNT_IS_RECURSIVE, "recursive" },
		{ WATCH_TYPE_MOUNT_NOTIFY, NOTIFY_MOUNT_IS_NOW_RO, "now-ro" },
		{ WATCH_TYPE_MOUNT_NOTIFY, NOTIFY_MOUNT_IS_SUBMOUNT, "submount" },
		{ WATCH_TYPE_SB_NOTIFY, NOTIFY_SUPERBLOCK_IS_NOW_RO, "now-ro" },
	};
	unsigned int left = r->info & WATCH_INFO_TYPE_INFO;
	size_t n = 0;

	buf[0] = '\0';
	if (r->info & WATCH_INFO_OVERRUN)
		n += snprintf(buf + n, len - n, ",overrun");
	for (size_t i = 0; i < WL_ARRAY_SIZE(names) && n < len; i++)
		if (names[i].type == r->type && (left & names[i].bit)) {
			n += snprintf(buf + n, len - n, ",%s", names[i].name);
			left &= ~names[i].bit;
		}
	if (left && n < len)
		snprintf(buf + n, len - n, ",0x%x", left);
}

/* One record, one line: TYPE/SUBTYPE watch=ID [flags] and the payload's ids. */
static void print_record(const struct wl_record *r)
{
	char flags[96], body[160] = "", tn[16], sn[24];
	enum scn_source src = SCN_KEY;
	const void *p = r->data;

	put_flags(flags, sizeof(flags), r);
	snprintf(tn, sizeof(tn), "%s", r->type == WATCH_TYPE_META ? "meta" :
		 wl_evidence_type_name(r->type));
	if (r->type == WATCH_TYPE_META)
		snprintf(sn, sizeof(sn), "%s", r->subtype == WATCH_META_REMOVAL_NOTIFICATION ?
			 "removal" : r->subtype == WATCH_META_LOSS_NOTIFICATION ? "loss" : "?");
	else if (type_of(tn, &src) > 0)
		snprintf(sn, sizeof(sn), "%s", scn_subtype_name(src, r->subtype));
	if (r->type >= WATCH_TYPE__NR || !strcmp(sn, "?"))
		snprintf(sn, sizeof(sn), "%u", r->subtype);

	if (r->type == WATCH_TYPE_KEY_NOTIFY && r->len >= sizeof(struct key_notification)) {
		const struct key_notification *k = p;

		snprintf(body, sizeof(body), " key=%u aux=%u", k->key_id, k->aux);
	} else if (r->type == WATCH_TYPE_MOUNT_NOTIFY &&
		   r->len >= sizeof(struct mount_notification)) {
		const struct mount_notification *m = p;

		snprintf(body, sizeof(body), " on=%u changed=%u aux=%u unique=%llu",
			 m->triggered_on, m->changed_mount, m->auxiliary_mount,
			 (unsigned long long)m->changed_mount_unique);
	} else if (r->type == WATCH_TYPE_SB_NOTIFY &&
		   r->len >= sizeof(struct superblock_notification)) {
		const struct superblock_notification *s = p;
		int n = snprintf(body, sizeof(body), " sb=%u:%u", major(s->sb_id),
				 minor(s->sb_id));

		if (r->subtype == NOTIFY_SUPERBLOCK_ERROR &&
		    r->len >= sizeof(struct superblock_error_notification))
			snprintf(body + n, sizeof(body) - n, " errno=%u",
				 ((const struct superblock_error_notification *)p)->error_number);
	} else if (r->type == WATCH_TYPE_BLOCK_NOTIFY &&
		   r->len >= sizeof(struct block_notification)) {
		const struct block_notification *b = p;

		snprintf(body, sizeof(body), " dev=%u:%u sector=%llu", major(b->dev),
			 minor(b->dev), (unsigned long long)b->sector);
	} else if (r->type == WATCH_TYPE_USB_NOTIFY &&
		   r->len >= sizeof(struct usb_notification)) {
		const struct usb_notification *u = p;
		unsigned int nl = u->name_len;

		if (nl > r->len - sizeof(*u))
			nl = r->len - sizeof(*u);
		snprintf(body, sizeof(body), " name=%.*s", (int)nl, (const char *)u->name);
		if (r->subtype == NOTIFY_USB_DEVICE_ERROR)
			snprintf(body + strlen(body), sizeof(body) - strlen(body), " errno=%u",
				 u->error);
	} else if (r->type == WATCH_TYPE_META && r->subtype == WATCH_META_LOSS_NOTIFICATION) {
		snprintf(body, sizeof(body), " (records were lost: the queue was full)");
	}
	/* flags is ",a,b" or "": " flags=a,b" */
	printf("%s/%s watch=%u%s%s%s\n", tn, sn, r->watch_id, flags[0] ? " flags=" : "",
	       flags[0] ? flags + 1 : "", body);
}

/* Read and print records until the limits, a signal, or (drain) an empty queue. */
static int read_records(int fd, const struct watch_opts *o, bool drain)
{
	long end = o->timeout_s ? wl_now_ms() + (long)o->timeout_s * 1000 : 0;
	unsigned long n = 0;
	sigset_t stop, pending;
	int r = 0;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	while (!o->count || n < o->count) {
		struct wl_record rec;

		if (end && wl_now_ms() >= end)
			break;
		sigpending(&pending);
		if (sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM))
			break;
		r = wl_wq_read(fd, &rec, drain ? 0 : 200);
		if (r < 0)
			break;
		if (r == 0 && drain)
			break;
		if (r == 0)
			continue;
		print_record(&rec);
		n++;
	}
	printf("%lu record%s\n", n, n == 1 ? "" : "s");
	fflush(stdout);
	return r < 0 ? -1 : 0;
}

static int open_and_watch(struct watch_opts *o)
{
	int fd;

	if (o->as && wl_cmd_become(&o->party))
		return -1;
	fd = wl_queue_open(o->transport, o->size);
	if (fd < 0)
		return -1;
	if (set_filter(fd, o) || set_watch(fd, o)) {
		wl_wq_close(fd);
		return -1;
	}
	return fd;
}

/* The watcher, in a child: ready once the watch is set, then the drain on "go". */
static int then_watcher(struct watch_opts *o, int ready, int go)
{
	char c;
	int fd = open_and_watch(o);

	if (fd < 0)
		return 1;
	if (write(ready, "r", 1) != 1)
		return 1;
	close(ready);
	if (read(go, &c, 1) != 1)
		return 1;
	return read_records(fd, o, true) ? 1 : 0;
}

static int run_then(struct watch_opts *o)
{
	int ready[2], go[2], status, rc = 0;
	pid_t watcher, cmd;
	char c;

	if (pipe2(ready, O_CLOEXEC) || pipe2(go, O_CLOEXEC)) {
		wl_diag("watch: pipe: %s", strerror(errno));
		return 1;
	}
	fflush(NULL);
	watcher = fork();
	if (watcher < 0) {
		wl_diag("watch: fork: %s", strerror(errno));
		return 1;
	}
	if (watcher == 0) {
		close(ready[0]);
		close(go[1]);
		_exit(then_watcher(o, ready[1], go[0]));
	}
	close(ready[1]);
	close(go[0]);
	if (read(ready[0], &c, 1) != 1) {
		/* The watch was not set (diagnosed by the watcher): nothing runs. */
		waitpid(watcher, &status, 0);
		return 1;
	}
	cmd = fork();
	if (cmd == 0) {
		execl("/bin/sh", "sh", "-c", o->then, (char *)NULL);
		_exit(127);
	}
	if (cmd < 0 || waitpid(cmd, &status, 0) != cmd || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		wl_diag("watch: --then '%s' failed (status 0x%x)", o->then, cmd < 0 ? 0 : status);
		rc = 1;
	}
	/* A watcher that died already must not kill us with SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	if (write(go[1], "g", 1) != 1)
		rc = 1;
	if (waitpid(watcher, &status, 0) != watcher || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		rc = 1;
	return rc;
}

static int parse_number(const char *opt, const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || *v > max)
		return wl_cmd_bad(&wl_cmd_watch, "%s: '%s' is not a number up to %lu",
				  opt, s, max);
	return 0;
}

static int parse_as(struct watch_opts *o, char *words)
{
	char *w[MAX_PARTY_WORDS];
	int n = 0;

	for (char *t = strtok(words, " \t"); t; t = strtok(NULL, " \t")) {
		if (n == MAX_PARTY_WORDS)
			return wl_cmd_bad(&wl_cmd_watch, "--as: more than %d words",
					  MAX_PARTY_WORDS);
		w[n++] = t;
	}
	o->as = true;
	return wl_cmd_party(&wl_cmd_watch, n, w, &o->party) < 0 ? WL_CMD_USAGE : 0;
}

enum { OPT_RING = 256, OPT_AS, OPT_THEN, OPT_FILTER, OPT_NO_SUBTREE, OPT_ID, OPT_SIZE };

static int watch_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "ring", no_argument, NULL, OPT_RING },
		{ "as", required_argument, NULL, OPT_AS },
		{ "then", required_argument, NULL, OPT_THEN },
		{ "filter", required_argument, NULL, OPT_FILTER },
		{ "no-subtree", no_argument, NULL, OPT_NO_SUBTREE },
		{ "id", required_argument, NULL, OPT_ID },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "count", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	struct watch_opts o = { .transport = WL_TRANSPORT_PIPE, .id = 1, .size = 256 };
	unsigned long v;
	int c, fd, r;
	key_serial_t k;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":n:t:", longopts, NULL)) != -1) {
		r = 0;
		switch (c) {
		case OPT_RING:
			o.transport = WL_TRANSPORT_RING;
			break;
		case OPT_AS:
			r = parse_as(&o, optarg);
			break;
		case OPT_THEN:
			o.then = optarg;
			break;
		case OPT_FILTER:
			r = add_filter(&o, optarg);
			break;
		case OPT_NO_SUBTREE:
			o.no_subtree = true;
			break;
		case OPT_ID:
			r = parse_number("--id", optarg, 255, &v);
			o.id = v;
			break;
		case OPT_SIZE:
			r = parse_number("--size", optarg, 512, &o.size);
			if (!r && !o.size)
				r = wl_cmd_bad(&wl_cmd_watch, "--size: at least 1");
			break;
		case 'n':
			r = parse_number("--count", optarg, 1000000, &o.count);
			break;
		case 't':
			r = parse_number("--timeout", optarg, 86400, &o.timeout_s);
			break;
		case ':':
			return wl_cmd_bad(&wl_cmd_watch, "%s needs a value", argv[optind - 1]);
		default:
			return wl_cmd_bad(&wl_cmd_watch, "unknown option '%s'", argv[optind - 1]);
		}
		if (r)
			return r;
	}
	if (optind >= argc)
		return wl_cmd_bad(&wl_cmd_watch, "nothing to watch");
	o.what = argv[optind];
	o.arg = argv[optind + 1];
	if (!strcmp(o.what, "devices")) {
		if (o.arg)
			return wl_cmd_bad(&wl_cmd_watch, "devices takes no argument");
	} else if (!strcmp(o.what, "key") || !strcmp(o.what, "mount") || !strcmp(o.what, "sb")) {
		if (!o.arg || argv[optind + 2])
			return wl_cmd_bad(&wl_cmd_watch, "%s takes one argument", o.what);
		if (!strcmp(o.what, "key") && parse_key(o.arg, &k))
			return wl_cmd_bad(&wl_cmd_watch, "key: '%s' is not a key serial or @s @u @us @p @t",
					  o.arg);
	} else {
		return wl_cmd_bad(&wl_cmd_watch, "cannot watch '%s': key, mount, sb or devices",
				  o.what);
	}
	if (o.no_subtree && strcmp(o.what, "mount"))
		return wl_cmd_bad(&wl_cmd_watch, "--no-subtree is for mount watches");
	if (o.then)
		return run_then(&o);
	fd = open_and_watch(&o);
	if (fd < 0)
		return 1;
	r = read_records(fd, &o, false);
	wl_wq_close(fd);
	return r ? 1 : 0;
}

/*
 * watchpol records post decisions only while its log is held open: hold it
 * for the watch's lifetime, so that `wl policy log` shows this run's posts
 * afterwards (without watchpol, or without CAP_MAC_ADMIN, nothing to hold).
 */
static int watch_main(int argc, char **argv)
{
	int log = open(WP_LOG, O_RDONLY | O_CLOEXEC);
	int r = watch_run(argc, argv);

	if (log >= 0)
		close(log);
	return r;
}

const struct wl_cmd wl_cmd_watch = {
	.name = "watch",
	.summary = "set a watch (key, mount, sb, devices) and print the records that arrive",
	.main = watch_main,
	.usage = watch_usage,
};
