// SPDX-License-Identifier: GPL-2.0
/*
 * wl-selinux-load - load watchlab's SELinux policy at boot and enforce it.
 *
 * usage: wl-selinux-load POLICY
 *
 * The guest init runs it in the selinux profile, before the runner: it
 * mounts selinuxfs, loads POLICY (the binary harness/selinux-policy.sh
 * compiled for this kernel) through libselinux and switches to enforcing.
 * The caller keeps its domain: the kernel's initial SID, which the policy
 * maps to wl_init_t.  Any failure is reported and ends with exit status 1;
 * the runner's labels suite then fails too, since nothing is enforced.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <selinux/selinux.h>

#define SELINUXFS "/sys/fs/selinux"

static int mount_selinuxfs(void)
{
	if (mount("selinuxfs", SELINUXFS, "selinuxfs", MS_NOSUID | MS_NOEXEC, NULL) &&
	    errno != EBUSY) {
		fprintf(stderr, "wl-selinux-load: mount selinuxfs on %s: %s\n",
			SELINUXFS, strerror(errno));
		return -1;
	}
	set_selinuxmnt(SELINUXFS);
	return 0;
}

static int load_policy_file(const char *path)
{
	struct stat st;
	void *data;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "wl-selinux-load: open %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || st.st_size == 0) {
		fprintf(stderr, "wl-selinux-load: %s: %s\n", path,
			st.st_size ? strerror(errno) : "empty file");
		close(fd);
		return -1;
	}
	data = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (data == MAP_FAILED) {
		fprintf(stderr, "wl-selinux-load: mmap %s: %s\n", path, strerror(errno));
		return -1;
	}
	rc = security_load_policy(data, st.st_size);
	if (rc)
		fprintf(stderr, "wl-selinux-load: load %s (%lld bytes): %s\n", path,
			(long long)st.st_size, strerror(errno));
	munmap(data, st.st_size);
	return rc ? -1 : 0;
}

static int enforce(void)
{
	if (security_setenforce(1)) {
		fprintf(stderr, "wl-selinux-load: setenforce 1: %s\n", strerror(errno));
		return -1;
	}
	if (security_getenforce() != 1) {
		fprintf(stderr, "wl-selinux-load: enforcing reads back as %d\n",
			security_getenforce());
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: wl-selinux-load POLICY\n");
		return 2;
	}
	if (mount_selinuxfs() || load_policy_file(argv[1]) || enforce())
		return 1;
	return 0;
}
