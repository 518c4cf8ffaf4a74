// SPDX-License-Identifier: GPL-2.0
/*
 * suite_devices.c - the global device watch list (wl_watch_devices(),
 * kernel-patches 0007) and its sources: block I/O errors (0008) from a
 * null_blk disk with configfs badblocks, and USB events (0009) from QEMU's
 * xHCI controller and USB keyboard, all triggered from inside the guest:
 * port disable through sysfs and a hub rescan (device remove/add), USBDEVFS_RESET
 * (reset), a control request the device stalls (error), and unbinding and
 * binding the controller (bus remove/add).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/usbdevice_fs.h>
/* glibc's <fcntl.h> already defines what <linux/fcntl.h> would redefine. */
#define _LINUX_FCNTL_H
#include <linux/watch_queue.h>

#include "devices_util.h"
#include "wl.h"


#define XHCI_DRIVER	"/sys/bus/pci/drivers/xhci_hcd"

/* USB enumeration runs in hub_wq: waits allow for it (wl_slow_ms: and the debug kernel). */

/* A queue with a watch on the device list; -1 with a diagnostic. */
static int dev_queue(int watch_id)
{
	int fd = wl_wq_open(64);

	if (fd < 0)
		return -1;
	if (wl_watch_devices(fd, watch_id, 0) != 0) {
		wl_diag("wl_watch_devices(%d, %#x, 0): %s", fd, watch_id, strerror(errno));
		wl_wq_close(fd);
		return -1;
	}
	return fd;
}

/* Nothing at all may arrive on fd within the event timeout. */
static int expect_nothing(int fd, const char *after)
{
	return wl_wq_expect_none(fd, after, WL_EVENT_TIMEOUT_MS);
}

/* ---- block: a null_blk disk whose sectors BAD_SECTOR.. fail ---- */




/* Read the bad range with O_DIRECT: one request, which must fail with EIO. */

/* The next block record on fd must be the I/O error of nb's bad range. */
static int expect_block_error(int fd, const struct nullb *nb, unsigned int watch_id)
{
	struct block_notification bn;
	struct wl_record rec;

	if (wl_wq_expect(fd, WATCH_TYPE_BLOCK_NOTIFY, NOTIFY_BLOCK_ERROR_IO, &rec,
			 wl_slow_ms(WL_EVENT_TIMEOUT_MS * 4)) != 1) {
		wl_diag("no block I/O error record for %s on watch %#x", nb->dev, watch_id);
		return -1;
	}
	memcpy(&bn, rec.data, sizeof(bn));
	if (rec.len != sizeof(bn) || rec.watch_id != watch_id ||
	    (rec.info & WATCH_INFO_TYPE_INFO) || bn.dev != nb->rdev ||
	    bn.sector != BAD_SECTOR) {
		wl_diag("block record len %u watch %#x info %#x dev %#llx sector %llu, want len %zu watch %#x dev %#llx sector %u",
			rec.len, rec.watch_id, rec.info, (unsigned long long)bn.dev,
			(unsigned long long)bn.sector, sizeof(bn), watch_id, nb->rdev,
			BAD_SECTOR);
		return -1;
	}
	return 0;
}

static enum wl_result block_error_fields(unsigned int irqmode)
{
	struct nullb nb;
	int fd;

	WL_EXPECT(wl_nullb_create(irqmode, &nb) == 0, "null_blk disk with badblocks, irqmode %u",
		  irqmode);
	fd = dev_queue(0x41);
	WL_EXPECT(fd >= 0, "device watch");
	WL_EXPECT(wl_nullb_read_bad(&nb) == 0, "I/O error from the bad range");
	WL_EXPECT(expect_block_error(fd, &nb, 0x41) == 0, "block record (irqmode %u)", irqmode);
	wl_wq_close(fd);
	wl_nullb_destroy();
	return WL_PASS;
}

/* Completion in the submitting task (irqmode 0). */
static enum wl_result block_error_in_task(void)
{
	return block_error_fields(0);
}

