// SPDX-License-Identifier: GPL-2.0
/*
 * suite_watchpol.c - watchpol's securityfs interface and its decisions, as
 * seen from userspace: policy round trip, CAP_MAC_ADMIN, counters and log
 * against what happened, enforce 0, META records, a policy fuzz and policy
 * swaps racing with an event storm.  These tests set their own policies, so
 * they report no matrix cells: the scenarios do that for the runner's models.
 *
 * suite_watchpol_lock locks the policy until reboot, so it must be the
 * last suite of a boot that loads policies (its stage, WL_STAGE_LOCK, puts
 * it after every suite that loads one, the benchmark included).
 *
 * Every test leaves the policy it found in force.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <keyutils.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>

#include "evidence.h"
#include "scenario_run.h"
#include "vfs_util.h"
#include "watchpol_util.h"
#include "wl.h"

/* From <linux/watch_queue.h>, which clashes with <fcntl.h>. */
#define WP_TYPE_META 0
#define WP_TYPE_KEY_NOTIFY 1
#define WP_META_REMOVAL_NOTIFICATION 0

#define WP_WATCHER 1000
#define WP_TRIGGERER 1001

/* ---- stats and log ---- */

struct wp_count {
	unsigned long allow, deny;
};

/* "<hook> <model> <allow> <deny>" from stats. */
static int stat_row(const char *hook, const char *model, struct wp_count *c)
{
	char buf[8192], key[96];
	char *p;

	if (wl_try_read(WP_STATS, buf, sizeof(buf)) < 0) {
		wl_diag("read %s: %s", WP_STATS, strerror(errno));
		return -1;
	}
	snprintf(key, sizeof(key), "\n%s %s ", hook, model);
	p = strstr(buf, key);
	if (!p || sscanf(p + strlen(key), "%lu %lu", &c->allow, &c->deny) != 2) {
		wl_diag("stats has no row '%s %s'", hook, model);
		return -1;
	}
	return 0;
}

/* "<name> <value>" from stats. */
static long stat_value(const char *name)
{
	char buf[8192], key[64];
	char *p;
	long v;

	if (wl_try_read(WP_STATS, buf, sizeof(buf)) < 0)
		return -1;
	snprintf(key, sizeof(key), "\n%s ", name);
	p = strstr(buf, key);
	if (!p || sscanf(p + strlen(key), "%ld", &v) != 1)
		return -1;
	return v;
}

/* Count log lines that contain every one of the NULL-terminated words. */
static unsigned int count_lines(const char *log, const char *const *words)
{
	unsigned int n = 0;
	const char *line = log;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char tmp[1024];
		bool all = true;

		snprintf(tmp, sizeof(tmp), " %.*s ", (int)len, line);
		for (int i = 0; words[i]; i++) {
			char w[128];

			snprintf(w, sizeof(w), " %s ", words[i]);
			if (!strstr(tmp, w)) {
				all = false;
				break;
			}
		}
		n += all;
		line = end ? end + 1 : NULL;
	}
	return n;
}

/* ---- the policy oracle: the grammar of lsm/README.md in userspace ---- */

/* The kernel's models (the lab's columns add configurations of these). */
#define WP_MODELS "none", "watcher", "schaufler", "strict"
static const char *const models[] = { WP_MODELS };
static const char *const types[] = { "key", "mount", "sb", "block", "usb" };

#define ORACLE_MAX_RULES 16384

struct orule {
	int kind;		/* 0 post, 1 watch */
	const char *s, *o;
};

static int name_index(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

static int cmp_orule(const void *a, const void *b)
{
	const struct orule *x = a, *y = b;
	int r;

	if (x->kind != y->kind)
		return x->kind - y->kind;
	r = strcmp(x->s, y->s);
	return r ? r : strcmp(x->o, y->o);
}

/*
 * Canonicalise a policy as the kernel must: 0 with the canonical text in
 * out, or -1 with the first bad line in *errline.
 */
static int oracle(const char *in, size_t len, char *out, size_t outsz,
		  unsigned int *errline)
{
	static struct orule rules[ORACLE_MAX_RULES];
	int deflt = 0, tmodel[5], enforce = 1, kev = 1, pdac = -1, plabel = -1;
	bool set_d = false, set_e = false, set_k = false, ended = false, tset[5] = { 0 };
	unsigned int line = 1, nr = 0;
	char *copy, *s, *l;
	size_t pos = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = in[i];

		if (c == '\n')
			line++;
		else if (c != '\t' && (c < 0x20 || c > 0x7e)) {
			*errline = line;
			return -1;
		}
	}
	copy = strndup(in, len);
	if (!copy)
		return -1;
	line = 0;
	s = copy;
	while ((l = strsep(&s, "\n"))) {
		char *tok[4];
		int n = 0, m, t;
		bool bad = false;

		line++;
		for (char *p = l;;) {
			while (*p == ' ' || *p == '\t')
				p++;
			if (!*p || *p == '#')
				break;
			if (n == 4)
				break;
			tok[n++] = p;
			while (*p && *p != ' ' && *p != '\t')
				p++;
			if (*p)
				*p++ = '\0';
		}
		if (!n)
			continue;
		if (ended) {
			bad = true;
		} else if (!strcmp(tok[0], "end")) {
			bad = n != 1;
			ended = true;
		} else if (!strcmp(tok[0], "default")) {
			m = n == 2 ? name_index(models, WL_ARRAY_SIZE(models), tok[1]) : -1;
			bad = m < 0 || set_d;
			set_d = true;
			deflt = m;
		} else if (!strcmp(tok[0], "model")) {
			t = n == 3 ? name_index(types, 5, tok[1]) : -1;
			m = n == 3 ? name_index(models, WL_ARRAY_SIZE(models), tok[2]) : -1;
			bad = t < 0 || m < 0 || tset[t];
			if (!bad) {
				tset[t] = true;
				tmodel[t] = m;
			}
		} else if (!strcmp(tok[0], "enforce")) {
			bad = n != 2 || set_e ||
			      (strcmp(tok[1], "0") && strcmp(tok[1], "1"));
			set_e = true;
			if (!bad)
				enforce = tok[1][0] == '1';
		} else if (!strcmp(tok[0], "kernel_events")) {
			bad = n != 2 || set_k ||
			      (strcmp(tok[1], "allow") && strcmp(tok[1], "deny"));
			set_k = true;
			if (!bad)
				kev = !strcmp(tok[1], "allow");
		} else if (!strcmp(tok[0], "post_dac") || !strcmp(tok[0], "post_label")) {
			int *v = tok[0][5] == 'd' ? &pdac : &plabel;

			bad = n != 2 || *v >= 0 || (strcmp(tok[1], "on") && strcmp(tok[1], "off"));
			if (!bad)
				*v = !strcmp(tok[1], "on");
		} else if (!strcmp(tok[0], "post") || !strcmp(tok[0], "watch")) {
			bad = n != 3 || strlen(tok[1]) > 255 ||
			      strlen(tok[2]) > 255 || nr >= ORACLE_MAX_RULES;
			if (!bad)
				rules[nr++] = (struct orule){ tok[0][0] == 'w',
							      tok[1], tok[2] };
		} else {
			bad = true;
		}
		if (bad) {
			*errline = line;
			free(copy);
			return -1;
		}
	}
	qsort(rules, nr, sizeof(rules[0]), cmp_orule);
	pos += snprintf(out + pos, outsz - pos, "default %s\n", models[deflt]);
	for (int t = 0; t < 5; t++)
		if (tset[t])
			pos += snprintf(out + pos, outsz - pos, "model %s %s\n",
					types[t], models[tmodel[t]]);
	pos += snprintf(out + pos, outsz - pos, "enforce %d\nkernel_events %s\n",
			enforce, kev ? "allow" : "deny");
	if (pdac >= 0)
		pos += snprintf(out + pos, outsz - pos, "post_dac %s\n", pdac ? "on" : "off");
	if (plabel >= 0)
		pos += snprintf(out + pos, outsz - pos, "post_label %s\n", plabel ? "on" : "off");
	for (unsigned int i = 0; i < nr && pos < outsz; i++) {
		if (i && !cmp_orule(&rules[i - 1], &rules[i]))
			continue;
		pos += snprintf(out + pos, outsz - pos, "%s %s %s\n",
				rules[i].kind ? "watch" : "post", rules[i].s,
				rules[i].o);
	}
	/* What the kernel reads back ends in the end line. */
	if (pos < outsz)
		snprintf(out + pos, outsz - pos, "end\n");
	free(copy);
	return 0;
}

/* ---- credentials ---- */

/* Drop one capability from the effective, permitted and inheritable sets. */
static int drop_cap(int cap)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[cap / 32].effective &= ~(1u << (cap % 32));
	d[cap / 32].permitted &= ~(1u << (cap % 32));
	d[cap / 32].inheritable &= ~(1u << (cap % 32));
	return syscall(SYS_capset, &h, d);
}

/* ---- tests ---- */

static const char *const round_trip_policies[] = {
	"",
	"default strict\n",
	"# comment\n\tdefault   watcher  # trailing comment\nenforce 0\n",
	"model usb none\nmodel key watcher\ndefault schaufler\nkernel_events deny\n",
	/* Contexts the lab's SELinux policy defines: the selinux boot resolves them. */
	"post system_u:system_r:wl_triggerer_t:s0 system_u:system_r:wl_bystander_t:s0\n"
	"post system_u:system_r:wl_bystander_t:s0 system_u:system_r:wl_triggerer_t:s0\n"
	"post system_u:system_r:wl_bystander_t:s0 system_u:system_r:wl_triggerer_t:s0\n"
	"watch system_u:system_r:wl_watcher_t:s0 system_u:object_r:wl_object_t:s0\n",
	"enforce 1",
	"post_label on\npost_dac off\ndefault schaufler\n",
};

