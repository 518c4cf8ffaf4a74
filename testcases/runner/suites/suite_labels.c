// SPDX-License-Identifier: GPL-2.0
/*
 * suite_labels.c - the label model the scenarios rely on (policy/labels):
 * each abstract label can be entered and reads back as this profile's
 * label, the lab's SELinux policy or Smack rules are in force, and the
 * allows and denials the label scenarios build on really hold, SELinux's
 * and Smack's own watch hooks included (suite_native_*).  In the plain
 * profile, switching labels is a no-op.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <keyutils.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>
/* glibc's <fcntl.h> already defines what <linux/fcntl.h> would redefine. */
#define _LINUX_FCNTL_H
#include <linux/watch_queue.h>

#include <selinux/selinux.h>

#include "devices_util.h"
#include "label.h"
#include "vfs_util.h"
#include "watchpol_util.h"
#include "wl.h"

/* Every child runs as this uid: only the labels differ between W, T and B. */
#define LABEL_UID 1000
#define SMACK_ACCESS2 "/sys/fs/smackfs/access2"
#define OBJECT_DIR "/tmp/wl-labels"

static const char *const process_labels[] = { "watcher", "triggerer", "bystander" };

static bool is_profile(const char *p)
{
	return !strcmp(wl_profile(), p);
}

static bool selinux_profile(void)
{
	return is_profile("selinux");
}

static bool smack_profile(void)
{
	return is_profile("smack");
}

/*
 * Fork a child that enters label, drops to LABEL_UID (no capabilities
 * left) and runs fn(arg).  The child's pid, or -1.
 */
struct labelled {
	const char *label;
	int (*fn)(void *);
	void *arg;
};

static int labelled_child(void *p)
{
	const struct labelled *l = p;
	struct wl_creds c = wl_user(LABEL_UID);

	if (wl_label_enter(l->label) || wl_drop_creds(&c))
		return WL_EXIT_NO_CREDS;
	return l->fn(l->arg);
}

static pid_t spawn_labelled(const char *label, int (*fn)(void *), void *arg)
{
	struct labelled l = { label, fn, arg };

	return wl_spawn(labelled_child, &l);
}

static int run_labelled(const char *label, int (*fn)(void *), void *arg)
{
	pid_t pid = spawn_labelled(label, fn, arg);

	return pid < 0 ? -1 : wl_reap(pid, label);
}

/* ---- every profile ---- */

static enum wl_result labels_file_names_every_label(void)
{
	static const char *const names[] = { "watcher", "triggerer", "bystander", "object" };
	char buf[256];

	for (size_t i = 0; i < WL_ARRAY_SIZE(names); i++) {
		WL_EXPECT(wl_label_lookup(names[i], buf, sizeof(buf)) == 0,
			  "look up label %s: %s", names[i], strerror(errno));
		WL_EXPECT(is_profile("plain") ? buf[0] == '\0' : buf[0] != '\0',
			  "profile %s: label %s maps to \"%s\"", wl_profile(), names[i], buf);
		if (selinux_profile())
			WL_EXPECT(security_check_context(buf) == 0,
				  "label %s: the policy rejects context %s", names[i], buf);
	}
	errno = 0;
	WL_EXPECT(wl_label_lookup("no-such-label", buf, sizeof(buf)) == -1 && errno == ENOENT,
		  "an unknown label name: got errno %d (%s), want ENOENT", errno, strerror(errno));
	errno = 0;
	WL_EXPECT(wl_label_enter("no-such-label") == -1 && errno == ENOENT,
		  "entering an unknown label: got errno %d (%s), want ENOENT", errno,
		  strerror(errno));
	return WL_PASS;
}

/* Child: the label now in force is exactly *arg's profile label. */
static int current_label_is(void *arg)
{
	const char *label = arg;
	char want[256], got[256];

	if (wl_label_lookup(label, want, sizeof(want)))
		return 1;
	if (wl_label_current(got, sizeof(got)) < 0) {
		wl_diag("%s: read /proc/self/attr/current: %s", label, strerror(errno));
		return 1;
	}
	if (strcmp(got, want)) {
		wl_diag("after entering %s: current label %s, want %s", label, got, want);
		return 1;
	}
	return 0;
}

/* Child (plain): entering a label changed nothing; there is no label. */
static int no_label_at_all(void *arg)
{
	char got[256];

	if (wl_label_current(got, sizeof(got)) >= 0 || errno != EINVAL) {
		wl_diag("%s: /proc/self/attr/current read %s, want EINVAL (no LSM label)",
			(const char *)arg, errno ? strerror(errno) : got);
		return 1;
	}
	return 0;
}

static enum wl_result enter_each_label(void)
{
	int (*check)(void *) = is_profile("plain") ? no_label_at_all : current_label_is;

	for (size_t i = 0; i < WL_ARRAY_SIZE(process_labels); i++) {
		int r = run_labelled(process_labels[i], check, (void *)process_labels[i]);

		WL_EXPECT(r == 0, "a child entering %s: exit status %d", process_labels[i], r);
	}
	return WL_PASS;
}

/*
 * wl_label_exec("triggerer"), then exec busybox cat /proc/self/attr/current:
 * the exec'd program runs as the triggerer (an exec transition under
 * SELinux); in plain it has no label to print.
 */
static enum wl_result exec_enters_label(void)
{
	char want[256], got[256] = "";
	int out[2], status;
	ssize_t n;
	pid_t pid;

