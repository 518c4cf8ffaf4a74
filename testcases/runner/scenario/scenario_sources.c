// SPDX-License-Identifier: GPL-2.0
/*
 * scenario_sources.c - what each source's scenarios set up, watch and do:
 * keys (the owner's key or keyring, acted on by id), mounts (a tmpfs with
 * a submount, or a detached fsmount() tree) and superblocks (tmpfs, tmpfs
 * with a user quota, ext4 on a loop device).
 *
 * When the watcher has a label, fixture mounts carry the "object" label of
 * policy/labels in the labelled profiles (smackfsroot= or context=), so the
 * watcher model's label part judges W against O; an unlabelled scenario's
 * fixture keeps the runner's own labels, and only DAC decides.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <keyutils.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
/* glibc's <fcntl.h> already defines what <linux/fcntl.h> would redefine. */
#define _LINUX_FCNTL_H
#include <linux/mount.h>
#include <linux/watch_queue.h>

#include "devices_util.h"
#include "fdpass.h"
#include "label.h"
#include "request_key.h"
#include "scenario_run.h"
#include "vfs_util.h"
#include "wl.h"

#define FIXTURE_BASE "/tmp/wls"
#define KEY_VIEW_BITS 0x00010101	/* KEY_USR_VIEW | KEY_GRP_VIEW | KEY_OTH_VIEW */

static bool is(const struct scn_ctx *c, const char *action)
{
	return strcmp(c->s->action->name, action) == 0;
}

static int sh(const char *cmd)
{
	int r = system(cmd);

	if (r != 0)
		wl_diag("'%s' exited with %d", cmd, r);
	return r ? -1 : 0;
}

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

static int tmpfs_at(const struct scn_ctx *c, const char *path, const char *extra,
		    bool shared)
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

static int mount_fixture(struct scn_ctx *c)
{
	char a[96], b[96];
	bool pre = !is(c, "mount");

	if (strcmp(c->s->object, "fsmount") == 0) {
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
		if (is(c, "fsmount-pass-close") &&
		    socketpair(AF_UNIX, SOCK_DGRAM, 0, c->pass)) {
			wl_diag("socketpair: %s", strerror(errno));
			return -1;
		}
		return 0;
	}
	if (tmpfs_at(c, c->dir, NULL, strcmp(c->s->object_opt, "shared") == 0))
		return -1;
	snprintf(a, sizeof(a), "%s/a", c->dir);
	snprintf(b, sizeof(b), "%s/b", c->dir);
	if (wl_mkdir(a) || wl_mkdir(b))
		return -1;
	return pre ? tmpfs_at(c, a, NULL, false) : 0;
}

static int sb_fixture(struct scn_ctx *c)
{
	unsigned int minor;
	struct stat st;
	char cmd[512];

	if (strcmp(c->s->object, "sb-quota") == 0)
		return tmpfs_at(c, c->dir, "usrquota,usrquota_block_hardlimit=64k", false);
	if (strcmp(c->s->object, "sb") == 0)
		return tmpfs_at(c, c->dir, NULL, false);
	/* sb-ext4: a small ext2 image mounted as ext4 on a loop device */
	snprintf(cmd, sizeof(cmd), /* dir is short: FIXTURE_BASE/pid */
		 "dd if=/dev/zero of=%s.img bs=1k count=2048 2>/dev/null && "
		 "mke2fs -F %s.img >/dev/null 2>&1 && "
		 "mount -t ext4 -o loop,errors=continue %s.img %s",
		 c->dir, c->dir, c->dir, c->dir);
	if (wl_mkdir(c->dir) || sh(cmd))
		return -1;
	if (stat(c->dir, &st)) {
		wl_diag("stat %s: %s", c->dir, strerror(errno));
		return -1;
	}
	minor = st.st_dev & 0xff;
	snprintf(c->attr, sizeof(c->attr), "/sys/fs/ext4/loop%u/trigger_fs_error", minor);
	return chmod(c->dir, 01777) ? -1 : 0;
}

