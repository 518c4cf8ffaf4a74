// SPDX-License-Identifier: GPL-2.0
/*
 * util.c - matrix cells, boot facts and credential switching (the KTAP
 * diagnostics are diag.c's).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>

#include "wl.h"
#include "ktap.h"

static char cmdline[4096];

bool wl_listing(void);

static const char *cmdline_value(const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key);
	char *p;

	if (!cmdline[0] && wl_listing()) {
		/* wlrun --list on the host: the boot's command line to be */
		snprintf(cmdline, sizeof(cmdline), "%s", getenv("WATCHLAB_CMDLINE") ?: "");
	} else if (!cmdline[0]) {
		int fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 ? read(fd, cmdline, sizeof(cmdline) - 1) : -1;

		if (fd >= 0)
			close(fd);
		cmdline[n > 0 ? n : 0] = '\0';
	}
	for (p = cmdline; (p = strstr(p, key)) != NULL; p += klen) {
		if ((p == cmdline || p[-1] == ' ') && p[klen] == '=') {
			size_t n = strcspn(p + klen + 1, " \n");

			if (n >= len)
				n = len - 1;
			memcpy(buf, p + klen + 1, n);
			buf[n] = '\0';
			return buf;
		}
	}
	return NULL;
}

const char *wl_profile(void)
{
	static char profile[32];

	if (!profile[0] && !cmdline_value("watchlab.profile", profile, sizeof(profile)))
		strcpy(profile, "unknown");
	return profile;
}

const char *wl_byo_lsm(void)
{
	static char lsm[32];
	static bool looked;

	if (!looked)
		looked = cmdline_value("watchlab.byo", lsm, sizeof(lsm)) || true;
	return lsm[0] ? lsm : NULL;
}

static bool listing;

void wl_set_listing(void)
{
	listing = true;
}

bool wl_listing(void)
{
	return listing;
}

bool wl_boot_has_lsm(const char *lsm)
{
	char list[256], *p, *save;

	if (!cmdline_value("watchlab.lsm", list, sizeof(list)))
		return false;
	for (p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save))
		if (strcmp(p, lsm) == 0)
			return true;
	return false;
}

bool wl_debug_kernel(void)
{
	char v[8];

	return cmdline_value("watchlab.debug", v, sizeof(v)) && strcmp(v, "1") == 0;
}

const char *wl_cmdline(const char *key, char *buf, size_t len)
{
	return cmdline_value(key, buf, len);
}

/* From the boot's command line, as every .applies: suite_boot checks the kernel agrees. */
bool wl_have_watchpol(void)
{
	return wl_boot_has_lsm("watchpol");
}

const char *wl_model(void)
{
	const char *m = getenv("WATCHLAB_MODEL");

	if (!wl_have_watchpol())
		return "off";
	return m ? m : "none";
}

int wl_slow_ms(int ms)
{
	return wl_debug_kernel() ? ms * 10 : ms;
}

unsigned long wl_scale(unsigned long count)
{
	if (!wl_debug_kernel())
		return count;
	return count / 20 ? count / 20 : 1;
}

void wl_pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		wl_diag("sched_setaffinity(CPU %d): %s", cpu, strerror(errno));
}

uint64_t wl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

long wl_now_ms(void)
{
	return wl_now_ns() / 1000000;
}

double wl_now_s(void)
{
	return wl_now_ns() / 1e9;
}

void wl_matrix(const struct wl_cell *c)
{
	ktap_line("# MATRIX scenario=%s model=%s expected=%s observed=%s%s%s threat=%s%s%s%s%s",
		  c->scenario, c->model, c->expected, c->observed,
		  c->evidence && *c->evidence ? " evidence=" : "",
		  c->evidence ? c->evidence : "", c->threat,
		  c->at ? " at=" : "", c->at ? c->at : "",
		  c->shadow ? " shadow=" : "", c->shadow ? c->shadow : "");
}

struct wl_creds wl_user(uid_t uid)
{
	struct wl_creds c = {
		.uid = uid, .euid = uid, .suid = uid, .gid = uid,
	};

	return c;
}

int wl_drop_creds(const struct wl_creds *c)
{
	/* The label first: changing it needs privileges the uid switch drops. */
	if (c->label && wl_write_file("/proc/self/attr/current", c->label))
		return -1;
	if (setgroups(c->ngroups, c->groups)) {
		wl_diag("setgroups(%zu): %s", c->ngroups, strerror(errno));
		return -1;
	}
	if (setresgid(c->gid, c->gid, c->gid)) {
		wl_diag("setresgid(%u): %s", c->gid, strerror(errno));
		return -1;
	}
	if (setresuid(c->uid, c->euid, c->suid)) {
		wl_diag("setresuid(%u, %u, %u): %s", c->uid, c->euid, c->suid,
			strerror(errno));
		return -1;
	}
	return 0;
}

pid_t wl_spawn(int (*fn)(void *), void *arg)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		wl_diag("fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0)
		_exit(fn(arg));
	return pid;
}

int wl_reap(pid_t pid, const char *what)
{
	int status;

	if (waitpid(pid, &status, 0) != pid) {
		wl_diag("waitpid for %s: %s", what, strerror(errno));
		return -1;
	}
	if (WIFSIGNALED(status)) {
		wl_diag("%s killed by signal %d", what, WTERMSIG(status));
		return -1;
	}
	if (WEXITSTATUS(status) == WL_EXIT_NO_CREDS) {
		wl_diag("%s could not switch label or credentials", what);
		return -1;
	}
	return WEXITSTATUS(status);
}

struct run_as {
	const struct wl_creds *c;
	int (*fn)(void *);
	void *arg;
};

static int run_as_child(void *p)
{
	const struct run_as *r = p;

	return wl_drop_creds(r->c) ? WL_EXIT_NO_CREDS : r->fn(r->arg);
}

int wl_run_as(const struct wl_creds *c, int (*fn)(void *), void *arg)
{
	struct run_as r = { c, fn, arg };
	pid_t pid = wl_spawn(run_as_child, &r);
	char what[48];

	snprintf(what, sizeof(what), "child as uid %u", c->uid);
	return pid < 0 ? -1 : wl_reap(pid, what);
}

int wl_set_caps(uint64_t caps)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {
		{ .effective = (uint32_t)caps, .permitted = (uint32_t)caps },
		{ .effective = (uint32_t)(caps >> 32), .permitted = (uint32_t)(caps >> 32) },
	};

	if (syscall(SYS_capset, &h, d)) {
		wl_diag("capset(0x%llx): %s", (unsigned long long)caps, strerror(errno));
		return -1;
	}
	return 0;
}
