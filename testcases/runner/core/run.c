// SPDX-License-Identifier: GPL-2.0
/*
 * run.c - run a suite: each test in its own child process with a time
 * limit and the suite's fixture, so a crash or a hang is reported as that
 * test's failure and the run goes on; once per variant (transport, or each
 * model this boot runs); as KTAP.  The entry point (../main.c) picks the
 * suites.
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
#include "registry.h"
#include "run.h"
#include "wl.h"
#include "wl_lists.h"

#define WL_TEST_TIMEOUT_S 300
#define WATCHPOL_POLICY WL_WATCHPOL_DIR "/policy"

static const char *const models[] = { WL_MODELS };
static const char *const model_profiles[] = { WL_MODEL_PROFILES };
static const char *const model_mechanism[] = { WL_MODEL_MECHANISM };

static size_t ntests_of(const struct wl_suite *s)
{
	return s->dynamic ? s->dynamic->count() : s->ntests;
}

static const char *test_name(const struct wl_suite *s, size_t i)
{
	return s->dynamic ? s->dynamic->name(i) : s->tests[i].name;
}

static enum wl_result call_test(const struct wl_suite *s, size_t i)
{
	return s->dynamic ? s->dynamic->run(i) : s->tests[i].fn();
}

static const char *xfail_reason(const struct wl_suite *s, size_t i)
{
	const char *why = s->dynamic && s->dynamic->xfail_reason ?
			  s->dynamic->xfail_reason(i) : NULL;

	return why && why[0] ? why : "see the diagnostics above";
}

/* This run's variant: what its suite name gets, and what its tests see. */
struct wl_variant {
	char suffix[24];	/* "", "_ring", "@watcher" */
	enum wl_transport transport;
	const char *model;	/* model axis: the policy loaded; NULL: none */
};

static enum wl_transport cur_transport = WL_TRANSPORT_PIPE;

enum wl_transport wl_transport(void)
{
	return cur_transport;
}

/* The test in the child: the fixture around it, teardown whatever happened. */
static int test_child(const struct wl_suite *s, size_t i)
{
	enum wl_result r = WL_FAIL;

	if (s->setup && s->setup()) {
		wl_diag("%s: the fixture's setup failed", test_name(s, i));
	} else {
		r = call_test(s, i);
	}
	if (s->teardown)
		s->teardown();
	return r == WL_PASS || r == WL_SKIP || r == WL_XFAIL ? (int)r : 1;
}

static enum wl_result run_one(const struct wl_suite *s, size_t i)
{
	const char *name = test_name(s, i);

	int status;
	pid_t pid;

	if (wl_listing())
		return WL_PASS;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		wl_diag("fork for %s: %s", name, strerror(errno));
		return WL_FAIL;
	}
	if (pid == 0) {
		alarm(WL_TEST_TIMEOUT_S);
		_exit(test_child(s, i));
	}
	if (waitpid(pid, &status, 0) != pid) {
		wl_diag("waitpid for %s: %s", name, strerror(errno));
		return WL_FAIL;
	}
	if (WIFSIGNALED(status)) {
		if (WTERMSIG(status) == SIGALRM)
			wl_diag("%s timed out after %d s", name, WL_TEST_TIMEOUT_S);
		else
			wl_diag("%s killed by signal %d", name, WTERMSIG(status));
		/* The child never reached its teardown: run it here. */
		if (s->teardown)
			s->teardown();
		return WL_FAIL;
	}
	switch (WEXITSTATUS(status)) {
	case WL_PASS:
	case WL_SKIP:
	case WL_XFAIL:
		return WEXITSTATUS(status);
	default:
		return WL_FAIL;
	}
}

int wl_load_model(const char *model)
{
	char path[128], rules[128], buf[8192];
	ssize_t n, m;
	int err;

	snprintf(path, sizeof(path), "/etc/watchlab/watchpol/%s.policy", model);
	snprintf(rules, sizeof(rules), "/etc/watchlab/watchpol/rules-%s.policy", wl_profile());
	n = wl_read_file(path, buf, sizeof(buf));
	if (n < 0)
		return -1;
	m = wl_try_read(rules, buf + n, sizeof(buf) - n);
	if (m < 0 && errno != ENOENT) {
		wl_diag("read %s: %s", rules, strerror(errno));
		return -1;
	}
	n += m > 0 ? m : 0;
	/* The end line completes the policy (lsm/README.md). */
	if ((size_t)n + sizeof("\nend\n") > sizeof(buf)) {
		wl_diag("%s and %s: longer than %zu bytes", path, rules, sizeof(buf) - 6);
		errno = EFBIG;
		return -1;
	}
	n += snprintf(buf + n, sizeof(buf) - n, "\nend\n");
	if (wl_try_write(WATCHPOL_POLICY, buf, n)) {
		err = errno;
		wl_diag("load %s into %s: %s", path, WATCHPOL_POLICY, strerror(err));
		errno = err;
		return -1;
	}
	return 0;
}

/* The model axis: the model's policy, and WATCHLAB_MODEL for wl_model(). */
static bool load_model(const char *model)
{
	if (wl_listing())
		return true;
	return wl_load_model(model) == 0 && setenv("WATCHLAB_MODEL", model, 1) == 0;
}