/* Completion from an hrtimer, in hard interrupt context (irqmode 2). */
static enum wl_result block_error_in_hardirq(void)
{
	return block_error_fields(2);
}

/* ---- USB: the QEMU keyboard on the xHCI controller ---- */



/* Check a USB record's fixed fields, name and padding. */
static int check_usb_record(const struct wl_record *rec, const char *what,
			    unsigned int watch_id, const char *name, unsigned int error)
{
	struct usb_notification un;
	size_t name_len = strlen(name);
	size_t want_len = (offsetof(struct usb_notification, name) + name_len + 7) & ~7UL;

	memcpy(&un, rec->data, sizeof(un));
	if (rec->len != want_len || rec->watch_id != watch_id ||
	    un.name_len != name_len || un.error != error || un.reserved != 0 ||
	    memcmp(rec->data + offsetof(struct usb_notification, name), name, name_len)) {
		wl_diag("%s: record len %u watch %#x name_len %u name '%.*s' error %u reserved %u; want len %zu watch %#x name '%s' error %u",
			what, rec->len, rec->watch_id, un.name_len, (int)un.name_len,
			(const char *)rec->data + offsetof(struct usb_notification, name),
			un.error, un.reserved, want_len, watch_id, name, error);
		return -1;
	}
	for (size_t i = offsetof(struct usb_notification, name) + name_len; i < rec->len; i++) {
		if (rec->data[i]) {
			wl_diag("%s: padding byte %zu is %#x, want 0", what, i, rec->data[i]);
			return -1;
		}
	}
	return 0;
}

/* Wait for a USB record of subtype about name (others are skipped). */
static int expect_usb(int fd, const char *what, unsigned int subtype,
		      unsigned int watch_id, const char *name, unsigned int error,
		      int timeout_ms)
{
	struct wl_record rec;

	for (;;) {
		if (wl_wq_expect(fd, WATCH_TYPE_USB_NOTIFY, subtype, &rec, timeout_ms) != 1) {
			wl_diag("%s: no USB record of subtype %u for '%s'", what, subtype, name);
			return -1;
		}
		if (rec.len > offsetof(struct usb_notification, name) &&
		    rec.data[offsetof(struct usb_notification, name_len)] == strlen(name) &&
		    !memcmp(rec.data + offsetof(struct usb_notification, name), name,
			    strlen(name)))
			return check_usb_record(&rec, what, watch_id, name, error);
	}
}



static int usb_reset_as(void *arg)
{
	return wl_usb_reset(arg) ? 1 : 0;
}

/* Unbind and bind the hub interface the port belongs to: hub_wq rescans it. */

/*
 * Port disable: DEVICE_REMOVE.  Re-enabling the port powers it, but QEMU's
 * xHCI reports no connect change for a device that never left, so the hub
 * is rebound to rescan its ports: DEVICE_ADD from hub_wq.
 */
static enum wl_result usb_device_remove_add(void)
{
	struct usbdev u;
	int fd;

	WL_EXPECT(wl_usb_find(&u) == 0, "the USB test device");
	fd = dev_queue(0x51);
	WL_EXPECT(fd >= 0, "device watch");
	WL_EXPECT(wl_usb_port_disable(&u, "1") == 0, "disable port %s", u.port);
	WL_EXPECT(expect_usb(fd, "port disable", NOTIFY_USB_DEVICE_REMOVE, 0x51, u.name, 0,
			     wl_slow_ms(WL_EVENT_TIMEOUT_MS * 4)) == 0, "DEVICE_REMOVE");
	WL_EXPECT(wl_usb_port_disable(&u, "0") == 0, "enable port %s", u.port);
	WL_EXPECT(wl_usb_hub_rebind(&u) == 0, "rebind the hub of %s", u.port);
	WL_EXPECT(expect_usb(fd, "port enable and hub rescan", NOTIFY_USB_DEVICE_ADD, 0x51,
			     u.name, 0, wl_slow_ms(10000)) == 0, "DEVICE_ADD");
	wl_wq_close(fd);
	return WL_PASS;
}

