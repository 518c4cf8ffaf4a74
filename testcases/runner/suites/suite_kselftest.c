// SPDX-License-Identifier: GPL-2.0
/*
 * suite_kselftest.c - the kernel's own watch_queue kselftest
 * (tools/testing/selftests/watch_queue/, kernel-patches 0012 and 0021),
 * built from the patched tree and packed as /bin/watch_queue_test; each of
 * its results is one test of this suite (lib/ksft.h).
 *
 * Its skips: ring_protocol and ring_bad_tail test the ring alone, and skip
 * in the pipe variant, in every boot.  The rest skip only where the boot
 * lacks what they need (tmpfs quotas, null_blk, a USB device with a usbfs
 * node, root): images/lab.config and harness/qemu-machine.sh give every
 * boot all of them, so such a skip is past the budget and fails.
 */
#include "ksft.h"

WL_KSFT_SUITE(suite_kselftest, "watch_queue_test", .skip_budget = 2);
