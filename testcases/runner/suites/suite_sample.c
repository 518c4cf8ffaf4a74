// SPDX-License-Identifier: GPL-2.0
/*
 * suite_sample.c - the kernel's own sample program,
 * samples/watch_queue/watch_test.c (extended by kernel-patches 0023), built
 * from the patched tree and packed as /bin/watch_test.  Each test runs it
 * with the options of one kind of watch (-r in suite_sample_ring), waits
 * for its "watching" line, raises the events and checks the lines it
 * prints, record by record: the NOTIFY line (type, subtype, watch ID) and
 * the decoded line, compared whole with the one the test builds from the
 * IDs it knows (mount IDs, key serials, st_dev, the disk's st_rdev, the USB
 * device's name).  Its exit status after -n N is checked too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <keyutils.h>
/* glibc's <fcntl.h> already defines what <linux/fcntl.h> would redefine. */
#define _LINUX_FCNTL_H
#include <linux/watch_queue.h>

#include "devices_util.h"
#include "vfs_util.h"
#include "wl.h"

#define SAMPLE_BIN	"/bin/watch_test"
#define SDIR		"/tmp/wlsample"
#define SAMPLE_OUT	(256 * 1024)
#define SAMPLE_RECS	64

/* The sample's fixed watch IDs (its header comment). */
#define ID_SESSION	1
#define ID_USER		2
#define ID_MOUNT	3
#define ID_SB		4
#define ID_DEVICES	5

struct sample {
	pid_t pid;
	int out;		/* its stdout and stderr */
	char buf[SAMPLE_OUT];
	size_t len;
};

/* One record as the sample printed it: its NOTIFY line, then its decoded line. */
struct srec {
	unsigned int type, subtype, info;
	char line[256];
};

/* Read what the sample printed into s->buf, until want appears or ms pass. */
static bool sample_read(struct sample *s, const char *want, int ms)
{
	long deadline = wl_now_ms() + ms;
	struct pollfd pfd = { .fd = s->out, .events = POLLIN };

	for (;;) {
		long left = deadline - wl_now_ms();
		ssize_t n;

		s->buf[s->len] = '\0';
		if (want && strstr(s->buf, want))
			return true;
		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			return false;
		if (s->len == sizeof(s->buf) - 1) {
			char discard[4096];	/* full: keep the start, drain the rest */

			n = read(s->out, discard, sizeof(discard));
		} else {
			n = read(s->out, s->buf + s->len, sizeof(s->buf) - 1 - s->len);
			if (n > 0)
				s->len += n;
		}
		if (n <= 0)
			return !want;	/* EOF: the sample is done */
	}
}

/* What the sample printed, as diagnostics (its first 60 lines). */
static void sample_dump(struct sample *s)
{
	char *save = NULL, *line;
	int n = 0;

	s->buf[s->len] = '\0';
	wl_diag("watch_test printed:");
	for (line = strtok_r(s->buf, "\n", &save); line && n < 60;
	     line = strtok_r(NULL, "\n", &save), n++)
		wl_diag("  %s", line);
	if (line)
		wl_diag("  ...");
}

/*
 * Start /bin/watch_test with args (after -r on the ring) and wait for its
 * "watching" line; 0, or -1 diagnosed.
 */
