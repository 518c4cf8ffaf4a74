/* SPDX-License-Identifier: GPL-2.0 */
/* fdpass.h - pass a file descriptor over a unix socket (SCM_RIGHTS). */
#ifndef WL_FDPASS_H
#define WL_FDPASS_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Send len bytes of data with fd attached (fd < 0: none); 0, or -1 with
 * errno set.  Receive up to len bytes and the fd attached, close-on-exec
 * (*fd = -1 if none); recvmsg()'s return.
 */
int wl_sendmsg_fd(int sock, const void *data, size_t len, int fd);
ssize_t wl_recvmsg_fd(int sock, void *data, size_t len, int *fd);

/* Send fd with a one-byte message; 0, or -1 (diagnosed). */
int wl_send_fd(int sock, int fd);
/* Receive one fd (close-on-exec); the fd, or -1 (diagnosed). */
int wl_recv_fd(int sock);

#endif /* WL_FDPASS_H */
