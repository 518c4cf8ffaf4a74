/* SPDX-License-Identifier: GPL-2.0 */
/*
 * devices_util.h - the lab's device triggers, shared by suite_devices.c and
 * the device scenarios: watch_devices(), a null_blk disk with
 * a bad sector range (block I/O errors), and the QEMU USB keyboard on the
 * xHCI controller (port disable, hub rescan, USBDEVFS_RESET).
 */
#ifndef WL_DEVICES_UTIL_H
#define WL_DEVICES_UTIL_H

#include <limits.h>
#include <stddef.h>

#define CONFIGFS	"/sys/kernel/config"
#define NULLB_DIR	CONFIGFS "/nullb/wlbad"
#define USB_DEVICES	"/sys/bus/usb/devices"

/* The bad range of the null_blk disk, in 512-byte sectors. */
#define BAD_SECTOR	2048
#define BAD_SECTORS	8

struct nullb {
	char dev[64];		/* /dev/nullbN */
	unsigned long long rdev;
};

struct usbdev {
	char name[NAME_MAX + 1];	/* "1-1" */
	char node[64];		/* /dev/bus/usb/001/002 */
	char port[PATH_MAX];	/* its hub port's sysfs directory */
	char bus[64];		/* the controller's PCI address */
};

long wl_watch_devices(int fd, int watch_id, unsigned int flags);
/* Read the first line of a sysfs/configfs attribute; 0, or -1 diagnosed. */
int wl_dev_read(const char *path, char *buf, size_t len);
/* A null_blk disk (irqmode 0: completion in the task) failing BAD_SECTOR... */
int wl_nullb_create(unsigned int irqmode, struct nullb *nb);
/*
 * The same, with more configfs attributes written before it powers on:
 * attrs holds name, value pairs and ends with NULL.
 */
int wl_nullb_create_with(unsigned int irqmode, const char *const *attrs, struct nullb *nb);
void wl_nullb_destroy(void);
/* One O_DIRECT read of the bad range, which must fail with EIO. */
int wl_nullb_read_bad(const struct nullb *nb);
/*
 * The first USB device: its name, node, hub port and controller, once it
 * is whole (a re-enumeration may still be under way).
 */
int wl_usb_find(struct usbdev *u);
int wl_usb_port_disable(const struct usbdev *u, const char *val);
int wl_usb_reset(const struct usbdev *u);
/* Unbind and bind the port's hub: hub_wq rescans it. */
int wl_usb_hub_rebind(const struct usbdev *u);
/* A vendor control request the keyboard stalls: EPIPE, DEVICE_ERROR. */
int wl_usb_stall(const struct usbdev *u);
/*
 * Wait up to ms for the device to be enumerated again, port link and usbfs
 * node included (hub_wq does it after a rescan or a controller bind):
 * device state, not a test result.
 */
#define WL_USB_SETTLE_MS (wl_debug_kernel() ? 60000 : 10000)
int wl_usb_wait(const struct usbdev *u, int ms);

#endif /* WL_DEVICES_UTIL_H */
