// SPDX-License-Identifier: GPL-2.0
/*
 * source_mount.c - mount scenarios: a tmpfs with directories a/ and b/ (and
 * a submount at a/ unless the action makes it), or a detached fsmount()
 * tree dissolved by the last fput() of its fd.  In a watch-via row the
 * triggerer's copy of the fixture, in the mount namespace it made, is the
 * object, and the triggerer makes the submount there.
 *
 * When the watcher has a label, fixture mounts carry the "object" label of
 * policy/labels in the labelled profiles (smackfsroot= or context=), so the
 * watcher model's label part judges W against O; an unlabelled scenario's
 * fixture keeps the runner's own labels, and only DAC decides.
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
/* glibc's <fcntl.h> already defines what <linux/fcntl.h> would redefine. */
#define _LINUX_FCNTL_H
#include <linux/mount.h>

#include "fdpass.h"
#include "label.h"
#include "scenario_run.h"
#include "scenario_source.h"
#include "vfs_util.h"
#include "wl.h"

/* Mount options that give a fixture's root the "object" label, or "". */
static void object_label_opts(char *buf, size_t len)
{
	char l[64];

	buf[0] = '\0';
	if (wl_label_lookup("object", l, sizeof(l)) || !l[0])
		return;
	if (strcmp(wl_profile(), "smack") == 0)
		snprintf(buf, len, "smackfsroot=%s,smackfsdef=%s", l, l);
	else if (strcmp(wl_profile(), "selinux") == 0)
		snprintf(buf, len, "context=\"%s\"", l);
}