/* USBDEVFS_RESET by root, and by bob (uid 1001) given the node. */
static enum wl_result usb_device_reset(void)
{
	struct wl_creds bob = wl_user(1001);
	struct usbdev u;
	int fd;

	WL_EXPECT(wl_usb_find(&u) == 0, "the USB test device");
	fd = dev_queue(0x52);
	WL_EXPECT(fd >= 0, "device watch");
	WL_EXPECT(wl_usb_reset(&u) == 0, "reset as root");
	WL_EXPECT(expect_usb(fd, "reset as root", NOTIFY_USB_DEVICE_RESET, 0x52, u.name, 0,
			     wl_slow_ms(WL_EVENT_TIMEOUT_MS * 4)) == 0, "DEVICE_RESET (root)");
	WL_EXPECT(chmod(u.node, 0666) == 0, "chmod %s: %s", u.node, strerror(errno));
	WL_EXPECT(wl_run_as(&bob, usb_reset_as, &u) == 0, "reset as uid 1001");
	chmod(u.node, 0664);
	WL_EXPECT(expect_usb(fd, "reset as uid 1001", NOTIFY_USB_DEVICE_RESET, 0x52, u.name,
			     0, wl_slow_ms(WL_EVENT_TIMEOUT_MS * 4)) == 0, "DEVICE_RESET (uid 1001)");
	wl_wq_close(fd);
	return WL_PASS;
}

/*
 * A vendor control request that QEMU's keyboard does not know: it stalls
 * endpoint 0, which usbfs reports as EPIPE, synchronously (USBDEVFS_CONTROL)
 * and through an asynchronous URB.
 */
static enum wl_result usb_device_error(void)
{
	unsigned char data[8 + 8] = { 0xc0, 0x5a, 0, 0, 0, 0, 8, 0 };
	struct usbdevfs_urb urb = {
		.type = USBDEVFS_URB_TYPE_CONTROL, .endpoint = 0,
		.buffer = data, .buffer_length = sizeof(data),
	};
	struct usbdevfs_urb *reaped = NULL;
	struct usbdev u;
	int fd, dev;

	WL_EXPECT(wl_usb_find(&u) == 0, "the USB test device");
	fd = dev_queue(0x53);
	WL_EXPECT(fd >= 0, "device watch");
	WL_EXPECT(wl_usb_stall(&u) == 0, "the device stalls the request");
	WL_EXPECT(expect_usb(fd, "stalled control", NOTIFY_USB_DEVICE_ERROR, 0x53, u.name,
			     EPIPE, wl_slow_ms(WL_EVENT_TIMEOUT_MS * 4)) == 0,
		  "DEVICE_ERROR (synchronous)");
	dev = open(u.node, O_RDWR | O_CLOEXEC);
	WL_EXPECT(dev >= 0, "open %s: %s", u.node, strerror(errno));
	WL_EXPECT(ioctl(dev, USBDEVFS_SUBMITURB, &urb) == 0, "SUBMITURB: %s", strerror(errno));
	WL_EXPECT(ioctl(dev, USBDEVFS_REAPURB, &reaped) == 0 && reaped == &urb &&
		  urb.status == -EPIPE, "REAPURB: %s, status %d, want -EPIPE",
		  strerror(errno), urb.status);
	close(dev);
	WL_EXPECT(expect_usb(fd, "stalled URB", NOTIFY_USB_DEVICE_ERROR, 0x53, u.name,
			     EPIPE, wl_slow_ms(WL_EVENT_TIMEOUT_MS * 4)) == 0,
		  "DEVICE_ERROR (asynchronous)");
	wl_wq_close(fd);
	return WL_PASS;
}

/* Unbind and rebind the xHCI controller: BUS_REMOVE, BUS_ADD, the device back. */
static enum wl_result usb_bus_remove_add(void)
{
	struct usbdev u;
	int fd;