static enum wl_result check_round_trip(const char *text, size_t len,
				       const char *what)
{
	static char want[WP_MAX_TEXT];
	unsigned int line;
	char *got, *again;
	int r;

	WL_EXPECT(oracle(text, len, want, sizeof(want), &line) == 0,
		  "%s: the oracle rejects it at line %u", what, line);
	r = wp_write_policy(text, len);
	WL_EXPECT(r == 0, "%s: write: %s", what, strerror(-r));
	got = wp_read_policy();
	WL_EXPECT(got, "%s: read back failed", what);
	WL_EXPECT(!strcmp(got, want), "%s: read back\n%s\nwant\n%s", what, got, want);
	r = wp_write_policy_str(got);
	WL_EXPECT(r == 0, "%s: writing the read-back text: %s", what, strerror(-r));
	again = wp_read_policy();
	WL_EXPECT(again && !strcmp(again, got),
		  "%s: canonical text changed on a second round trip", what);
	free(got);
	free(again);
	return WL_PASS;
}

static enum wl_result policy_round_trip(void)
{
	static const char *const files[] = {
		"/etc/watchlab/watchpol/none.policy",
		"/etc/watchlab/watchpol/watcher.policy",
		"/etc/watchlab/watchpol/schaufler.policy",
		"/etc/watchlab/watchpol/strict.policy",
	};
	enum wl_result res = WL_PASS;
	char *buf = malloc(WP_MAX_TEXT);

	WL_EXPECT(buf && wp_save_policy(), "could not save the policy in force");
	for (size_t i = 0; i < WL_ARRAY_SIZE(round_trip_policies) && res == WL_PASS; i++)
		res = check_round_trip(round_trip_policies[i],
				       strlen(round_trip_policies[i]),
				       round_trip_policies[i]);
	for (size_t i = 0; i < WL_ARRAY_SIZE(files) && res == WL_PASS; i++) {
		ssize_t n = wl_try_read(files[i], buf, WP_MAX_TEXT);

		if (n < 0) {
			wl_diag("%s: %s", files[i], strerror(errno));
			res = WL_FAIL;
			break;
		}
		res = check_round_trip(buf, n, files[i]);
	}
	free(buf);
	if (!wp_restore_policy())
		return WL_FAIL;
	return res;
}

/* Malformed policy: EINVAL, the old policy stays, the log names the line. */
static enum wl_result bad_policy_rejected_whole(void)
{
	const char *good = "default watcher\nenforce 0\n";
	const char *bad = "default strict\nenforce 1\nmodel key sometimes\npost a b\n";
	char *before, *after;
	int r;

	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	r = wp_write_policy_str(good);
	WL_EXPECT(r == 0, "write a good policy: %s", strerror(-r));
	before = wp_read_policy();
	r = wp_write_policy_str(bad);
	WL_EXPECT(r == -EINVAL, "a bad policy got %s, want EINVAL",
		  r ? strerror(-r) : "success");
	after = wp_read_policy();
	WL_EXPECT(before && after && !strcmp(before, after),
		  "the policy in force changed after a rejected write:\n%s", after);

	WL_EXPECT(wl_klog_count("watchpol: policy rejected: line 3: model: unknown model") > 0,
		  "the kernel log does not name line 3 of the rejected policy");
	free(before);
	free(after);
	return wp_restore_policy() ? WL_PASS : WL_FAIL;
}

/* ---- the write protocol: whole or nothing, whatever the writes ---- */

/*
 * A policy far larger than one page whose deciding statements come last:
 * the first 4 KiB to 64 KiB are comments only, as in the fail-open cut of
 * issue 12 (a 4 KiB prefix of comments loaded as "default none").
 */
static size_t big_policy(char *out, size_t size)
{
	size_t pos = 0;

	while (pos < 80 * 1024)
		pos += snprintf(out + pos, size - pos,
				"# line %06zu: padding that makes the policy span pages\n", pos);
	pos += snprintf(out + pos, size - pos,
			"default strict\nmodel key none\nkernel_events deny\nenforce 1\nend\n");
	return pos;
}

static const char big_canon[] =
	"default strict\nmodel key none\nenforce 1\nkernel_events deny\nend\n";
static const char other_policy[] = "default watcher\nenforce 0\n";
static const char other_canon[] =
	"default watcher\nenforce 0\nkernel_events allow\nend\n";

static bool policy_is(const char *want)
{
	char *got = wp_read_policy();
	bool same = got && !strcmp(got, want);

	if (!same)
		wl_diag("policy in force:\n%s\nwant\n%s", got ? got : "(unreadable)", want);
	free(got);
	return same;
}

/* The same policy in writes of 1, 7, 4096, 16384, 65536 bytes and in one. */
static enum wl_result policy_chunked_writes_load_whole(void)
{
	static const size_t chunks[] = { 1, 7, 4096, 16384, 65536, 0 };
	static char text[96 * 1024];
	size_t len = big_policy(text, sizeof(text));
	int r;

	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	for (size_t i = 0; i < WL_ARRAY_SIZE(chunks); i++) {
		r = wp_write_policy_str(other_policy);
		WL_EXPECT(r == 0 && policy_is(other_canon), "set the other policy: %s",
			  strerror(-r));
		r = wp_write_policy_chunked(text, len, chunks[i]);
		WL_EXPECT(r == 0, "%zu-byte writes of a %zu-byte policy: %s",
			  chunks[i], len, strerror(-r));
		WL_EXPECT(policy_is(big_canon), "%zu-byte writes loaded something else",
			  chunks[i]);
	}
	return wp_restore_policy() ? WL_PASS : WL_FAIL;
}

/*
 * Write raw text (no end line added) in 4 KiB writes, then close: the
 * writes succeed, close() fails with EINVAL, nothing changes.
 */
static enum wl_result truncated_never_loads(const char *text, size_t len, const char *what)
{
	int fd = open(WP_POLICY, O_WRONLY | O_CLOEXEC), r;

	WL_EXPECT(fd >= 0, "open: %s", strerror(errno));
	for (size_t pos = 0; pos < len; pos += 4096) {
		size_t n = len - pos < 4096 ? len - pos : 4096;

		WL_EXPECT(write(fd, text + pos, n) == (ssize_t)n, "%s: write at %zu: %s",
			  what, pos, strerror(errno));
	}
	r = close(fd) ? errno : 0;
	WL_EXPECT(r == EINVAL, "%s: close got %s, want EINVAL", what,
		  r ? strerror(r) : "success");
	WL_EXPECT(policy_is(other_canon), "%s: the policy in force changed", what);
	return WL_PASS;
}

static enum wl_result policy_truncated_never_loads(void)
{
	static char text[96 * 1024];
	size_t len = big_policy(text, sizeof(text));
	const char *last = strstr(text, "kernel_events deny");
	int r;

	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	r = wp_write_policy_str(other_policy);
	WL_EXPECT(r == 0, "set the other policy: %s", strerror(-r));
	/* At the line boundary before the end line, mid-line, inside "end". */
	WL_EXPECT(truncated_never_loads(text, len - 4, "cut before the end line") == WL_PASS,
		  "a policy cut at a line boundary");
	WL_EXPECT(truncated_never_loads(text, last + 8 - text, "cut mid-line") == WL_PASS,
		  "a policy cut mid-line");
	WL_EXPECT(truncated_never_loads(text, len - 2, "cut inside end") == WL_PASS,
		  "a policy cut inside its end line");
	WL_EXPECT(truncated_never_loads(text, 4096, "the first page") == WL_PASS,
		  "the first page of a policy");
	WL_EXPECT(wl_klog_count("watchpol: policy rejected: closed without an end line") > 0,
		  "the kernel log does not say why nothing was loaded");
	return wp_restore_policy() ? WL_PASS : WL_FAIL;
}

/* write(2) the text; its errno, 0 on success, EIO for a short write. */
static int write_errno(int fd, const char *text, size_t len)
{
	ssize_t n = write(fd, text, len);

	return n < 0 ? errno : (size_t)n == len ? 0 : EIO;
}

static enum wl_result policy_write_misuse_changes_nothing(void)
{
	static char big[WP_MAX_TEXT];
	char *unreadable = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd, e;
	off_t off;

	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	e = -wp_write_policy_str(other_policy);
	WL_EXPECT(!e, "set the other policy: %s", strerror(e));

	/* Zero-length and unreadable writes and pwrite/lseek fail; the load goes on. */
	fd = open(WP_POLICY, O_WRONLY | O_CLOEXEC);
	WL_EXPECT(fd >= 0, "open: %s", strerror(errno));
	WL_EXPECT((e = write_errno(fd, "", 0)) == EINVAL,
		  "zero-length write got %s, want EINVAL", strerror(e));
	WL_EXPECT(!(e = write_errno(fd, "default strict\n", 15)), "write: %s", strerror(e));
	/* A write from an address not mapped readable: EFAULT, and nothing taken. */
	WL_EXPECT(unreadable != MAP_FAILED, "mmap(PROT_NONE): %s", strerror(errno));
	WL_EXPECT((e = write_errno(fd, unreadable, 13)) == EFAULT,
		  "a write from an unreadable page got %s, want EFAULT", strerror(e));
	munmap(unreadable, 4096);
	WL_EXPECT(pwrite(fd, "default none\n", 13, 100) < 0 && errno == ESPIPE,
		  "pwrite at offset 100 got %s, want ESPIPE", strerror(errno));
	WL_EXPECT(pwrite(fd, "default none\n", 13, 15) < 0 && errno == ESPIPE,
		  "pwrite at offset 15 got %s, want ESPIPE", strerror(errno));
	off = lseek(fd, 0, SEEK_SET);
	WL_EXPECT(off < 0 && errno == ESPIPE, "lseek got %s, want ESPIPE",
		  off < 0 ? strerror(errno) : "success");
	WL_EXPECT((e = write_errno(fd, "", 0)) == EINVAL,
		  "zero-length write got %s, want EINVAL", strerror(e));
	WL_EXPECT(policy_is(other_canon), "the policy changed before the end line");
	WL_EXPECT(!(e = write_errno(fd, "end\n", 4)), "write the end line: %s", strerror(e));
	/* Parsed at the end line, in force at the writer's close. */
	WL_EXPECT(policy_is(other_canon), "the policy went in force before close");
	WL_EXPECT(!(e = write_errno(fd, "# a comment after the end\n\n", 27)),
		  "a comment after the end line: %s", strerror(e));
	WL_EXPECT(!close(fd), "close after the end line: %s", strerror(errno));
	WL_EXPECT(policy_is("default strict\nenforce 1\nkernel_events allow\nend\n"),
		  "the policy written around the failed calls did not load whole");