/* The FIFOs the request-key upcall and the runner meet at. */
static int upcall_fixture(void)
{
	unlink(WL_UPCALL_LOG);
	unlink(WL_UPCALL_ID_FIFO);
	unlink(WL_UPCALL_GO_FIFO);
	if (mkfifo(WL_UPCALL_ID_FIFO, 0600) || mkfifo(WL_UPCALL_GO_FIFO, 0600)) {
		wl_diag("mkfifo for the request-key upcall: %s", strerror(errno));
		return -1;
	}
	return 0;
}

#define XHCI_DRIVER "/sys/bus/pci/drivers/xhci_hcd"

/*
 * Devices: a null_blk disk anyone may read, or the USB keyboard with a node
 * anyone may open, put in the state the action starts from.
 */
static int device_fixture(struct scn_ctx *c)
{
	if (c->s->source == SCN_BLOCK)
		return wl_nullb_create(0, &c->nb) || chmod(c->nb.dev, 0666) ? -1 : 0;
	if (wl_usb_find(&c->usb) || chmod(c->usb.node, 0666)) {
		wl_diag("the USB test device: %s", strerror(errno));
		return -1;
	}
	if (is(c, "port-enable"))
		return wl_usb_port_disable(&c->usb, "1");
	if (is(c, "bus-bind"))
		return wl_dev_write(XHCI_DRIVER "/unbind", c->usb.bus);
	return 0;
}

/* Leave the USB device enumerated, whatever the action did to it. */
static void device_teardown(struct scn_ctx *c)
{
	if (c->s->source == SCN_BLOCK) {
		wl_nullb_destroy();
		return;
	}
	if (!c->usb.name[0])
		return;
	if (is(c, "port-disable") || is(c, "port-enable")) {
		wl_usb_port_disable(&c->usb, "0");
		wl_usb_hub_rebind(&c->usb);
	} else if (is(c, "bus-unbind")) {
		wl_dev_write(XHCI_DRIVER "/bind", c->usb.bus);
	}
	wl_usb_wait(&c->usb, WL_USB_SETTLE_MS);
}

static int device_act(struct scn_ctx *c)
{
	if (c->s->source == SCN_BLOCK)
		return wl_nullb_read_bad(&c->nb);
	if (is(c, "port-disable"))
		return wl_usb_port_disable(&c->usb, "1");
	if (is(c, "port-enable"))
		return wl_usb_port_disable(&c->usb, "0") || wl_usb_hub_rebind(&c->usb) ? -1 : 0;
	if (is(c, "reset"))
		return wl_usb_reset(&c->usb);
	if (is(c, "stall"))
		return wl_usb_stall(&c->usb);
	if (is(c, "bus-unbind"))
		return wl_dev_write(XHCI_DRIVER "/unbind", c->usb.bus);
	return wl_dev_write(XHCI_DRIVER "/bind", c->usb.bus);
}

int scn_fixture_setup(struct scn_ctx *c)
{
	snprintf(c->dir, sizeof(c->dir), FIXTURE_BASE "/%d", (int)getpid());
	if (wl_mkdir(FIXTURE_BASE))
		return -1;
	if (is(c, "instantiate"))
		return upcall_fixture();
	switch (c->s->source) {
	case SCN_MOUNT:
		return mount_fixture(c);
	case SCN_SB:
		return sb_fixture(c);
	case SCN_BLOCK:
	case SCN_USB:
		return device_fixture(c);
	default:
		return 0;
	}
}

void scn_fixture_teardown(struct scn_ctx *c)
{
	char img[80];

	if (c->mfd >= 0)
		close(c->mfd);
	if (c->pass[0] >= 0) {
		close(c->pass[0]);
		close(c->pass[1]);
	}
	if (is(c, "instantiate")) {
		unlink(WL_UPCALL_ID_FIFO);
		unlink(WL_UPCALL_GO_FIFO);
	}
	if (c->s->source == SCN_BLOCK || c->s->source == SCN_USB)
		device_teardown(c);
	if (c->s->source != SCN_MOUNT && c->s->source != SCN_SB)
		return;
	while (umount2(c->dir, MNT_DETACH) == 0)
		;
	rmdir(c->dir);
	snprintf(img, sizeof(img), "%s.img", c->dir);
	unlink(img);
}

