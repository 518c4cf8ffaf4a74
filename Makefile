# watchlab - build the patched 6.12 kernel and a busybox initramfs, boot them
# under QEMU per profile, run every scenario and test, and report KTAP, JUnit
# and the policy comparison matrix.  `make help` lists the targets.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

TOP := $(CURDIR)

# The packages come first, by construction: the top-level make runs
# $(DEPS) while it reads this file, before any rule can start, and stops
# if it fails.  Rules then never race the install, whatever -j says.  Only
# help, clean and distclean need no packages.
DEPS ?= harness/deps.sh
NO_DEPS_GOALS := help clean distclean
ifeq ($(MAKELEVEL),0)
ifneq ($(filter-out $(NO_DEPS_GOALS),$(or $(MAKECMDGOALS),$(.DEFAULT_GOAL))),)
DEPS_STATUS := $(shell $(DEPS) >&2 && echo 0 || echo $$?)
ifneq ($(DEPS_STATUS),0)
$(error watchlab: $(DEPS) failed (exit $(DEPS_STATUS)); nothing was built)
endif
endif
endif
B := $(TOP)/build
R := $(TOP)/results/latest
export BUILD := $(B)

# Boot profiles: name and lsm= list, from images/profiles.
PROFILES := $(shell sed -e 's/\#.*//' -e '/^[[:space:]]*$$/d' images/profiles | cut -d' ' -f1)
PROFILE ?= plain
# The debug kernel (KASAN, lockdep, kmemleak) boots the plain profile in
# `make test`, every suite, and the smack profile, the suites where Smack's
# hooks, the series' Smack patches and audit run (the scenarios under none
# and closed: testcases/runner/core/run.c, model_runs()).
DEBUG_PROFILE := plain
LABELLED_DEBUG_PROFILE := smack
LABELLED_DEBUG_SUITES := suite_boot,suite_labels_smack,suite_native_smack,suite_recheck_smack,suite_smack_imports,suite_fput_smack,suite_scenarios,suite_properties,suite_kmemleak
KVM ?= 0
# A lab boot takes 150-230 s on two idle cores and came within a minute of
# 300 s beside other boots: the limit only ends a hung boot, so give it room.
BOOT_TIMEOUT ?= 600
DEBUG_BOOT_TIMEOUT ?= 1800
export KVM

# Bring your own LSM: a folder of `git format-patch` patches applied after
# the series (harness/kernel-tree.sh), an optional Kconfig fragment in it
# (config), and the LSM's name, booted after watchpol in a profile of its
# own (byo-NAME) and compared with every column (make compare).  Without
# them the lab brings the shipped example, whose expected comparison
# (expected-comparison.txt in its folder) make test checks.
LSM_PATCHES ?= examples/lsm-uidpost
LSM ?= uidpost
# Whether the caller named them (make compare must), before the override.
BYO_GIVEN := $(filter command environment,$(origin LSM_PATCHES)) $(filter command environment,$(origin LSM))
override LSM_PATCHES := $(abspath $(LSM_PATCHES))
export LSM_PATCHES LSM
LSM_CONFIG := $(wildcard $(LSM_PATCHES)/config)
LSM_ANSWER := $(wildcard $(LSM_PATCHES)/expected-comparison.txt)
ifneq ($(shell echo '$(LSM)' | grep -xE '[a-z][a-z0-9_]{0,30}'),$(LSM))
$(error watchlab: LSM=$(LSM) is not an LSM name (lower-case letters, digits, _))
endif

LAB_OBJ := $(B)/kbuild-lab
DEBUG_OBJ := $(B)/kbuild-debug
LAB_IMAGE := $(LAB_OBJ)/arch/x86/boot/bzImage
DEBUG_IMAGE := $(DEBUG_OBJ)/arch/x86/boot/bzImage
TREE_KEY := $(B)/linux.patches-key
comma := ,
empty :=
space := $(empty) $(empty)
UAPI := $(B)/uapi
GUEST := $(B)/guest
INITRD := $(B)/initramfs.cpio

