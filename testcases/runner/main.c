// SPDX-License-Identifier: GPL-2.0
/*
 * wlrun - watchlab's in-guest runner.  Runs every suite that applies to
 * this boot (or those named on the command line) and reports KTAP on stdout.
 * Each test runs in its own child process with a time limit, so a crash or
 * a hang is reported as that test's failure and the run goes on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "suites.h"
#include "wl.h"

#define WL_TEST_TIMEOUT_S 300
#define WATCHPOL_POLICY "/sys/kernel/security/watchpol/policy"

static const char *const models[] = { "none", "watcher", "schaufler", "strict" };

static enum wl_result run_one(const struct wl_test *t)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		wl_diag("fork for %s: %s", t->name, strerror(errno));
		return WL_FAIL;
	}
	if (pid == 0) {
		alarm(WL_TEST_TIMEOUT_S);
		_exit(t->fn() == WL_PASS ? 0 : 1);
	}
	if (waitpid(pid, &status, 0) != pid) {
		wl_diag("waitpid for %s: %s", t->name, strerror(errno));
		return WL_FAIL;
	}
	if (WIFSIGNALED(status)) {
		if (WTERMSIG(status) == SIGALRM)
			wl_diag("%s timed out after %d s", t->name, WL_TEST_TIMEOUT_S);
		else
			wl_diag("%s killed by signal %d", t->name, WTERMSIG(status));
		return WL_FAIL;
	}
	return WEXITSTATUS(status) == 0 ? WL_PASS : WL_FAIL;
}

static bool selected(const struct wl_suite *s, int argc, char **argv)
{
	if (argc < 2)
		return !s->applies || s->applies();
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], s->name) == 0)
			return true;
	return false;
}

/* Load /etc/watchlab/watchpol/<model>.policy whole, as one write. */
static bool load_model(const char *model)
{
	char path[128], buf[8192];
	ssize_t n, w;
	int in, out;

	snprintf(path, sizeof(path), "/etc/watchlab/watchpol/%s.policy", model);
	in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		wl_diag("open %s: %s", path, strerror(errno));
		return false;
	}
	n = read(in, buf, sizeof(buf));
	close(in);
	if (n < 0 || n == sizeof(buf)) {
		wl_diag("read %s: %s", path, n < 0 ? strerror(errno) : "too long");
		return false;
	}
	out = open(WATCHPOL_POLICY, O_WRONLY | O_CLOEXEC);
	if (out < 0) {
		wl_diag("open %s: %s", WATCHPOL_POLICY, strerror(errno));
		return false;
	}
	w = write(out, buf, n);
	close(out);
	if (w != n) {
		wl_diag("load %s into %s: %s", path, WATCHPOL_POLICY,
			w < 0 ? strerror(errno) : "short write");
		return false;
	}
	return setenv("WATCHLAB_MODEL", model, 1) == 0;
}

static bool run_suite(const struct wl_suite *s, const char *model, unsigned int num)
{
	char name[96];
	bool ok = true;

	if (model)
		snprintf(name, sizeof(name), "%s@%s", s->name, model);
	else
		snprintf(name, sizeof(name), "%s", s->name);
	ktap_set_depth(1);
	ktap_line("KTAP version 1");
	ktap_line("# Subtest: %s", name);
	ktap_line("1..%zu", s->ntests);
	for (size_t i = 0; i < s->ntests; i++) {
		enum wl_result r = run_one(&s->tests[i]);

		ktap_line("%sok %zu %s", r == WL_PASS ? "" : "not ", i + 1,
			  s->tests[i].name);
		ok &= r == WL_PASS;
	}
	ktap_set_depth(0);
	ktap_line("%sok %u %s", ok ? "" : "not ", num, name);
	return ok;
}

static bool have_watchpol(void)
{
	return access(WATCHPOL_POLICY, F_OK) == 0;
}

/* How many KTAP results a suite produces in this boot. */
static unsigned int runs_of(const struct wl_suite *s)
{
	return s->per_model && have_watchpol() ? WL_ARRAY_SIZE(models) : 1;
}

static bool run_selected(const struct wl_suite *s, unsigned int *num)
{
	bool ok = true;

	if (!s->per_model || !have_watchpol())
		return run_suite(s, NULL, ++*num);
	for (size_t m = 0; m < WL_ARRAY_SIZE(models); m++) {
		if (!load_model(models[m])) {
			ktap_line("not ok %u %s@%s", ++*num, s->name, models[m]);
			ok = false;
			continue;
		}
		ok &= run_suite(s, models[m], ++*num);
	}
	/* Leave the boot as it started: no model in force for later suites. */
	if (!load_model("none"))
		ok = false;
	unsetenv("WATCHLAB_MODEL");
	return ok;
}

int main(int argc, char **argv)
{
	unsigned int nsel = 0, num = 0;
	bool ok = true;

	/* KTAP goes to the console; a test's own stdout must not buffer. */
	setvbuf(stdout, NULL, _IONBF, 0);
	for (size_t i = 0; i < wl_nsuites; i++)
		if (selected(wl_suites[i], argc, argv))
			nsel += runs_of(wl_suites[i]);
	ktap_line("KTAP version 1");
	ktap_line("1..%u", nsel);
	for (size_t i = 0; i < wl_nsuites; i++)
		if (selected(wl_suites[i], argc, argv))
			ok &= run_selected(wl_suites[i], &num);
	ktap_line("# watchlab: runner finished, profile=%s", wl_profile());
	return ok ? 0 : 1;
}
