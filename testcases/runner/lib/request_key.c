// SPDX-License-Identifier: GPL-2.0
/*
 * request_key.c - the kernel's request-key upcall for the "instantiate"
 * scenarios.  The kernel runs it (as root, from a kernel thread) while the
 * requester blocks in request_key(); it tells the scenario runner which key
 * is under construction, waits until the watcher watches it, then assumes
 * authority and instantiates it: that posts NOTIFY_KEY_INSTANTIATED with the
 * upcall's creds.  Outside a scenario (no FIFOs) it rejects the request.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <keyutils.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "request_key.h"
#include "wl.h"

/* The upcall has no stdout: say why it gave up where the runner looks. */
static int give_up(key_serial_t key, const char *what)
{
	int err = errno;
	int fd = open(WL_UPCALL_LOG, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

	if (fd >= 0) {
		dprintf(fd, "request-key upcall: %s: %s\n", what, strerror(err));
		close(fd);
	}
	if (key > 0)
		keyctl_negate(key, 1, 0);
	return 1;
}

static int request_key_upcall(int argc, char **argv)
{
	key_serial_t key;
	char buf[16];
	int fd, n;

	if (argc < 3 || strcmp(argv[1], "create") != 0)
		return 1;
	key = atoi(argv[2]);
	if (keyctl_assume_authority(key) < 0)	/* success: the old authority */
		return give_up(0, "assume authority");
	fd = open(WL_UPCALL_ID_FIFO, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return give_up(key, WL_UPCALL_ID_FIFO);
	n = snprintf(buf, sizeof(buf), "%d\n", key);
	if (write(fd, buf, n) != n) {
		close(fd);
		return give_up(key, "write the key id");
	}
	close(fd);
	/* Blocks until the runner opens the other end: the watch is in place. */
	fd = open(WL_UPCALL_GO_FIFO, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, buf, 1) != 1)
		return give_up(key, WL_UPCALL_GO_FIFO);
	close(fd);
	if (keyctl_instantiate(key, "instantiated", 12, 0))
		return give_up(key, "instantiate");
	return 0;
}

/* The kernel runs /sbin/request-key, a link to wlrun. */
WL_REGISTER(register_request_key)
{
	wl_register_program("request-key", request_key_upcall);
}
