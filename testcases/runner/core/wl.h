/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wl.h - the in-guest runner's test API.
 *
 * A suite is a static table of tests in its own file (suite_<name>.c),
 * registered by WL_SUITE in that file.  A test returns WL_PASS or WL_FAIL and explains
 * every failure with wl_diag() (printed as a KTAP "# " line).  A suite
 * that only makes sense in some boots says so with .applies and .skip_reason:
 * in the others it reports "ok N name # SKIP reason" without running.
 *
 * As in kselftest_harness.h, a suite may have a fixture (.setup and
 * .teardown around each test, in the test's own child: teardown runs
 * whatever the test returned, and in the runner if the child died), and an
 * axis of variants (.axis): the suite runs once per variant, each reported
 * as a KTAP suite of its own name.
 */
#ifndef WL_H
#define WL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * A test's result.  WL_SKIP: the test could not check what it is for in
 * this boot, which it decides only while it runs (a kselftest SKIP); KTAP
 * "ok N name # SKIP", counted apart from passes (the reason is in the
 * test's diagnostics above it), and against its suite's .skip_budget: the
 * report fails a skip past it, or in a suite that declares none.  WL_XFAIL: the test holds, but what it
 * shows is a known limit of what the lab can test there (a scenario row
 * the kernel decides before any LSM, so no model is tested by it); KTAP
 * "ok N name # XFAIL reason", as kselftest.h's ksft_test_result_xfail(),
 * counted as a pass and named apart.  A row whose kernel property no
 * longer holds fails.
 */
enum wl_result { WL_PASS = 0, WL_FAIL = 1, WL_SKIP = 2, WL_XFAIL = 3 };

struct wl_test {
	const char *name;
	enum wl_result (*fn)(void);
};

/*
 * When a suite runs: suites run stage by stage, by name within a stage.
 * A suite that changes the boot for every later suite says so here.
 */
enum wl_stage {
	WL_STAGE_FIRST = -1,	/* the boot itself, before any suite changes it */
	WL_STAGE_TESTS = 0,	/* the default */
	/* changes the major LSM's rules until reboot (policy/labels no longer holds) */
	WL_STAGE_LSM_RULES,
	WL_STAGE_LOCK,		/* locks the watchpol policy until reboot */
	WL_STAGE_LAST,		/* checks what every suite before it leaked */
};

/*
 * The variants a suite runs in, each a KTAP suite of its own:
 * - WL_AXIS_TRANSPORT: name (queues on the pipe) and name_ring (on the
 *   /dev/watch_queue ring); the test opens its queues on wl_transport().
 * - WL_AXIS_MODEL: name@model once per watchpol model, with the model's
 *   policy from /etc/watchlab/watchpol/<model>.policy loaded (wl_model());
 *   once as name when the kernel has no watchpol.
 */
enum wl_axis { WL_AXIS_NONE, WL_AXIS_TRANSPORT, WL_AXIS_MODEL };

struct wl_suite {
	const char *name;
	enum wl_stage stage;
	const struct wl_test *tests;
	size_t ntests;
	bool (*applies)(void);	/* NULL: every boot */
	const char *skip_reason;	/* why it does not apply, for KTAP's # SKIP */
	enum wl_axis axis;
	/* The fixture, around each test in its child; 0 from setup, or the test fails. */
	int (*setup)(void);
	void (*teardown)(void);
	/* A data-driven suite lists its tests at run time instead of in .tests. */
	const struct wl_dynamic *dynamic;
	/* Runs in a bring-your-own-LSM boot (wl_byo_lsm()); no other suite does. */
	bool byo;
	/* WL_AXIS_MODEL: only the models watchpol decides, not mainline's mechanisms. */
	bool watchpol_models_only;
	/*
	 * How many of its tests may return WL_SKIP in one run of the suite (in
	 * each variant): printed as the KTAP attribute "# skip_budget: N" in
	 * the suite's header, which harness/report.py holds its runtime skips
	 * to.  0, the default: none may; say beside it which tests skip where.
	 */
	unsigned int skip_budget;
};

struct wl_dynamic {
	size_t (*count)(void);		/* called once, before any test runs */
	const char *(*name)(size_t i);
	enum wl_result (*run)(size_t i);
	const char *(*xfail_reason)(size_t i);	/* optional: an XFAIL's reason */
};

#define WL_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void wl_register_suite(const struct wl_suite *s);

/*
 * What the layers above core add to the entry point, from a constructor
 * (WL_REGISTER): another program in the same binary, chosen by argv[0]'s
 * basename (request-key: lib/request_key.c), and work to do once before
 * the first suite (a failure is a KTAP diagnostic, the run goes on).
 */
void wl_register_program(const char *name, int (*main)(int argc, char **argv));
void wl_register_init(const char *what, int (*fn)(void));
#define WL_REGISTER(fn) __attribute__((constructor)) static void fn(void)
/*
 * Work to do after each suite has run (each variant of one: its KTAP name,
 * "suite_keys@none"), registered from a constructor: make coverage's
 * per-suite counters (lib/gcov_suites.c).  Never called while listing.
 */
void wl_register_after_suite(void (*fn)(const char *name));

/*
 * Define and register a suite: its name, then any other fields, e.g.
 * WL_SUITE_DEFINE(suite_x, .tests = t, .ntests = 3, .stage = WL_STAGE_LAST).
 * Registration runs before main(), as kselftest_harness.h's TEST() does.
 */
#define WL_SUITE_DEFINE(sname, ...)					\
	static const struct wl_suite sname = {				\
		.name = #sname, __VA_ARGS__				\
	};								\
	__attribute__((constructor)) static void wl_register_##sname(void) \
	{								\
		wl_register_suite(&sname);				\
	}
/* A suite of a static test table, plus optional fields (.applies, .stage, ...). */
#define WL_SUITE(sname, table, ...) \
	WL_SUITE_DEFINE(sname, .tests = table, .ntests = WL_ARRAY_SIZE(table), __VA_ARGS__)
/* WL_SUITE_IF(name, tests, applies[, "why it may not apply"]) */
#define WL_SUITE_IF(sname, table, pred, ...) \
	WL_SUITE(sname, table, .applies = pred, .skip_reason = "" __VA_ARGS__)
#define WL_SCENARIO_SUITE(sname, table) WL_SUITE(sname, table, .axis = WL_AXIS_MODEL)

/* A watchlab.KEY=value from the kernel command line, or NULL. */
const char *wl_cmdline(const char *key, char *buf, size_t len);

/*
 * wlrun --list: print, on the host, the KTAP this boot must produce (every
 * suite, variant and test, each as "ok") without running anything.  The
 * boot facts below then come from $WATCHLAB_CMDLINE instead of
 * /proc/cmdline; a suite decides whether it applies from them alone, never
 * by probing the machine, so the list and the boot agree.
 */
void wl_set_listing(void);
bool wl_listing(void);

/*
 * True when the boot's watchlab.lsm= (the LSMs /sys/kernel/security/lsm
 * must show; suite_boot checks that it does) names lsm.
 */
bool wl_boot_has_lsm(const char *lsm);

/* True in the debug-kernel boot: size loops down there (about 50x slower). */
bool wl_debug_kernel(void);

/* A time limit for this boot: ms, ten times that in the debug boot. */
int wl_slow_ms(int ms);

/* Scale an iteration count for this boot (count / 20 in the debug boot, at least 1). */
unsigned long wl_scale(unsigned long count);
/* CLOCK_MONOTONIC in seconds, and in milliseconds and nanoseconds. */
double wl_now_s(void);
long wl_now_ms(void);
uint64_t wl_now_ns(void);
/* Run the calling thread on @cpu only (diagnosed if it cannot). */
void wl_pin_cpu(int cpu);

/* The profile this boot runs (plain, selinux, smack), from watchlab.profile=. */
const char *wl_profile(void);

/*
 * A bring-your-own-LSM boot (make compare): the foreign LSM it puts through
 * the scenarios (watchlab.byo=), booted after watchpol, which stays at
 * model none and logs every decision; else NULL.  Only the suites marked
 * .byo run in such a boot, under model none alone, and the scenarios
 * report what they observe without expectations.
 */
const char *wl_byo_lsm(void);

/*
 * The watchpol model this run is under, for matrix cells: "off" when the
 * kernel has no watchpol, else the model the runner switched to.
 */
const char *wl_model(void);

/*
 * Small files (io.c).  wl_write_file: the whole text in one write(2);
 * wl_read_file: up to size - 1 bytes, NUL-terminated, its length.  Both
 * return -1 with errno set and a diagnostic; the wl_try_ forms say nothing,
 * for a test that expects the failure.  A short write fails with EIO.
 */
int wl_write_file(const char *path, const char *text);
int wl_try_write(const char *path, const void *buf, size_t len);
ssize_t wl_read_file(const char *path, char *buf, size_t size);
ssize_t wl_try_read(const char *path, char *buf, size_t size);

/*
 * How many times @needle occurs in the kernel log buffer (the last 1 MiB of
 * it); -1 with a diagnostic when it cannot be read.
 */
long wl_klog_count(const char *needle);

/* system(cmd): 0, or -1 with a diagnostic naming the command. */
int wl_sh(const char *cmd);

/*
 * 0 if r is -1 with errno want (want 0: r is not negative); else -1 with a
 * diagnostic naming what.
 */
int wl_want_errno(const char *what, long r, int want);

/* True when the kernel runs watchpol (its securityfs directory exists). */
bool wl_have_watchpol(void);
#define WL_WATCHPOL_DIR "/sys/kernel/security/watchpol"

/* KTAP diagnostics: one "# ..." line, safe to call from child processes. */
void wl_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* From now on, diagnostics go to stderr as "program: ..." (the wl commands). */
void wl_diag_as(const char *program);

/*
 * Load the lab's policy of a watchpol model: /etc/watchlab/watchpol/
 * <model>.policy, this profile's label rules (rules-<profile>.policy, when
 * the profile has labels) and the end line, as one write.  0, or -1
 * (diagnosed; errno ENOENT when the model has no policy file).
 */
int wl_load_model(const char *model);

/*
 * One matrix cell: scenario x configuration (the host adds the profile).
 * expected/observed are "delivered", "blocked" or "not-posted"; a blocked
 * cell's evidence says where it stopped (lib/evidence.h: "watch:smack",
 * "post:watchpol", ...); at is the scenario's FILE:LINE (NULL for a C
 * suite's cell); threat is what the row is about (scenario/scenario.h's
 * SCN_THREATS, or "dos" for the queue's own loss reporting).
 */
struct wl_cell {
	const char *scenario, *model, *expected, *observed;
	const char *evidence, *at, *threat;
	/*
	 * A shadow column's pair of decisions, "watchpol:V,LSM:V" (V: allow,
	 * deny or none), or NULL.
	 */
	const char *shadow;
};

void wl_matrix(const struct wl_cell *cell);

/* Fail the current test with a diagnostic unless cond holds. */
#define WL_EXPECT(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			wl_diag("%s:%d: expected %s", __FILE__, __LINE__, #cond); \
			wl_diag(__VA_ARGS__);				\
			return WL_FAIL;					\
		}							\
	} while (0)

