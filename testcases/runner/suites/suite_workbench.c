// SPDX-License-Identifier: GPL-2.0
/*
 * suite_workbench.c - the workbench commands of `make shell` (wl watch,
 * wl as, wl policy, wl scenario; cmd/), run as a user runs them: through
 * /bin/wl and a shell, output and exit status checked.  Each command's
 * normal path and its errors (a bad argument is a usage error and changes
 * nothing), and, in the smack profile, docs/workbench.md's walkthrough: the
 * transcript testcases/walkthrough/smack.txt (which docs/workbench.md quotes; a
 * host test keeps the two equal) is run command by command and its output
 * must be the transcript's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <keyutils.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "label.h"
#include "watchpol_util.h"
#include "wl.h"

#define WB_DIR "/tmp/wl-workbench"
#define WB_OUT WB_DIR "/out"
#define WB_ERR WB_DIR "/err"
#define WB_OUT_MAX 16384
#define WALKTHROUGH "/etc/watchlab/walkthrough/smack.txt"
#define WALKTHROUGH_SCRIPT WB_DIR "/walkthrough.sh"
#define PROMPT "/ # "

static char out[WB_OUT_MAX], err[WB_OUT_MAX];

/*
 * Run cmd with sh -c, stdout and stderr into out and err; its exit status,
 * or -1 (diagnosed) if it could not run or died of a signal.
 */
static int run(const char *cmd)
{
	char sh[1024];
	int r;

	if (snprintf(sh, sizeof(sh), "(%s) >" WB_OUT " 2>" WB_ERR, cmd) >= (int)sizeof(sh)) {
		wl_diag("command too long: %s", cmd);
		return -1;
	}
	out[0] = err[0] = '\0';
	fflush(NULL);
	r = system(sh);
	if (wl_try_read(WB_OUT, out, sizeof(out)) < 0 || wl_try_read(WB_ERR, err, sizeof(err)) < 0) {
		wl_diag("%s: its output is lost: %s", cmd, strerror(errno));
		return -1;
	}
	if (r < 0 || !WIFEXITED(r)) {
		wl_diag("%s: did not exit (status 0x%x)", cmd, r);
		return -1;
	}
	return WEXITSTATUS(r);
}

/* Show a command's output, a line a diagnostic. */
static void show(const char *what, const char *text)
{
	for (const char *p = text; *p; ) {
		size_t n = strcspn(p, "\n");

		wl_diag("%s: %.*s", what, (int)n, p);
		p += n + (p[n] == '\n');
	}
}

/* cmd exits with status want and its stdout (or stderr) holds each needle. */
static int expect(const char *cmd, int want, const char *out_has, const char *err_has)
{
	int r = run(cmd);

	if (r == want && (!out_has || strstr(out, out_has)) && (!err_has || strstr(err, err_has)))
		return 0;
	wl_diag("'%s': exit %d, want %d%s%s%s%s%s%s", cmd, r, want,
		out_has ? "; stdout with '" : "", out_has ?: "", out_has ? "'" : "",
		err_has ? "; stderr with '" : "", err_has ?: "", err_has ? "'" : "");
	show("stdout", out);
	show("stderr", err);
	return -1;
}

/* A file of the test's own (wl_write_file() writes existing files only). */
static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		wl_diag("write %s: %s", path, strerror(errno));
		return 1;
	}
	return 0;
}

