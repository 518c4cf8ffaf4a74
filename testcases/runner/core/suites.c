// SPDX-License-Identifier: GPL-2.0
/* suites.c - every suite the runner knows, in the order they run. */
#include "suites.h"

extern const struct wl_suite suite_boot;
extern const struct wl_suite suite_labels;
extern const struct wl_suite suite_labels_selinux;
extern const struct wl_suite suite_labels_smack;
extern const struct wl_suite suite_keys;
extern const struct wl_suite suite_kselftest;
extern const struct wl_suite suite_scenarios;
extern const struct wl_suite suite_ring;
extern const struct wl_suite suite_ring_limits;
extern const struct wl_suite suite_mount;
extern const struct wl_suite suite_mount_ring;
extern const struct wl_suite suite_mount_race;
extern const struct wl_suite suite_sb;
extern const struct wl_suite suite_sb_ring;
extern const struct wl_suite suite_sb_quota;
extern const struct wl_suite suite_sb_ext4;
extern const struct wl_suite suite_fput;
extern const struct wl_suite suite_fput_smack;
extern const struct wl_suite suite_devices;
extern const struct wl_suite suite_devices_loss;
extern const struct wl_suite suite_watchpol;
extern const struct wl_suite suite_watchpol_stress;
extern const struct wl_suite suite_watchpol_bench;
extern const struct wl_suite suite_watchpol_lock;
extern const struct wl_suite suite_soak;
extern const struct wl_suite suite_kmemleak;

const struct wl_suite *const wl_suites[] = {
	&suite_boot,
	&suite_labels,
	&suite_labels_selinux,
	&suite_labels_smack,
	&suite_keys,
	&suite_kselftest,
	&suite_scenarios,
	&suite_ring,
	&suite_ring_limits,
	&suite_mount,
	&suite_mount_ring,
	&suite_mount_race,
	&suite_sb,
	&suite_sb_ring,
	&suite_sb_quota,
	&suite_sb_ext4,
	&suite_fput,
	&suite_fput_smack,
	&suite_devices,
	&suite_devices_loss,
	&suite_watchpol,
	&suite_watchpol_stress,
	&suite_watchpol_bench,
	/* Locks the policy until reboot: after every suite that loads one. */
	&suite_watchpol_lock,
	&suite_soak,
	/* Last: it checks what everything before it leaked. */
	&suite_kmemleak,
};

const size_t wl_nsuites = WL_ARRAY_SIZE(wl_suites);