	/* A rejected policy; then nothing on that file loads. */
	e = -wp_write_policy_str(other_policy);
	WL_EXPECT(!e, "set the other policy: %s", strerror(e));
	fd = open(WP_POLICY, O_WRONLY | O_CLOEXEC);
	WL_EXPECT(fd >= 0, "open: %s", strerror(errno));
	WL_EXPECT((e = write_errno(fd, "default sometimes\nend\n", 22)) == EINVAL,
		  "a bad policy got %s, want EINVAL", strerror(e));
	WL_EXPECT((e = write_errno(fd, "default strict\nend\n", 19)) == EBADFD,
		  "write after a rejection got %s, want EBADFD", strerror(e));
	WL_EXPECT(!close(fd), "close after a rejection: %s", strerror(errno));
	WL_EXPECT(policy_is(other_canon), "the policy changed after a rejection");

	/* Statements after the end line, in the same write. */
	fd = open(WP_POLICY, O_WRONLY | O_CLOEXEC);
	WL_EXPECT(fd >= 0, "open: %s", strerror(errno));
	WL_EXPECT((e = write_errno(fd, "default strict\nend\ndefault none\n", 32)) == EINVAL,
		  "text after the end line got %s, want EINVAL", strerror(e));
	close(fd);
	WL_EXPECT(policy_is(other_canon), "text after the end line changed the policy");

	/* Over the size limit: EFBIG, then the file takes nothing. */
	memset(big, '#', sizeof(big));
	fd = open(WP_POLICY, O_WRONLY | O_CLOEXEC);
	WL_EXPECT(fd >= 0, "open: %s", strerror(errno));
	for (int i = 0; i < 4; i++)
		WL_EXPECT(!(e = write_errno(fd, big, sizeof(big))), "write %d: %s", i,
			  strerror(e));
	WL_EXPECT((e = write_errno(fd, "\n", 1)) == EFBIG,
		  "the byte past 256 KiB got %s, want EFBIG", strerror(e));
	WL_EXPECT((e = write_errno(fd, "end\n", 4)) == EBADFD,
		  "write after EFBIG got %s, want EBADFD", strerror(e));
	close(fd);
	WL_EXPECT(policy_is(other_canon), "an oversized policy changed the policy");

	/* Reading and writing at once is refused. */
	fd = open(WP_POLICY, O_RDWR | O_CLOEXEC);
	WL_EXPECT(fd < 0 && errno == EINVAL, "O_RDWR open got %s, want EINVAL",
		  fd < 0 ? strerror(errno) : "success");
	return wp_restore_policy() ? WL_PASS : WL_FAIL;
}

/*
 * Write @text on one open file in two writes cut at @cut (one write when
 * @cut is 0 or the length), then close.  The first errno of the writes
 * and of close(), 0 if none.
 */
static int write_split(const char *text, size_t cut)
{
	size_t len = strlen(text);
	int fd = open(WP_POLICY, O_WRONLY | O_CLOEXEC), e = 0;

	if (fd < 0)
		return errno;
	if (cut && cut < len) {
		e = write_errno(fd, text, cut);
		if (!e)
			e = write_errno(fd, text + cut, len - cut);
	} else {
		e = write_errno(fd, text, len);
	}
	if (close(fd) && !e)
		e = errno;
	return e;
}

/*
 * Text after the end line is one rule whatever the writes (review M1):
 * a statement there rejects the policy, blanks and comments load it.
 * Every cut point of each text, and a byte at a time.  The first text is
 * the review's: "default none" must never be left in force.
 */
static enum wl_result policy_text_after_end_at_every_split(void)
{
	static const char stmt[] =
		"default none\nend\ndefault strict\nkernel_events deny\nend\n";
	static const char comments[] = "default strict\nend\n\n  # trailing\n\t#\n";
	static const char strict_canon[] =
		"default strict\nenforce 1\nkernel_events allow\nend\n";
	size_t len;
	int e, fd;

	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	len = strlen(stmt);
	for (size_t cut = 0; cut <= len; cut++) {
		e = -wp_write_policy_str(other_policy);
		WL_EXPECT(!e, "set the other policy: %s", strerror(e));
		e = write_split(stmt, cut);
		WL_EXPECT(e == EINVAL, "a statement after end, cut at %zu: %s, want EINVAL",
			  cut, e ? strerror(e) : "success");
		WL_EXPECT(policy_is(other_canon),
			  "a statement after end, cut at %zu: the policy changed", cut);
	}
	len = strlen(comments);
	for (size_t cut = 0; cut <= len; cut++) {
		e = -wp_write_policy_str(other_policy);
		WL_EXPECT(!e, "set the other policy: %s", strerror(e));
		e = write_split(comments, cut);
		WL_EXPECT(!e, "comments after end, cut at %zu: %s", cut, strerror(e));
		WL_EXPECT(policy_is(strict_canon),
			  "comments after end, cut at %zu: not loaded", cut);
	}
	/* A byte at a time: the statement after end is refused. */
	e = -wp_write_policy_str(other_policy);
	WL_EXPECT(!e, "set the other policy: %s", strerror(e));
	fd = open(WP_POLICY, O_WRONLY | O_CLOEXEC);
	WL_EXPECT(fd >= 0, "open: %s", strerror(errno));
	len = strlen(stmt);
	e = 0;
	for (size_t i = 0; i < len && !e; i++)
		e = write_errno(fd, stmt + i, 1);
	WL_EXPECT(e == EINVAL, "byte writes with a statement after end: %s, want EINVAL",
		  e ? strerror(e) : "success");
	close(fd);
	WL_EXPECT(policy_is(other_canon), "byte writes: the policy changed");
	WL_EXPECT(wl_klog_count("watchpol: policy rejected: line 3: statement after end") > 0,
		  "the kernel log does not say why");
	return wp_restore_policy() ? WL_PASS : WL_FAIL;
}

/* Without a label source, stats says the label part is inactive. */
static enum wl_result stats_label_part(void)
{
	bool labels = strcmp(wl_profile(), "plain") != 0;
	char buf[8192], *p;

	WL_EXPECT(wl_try_read(WP_STATS, buf, sizeof(buf)) >= 0, "read %s: %s", WP_STATS,
		  strerror(errno));
	p = strstr(buf, "\nlabel_part ");
	WL_EXPECT(p, "stats has no label_part line:\n%s", buf);
	p += strlen("\nlabel_part ");
	WL_EXPECT(!strncmp(p, labels ? "active\n" : "inactive\n", labels ? 7 : 9),
		  "profile %s: label_part %.*s, want %s", wl_profile(),
		  (int)strcspn(p, "\n"), p, labels ? "active" : "inactive");
	return WL_PASS;
}

/*
 * The kernel is the kernel: a mount dissolved by unix GC is posted from a
 * kworker, which runs on its own copy of init_cred.  kernel_events must
 * decide it, with the fput-creds switch on and off; judged as uid 0 (the
 * kworker's creds without kernel-patches/0010) it passes on CAP_KILL.
 */
static enum wl_result kernel_events_govern_kworker_posts(void)
{
	static const char path[] = "/etc/watchlab/scenarios/lkml-2019.scn";
	const struct scenario *gc = NULL;
	struct scn_set set = { 0 };
	unsigned int v[4];
	char err[256];
	size_t nv;
	int bad = 0;

	WL_EXPECT(!scn_parse_file(&set, path, err, sizeof(err)), "%s", err);
	for (size_t i = 0; i < set.n; i++)
		if (!strcmp(set.v[i].name, "unix-gc"))
			gc = &set.v[i];
	WL_EXPECT(gc, "%s has no scenario unix-gc", path);
	nv = scn_variant_list(gc, v, 4);
	/* The debug boot (about 50x slower): deny with the first variant only. */
	if (wl_debug_kernel())
		nv = 1;
	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	for (int deny = wl_debug_kernel(); deny < 2; deny++) {
		int r = wp_write_policy_str(deny ? "default schaufler\nkernel_events deny\n" :
						   "default schaufler\nkernel_events allow\n");

		if (r) {
			wl_diag("write the policy: %s", strerror(-r));
			bad = 1;
			break;
		}
		for (size_t j = 0; j < nv; j++) {
			enum scn_result want = deny ? SCN_BLOCKED : SCN_DELIVERED, got;
			char row[SCN_NAME_MAX + 24];

			static struct wl_evidence ev;
			int watch_err = 0;

			if (wl_evidence_begin(&ev)) {
				bad = 1;
				break;
			}
			got = scn_run(gc, v[j], &ev, &watch_err);
			wl_evidence_end(&ev);
			scn_row_name(gc, v[j], row, sizeof(row));
			if (got != want) {
				wl_diag("%s with kernel_events %s: %s, want %s", row,
					deny ? "deny" : "allow", scn_result_name(got),
					scn_result_name(want));
				for (char *l = strstr(ev.log, "hook=post"); l;
				     l = strstr(l + 1, "hook=post"))
					wl_diag("%.*s", (int)strcspn(l, "\n"), l);
				bad = 1;
			}
		}
	}
	scn_set_free(&set);
	WL_EXPECT(wp_restore_policy(), "could not restore the policy");
	return bad ? WL_FAIL : WL_PASS;
}