static int setup(void)
{
	if (mkdir(WB_DIR, 0755) && errno != EEXIST) {
		wl_diag("mkdir " WB_DIR ": %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Leave the boot as the runner keeps it: model none, the lab's Smack rules. */
static void teardown(void)
{
	umount2(WB_DIR "/m/a/b", MNT_DETACH);
	umount2(WB_DIR "/m/a", MNT_DETACH);
	umount2(WB_DIR "/m", MNT_DETACH);
	if (wl_have_watchpol())
		wl_load_model("none");
	if (!strcmp(wl_profile(), "smack"))
		wl_smack_rule("wlT", "wlW", "w");
}

struct usage_case {
	const char *cmd;
	int status;
	const char *err_has;
};

/* Every command answers --help on stdout with status 0. */
static enum wl_result help_texts(void)
{
	static const struct usage_case cases[] = {
		{ "wl --help", 0, NULL }, { "wl help", 0, NULL },
		{ "wl watch --help", 0, NULL }, { "wl as --help", 0, NULL },
		{ "wl policy --help", 0, NULL }, { "wl scenario -h", 0, NULL },
	};
	int bad = 0;

	for (size_t i = 0; i < WL_ARRAY_SIZE(cases); i++)
		bad |= expect(cases[i].cmd, 0, "usage: wl", NULL);
	/* wlrun lists its suites, this one among them. */
	bad |= expect("wlrun --help", 0, "\n  suite_workbench\n", NULL);
	return bad ? WL_FAIL : WL_PASS;
}

/* Bad arguments: a usage error (2) naming what is wrong, and no change. */
static enum wl_result usage_errors(void)
{
	static const struct usage_case cases[] = {
		{ "wl", 2, "no command" },
		{ "wl frobnicate", 2, "unknown command 'frobnicate'" },
		{ "wlrun --frobnicate", 2, "unknown option --frobnicate" },
		{ "wlrun suite_nosuch", 2, "no suite named suite_nosuch" },
		{ "wl watch", 2, "nothing to watch" },
		{ "wl watch key", 2, "key takes one argument" },
		{ "wl watch key abc", 2, "'abc' is not a key serial" },
		{ "wl watch key 0", 2, "'0' is not a key serial" },
		{ "wl watch pipe /tmp", 2, "cannot watch 'pipe'" },
		{ "wl watch devices extra", 2, "devices takes no argument" },
		{ "wl watch --count many key @s", 2, "--count: 'many' is not a number" },
		{ "wl watch --id 256 key @s", 2, "--id: '256' is not a number up to 255" },
		{ "wl watch --size 0 key @s", 2, "--size: at least 1" },
		{ "wl watch --filter disk key @s", 2, "unknown type 'disk'" },
		{ "wl watch --filter key:exploded key @s", 2, "key has no subtype 'exploded'" },
		{ "wl watch --no-subtree key @s", 2, "--no-subtree is for mount watches" },
		{ "wl watch --bogus key @s", 2, "unknown option '--bogus'" },
		{ "wl watch --as 'uid=x' key @s", 2, "uid: 'x' is not a number" },
		{ "wl as", 2, "no party" },
		{ "wl as uid=1001", 2, "no command" },
		{ "wl as uid=1001 --", 2, "no command" },
		{ "wl as uid=-1 -- true", 2, "uid: '-1' is not a number" },
		{ "wl as uid=99999999 -- true", 2, "is not a number up to 65535" },
		{ "wl as label=watcher -- true", 2, "uid= is required" },
		{ "wl as uid=1001 caps=fly -- true", 2, "unknown capability 'fly'" },
		{ "wl as uid=1001 colour=blue -- true", 2, "unknown attribute 'colour'" },
		{ "wl policy", 2, "no subcommand" },
		{ "wl policy frob", 2, "unknown subcommand 'frob'" },
		{ "wl policy show extra", 2, "show takes no argument" },
		{ "wl policy load", 2, "load takes one MODEL or FILE" },
		{ "wl policy load paranoid", 2, "no model named 'paranoid'" },
		{ "wl policy log --count 3", 2, "go with --follow" },
		{ "wl policy log --follow --count x", 2, "'x' is not a number" },
		{ "wl policy audit -n x", 2, "audit: -n: 'x' is not a number" },
		{ "wl policy audit -q", 2, "audit: unknown option" },
		{ "wl policy audit extra", 2, "audit: unexpected 'extra'" },
		{ "wl scenario", 2, "want one NAME" },
		{ "wl scenario --frob", 2, "unknown option '--frob'" },
	};
	char *before = wl_have_watchpol() ? wp_read_policy() : NULL;
	int bad = 0;

	for (size_t i = 0; i < WL_ARRAY_SIZE(cases); i++)
		bad |= expect(cases[i].cmd, cases[i].status, NULL, cases[i].err_has);
	if (before) {
		char *after = wp_read_policy();

		if (!after || strcmp(before, after)) {
			wl_diag("a usage error changed the watchpol policy");
			bad = 1;
		}
		free(after);
		free(before);
	}
	return bad ? WL_FAIL : WL_PASS;
}

/* Errors of a well-formed command: a clear message, status 1 (or as's 125/127). */
static enum wl_result run_errors(void)
{
	char *before = wl_have_watchpol() ? wp_read_policy() : NULL;
	int bad = 0;

	bad |= expect("wl as uid=1001 label=nosuch -- true", WL_EXIT_NO_CREDS, NULL,
		      "no label named \"nosuch\"");
	bad |= expect("wl as uid=1001 -- /nonexistent", 127, NULL, "exec /nonexistent");
	bad |= expect("wl watch mount /nonexistent", 1, NULL, "No such file or directory");
	bad |= expect("wl watch key 2147483647", 1, NULL, "set the watch on key 2147483647");
	bad |= expect("wl watch --then false key @s", 1, "0 records", "--then 'false' failed");
	bad |= expect("wl scenario no-such-scenario", 1, NULL,
		      "no scenario named 'no-such-scenario'");
	bad |= expect("wl policy load /nonexistent.policy", 1, NULL, "No such file");
	/* A malformed policy file: refused whole, the policy in force unchanged. */
	bad |= write_text(WB_DIR "/bad.policy", "default paranoid\n");
	bad |= expect("wl policy load " WB_DIR "/bad.policy", 1, NULL, "the kernel refused it");
	if (before) {
		char *after = wp_read_policy();

		if (!after || strcmp(before, after)) {
			wl_diag("a refused load changed the watchpol policy");
			bad = 1;
		}
		free(after);
		free(before);
	}
	return bad ? WL_FAIL : WL_PASS;
}

/* wl as: uid, gid, groups, caps, label and namespaces, then the command's status. */
static enum wl_result as_becomes_the_party(void)
{
	char cmd[256], label[128], want[160];
	int bad = 0;

	/* id -G: the gid, then the supplementary groups. */
	bad |= expect("wl as uid=1001 gid=1002 groups=5,6 -- sh -c 'echo $(id -u) $(id -g) $(id -G)'",
		      0, "1001 1002 1002 5 6\n", NULL);
	/* CAP_KILL (5) kept across the uid switch and the exec, nothing else. */
	bad |= expect("wl as uid=1001 caps=kill -- grep CapEff /proc/self/status", 0,
		      "0000000000000020", NULL);
	bad |= expect("wl as uid=1001 -- grep CapEff /proc/self/status", 0,
		      "0000000000000000", NULL);
	bad |= expect("wl as uid=1001 userns -- id -u", 0, "0\n", NULL);
	bad |= expect("wl as uid=0 mntns -- sh -c 'mount -t tmpfs x /mnt && grep -c \" /mnt \" /proc/self/mounts'",
		      0, "1\n", NULL);
	bad |= expect("grep -c ' /mnt ' /proc/self/mounts", 1, "0\n", NULL);
	bad |= expect("wl as uid=1001 -- sh -c 'exit 3'", 3, NULL, NULL);
	if (strcmp(wl_profile(), "plain")) {
		if (wl_label_lookup("triggerer", label, sizeof(label)))
			return WL_FAIL;
		snprintf(want, sizeof(want), "%s", label);
		snprintf(cmd, sizeof(cmd), "wl as uid=1001 label=triggerer -- cat /proc/self/attr/current");
		bad |= expect(cmd, 0, want, NULL);
	}
	return bad ? WL_FAIL : WL_PASS;
}

/* A key of root's, anyone may use it: its serial (the test's own keyring). */
static key_serial_t demo_key(void)
{
	key_serial_t k = add_key("user", "wl-workbench", "v1", 2, KEY_SPEC_USER_KEYRING);

	if (k < 0 || keyctl_setperm(k, 0x3f3f3f3f)) {
		wl_diag("add_key: %s", strerror(errno));
		return -1;
	}
	return k;
}

/* wl watch on a key, both transports: the record decoded, the count, filters, loss. */
static enum wl_result watch_key_records(void)
{
	key_serial_t k = demo_key();
	char cmd[512], line[160];
	int bad = 0;

	if (k < 0)
		return WL_FAIL;
	snprintf(line, sizeof(line), "key/updated watch=1 key=%d aux=0\n1 record\n", k);
	for (int ring = 0; ring < 2; ring++) {
		snprintf(cmd, sizeof(cmd), "wl watch %s--then 'keyctl update %d v2' key %d",
			 ring ? "--ring " : "", k, k);
		bad |= expect(cmd, 0, line, NULL);
		bad |= expect(cmd, 0, ring ? "on a ring queue" : "on a pipe queue", NULL);
	}
	snprintf(cmd, sizeof(cmd), "wl watch --id 7 --then 'keyctl revoke %d' key %d", k, k);
	bad |= expect(cmd, 0, "key/revoked watch=7 key=", NULL);
	k = demo_key();
	/* The filter passes what it names, and only that. */
	snprintf(cmd, sizeof(cmd), "wl watch --filter key:revoked --then 'keyctl update %d v3' key %d",
		 k, k);
	bad |= expect(cmd, 0, "\n0 records\n", NULL);
	snprintf(cmd, sizeof(cmd), "wl watch --filter key:revoked,updated --then 'keyctl update %d v3' key %d",
		 k, k);
	bad |= expect(cmd, 0, "key/updated watch=1", NULL);
	/* A pipe of 32 records (its least) and 40 updates: records were lost. */
	snprintf(cmd, sizeof(cmd), "wl watch --size 32 --then 'i=0; while [ $i -lt 40 ]; do keyctl update %d $i; i=$((i + 1)); done' key %d",
		 k, k);
	bad |= expect(cmd, 0, "meta/loss watch=0", NULL);
	/* --count stops after N records; --timeout without records: 0 records. */
	snprintf(cmd, sizeof(cmd), "wl watch --count 1 --then 'keyctl update %d a; keyctl update %d b' key %d",
		 k, k, k);
	bad |= expect(cmd, 0, "\n1 record\n", NULL);
	snprintf(cmd, sizeof(cmd), "wl watch --timeout 1 key %d", k);
	bad |= expect(cmd, 0, "\n0 records\n", NULL);
	keyctl_revoke(k);
	return bad ? WL_FAIL : WL_PASS;
}

/* wl watch on a mount (with and without its subtree) and on a superblock. */
static enum wl_result watch_mount_and_sb(void)
{
	int bad = 0;

	if (wl_sh("mkdir -p " WB_DIR "/m && mount -t tmpfs wlwb " WB_DIR "/m && "
		  "mkdir " WB_DIR "/m/a && mount --make-private " WB_DIR "/m"))
		return WL_FAIL;
	/* A new mount changes a mount below the watched one: in its subtree. */
	bad |= expect("wl watch --then 'mount -t tmpfs x " WB_DIR "/m/a' mount " WB_DIR "/m", 0,
		      "mount/new-mount watch=1 flags=in-subtree on=", NULL);
	bad |= expect("wl watch --no-subtree --then 'mkdir " WB_DIR "/m/a/b && mount -t tmpfs y "
		      WB_DIR "/m/a/b' mount " WB_DIR "/m", 0, "\n0 records\n", NULL);
	/* The watched mount itself made read-only: no longer in-subtree. */
	bad |= expect("wl watch --no-subtree --then 'mount -o remount,bind,ro " WB_DIR "/m' mount "
		      WB_DIR "/m", 0, "mount/readonly watch=1 flags=now-ro on=", NULL);
	bad |= expect("wl watch --then 'mount -o remount,ro " WB_DIR "/m' sb " WB_DIR "/m", 0,
		      "sb/readonly watch=1 flags=now-ro sb=", NULL);
	return bad ? WL_FAIL : WL_PASS;
}

/*
 * Not in the debug boot: the commands' kernel paths are the other suites'
 * own, and run through the shell there the suites took a minute.
 */
static bool not_debug(void)
{
	return !wl_debug_kernel();
}

static bool watchpol(void)
{
	return wl_have_watchpol() && not_debug();
}

/* wl policy: models, load by name and from a file, show, stats, the log. */
static enum wl_result policy_commands(void)
{
	key_serial_t k = demo_key();
	char cmd[256];
	int bad = 0;

	if (k < 0)
		return WL_FAIL;
	bad |= expect("wl policy models", 0, "none\nwatcher\nschaufler\nstrict\n", NULL);
	bad |= expect("wl policy load strict", 0, "watchpol: model strict in force\n", NULL);
	bad |= expect("wl policy show", 0, "default strict\n", NULL);
	bad |= expect("wl policy show", 0, "\nend\n", NULL);
	/* A file without its end line: the command adds it. */
	bad |= write_text(WB_DIR "/w.policy", "default watcher\nkernel_events deny\n");
	bad |= expect("wl policy load " WB_DIR "/w.policy", 0, "in force", NULL);
	bad |= expect("wl policy show", 0, "default watcher\n", NULL);
	bad |= expect("wl policy stats", 0, "decisions", NULL);
	free(wp_drain_log());
	snprintf(cmd, sizeof(cmd), "wl watch --then 'keyctl update %d x' key %d", k, k);
	bad |= expect(cmd, 0, "1 record", NULL);
	bad |= expect("wl policy log", 0, "watch_key  W=0:", NULL);
	bad |= expect("wl policy log", 0, "", NULL);
	if (out[0]) {
		wl_diag("the log was read twice: %s", out);
		bad = 1;
	}
	bad |= expect(cmd, 0, "1 record", NULL);
	bad |= expect("wl policy log", 0, "post key/updated  T=0:", NULL);
	bad |= expect(cmd, 0, "1 record", NULL);
	bad |= expect("wl policy log --raw", 0, "hook=post_notification type=key subtype=1 ", NULL);
	bad |= expect("wl policy log --follow --timeout 1", 0, NULL, NULL);
	/* A load's audit record, followed as the audit daemon. */
	bad |= expect("(sleep 1; wl policy load none >/dev/null) & wl policy audit -n 1 -t 20", 0,
		      "lsm=watchpol", NULL);
	keyctl_revoke(k);
	return bad ? WL_FAIL : WL_PASS;
}

/* wl scenario: one scenario, its parties, expectation, observation, records. */
static enum wl_result scenario_command(void)
{
	int bad = 0;

	bad |= expect("wl scenario --list", 0, "\nkey-update-other-uid\n", NULL);
	if (wl_have_watchpol())
		bad |= wl_load_model("schaufler") ? 1 : 0;
	bad |= expect("wl scenario key-update-other-uid", 0,
		      "  watcher   uid=1000\n  trigger   uid=1001\n", NULL);
	bad |= expect("wl scenario key-update-other-uid", 0, "\n  result    as expected\n", NULL);
	if (wl_have_watchpol()) {
		bad |= expect("wl scenario key-update-other-uid", 0,
			      "  observed  blocked, evidence post:watchpol\n", NULL);
		bad |= expect("wl scenario key-update-other-uid", 0,
			      "schaufler=deny strict=deny  => schaufler: deny\n", NULL);
	}
	return bad ? WL_FAIL : WL_PASS;
}

static const struct wl_test tests[] = {
	{ "help_texts", help_texts },
	{ "usage_errors", usage_errors },
	{ "run_errors", run_errors },
	{ "as_becomes_the_party", as_becomes_the_party },
	{ "watch_key_records", watch_key_records },
	{ "watch_mount_and_sb", watch_mount_and_sb },
	{ "scenario_command", scenario_command },
};

static const struct wl_test policy_tests[] = {
	{ "policy_commands", policy_commands },
};

WL_SUITE_IF(suite_workbench, tests, not_debug, "not in the debug boot",
	    .setup = setup, .teardown = teardown);
WL_SUITE_IF(suite_workbench_policy, policy_tests, watchpol,
	    "no watchpol in this kernel, or the debug boot", .setup = setup, .teardown = teardown);

/* ---- docs/workbench.md's walkthrough, in the smack profile ---- */

/* Append text to a shell script, single-quoted. */
static void put_quoted(FILE *f, const char *s, size_t n)
{
	fputc('\'', f);
	for (size_t i = 0; i < n; i++)
		if (s[i] == '\'')
			fputs("'\\''", f);
		else
			fputc(s[i], f);
	fputc('\'', f);
}

/*
 * The transcript's commands ("/ # " lines) as one script: each echoes its
 * prompt line, then runs, stderr with stdout, as typed at the shell.
 */
static int write_script(const char *transcript)
{
	FILE *f = fopen(WALKTHROUGH_SCRIPT, "we");

	if (!f) {
		wl_diag("%s: %s", WALKTHROUGH_SCRIPT, strerror(errno));
		return -1;
	}
	fprintf(f, "exec 2>&1\n");
	for (const char *p = transcript; *p; ) {
		size_t n = strcspn(p, "\n");

		if (!strncmp(p, PROMPT, strlen(PROMPT))) {
			fprintf(f, "printf '%%s\\n' ");
			put_quoted(f, p, n);
			fprintf(f, "\n%.*s\n", (int)(n - strlen(PROMPT)), p + strlen(PROMPT));
		}
		p += n + (p[n] == '\n');
	}
	/* The key's serial differs per boot: the transcript writes it $key. */
	fprintf(f, "printf 'wl-walkthrough-key=%%s\\n' \"$key\"\n");
	return fclose(f) ? -1 : 0;
}

/* Replace every copy of what in text (of size len) with by. */
static void replace_all(char *text, size_t len, const char *what, const char *by)
{
	size_t wn = strlen(what), bn = strlen(by);

	for (char *p = strstr(text, what); p && *what; p = strstr(p + bn, what)) {
		if (strlen(text) - wn + bn >= len)
			return;
		memmove(p + bn, p + wn, strlen(p + wn) + 1);
		memcpy(p, by, bn);
	}
}

/* The first differing line of want and got, as diagnostics. */
static void show_difference(const char *want, const char *got)
{
	unsigned int line = 1;

	while (*want || *got) {
		size_t a = strcspn(want, "\n"), b = strcspn(got, "\n");

		if (a != b || strncmp(want, got, a)) {
			wl_diag("line %u: want: %.*s", line, (int)a, want);
			wl_diag("line %u:  got: %.*s", line, (int)b, got);
			return;
		}
		want += a + (want[a] == '\n');
		got += b + (got[b] == '\n');
		line++;
	}
}

static enum wl_result walkthrough(void)
{
	static char transcript[WB_OUT_MAX];
	char *mark, key[32];

	if (wl_read_file(WALKTHROUGH, transcript, sizeof(transcript)) < 0 ||
	    write_script(transcript))
		return WL_FAIL;
	/* As a fresh `make shell` starts: model none, the decision log empty. */
	if (wl_load_model("none"))
		return WL_FAIL;
	free(wp_drain_log());
	if (run("sh " WALKTHROUGH_SCRIPT) != 0) {
		show("output", out);
		wl_diag("the walkthrough's script failed");
		return WL_FAIL;
	}
	mark = strstr(out, "wl-walkthrough-key=");
	WL_EXPECT(mark, "the script did not finish");
	snprintf(key, sizeof(key), "%.*s", (int)strcspn(mark + 19, "\n"), mark + 19);
	*mark = '\0';
	WL_EXPECT(key[0], "no $key");
	replace_all(out, sizeof(out), key, "$key");
	if (strcmp(out, transcript)) {
		show_difference(transcript, out);
		show("output", out);
		return WL_FAIL;
	}
	return WL_PASS;
}

static bool smack_profile(void)
{
	return !strcmp(wl_profile(), "smack") && wl_have_watchpol();
}

static const struct wl_test walkthrough_tests[] = {
	{ "walkthrough", walkthrough },
};

WL_SUITE_IF(suite_workbench_walkthrough, walkthrough_tests, smack_profile,
	    "the walkthrough is the smack profile's", .setup = setup, .teardown = teardown);
