// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_policy.c - `wl policy`: show and load watchpol policies (the lab's
 * models by name, with this profile's label rules, or a file), its stats,
 * and its decision log as readable lines, once or as it grows.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "evidence.h"
#include "watchpol_util.h"
#include "wl.h"
#include "wl_lists.h"

static const char *const models[] = { WL_MODELS };

static void policy_usage(FILE *f)
{
	fprintf(f, "usage: wl policy show | models | load MODEL|FILE | stats | log [OPTIONS] | audit\n"
		"watchpol's policy (lsm/README.md), from /sys/kernel/security/watchpol:\n"
		"  show           the policy in force, as the kernel reads it back\n"
		"  models         the lab's models (/etc/watchlab/watchpol/MODEL.policy)\n"
		"  load MODEL     load a lab model with this profile's label rules\n"
		"                 (rules-PROFILE.policy), as the runner does\n"
		"  load FILE      load a policy file (a path with a /); the end line is added\n"
		"                 if missing.  A policy loads whole or not at all\n"
		"  stats          the counters, per hook and model\n"
		"  log            print the decision log (reading consumes it), one line per\n"
		"                 decision: the hook (a watch, or the post of TYPE/SUBTYPE),\n"
		"                 the triggerer T and watcher W as UID:LABEL, the object's\n"
		"                 label O, each model's verdict, then => what the model in\n"
		"                 force did (\"not enforced\" under enforce 0)\n"
		"    --raw        the kernel's lines as they are\n"
		"    -f, --follow keep printing new decisions until interrupted, or:\n"
		"    -n, --count N, -t, --timeout S   (with --follow)\n"
		"  audit [-n N] [-t S]\n"
		"                 follow watchpol's audit records (policy loads, enforce,\n"
		"                 lock, denials limited per subject), as the audit daemon, until\n"
		"                 interrupted, N records or S seconds\n"
		"Exit status: 0; 1 if the kernel refused; 2 for bad arguments.\n");
}

static bool have_watchpol(void)
{
	if (access(WP_DIR, F_OK) == 0)
		return true;
	wl_diag("policy: %s is missing: this kernel runs no watchpol", WP_DIR);
	return false;
}

static bool is_model(const char *name)
{
	for (size_t i = 0; i < WL_ARRAY_SIZE(models); i++)
		if (!strcmp(models[i], name))
			return true;
	return false;
}

static int load(const char *what)
{
	char *text;
	ssize_t n;
	int r;

	if (!strchr(what, '/')) {
		if (!is_model(what)) {
			char list[128] = "";

			for (size_t i = 0; i < WL_ARRAY_SIZE(models); i++)
				snprintf(list + strlen(list), sizeof(list) - strlen(list), " %s",
					 models[i]);
			return wl_cmd_bad(&wl_cmd_policy,
					  "no model named '%s' (models:%s; a file needs a /)",
					  what, list);
		}
		if (!have_watchpol() || wl_load_model(what))
			return 1;
		printf("watchpol: model %s in force\n", what);
		return 0;
	}
	text = malloc(WP_MAX_TEXT * 4 + 1);
	if (!text)
		return 1;
	n = wl_read_file(what, text, WP_MAX_TEXT * 4 + 1);
	if (n < 0 || !have_watchpol()) {
		free(text);
		return 1;
	}
	r = wp_write_policy(text, n);
	free(text);
	if (r) {
		wl_diag("policy: %s: the kernel refused it: %s (the kernel log says why);"
			" the policy in force is unchanged", what, strerror(-r));
		return 1;
	}
	printf("watchpol: %s in force\n", what);
	return 0;
}

static int cat(const char *path)
{
	char buf[8192];
	ssize_t n;

	if (!have_watchpol())
		return 1;
	n = wl_read_file(path, buf, sizeof(buf));
	if (n < 0)
		return 1;
	fputs(buf, stdout);
	return 0;
}

