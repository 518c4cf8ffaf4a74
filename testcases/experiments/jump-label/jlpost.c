/* jlpost: watchlab issue 43 step 2, in the guest.
 *   jlpost flip N   pinned to CPU0: N x open+close of watchpol/log (each open
 *                   and last close runs post_hook_sync(): the post hook's slot
 *                   and watchpol_consumed are switched, i.e. text is patched)
 *   jlpost post     pinned to CPU1: a key watched through a notification pipe,
 *                   updated in a loop (each update posts through
 *                   security_post_notification()); drains the pipe; runs
 *                   until SIGTERM, then prints its count.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/keyctl.h>
#ifndef O_NOTIFICATION_PIPE
#define O_NOTIFICATION_PIPE O_EXCL
#endif
#ifndef IOC_WATCH_QUEUE_SET_SIZE
#define IOC_WATCH_QUEUE_SET_SIZE _IO('W', 0x60)
#endif
#ifndef KEYCTL_WATCH_KEY
#define KEYCTL_WATCH_KEY 32
#endif

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	if (sched_setaffinity(0, sizeof(s), &s)) {
		perror("sched_setaffinity");
		exit(1);
	}
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int wfile(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), rc;

	if (fd < 0)
		return -1;
	rc = write(fd, val, strlen(val)) == (ssize_t)strlen(val) ? 0 : -1;
	close(fd);
	return rc;
}

/* A null_blk disk whose first 8 sectors fail, completing in softirq
 * (irqmode 1), watched through watch_devices(): each failed read posts a
 * block record from the completion, in softirq context.  -1 if unavailable. */
static int nullb_setup(int *pfd)
{
	int p[2], fd;

	mkdir("/sys/kernel/config", 0755);
	mount("configfs", "/sys/kernel/config", "configfs", 0, NULL);
	if (mkdir("/sys/kernel/config/nullb/jl", 0755) ||
	    wfile("/sys/kernel/config/nullb/jl/size", "16") ||
	    wfile("/sys/kernel/config/nullb/jl/irqmode", "1") ||
	    wfile("/sys/kernel/config/nullb/jl/badblocks", "+0-7") ||
	    wfile("/sys/kernel/config/nullb/jl/power", "1")) {
		perror("jlpost: null_blk");
		return -1;
	}
	if (pipe2(p, O_NOTIFICATION_PIPE) || ioctl(p[0], IOC_WATCH_QUEUE_SET_SIZE, 256) ||
	    syscall(502 /* __NR_watch_devices */, p[0], 0x02, 0)) {
		perror("jlpost: watch_devices");
		return -1;
	}
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	*pfd = p[0];
	fd = open("/dev/jl", O_RDONLY | O_DIRECT);
	if (fd < 0)
		perror("jlpost: open /dev/jl");
	return fd;
}

static volatile sig_atomic_t stop;
static void on_term(int s) { (void)s; stop = 1; }

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "flip")) {
		unsigned long n = strtoul(argv[2], NULL, 0), i;
		double t0 = now();

		pin(0);
		for (i = 1; i <= n; i++) {
			int fd = open("/sys/kernel/security/watchpol/log", O_RDONLY);

			if (fd < 0) {
				perror("open watchpol/log");
				return 1;
			}
			close(fd);
			if (i % 2000 == 0)
				printf("jlpost: flip %lu (%.1f s)\n", i, now() - t0), fflush(stdout);
		}
		printf("jlpost: flip done: %lu open/close in %.1f s\n", n, now() - t0);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "post")) {
		unsigned long n = 0, nb = 0;
		static char buf[4096] __attribute__((aligned(4096)));
		int bfd, dpipe = -1;
		int p[2];
		long key;
		double t0 = now();

		pin(1);
		signal(SIGTERM, on_term);
		key = syscall(__NR_add_key, "user", "jl", "v", 1, KEY_SPEC_PROCESS_KEYRING);
		if (key < 0) { perror("add_key"); return 1; }
		if (pipe2(p, O_NOTIFICATION_PIPE)) { perror("pipe2"); return 1; }
		if (ioctl(p[0], IOC_WATCH_QUEUE_SET_SIZE, 256)) { perror("set_size"); return 1; }
		if (syscall(__NR_keyctl, KEYCTL_WATCH_KEY, key, p[0], 0x01)) { perror("watch_key"); return 1; }
		fcntl(p[0], F_SETFL, O_NONBLOCK);
		bfd = nullb_setup(&dpipe);
		while (!stop) {
			if (bfd >= 0 && pread(bfd, buf, 4096, 0) < 0 && errno == EIO)
				nb++;
			if (syscall(__NR_keyctl, KEYCTL_UPDATE, key, "w", 1)) { perror("update"); return 1; }
			if (++n % 32 == 0)
			{
				while (read(p[0], buf, sizeof(buf)) > 0)
					;
				while (dpipe >= 0 && read(dpipe, buf, sizeof(buf)) > 0)
					;
			}
		}
		printf("jlpost: post done: %lu key updates (process-context posts), %lu failed reads (softirq block posts) in %.1f s\n",
		       n, nb, now() - t0);
		return 0;
	}
	fprintf(stderr, "usage: jlpost flip N | jlpost post\n");
	return 2;
}