static bool run_suite(const struct wl_suite *s, const struct wl_variant *v, unsigned int num)
{
	double start = wl_now_s();
	char name[96];
	bool ok = true;
	size_t ntests;

	if (snprintf(name, sizeof(name), "%s%s", s->name, v->suffix) >= (int)sizeof(name))
		wl_diag("suite name %s%s cut short", s->name, v->suffix);
	cur_transport = v->transport;
	/* Counted first: what counting prints is not a line of the header. */
	ntests = ntests_of(s);
	ktap_set_depth(1);
	ktap_line("KTAP version 1");
	ktap_line("# Subtest: %s", name);
	/* The suite's KTAP attributes, in its header as KUnit prints them. */
	if (s->skip_budget)
		ktap_line("# skip_budget: %u", s->skip_budget);
	ktap_line("1..%zu", ntests);
	for (size_t i = 0; i < ntests_of(s); i++) {
		double t0 = wl_now_s();
		enum wl_result r = run_one(s, i);

		if (wl_now_s() - t0 >= 1.0)
			ktap_line("# %s took %.1f s", test_name(s, i), wl_now_s() - t0);
		ktap_line("%sok %zu %s%s%s", r == WL_FAIL ? "not " : "", i + 1, test_name(s, i),
			  r == WL_SKIP ? " # SKIP see the diagnostics above" :
			  r == WL_XFAIL ? " # XFAIL " : "", r == WL_XFAIL ? xfail_reason(s, i) : "");
		ok &= r != WL_FAIL;
	}
	/* Where a boot's time goes (and above: each test of 1 s or more). */
	ktap_line("# %s took %.1f s", name, wl_now_s() - start);
	ktap_set_depth(0);
	ktap_line("%sok %u %s", ok ? "" : "not ", num, name);
	cur_transport = WL_TRANSPORT_PIPE;
	wl_run_after_suite(name);
	return ok;
}

/*
 * Whether a model-axis suite runs under this model in this boot.  The debug
 * boots (about 50x slower) check memory and locking, not policy outcomes,
 * and their cells stay out of the matrix: there, closed, whose checks
 * cover every hook's work at watch time and at post time (strict's, plus
 * the queue creator's creds and the object source's re-check); and in a
 * labelled profile none as well, under which the major LSM's own hooks
 * decide every watch and post (under closed, a post watchpol refuses never
 * reaches them).  A bring-your-own-LSM boot: none alone.
 */
static bool model_runs(size_t m)
{
	const char *only = model_profiles[m], *p = wl_profile();
	size_t n = strlen(p);

	/* A foreign LSM decides alone: watchpol only logs, at none. */
	if (wl_byo_lsm())
		return strcmp(models[m], "none") == 0;

	/* policy/watchpol/models: "profiles=a,b" runs the model in those only. */
	if (only[0]) {
		while (strncmp(only, p, n) || (only[n] && only[n] != ','))
			if (!(only = strchr(only, ',')) || !*++only)
				return false;
	}
	if (!wl_debug_kernel() || strcmp(models[m], "closed") == 0)
		return true;
	return strcmp(models[m], "none") == 0 && strcmp(p, "plain") != 0;
}

#define WL_MAX_VARIANTS (WL_ARRAY_SIZE(models) + 1)

/* The variants a suite runs in, in this boot; their number. */
static size_t variants_of(const struct wl_suite *s, struct wl_variant *v)
{
	size_t n = 0;

	memset(v, 0, WL_MAX_VARIANTS * sizeof(*v));
	switch (s->axis) {
	case WL_AXIS_TRANSPORT:
		v[n++].transport = WL_TRANSPORT_PIPE;
		snprintf(v[n].suffix, sizeof(v[n].suffix), "_ring");
		v[n++].transport = WL_TRANSPORT_RING;
		return n;
	case WL_AXIS_MODEL:
		if (!wl_have_watchpol())
			return 1;
		for (size_t m = 0; m < WL_ARRAY_SIZE(models); m++) {
			if (!model_runs(m) || (s->watchpol_models_only && model_mechanism[m][0]))
				continue;
			snprintf(v[n].suffix, sizeof(v[n].suffix), "@%s", models[m]);
			v[n++].model = models[m];
		}
		return n;
	default:
		return 1;
	}
}

/* How many KTAP results a suite produces in this boot. */
unsigned int wl_runs_of(const struct wl_suite *s)
{
	struct wl_variant v[WL_MAX_VARIANTS];

	return variants_of(s, v);
}

bool wl_run_selected(const struct wl_suite *s, bool skip, unsigned int *num)
{
	struct wl_variant v[WL_MAX_VARIANTS];
	size_t n = variants_of(s, v);
	bool ok = true, models_loaded = false;

	if (skip) {
		for (size_t i = 0; i < n; i++)
			ktap_line("ok %u %s%s # SKIP %s", ++*num, s->name, v[i].suffix,
				  s->skip_reason && s->skip_reason[0] ? s->skip_reason :
				  "does not apply to this boot");
		return true;
	}

	for (size_t i = 0; i < n; i++) {
		if (v[i].model) {
			models_loaded = true;
			if (!load_model(v[i].model)) {
				ktap_line("not ok %u %s%s", ++*num, s->name, v[i].suffix);
				ok = false;
				continue;
			}
		}
		ok &= run_suite(s, &v[i], ++*num);
	}
	if (!models_loaded)
		return ok;
	/* Leave the boot as it started: no model in force for later suites. */
	if (!load_model("none"))
		ok = false;
	unsetenv("WATCHLAB_MODEL");
	return ok;
}