static int no_mac_admin_child(void *arg)
{
	char buf[256];
	int r, fd, bad = 0;

	(void)arg;
	if (drop_cap(33 /* CAP_MAC_ADMIN */)) {
		wl_diag("capset without CAP_MAC_ADMIN: %s", strerror(errno));
		return 1;
	}
	r = wp_write_policy_str("default strict\n");
	if (r != -EPERM) {
		wl_diag("policy write without CAP_MAC_ADMIN: %s, want EPERM",
			r ? strerror(-r) : "success");
		bad = 1;
	}
	r = wp_write_one(WP_LOCK, "1", 1);
	if (r != -EPERM) {
		wl_diag("lock write without CAP_MAC_ADMIN: %s, want EPERM",
			r ? strerror(-r) : "success");
		bad = 1;
	}
	fd = open(WP_LOG, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 || errno != EPERM) {
		wl_diag("opening the log without CAP_MAC_ADMIN: %s, want EPERM",
			fd >= 0 ? "success" : strerror(errno));
		bad = 1;
	}
	if (fd >= 0)
		close(fd);
	if (wl_try_read(WP_POLICY, buf, sizeof(buf)) < 0 ||
	    wl_try_read(WP_LOCK, buf, sizeof(buf)) < 0) {
		wl_diag("reading policy or lock without CAP_MAC_ADMIN: %s",
			strerror(errno));
		bad = 1;
	}
	/* The counters are a channel between users: CAP_MAC_ADMIN only. */
	if (wl_try_read(WP_STATS, buf, sizeof(buf)) >= 0 || errno != EPERM) {
		wl_diag("reading stats without CAP_MAC_ADMIN: %s, want EPERM",
			strerror(errno));
		bad = 1;
	}
	return bad;
}

/* An fd opened with CAP_MAC_ADMIN is no use to a caller without it. */
static int passed_fd_child(void *arg)
{
	int fd = *(int *)arg;

	if (write(fd, "default strict\n", 15) >= 0 || errno != EPERM) {
		wl_diag("write through a privileged fd as uid %d: %s, want EPERM",
			getuid(), strerror(errno));
		return 1;
	}
	return 0;
}

static int unprivileged_user_child(void *arg)
{
	int r = wp_write_policy_str("default strict\n");
	char buf[64];

	(void)arg;
	if (wl_try_read(WP_STATS, buf, sizeof(buf)) >= 0 ||
	    (errno != EACCES && errno != EPERM)) {
		wl_diag("reading stats as uid %d: %s, want EACCES or EPERM",
			getuid(), strerror(errno));
		return 1;
	}
	if (r != -EPERM && r != -EACCES) {
		wl_diag("policy write as uid %d: %s, want EACCES or EPERM",
			getuid(), r ? strerror(-r) : "success");
		return 1;
	}
	return 0;
}

/* Reading stats through an fd a privileged opener passed on. */
static int stats_fd_child(void *arg)
{
	char buf[256];
	ssize_t n = read(*(int *)arg, buf, sizeof(buf));

	if (n >= 0 || errno != EPERM) {
		wl_diag("reading stats through a privileged fd as uid %d: %s, want EPERM",
			getuid(), n >= 0 ? "success" : strerror(errno));
		return 1;
	}
	return 0;
}

/*
 * The counters are CAP_MAC_ADMIN's at every read, as the log is, not only
 * at open: a descriptor handed on (SCM_RIGHTS, inheritance) reads nothing.
 */
static enum wl_result stats_checked_at_read(void)
{
	struct wl_creds user = wl_user(WP_WATCHER);
	int fd = open(WP_STATS, O_RDONLY | O_CLOEXEC), r;

	WL_EXPECT(fd >= 0, "open %s: %s", WP_STATS, strerror(errno));
	r = wl_run_as(&user, stats_fd_child, &fd);
	close(fd);
	WL_EXPECT(r == 0, "uid %d read the counters through root's descriptor", WP_WATCHER);
	return WL_PASS;
}

static enum wl_result writes_need_cap_mac_admin(void)
{
	struct wl_creds root = wl_user(0), user = wl_user(WP_WATCHER);
	char *before, *after;
	int fd;

	before = wp_read_policy();
	WL_EXPECT(before, "read the policy");
	WL_EXPECT(wl_run_as(&root, no_mac_admin_child, NULL) == 0,
		  "root without CAP_MAC_ADMIN was not refused");
	WL_EXPECT(wl_run_as(&user, unprivileged_user_child, NULL) == 0,
		  "uid %d was not refused", WP_WATCHER);
	fd = open(WP_POLICY, O_WRONLY | O_CLOEXEC);
	WL_EXPECT(fd >= 0, "open %s for writing: %s", WP_POLICY, strerror(errno));
	WL_EXPECT(wl_run_as(&user, passed_fd_child, &fd) == 0,
		  "a privileged fd let uid %d change the policy", WP_WATCHER);
	close(fd);
	after = wp_read_policy();
	WL_EXPECT(after && !strcmp(before, after),
		  "the policy changed after refused writes:\n%s", after);
	free(before);
	free(after);
	return WL_PASS;
}

/* ---- when a written policy goes in force ---- */

static const char none_canon[] = "default none\nenforce 1\nkernel_events allow\nend\n";
static const char strict_deny_canon[] =
	"default strict\nenforce 1\nkernel_events deny\nend\n";

/* A child that holds the inherited descriptors as uid WP_WATCHER until killed. */
static pid_t spawn_holder(void)
{
	struct wl_creds user = wl_user(WP_WATCHER);
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		if (wl_drop_creds(&user))
			_exit(WL_EXIT_NO_CREDS);
		for (;;)
			pause();
	}
	if (pid < 0)
		wl_diag("fork: %s", strerror(errno));
	return pid;
}

