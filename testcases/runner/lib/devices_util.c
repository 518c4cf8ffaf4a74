// SPDX-License-Identifier: GPL-2.0
/* devices_util.c - the lab's device triggers (see devices_util.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/usbdevice_fs.h>

#include "devices_util.h"
#include "wl.h"

/* The number comes from the patched tree's installed UAPI headers only. */
#ifndef __NR_watch_devices
#error "build against the patched kernel's UAPI headers (make guest)"
#endif

long wl_watch_devices(int fd, int watch_id, unsigned int flags)
{
	return syscall(__NR_watch_devices, fd, watch_id, flags);
}

int wl_dev_read(const char *path, char *buf, size_t len)
{
	if (wl_read_file(path, buf, len) < 0)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

int wl_nullb_create(unsigned int irqmode, struct nullb *nb)
{
	return wl_nullb_create_with(irqmode, NULL, nb);
}

int wl_nullb_create_with(unsigned int irqmode, const char *const *attrs, struct nullb *nb)
{
	char val[32], bad[64], path[PATH_MAX];
	struct stat st;

	if (access(CONFIGFS "/nullb", F_OK) &&
	    mount("configfs", CONFIGFS, "configfs", 0, NULL)) {
		wl_diag("mount configfs: %s", strerror(errno));
		return -1;
	}
	if (access(NULLB_DIR, F_OK) == 0) {
		wl_write_file(NULLB_DIR "/power", "0");
		rmdir(NULLB_DIR);
	}
	if (mkdir(NULLB_DIR, 0755)) {
		wl_diag("mkdir %s: %s", NULLB_DIR, strerror(errno));
		return -1;
	}
	snprintf(val, sizeof(val), "%u", irqmode);
	snprintf(bad, sizeof(bad), "+%u-%u", BAD_SECTOR, BAD_SECTOR + BAD_SECTORS - 1);
	for (; attrs && attrs[0]; attrs += 2) {
		snprintf(path, sizeof(path), NULLB_DIR "/%s", attrs[0]);
		if (wl_write_file(path, attrs[1]))
			return -1;
	}
	if (wl_write_file(NULLB_DIR "/size", "16") ||
	    wl_write_file(NULLB_DIR "/irqmode", val) ||
	    wl_write_file(NULLB_DIR "/badblocks", bad) ||
	    wl_write_file(NULLB_DIR "/power", "1") ||
	    wl_dev_read(NULLB_DIR "/index", val, sizeof(val)))
		return -1;
	/* 6.12 names a configfs-made disk after its directory. */
	snprintf(nb->dev, sizeof(nb->dev), "/dev/%s", strrchr(NULLB_DIR, '/') + 1);
	if (stat(nb->dev, &st)) {
		wl_diag("stat %s: %s", nb->dev, strerror(errno));
		return -1;
	}
	nb->rdev = st.st_rdev;
	return 0;
}

void wl_nullb_destroy(void)
{
	wl_write_file(NULLB_DIR "/power", "0");
	rmdir(NULLB_DIR);
}

int wl_nullb_read_bad(const struct nullb *nb)
{
	void *buf;
	ssize_t n;
	int fd;

	fd = open(nb->dev, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0) {
		wl_diag("open %s: %s", nb->dev, strerror(errno));
		return -1;
	}
	if (posix_memalign(&buf, 4096, BAD_SECTORS * 512)) {
		close(fd);
		return -1;
	}
	n = pread(fd, buf, BAD_SECTORS * 512, (off_t)BAD_SECTOR * 512);
	free(buf);
	close(fd);
	if (n != -1 || errno != EIO) {
		wl_diag("read of bad sectors of %s returned %zd (%s), want EIO", nb->dev,
			n, n < 0 ? strerror(errno) : "no error");
		return -1;
	}
	return 0;
}

/* The first USB device (not a root hub, not an interface) into u->name. */
static int usb_first_device(struct usbdev *u)
{
	struct dirent *d;
	DIR *dir = opendir(USB_DEVICES);

	if (!dir) {
		wl_diag("opendir %s: %s", USB_DEVICES, strerror(errno));
		return -1;
	}
	u->name[0] = 0;
	while ((d = readdir(dir))) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9' || strchr(d->d_name, ':'))
			continue;
		snprintf(u->name, sizeof(u->name), "%s", d->d_name);
		break;
	}
	closedir(dir);
	return 0;
}

