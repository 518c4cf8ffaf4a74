// SPDX-License-Identifier: GPL-2.0
/*
 * suite_kselftest.c - the kernel's own watch_queue kselftest
 * (tools/testing/selftests/watch_queue/, kernel-patches 0012 and 0021),
 * built from the patched tree and packed as /bin/watch_queue_test; each of
 * its results is one test of this suite (lib/ksft.h).
 */
#include "ksft.h"

WL_KSFT_SUITE(suite_kselftest, "watch_queue_test");