/* Kill and reap a holder; true if it was still holding when killed. */
static bool kill_holder(pid_t pid)
{
	int status;

	if (kill(pid, SIGKILL) || waitpid(pid, &status, 0) != pid)
		return false;
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

/*
 * A complete policy goes in force when its writer closes the file, and
 * no other holder of the file can put it in force later (12-07 review
 * H2).  The writer writes "default none", a child inherits the file and
 * drops to uid WP_WATCHER, the writer closes: the policy is "default
 * none" at once.  Then "default strict" is loaded and the child is
 * killed: the policy stays strict.  Under the old rule (the last close
 * commits) the writer's close() said success and loaded nothing, and the
 * child's exit loaded "default none" over strict, a silent fail-open.
 * And the other order: a holder that exits while the writer still has
 * the file open loads nothing; the writer's close does.
 */
static enum wl_result pending_policy_does_not_roll_back(void)
{
	int fd, e, r;
	pid_t holder;

	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	r = wp_write_policy_str(other_policy);
	WL_EXPECT(r == 0, "set the other policy: %s", strerror(-r));

	fd = open(WP_POLICY, O_WRONLY);
	WL_EXPECT(fd >= 0, "open: %s", strerror(errno));
	WL_EXPECT(!(e = write_errno(fd, "default none\nend\n", 17)), "write: %s", strerror(e));
	holder = spawn_holder();
	WL_EXPECT(holder > 0, "could not fork the holder");
	e = close(fd) ? errno : 0;
	WL_EXPECT(!e, "the writer's close: %s", strerror(e));
	WL_EXPECT(policy_is(none_canon), "the writer's close did not put its policy in force");
	r = wp_write_policy_str("default strict\nkernel_events deny\n");
	WL_EXPECT(r == 0 && policy_is(strict_deny_canon), "load strict: %s", strerror(-r));
	WL_EXPECT(kill_holder(holder), "the holder was not holding the file when killed");
	WL_EXPECT(policy_is(strict_deny_canon),
		  "the holder's exit rolled the policy back to the writer's older text");

	fd = open(WP_POLICY, O_WRONLY);
	WL_EXPECT(fd >= 0, "open: %s", strerror(errno));
	WL_EXPECT(!(e = write_errno(fd, "default none\nend\n", 17)), "write: %s", strerror(e));
	holder = spawn_holder();
	WL_EXPECT(holder > 0 && kill_holder(holder), "could not fork and kill a holder");
	WL_EXPECT(policy_is(strict_deny_canon), "a holder's exit put the writer's text in force");
	e = close(fd) ? errno : 0;
	WL_EXPECT(!e && policy_is(none_canon), "the writer's close after the holder's exit: %s",
		  strerror(e));
	return wp_restore_policy() ? WL_PASS : WL_FAIL;
}

/*
 * A text begun before another load is stale: its writer's close() fails
 * with ESTALE, the newer policy stays, and the kernel log says why.  The
 * text began with its first write; a writer that opened the file before
 * the other load but wrote after it is not stale.
 */
static enum wl_result stale_text_is_refused(void)
{
	int fd, early, e, r;

	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	r = wp_write_policy_str(other_policy);
	WL_EXPECT(r == 0, "set the other policy: %s", strerror(-r));
	fd = open(WP_POLICY, O_WRONLY | O_CLOEXEC);
	early = open(WP_POLICY, O_WRONLY | O_CLOEXEC);
	WL_EXPECT(fd >= 0 && early >= 0, "open: %s", strerror(errno));
	WL_EXPECT(!(e = write_errno(fd, "default none\n", 13)), "write: %s", strerror(e));
	r = wp_write_policy_str("default strict\nkernel_events deny\n");
	WL_EXPECT(r == 0 && policy_is(strict_deny_canon), "load strict: %s", strerror(-r));
	WL_EXPECT(!(e = write_errno(fd, "end\n", 4)), "the end line: %s", strerror(e));
	e = close(fd) ? errno : 0;
	WL_EXPECT(e == ESTALE, "closing a text begun before another load got %s, want ESTALE",
		  e ? strerror(e) : "success");
	WL_EXPECT(policy_is(strict_deny_canon), "a stale text replaced the newer policy");
	WL_EXPECT(wl_klog_count("watchpol: policy rejected: another policy was loaded after this text began") > 0,
		  "the kernel log does not say why the stale text was refused");
	WL_EXPECT(!(e = write_errno(early, "default none\nend\n", 17)), "write: %s", strerror(e));
	e = close(early) ? errno : 0;
	WL_EXPECT(!e && policy_is(none_canon),
		  "a text begun after the other load, on a file opened before it: %s",
		  strerror(e));
	return wp_restore_policy() ? WL_PASS : WL_FAIL;
}

/* Write a whole policy, drop CAP_MAC_ADMIN, close: the close's errno. */
static int commit_without_cap_child(void *arg)
{
	int fd = open(WP_POLICY, O_WRONLY | O_CLOEXEC), e;

	(void)arg;
	if (fd < 0 || write_errno(fd, "default none\nend\n", 17))
		return 100;
	if (drop_cap(33 /* CAP_MAC_ADMIN */))
		return 101;
	e = close(fd) ? errno : 0;
	if (e != EPERM)
		wl_diag("close without CAP_MAC_ADMIN got %s, want EPERM",
			e ? strerror(e) : "success");
	return e == EPERM ? 0 : 1;
}

/*
 * CAP_MAC_ADMIN is checked against the credentials that commit, not only
 * those that wrote: a writer that drops it before closing loads nothing.
 */
static enum wl_result commit_needs_cap_mac_admin(void)
{
	struct wl_creds root = wl_user(0);
	int r;

	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	r = wp_write_policy_str(other_policy);
	WL_EXPECT(r == 0, "set the other policy: %s", strerror(-r));
	r = wl_run_as(&root, commit_without_cap_child, NULL);
	WL_EXPECT(r == 0, "the writer without CAP_MAC_ADMIN at close (%d)", r);
	WL_EXPECT(policy_is(other_canon), "a writer without CAP_MAC_ADMIN put its policy in force");
	return wp_restore_policy() ? WL_PASS : WL_FAIL;
}

/* ---- key events between a watcher and a triggerer ---- */

struct key_run {
	int to_parent[2], to_watcher[2];
	key_serial_t key;
	unsigned int own_updates;	/* by the watcher itself */
	unsigned int delivered;		/* records the watcher received */
};

/*
 * As the watcher: a key others may write, a watch on it, own_updates
 * updates of our own; then wait for the parent and count what arrived.
 */
static int watcher_child(void *arg)
{
	struct key_run *kr = arg;
	struct wl_record rec;
	unsigned int n = 0;
	char go;
	int fd;

	fd = wl_wq_open(256);
	if (fd < 0)
		return 1;
	kr->key = add_key("user", "wp-watched", "v", 1, KEY_SPEC_PROCESS_KEYRING);
	if (kr->key < 0) {
		wl_diag("watcher: add_key: %s", strerror(errno));
		return 1;
	}
	if (keyctl_setperm(kr->key, KEY_POS_ALL | KEY_USR_ALL | KEY_OTH_VIEW |
			   KEY_OTH_WRITE | KEY_OTH_SEARCH)) {
		wl_diag("watcher: keyctl_setperm: %s", strerror(errno));
		return 1;
	}
	if (keyctl_watch_key(kr->key, fd, 7)) {
		wl_diag("watcher: KEYCTL_WATCH_KEY: %s", strerror(errno));
		return 1;
	}
	for (unsigned int i = 0; i < kr->own_updates; i++)
		if (keyctl_update(kr->key, "w", 1)) {
			wl_diag("watcher: keyctl_update: %s", strerror(errno));
			return 1;
		}
	if (write(kr->to_parent[1], &kr->key, sizeof(kr->key)) != sizeof(kr->key) ||
	    read(kr->to_watcher[0], &go, 1) != 1) {
		wl_diag("watcher: sync pipe: %s", strerror(errno));
		return 1;
	}
	while (wl_wq_read(fd, &rec, WL_EVENT_TIMEOUT_MS) > 0)
		if (rec.type == WP_TYPE_KEY_NOTIFY)
			n++;
	if (write(kr->to_parent[1], &n, sizeof(n)) != sizeof(n))
		return 1;
	wl_wq_close(fd);
	return 0;
}

static int triggerer_child(void *arg)
{
	const struct key_run *kr = arg;
	unsigned int i;

	for (i = 0; i < 10; i++)
		if (keyctl_update(kr->key, "t", 1)) {
			wl_diag("triggerer uid %d: keyctl_update(%d): %s", getuid(),
				kr->key, strerror(errno));
			return 1;
		}
	return 0;
}

/*
 * The watcher updates its key own_updates times, the triggerer (uid 1001)
 * 10 times; returns the number of records the watcher received, or -1.
 */
/* The watcher, in a child of its own so the runner goes on meanwhile. */
static int watcher_proc(void *arg)
{
	struct wl_creds w = wl_user(WP_WATCHER);

	return wl_run_as(&w, watcher_child, arg) == 0 ? 0 : 1;
}

static int run_key_events(unsigned int own_updates)
{
	struct wl_creds t = wl_user(WP_TRIGGERER);
	struct key_run kr = { .own_updates = own_updates };
	int res = -1;
	unsigned int n;
	pid_t pid;

	if (pipe(kr.to_parent) || pipe(kr.to_watcher)) {
		wl_diag("pipe: %s", strerror(errno));
		return -1;
	}
	pid = wl_spawn(watcher_proc, &kr);
	if (pid < 0)
		return -1;
	/* So that a watcher that dies leaves us EOF, not a hang. */
	close(kr.to_parent[1]);
	kr.to_parent[1] = -1;
	if (read(kr.to_parent[0], &kr.key, sizeof(kr.key)) != sizeof(kr.key)) {
		wl_diag("the watcher did not set up its key");
		goto out;
	}
	if (wl_run_as(&t, triggerer_child, &kr) != 0)
		goto out;
	if (write(kr.to_watcher[1], "g", 1) != 1 ||
	    read(kr.to_parent[0], &n, sizeof(n)) != sizeof(n)) {
		wl_diag("the watcher did not report");
		goto out;
	}
	res = n;
out:
	close(kr.to_watcher[1]);
	if (wl_reap(pid, "the watcher") != 0)
		res = -1;
	close(kr.to_parent[0]);
	close(kr.to_watcher[0]);
	return res;
}

static enum wl_result decisions_counted_and_logged(const char *policy,
						   bool cross_delivered,
						   const char *cross_verdict,
						   const char *cross_result)
{
	struct wp_count strict0, strict1, enf0, enf1, wk0, wk1;
	const unsigned int own = 3, cross = 10;
	long dropped0, dropped1;
	char *log;
	int got, r;

	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	r = wp_write_policy_str(policy);
	WL_EXPECT(r == 0, "write policy: %s", strerror(-r));
	free(wp_drain_log());
	WL_EXPECT(!stat_row("post_notification", "strict", &strict0) &&
		  !stat_row("post_notification", "enforced", &enf0) &&
		  !stat_row("watch_key", "strict", &wk0), "stats");
	dropped0 = stat_value("log_dropped");

	got = run_key_events(own);

	WL_EXPECT(!stat_row("post_notification", "strict", &strict1) &&
		  !stat_row("post_notification", "enforced", &enf1) &&
		  !stat_row("watch_key", "strict", &wk1), "stats");
	dropped1 = stat_value("log_dropped");
	log = wp_drain_log();
	wp_restore_policy();
	WL_EXPECT(log, "could not read the log");
	if (got < 0)
		wl_diag("log:\n%s", log);
	WL_EXPECT(got >= 0, "the key event run failed");

	WL_EXPECT((unsigned int)got == own + (cross_delivered ? cross : 0),
		  "the watcher received %d records, want %u", got,
		  own + (cross_delivered ? cross : 0));
	WL_EXPECT(dropped1 == dropped0, "the log dropped %ld records", dropped1 - dropped0);

	/* Shadow verdicts: strict allows own updates and denies the others. */
	WL_EXPECT(strict1.allow - strict0.allow == own &&
		  strict1.deny - strict0.deny == cross,
		  "post_notification strict: +%lu allow +%lu deny, want +%u +%u",
		  strict1.allow - strict0.allow, strict1.deny - strict0.deny,
		  own, cross);
	WL_EXPECT(enf1.deny - enf0.deny == (cross_delivered ? 0 : cross) &&
		  enf1.allow - enf0.allow == own + (cross_delivered ? cross : 0),
		  "post_notification enforced: +%lu allow +%lu deny",
		  enf1.allow - enf0.allow, enf1.deny - enf0.deny);
	WL_EXPECT(wk1.allow - wk0.allow == 1 && wk1.deny == wk0.deny,
		  "watch_key strict: +%lu allow +%lu deny, want +1 +0",
		  wk1.allow - wk0.allow, wk1.deny - wk0.deny);

	{
		const char *const own_words[] = {
			"hook=post_notification", "type=key", "w_uid=1000",
			"t_uid=1000", "none=allow", "watcher=allow",
			"schaufler=allow", "strict=allow", "result=allow", NULL
		};
		const char *const cross_words[] = {
			"hook=post_notification", "type=key", "w_uid=1000",
			"t_uid=1001", "none=allow", "watcher=allow",
			"schaufler=deny", "strict=deny", cross_verdict,
			cross_result, NULL
		};
		const char *const wk_words[] = {
			"hook=watch_key", "type=key", "w_uid=1000", "t_uid=-",
			"result=allow", NULL
		};
		unsigned int n_own = count_lines(log, own_words);
		unsigned int n_cross = count_lines(log, cross_words);
		unsigned int n_wk = count_lines(log, wk_words);

		if (n_own != own || n_cross != cross || n_wk != 1)
			wl_diag("log:\n%s", log);
		WL_EXPECT(n_own == own, "log: %u own-update records, want %u", n_own, own);
		WL_EXPECT(n_cross == cross, "log: %u cross-user records (%s), want %u",
			  n_cross, cross_result, cross);
		WL_EXPECT(n_wk == 1, "log: %u watch_key records, want 1", n_wk);
	}
	free(log);
	return WL_PASS;
}

static enum wl_result strict_counts_and_logs_denials(void)
{
	return decisions_counted_and_logged("default strict\nenforce 1\n", false,
					    "verdict=deny", "result=deny");
}

static enum wl_result enforce0_delivers_and_logs_would_deny(void)
{
	return decisions_counted_and_logged("default schaufler\nmodel key strict\nenforce 0\n",
					    true, "verdict=deny", "result=allow");
}

static enum wl_result per_type_model_applies(void)
{
	/* key under none: delivered, though the default would deny. */
	return decisions_counted_and_logged("default strict\nmodel key none\nenforce 1\n",
					    true, "verdict=allow", "result=allow");
}

/*
 * With no consumer attached (watchpol/log closed), watchpol's post hook is
 * called only while the policy checks posts (kernel-patches 0018), and an
 * allowed post is answered by post_allowed() alone.  Under strict the
 * cross-user posts are refused and counted as refused; under none, with
 * the hook off, they are delivered and nothing is refused; strict again
 * refuses them again, and the watcher's own posts pass every time.  A hook
 * left off after a switch, or a fast path that lets through what strict
 * refuses, delivers the cross-user posts; a fast path that refuses what
 * it should pass loses the own ones.
 */
static enum wl_result post_hook_follows_policy_without_consumer(void)
{
	static const char *const policies[] = {
		"default strict\nenforce 1\n",
		"default none\nenforce 1\n",
		"default strict\nenforce 1\n",
	};
	enum { N = WL_ARRAY_SIZE(policies) };
	const unsigned int own = 3, cross = 10;
	struct wp_count e0[N], e1[N];
	int got[N], r[N], stats_ok = 1;
	unsigned int i;

	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	wp_log_detach();
	for (i = 0; i < N; i++) {
		r[i] = wp_write_policy_str(policies[i]);
		stats_ok &= !stat_row("post_notification", "enforced", &e0[i]);
		got[i] = r[i] ? -1 : run_key_events(own);
		stats_ok &= !stat_row("post_notification", "enforced", &e1[i]);
	}
	wp_restore_policy();
	WL_EXPECT(stats_ok, "stats");
	for (i = 0; i < N; i++) {
		bool checks = strncmp(policies[i], "default strict", 14) == 0;

		WL_EXPECT(r[i] == 0, "write policy %u: %s", i, strerror(-r[i]));
		WL_EXPECT(got[i] >= 0, "the key event run under policy %u failed", i);
		WL_EXPECT((unsigned int)got[i] == own + (checks ? 0 : cross),
			  "policy %u (%s): the watcher received %d records, want %u",
			  i, checks ? "strict" : "none", got[i],
			  own + (checks ? 0 : cross));
		WL_EXPECT(e1[i].deny - e0[i].deny == (checks ? cross : 0),
			  "policy %u (%s): watchpol refused %lu posts, want %u",
			  i, checks ? "strict" : "none", e1[i].deny - e0[i].deny,
			  checks ? cross : 0);
	}
	return WL_PASS;
}

/* META records pass even under strict with kernel events denied. */
static int meta_child(void *arg)
{
	struct wl_record rec;
	key_serial_t key;
	int fd, r;

	(void)arg;
	fd = wl_wq_open(32);
	if (fd < 0)
		return 1;
	key = add_key("user", "wp-meta", "v", 1, KEY_SPEC_PROCESS_KEYRING);
	if (key < 0 || keyctl_watch_key(key, fd, 9) || keyctl_invalidate(key)) {
		wl_diag("meta: key setup: %s", strerror(errno));
		return 1;
	}
	r = wl_wq_expect(fd, WP_TYPE_META, WP_META_REMOVAL_NOTIFICATION,
			 &rec, WL_EVENT_TIMEOUT_MS * 10);
	if (r <= 0) {
		wl_diag("no removal record after invalidating a watched key");
		return 1;
	}
	wl_wq_close(fd);
	return 0;
}

/*
 * The removal record reaches the watcher under strict with kernel events
 * denied, and never passes through the post hook: 6.12 posts it straight
 * to the queue.  With a consumer attached every post the hook sees is
 * evaluated, and a META one is counted in meta_passed, so the counter
 * standing still says the hook was not asked (review L4: watchpol's META
 * branches are a guard for a source that would post META through the
 * hook, and KUnit covers them).  Red if the record is lost, and if a
 * change routes removal records through the hook.
 */
static enum wl_result removal_record_bypasses_post_hook(void)
{
	struct wl_creds w = wl_user(WP_WATCHER);
	long meta0, meta1;
	char *log;
	bool have_log;
	int r;

	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	r = wp_write_policy_str("default strict\nkernel_events deny\nenforce 1\n");
	WL_EXPECT(r == 0, "write policy: %s", strerror(-r));
	log = wp_drain_log();
	have_log = log != NULL;
	free(log);
	meta0 = stat_value("meta_passed");
	r = wl_run_as(&w, meta_child, NULL);
	meta1 = stat_value("meta_passed");
	wp_log_detach();
	wp_restore_policy();
	WL_EXPECT(have_log && meta0 >= 0 && meta1 >= 0, "no decision log or no meta_passed in stats");
	WL_EXPECT(r == 0, "the removal record was not delivered");
	WL_EXPECT(meta1 == meta0, "the post hook saw %ld META records", meta1 - meta0);
	return WL_PASS;
}

/* ---- fuzz ---- */

static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;

static unsigned int rnd(unsigned int n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return n ? (unsigned int)(rng_state % n) : 0;
}

static const char *const vocab[] = {
	"default", "model", "enforce", "kernel_events", "post", "watch",
	WP_MODELS, "key", "mount", "sb", "block",
	"usb", "0", "1", "2", "allow", "deny", "#", "# note", "x", "L1", "L2",
	"a:b:c:s0", "Default", "devices", "end", "post_dac", "post_label", "on", "off", "",
};

/* Labels: in the SELinux boot only our own context resolves. */
static char own_label[256];
static bool labels_checked;

static const char *pick_label(void)
{
	static char buf[300];

	if (labels_checked && rnd(4))
		return own_label;
	switch (rnd(5)) {
	case 0:
		return "L1";
	case 1:
		return "L2";
	case 2: {
		unsigned int n = 254 + rnd(3);	/* 255 is the longest label */

		memset(buf, 'q', n);
		buf[n] = '\0';
		return buf;
	}
	default:
		snprintf(buf, sizeof(buf), "lab%u", rnd(20));
		return buf;
	}
}

static size_t gen_line(char *out, size_t size)
{
	static const char *const seps[] = { " ", "\t", "  ", " \t " };
	size_t pos = 0;
	unsigned int n;

	switch (rnd(8)) {
	case 0:
		return snprintf(out, size, "default %s", models[rnd(WL_ARRAY_SIZE(models))]);
	case 1:
		return snprintf(out, size, "model %s %s", types[rnd(5)], models[rnd(WL_ARRAY_SIZE(models))]);
	case 2:
		return snprintf(out, size, "enforce %u", rnd(2));
	case 3:
		return snprintf(out, size, "kernel_events %s", rnd(2) ? "allow" : "deny");
	case 4:
	case 5:
		return snprintf(out, size, "%s%s%s%s%s%s", rnd(2) ? "post" : "watch",
				seps[rnd(4)], pick_label(), seps[rnd(4)], pick_label(),
				rnd(4) ? "" : " # why");
	default:
		n = rnd(5);
		for (unsigned int i = 0; i < n && pos < size; i++)
			pos += snprintf(out + pos, size - pos, "%s%s", i ? seps[rnd(4)] : "",
					vocab[rnd(WL_ARRAY_SIZE(vocab))]);
		return pos;
	}
}

static size_t gen_policy(char *out, size_t size)
{
	unsigned int lines = rnd(10);
	size_t pos = 0;

	for (unsigned int i = 0; i < lines && pos + 400 < size; i++) {
		pos += gen_line(out + pos, size - pos);
		if (i + 1 < lines || rnd(2))
			out[pos++] = '\n';
	}
	return pos;
}

static size_t mutate(char *buf, size_t len, size_t size)
{
	static const char bytes[] = { ' ', '\t', '\n', '#', 'a', '0', '\r', '\0',
				      '\x01', '\x7f', '\xc3', 'z' };
	unsigned int k = 1 + rnd(3);

	while (k--) {
		size_t at = len ? rnd(len) : 0;

		switch (rnd(6)) {
		case 0:	/* replace a byte */
			if (len)
				buf[at] = rnd(3) ? bytes[rnd(sizeof(bytes))] : (char)(32 + rnd(95));
			break;
		case 1:	/* delete a byte */
			if (len) {
				memmove(buf + at, buf + at + 1, len - at - 1);
				len--;
			}
			break;
		case 2:	/* insert a byte */
			if (len + 1 < size) {
				memmove(buf + at + 1, buf + at, len - at);
				buf[at] = bytes[rnd(sizeof(bytes))];
				len++;
			}
			break;
		case 3:	/* truncate */
			len = at;
			break;
		case 4:	/* append a generated line */
			if (len + 400 < size) {
				buf[len++] = '\n';
				len += gen_line(buf + len, size - len);
			}
			break;
		default:	/* duplicate a prefix */
			if (2 * len < size) {
				memcpy(buf + len, buf, at);
				len += at;
			}
			break;
		}
	}
	return len;
}

/* Does the text name a label the SELinux policy may not know? */
static bool has_foreign_label(const char *canon)
{
	const char *line = canon;

	while (line && *line) {
		char kind[8], a[300], b[300];

		if (sscanf(line, "%7s %299s %299s", kind, a, b) == 3 &&
		    (!strcmp(kind, "post") || !strcmp(kind, "watch")) &&
		    (strcmp(a, own_label) || strcmp(b, own_label)))
			return true;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return false;
}

static enum wl_result policy_fuzz(void)
{
	static char text[WP_MAX_TEXT], want[WP_MAX_TEXT * 2], prev[WP_MAX_TEXT * 2],
		last_ok[WP_MAX_TEXT];
	unsigned long iters = wl_scale(100000), accepted = 0, rejected = 0;
	size_t last_ok_len = 0;
	bool selinux = !strcmp(wl_profile(), "selinux");
	unsigned int line;
	char *got;
	int r;

	if (selinux) {
		ssize_t n = wl_try_read("/proc/self/attr/current", own_label, sizeof(own_label));

		if (n > 0 && own_label[n - 1] == '\n')
			own_label[n - 1] = '\0';
		labels_checked = n > 0;
	}
	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	r = wp_write_policy_str("");
	WL_EXPECT(r == 0, "write the empty policy: %s", strerror(-r));
	oracle("", 0, prev, sizeof(prev), &line);

	for (unsigned long i = 0; i < iters; i++) {
		size_t len;
		bool ok;

		if (last_ok_len && rnd(2)) {
			memcpy(text, last_ok, last_ok_len);
			len = mutate(text, last_ok_len, sizeof(text) / 2);
		} else {
			len = gen_policy(text, sizeof(text) / 2);
		}
		ok = oracle(text, len, want, sizeof(want), &line) == 0;
		r = wp_write_policy(text, len);
		if (r == 0 && !ok) {
			wl_diag("iteration %lu: the kernel accepted a policy the grammar rejects at line %u:\n%.*s",
				i, line, (int)len, text);
			wp_restore_policy();
			return WL_FAIL;
		}
		if (r && r != -EINVAL) {
			wl_diag("iteration %lu: write failed with %s, want EINVAL", i, strerror(-r));
			wp_restore_policy();
			return WL_FAIL;
		}
		if (r && ok && !(selinux && has_foreign_label(want))) {
			wl_diag("iteration %lu: the kernel rejected a valid policy:\n%.*s",
				i, (int)len, text);
			wp_restore_policy();
			return WL_FAIL;
		}
		got = wp_read_policy();
		if (!got || strcmp(got, r == 0 ? want : prev)) {
			wl_diag("iteration %lu: %s write, policy in force is\n%s\nwant\n%s", i,
				r == 0 ? "after an accepted" : "after a rejected",
				got ? got : "(unreadable)", r == 0 ? want : prev);
			free(got);
			wp_restore_policy();
			return WL_FAIL;
		}
		free(got);
		if (r == 0) {
			accepted++;
			strcpy(prev, want);
			memcpy(last_ok, text, len);
			last_ok_len = len;
		} else {
			rejected++;
		}
	}
	wl_diag("policy fuzz: %lu policies, %lu accepted, %lu rejected whole",
		iters, accepted, rejected);
	WL_EXPECT(accepted > iters / 20 && rejected > iters / 20,
		  "the fuzz is lopsided: %lu accepted, %lu rejected", accepted, rejected);
	return wp_restore_policy() ? WL_PASS : WL_FAIL;
}

/* ---- swaps racing with an event storm ---- */

struct storm {
	key_serial_t key;
	int ready[2];
	int stop[2];
};

static bool stop_requested(const struct storm *st)
{
	struct pollfd pfd = { .fd = st->stop[0], .events = POLLIN };

	return poll(&pfd, 1, 0) > 0;
}

/* The watcher: watch the key, then drain the queue until told to stop. */
static int storm_watcher(void *arg)
{
	struct storm *st = arg;
	struct wl_record rec;
	unsigned long n = 0;
	int fd;

	fd = wl_wq_open(256);
	if (fd < 0)
		return 1;
	if (keyctl_watch_key(st->key, fd, 3)) {
		wl_diag("storm watcher: KEYCTL_WATCH_KEY: %s", strerror(errno));
		return 1;
	}
	if (write(st->ready[1], "r", 1) != 1)
		return 1;
	for (;;) {
		int r = wl_wq_read(fd, &rec, 20);

		if (r < 0)
			return 1;
		n += r;
		if (r == 0 && stop_requested(st))
			break;
	}
	wl_diag("storm watcher: %lu records", n);
	wl_wq_close(fd);
	return 0;
}

/* Update the key until told to stop; say when the storm has started. */
static int storm_triggerer(void *arg)
{
	struct storm *st = arg;
	unsigned long i;

	for (i = 0;; i++) {
		if (keyctl_update(st->key, "s", 1)) {
			wl_diag("storm triggerer uid %d: keyctl_update: %s", getuid(),
				strerror(errno));
			return 1;
		}
		if (i == 16 && write(st->ready[1], "t", 1) != 1)
			return 1;
		if (i % 32 == 0 && stop_requested(st))
			break;
	}
	wl_diag("storm triggerer uid %d: %lu updates", getuid(), i + 1);
	return 0;
}

static pid_t spawn_as(const struct wl_creds *c, int (*fn)(void *), void *arg)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(wl_run_as(c, fn, arg) == 0 ? 0 : 1);
	return pid;
}

static enum wl_result policy_swaps_race_event_storm(void)
{
	static const char *const policies[] = {
		"default none\n",
		"default strict\nenforce 1\nkernel_events deny\n",
		"default schaufler\nenforce 0\n",
		"default watcher\nmodel key strict\npost L1 L2\nwatch L2 L1\n",
		"default strict\nmodel key schaufler\nenforce 1\n",
	};
	static char canon[WL_ARRAY_SIZE(policies)][4096];
	struct wl_creds w = wl_user(WP_WATCHER), t = wl_user(WP_TRIGGERER);
	unsigned long swaps = wl_scale(2000), i;
	struct storm st = { 0 };
	pid_t pids[3];
	long dec0, dec1;
	int status, bad = 0;
	unsigned int line;
	char c;

	for (size_t k = 0; k < WL_ARRAY_SIZE(policies); k++)
		oracle(policies[k], strlen(policies[k]), canon[k], sizeof(canon[k]), &line);
	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	WL_EXPECT(!pipe(st.ready) && !pipe(st.stop), "pipe: %s", strerror(errno));

	/* Root's key, writable and viewable by everyone. */
	st.key = add_key("user", "wp-storm", "v", 1, KEY_SPEC_PROCESS_KEYRING);
	WL_EXPECT(st.key > 0, "add_key: %s", strerror(errno));
	WL_EXPECT(!keyctl_setperm(st.key, KEY_POS_ALL | KEY_USR_ALL | KEY_OTH_VIEW |
				  KEY_OTH_WRITE | KEY_OTH_SEARCH),
		  "keyctl_setperm: %s", strerror(errno));
	dec0 = stat_value("decisions");

	pids[0] = spawn_as(&w, storm_watcher, &st);
	WL_EXPECT(pids[0] > 0 && read(st.ready[0], &c, 1) == 1,
		  "the storm watcher did not start");
	pids[1] = spawn_as(&w, storm_triggerer, &st);
	pids[2] = spawn_as(&t, storm_triggerer, &st);
	WL_EXPECT(pids[1] > 0 && pids[2] > 0 && read(st.ready[0], &c, 1) == 1 &&
		  read(st.ready[0], &c, 1) == 1, "the storm triggerers did not start");

	/* Swap policies and read the log while the storm runs. */
	for (i = 0; i < swaps && !bad; i++) {
		size_t k = i % WL_ARRAY_SIZE(policies);
		int r = wp_write_policy_str(policies[k]);
		char *got;

		if (r) {
			wl_diag("swap %lu: write: %s", i, strerror(-r));
			bad = 1;
			break;
		}
		got = wp_read_policy();
		if (!got || strcmp(got, canon[k])) {
			wl_diag("swap %lu: read back\n%s\nwant\n%s", i,
				got ? got : "(unreadable)", canon[k]);
			bad = 1;
		}
		free(got);
		if (i % 64 == 0)
			free(wp_drain_log());
	}
	/* A byte, not EOF: every forked helper holds the write end too. */
	if (write(st.stop[1], "s", 1) != 1)
		bad = 1;
	for (int k = 0; k < 3; k++) {
		waitpid(pids[k], &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			wl_diag("storm process %d failed", k);
			bad = 1;
		}
	}
	dec1 = stat_value("decisions");
	wp_restore_policy();
	free(wp_drain_log());
	wl_diag("storm: %lu policy swaps, %ld decisions meanwhile", i, dec1 - dec0);
	WL_EXPECT(!bad, "the storm failed");
	WL_EXPECT(dec1 - dec0 > (long)i, "only %ld decisions during %lu swaps",
		  dec1 - dec0, i);
	return WL_PASS;
}

/*
 * The log hands out whole lines: a read whose buffer cannot hold the next
 * line fails with EINVAL and consumes nothing, and the lines are all there
 * for the next read.  Two watch_key decisions, logged while it is open.
 */
static enum wl_result log_read_whole_lines(void)
{
	char small[16], buf[4096];
	key_serial_t key;
	int fd, q1, q2;
	ssize_t n;
	char *nl;

	fd = open(WP_LOG, O_RDONLY | O_CLOEXEC);
	WL_EXPECT(fd >= 0, "open %s: %s", WP_LOG, strerror(errno));
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	key = add_key("user", "wl-log-read", "x", 1, KEY_SPEC_PROCESS_KEYRING);
	q1 = wl_wq_open(4);
	q2 = wl_wq_open(4);
	WL_EXPECT(key > 0 && q1 >= 0 && q2 >= 0, "a key and two queues: %s", strerror(errno));
	WL_EXPECT(keyctl_watch_key(key, q1, 1) == 0 && keyctl_watch_key(key, q2, 2) == 0,
		  "KEYCTL_WATCH_KEY: %s", strerror(errno));

	n = read(fd, small, sizeof(small));
	WL_EXPECT(n == -1 && errno == EINVAL, "a %zu-byte read: %zd (%s), want EINVAL",
		  sizeof(small), n, n < 0 ? strerror(errno) : "bytes");
	n = read(fd, buf, sizeof(buf) - 1);
	WL_EXPECT(n > 0, "the read after it: %zd (%s)", n, n < 0 ? strerror(errno) : "empty");
	buf[n] = '\0';
	nl = strchr(buf, '\n');
	WL_EXPECT(buf[n - 1] == '\n' && nl && nl != buf + n - 1 &&
		  strstr(buf, "hook=watch_key") && strstr(nl + 1, "hook=watch_key"),
		  "want the two watch_key lines, whole, after the refused read:\n%s", buf);
	wl_wq_close(q1);
	wl_wq_close(q2);
	keyctl_invalidate(key);
	close(fd);
	return WL_PASS;
}

static const struct wl_test watchpol_tests[] = {
	{ "policy_round_trip", policy_round_trip },
	{ "bad_policy_rejected_whole", bad_policy_rejected_whole },
	{ "policy_chunked_writes_load_whole", policy_chunked_writes_load_whole },
	{ "policy_truncated_never_loads", policy_truncated_never_loads },
	{ "policy_write_misuse_changes_nothing", policy_write_misuse_changes_nothing },
	{ "policy_text_after_end_at_every_split", policy_text_after_end_at_every_split },
	{ "stats_label_part", stats_label_part },
	{ "kernel_events_govern_kworker_posts", kernel_events_govern_kworker_posts },
	{ "writes_need_cap_mac_admin", writes_need_cap_mac_admin },
	{ "pending_policy_does_not_roll_back", pending_policy_does_not_roll_back },
	{ "stale_text_is_refused", stale_text_is_refused },
	{ "commit_needs_cap_mac_admin", commit_needs_cap_mac_admin },
	{ "stats_checked_at_read", stats_checked_at_read },
	{ "strict_counts_and_logs_denials", strict_counts_and_logs_denials },
	{ "enforce0_delivers_and_logs_would_deny", enforce0_delivers_and_logs_would_deny },
	{ "per_type_model_applies", per_type_model_applies },
	{ "post_hook_follows_policy_without_consumer",
	  post_hook_follows_policy_without_consumer },
	{ "removal_record_bypasses_post_hook", removal_record_bypasses_post_hook },
	{ "log_read_whole_lines", log_read_whole_lines },
};

WL_SUITE_IF(suite_watchpol, watchpol_tests, wl_have_watchpol, "no watchpol in this kernel");

/*
 * The stress tests take most of a boot's time under TCG and exercise the
 * parser and the RCU swap, which do not depend on the major LSM: they run
 * in the plain profile, lab and debug kernel, so one make test covers them
 * at full size once and under KASAN/lockdep once.
 */
static bool watchpol_stress_applies(void)
{
	return wl_have_watchpol() && strcmp(wl_profile(), "plain") == 0;
}

static const struct wl_test watchpol_stress_tests[] = {
	{ "policy_fuzz", policy_fuzz },
	{ "policy_swaps_race_event_storm", policy_swaps_race_event_storm },
};

WL_SUITE_IF(suite_watchpol_stress, watchpol_stress_tests, watchpol_stress_applies,
	    "runs in the plain profile only (or no watchpol in this kernel)");

/* ---- watch_sb and reachability (review M7) ---- */

#define REACH_BASE "/tmp/wlreach"

/*
 * In a chroot, with a descriptor of a directory outside it kept from
 * before: the watcher models refuse watch_sb() and watch_mount() on it,
 * and allow both inside the root.  The child's exit code counts failures.
 */
static int reach_child(int outside, int q)
{
	int bad = 0;
	long r;

	if (chroot(REACH_BASE "/jail") || chdir("/")) {
		wl_diag("chroot %s/jail: %s", REACH_BASE, strerror(errno));
		return 1;
	}
	r = wl_watch_sb(outside, "", AT_EMPTY_PATH, q, 1);
	if (r == 0 || errno != EACCES) {
		wl_diag("watch_sb on a directory outside the root: %s, want EACCES",
			r == 0 ? "allowed" : strerror(errno));
		bad++;
	}
	r = wl_watch_mount(outside, "", AT_EMPTY_PATH, q, 2);
	if (r == 0 || errno != EACCES) {
		wl_diag("watch_mount on a directory outside the root: %s, want EACCES",
			r == 0 ? "allowed" : strerror(errno));
		bad++;
	}
	if (wl_watch_sb(AT_FDCWD, "/inner", 0, q, 3)) {
		wl_diag("watch_sb inside the root: %s", strerror(errno));
		bad++;
	}
	if (wl_watch_mount(AT_FDCWD, "/inner", 0, q, 4)) {
		wl_diag("watch_mount inside the root: %s", strerror(errno));
		bad++;
	}
	return bad;
}

static enum wl_result watch_sb_needs_reachability(void)
{
	int outside = -1, q = -1, status = 0, e;
	pid_t pid;

	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	e = -wp_write_policy_str("default none\nmodel sb watcher\nmodel mount watcher\n");
	WL_EXPECT(!e, "load the watcher model for sb and mount: %s", strerror(e));
	umount2(REACH_BASE "/outer", MNT_DETACH);
	umount2(REACH_BASE "/jail/inner", MNT_DETACH);
	if (wl_mkdir(REACH_BASE) || wl_mkdir(REACH_BASE "/jail") ||
	    wl_tmpfs(REACH_BASE "/outer", NULL) || wl_tmpfs(REACH_BASE "/jail/inner", NULL))
		goto out;
	outside = open(REACH_BASE "/outer", O_PATH | O_DIRECTORY | O_CLOEXEC);
	q = wl_queue_open(wl_transport(), 16);
	if (outside < 0 || q < 0) {
		wl_diag("open %s/outer or a queue: %s", REACH_BASE, strerror(errno));
		goto out;
	}
	pid = fork();
	if (pid == 0)
		_exit(reach_child(outside, q) ? 1 : 0);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		status = -1;
out:
	if (q >= 0)
		wl_wq_close(q);
	if (outside >= 0)
		close(outside);
	umount2(REACH_BASE "/outer", MNT_DETACH);
	umount2(REACH_BASE "/jail/inner", MNT_DETACH);
	if (!wp_restore_policy())
		return WL_FAIL;
	WL_EXPECT(outside >= 0 && q >= 0, "setting up %s failed", REACH_BASE);
	WL_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "the watcher model let a watch through from outside the root");
	return WL_PASS;
}