int scn_tmpfs_at(const struct scn_ctx *c, const char *path, const char *extra, bool shared)
{
	char opts[256], lab[160] = "";

	/* An unlabelled watcher watches what the runner made, with its label. */
	if (c->s->watcher.label[0])
		object_label_opts(lab, sizeof(lab));
	snprintf(opts, sizeof(opts), "mode=1777%s%s%s%s", lab[0] ? "," : "", lab,
		 extra ? "," : "", extra ? extra : "");
	if (wl_mkdir(path) || mount("wls", path, "tmpfs", 0, opts)) {
		wl_diag("mount tmpfs on %s (%s): %s", path, opts, strerror(errno));
		return -1;
	}
	if (mount(NULL, path, NULL, shared ? MS_SHARED : MS_PRIVATE, NULL)) {
		wl_diag("propagation of %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* The fixture's a/ or b/. */
static void sub(const struct scn_ctx *c, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", c->dir, name);
}

static int fsmount_setup(struct scn_ctx *c)
{
	int fs = syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);

	if (fs < 0 || syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0)) {
		wl_diag("fsopen/fsconfig tmpfs: %s", strerror(errno));
		return -1;
	}
	c->mfd = syscall(SYS_fsmount, fs, 0, 0);
	close(fs);
	if (c->mfd < 0) {
		wl_diag("fsmount: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int mount_setup(struct scn_ctx *c)
{
	char a[96], b[96];

	if (strcmp(c->s->object, "fsmount") == 0)
		return fsmount_setup(c);
	if (scn_tmpfs_at(c, c->dir, NULL, strcmp(c->s->object_opt, "shared") == 0))
		return -1;
	sub(c, "a", a, sizeof(a));
	sub(c, "b", b, sizeof(b));
	return wl_mkdir(a) || wl_mkdir(b) ? -1 : 0;
}

static long mount_watch(struct scn_ctx *c, int qfd, int watch_id)
{
	char path[128];

	if (c->mfd >= 0)
		return wl_watch_mount(c->mfd, "", AT_EMPTY_PATH, qfd, watch_id);
	scn_object_path(c, path, sizeof(path));
	return wl_watch_mount(AT_FDCWD, path, 0, qfd, watch_id);
}

/* Shared by the sb source: every mount under the fixture's directory. */
void scn_mount_teardown(struct scn_ctx *c)
{
	char img[80];

	while (umount2(c->dir, MNT_DETACH) == 0)
		;
	rmdir(c->dir);
	snprintf(img, sizeof(img), "%s.img", c->dir);
	unlink(img);
}

const struct scn_source_ops scn_mount_source = {
	.setup = mount_setup,
	.watch = mount_watch,
	.teardown = scn_mount_teardown,
};

/* fsmount-pass-close, as the owner after the watch: send the fd on, keep no copy. */
int scn_object_hand_off(struct scn_ctx *c)
{
	int r = wl_send_fd(c->pass[0], c->mfd);

	close(c->mfd);
	c->mfd = -1;
	return r;
}

/* ---- actions ---- */

static int mount_done(const struct scn_ctx *c, long r)
{
	if (r < 0)
		wl_diag("triggerer: %s under %s: %s", c->s->action->name, c->dir,
			strerror(errno));
	return r < 0 ? -1 : 0;
}

/* The submount at a/ that every action but "mount" starts from. */
int scn_mount_submount(struct scn_ctx *c)
{
	char a[96];

	sub(c, "a", a, sizeof(a));
	return scn_tmpfs_at(c, a, NULL, false);
}

int scn_mount_mount(struct scn_ctx *c)
{
	char a[96];

	sub(c, "a", a, sizeof(a));
	return mount_done(c, mount("wlsub", a, "tmpfs", 0, NULL));
}

int scn_mount_unmount(struct scn_ctx *c)
{
	char a[96];

	sub(c, "a", a, sizeof(a));
	return mount_done(c, umount2(a, 0));
}

int scn_mount_expire(struct scn_ctx *c)
{
	char a[96];

	sub(c, "a", a, sizeof(a));
	if (umount2(a, MNT_EXPIRE) == 0 || errno != EAGAIN) {
		wl_diag("first umount2(MNT_EXPIRE) did not return EAGAIN");
		return -1;
	}
	return mount_done(c, umount2(a, MNT_EXPIRE));
}

int scn_mount_remount_ro(struct scn_ctx *c)
{
	char a[96];

	sub(c, "a", a, sizeof(a));
	return mount_done(c, mount(NULL, a, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL));
}

int scn_mount_setattr(struct scn_ctx *c)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_NOEXEC };
	char a[96];

	sub(c, "a", a, sizeof(a));
	return mount_done(c, syscall(SYS_mount_setattr, AT_FDCWD, a, 0, &attr, sizeof(attr)));
}

int scn_mount_move(struct scn_ctx *c)
{
	char a[96], b[96];

	sub(c, "a", a, sizeof(a));
	sub(c, "b", b, sizeof(b));
	return mount_done(c, mount(a, b, NULL, MS_MOVE, NULL));
}

int scn_mount_fsmount_close(struct scn_ctx *c)
{
	return mount_done(c, close(c->mfd));
}

/* fsmount-pass-close: the socket the owner hands the fd to the triggerer on. */
int scn_mount_pass_prepare(struct scn_ctx *c)
{
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, c->pass)) {
		wl_diag("socketpair: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int scn_mount_fsmount_pass_close(struct scn_ctx *c)
{
	int fd = wl_recv_fd(c->pass[1]);

	return mount_done(c, fd < 0 ? -1 : close(fd));
}

/*
 * fsmount-pass-exec: the hand-off of fsmount-pass-close, and a setuid-root
 * program to exec.  It lives on the initramfs root, which is not nosuid.
 */
#define SUID_TRUE "/wl-suid-true"

int scn_mount_exec_prepare(struct scn_ctx *c)
{
	if (scn_mount_pass_prepare(c))
		return -1;
	if (system("cp /bin/busybox " SUID_TRUE) != 0 || chown(SUID_TRUE, 0, 0) ||
	    chmod(SUID_TRUE, 04755)) {
		wl_diag("setuid-root copy of busybox at %s: %s", SUID_TRUE, strerror(errno));
		return -1;
	}
	return 0;
}

void scn_mount_exec_restore(struct scn_ctx *c)
{
	(void)c;
	unlink(SUID_TRUE);
}

/*
 * The triggerer takes the fd close-on-exec and hands it to a child that
 * execs the setuid-root program once the triggerer's own copy is closed:
 * the exec drops the last reference (do_close_on_exec() runs before
 * commit_creds()), and the deferred __fput() runs as the exec returns,
 * under the new creds (euid 0, every capability).  With fs.fput_creds on
 * the post carries the creds of the fput() caller, uid 1001 before the
 * exec; off, the setuid creds.
 */
int scn_mount_fsmount_pass_exec(struct scn_ctx *c)
{
	int fd = wl_recv_fd(c->pass[1]), go[2], status;
	char b = 'g';
	pid_t pid;

	if (fd < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) || pipe2(go, O_CLOEXEC))
		return mount_done(c, -1);
	pid = fork();
	if (pid < 0)
		return mount_done(c, -1);
	if (pid == 0) {
		if (read(go[0], &b, 1) == 1)
			execl(SUID_TRUE, "true", (char *)NULL);
		_exit(127);
	}
	close(fd);
	close(go[0]);
	if (write(go[1], &b, 1) != 1)
		wl_diag("triggerer: release the exec child: %s", strerror(errno));
	close(go[1]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		wl_diag("triggerer: exec %s: status %#x", SUID_TRUE, status);
		return -1;
	}
	return 0;
}

/*
 * fsmount-looker-close, the cover letter's "looker": an unrelated process
 * with ptrace rights over the owner takes a copy of the owner's fd
 * (pidfd_getfd()), the owner exits (killed here: its exit_files() drops
 * its copy), and the looker's close is the last fput: the UNMOUNT carries
 * the looker's creds, not the owner's.
 */
int scn_mount_fsmount_looker_close(struct scn_ctx *c)
{
	struct pollfd p = { .events = POLLIN };
	int fd;

	p.fd = syscall(SYS_pidfd_open, c->owner_pid, 0);
	if (p.fd < 0)
		return mount_done(c, -1);
	fd = syscall(SYS_pidfd_getfd, p.fd, c->owner_fd, 0);
	if (fd < 0 || syscall(SYS_pidfd_send_signal, p.fd, SIGKILL, NULL, 0) ||
	    poll(&p, 1, 10000) != 1) {
		wl_diag("triggerer: take the owner's fd %d and end the owner: %s",
			c->owner_fd, strerror(errno));
		close(p.fd);
		return -1;
	}
	close(p.fd);
	return mount_done(c, close(fd));
}

/*
 * fsmount-proc-looker, the cover letter's other looker: an unrelated
 * process reopens the owner's fd through /proc/OWNER/fd/N.  That is a path
 * walk to the detached tree, not a copy of the owner's struct file: the
 * looker holds the mount, not the file, so the owner's exit still drops
 * the file's last reference and dissolves the tree, with the owner's
 * creds.  The looker's close afterwards posts nothing.
 */
int scn_mount_fsmount_proc_looker(struct scn_ctx *c)
{
	struct pollfd p = { .events = POLLIN };
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)c->owner_pid, c->owner_fd);
	fd = open(path, O_PATH | O_CLOEXEC);
	p.fd = syscall(SYS_pidfd_open, c->owner_pid, 0);
	if (fd < 0 || p.fd < 0 ||
	    syscall(SYS_pidfd_send_signal, p.fd, SIGKILL, NULL, 0) || poll(&p, 1, 10000) != 1) {
		wl_diag("triggerer: reopen %s and end the owner: %s", path, strerror(errno));
		if (p.fd >= 0)
			close(p.fd);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(p.fd);
	return mount_done(c, close(fd));
}

/* Put the fsmount fd in a unix socket cycle and drop it: unix GC frees it. */
int scn_mount_fsmount_unix_gc(struct scn_ctx *c)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv)) {
		wl_diag("socketpair: %s", strerror(errno));
		return -1;
	}
	if (wl_send_fd(sv[0], c->mfd) || wl_send_fd(sv[0], sv[0]) || wl_send_fd(sv[1], sv[1]))
		return mount_done(c, -1);
	close(c->mfd);
	close(sv[0]);
	close(sv[1]);
	return 0;
}