# The runner's layers, lowest first: core (running suites, KTAP, registry),
# lib (helpers), scenario (the data-driven engine), cmd (the workbench
# commands of make shell, /bin/wl), suites (the tests); the entry point,
# testcases/runner/main.c, above them.  A file calls only into its own layer
# or lower ones, in no circle (harness/runner_layers.py, host suite runner).
RUNNER_LAYERS := core lib scenario cmd suites
RUNNER_SRC := testcases/runner/main.c \
	$(foreach l,$(RUNNER_LAYERS),$(wildcard testcases/runner/$(l)/*.c))
RUNNER_HDR := $(foreach l,$(RUNNER_LAYERS),$(wildcard testcases/runner/$(l)/*.h))
# The profile and model lists, generated from images/profiles and
# policy/watchpol/models (harness/report.py reads the same two files).
LISTS_H := $(GUEST)/gen/wl_lists.h
RUNNER_INC := $(foreach l,$(RUNNER_LAYERS),-Itestcases/runner/$(l)) -I$(dir $(LISTS_H))
POLICY_FILES := $(shell find policy -type f 2>/dev/null)
SCENARIO_FILES := $(wildcard testcases/scenarios/*.scn)
WALKTHROUGH_FILES := $(wildcard testcases/walkthrough/*)
GUEST_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror -static -I$(UAPI)/include
GUEST_LIBS := -lkeyutils -lselinux -lpcre2-8
# libselinux's security_load_policy() lives beside selinux_mkload_policy(),
# which needs libsepol.
LOADER_LIBS := -lselinux -lsepol -lpcre2-8
SEPOLICY := $(B)/selinux/policy.bin
SEPOLICY_NO_SPARE := $(B)/selinux/policy-no-spare.bin
# The SELinux policies in the initramfs (suite_early loads the second).
SEPOLICY_FILES := /etc/watchlab/selinux/policy.bin=$(SEPOLICY) \
	/etc/watchlab/selinux/policy-no-spare.bin=$(SEPOLICY_NO_SPARE)

.PHONY: help lab test compare deps tree FORCE kernel kernel-debug guest boot-lab boot-test \
	host-tests mutant-check mutants report report-lab report-test results-dir shell shell-tty matrix \
	lava-jobs lava-check lava-lab \
	kernel-artifacts clean distclean

help:
	@echo "watchlab targets:"
	@echo "  make lab        build the lab kernel and initramfs, boot every profile ($(PROFILES)),"
	@echo "                  run every scenario and print the comparison matrix"
	@echo "  make test       everything 'lab' does, plus the debug kernel (KASAN, lockdep,"
	@echo "                  kmemleak), the host-side suites, one mutant and one boot through"
	@echo "                  LAVA's lava-run; ends with 'N passed, N failed'"
	@echo "  make shell PROFILE=plain|selinux|smack"
	@echo "                  boot the lab kernel to an interactive busybox shell"
	@echo "  make bench      the posting benchmark: boot no LSM, watchpol, Smack and both,"
	@echo "                  print the per-event cost of 1 and 8 queues side by side, in guest"
	@echo "                  instructions (QEMU -icount); BENCH_CLOCK=wall: TCG wall-clock ns"
	@echo "  make bench-scale"
	@echo "                  the mount-table scale benchmark: a watcher's cost to learn one mount"
	@echo "                  change (watch_mount, fanotify, mountinfo, listmount) and the mounter's,"
	@echo "                  N = 10 to 10000 mounts, under icount; tables and plots in"
	@echo "                  results/bench-scale/ (docs/bench-scale.md; not part of make test)"
	@echo "  make compare LSM_PATCHES=DIR LSM=NAME"
	@echo "                  bring your own LSM: DIR's git format-patch files (and its optional"
	@echo "                  Kconfig fragment DIR/config) go into the lab kernel, NAME boots after"
	@echo "                  watchpol and runs every scenario; prints which column it behaves like"
	@echo "  make matrix     copy results/latest/matrix.md into SECURITY.md"
	@echo "  make mutants    build and boot the lab once per mutant of testcases/mutants/ (a"
	@echo "                  deliberately broken kernel, LSM or lab) and print the mutation"
	@echo "                  score: how many make test's checks catch (not part of make test)"
	@echo "  make mutants-sample N=10 SEED=1"
	@echo "                  draw N generated mutants (coccinelle's operators on the covered"
	@echo "                  lines of the series and watchpol) and judge them as make mutants"
	@echo "  make coverage   make test's boots on a gcov kernel (build/kbuild-cov, profiling the"
	@echo "                  objects the series touches and watchpol): lcov's HTML, each file's"
	@echo "                  and each patch's coverage in results/coverage/, each unexecuted line"
	@echo "                  with its answer (testcases/coverage-answers) (not part of make test)"
	@echo "  make series-check"
	@echo "                  git am the patch series onto pristine 6.12, build it patch by patch"
	@echo "                  and run checkpatch --strict on every patch, then sparse, W=1,"
	@echo "                  coccicheck and kernel-doc on what it touches (not part of make test)"
	@echo "  make series-export AUTHOR='Full Name <address>'"
	@echo "                  the series as it would be mailed upstream: AUTHOR's From: and"
	@echo "                  Signed-off-by, watchpol's sources in its patch, a cover letter"
	@echo "  make test BOOTS=\"PART...\"  (or make lab BOOTS=...)"
	@echo "                  a shard: only those boots (by log name) and host parts of"
	@echo "                  $(TEST_PARTS)"
	@echo "  make report RESULTS=\"DIR...\""
	@echo "                  merge the shards' results folders into results/latest and judge"
	@echo "                  them as one whole make test (fails on a missing, doubled or"
	@echo "                  foreign shard, one SUITES reduced, and one with replayed boots"
	@echo "                  unless ALLOW_REPLAY=1)"
	@echo "  make kernel-artifacts [ARTIFACTS=DIR]"
	@echo "                  both kernels, saved for shards elsewhere: make test KERNELS=DIR"
	@echo "                  takes them instead of compiling (default DIR build/kernel-artifacts)"
	@echo "  make lava-jobs [LAVA_ARTIFACTS=URL]"
	@echo "                  every boot of make test as a LAVA job definition, in results/lava/"
	@echo "                  (make test runs the selinux-early one through lava-run and a LAVA server)"
	@echo "  make lava-lab [LAVA_LAB_BOOTS=\"BOOT...\"]"
	@echo "                  start a LAVA server, scheduler and worker on this machine (Debian's"
	@echo "                  lava-server), boot LAVA_LAB_BOOTS (default $(LAVA_LAB_BOOTS)) here and"
	@echo "                  through it with lavacli, compare the results, stop it (docs/lava.md)"
	@echo "  make kernel     build only the lab kernel (kernel-debug: the debug kernel)"
	@echo "  make guest      build only the initramfs"
	@echo "  make clean      remove results and guest programs (keeps the kernel builds)"
	@echo "  make distclean  remove build/ and results/"
	@echo "variables: KVM=1 (use KVM instead of TCG), BOOT_TIMEOUT=$(BOOT_TIMEOUT) s,"
	@echo "           FRESH=1 (boot again even where a passing boot of the same kernel,"
	@echo "           initramfs and command line could be replayed from build/boot-cache),"
	@echo "           BOOT_JOBS=N (boots at once; default one per core),"
	@echo "           STEPS=N (lab and test run N build steps at once; default 2)"
	@echo "more: README.md, then docs/ (a file per task) and SECURITY.md"

# `make deps` alone: the install already ran while make read this file.
deps:
	@:

# The patched tree: cheap to re-run, it only acts on a changed package or
# patch, and rewrites $(TREE_KEY) only then, so what depends on it rebuilds
# only then.
tree: $(TREE_KEY)

$(TREE_KEY): FORCE
	@harness/kernel-tree.sh

FORCE:

$(LAB_OBJ)/.config: images/lab.config $(LSM_CONFIG) $(TREE_KEY) $(wildcard lsm/Kconfig)
	@harness/kernel-config.sh $(LAB_OBJ) images/lab.config $(LSM_CONFIG)

$(DEBUG_OBJ)/.config: images/lab.config images/debug.config $(TREE_KEY) $(wildcard lsm/Kconfig)
	@harness/kernel-config.sh $(DEBUG_OBJ) images/lab.config images/debug.config

# KERNELS=DIR: take the kernels make kernel-artifacts saved on another
# machine instead of compiling them (harness/kernel-artifacts.sh).
KERNELS ?=
kernel_build = $(if $(KERNELS),harness/kernel-artifacts.sh take $(abspath $(KERNELS)),harness/kernel-build.sh)

kernel: tree $(LAB_OBJ)/.config
	@$(kernel_build) $(LAB_OBJ)

# Under `make test` the debug kernel builds after the lab kernel: side by
# side (four compile jobs on two cores) the pair took 20 s longer.
kernel-debug: tree $(DEBUG_OBJ)/.config | $(if $(filter report-test,$(MAKECMDGOALS)),kernel)
	@$(kernel_build) $(DEBUG_OBJ)

# Both kernels, saved for shards on other machines (make test KERNELS=DIR).
ARTIFACTS ?= $(B)/kernel-artifacts
kernel-artifacts: kernel kernel-debug
	@harness/kernel-artifacts.sh save $(abspath $(ARTIFACTS)) $(LAB_OBJ) $(DEBUG_OBJ)

# User space sees the patched UAPI (new watch types, syscall numbers).
# This and $(SEPOLICY) use the lab kernel's build directory, so they wait
# for its build (order only: the phony `kernel` leaves them up to date).
$(UAPI)/.stamp: $(TREE_KEY) $(LAB_OBJ)/.config | kernel
	@echo "watchlab: installing the patched UAPI headers"
	@$(MAKE) -s -C $(B)/linux O=$(LAB_OBJ) INSTALL_HDR_PATH=$(UAPI) headers_install
	@touch $@

$(LISTS_H): images/profiles policy/watchpol/models harness/wl-lists.sh
	@harness/wl-lists.sh $@

$(GUEST)/wlrun: $(RUNNER_SRC) $(RUNNER_HDR) $(LISTS_H) $(UAPI)/.stamp
	@mkdir -p $(GUEST)
	@echo "watchlab: building the in-guest runner"
	@gcc $(GUEST_CFLAGS) $(RUNNER_INC) -o $@ $(RUNNER_SRC) $(GUEST_LIBS)

# The kernel's watch_queue kselftest (kernel-patches 0012), from the patched
# tree; the runner's suite_kselftest runs it in every boot.
KSELFTEST := $(GUEST)/watch_queue_test
$(KSELFTEST): $(TREE_KEY) $(UAPI)/.stamp
	@mkdir -p $(GUEST)
	@echo "watchlab: building the watch_queue kselftest"
	@gcc -std=gnu11 -O2 -Wall -static -fmacro-prefix-map=$(B)/linux/= -isystem $(UAPI)/include -o $@ \
		$(B)/linux/tools/testing/selftests/watch_queue/watch_queue_test.c

# The kselftest of fanotify mount-namespace marks (kernel-patches 0033),
# from the patched tree; the runner's suite_mount_notify runs it in every boot.
MOUNT_NOTIFY_TEST := $(GUEST)/mount-notify_test
$(MOUNT_NOTIFY_TEST): $(TREE_KEY) $(UAPI)/.stamp
	@mkdir -p $(GUEST)
	@echo "watchlab: building the mount-notify kselftest"
	@gcc -std=gnu11 -O2 -Wall -Werror -static -pthread -fmacro-prefix-map=$(B)/linux/= \
		-isystem $(UAPI)/include -o $@ \
		$(B)/linux/tools/testing/selftests/filesystems/mount-notify/mount-notify_test.c

# The kernel's sample program (samples/watch_queue/watch_test.c, extended by
# kernel-patches 0023), from the patched tree; suite_sample runs it in every
# boot and checks what it prints.
SAMPLE := $(GUEST)/watch_test
$(SAMPLE): $(TREE_KEY) $(UAPI)/.stamp
	@mkdir -p $(GUEST)
	@echo "watchlab: building the watch_queue sample"
	@gcc -std=gnu11 -O2 -Wall -Wextra -Werror -static -isystem $(UAPI)/include -o $@ \
		$(B)/linux/samples/watch_queue/watch_test.c

# The SELinux policy loader the guest init runs in the selinux profile.
$(GUEST)/wl-selinux-load: testcases/tools/wl-selinux-load.c
	@mkdir -p $(GUEST)
	@echo "watchlab: building the SELinux policy loader"
	@gcc $(GUEST_CFLAGS) -o $@ $< $(LOADER_LIBS)

# The SELinux policy, with the classes and permissions of the patched tree.
$(SEPOLICY): $(wildcard policy/selinux/*) harness/selinux-policy.sh $(TREE_KEY) $(LAB_OBJ)/.config | kernel
	@mkdir -p $(dir $@)
	@harness/selinux-policy.sh $(LAB_OBJ) $@

# The same without wl_spare_t.
$(SEPOLICY_NO_SPARE): $(wildcard policy/selinux/*) harness/selinux-policy.sh $(TREE_KEY) $(LAB_OBJ)/.config | kernel
	@mkdir -p $(dir $@)
	@harness/selinux-policy.sh $(LAB_OBJ) $@ wl_spare_t

$(INITRD): $(GUEST)/wlrun $(GUEST)/wl-selinux-load $(KSELFTEST) $(MOUNT_NOTIFY_TEST) $(SAMPLE) \
		$(SEPOLICY) $(SEPOLICY_NO_SPARE) images/init.sh \
		harness/initramfs.sh $(POLICY_FILES) $(SCENARIO_FILES) $(WALKTHROUGH_FILES)
	@echo "watchlab: packing the initramfs"
	@harness/initramfs.sh $@ $(SEPOLICY_FILES) \
		$(GUEST)/wlrun $(GUEST)/wl-selinux-load $(KSELFTEST) $(MOUNT_NOTIFY_TEST) $(SAMPLE)

guest: $(INITRD)

results-dir:
	@rm -rf $(R) && mkdir -p $(R)
	@harness/boot-cache.sh begin

# Boots run side by side (harness/boot-all.sh), the longest first.
LAB_BOOT_SPECS := $(foreach p,$(PROFILES),$(LAB_OBJ):$(p):$(p):$(BOOT_TIMEOUT)) \
	$(LAB_OBJ):byo:byo-$(LSM):$(BOOT_TIMEOUT)
DEBUG_BOOT_SPEC := $(DEBUG_OBJ):$(DEBUG_PROFILE):$(DEBUG_PROFILE)-debug:$(DEBUG_BOOT_TIMEOUT):debug \
	$(DEBUG_OBJ):$(LABELLED_DEBUG_PROFILE):$(LABELLED_DEBUG_PROFILE)-debug:$(DEBUG_BOOT_TIMEOUT):debug:watchlab.suites=$(LABELLED_DEBUG_SUITES)
# A short boot with an unusual start (testcases/runner/suites/suite_early.c):
# a bad watchpol.model=, a watchpol policy written before SELinux's, and
# the fput_creds= boot parameter (kernel-patches 0002), which no other boot
# gives; suite_early runs no fput test, so switching it off changes nothing
# else this boot checks.
EARLY_BOOT_SPEC := $(LAB_OBJ):selinux:selinux-early:$(BOOT_TIMEOUT)::watchpol.model=bogus+watchlab.early=1+watchlab.suites=suite_early+fput_creds=0
# A short boot on an exact clock: watchlab.clock=icount makes
# harness/run-profile.sh boot it under QEMU's -icount on one vCPU with
# QEMU's random numbers and the RTC fixed, so the guest's TSC counts its
# instructions and the same boot gives the same counts.  It runs the test
# of kernel-patches 0035 (suite_mount_scale's walk_after_last_watch: no
# rootwards walk after the last mount watch is gone), which compares two
# instruction counts.  Not a LAVA job: LAVA's qemu device has no icount.
ICOUNT_BOOT_ARGS := watchlab.clock=icount+kunit.enable=0+watchlab.suites=suite_mount_scale+watchlab.scale_part=walk
ICOUNT_BOOT_SPEC := $(LAB_OBJ):plain:plain-icount:$(BOOT_TIMEOUT)::$(ICOUNT_BOOT_ARGS)

# Shards: `make test BOOTS="..."` (or make lab) runs only the parts it
# names, boots by their log names and the host parts `host` (the host
# suites) and `mutants` (the mutant check); `make report RESULTS="DIR..."`
# merges the shards' results folders into one whole run's
# (harness/shard-merge.sh) and judges it as make test does.
spec_name = $(word 3,$(subst :, ,$(1)))
LAB_PARTS := $(foreach s,$(LAB_BOOT_SPECS) $(EARLY_BOOT_SPEC) $(ICOUNT_BOOT_SPEC),$(call spec_name,$(s)))
DEBUG_PARTS := $(foreach s,$(DEBUG_BOOT_SPEC),$(call spec_name,$(s)))
TEST_PARTS := $(DEBUG_PARTS) $(LAB_PARTS) host mutants lava
BOOTS ?=
override BOOTS := $(strip $(BOOTS))
ifneq ($(filter-out $(TEST_PARTS),$(BOOTS)),)
$(error watchlab: BOOTS names $(filter-out $(TEST_PARTS),$(BOOTS)): make test's parts are $(TEST_PARTS))
endif
# $(call pick,SPECS,N): the specs whose N-th ':' field BOOTS names; all
# without BOOTS.  Boot specs name the boot in field 3, report specs in 1.
pick = $(if $(BOOTS),$(foreach s,$(1),$(if $(filter $(word $(2),$(subst :, ,$(s))),$(BOOTS)),$(s))),$(1))
picked = $(call pick,$(1),3)
picked_report = $(call pick,$(1),1)
# $(call part,NAME,TARGET): TARGET, unless BOOTS leaves the part NAME out.
part = $(if $(BOOTS),$(if $(filter $(1),$(BOOTS)),$(2)),$(2))
LAB_PICKED := $(strip $(call picked,$(LAB_BOOT_SPECS) $(EARLY_BOOT_SPEC) $(ICOUNT_BOOT_SPEC)))
DEBUG_PICKED := $(strip $(call picked,$(DEBUG_BOOT_SPEC)))

boot-lab: kernel guest | results-dir
	@$(if $(filter-out $(LAB_PARTS),$(BOOTS)),$(error watchlab: make lab boots $(LAB_PARTS); BOOTS names $(filter-out $(LAB_PARTS),$(BOOTS))))
	@harness/boot-all.sh $(LAB_PICKED)

boot-test: kernel $(if $(DEBUG_PICKED),kernel-debug) guest | results-dir
	@harness/boot-all.sh $(DEBUG_PICKED) $(LAB_PICKED)

host-tests: tree $(UAPI)/.stamp | results-dir
	@harness/host-tests.sh >$(R)/host.ktap

LAB_BOOTS := $(foreach p,$(PROFILES),$(p):$(p):1) selinux-early:selinux:0 plain-icount:plain:0 \
	byo-$(LSM):$(LSM):byo $(if $(LSM_ANSWER),$(LSM_ANSWER):$(LSM):answer)
TEST_BOOTS := $(LAB_BOOTS) $(DEBUG_PROFILE)-debug:$(DEBUG_PROFILE):0 \
	$(LABELLED_DEBUG_PROFILE)-debug:$(LABELLED_DEBUG_PROFILE):0 host:host:ktap mutants:mutants:ktap \
	lava:lava:ktap \
	$(TOP)/SECURITY.md:security:doc

# Write the reports, print the matrix and the summary; fail on any failure.
# Only a passing report lets its boots be replayed by the next run.  A
# shard (BOOTS=...) records what it ran (shard.txt: with make lab, also
# the SUITES that reduced its boots and the boots it replayed, which make
# report refuses) and checks each of its boots alone; the checks across
# boots wait for make report.
# The page, index.html (harness/html_report.py), is made from a first
# pass's matrix.json and checked in headless Chromium (harness/page_check.py:
# page.ktap, and the screenshot index.png); the second pass, whose summary
# counts, reads page.ktap as the part "page".  Both passes read the same
# logs, so they write the same matrix.json.
report_py = harness/report.py $(if $(BOOTS),--shard) $(R) $(call picked_report,$(1))
report = rc=0; $(if $(BOOTS),harness/shard-id.sh $(LAB_OBJ)$(if $(DEBUG_PICKED),:$(DEBUG_OBJ)) \
		$(R) $(BOOTS) >$(R)/shard.txt && ){ $(call report_py,$(1)) >/dev/null || :; } && \
	{ harness/html_report.py $(R) >/dev/null && harness/page_check.py $(R) >$(R)/page.ktap || \
		rm -f $(R)/page.ktap; } && \
	$(call report_py,$(1)) page:page:ktap >$(R)/summary.txt || rc=$$?; \
	$(if $(2),,if [ $$rc -eq 0 ]; then harness/boot-cache.sh commit; else harness/boot-cache.sh drop; fi;) \
	cat $(R)/matrix.md; [ ! -f $(R)/comparison.md ] || { echo; cat $(R)/comparison.md; }; \
	echo "watchlab: results in $(R:$(TOP)/%=%)/ (console logs, ktap.txt, junit.xml, matrix.json, matrix.md, index.html)"; \
	cat $(R)/summary.txt; exit $$rc

report-lab: boot-lab
	@$(call report,$(LAB_BOOTS))

# make report RESULTS="DIR...": the shards of one make test, merged and
# judged as one run (no boot of its own, so nothing for the boot cache).
# A shard SUITES reduced is refused, and one with replayed boots unless
# ALLOW_REPLAY=1 (harness/shard-merge.sh).
report:
	@$(if $(RESULTS),,$(error watchlab: make report needs RESULTS="DIR...", the results folders of make test BOOTS=... runs))
	@$(if $(BOOTS),$(error watchlab: make report merges whole runs' shards; BOOTS does not apply))
	@harness/shard-merge.sh $(R) "$(TEST_PARTS)" $(RESULTS)
	@$(call report,$(TEST_BOOTS),merge)

# One cheap mutant of testcases/mutants/ (make mutants runs them all):
# make test checks that its own checks still kill it, so the mutant
# machinery cannot rot unseen.  About 40 s: a copy of the lab kernel's
# objects rebuilt from ccache, the mutant's few objects, a short boot.
MUTANT_CHECK := 99-lsm-statement-after-end

mutant-check: kernel guest | results-dir
	@echo "watchlab: checking that make test still kills mutant $(MUTANT_CHECK)"
	@MUTANT_RESULTS=$(R)/mutants MUTANT_JOBS=1 MUTANT_RESCOPE=0 harness/mutants.sh --ktap $(R)/mutants.ktap \
		$(MUTANT_CHECK) >$(R)/mutants.log

# Each boot as a LAVA job (harness/lava-jobs.sh), in results/lava/:
# LAVA_ARTIFACTS=URL points them at a server holding make kernel-artifacts'
# folder and the initramfs; without it they name this checkout's files, for
# lava-run here.
lava-jobs: kernel kernel-debug guest
	@rm -rf $(TOP)/results/lava
	@harness/lava-jobs.sh $(TOP)/results/lava $(LAB_BOOT_SPECS) $(EARLY_BOOT_SPEC) $(DEBUG_BOOT_SPEC)
	@echo "watchlab: LAVA jobs in results/lava/ ($(if $(LAVA_ARTIFACTS),artifacts from $(LAVA_ARTIFACTS),file:// artifacts of this checkout)); device-qemu.yaml is the device lava-run boots them on"

# make test's lava part: every boot's job validated by Debian's lava-run,
# and the short selinux-early boot run through it and through a LAVA
# server on this machine (harness/lava-lab.sh, started and stopped by
# harness/lava_lab.py), its results compared each time with the lab's own
# run of that boot (so after the boots; a shard with the lava part needs
# that boot too).
LAVA_BOOT := selinux-early
lava-check: boot-test | results-dir
	@echo "watchlab: running the $(LAVA_BOOT) boot through lava-run and a LAVA server"
	@env -u LAVA_ARTIFACTS harness/lava_check.py --server $(R) $(LAVA_BOOT) \
		$(filter-out $(ICOUNT_BOOT_SPEC),$(LAB_PICKED)) $(DEBUG_PICKED) \
		>$(R)/lava.ktap

# make lava-lab: LAVA_LAB_BOOTS (log names) booted here into results/lava-lab/
# and through the LAVA lab of this machine (docs/lava.md); fails on any
# difference.  It leaves the packages, the database and the settings, and
# nothing running.
LAVA_LAB_BOOTS ?= $(LAVA_BOOT)
LAVA_LAB_R := $(TOP)/results/lava-lab
LAVA_LAB_SPECS := $(foreach s,$(LAB_BOOT_SPECS) $(EARLY_BOOT_SPEC) $(DEBUG_BOOT_SPEC),$(if $(filter $(call spec_name,$(s)),$(LAVA_LAB_BOOTS)),$(s)))
lava-lab: kernel $(if $(filter %-debug,$(LAVA_LAB_BOOTS)),kernel-debug) guest
	@$(if $(filter-out $(foreach s,$(LAVA_LAB_SPECS),$(call spec_name,$(s))),$(LAVA_LAB_BOOTS)),$(error watchlab: LAVA_LAB_BOOTS names $(filter-out $(foreach s,$(LAVA_LAB_SPECS),$(call spec_name,$(s))),$(LAVA_LAB_BOOTS)): the boots are $(LAB_PARTS) $(DEBUG_PARTS)))
	@rm -rf $(LAVA_LAB_R) && mkdir -p $(LAVA_LAB_R)
	@RESULTS=$(LAVA_LAB_R) FRESH=1 harness/boot-all.sh $(LAVA_LAB_SPECS)
	@env -u LAVA_ARTIFACTS harness/lava_lab.py $(LAVA_LAB_R) $(subst $(space),$(comma),$(strip $(LAVA_LAB_BOOTS))) \
		$(LAVA_LAB_SPECS) >$(LAVA_LAB_R)/lava-lab.ktap || rc=$$?; \
	cat $(LAVA_LAB_R)/lava-lab.ktap; \
	harness/report.py $(LAVA_LAB_R) lava-lab:lava-lab:ktap | tail -1; exit $${rc:-0}

report-test: boot-test $(call part,host,host-tests) $(call part,mutants,mutant-check) \
		$(call part,lava,lava-check)
	@$(call report,$(TEST_BOOTS))

# Two steps at a time: the guest, the SELinux policy and the host suites
# build and run beside the debug kernel's build or the boots.
STEPS ?= 2

lab:
	@$(MAKE) --no-print-directory -j$(STEPS) report-lab

# make test always runs every suite and boots every boot again: SUITES
# (from the environment or the command line) is for iterating with make
# lab, and is cleared here; a replayed boot is an earlier run's result, so
# the test command never takes one (FRESH=1).
test:
	@$(if $(SUITES),echo "watchlab: make test runs every suite; SUITES=$(SUITES) is ignored";)
	@env -u SUITES $(MAKE) --no-print-directory -j$(STEPS) report-test SUITES= FRESH=1

# make compare LSM_PATCHES=DIR LSM=NAME: the lab, with DIR's patches in the
# kernel and NAME booted beside the profiles; the comparison comes last.
compare:
	@$(if $(filter-out 2,$(words $(BYO_GIVEN))),$(error watchlab: make compare needs LSM_PATCHES=DIR and LSM=NAME (see make help)))
	@$(MAKE) --no-print-directory -j$(STEPS) report-lab

# Checked before anything is built: without a terminal there is no shell to give.
shell-tty:
	@[ -t 0 ] || { echo "watchlab: make shell needs a terminal on stdin" >&2; exit 1; }

shell: shell-tty kernel guest
	@echo "watchlab: booting profile $(PROFILE) to a shell (exit the shell to power off; Ctrl-A X quits QEMU)"
	@lsm=$$(awk '$$1 == "$(PROFILE)" { print $$2 }' images/profiles); \
	[ -n "$$lsm" ] || { echo "watchlab: no profile $(PROFILE) in images/profiles" >&2; exit 1; }; \
	qemu-system-x86_64 -nodefaults -nographic -no-reboot \
		-machine pc -accel $(if $(filter 1,$(KVM)),kvm,tcg$(comma)thread=single) -cpu max -smp 2,sockets=2,cores=1,threads=1 -m 1024 \
		-serial mon:stdio -device qemu-xhci,id=xhci -device usb-kbd,bus=xhci.0 \
		-kernel $(LAB_IMAGE) -initrd $(INITRD) \
		-append "console=ttyS0 panic=-1 no5lvl lsm=$$lsm watchlab.profile=$(PROFILE) watchlab.lsm=$$(harness/lsm-built.sh $(LAB_OBJ) $$lsm) watchlab.mode=shell"

matrix:
	@harness/security-matrix.sh

# The posting benchmark: figures, not pass/fail.  One boot per lsm= list
# (results/bench/console-*.log) and one table (results/bench/table.txt),
# in instructions under QEMU's -icount unless BENCH_CLOCK=wall.
.PHONY: bench
bench: kernel guest
	@harness/bench.sh $(LAB_OBJ)

# The mount-table scale benchmark (issue 44): figures, not pass/fail, and
# not part of make test.  Boots the lab kernel under icount with only
# suite_mount_scale (harness/bench-scale.sh, docs/bench-scale.md); the
# table and the plots go to results/bench-scale/.
.PHONY: bench-scale
bench-scale: kernel guest
	@harness/bench-scale.sh $(LAB_OBJ)

# Not part of make test: every mutant of testcases/mutants/, each in a
# lab of its own, and the mutation score (harness/mutants.sh).
mutants: kernel guest
	@harness/mutants.sh

# Not part of make test: N mutants placed by a program (coccinelle's
# operators on the covered lines of the series and watchpol, drawn with
# SEED), judged as the catalogue's (harness/mutants-sample.sh,
# docs/generated-mutants.md).  Needs make coverage's results/coverage/lines.json.
.PHONY: mutants-sample
mutants-sample: kernel guest
	@N=$(N) SEED=$(SEED) harness/mutants-sample.sh

# Not part of make test: git am of the series onto pristine 6.12, each
# patch built on the ones before it, checkpatch --strict on every patch
# (harness/series-check.sh says what each step compiles).
.PHONY: series-check
series-check:
	@harness/series-check.sh

# Not part of make test: the series as it would be mailed upstream, with
# AUTHOR in From: and Signed-off-by, watchpol's sources in its patch and a
# cover letter, in build/series-export/ (harness/series-export.sh).
.PHONY: series-export
series-export:
	@AUTHOR="$(AUTHOR)" harness/series-export.sh

# Not part of make test: make test's boots (every profile, byo and
# selinux-early) on a third kernel, the lab config plus gcov
# (images/cov.config), built in build/kbuild-cov from a tree of its own,
# build/linux-cov, in which harness/coverage-tree.sh switches profiling on
# for the objects of every .c file the series touches and for watchpol.
# harness/coverage.sh boots it, carries the gcov data out of each guest
# (on ttyS1) and writes lcov's HTML, the per-file summary and each patch's
# diff coverage to results/coverage/, each line no boot executes with its
# answer from testcases/coverage-answers.  COV_DEBUG=1 adds the debug boots on
# a gcov kernel with the debug config too (build/kbuild-cov-debug).
# Another make test writing build/guest?  make coverage -o guest takes the
# guest programs as they are.
COV_TREE := $(B)/linux-cov
COV_OBJ := $(B)/kbuild-cov
COV_DEBUG_OBJ := $(B)/kbuild-cov-debug
COV_DEBUG ?= 0
COV_BOOT_TIMEOUT ?= 900
COV_DEBUG_BOOT_TIMEOUT ?= 2700
# The debug boots first, as in make test: they are the longest.
COV_SPECS := $(if $(filter 1,$(COV_DEBUG)),$(subst :$(DEBUG_BOOT_TIMEOUT),:$(COV_DEBUG_BOOT_TIMEOUT),$(subst $(DEBUG_OBJ):,$(COV_DEBUG_OBJ):,$(DEBUG_BOOT_SPEC)))) \
	$(subst :$(BOOT_TIMEOUT),:$(COV_BOOT_TIMEOUT),$(subst $(LAB_OBJ):,$(COV_OBJ):,$(LAB_BOOT_SPECS) $(EARLY_BOOT_SPEC)))
COV_KERNELS := $(COV_OBJ) $(if $(filter 1,$(COV_DEBUG)),$(COV_DEBUG_OBJ))

.PHONY: coverage kernel-cov
$(COV_TREE).patches-key: FORCE
	@harness/coverage-tree.sh $(COV_TREE)

$(COV_OBJ)/.config: images/lab.config images/cov.config $(LSM_CONFIG) $(COV_TREE).patches-key $(wildcard lsm/Kconfig)
	@KERNEL_TREE=$(COV_TREE) harness/kernel-config.sh $(COV_OBJ) images/lab.config $(LSM_CONFIG) images/cov.config

$(COV_DEBUG_OBJ)/.config: images/lab.config images/debug.config images/cov.config $(COV_TREE).patches-key $(wildcard lsm/Kconfig)
	@KERNEL_TREE=$(COV_TREE) harness/kernel-config.sh $(COV_DEBUG_OBJ) images/lab.config images/debug.config images/cov.config

kernel-cov: $(addsuffix /.config,$(COV_KERNELS))
	@for k in $(COV_KERNELS); do KERNEL_TREE=$(COV_TREE) harness/kernel-build.sh $$k || exit; done

coverage: kernel-cov guest
	@harness/coverage.sh $(COV_TREE) $(SEPOLICY_FILES) \
		$(GUEST)/wlrun $(GUEST)/wl-selinux-load $(KSELFTEST) $(MOUNT_NOTIFY_TEST) $(SAMPLE) \
		-- $(COV_SPECS)

clean:
	rm -rf $(TOP)/results $(GUEST) $(INITRD) $(INITRD).list $(B)/selinux

distclean:
	rm -rf $(B) $(TOP)/results