	WL_EXPECT(wl_label_lookup("triggerer", want, sizeof(want)) == 0, "look up triggerer");
	WL_EXPECT(pipe2(out, O_CLOEXEC) == 0, "pipe2: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	WL_EXPECT(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);

		/* stderr too: in plain, cat's read error is the expected outcome. */
		if (dup2(out[1], STDOUT_FILENO) < 0 || devnull < 0 ||
		    dup2(devnull, STDERR_FILENO) < 0 || wl_label_exec("triggerer"))
			_exit(WL_EXIT_NO_CREDS);
		execl("/bin/cat", "cat", "/proc/self/attr/current", (char *)NULL);
		wl_diag("exec /bin/cat: %s", strerror(errno));
		_exit(126);
	}
	close(out[1]);
	n = read(out[0], got, sizeof(got) - 1);
	close(out[0]);
	WL_EXPECT(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
	WL_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) < WL_EXIT_NO_CREDS,
		  "the exec child failed (status 0x%x)", status);
	got[n > 0 ? n : 0] = '\0';
	got[strcspn(got, "\n")] = '\0';
	if (is_profile("plain")) {
		WL_EXPECT(WEXITSTATUS(status) != 0 && got[0] == '\0',
			  "plain: the exec'd cat printed \"%s\" (status %d), want no label",
			  got, WEXITSTATUS(status));
		return WL_PASS;
	}
	WL_EXPECT(WEXITSTATUS(status) == 0, "cat /proc/self/attr/current exited %d",
		  WEXITSTATUS(status));
	WL_EXPECT(!strcmp(got, want), "the exec'd program runs as %s, want %s", got, want);
	return WL_PASS;
}

static const struct wl_test tests[] = {
	{ "labels_file_names_every_label", labels_file_names_every_label },
	{ "enter_each_label", enter_each_label },
	{ "exec_enters_label", exec_enters_label },
};

WL_SUITE(suite_labels, tests);

/* ---- a waiting watcher, shared by the SELinux and Smack checks ---- */

struct waiting_watcher {
	int ready[2];		/* watcher -> runner: its key's serial */
	int go[2];		/* runner closes its end: the watcher exits */
	const char *key_label;	/* NULL: the key gets the watcher's label */
	pid_t pid;
	key_serial_t key;
};

/*
 * Child, as the watcher: a key in a new session keyring, with every key
 * permission for everyone, so only the LSM can refuse access to it.
 */
static int watcher_holds_key(void *arg)
{
	struct waiting_watcher *w = arg;
	key_serial_t key;
	char c;

	close(w->ready[0]);
	close(w->go[1]);
	if (w->key_label) {
		char ctx[256];

		if (wl_label_lookup(w->key_label, ctx, sizeof(ctx)) || setkeycreatecon(ctx)) {
			wl_diag("watcher: setkeycreatecon(%s): %s", w->key_label, strerror(errno));
			return 1;
		}
	}
	if (keyctl_join_session_keyring(NULL) < 0) {
		wl_diag("watcher: join a new session keyring: %s", strerror(errno));
		return 1;
	}
	key = add_key("user", "wl-labels", "x", 1, KEY_SPEC_SESSION_KEYRING);
	if (key < 0 || keyctl_setperm(key, 0x3f3f3f3f)) {
		wl_diag("watcher: add or open up a key: %s", strerror(errno));
		return 1;
	}
	if (write(w->ready[1], &key, sizeof(key)) != sizeof(key))
		return 1;
	/* Wait for the runner to be done with the key (EOF on go). */
	return read(w->go[0], &c, 1) < 0;
}

static int start_watcher(struct waiting_watcher *w)
{
	ssize_t n;

	if (pipe2(w->ready, O_CLOEXEC) || pipe2(w->go, O_CLOEXEC)) {
		wl_diag("pipe2: %s", strerror(errno));
		return -1;
	}
	w->pid = spawn_labelled("watcher", watcher_holds_key, w);
	close(w->ready[1]);
	close(w->go[0]);
	if (w->pid < 0)
		return -1;
	n = read(w->ready[0], &w->key, sizeof(w->key));
	close(w->ready[0]);
	if (n != sizeof(w->key)) {
		wl_diag("the watcher reported no key");
		close(w->go[1]);
		wl_reap(w->pid, "watcher");
		return -1;
	}
	return 0;
}

static int stop_watcher(struct waiting_watcher *w)
{
	close(w->go[1]);
	return wl_reap(w->pid, "watcher");
}

struct probe {
	struct waiting_watcher *w;
	int want_errno;		/* 0: the access must succeed */
};

/*
 * Child: send the watcher SIGCONT, which it does not notice.  Not signal 0:
 * Smack lets the null signal (an existence test) through whatever the labels.
 */
static int probe_signal(void *arg)
{
	const struct probe *p = arg;

	return wl_want_errno("kill(watcher, SIGCONT)", kill(p->w->pid, SIGCONT),
			     p->want_errno) != 0;
}

/* ---- watchpol's label rules for this profile ---- */

/* The "post T W" and "watch W O" lines policy/labels implies, in order. */
static int expected_rules(char *buf, size_t size)
{
	char t[256], w[256], o[256];

	if (wl_label_lookup("triggerer", t, sizeof(t)) ||
	    wl_label_lookup("watcher", w, sizeof(w)) ||
	    wl_label_lookup("object", o, sizeof(o)))
		return -1;
	snprintf(buf, size, "post %s %s\n", t, w);
	snprintf(buf + strlen(buf), size - strlen(buf), "watch %s %s\n", w, o);
	return 0;
}

/* Every line of want is a whole line of got. */
static bool has_lines(const char *got, const char *want)
{
	static char hay[65536 + 2], needle[512];
	size_t n;

	snprintf(hay, sizeof(hay), "\n%s\n", got);
	for (const char *l = want; *l; l += n + (l[n] == '\n')) {
		n = strcspn(l, "\n");
		snprintf(needle, sizeof(needle), "\n%.*s\n", (int)n, l);
		if (!strstr(hay, needle))
			return false;
	}
	return true;
}