static const struct wl_test watchpol_reach_tests[] = {
	{ "watch_sb_needs_reachability", watch_sb_needs_reachability },
};

/* Labels would need watch rules for the tmpfs fixtures: plain profile only. */
WL_SUITE_IF(suite_watchpol_reach, watchpol_reach_tests, watchpol_stress_applies,
	    "runs in the plain profile only (or no watchpol in this kernel)");

/* ---- the lock: last suite of a boot ---- */

/* What the writers opened before the lock write: never in force. */
#define LOCK_RACE_TEXT "default strict\n"

static int lock_without_cap_child(void *arg)
{
	(void)arg;
	if (drop_cap(33 /* CAP_MAC_ADMIN */)) {
		wl_diag("capset: %s", strerror(errno));
		return 1;
	}
	return wp_write_one(WP_LOCK, "1", 1) == -EPERM ? 0 : 1;
}

static enum wl_result lock_is_honoured(void)
{
	static struct wl_evidence ev;
	struct wl_creds root = wl_user(0);
	bool audit;
	char buf[16], *before, *after;
	int r, half, whole;

	WL_EXPECT(wl_try_read(WP_LOCK, buf, sizeof(buf)) > 0 && !strcmp(buf, "0\n"),
		  "lock reads '%s' before locking, want 0", buf);
	WL_EXPECT(wl_run_as(&root, lock_without_cap_child, NULL) == 0,
		  "root without CAP_MAC_ADMIN could write the lock");
	WL_EXPECT(wl_try_read(WP_LOCK, buf, sizeof(buf)) > 0 && !strcmp(buf, "0\n"),
		  "the lock was set without CAP_MAC_ADMIN");
	r = wp_write_one(WP_LOCK, "0", 1);
	WL_EXPECT(r == 0, "writing 0 to an open lock: %s", strerror(-r));
	r = wp_write_one(WP_LOCK, "x", 1);
	WL_EXPECT(r == -EINVAL, "writing x to the lock: %s, want EINVAL",
		  r ? strerror(-r) : "success");

