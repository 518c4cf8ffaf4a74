/* SPDX-License-Identifier: GPL-2.0 */
/*
 * request_key.h - wlrun as /sbin/request-key, the upcall the kernel runs to
 * construct a key, so the "instantiate" key scenarios can watch a key under
 * construction before the upcall instantiates it.
 */
#ifndef WL_REQUEST_KEY_H
#define WL_REQUEST_KEY_H

/* The upcall reports the key id into ID_FIFO, then waits for GO_FIFO. */
#define WL_UPCALL_ID_FIFO "/tmp/wls/upcall.id"
#define WL_UPCALL_GO_FIFO "/tmp/wls/upcall.go"
/* Why the upcall gave up, for the runner's diagnostics (it has no stdout). */
#define WL_UPCALL_LOG "/tmp/wls/upcall.log"

/*
 * wlrun run as request-key ("create KEY UID GID TRING PRING SRING") is the
 * upcall of request_key.c, registered with the entry point.
 */
#endif /* WL_REQUEST_KEY_H */