int wl_usb_find(struct usbdev *u)
{
	char path[PATH_MAX], ctl[PATH_MAX], busnum[16], devnum[16];
	int waited = 0;

	/*
	 * hub_wq enumerates QEMU's keyboard after the root hubs, in its own
	 * time: on a loaded host the runner's first USB test can come first
	 * (a smack boot once found no device, and the next test found it).
	 */
	for (;;) {
		if (usb_first_device(u))
			return -1;
		if (u->name[0] || waited >= WL_USB_SETTLE_MS)
			break;
		usleep(20000);
		waited += 20;
	}
	if (!u->name[0]) {
		wl_diag("no USB device in %s after %d ms (is QEMU's usb-kbd on the xHCI bus?)",
			USB_DEVICES, waited);
		return -1;
	}
	if (wl_usb_wait(u, WL_USB_SETTLE_MS))
		return -1;
	snprintf(path, sizeof(path), USB_DEVICES "/%s/busnum", u->name);
	if (wl_dev_read(path, busnum, sizeof(busnum)))
		return -1;
	snprintf(path, sizeof(path), USB_DEVICES "/%s/devnum", u->name);
	if (wl_dev_read(path, devnum, sizeof(devnum)))
		return -1;
	snprintf(u->node, sizeof(u->node), "/dev/bus/usb/%03d/%03d", atoi(busnum),
		 atoi(devnum));
	snprintf(path, sizeof(path), USB_DEVICES "/%s/port", u->name);
	if (!realpath(path, u->port)) {
		wl_diag("realpath %s: %s", path, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), USB_DEVICES "/usb%d/..", atoi(busnum));
	if (!realpath(path, ctl)) {
		wl_diag("realpath %s: %s", path, strerror(errno));
		return -1;
	}
	snprintf(u->bus, sizeof(u->bus), "%s", strrchr(ctl, '/') + 1);
	return 0;
}

int wl_usb_port_disable(const struct usbdev *u, const char *val)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/disable", u->port);
	return wl_write_file(path, val);
}

int wl_usb_reset(const struct usbdev *u)
{
	int fd = open(u->node, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		wl_diag("open %s: %s", u->node, strerror(errno));
		return -1;
	}
	if (ioctl(fd, USBDEVFS_RESET, 0)) {
		wl_diag("USBDEVFS_RESET on %s: %s", u->node, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int wl_usb_hub_rebind(const struct usbdev *u)
{
	char hub[PATH_MAX];
	char *slash;

	snprintf(hub, sizeof(hub), "%s", u->port);
	slash = strrchr(hub, '/');
	if (!slash)
		return -1;
	*slash = 0;
	slash = strrchr(hub, '/');
	if (!slash)
		return -1;
	return wl_write_file("/sys/bus/usb/drivers/hub/unbind", slash + 1) ||
	       wl_write_file("/sys/bus/usb/drivers/hub/bind", slash + 1) ? -1 : 0;
}

int wl_usb_stall(const struct usbdev *u)
{
	unsigned char data[8];
	struct usbdevfs_ctrltransfer ctrl = {
		.bRequestType = 0xc0, .bRequest = 0x5a, .wLength = sizeof(data),
		.timeout = 1000, .data = data,
	};
	int fd = open(u->node, O_RDWR | O_CLOEXEC);
	long r;

	if (fd < 0) {
		wl_diag("open %s: %s", u->node, strerror(errno));
		return -1;
	}
	r = ioctl(fd, USBDEVFS_CONTROL, &ctrl);
	close(fd);
	if (r != -1 || errno != EPIPE) {
		wl_diag("vendor control request on %s: %ld (%s), want EPIPE", u->node, r,
			r == -1 ? strerror(errno) : "no error");
		return -1;
	}
	return 0;
}

/* A sysfs attribute of a USB device, quietly: it may not be there yet. */
static bool usb_attr(const char *name, const char *attr, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), USB_DEVICES "/%s/%s", name, attr);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	return true;
}

/*
 * Whether the device is whole again: the USB core adds the "port" link
 * after device_add() (after "devnum" appears), and devtmpfs the usbfs node.
 */
static bool usb_ready(const char *name)
{
	char path[PATH_MAX], busnum[16], devnum[16];
	struct stat st;

	snprintf(path, sizeof(path), USB_DEVICES "/%s/port", name);
	if (lstat(path, &st) || !usb_attr(name, "busnum", busnum, sizeof(busnum)) ||
	    !usb_attr(name, "devnum", devnum, sizeof(devnum)))
		return false;
	snprintf(path, sizeof(path), "/dev/bus/usb/%03d/%03d", atoi(busnum), atoi(devnum));
	return access(path, F_OK) == 0;
}

int wl_usb_wait(const struct usbdev *u, int ms)
{
	for (int waited = 0; waited <= ms; waited += 20) {
		if (usb_ready(u->name))
			return 0;
		usleep(20000);
	}
	wl_diag("USB device %s did not come back within %d ms", u->name, ms);
	return -1;
}
