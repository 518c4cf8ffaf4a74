// SPDX-License-Identifier: GPL-2.0
/* fdpass.c - pass a file descriptor over a unix socket (SCM_RIGHTS). */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "fdpass.h"
#include "wl.h"

/* Room for one SCM_RIGHTS fd, aligned as a cmsghdr. */
union fd_cmsg {
	struct cmsghdr h;
	char buf[CMSG_SPACE(sizeof(int))];
};

int wl_sendmsg_fd(int sock, const void *data, size_t len, int fd)
{
	struct iovec iov = { .iov_base = (void *)data, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	union fd_cmsg u;

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		msg.msg_control = u.buf;
		msg.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

ssize_t wl_recvmsg_fd(int sock, void *data, size_t len, int *fd)
{
	struct iovec iov = { .iov_base = data, .iov_len = len };
	union fd_cmsg u;
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c;
	ssize_t n;

	*fd = -1;
	n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	c = n >= 0 ? CMSG_FIRSTHDR(&msg) : NULL;
	if (c && c->cmsg_type == SCM_RIGHTS)
		memcpy(fd, CMSG_DATA(c), sizeof(int));
	return n;
}

int wl_send_fd(int sock, int fd)
{
	if (wl_sendmsg_fd(sock, "F", 1, fd)) {
		wl_diag("sendmsg(SCM_RIGHTS): %s", strerror(errno));
		return -1;
	}
	return 0;
}

int wl_recv_fd(int sock)
{
	char data;
	int fd;

	if (wl_recvmsg_fd(sock, &data, 1, &fd) != 1) {
		wl_diag("recvmsg: %s", strerror(errno));
		return -1;
	}
	if (fd < 0)
		wl_diag("recvmsg: no SCM_RIGHTS");
	return fd;
}