/* ---- keys ---- */

int scn_object_create(struct scn_ctx *c)
{
	bool ring = strcmp(c->s->object, "keyring") == 0;
	key_serial_t sess;

	if (c->s->source != SCN_KEY)
		return 0;
	sess = keyctl_join_session_keyring(NULL);
	if (sess < 0) {
		wl_diag("owner: join a new session keyring: %s", strerror(errno));
		return -1;
	}
	if (is(c, "instantiate"))
		return 0;	/* the key comes from request_key(), later */
	c->key = ring ? add_key("keyring", "wl-object", NULL, 0, sess) :
			add_key("user", "wl-object", "o", 1, sess);
	if (c->key < 0) {
		wl_diag("owner: add_key %s: %s", c->s->object, strerror(errno));
		return -1;
	}
	if (ring) {
		c->member = add_key("user", "wl-member", "m", 1, c->key);
		if (c->member < 0 || keyctl_setperm(c->member, 0x3f3f3f3f)) {
			wl_diag("owner: keyring member: %s", strerror(errno));
			return -1;
		}
	}
	if (keyctl_setperm(c->key, c->s->perm)) {
		wl_diag("owner: setperm 0x%x: %s", c->s->perm, strerror(errno));
		return -1;
	}
	return 0;
}

int scn_object_request(struct scn_ctx *c)
{
	key_serial_t k = request_key("user", "wl-instantiate", "watchlab",
				     KEY_SPEC_SESSION_KEYRING);

	if (k < 0) {
		wl_diag("owner: request_key: %s", strerror(errno));
		return -1;
	}
	c->key = k;
	return 0;
}

int scn_object_drop_view(struct scn_ctx *c)
{
	if (keyctl_setperm(c->key, c->s->perm & ~KEY_VIEW_BITS)) {
		wl_diag("owner: withdraw View: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* fsmount-pass-close: send the inherited fsmount fd on, keep no copy. */
int scn_object_hand_off(struct scn_ctx *c)
{
	int r = wl_send_fd(c->pass[0], c->mfd);

	close(c->mfd);
	c->mfd = -1;
	return r;
}

static int key_act(struct scn_ctx *c)
{
	const char *a = c->s->action->name;
	long r;

	if (strcmp(a, "link") == 0) {
		key_serial_t k = add_key("user", "wl-linked", "l", 1, KEY_SPEC_PROCESS_KEYRING);

		r = k < 0 ? -1 : keyctl_link(k, c->key);
	} else if (strcmp(a, "unlink") == 0) {
		r = keyctl_unlink(c->member, c->key);
	} else if (strcmp(a, "update") == 0) {
		r = keyctl_update(c->key, "u", 1);
	} else if (strcmp(a, "revoke") == 0) {
		r = keyctl_revoke(c->key);
	} else if (strcmp(a, "invalidate") == 0) {
		r = keyctl_invalidate(c->key);
	} else if (strcmp(a, "clear") == 0) {
		r = keyctl_clear(c->key);
	} else if (strcmp(a, "setattr") == 0) {
		r = keyctl_set_timeout(c->key, 3600);
	} else {
		wl_diag("key action %s is not implemented", a);
		return -1;
	}
	if (r < 0)
		wl_diag("triggerer: key %s on %d: %s", a, c->key, strerror(errno));
	return r < 0 ? -1 : 0;
}

/* ---- mounts ---- */

/* Put the fsmount fd in a unix socket cycle and drop it: unix GC frees it. */
static int unix_gc_cycle(int mfd)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv)) {
		wl_diag("socketpair: %s", strerror(errno));
		return -1;
	}
	if (wl_send_fd(sv[0], mfd) || wl_send_fd(sv[0], sv[0]) || wl_send_fd(sv[1], sv[1]))
		return -1;
	close(mfd);
	close(sv[0]);
	close(sv[1]);
	return 0;
}