/* Credentials a child drops to: setgroups, setresgid, setresuid. */
struct wl_creds {
	uid_t uid, euid, suid;
	gid_t gid;
	size_t ngroups;
	gid_t groups[8];
	const char *label;	/* NULL: keep the current label */
};

/* Plain credentials: uid == euid == suid, gid == uid, no supplementary groups. */
struct wl_creds wl_user(uid_t uid);

/*
 * Fork, drop to creds, run fn(arg) in the child and wait for it.
 * Returns the child's exit status (fn's return value), or -1 with a
 * diagnostic if the fork, the credential switch or the child failed.
 */
int wl_run_as(const struct wl_creds *creds, int (*fn)(void *), void *arg);

/*
 * Fork a child that runs fn(arg) and exits with its return; the pid, or -1
 * (diagnosed).  Reap it: its exit status, or -1 (diagnosed) if it died of
 * a signal or exited WL_EXIT_NO_CREDS (it could not become what it had to).
 */
#define WL_EXIT_NO_CREDS 125
pid_t wl_spawn(int (*fn)(void *), void *arg);
int wl_reap(pid_t pid, const char *what);

/* Switch the calling process to creds (setgroups/setresgid/setresuid/label). */
int wl_drop_creds(const struct wl_creds *creds);

/*
 * Keep exactly caps (a mask of 1 << CAP_*) effective and permitted, e.g.
 * after a uid switch done with PR_SET_KEEPCAPS.  0, or -1 (diagnosed).
 */