/*
 * /etc/watchlab/watchpol/rules-<profile>.policy loads beside a model, every
 * label in it resolves under this boot's LSM, and its rules include
 * "post T W" and "watch W O" in policy/labels' terms.
 */
static enum wl_result watchpol_label_rules_resolve(void)
{
	static char saved[65536], rules[4096], text[4096 + 32], got[65536], stats[4096];
	char path[128], want[1536];
	const char *unresolved;
	int r;

	snprintf(path, sizeof(path), "/etc/watchlab/watchpol/rules-%s.policy", wl_profile());
	WL_EXPECT(wl_try_read(path, rules, sizeof(rules)) > 0, "read %s: %s", path,
		  strerror(errno));
	WL_EXPECT(expected_rules(want, sizeof(want)) == 0, "look up T, W and O");
	WL_EXPECT(wl_try_read(WP_POLICY, saved, sizeof(saved)) >= 0,
		  "read the watchpol policy in force: %s", strerror(errno));
	snprintf(text, sizeof(text), "default none\n%s", rules);
	r = wp_write_policy_str(text);
	WL_EXPECT(r == 0, "load default none plus %s: %s", path, strerror(-r));
	WL_EXPECT(wl_try_read(WP_POLICY, got, sizeof(got)) >= 0 &&
		  wl_try_read(WP_STATS, stats, sizeof(stats)) >= 0,
		  "read the watchpol policy and stats back: %s", strerror(errno));
	r = wp_write_policy_str(saved);
	WL_EXPECT(r == 0, "restore the watchpol policy: %s", strerror(-r));
	WL_EXPECT(has_lines(got, want), "%s loaded as\n%s\nwant the rules\n%s", path, got, want);
	unresolved = strstr(stats, "unresolved_rules ");
	WL_EXPECT(unresolved && !strncmp(unresolved, "unresolved_rules 0\n", 19),
		  "labels in %s do not resolve:\n%s", path, stats);
	return WL_PASS;
}

/* ---- SELinux ---- */

static enum wl_result selinux_enforces_lab_policy(void)
{
	char *con = NULL;
	int r;

	/* Not is_selinux_enabled(): it also wants an /etc/selinux/config. */
	WL_EXPECT(security_policyvers() > 0, "selinuxfs: no policy version (%s)",
		  strerror(errno));
	WL_EXPECT(security_getenforce() == 1, "enforcing is %d, want 1", security_getenforce());
	WL_EXPECT(getcon(&con) == 0, "getcon: %s", strerror(errno));
	r = strcmp(con, "system_u:system_r:wl_init_t:s0");
	wl_diag("runner context %s", con);
	freecon(con);
	WL_EXPECT(r == 0, "the runner is not in wl_init_t: no lab policy in force");
	WL_EXPECT(security_check_context("system_u:system_r:unconfined_t:s0") != 0,
		  "a context the lab policy does not define is valid: another policy is loaded");
	return WL_PASS;
}

/* Child: view and watch the watcher's key, expecting p->want_errno. */
static int probe_key(void *arg)
{
	const struct probe *p = arg;
	char desc[256];
	int fd, bad;

	bad = wl_want_errno("KEYCTL_DESCRIBE of the watcher's key",
			    keyctl_describe(p->w->key, desc, sizeof(desc)), p->want_errno) != 0;
	fd = wl_wq_open(16);
	if (fd < 0)
		return 1;
	bad |= wl_want_errno("KEYCTL_WATCH_KEY on the watcher's key",
			     keyctl_watch_key(p->w->key, fd, 1), p->want_errno) != 0;
	wl_wq_close(fd);
	return bad;
}

static enum wl_result probe_watcher(const char *key_label, const char *label,
				    int (*fn)(void *), int want_errno)
{
	struct waiting_watcher w = { .key_label = key_label };
	struct probe p = { &w, want_errno };
	char desc[256];
	int r;

	WL_EXPECT(start_watcher(&w) == 0, "start the watcher");
	/* The runner (wl_init_t) sees it: the key exists and DAC allows all. */
	if (keyctl_describe(w.key, desc, sizeof(desc)) < 0) {
		wl_diag("the runner cannot describe key %d: %s", w.key, strerror(errno));
		stop_watcher(&w);
		return WL_FAIL;
	}
	r = run_labelled(label, fn, &p);
	WL_EXPECT(stop_watcher(&w) == 0, "the watcher failed");
	WL_EXPECT(r == 0, "as %s: exit status %d", label, r);
	return WL_PASS;
}

static enum wl_result selinux_bystander_cannot_see_watcher_key(void)
{
	return probe_watcher(NULL, "bystander", probe_key, EACCES);
}

static enum wl_result selinux_triggerer_cannot_see_watcher_key(void)
{
	return probe_watcher(NULL, "triggerer", probe_key, EACCES);
}

static enum wl_result selinux_bystander_sees_object_key(void)
{
	return probe_watcher("object", "bystander", probe_key, 0);
}

static enum wl_result selinux_triggerer_cannot_signal_watcher(void)
{
	return probe_watcher(NULL, "triggerer", probe_signal, EACCES);
}

static enum wl_result selinux_bystander_cannot_signal_watcher(void)
{
	return probe_watcher(NULL, "bystander", probe_signal, EACCES);
}