void wl_cmd_print_decision(const char *line)
{
	char hook[32], type[16], sub[12], v[8][24], verdicts[256] = "";
	char w_uid[12], w_label[128], t_uid[12], t_label[128], o_label[128];
	char model[16], verdict[8], result[8];
	const char *keys[] = { "w_uid", "w_label", "t_uid", "t_label", "o_label",
			       "model", "verdict", "result" };
	char *vals[] = { w_uid, w_label, t_uid, t_label, o_label, model, verdict, result };
	size_t lens[] = { sizeof(w_uid), sizeof(w_label), sizeof(t_uid), sizeof(t_label),
			  sizeof(o_label), sizeof(model), sizeof(verdict), sizeof(result) };
	enum scn_source src;
	char what[64];

	if (!wl_evidence_field(line, "hook", hook, sizeof(hook))) {
		printf("%s\n", line);
		return;
	}
	for (size_t i = 0; i < WL_ARRAY_SIZE(keys); i++)
		if (!wl_evidence_field(line, keys[i], vals[i], lens[i]))
			snprintf(vals[i], lens[i], "?");
	/*
	 * The kernel's models each have a shadow verdict in the record; a lab
	 * model that is only a policy of them (smackemu) has none.
	 */
	for (size_t i = 0; i < WL_ARRAY_SIZE(models) && i < 8; i++) {
		if (!wl_evidence_field(line, models[i], v[i], sizeof(v[i])))
			continue;
		snprintf(verdicts + strlen(verdicts), sizeof(verdicts) - strlen(verdicts),
			 "%s%s=%s", verdicts[0] ? " " : "", models[i], v[i]);
	}
	if (!strcmp(hook, "post_notification")) {
		unsigned long st = 0;

		if (!wl_evidence_field(line, "type", type, sizeof(type)))
			snprintf(type, sizeof(type), "?");
		if (wl_evidence_field(line, "subtype", sub, sizeof(sub)))
			st = strtoul(sub, NULL, 10);
		src = SCN_NR_SOURCES;
		for (int s = 0; s < SCN_NR_SOURCES; s++)
			if (!strcmp(scn_source_name(s), type))
				src = s;
		snprintf(what, sizeof(what), "post %s/%s", type,
			 src < SCN_NR_SOURCES ? scn_subtype_name(src, st) : sub);
		printf("%s  T=%s:%s W=%s:%s  %s  => %s: %s%s\n", what, t_uid, t_label,
		       w_uid, w_label, verdicts, model, result,
		       strcmp(verdict, result) ? " (not enforced)" : "");
	} else {
		printf("%s  W=%s:%s O=%s  %s  => %s: %s%s\n", hook, w_uid, w_label, o_label,
		       verdicts, model, result, strcmp(verdict, result) ? " (not enforced)" : "");
	}
}

/* Print and consume the decisions logged so far; how many, or -1. */
static long print_log(bool raw)
{
	char *text = wp_drain_log();
	long n = 0;

	if (!text)
		return -1;
	for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n"), n++)
		if (raw)
			printf("%s\n", l);
		else
			wl_cmd_print_decision(l);
	free(text);
	fflush(stdout);
	return n;
}

/*
 * Call @step every 200 ms (it prints what is new and says how many, or -1)
 * until @count records, @timeout seconds (0: no limit), or SIGINT/SIGTERM.
 * 0, or 1 if a step failed.
 */
static int follow_records(unsigned long count, unsigned long timeout,
			  long (*step)(void *arg), void *arg)
{
	long end = timeout ? wl_now_ms() + (long)timeout * 1000 : 0, n;
	unsigned long seen = 0;
	sigset_t stop, pending;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	for (;;) {
		n = step(arg);
		if (n < 0)
			return 1;
		seen += n;
		if ((count && seen >= count) || (end && wl_now_ms() >= end))
			return 0;
		sigpending(&pending);
		if (sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM))
			return 0;
		usleep(200 * 1000);
	}
}

static long log_step(void *raw)
{
	return print_log(*(bool *)raw);
}