	WL_EXPECT(wl_usb_find(&u) == 0, "the USB test device");
	fd = dev_queue(0x54);
	WL_EXPECT(fd >= 0, "device watch");
	WL_EXPECT(wl_write_file(XHCI_DRIVER "/unbind", u.bus) == 0, "unbind %s", u.bus);
	WL_EXPECT(expect_usb(fd, "unbind", NOTIFY_USB_BUS_REMOVE, 0x54, u.bus, 0,
			     wl_slow_ms(WL_EVENT_TIMEOUT_MS * 4)) == 0, "BUS_REMOVE");
	WL_EXPECT(wl_write_file(XHCI_DRIVER "/bind", u.bus) == 0, "bind %s", u.bus);
	WL_EXPECT(expect_usb(fd, "bind", NOTIFY_USB_BUS_ADD, 0x54, u.bus, 0,
			     wl_slow_ms(WL_EVENT_TIMEOUT_MS * 4)) == 0, "BUS_ADD");
	WL_EXPECT(expect_usb(fd, "after bind", NOTIFY_USB_DEVICE_ADD, 0x54, u.name, 0,
			     wl_slow_ms(10000)) == 0, "the device came back");
	wl_wq_close(fd);
	return WL_PASS;
}

/* ---- the watch list itself ---- */

static int set_filter(int fd, unsigned int type, unsigned int subtype)
{
	struct {
		struct watch_notification_filter f;
		struct watch_notification_type_filter t;
	} flt = {
		.f.nr_filters = 1,
		.t = { .type = type, .subtype_filter = { 1U << subtype } },
	};

	if (ioctl(fd, IOC_WATCH_QUEUE_SET_FILTER, &flt)) {
		wl_diag("IOC_WATCH_QUEUE_SET_FILTER type %u subtype %u: %s", type, subtype,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* A queue filtered to USB resets sees the reset and not the disk error; a
 * queue filtered to block errors sees the opposite. */
static enum wl_result filters(void)
{
	struct wl_record rec;
	struct usbdev u;
	struct nullb nb;
	int fu, fb;

	WL_EXPECT(wl_usb_find(&u) == 0, "the USB test device");
	WL_EXPECT(wl_nullb_create(1, &nb) == 0, "null_blk disk with badblocks");
	fu = wl_wq_open(64);
	fb = wl_wq_open(64);
	WL_EXPECT(fu >= 0 && fb >= 0, "two queues");
	WL_EXPECT(set_filter(fu, WATCH_TYPE_USB_NOTIFY, NOTIFY_USB_DEVICE_RESET) == 0 &&
		  set_filter(fb, WATCH_TYPE_BLOCK_NOTIFY, NOTIFY_BLOCK_ERROR_IO) == 0,
		  "filters");
	WL_EXPECT(wl_watch_devices(fu, 0x61, 0) == 0 && wl_watch_devices(fb, 0x62, 0) == 0,
		  "watch_devices: %s", strerror(errno));
	WL_EXPECT(wl_nullb_read_bad(&nb) == 0, "I/O error");
	WL_EXPECT(wl_usb_reset(&u) == 0, "reset");
	WL_EXPECT(wl_wq_read(fu, &rec, wl_slow_ms(WL_EVENT_TIMEOUT_MS * 4)) == 1 &&
		  rec.type == WATCH_TYPE_USB_NOTIFY && rec.subtype == NOTIFY_USB_DEVICE_RESET,
		  "USB-reset queue: first record type %u subtype %u, want the reset",
		  rec.type, rec.subtype);
	WL_EXPECT(wl_wq_read(fb, &rec, wl_slow_ms(WL_EVENT_TIMEOUT_MS * 4)) == 1 &&
		  rec.type == WATCH_TYPE_BLOCK_NOTIFY,
		  "block queue: first record type %u subtype %u, want the block error",
		  rec.type, rec.subtype);
	WL_EXPECT(expect_nothing(fu, "the reset, on the USB-reset queue") == 0 &&
		  expect_nothing(fb, "the block error, on the block queue") == 0,
		  "filtered records got through");
	wl_wq_close(fu);
	wl_wq_close(fb);
	wl_nullb_destroy();
	return WL_PASS;
}

struct watcher_child {
	pid_t pid;
	int ready;	/* read end: one byte once the watch is set */
};

/* Fork a watcher as creds; it waits for the block error and exits 0 if it came. */
static int watcher_start(const struct wl_creds *creds, const struct nullb *nb,
			 unsigned int watch_id, struct watcher_child *w)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC)) {
		wl_diag("pipe2: %s", strerror(errno));
		return -1;
	}
	w->pid = fork();
	if (w->pid < 0) {
		wl_diag("fork: %s", strerror(errno));
		return -1;
	}
	if (w->pid == 0) {
		int fd;

		close(p[0]);
		if (wl_drop_creds(creds))
			_exit(2);
		fd = dev_queue(watch_id);
		if (fd < 0)
			_exit(3);
		if (write(p[1], "r", 1) != 1)
			_exit(4);
		_exit(expect_block_error(fd, nb, watch_id) ? 1 : 0);
	}
	close(p[1]);
	w->ready = p[0];
	return 0;
}