static int mount_act(struct scn_ctx *c)
{
	char a[96], b[96];
	long r;

	snprintf(a, sizeof(a), "%s/a", c->dir);
	snprintf(b, sizeof(b), "%s/b", c->dir);
	if (is(c, "mount")) {
		r = mount("wlsub", a, "tmpfs", 0, NULL);
	} else if (is(c, "unmount")) {
		r = umount2(a, 0);
	} else if (is(c, "expire")) {
		r = umount2(a, MNT_EXPIRE);
		if (r == 0 || errno != EAGAIN) {
			wl_diag("first umount2(MNT_EXPIRE) did not return EAGAIN");
			return -1;
		}
		r = umount2(a, MNT_EXPIRE);
	} else if (is(c, "remount-ro")) {
		r = mount(NULL, a, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
	} else if (is(c, "setattr")) {
		struct mount_attr attr = { .attr_set = MOUNT_ATTR_NOEXEC };

		r = syscall(SYS_mount_setattr, AT_FDCWD, a, 0, &attr, sizeof(attr));
	} else if (is(c, "move")) {
		r = mount(a, b, NULL, MS_MOVE, NULL);
	} else if (is(c, "fsmount-close")) {
		r = close(c->mfd);
	} else if (is(c, "fsmount-pass-close")) {
		int fd;

		fd = wl_recv_fd(c->pass[1]);
		r = fd < 0 ? -1 : close(fd);
	} else {
		r = unix_gc_cycle(c->mfd);
	}
	if (r < 0)
		wl_diag("triggerer: %s under %s: %s", c->s->action->name, c->dir,
			strerror(errno));
	return r < 0 ? -1 : 0;
}

/* ---- superblocks ---- */

static int exceed_quota(struct scn_ctx *c)
{
	static char buf[4096];
	char path[96];
	ssize_t n = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/big-%u", c->dir, (unsigned int)getuid());
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0) {
		wl_diag("triggerer: create %s: %s", path, strerror(errno));
		return -1;
	}
	memset(buf, 'q', sizeof(buf));
	for (int i = 0; i < 64 && n >= 0; i++)
		n = write(fd, buf, sizeof(buf));
	close(fd);
	if (n >= 0 || errno != EDQUOT) {
		wl_diag("triggerer: wrote 256k past a 64k quota without EDQUOT");
		return -1;
	}
	return 0;
}

static int sb_act(struct scn_ctx *c)
{
	int fd;

	if (is(c, "exceed-quota"))
		return exceed_quota(c);
	if (is(c, "remount-ro")) {
		if (mount(NULL, c->dir, NULL, MS_REMOUNT | MS_RDONLY, NULL)) {
			wl_diag("triggerer: remount %s ro: %s", c->dir, strerror(errno));
			return -1;
		}
		return 0;
	}
	fd = open(c->attr, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "watchlab", 8) != 8) {
		wl_diag("triggerer: write %s: %s", c->attr, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int scn_watch(struct scn_ctx *c, int qfd, int watch_id)
{
	long r;

	switch (c->s->source) {
	case SCN_KEY:
		r = keyctl(KEYCTL_WATCH_KEY, c->key, qfd, watch_id);
		break;
	case SCN_MOUNT:
		r = c->mfd >= 0 ? wl_watch_mount(c->mfd, "", AT_EMPTY_PATH, qfd, watch_id) :
				  wl_watch_mount(AT_FDCWD, c->dir, 0, qfd, watch_id);
		break;
	case SCN_SB:
		r = wl_watch_sb(AT_FDCWD, c->dir, 0, qfd, watch_id);
		break;
	case SCN_BLOCK:
	case SCN_USB:
		r = wl_watch_devices(qfd, watch_id, 0);
		break;
	default:
		errno = ENOSYS;
		r = -1;
	}
	return r ? errno : 0;
}

int scn_act(struct scn_ctx *c)
{
	switch (c->s->source) {
	case SCN_KEY:
		return key_act(c);
	case SCN_MOUNT:
		return mount_act(c);
	case SCN_SB:
		return sb_act(c);
	case SCN_BLOCK:
	case SCN_USB:
		return device_act(c);
	default:
		wl_diag("source %s has no actions in this build", scn_source_name(c->s->source));
		return -1;
	}
}