static int log_cmd(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "raw", no_argument, NULL, 'r' }, { "follow", no_argument, NULL, 'f' },
		{ "count", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long count = 0, timeout = 0;
	bool raw = false, follow = false;
	char *e;
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":fn:t:", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			raw = true;
			break;
		case 'f':
			follow = true;
			break;
		case 'n':
		case 't':
			errno = 0;
			*(c == 'n' ? &count : &timeout) = strtoul(optarg, &e, 10);
			if (errno || e == optarg || *e || *optarg == '-')
				return wl_cmd_bad(&wl_cmd_policy, "log: -%c: '%s' is not a number",
						  c, optarg);
			break;
		default:
			return wl_cmd_bad(&wl_cmd_policy, "log: unknown option or missing value '%s'",
					  argv[optind - 1]);
		}
	}
	if (optind < argc)
		return wl_cmd_bad(&wl_cmd_policy, "log: unexpected '%s'", argv[optind]);
	if ((count || timeout) && !follow)
		return wl_cmd_bad(&wl_cmd_policy, "log: --count and --timeout go with --follow");
	if (!have_watchpol())
		return 1;
	if (!follow)
		return print_log(raw) < 0 ? 1 : 0;
	return follow_records(count, timeout, log_step, &raw);
}

/* Print the lsm=watchpol records that reached ev's window; how many. */
static long audit_step(void *arg)
{
	struct wl_evidence *ev = arg;
	long n = 0;

	wl_audit_take(ev);
	for (char *l = ev->audit_text, *nl; *l; l = nl + 1) {
		nl = strchr(l, '\n');
		if (!nl)
			break;
		*nl = '\0';
		if (strstr(l, "lsm=watchpol")) {
			printf("%s\n", l);
			n++;
		}
	}
	ev->auditlen = 0;
	ev->audit_text[0] = '\0';
	fflush(stdout);
	return n;
}

static int audit_cmd(int argc, char **argv)
{
	static struct wl_evidence ev;
	unsigned long count = 0, timeout = 0;
	char *e;
	int c, r;

	opterr = 0;
	optind = 1;
	while ((c = getopt(argc, argv, ":n:t:")) != -1) {
		if (c != 'n' && c != 't')
			return wl_cmd_bad(&wl_cmd_policy, "audit: unknown option or missing value '%s'",
					  argv[optind - 1]);
		errno = 0;
		*(c == 'n' ? &count : &timeout) = strtoul(optarg, &e, 10);
		if (errno || e == optarg || *e || *optarg == '-')
			return wl_cmd_bad(&wl_cmd_policy, "audit: -%c: '%s' is not a number",
					  c, optarg);
	}
	if (optind < argc)
		return wl_cmd_bad(&wl_cmd_policy, "audit: unexpected '%s'", argv[optind]);
	if (!have_watchpol() || wl_audit_begin(&ev))
		return 1;
	if (ev.audit < 0) {
		wl_diag("policy: this kernel has no audit");
		return 1;
	}
	r = follow_records(count, timeout, audit_step, &ev);
	wl_evidence_end(&ev);
	return r;
}

static int policy_main(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : NULL;

	if (!sub)
		return wl_cmd_bad(&wl_cmd_policy, "no subcommand");
	if (!strcmp(sub, "log"))
		return log_cmd(argc - 1, argv + 1);
	if (!strcmp(sub, "audit"))
		return audit_cmd(argc - 1, argv + 1);
	if (!strcmp(sub, "load")) {
		if (argc != 3)
			return wl_cmd_bad(&wl_cmd_policy, "load takes one MODEL or FILE");
		return load(argv[2]);
	}
	if (argc != 2)
		return wl_cmd_bad(&wl_cmd_policy, "%s takes no argument", sub);
	if (!strcmp(sub, "show"))
		return cat(WP_POLICY);
	if (!strcmp(sub, "stats"))
		return cat(WP_STATS);
	if (!strcmp(sub, "models")) {
		for (size_t i = 0; i < WL_ARRAY_SIZE(models); i++)
			printf("%s\n", models[i]);
		return 0;
	}
	return wl_cmd_bad(&wl_cmd_policy, "unknown subcommand '%s'", sub);
}

const struct wl_cmd wl_cmd_policy = {
	.name = "policy",
	.summary = "show or load watchpol's policy (a lab model or a file), stats, decision log, audit",
	.main = policy_main,
	.usage = policy_usage,
};