static int watcher_wait_ready(struct watcher_child *w, uid_t uid)
{
	char c;

	if (read(w->ready, &c, 1) != 1) {
		wl_diag("the uid %u watcher could not set its watch", uid);
		close(w->ready);
		return -1;
	}
	close(w->ready);
	return 0;
}

static int watcher_result(struct watcher_child *w, uid_t uid)
{
	int status;

	if (waitpid(w->pid, &status, 0) != w->pid) {
		wl_diag("waitpid: %s", strerror(errno));
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		wl_diag("the uid %u watcher did not get the block error (status %#x)", uid,
			status);
		return -1;
	}
	return 0;
}

/*
 * Several queues at once: two of root's in this process, plus watchers
 * running as uid 1000 and as uid 0 in their own processes; with no policy
 * loaded (model none) every one gets the disk error under its own watch ID.
 */
static enum wl_result several_queues(void)
{
	const struct wl_creds creds[2] = { wl_user(1000), wl_user(0) };
	struct watcher_child w[2];
	struct nullb nb;
	int q1, q2, bad = 0;

	WL_EXPECT(wl_nullb_create(1, &nb) == 0, "null_blk disk with badblocks");
	q1 = dev_queue(0x71);
	q2 = dev_queue(0x72);
	WL_EXPECT(q1 >= 0 && q2 >= 0, "two device watches");
	for (int i = 0; i < 2; i++)
		WL_EXPECT(watcher_start(&creds[i], &nb, 0x73 + i, &w[i]) == 0 &&
			  watcher_wait_ready(&w[i], creds[i].uid) == 0,
			  "watcher as uid %u", creds[i].uid);
	WL_EXPECT(wl_nullb_read_bad(&nb) == 0, "I/O error");
	if (expect_block_error(q1, &nb, 0x71) || expect_block_error(q2, &nb, 0x72))
		bad = 1;
	for (int i = 0; i < 2; i++)
		if (watcher_result(&w[i], creds[i].uid))
			bad = 1;
	wl_wq_close(q1);
	wl_wq_close(q2);
	wl_nullb_destroy();
	return bad ? WL_FAIL : WL_PASS;
}

/* watch_id -1 removes the watch: a META removal record, then nothing. */
static enum wl_result removal(void)
{
	struct wl_record rec;
	struct nullb nb;
	int fd;