static int sample_start(struct sample *s, const char *const *args)
{
	const char *argv[16] = { SAMPLE_BIN };
	int p[2], i = 1;

	if (wl_transport() == WL_TRANSPORT_RING)
		argv[i++] = "-r";
	for (; *args && i < 15; args++)
		argv[i++] = *args;
	s->len = 0;
	if (pipe2(p, O_CLOEXEC)) {
		wl_diag("pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	s->pid = fork();
	if (s->pid < 0) {
		wl_diag("fork: %s", strerror(errno));
		return -1;
	}
	if (!s->pid) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		execv(SAMPLE_BIN, (char *const *)argv);
		fprintf(stderr, "exec %s: %s\n", SAMPLE_BIN, strerror(errno));
		_exit(127);
	}
	close(p[1]);
	s->out = p[0];
	/* The line that ends its setup names the transport it opened. */
	if (!sample_read(s, wl_transport() == WL_TRANSPORT_RING ? " on a ring\n" :
			 " on a pipe\n", wl_slow_ms(5000))) {
		wl_diag("watch_test set no watch on a %s",
			wl_transport_name(wl_transport()));
		kill(s->pid, SIGKILL);
		waitpid(s->pid, NULL, 0);
		sample_dump(s);
		close(s->out);
		return -1;
	}
	return 0;
}

/*
 * Wait for the sample to exit by itself (-n N records seen), or stop it
 * with SIGTERM when stop; 0 if it exited 0 (or was stopped), else -1
 * diagnosed with its output.
 */
static int sample_end(struct sample *s, bool stop)
{
	long deadline;
	int st = 0;
	pid_t w;

	if (stop)
		kill(s->pid, SIGTERM);
	sample_read(s, NULL, wl_slow_ms(5000));
	close(s->out);
	/* Its output ends when it closes its files, a little before it can be reaped. */
	deadline = wl_now_ms() + wl_slow_ms(1000);
	while ((w = waitpid(s->pid, &st, WNOHANG)) == 0 && wl_now_ms() < deadline)
		usleep(10000);
	if (w == 0) {
		wl_diag("watch_test did not exit after its records: killed");
		kill(s->pid, SIGKILL);
		waitpid(s->pid, &st, 0);
		sample_dump(s);
		return -1;
	}
	if (stop ? !(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM) :
		   !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
		wl_diag("watch_test ended with status %#x", st);
		sample_dump(s);
		return -1;
	}
	return 0;
}

/* The records the sample printed: NOTIFY lines and the line after each. */
static size_t sample_records(const struct sample *s, struct srec *r, size_t max)
{
	const char *p = s->buf;
	size_t n = 0;

	while (n < max && (p = strstr(p, "NOTIFY["))) {
		const char *nl = strchr(p, '\n'), *end;

		if (!nl || sscanf(p, "NOTIFY[%*x]: ty=%x sy=%x i=%x", &r[n].type,
				  &r[n].subtype, &r[n].info) != 3)
			break;
		p = nl + 1;
		/* The ring's overrun mark comes between the two lines. */
		if (!strncmp(p, "-- OVERRUN --\n", 14))
			p += 14;
		end = strchr(p, '\n');
		if (!end)
			end = p + strlen(p);
		snprintf(r[n].line, sizeof(r[n].line), "%.*s", (int)(end - p), p);
		n++;
	}
	return n;
}

/*
 * The sample printed exactly nwant records, the i-th of type/subtype on
 * watch ID id[i] and decoded as want[i]; 0, or -1 diagnosed.
 */
static int expect_records(struct sample *s, size_t nwant, const unsigned int *type,
			  const unsigned int *subtype, const unsigned int *id,
			  char want[][256])
{
	struct srec r[SAMPLE_RECS];
	size_t n = sample_records(s, r, SAMPLE_RECS), i;

	if (n != nwant) {
		wl_diag("watch_test printed %zu records, want %zu", n, nwant);
		goto bad;
	}
	for (i = 0; i < n; i++) {
		unsigned int wid = (r[i].info & WATCH_INFO_ID) >> WATCH_INFO_ID__SHIFT;

		if (r[i].type != type[i] || r[i].subtype != subtype[i] || wid != id[i]) {
			wl_diag("record %zu: type %u subtype %u watch %u, want %u %u %u", i,
				r[i].type, r[i].subtype, wid, type[i], subtype[i], id[i]);
			goto bad;
		}
		if (strcmp(r[i].line, want[i])) {
			wl_diag("record %zu: \"%s\"", i, r[i].line);
			wl_diag("     want: \"%s\"", want[i]);
			goto bad;
		}
	}
	return 0;
bad:
	sample_dump(s);
	return -1;
}

/* The MOUNT line the sample must print for a record about the mount child of base. */
static void mount_line(char *buf, unsigned int sub, const char *name, unsigned int base,
		       unsigned int child, unsigned long long uchild)
{
	snprintf(buf, 256, "MOUNT change=%u[%s] triggered_on=%u changed=%u aux=%u unique=%llu flags=in_subtree",
		 sub, name, base, child, base, uchild);
}

static int setup(void)
{
	return wl_tmpfs(SDIR, NULL);
}

static void teardown(void)
{
	umount2(SDIR "/a", MNT_DETACH);
	umount2(SDIR, MNT_DETACH);
}

/*
 * Upstream's default: the session keyring (watch 1) and the user keyring
 * (watch 2); a key linked into each and unlinked.
 */
static enum wl_result key_default(void)
{
	static const char *const args[] = { "-n", "4", NULL };
	unsigned int type[4] = { WATCH_TYPE_KEY_NOTIFY, WATCH_TYPE_KEY_NOTIFY,
				 WATCH_TYPE_KEY_NOTIFY, WATCH_TYPE_KEY_NOTIFY };
	unsigned int sub[4] = { NOTIFY_KEY_LINKED, NOTIFY_KEY_UNLINKED,
				NOTIFY_KEY_LINKED, NOTIFY_KEY_UNLINKED };
	unsigned int id[4] = { ID_SESSION, ID_SESSION, ID_USER, ID_USER };
	key_serial_t ses, user, key, ukey;
	static struct sample s;
	char want[4][256];

	/* A session keyring of this test's own, which the sample inherits. */
	ses = keyctl_join_session_keyring(NULL);
	WL_EXPECT(ses > 0, "join a session keyring: %s", strerror(errno));
	user = keyctl_get_keyring_ID(KEY_SPEC_USER_KEYRING, 1);
	WL_EXPECT(user > 0, "the user keyring: %s", strerror(errno));
	WL_EXPECT(sample_start(&s, args) == 0, "watch_test %s", args[0]);
	key = add_key("user", "wlsample", "v1", 2, KEY_SPEC_SESSION_KEYRING);
	WL_EXPECT(key > 0, "add_key: %s", strerror(errno));
	WL_EXPECT(keyctl_unlink(key, ses) == 0, "unlink: %s", strerror(errno));
	ukey = add_key("user", "wlsample-u", "v1", 2, KEY_SPEC_USER_KEYRING);
	WL_EXPECT(ukey > 0, "add_key @u: %s", strerror(errno));
	WL_EXPECT(keyctl_unlink(ukey, user) == 0, "unlink @u: %s", strerror(errno));
	WL_EXPECT(sample_end(&s, false) == 0, "watch_test -n 4 ran to its end");
	snprintf(want[0], 256, "KEY %08x change=2[linked] aux=%u", ses, key);
	snprintf(want[1], 256, "KEY %08x change=3[unlinked] aux=%u", ses, key);
	snprintf(want[2], 256, "KEY %08x change=2[linked] aux=%u", user, ukey);
	snprintf(want[3], 256, "KEY %08x change=3[unlinked] aux=%u", user, ukey);
	WL_EXPECT(expect_records(&s, 4, type, sub, id, want) == 0, "the key records");
	return WL_PASS;
}

/* -m: a mount made and unmounted below the watched directory. */
static enum wl_result mount_new_unmount(void)
{
	static const char *const args[] = { "-m", SDIR, "-n", "2", NULL };
	unsigned int type[2] = { WATCH_TYPE_MOUNT_NOTIFY, WATCH_TYPE_MOUNT_NOTIFY };
	unsigned int sub[2] = { NOTIFY_MOUNT_NEW_MOUNT, NOTIFY_MOUNT_UNMOUNT };
	unsigned int id[2] = { ID_MOUNT, ID_MOUNT };
	unsigned int base = wl_mnt_id(SDIR, false), child;
	unsigned long long uchild;
	char want[2][256];
	static struct sample s;

	WL_EXPECT(sample_start(&s, args) == 0, "watch_test -m");
	/* Private below the private SDIR: no MS_PRIVATE, which posts SETATTR. */
	WL_EXPECT(wl_tmpfs_here(SDIR "/a", NULL) == 0, "mount %s/a", SDIR);
	child = wl_mnt_id(SDIR "/a", false);
	uchild = wl_mnt_id(SDIR "/a", true);
	WL_EXPECT(umount(SDIR "/a") == 0, "umount %s/a: %s", SDIR, strerror(errno));
	WL_EXPECT(sample_end(&s, false) == 0, "watch_test -n 2 ran to its end");
	mount_line(want[0], 0, "new-mount", base, child, uchild);
	mount_line(want[1], 1, "unmount", base, child, uchild);
	WL_EXPECT(expect_records(&s, 2, type, sub, id, want) == 0, "the mount records");
	return WL_PASS;
}

/* -s: the watched tmpfs remounted read-only and back. */
static enum wl_result sb_remount_ro(void)
{
	static const char *const args[] = { "-s", SDIR, "-n", "2", NULL };
	unsigned int type[2] = { WATCH_TYPE_SB_NOTIFY, WATCH_TYPE_SB_NOTIFY };
	unsigned int sub[2] = { NOTIFY_SUPERBLOCK_READONLY, NOTIFY_SUPERBLOCK_READONLY };
	unsigned int id[2] = { ID_SB, ID_SB };
	char want[2][256];
	static struct sample s;
	struct stat st;

	WL_EXPECT(stat(SDIR, &st) == 0, "stat %s: %s", SDIR, strerror(errno));
	WL_EXPECT(sample_start(&s, args) == 0, "watch_test -s");
	WL_EXPECT(mount(NULL, SDIR, NULL, MS_REMOUNT | MS_RDONLY, NULL) == 0,
		  "remount ro: %s", strerror(errno));
	WL_EXPECT(mount(NULL, SDIR, NULL, MS_REMOUNT, NULL) == 0,
		  "remount rw: %s", strerror(errno));
	WL_EXPECT(sample_end(&s, false) == 0, "watch_test -n 2 ran to its end");
	snprintf(want[0], 256, "SB change=0[readonly] sb=%u:%u flags=now_ro",
		 major(st.st_dev), minor(st.st_dev));
	snprintf(want[1], 256, "SB change=0[readonly] sb=%u:%u flags=-",
		 major(st.st_dev), minor(st.st_dev));
	WL_EXPECT(expect_records(&s, 2, type, sub, id, want) == 0, "the superblock records");
	return WL_PASS;
}

/* -k beside -m: both kinds on one queue, each on its own watch ID. */
static enum wl_result key_and_mount(void)
{
	static const char *const args[] = { "-k", "-m", SDIR, "-n", "2", NULL };
	unsigned int type[2] = { WATCH_TYPE_KEY_NOTIFY, WATCH_TYPE_MOUNT_NOTIFY };
	unsigned int sub[2] = { NOTIFY_KEY_LINKED, NOTIFY_MOUNT_NEW_MOUNT };
	unsigned int id[2] = { ID_SESSION, ID_MOUNT };
	unsigned int base = wl_mnt_id(SDIR, false), child;
	unsigned long long uchild;
	key_serial_t ses, key;
	char want[2][256];
	static struct sample s;

	ses = keyctl_join_session_keyring(NULL);
	WL_EXPECT(ses > 0, "join a session keyring: %s", strerror(errno));
	WL_EXPECT(sample_start(&s, args) == 0, "watch_test -k -m");
	key = add_key("user", "wlsample", "v1", 2, KEY_SPEC_SESSION_KEYRING);
	WL_EXPECT(key > 0, "add_key: %s", strerror(errno));
	WL_EXPECT(wl_tmpfs(SDIR "/a", NULL) == 0, "mount %s/a", SDIR);
	child = wl_mnt_id(SDIR "/a", false);
	uchild = wl_mnt_id(SDIR "/a", true);
	WL_EXPECT(sample_end(&s, false) == 0, "watch_test -n 2 ran to its end");
	snprintf(want[0], 256, "KEY %08x change=2[linked] aux=%u", ses, key);
	mount_line(want[1], 0, "new-mount", base, child, uchild);
	WL_EXPECT(expect_records(&s, 2, type, sub, id, want) == 0, "the key and mount records");
	return WL_PASS;
}

/* -d: an I/O error on a null_blk disk's bad range. */
static enum wl_result device_block_error(void)
{
	static const char *const args[] = { "-d", "-n", "1", NULL };
	unsigned int type[1] = { WATCH_TYPE_BLOCK_NOTIFY };
	unsigned int sub[1] = { NOTIFY_BLOCK_ERROR_IO };
	unsigned int id[1] = { ID_DEVICES };
	char want[1][256];
	static struct sample s;
	struct nullb nb;
	int ok;

	WL_EXPECT(wl_nullb_create(0, &nb) == 0, "a null_blk disk");
	if (sample_start(&s, args)) {
		wl_nullb_destroy();
		WL_EXPECT(0, "watch_test -d");
	}
	ok = wl_nullb_read_bad(&nb) == 0 && sample_end(&s, false) == 0;
	wl_nullb_destroy();
	WL_EXPECT(ok, "watch_test -n 1 saw the I/O error");
	snprintf(want[0], 256, "BLOCK change=0[error-io] dev=%u:%u sector=%u",
		 major(nb.rdev), minor(nb.rdev), BAD_SECTOR);
	WL_EXPECT(expect_records(&s, 1, type, sub, id, want) == 0, "the block record");
	return WL_PASS;
}

/* -d: USBDEVFS_RESET of QEMU's USB keyboard. */
static enum wl_result device_usb_reset(void)
{
	static const char *const args[] = { "-d", "-n", "1", NULL };
	unsigned int type[1] = { WATCH_TYPE_USB_NOTIFY };
	unsigned int sub[1] = { NOTIFY_USB_DEVICE_RESET };
	unsigned int id[1] = { ID_DEVICES };
	char want[1][256];
	static struct sample s;
	struct usbdev u;

	WL_EXPECT(wl_usb_find(&u) == 0, "the USB test device");
	WL_EXPECT(sample_start(&s, args) == 0, "watch_test -d");
	WL_EXPECT(wl_usb_reset(&u) == 0, "reset %s", u.name);
	WL_EXPECT(sample_end(&s, false) == 0, "watch_test -n 1 saw the reset");
	wl_usb_wait(&u, WL_USB_SETTLE_MS);
	snprintf(want[0], 256, "USB change=4[device-reset] name=%.63s error=0", u.name);
	WL_EXPECT(expect_records(&s, 1, type, sub, id, want) == 0, "the USB record");
	return WL_PASS;
}

/*
 * A stopped sample's queue overflows: once it runs again it must say so,
 * with "-- LOSS --" (a pipe's META LOSS record) or "-- OVERRUN --" (the
 * ring's WATCH_INFO_OVERRUN on the next record that fits, here the last).
 */
static enum wl_result loss_reported(void)
{
	static const char *const args[] = { "-m", SDIR, NULL };
	bool ring = wl_transport() == WL_TRANSPORT_RING;
	const char *mark = ring ? "-- OVERRUN --" : "-- LOSS --";
	static struct sample s;
	bool seen = false;
	size_t len;
	int i, ok;

	WL_EXPECT(sample_start(&s, args) == 0, "watch_test -m");
	kill(s.pid, SIGSTOP);
	/* 600 READONLY records: more than the pipe's 256 or the ring's ~400 hold. */
	for (i = 0, ok = 1; i < 600 && ok; i++)
		ok = !mount(NULL, SDIR, NULL, MS_REMOUNT | MS_BIND | (i % 2 ? 0 : MS_RDONLY),
			    NULL);
	if (!ok)
		wl_diag("bind remount %d: %s", i, strerror(errno));
	kill(s.pid, SIGCONT);
	/*
	 * One more once the sample has drained the queue (its output stays
	 * quiet for 100 ms): the ring flags the first record that fits.  A new
	 * mount made before that is lost too: unmount it and try again.
	 */
	do {
		len = s.len;
		sample_read(&s, "\n-- never --", 100);
	} while (s.len != len);
	for (i = 0, seen = false; ok && !seen && i < 10; i++) {
		ok = !wl_tmpfs(SDIR "/a", NULL);
		seen = ok && sample_read(&s, "change=0[new-mount]", wl_slow_ms(1000));
		if (ok && !seen)
			umount(SDIR "/a");
	}
	if (!seen)
		wl_diag("no new-mount record after the overflow (%d tries)", i);
	if (sample_end(&s, true) || !seen)
		ok = 0;
	WL_EXPECT(ok, "the records after the overflow");
	s.buf[s.len] = '\0';
	if (!strstr(s.buf, mark)) {
		wl_diag("no \"%s\" after 600 records into a stopped reader", mark);
		sample_dump(&s);
		return WL_FAIL;
	}
	return WL_PASS;
}

static const struct wl_test tests[] = {
	{ "key_default", key_default },
	{ "mount_new_unmount", mount_new_unmount },
	{ "sb_remount_ro", sb_remount_ro },
	{ "key_and_mount", key_and_mount },
	{ "device_block_error", device_block_error },
	{ "device_usb_reset", device_usb_reset },
	{ "loss_reported", loss_reported },
};

WL_SUITE(suite_sample, tests, .axis = WL_AXIS_TRANSPORT, .setup = setup,
	 .teardown = teardown);