/* Child: open *arg for writing and write to it. */
static int write_object(void *arg)
{
	int fd = open(arg, O_WRONLY | O_APPEND | O_CLOEXEC);

	if (fd < 0 || write(fd, "x", 1) != 1) {
		wl_diag("write %s: %s", (const char *)arg, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	close(fd);
	return 0;
}

/* A file in OBJECT_DIR that every uid may write, with xattr name = value. */
static int make_object(const char *path, const char *xattr, const char *value)
{
	int fd;

	if (mkdir(OBJECT_DIR, 0755) && errno != EEXIST) {
		wl_diag("mkdir %s: %s", OBJECT_DIR, strerror(errno));
		return -1;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0 || fchmod(fd, 0666) ||
	    fsetxattr(fd, xattr, value, strlen(value), 0)) {
		wl_diag("make %s with %s=%s: %s", path, xattr, value, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* Every label writes path, except that the label named by denied may not. */
static enum wl_result every_label_writes(const char *path, const char *denied)
{
	for (size_t i = 0; i < WL_ARRAY_SIZE(process_labels); i++) {
		bool may = !denied || strcmp(process_labels[i], denied);
		int r = run_labelled(process_labels[i], write_object, (void *)path);

		WL_EXPECT((r == 0) == may, "%s writing the shared object %s: exit status %d, want %s",
			  process_labels[i], path, r, may ? "0" : "a refusal");
	}
	unlink(path);
	return WL_PASS;
}

static enum wl_result selinux_every_label_writes_object(void)
{
	const char *path = OBJECT_DIR "/object";
	char ctx[256];

	WL_EXPECT(wl_label_lookup("object", ctx, sizeof(ctx)) == 0, "look up object");
	WL_EXPECT(make_object(path, "security.selinux", ctx) == 0, "make the object");
	return every_label_writes(path, NULL);
}

static const struct wl_test selinux_tests[] = {
	{ "selinux_enforces_lab_policy", selinux_enforces_lab_policy },
	{ "selinux_bystander_cannot_see_watcher_key", selinux_bystander_cannot_see_watcher_key },
	{ "selinux_triggerer_cannot_see_watcher_key", selinux_triggerer_cannot_see_watcher_key },
	{ "selinux_bystander_sees_object_key", selinux_bystander_sees_object_key },
	{ "selinux_triggerer_cannot_signal_watcher", selinux_triggerer_cannot_signal_watcher },
	{ "selinux_bystander_cannot_signal_watcher", selinux_bystander_cannot_signal_watcher },
	{ "selinux_every_label_writes_object", selinux_every_label_writes_object },
	{ "watchpol_label_rules_resolve", watchpol_label_rules_resolve },
};

WL_SUITE_IF(suite_labels_selinux, selinux_tests, selinux_profile, "not the selinux profile");

/* ---- Smack ---- */

/* Ask smackfs access2 whether subject may access object: 1, 0, or -1. */
static int smack_access(const char *subject, const char *object, const char *access)
{
	char query[600], answer[4] = "";
	ssize_t n;
	int fd;

	snprintf(query, sizeof(query), "%s %s %s", subject, object, access);
	fd = open(SMACK_ACCESS2, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		wl_diag("open %s: %s", SMACK_ACCESS2, strerror(errno));
		return -1;
	}
	if (write(fd, query, strlen(query)) != (ssize_t)strlen(query) ||
	    (n = read(fd, answer, sizeof(answer) - 1)) < 1) {
		wl_diag("query %s \"%s\": %s", SMACK_ACCESS2, query, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return answer[0] == '1';
}

static enum wl_result smack_rules_loaded(void)
{
	static const struct {
		const char *subject, *object, *access;
		int want;
	} rules[] = {
		{ "wlT", "wlW", "w", 1 },
		{ "wlB", "wlW", "w", 0 },
		{ "wlB", "wlW", "r", 0 },
		{ "wlW", "wlB", "w", 0 },
		{ "wlW", "wlT", "w", 0 },
		{ "wlW", "wlO", "rwxa", 1 },
		{ "wlT", "wlO", "rwxa", 1 },
		{ "wlB", "wlO", "wxa", 1 },
		{ "wlB", "wlO", "r", 0 },
		{ "wlW", "_", "rwxa", 1 },
	};

	for (size_t i = 0; i < WL_ARRAY_SIZE(rules); i++) {
		int got = smack_access(rules[i].subject, rules[i].object, rules[i].access);

		WL_EXPECT(got == rules[i].want, "smack access %s %s %s: got %d, want %d",
			  rules[i].subject, rules[i].object, rules[i].access, got,
			  rules[i].want);
	}
	return WL_PASS;
}

static enum wl_result smack_triggerer_writes_watcher(void)
{
	return probe_watcher(NULL, "triggerer", probe_signal, 0);
}

static enum wl_result smack_bystander_cannot_write_watcher(void)
{
	return probe_watcher(NULL, "bystander", probe_signal, EACCES);
}

static enum wl_result smack_every_label_writes_object(void)
{
	const char *path = OBJECT_DIR "/object";
	char label[256];

	WL_EXPECT(wl_label_lookup("object", label, sizeof(label)) == 0, "look up object");
	WL_EXPECT(make_object(path, "security.SMACK64", label) == 0, "make the object");
	/* Smack's file_open asks for read access, which B lacks on O (wxa). */
	return every_label_writes(path, "bystander");
}

/*
 * A rule naming a Smack label nobody has used yet maps to no secid
 * (unresolved_rules counts it).  Once the label is imported (here by a
 * Smack rule naming it), Smack tells the LSM chain (kernel-patches/0017)
 * and watchpol resolves the rule, without the policy being written again.
 * Without 0017, or without watchpol following LSM_POLICY_CHANGE, the rule
 * stays unresolved.
 */
static enum wl_result smack_late_label_starts_matching(void)
{
	char label[32], text[128];
	long resolves;
	int r;

	/* A label no earlier test (or run of this test) has imported. */
	snprintf(label, sizeof(label), "wlLate%ld", (long)getpid());
	snprintf(text, sizeof(text), "default none\npost %s wlW\n", label);
	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	r = wp_write_policy_str(text);
	WL_EXPECT(r == 0, "load a rule for %s: %s", label, strerror(-r));
	resolves = wp_stat("label_resolves");
	WL_EXPECT(wp_stat("unresolved_rules") == 1,
		  "the rule for %s, a label not yet imported, is not counted as unresolved",
		  label);
	WL_EXPECT(wl_smack_rule(label, "wlW", "w") == 0, "import %s with a Smack rule", label);
	for (int i = 0; i < 200 && wp_stat("label_resolves") <= resolves; i++)
		usleep(wl_slow_ms(50) * 1000);
	WL_EXPECT(wp_stat("label_resolves") > resolves,
		  "importing %s did not make watchpol resolve its rules again", label);
	WL_EXPECT(wp_stat("unresolved_rules") == 0,
		  "the rule for %s is still unresolved after the label was imported", label);
	WL_EXPECT(wp_restore_policy(), "could not restore the policy");
	return WL_PASS;
}

/*
 * ---- a text within the size limit whose canonical form is not ----
 *
 * watchpol/policy reads back a canonical form of the text in force, and a
 * change of the LSM's policy parses that form again: it must fit the
 * 256 KiB a write may bring, end line included.  The canonical form spells
 * out what a text may leave unsaid ("enforce", "kernel_events"), so a text
 * of rules alone can be within the limit and its canonical form over it:
 * such a text is refused whole (lsm/policy_parser.c), with a reason that
 * has no line number (lsm/fs.c policy_reject()).  Filling 256 KiB with
 * distinct rules takes long labels: CANON_LABELS Smack labels of
 * CANON_LABEL_LEN bytes, imported by rules that grant nothing, give
 * CANON_LABELS^2 distinct "watch" rules of 488 bytes.  The lab's SELinux
 * policy has too few contexts, so only the smack boot has this test.
 */
#define CANON_LIMIT (256 * 1024)
#define CANON_LABELS 24
#define CANON_LABEL_LEN 240
#define CANON_HEADER "default none\n"
#define CANON_REFUSED "watchpol: policy rejected: policy too large in canonical form"

/* The Smack label of exactly @len bytes: @prefix and @i, padded (or cut) to fit. */
static void canon_label(char *buf, const char *prefix, unsigned int i, size_t len)
{
	size_t n = (size_t)snprintf(buf, len + 1, "%s%u", prefix, i);

	if (n < len)
		memset(buf + n, 'x', len - n);
	buf[len] = '\0';
}

/* Import the CANON_LABELS long labels; 0 or -1 (diagnosed). */
static int canon_import(void)
{
	char label[256];

	for (unsigned int i = 0; i < CANON_LABELS; i++) {
		canon_label(label, "wlCanon", i, CANON_LABEL_LEN);
		if (wl_smack_rule(label, "wlO", "-"))
			return -1;
	}
	return 0;
}

/*
 * CANON_HEADER, then rules whose lines add up to exactly @rules_len bytes,
 * then the end line, into @buf of CANON_LIMIT + 1 bytes: its length, or 0
 * (diagnosed) when the rules cannot be made that long.
 */
static size_t canon_text(char *buf, size_t rules_len)
{
	const size_t line = strlen("watch  \n") + 2 * CANON_LABEL_LEN;
	char subj[256], obj[256];
	size_t pos = strlen(CANON_HEADER), left = rules_len, a;
	unsigned int pair;

	memcpy(buf, CANON_HEADER, pos);
	for (pair = 0; left >= line + 9 && pair < CANON_LABELS * CANON_LABELS; pair++) {
		canon_label(subj, "wlCanon", pair / CANON_LABELS, CANON_LABEL_LEN);
		canon_label(obj, "wlCanon", pair % CANON_LABELS, CANON_LABEL_LEN);
		pos += sprintf(buf + pos, "watch %s %s\n", subj, obj);
		left -= line;
	}
	/* The last line, "post S O\n", takes what is left: 9 to 496 bytes. */
	if (left < 9 || left >= line + 9) {
		wl_diag("%zu bytes of rules do not fit %d labels", rules_len, CANON_LABELS);
		return 0;
	}
	a = (left - 7) / 2;
	canon_label(subj, "wlFill", 0, a);
	canon_label(obj, "wlFill", 1, left - 7 - a);
	if (wl_smack_rule(subj, "wlO", "-") || wl_smack_rule(obj, "wlO", "-"))
		return 0;
	pos += sprintf(buf + pos, "post %s %s\nend\n", subj, obj);
	return pos;
}

static enum wl_result smack_canonical_form_over_limit_refused(void)
{
	static char text[CANON_LIMIT + 1];
	char *header = NULL, *in_force = NULL, *after = NULL;
	long rejects, logged;
	size_t rules_len, len;
	enum wl_result res = WL_FAIL;
	int r;

	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	/* How long the header and end line read back, canonical. */
	r = wp_write_policy_str(CANON_HEADER);
	if (r || !(header = wp_read_policy())) {
		wl_diag("load %s: %s", CANON_HEADER, strerror(-r));
		goto out;
	}
	rules_len = CANON_LIMIT - strlen(header);
	if (canon_import())
		goto out;

	/* Canonical form with its end line exactly 256 KiB: it loads. */
	len = canon_text(text, rules_len);
	if (!len)
		goto out;
	r = wp_write_policy(text, len);
	if (r) {
		wl_diag("a text of %zu bytes whose canonical form is %d: %s", len, CANON_LIMIT,
			strerror(-r));
		goto out;
	}
	in_force = wp_read_policy();
	if (!in_force || strlen(in_force) != CANON_LIMIT) {
		wl_diag("the policy in force reads back as %zu bytes, want %d",
			in_force ? strlen(in_force) : 0, CANON_LIMIT);
		goto out;
	}

	/* One byte more: refused, nothing changed, counted and logged. */
	len = canon_text(text, rules_len + 1);
	if (!len)
		goto out;
	rejects = wp_stat("policy_rejects");
	logged = wl_klog_count(CANON_REFUSED);
	r = wp_write_policy(text, len);
	if (r != -EFBIG) {
		wl_diag("a text of %zu bytes whose canonical form is %d got %s, want EFBIG", len,
			CANON_LIMIT + 1, r ? strerror(-r) : "success");
		goto out;
	}
	after = wp_read_policy();
	if (!after || strcmp(after, in_force)) {
		wl_diag("the refused text changed the policy in force");
		goto out;
	}
	if (wp_stat("policy_rejects") != rejects + 1) {
		wl_diag("policy_rejects went from %ld to %ld, want one more", rejects,
			wp_stat("policy_rejects"));
		goto out;
	}
	if (logged < 0 || wl_klog_count(CANON_REFUSED) != logged + 1) {
		wl_diag("the kernel log does not say once \"%s\"", CANON_REFUSED);
		goto out;
	}
	res = WL_PASS;
out:
	free(header);
	free(in_force);
	free(after);
	if (!wp_restore_policy())
		res = WL_FAIL;
	return res;
}

static const struct wl_test smack_tests[] = {
	{ "smack_rules_loaded", smack_rules_loaded },
	{ "smack_triggerer_writes_watcher", smack_triggerer_writes_watcher },
	{ "smack_bystander_cannot_write_watcher", smack_bystander_cannot_write_watcher },
	{ "smack_every_label_writes_object", smack_every_label_writes_object },
	{ "watchpol_label_rules_resolve", watchpol_label_rules_resolve },
	{ "smack_late_label_starts_matching", smack_late_label_starts_matching },
	{ "smack_canonical_form_over_limit_refused", smack_canonical_form_over_limit_refused },
};

WL_SUITE_IF(suite_labels_smack, smack_tests, smack_profile, "not the smack profile");

/*
 * ---- SELinux's and Smack's own rulings on setting a watch ----
 *
 * kernel-patches 0015 and 0016, with watchpol at model none so that only the
 * major LSM decides.  W, T and B (process_labels order) each set a watch as
 * uid 1000 with no capabilities and must get what the lab's policy gives:
 *
 * selinux: a tmpfs mounted with context= the "object" type; W and T may
 *   watch its mounts (dir:watch_mount) and its superblock (filesystem:watch,
 *   dir:watch_sb on the root), B may not (policy/selinux/watchlab.te); W and
 *   T may read the kernel log (system:syslog_read), and so watch devices; B
 *   may not.
 * smack: a tmpfs whose root carries W's label: W reads it, T (write only)
 *   and B (no rule) do not, so only W may watch its mounts and superblock;
 *   with smackfs's syslog label set to W's, only W may watch devices.
 *
 * Without the hooks every call succeeds and each refusal fails the test.
 */
#define NATIVE_DIR "/tmp/wl-native"
#define SMACK_SYSLOG "/sys/fs/smackfs/syslog"

enum native_call { CALL_MOUNT, CALL_SB, CALL_DEVICES };

static const char *const native_call_name[] = { "watch_mount", "watch_sb", "watch_devices" };

struct native_case {
	enum native_call call;
	int want;
	const char *path;	/* what names the mount or sb: NATIVE_DIR */
};

/* Child, as one party: open a queue, set the watch; 0 if it got want. */
static int set_native_watch(void *arg)
{
	const struct native_case *c = arg;
	int fd = wl_wq_open(16);
	long r;

	if (fd < 0)
		return 1;
	if (c->call == CALL_MOUNT)
		r = wl_watch_mount(AT_FDCWD, c->path, 0, fd, 1);
	else if (c->call == CALL_SB)
		r = wl_watch_sb(AT_FDCWD, c->path, 0, fd, 1);
	else
		r = wl_watch_devices(fd, 1, 0);
	return wl_want_errno(native_call_name[c->call], r, c->want) ? 1 : 0;
}

/*
 * W, T and B set the watch on what path names in turn, under the watchpol
 * model (with the profile's label rules); want[i] is process_labels[i]'s
 * result.
 */
static enum wl_result parties_watch(const char *model, enum native_call call,
				    const char *path, const int want[3])
{
	int bad = 0;

	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	WL_EXPECT(wl_load_model(model) == 0, "load model %s", model);
	for (size_t i = 0; i < WL_ARRAY_SIZE(process_labels); i++) {
		struct native_case c = { call, want[i], path };

		if (run_labelled(process_labels[i], set_native_watch, &c)) {
			wl_diag("%s of %s by %s under model %s: want %s", native_call_name[call],
				path, process_labels[i], model,
				want[i] ? strerror(want[i]) : "success");
			bad = 1;
		}
	}
	WL_EXPECT(wp_restore_policy(), "restore the policy");
	WL_EXPECT(!bad, "a party got what the policy does not give it (above)");
	return WL_PASS;
}

/* The major LSM alone (watchpol at none) on the suite's fixture. */
static enum wl_result by_party(enum native_call call, const int want[3])
{
	return parties_watch("none", call, NATIVE_DIR, want);
}

/* The suites' fixture: a tmpfs at NATIVE_DIR, mode 1777, its root labelled. */
static int native_mount(const char *label_name, const char *fmt)
{
	char l[160], opts[400];

	if (wl_label_lookup(label_name, l, sizeof(l)))
		return -1;
	snprintf(opts, sizeof(opts), fmt, l, l);
	umount2(NATIVE_DIR, MNT_DETACH);
	if (wl_mkdir(NATIVE_DIR) || mount("wlnative", NATIVE_DIR, "tmpfs", 0, opts)) {
		wl_diag("mount tmpfs on %s (%s): %s", NATIVE_DIR, opts, strerror(errno));
		return -1;
	}
	return 0;
}

static int native_selinux_setup(void)
{
	return native_mount("object", "mode=1777,context=\"%s\"");
}

static int native_smack_setup(void)
{
	return native_mount("watcher", "mode=1777,smackfsroot=%s,smackfsdef=%s");
}

static void native_teardown(void)
{
	umount2(NATIVE_DIR, MNT_DETACH);
}

static const int w_t_not_b[3] = { 0, 0, EACCES };
static const int only_w[3] = { 0, EACCES, EACCES };
static const int everyone[3] = { 0, 0, 0 };

/*
 * watch_sb names a superblock through any directory of it, and is judged
 * on the superblock's root (SELinux file:watch_sb on s_root, Smack read of
 * the root, watchpol's label part on the root's label), never on the
 * directory that named it: a party must not watch a filesystem by naming
 * it through a directory it may watch.  The fixture: a tmpfs at SBDIR_FS
 * whose root is O, with a directory SBDIR labelled as a party may watch.
 */
#define SBDIR_FS "/tmp/wl-sbdir"
#define SBDIR SBDIR_FS "/open"

/* Mount SBDIR_FS with opts (a root label of O) and label SBDIR value. */
static int sbdir_mount(const char *opts, const char *xattr, const char *value)
{
	umount2(SBDIR_FS, MNT_DETACH);
	if (wl_mkdir(SBDIR_FS) || mount("wlsbdir", SBDIR_FS, "tmpfs", 0, opts)) {
		wl_diag("mount tmpfs on %s (%s): %s", SBDIR_FS, opts, strerror(errno));
		return -1;
	}
	if (mkdir(SBDIR, 0777) || chmod(SBDIR, 0777) ||
	    setxattr(SBDIR, xattr, value, strlen(value), 0)) {
		wl_diag("make %s with %s=%s: %s", SBDIR, xattr, value, strerror(errno));
		umount2(SBDIR_FS, MNT_DETACH);
		return -1;
	}
	return 0;
}

/*
 * The fixture with opts and SBDIR labelled value, then: the major LSM
 * alone refuses B (model none), watchpol at model watcher lets only W
 * through, each naming the sb through SBDIR.
 */
static enum wl_result watch_sb_through_sbdir(const char *opts, const char *xattr,
					     const char *value)
{
	enum wl_result r;

	WL_EXPECT(sbdir_mount(opts, xattr, value) == 0, "the fixture");
	r = parties_watch("none", CALL_SB, SBDIR, w_t_not_b);
	if (r == WL_PASS)
		r = parties_watch("watcher", CALL_SB, SBDIR, only_w);
	umount2(SBDIR_FS, MNT_DETACH);
	return r;
}

/*
 * SELinux: the root is O (rootcontext=, so that a file in it can carry
 * another type), SBDIR the lab's other files' type (that of /tmp), on
 * which B has watch_sb and watchpol no rule for W.  SELinux must refuse B
 * as for the root (suite_native_selinux's watch_sb_by_party); watchpol,
 * at model watcher, must let W watch through SBDIR as through the root.
 */
static enum wl_result selinux_watch_sb_judges_root(void)
{
	char o[160], other[160], opts[256];
	ssize_t n;

	WL_EXPECT(wl_label_lookup("object", o, sizeof(o)) == 0, "look up object");
	n = getxattr("/tmp", "security.selinux", other, sizeof(other) - 1);
	WL_EXPECT(n > 0, "the label of /tmp: %s", strerror(errno));
	other[n] = 0;
	WL_EXPECT(strcmp(other, o), "/tmp is labelled %s, as O is: no other label to name", o);
	snprintf(opts, sizeof(opts), "mode=1777,rootcontext=\"%s\"", o);
	return watch_sb_through_sbdir(opts, "security.selinux", other);
}

/*
 * Smack: the root is O, SBDIR carries T's own label.  Smack lets W and T
 * read O, not B; watchpol at model watcher has a watch rule from W to O
 * only, and lets any label watch what carries its own: judged on SBDIR, T
 * would pass.
 */
static enum wl_result smack_watch_sb_judges_root(void)
{
	char o[64], t[64], opts[256];

	WL_EXPECT(wl_label_lookup("object", o, sizeof(o)) == 0, "look up object");
	WL_EXPECT(wl_label_lookup("triggerer", t, sizeof(t)) == 0, "look up triggerer");
	snprintf(opts, sizeof(opts), "mode=1777,smackfsroot=%s", o);
	return watch_sb_through_sbdir(opts, "security.SMACK64", t);
}

static enum wl_result selinux_watch_mount_by_party(void)
{
	return by_party(CALL_MOUNT, w_t_not_b);
}

static enum wl_result selinux_watch_sb_by_party(void)
{
	return by_party(CALL_SB, w_t_not_b);
}

static enum wl_result selinux_watch_devices_by_party(void)
{
	return by_party(CALL_DEVICES, w_t_not_b);
}

static const struct wl_test native_selinux_tests[] = {
	{ "watch_mount_by_party", selinux_watch_mount_by_party },
	{ "watch_sb_by_party", selinux_watch_sb_by_party },
	{ "watch_sb_judges_root", selinux_watch_sb_judges_root },
	{ "watch_devices_by_party", selinux_watch_devices_by_party },
};

WL_SUITE(suite_native_selinux, native_selinux_tests, .applies = selinux_profile,
	 .skip_reason = "not the selinux profile", .setup = native_selinux_setup,
	 .teardown = native_teardown);

static enum wl_result smack_watch_mount_by_party(void)
{
	return by_party(CALL_MOUNT, only_w);
}

static enum wl_result smack_watch_sb_by_party(void)
{
	return by_party(CALL_SB, only_w);
}

/*
 * The syslog label can be set but not cleared: the test leaves it at the
 * floor label "_", which every label may read (so every party may watch
 * devices again) and with which only "_" tasks and CAP_MAC_OVERRIDE read
 * the kernel log.  No labelled child of the runner reads the log.
 */
static enum wl_result smack_watch_devices_by_party(void)
{
	enum wl_result r;
	char l[64];

	WL_EXPECT(wl_label_lookup("watcher", l, sizeof(l)) == 0, "look up watcher");
	WL_EXPECT(wl_write_file(SMACK_SYSLOG, l) == 0, "set %s to %s", SMACK_SYSLOG, l);
	r = by_party(CALL_DEVICES, only_w);
	WL_EXPECT(wl_write_file(SMACK_SYSLOG, "_") == 0, "set %s to _", SMACK_SYSLOG);
	if (r != WL_PASS)
		return r;
	return by_party(CALL_DEVICES, everyone);
}

/*
 * Smack's post_notification judges the task that set the watch (kernel-
 * patches 0013), not the queue's creator: a child opens the queue as B,
 * becomes W and sets the watch; T, who may write to W (wlT wlW w) and not
 * to B, updates the key.  The record must arrive.
 */
struct relabelled_queue {
	int ready[2];		/* child -> runner: the watch is set */
	int go[2];		/* runner closes its end: T has acted */
	key_serial_t key;
};

#define RELABELLED_WATCH_ID 7

/* Child of the runner (root): the queue as B, the watch as W. */
static int watch_from_bystander_queue(void *arg)
{
	struct relabelled_queue *r = arg;
	struct wl_creds c = wl_user(LABEL_UID);
	struct wl_record rec;
	char ch = 0;
	int q;

	close(r->ready[0]);
	close(r->go[1]);
	if (wl_label_enter("bystander"))
		return WL_EXIT_NO_CREDS;
	q = wl_wq_open(16);
	if (q < 0 || wl_label_enter("watcher") || wl_drop_creds(&c))
		return WL_EXIT_NO_CREDS;
	if (keyctl(KEYCTL_WATCH_KEY, r->key, q, RELABELLED_WATCH_ID)) {
		wl_diag("watcher: KEYCTL_WATCH_KEY: %s", strerror(errno));
		return 1;
	}
	if (write(r->ready[1], &ch, 1) != 1 || read(r->go[0], &ch, 1) < 0)
		return 1;
	if (wl_wq_expect(q, WATCH_TYPE_KEY_NOTIFY, NOTIFY_KEY_UPDATED, &rec,
			 WL_EVENT_TIMEOUT_MS) != 1) {
		wl_diag("watcher: T's update did not arrive: judged against the queue's creator (B)?");
		return 1;
	}
	if (rec.watch_id != RELABELLED_WATCH_ID) {
		wl_diag("watcher: the update came with watch id %u, want %u", rec.watch_id,
			RELABELLED_WATCH_ID);
		return 1;
	}
	return 0;
}

/* Child, as T: update the key. */
static int update_key(void *arg)
{
	return wl_want_errno("keyctl_update", keyctl_update(*(key_serial_t *)arg, "u", 1), 0) != 0;
}

static enum wl_result smack_post_judges_setter(void)
{
	struct relabelled_queue r;
	int got = -1, acted = -1;
	pid_t pid;
	char ch;

	r.key = add_key("user", "wl-setter", "x", 1, KEY_SPEC_PROCESS_KEYRING);
	WL_EXPECT(r.key >= 0 && keyctl_setperm(r.key, 0x3f3f3f3f) == 0, "a key for everyone: %s",
		  strerror(errno));
	WL_EXPECT(pipe2(r.ready, O_CLOEXEC) == 0 && pipe2(r.go, O_CLOEXEC) == 0, "pipe2: %s",
		  strerror(errno));
	WL_EXPECT(wp_save_policy(), "could not save the policy in force");
	WL_EXPECT(wp_write_policy_str("default none\n") == 0, "load model none");
	pid = wl_spawn(watch_from_bystander_queue, &r);
	close(r.ready[1]);
	close(r.go[0]);
	if (pid >= 0 && read(r.ready[0], &ch, 1) == 1)
		acted = run_labelled("triggerer", update_key, &r.key);
	close(r.go[1]);
	close(r.ready[0]);
	if (pid >= 0)
		got = wl_reap(pid, "watcher");
	keyctl_unlink(r.key, KEY_SPEC_PROCESS_KEYRING);
	WL_EXPECT(wp_restore_policy(), "restore the policy");
	WL_EXPECT(acted == 0, "T could not update the key (exit status %d)", acted);
	WL_EXPECT(got == 0, "the watcher did not get T's update (exit status %d)", got);
	return WL_PASS;
}

static const struct wl_test native_smack_tests[] = {
	{ "watch_mount_by_party", smack_watch_mount_by_party },
	{ "watch_sb_by_party", smack_watch_sb_by_party },
	{ "watch_sb_judges_root", smack_watch_sb_judges_root },
	{ "post_judges_setter", smack_post_judges_setter },
	{ "watch_devices_by_party", smack_watch_devices_by_party },
};

WL_SUITE(suite_native_smack, native_smack_tests, .applies = smack_profile,
	 .skip_reason = "not the smack profile", .setup = native_smack_setup,
	 .teardown = native_teardown);