	WL_EXPECT(wl_nullb_create(1, &nb) == 0, "null_blk disk with badblocks");
	fd = dev_queue(0x81);
	WL_EXPECT(fd >= 0, "device watch");
	WL_EXPECT(wl_watch_devices(fd, -1, 0) == 0, "remove: %s", strerror(errno));
	WL_EXPECT(wl_wq_read(fd, &rec, WL_EVENT_TIMEOUT_MS * 4) == 1 &&
		  rec.type == WATCH_TYPE_META &&
		  rec.subtype == WATCH_META_REMOVAL_NOTIFICATION &&
		  rec.watch_id == 0x81 && rec.len == sizeof(struct watch_notification),
		  "removal record: type %u subtype %u watch %#x len %u, want META removal 0x81 len %zu",
		  rec.type, rec.subtype, rec.watch_id, rec.len, sizeof(struct watch_notification));
	WL_EXPECT(wl_nullb_read_bad(&nb) == 0, "I/O error");
	WL_EXPECT(expect_nothing(fd, "an I/O error on a removed watch") == 0,
		  "a removed watch still delivered");
	WL_EXPECT(wl_want_errno("remove twice", wl_watch_devices(fd, -1, 0), EBADSLT) == 0,
		  "second removal");
	wl_wq_close(fd);
	wl_nullb_destroy();
	return WL_PASS;
}

/* Every argument error, and a duplicate watch. */
static enum wl_result errors(void)
{
	int fd, file, bad = 0;

	fd = wl_wq_open(16);
	WL_EXPECT(fd >= 0, "notification pipe");
	file = open("/tmp/wldev.file", O_CREAT | O_RDWR | O_CLOEXEC, 0644);
	WL_EXPECT(file >= 0, "create: %s", strerror(errno));

	const struct {
		const char *what;
		int wfd, id;
		unsigned int flags;
		int err;
	} cases[] = {
		{ "watch_fd not open", 9999, 1, 0, EINVAL },
		{ "watch_fd -1", -1, 1, 0, EINVAL },
		{ "watch_fd a regular file", file, 1, 0, EINVAL },
		{ "watch_id 256", fd, 256, 0, EINVAL },
		{ "watch_id -2", fd, -2, 0, EINVAL },
		{ "flags 1", fd, 1, 1, EINVAL },
		{ "flags 0x80000000", fd, 1, 0x80000000u, EINVAL },
		{ "remove without a watch", fd, -1, 0, EBADSLT },
	};

	for (size_t i = 0; i < WL_ARRAY_SIZE(cases); i++)
		if (wl_want_errno(cases[i].what,
			       wl_watch_devices(cases[i].wfd, cases[i].id, cases[i].flags),
			       cases[i].err))
			bad = 1;
	WL_EXPECT(wl_watch_devices(fd, 0x91, 0) == 0, "watch: %s", strerror(errno));
	if (wl_want_errno("duplicate, same watch_id", wl_watch_devices(fd, 0x91, 0), EBUSY) ||
	    wl_want_errno("duplicate, other watch_id", wl_watch_devices(fd, 0x92, 0), EBUSY))
		bad = 1;
	WL_EXPECT(wl_watch_devices(fd, -1, 0) == 0, "remove: %s", strerror(errno));
	/* The largest watch_id, 0xff, is a watch_id (256 is not, above). */
	WL_EXPECT(wl_watch_devices(fd, 0xff, 0) == 0, "watch again after removal, id 0xff: %s",
		  strerror(errno));
	close(file);
	unlink("/tmp/wldev.file");
	wl_wq_close(fd);
	return bad ? WL_FAIL : WL_PASS;
}

static const struct wl_test tests[] = {
	{ "errors", errors },
	{ "block_error_in_task", block_error_in_task },
	{ "block_error_in_hardirq", block_error_in_hardirq },
	{ "usb_device_remove_add", usb_device_remove_add },
	{ "usb_device_reset", usb_device_reset },
	{ "usb_device_error", usb_device_error },
	{ "usb_bus_remove_add", usb_bus_remove_add },
	{ "filters", filters },
	{ "several_queues", several_queues },
	{ "removal", removal },
};

WL_SUITE(suite_devices, tests);
