/* SPDX-License-Identifier: GPL-2.0 */
/* fdpass.h - pass a file descriptor over a unix socket (SCM_RIGHTS). */
#ifndef WL_FDPASS_H
#define WL_FDPASS_H

/* Send fd with a one-byte message; 0, or -1 (diagnosed). */
int wl_send_fd(int sock, int fd);
/* Receive one fd (close-on-exec); the fd, or -1 (diagnosed). */
int wl_recv_fd(int sock);

#endif /* WL_FDPASS_H */