	before = wp_read_policy();
	WL_EXPECT(before, "read the policy");
	/*
	 * Two writers opened before the lock: one whose end line comes after
	 * it (refused by the write), one whose complete text is closed after
	 * it (refused by the close that would put it in force).
	 */
	half = open(WP_POLICY, O_WRONLY | O_CLOEXEC);
	whole = open(WP_POLICY, O_WRONLY | O_CLOEXEC);
	WL_EXPECT(half >= 0 && whole >= 0, "open two policy writers: %s", strerror(errno));
	WL_EXPECT(write(half, LOCK_RACE_TEXT, strlen(LOCK_RACE_TEXT)) ==
		  (ssize_t)strlen(LOCK_RACE_TEXT), "write a text without its end: %s",
		  strerror(errno));
	WL_EXPECT(write(whole, LOCK_RACE_TEXT "end\n", strlen(LOCK_RACE_TEXT "end\n")) ==
		  (ssize_t)strlen(LOCK_RACE_TEXT "end\n"), "write a whole text: %s",
		  strerror(errno));
	r = wp_write_one(WP_LOCK, "1", 1);
	WL_EXPECT(r == 0, "lock: %s", strerror(-r));
	WL_EXPECT(wl_try_read(WP_LOCK, buf, sizeof(buf)) > 0 && !strcmp(buf, "1\n"),
		  "lock reads '%s' after locking, want 1", buf);
	WL_EXPECT(write(half, "end\n", 4) == -1 && errno == EPERM,
		  "the end line of a text begun before the lock: %s, want EPERM",
		  strerror(errno));
	WL_EXPECT(close(whole) == -1 && errno == EPERM,
		  "closing a whole text written before the lock: %s, want EPERM",
		  strerror(errno));
	close(half);
	/* A refused write is audited, never rate-limited (review M3). */
	WL_EXPECT(wl_evidence_begin(&ev) == 0, "open an evidence window");
	audit = ev.audit >= 0;
	r = wp_write_policy_str("default strict\n");
	wl_evidence_take(&ev);
	wl_evidence_end(&ev);
	WL_EXPECT(r == -EPERM, "policy write when locked: %s, want EPERM",
		  r ? strerror(-r) : "success");
	WL_EXPECT(!audit || (strstr(ev.audit_text, "lsm=watchpol op=load") &&
				   strstr(ev.audit_text, "reason=\"locked\"") &&
				   strstr(ev.audit_text, "res=0")),
		  "no audit record of the write refused while locked; the window had:\n%s",
		  ev.audit_text);
	r = wp_write_policy_str(before);
	WL_EXPECT(r == -EPERM, "rewriting the same policy when locked: %s, want EPERM",
		  r ? strerror(-r) : "success");
	r = wp_write_one(WP_LOCK, "0", 1);
	WL_EXPECT(r == -EPERM, "unlocking: %s, want EPERM", r ? strerror(-r) : "success");
	r = wp_write_one(WP_LOCK, "1", 1);
	WL_EXPECT(r == 0, "locking again: %s", strerror(-r));
	after = wp_read_policy();
	WL_EXPECT(after && !strcmp(before, after), "the locked policy changed:\n%s", after);
	free(before);
	free(after);
	return WL_PASS;
}

static const struct wl_test watchpol_lock_tests[] = {
	{ "lock_is_honoured", lock_is_honoured },
};

WL_SUITE(suite_watchpol_lock, watchpol_lock_tests, .applies = wl_have_watchpol,
	 .skip_reason = "no watchpol in this kernel", .stage = WL_STAGE_LOCK);