int wl_set_caps(uint64_t caps);

/* Notification pipes (6.12 pipe transport). */
int wl_wq_open(unsigned int nslots);	/* pipe2(O_NOTIFICATION_PIPE)+SET_SIZE; read end, or -1 */
/*
 * A notification pipe of nslots slots, outside wl_wq_open()'s table (for
 * suites that open hundreds, or read them with read() themselves): its
 * read end, or -1 (diagnosed).  The write end goes to *wfd, or is closed
 * when wfd is NULL (poll() then reports POLLHUP at once).
 */
int wl_notification_pipe(unsigned int nslots, int *wfd);
void wl_wq_close(int fd);

/*
 * The transports a queue can use.  Every queue is an fd that the watch
 * syscalls accept and wl_wq_read()/wl_wq_expect()/wl_wq_close() serve,
 * whatever its transport.
 */
enum wl_transport {
	WL_TRANSPORT_PIPE,	/* pipe2(O_NOTIFICATION_PIPE), 6.12 upstream */
	WL_TRANSPORT_RING,	/* /dev/watch_queue, the seed's mmap'ed ring */
	WL_TRANSPORT_NR,
};

const char *wl_transport_name(enum wl_transport t);
/* The transport of this test's variant: the pipe, or the ring in a *_ring suite. */
enum wl_transport wl_transport(void);
/* Open a queue holding at least nrecords records; the fd, or -1 (diagnosed). */
int wl_queue_open(enum wl_transport t, unsigned int nrecords);

/* One decoded record: the 6.12 header and its payload. */
struct wl_record {
	unsigned int type, subtype, info, len;
	unsigned int watch_id;	/* (info & WATCH_INFO_ID) >> 8 */
	unsigned char data[128];
};

/*
 * Read the next record from a notification fd, waiting up to timeout_ms.
 * Returns 1 with *rec filled, 0 on timeout, -1 on error (with a diagnostic).
 */
int wl_wq_read(int fd, struct wl_record *rec, int timeout_ms);

/*
 * No record at all within timeout_ms: 0, or -1 with a diagnostic naming
 * the record that came after what.
 */
int wl_wq_expect_none(int fd, const char *after, int timeout_ms);

/* Wait up to timeout_ms for a record of (type, subtype); skips others. */
int wl_wq_expect(int fd, unsigned int type, unsigned int subtype,
		 struct wl_record *rec, int timeout_ms);

/* Default time a test waits for an event that must (or must not) arrive. */
#define WL_EVENT_TIMEOUT_MS 500

#endif /* WL_H */
