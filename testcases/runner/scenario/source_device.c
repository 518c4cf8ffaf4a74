// SPDX-License-Identifier: GPL-2.0
/*
 * source_device.c - device scenarios, watched on the global device list: a
 * null_blk disk anyone may read (block), or the QEMU USB keyboard with a
 * node anyone may open (usb), put in the state the action starts from and
 * left enumerated whatever the action did to it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "devices_util.h"
#include "scenario_run.h"
#include "scenario_source.h"
#include "wl.h"

#define XHCI_DRIVER "/sys/bus/pci/drivers/xhci_hcd"

static long devices_watch(struct scn_ctx *c, int qfd, int watch_id)
{
	(void)c;
	return wl_watch_devices(qfd, watch_id, 0);
}

static int block_setup(struct scn_ctx *c)
{
	return wl_nullb_create(0, &c->nb) || chmod(c->nb.dev, 0666) ? -1 : 0;
}

static void block_teardown(struct scn_ctx *c)
{
	(void)c;
	wl_nullb_destroy();
}

const struct scn_source_ops scn_block_source = {
	.setup = block_setup,
	.watch = devices_watch,
	.teardown = block_teardown,
};

static int usb_setup(struct scn_ctx *c)
{
	if (wl_usb_find(&c->usb) || chmod(c->usb.node, 0666)) {
		wl_diag("the USB test device: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void usb_teardown(struct scn_ctx *c)
{
	if (c->usb.name[0])
		wl_usb_wait(&c->usb, WL_USB_SETTLE_MS);
}

const struct scn_source_ops scn_usb_source = {
	.setup = usb_setup,
	.watch = devices_watch,
	.teardown = usb_teardown,
};

/* ---- actions ---- */

int scn_block_read_bad(struct scn_ctx *c)
{
	return wl_nullb_read_bad(&c->nb);
}

/*
 * read-bad-sector-hardirq: the disk again, completing from an hrtimer
 * (null_blk irqmode 2), so the error is raised in hard interrupt context
 * and the device list defers its post to a worker.
 */
int scn_block_hardirq_prepare(struct scn_ctx *c)
{
	wl_nullb_destroy();
	return wl_nullb_create(2, &c->nb) || chmod(c->nb.dev, 0666) ? -1 : 0;
}

int scn_usb_port_disable(struct scn_ctx *c)
{
	return wl_usb_port_disable(&c->usb, "1");
}

int scn_usb_port_enable(struct scn_ctx *c)
{
	return wl_usb_port_disable(&c->usb, "0") || wl_usb_hub_rebind(&c->usb) ? -1 : 0;
}

/* Enable the port and rescan, whatever state it was left in. */
void scn_usb_port_restore(struct scn_ctx *c)
{
	if (!c->usb.name[0])
		return;
	wl_usb_port_disable(&c->usb, "0");
	wl_usb_hub_rebind(&c->usb);
}

int scn_usb_reset(struct scn_ctx *c)
{
	return wl_usb_reset(&c->usb);
}

int scn_usb_stall(struct scn_ctx *c)
{
	return wl_usb_stall(&c->usb);
}

int scn_usb_bus_unbind(struct scn_ctx *c)
{
	return wl_write_file(XHCI_DRIVER "/unbind", c->usb.bus);
}

int scn_usb_bus_bind(struct scn_ctx *c)
{
	return wl_write_file(XHCI_DRIVER "/bind", c->usb.bus);
}

void scn_usb_bus_restore(struct scn_ctx *c)
{
	if (c->usb.name[0])
		scn_usb_bus_bind(c);
}
