// SPDX-License-Identifier: GPL-2.0
/*
 * suite_mount_notify.c - the kselftest of fanotify mount-namespace marks
 * (tools/testing/selftests/filesystems/mount-notify/, kernel-patches 0033),
 * built from the patched tree and packed as /bin/mount-notify_test; each of
 * its results is one test of this suite (lib/ksft.h).  It is the ported
 * feature's own test, beside suite_mainline, which tests the rules the
 * scenario engine's mainline column relies on.
 */
#include "ksft.h"

WL_KSFT_SUITE(suite_mount_notify, "mount-notify_test");
