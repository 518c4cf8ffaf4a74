#!/bin/bash
# make mutants: run the lab once per mutant of testcases/mutants/ and record
# whether its checks went red, and which did (testcases/mutants/README.md).
#
# usage: mutants.sh [--ktap FILE] [MUTANT...]   (default: every mutant)
#
# MUTANT_CATALOGUE=DIR: the mutants of DIR instead of testcases/mutants/
# (make mutants-sample: the generated mutants, harness/mutants-gen.py),
# judged the same way.
#
# Each of MUTANT_JOBS workers (default: one per core) owns a slot,
# build/mutants/slot-N (MUTANT_SLOTS=DIR: DIR/slot-N): a copy of build/ (the
# patched tree hard-linked, the
# lab kernel's objects, the guest) and of the repository's sources, built
# once with the Makefile's own rules.
#
# Phase 1: every boot and suite list a mutant will run is first run twice
# without any mutant (the baseline, results/mutants/baseline/): a check that
# fails in either run cannot kill, and one the two runs differ on is flaky.
# Phase 2: a mutant is applied in a slot, the lab kernel (and the debug
# kernel, for a mutant that boots it: Boots: plain-debug) and the initramfs
# are rebuilt (ccache: an lsm/ mutant recompiles a handful of objects), the
# boots it names run (harness/run-profile.sh, FRESH=1) and
# harness/report.py judges each as make test would; a mutant of harness/ is
# also judged by harness/test_report.py and by its report.py run on a
# recorded run (testcases/mutants/recorded/), whose verdict lines must
# differ from the unmutated report's.  The checks that fail with it and
# passed in both baseline runs are candidates; a kill must reproduce, so
# the boot that found them runs once more with the mutant, and only the
# candidates that fail again kill (none: the mutant is flaky, never
# killed).  The judging is harness/mutants-report.py's (kills, changes,
# verdict).  The files the mutant touched are then restored from the
# originals, with a new mtime, so that kbuild compiles them again (from
# ccache) for the next mutant.
#
# A mutant that survives a narrowed run (its Boots:/Suites:) is run again
# with every boot (its Rescope: boots, when it names them: a generated
# mutant's profiles, selinux-early and plain-debug, whose debug kernel is
# then built with the mutant) and every suite before it counts as a
# survivor; the first boot that kills it ends that (MUTANT_RESCOPE=0: no
# rescope; make test's one-mutant check).  MUTANT_SCOPE=all
# runs every mutant that way from the start.
#
# How many samples the judge takes (docs/mutants-and-coverage.md, "The
# judge's rules, shown"): MUTANT_BASELINE_RUNS runs of each baseline
# (default 2, at least 2) and MUTANT_REPRODUCE re-runs of a boot that found
# a candidate (default 1), each of which the candidate must fail again.  A
# check that fails at random with probability p, whatever the mutant, kills
# a mutant with probability (1-p)^B * p^(R+1), at most 1/16 with the
# defaults (p = 1/2); more runs lower it and cost boots.
#
# A verdict is stored per mutant in results/mutants/verdicts/, keyed by the
# mutant, the tree and the judge's runs when they are not the defaults; a
# second run skips a mutant whose key is unchanged, and a baseline whose key
# is unchanged.  --ktap FILE: also write FILE, one
# KTAP test per mutant, passing only if it was killed (make test's check
# that the machinery still works; report.py counts it).
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
catalogue=${MUTANT_CATALOGUE:-$top/testcases/mutants}
out=${MUTANT_RESULTS:-$top/results/mutants}
jobs=${MUTANT_JOBS:-$(nproc)}
timeout=${MUTANT_BOOT_TIMEOUT:-900}
debug_timeout=${MUTANT_DEBUG_BOOT_TIMEOUT:-1800}
recorded=$top/testcases/mutants/recorded
# Where the slots are (MUTANT_SLOTS: elsewhere, beside a make test whose
# mutant check uses build/mutants; on build/'s file system: the patched
# tree is hard-linked).
slots=${MUTANT_SLOTS:-$build/mutants}
rescope=${MUTANT_RESCOPE:-1}
baseline_runs=${MUTANT_BASELINE_RUNS:-2}
reproduce=${MUTANT_REPRODUCE:-1}
ktap=""
if [ "${1:-}" = --ktap ]; then
	ktap=$2
	shift 2
fi

say() { echo "watchlab: mutants: $*"; }
die() { echo "watchlab: mutants: $*" >&2; exit 1; }

# header FILE FIELD: the value of "Field: value" before the diff.
header() {
	sed -n -e '/^--- /q' -e "s/^$2:[[:space:]]*//p" "$1" | head -1
}

# The files a mutant's diff changes, as -p1 paths.
diff_paths() {
	sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$1"
}

# Where a mutant applies: the repository (lsm/, testcases/, harness/) or
# the patched kernel tree; one or the other, never both.
target_of() {
	local p repo=0 kernel=0
	for p in $(diff_paths "$1"); do
		case $p in
		lsm/* | testcases/* | harness/* | images/* | policy/* | examples/* | Makefile) repo=1 ;;
		*) kernel=1 ;;
		esac
	done
	if [ "$repo$kernel" = 10 ]; then echo src; elif [ "$repo$kernel" = 01 ]; then echo linux; fi
}

# suites_for MUTANT BOOT: the suites its Suites: line runs in BOOT (a
# boot:suite word only there); empty: every suite.
suites_for() {
	local w list=""
	for w in $(header "$1" Suites); do
		case $w in
		*:*) if [ "${w%%:*}" = "$2" ]; then list="$list ${w#*:}"; fi ;;
		*) list="$list $w" ;;
		esac
	done
	echo "${list# }"
}

# boots_for MUTANT: the boots it runs (its Boots: line, or every profile);
# unscoped, every profile and the other boots its Boots: line names.
boots_for() {
	local b
	b=$(header "$1" Boots)
	if [ "${MUTANT_SCOPE:-}" = all ] || [ -z "$b" ]; then
		echo "$profiles $(other_boots "$b")"
	else
		echo "$b"
	fi
}

# debug_boots WORDS: those that name a debug boot (PROFILE-debug).
debug_boots() {
	local w
	for w in $1; do
		case $w in *-debug) printf '%s ' "$w" ;; esac
	done
}

# other_boots WORDS: those that name a boot besides the profiles': a debug
# boot, plain-icount (the Makefile's boot on an exact clock) or
# selinux-early (its boot with a bad watchpol.model= and a policy written
# before SELinux loads: suite_early alone).
other_boots() {
	local w
	for w in $1; do
		case $w in *-debug | plain-icount | selinux-early) printf '%s ' "$w" ;; esac
	done
}

# rescope_boots MUTANT: where a survivor of its narrowed run runs again,
# with every suite: the boots its Rescope: line names (a generated
# mutant's: the profiles, and selinux-early, whose boots ran its line,
# harness/mutants-gen.py), else every profile; and the other boots its
# Boots: line names.
rescope_boots() {
	local r
	r=$(header "$1" Rescope)
	# Each once, in order (Rescope: may name a boot Boots: names too).
	echo "${r:-$profiles} $(other_boots "$(header "$1" Boots)")" |
		tr ' ' '\n' | awk 'NF && !seen[$0]++' | tr '\n' ' '
}

# scoped_suites MUTANT BOOT: suites_for, unless the mutant runs unscoped.
scoped_suites() {
	if [ "${MUTANT_SCOPE:-}" = all ]; then echo ""; else suites_for "$1" "$2"; fi
}

# What the lab is made of: a change to any of it invalidates every verdict.
# The catalogue is left out; each mutant's own text is in its key.
tree_key() {
	{
		cat "$build/linux.patches-key"
		(cd "$top" && find Makefile kernel-patches lsm harness images policy examples \
			testcases -path testcases/mutants -prune -o -type f -print0 |
			sort -z | xargs -0 sha256sum)
		(cd "$top" && find testcases/mutants/recorded -type f -print0 2>/dev/null |
			sort -z | xargs -0 -r sha256sum)
	} | sha256sum | cut -d' ' -f1
}

[ -d "$catalogue" ] || die "no catalogue at ${catalogue#"$top"/}"
case $baseline_runs in [2-9] | [1-9][0-9]) ;; *) die "MUTANT_BASELINE_RUNS=$baseline_runs: a number, at least 2" ;; esac
case $reproduce in [1-9] | [1-9][0-9]) ;; *) die "MUTANT_REPRODUCE=$reproduce: a number, at least 1" ;; esac
# The verdicts of a judge that takes other samples than the default's are
# keyed apart.
judge_key=""
[ "$baseline_runs.$reproduce" = 2.1 ] || judge_key="-b$baseline_runs-r$reproduce"
if [ ! -f "$build/kbuild-lab/vmlinux" ] || [ ! -f "$build/initramfs.cpio" ]; then
	die "no lab kernel or initramfs in build/: run make lab or make test first"
fi

if [ $# -gt 0 ]; then
	mutants=()
	for m in "$@"; do
		f=$catalogue/${m%.patch}.patch
		[ -f "$f" ] || die "no mutant $m in ${catalogue#"$top"/}"
		mutants+=("$f")
	done
else
	mapfile -t mutants < <(find "$catalogue" -maxdepth 1 -name '*.patch' | sort)
fi
[ "${#mutants[@]}" -gt 0 ] || die "the catalogue has no mutant"

# Every mutant is checked before any runs: its header, and its diff against
# the files it names, fuzz 0.  One that no longer applies stops the run,
# named: it must never count as killed.
profiles=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$top/images/profiles" | cut -d' ' -f1)
# The debug kernel boots a profile as PROFILE-debug (the Makefile's
# plain-debug and smack-debug); the labelled one runs only the suites the
# Makefile gives it, unless the mutant names its own.
other_names=$(for p in $profiles; do echo "$p-debug"; done)
# The Makefile's plain-icount boot: the plain profile on the exact clock,
# with the kernel arguments make test gives it (check_boot).
other_names="$other_names"$'\n'plain-icount$'\n'selinux-early
labelled_debug=$(sed -n 's/^LABELLED_DEBUG_PROFILE := *//p' "$top/Makefile")
labelled_debug_suites=$(sed -n 's/^LABELLED_DEBUG_SUITES := *//p' "$top/Makefile" | tr , ' ')
known_suites=$(grep -rhoE 'WL_[A-Z_]*\(suite_[a-z0-9_]+' "$top/testcases/runner/suites" |
	sed 's/.*(//' | sort -u)
bad=0
nl=$'\n'
complain() { echo "watchlab: mutants: $1: $2" >&2; bad=1; }
for f in "${mutants[@]}"; do
	n=$(basename "$f" .patch)
	for field in Bug Layer Threat; do
		[ -n "$(header "$f" "$field")" ] || complain "$n" "no $field: line"
	done
	case $(header "$f" Layer) in kernel | lsm | lab) ;; *) complain "$n" "Layer: must be kernel, lsm or lab" ;; esac
	for p in $(header "$f" Boots); do
		grep -qx "$p" <<<"$profiles$nl$other_names" ||
			complain "$n" "Boots: names $p, which images/profiles lacks (nor is it PROFILE-debug or plain-icount)"
	done
	for p in $(header "$f" Rescope); do
		grep -qx "$p" <<<"$profiles$nl$other_names" ||
			complain "$n" "Rescope: names $p, which is neither in images/profiles nor PROFILE-debug, plain-icount or selinux-early"
	done
	for w in $(header "$f" Suites); do
		grep -qx "${w#*:}" <<<"$known_suites" || complain "$n" "Suites: names ${w#*:}, which testcases/runner/suites lacks"
		case $w in *:*) grep -qx "${w%%:*}" <<<"$profiles$nl$other_names" || complain "$n" "Suites: names boot ${w%%:*}, which images/profiles lacks" ;; esac
	done
	case $(target_of "$f") in
	src) dir=$top ;;
	linux) dir=$build/linux ;;
	*) complain "$n" "its diff must change either repository files (lsm/, testcases/, harness/, images/, policy/, examples/, Makefile) or kernel files, not both or none"; continue ;;
	esac
	if ! msg=$(patch -d "$dir" -p1 --dry-run --batch --fuzz=0 -s <"$f" 2>&1); then
		complain "$n" "no longer applies to ${dir#"$top"/}: $msg"
	fi
done
[ "$bad" -eq 0 ] || die "the catalogue does not fit this tree; no mutant was run"

mkdir -p "$out/verdicts" "$out/logs" "$out/baseline"
key=$(tree_key)
# A slot's copy of the sources is no git work tree: its reports' KCIDB
# tree line names the tree key (harness/shard-id.sh), wherever the slots
# are, rather than the commit of whatever repository encloses them.
export WATCHLAB_TREE="mutants-slot-$key"

# slot_make SLOT [debug]: the lab kernel and the initramfs of the slot, by
# the Makefile's rules (its B= is the slot; its packages are installed),
# and with "debug" the debug kernel too.
slot_make() {
	make -s -C "$1/src" --no-print-directory B="$1" DEPS=true kernel ${2:+kernel-debug} guest
}

# slot_init SLOT: a copy of build/ and of the sources, built once.
slot_init() {
	local s=$1
	rm -rf "$s"
	mkdir -p "$s"
	cp -al "$build/linux" "$s/linux"
	cp -a "$build/linux.patches-key" "$build/kbuild-lab" "$build/guest" "$build/uapi" \
		"$build/selinux" "$build/host" "$build/initramfs.cpio" "$build/initramfs.cpio.list" "$s/"
	# The debug kernel's objects, only for a run that boots it.
	[ -z "$need_debug" ] || cp -a "$build/kbuild-debug" "$s/"
	mkdir -p "$s/src"
	(cd "$top" && tar -cf - --exclude=./build --exclude=./results --exclude=./.git .) |
		tar -C "$s/src" -xf -
	slot_make "$s" "$need_debug" >"$s/init.log" 2>&1 || { cat "$s/init.log" >&2; return 1; }
}

# restore SLOT MUTANT: the files the mutant changed, from the originals,
# each written anew (a new mtime) and unlinked from build/linux first,
# with the original's mode: a script restored without its x bit (the
# report, after a mutant of harness/report.py) would fail every later
# mutant's check in that slot, and so let it survive.
restore() {
	local s=$1 f=$2 p dir from
	if [ "$(target_of "$f")" = src ]; then dir=$s/src from=$top; else dir=$s/linux from=$build/linux; fi
	for p in $(diff_paths "$f"); do
		rm -f "$dir/$p"
		cat "$from/$p" >"$dir/$p"
		chmod --reference="$from/$p" "$dir/$p"
	done
}

# check_boot SLOT RESULTS BOOT SUITES [TIMEOUT]: boot BOOT of the slot's lab kernel
# with SUITES (empty: all), judge it alone with report.py and print the
# checks that failed, one a line, and each cell the report faulted (a
# leak, a wrong refuser, a masked refusal...) as "verdict: CELL: WHY":
# a check over every cell that fails in the baseline (a cross-boot
# derivation a single boot cannot make) still kills by a cell it did not
# name there.
check_boot() {
	local s=$1 res=$2 boot=$3 suites=$4 obj=$1/kbuild-lab profile=$3 debug="" kind=1 extra=""
	local t=${5:-$timeout}
	# The slot's Makefile, which a mutant may have changed.
	[ "$boot" != plain-icount ] ||
		profile=plain kind=0 extra=$(sed -n 's/^ICOUNT_BOOT_ARGS := *//p' "$s/src/Makefile")
	[ "$boot" != selinux-early ] ||
		profile=selinux kind=0 extra=$(sed -n 's/^EARLY_BOOT_SPEC := .*:://p' "$s/src/Makefile")
	# PROFILE-debug: the debug kernel, judged as make test judges its boots.
	case $boot in *-debug)
		obj=$s/kbuild-debug profile=${boot%-debug} debug=debug kind=0 t=${5:-$debug_timeout}
		if [ -z "$suites" ] && [ "$profile" = "$labelled_debug" ]; then
			suites=$labelled_debug_suites
		fi
		;;
	esac
	rm -rf "$res"
	mkdir -p "$res"
	BUILD=$s RESULTS=$res FRESH=1 SUITES=$suites \
		"$s/src/harness/run-profile.sh" "$obj" "$profile" "$boot" "$t" "$debug" "$extra" \
		>"$res/boot.log" 2>&1 || true
	SUITES=$suites "$s/src/harness/report.py" "$res" "$boot:$profile:$kind" >"$res/summary.txt" 2>&1 || true
	sed -n 's/^FAIL //p' "$res/summary.txt"
	[ ! -f "$res/ktap.txt" ] ||
		sed -n -E 's|^[[:space:]]*# (.+ under [a-z0-9-]+/[a-z0-9-]+: .*)$|verdict: \1|p' "$res/ktap.txt"
}

# check_report SOURCES: the report's own tests (harness/test_report.py)
# that fail in that copy of the repository, as host.report.TEST.
check_report() {
	(cd "$1/harness" && { python3 test_report.py -v 2>&1 || true; }) |
		sed -n 's/^\(test_[A-Za-z0-9_]*\) (.*) \.\.\. \(FAIL\|ERROR\)$/host.report.\1/p'
}

# recorded_verdicts SOURCES OUT: the verdict lines (its KTAP results and its
# closing line) of that copy's report.py on the recorded run of
# testcases/mutants/recorded/ (its boots file: the report's boot specs).
recorded_verdicts() {
	local tmp
	tmp=$(mktemp -d)
	tar -C "$tmp" -xzf "$recorded/run.tar.gz"
	# shellcheck disable=SC2046 # one boot spec per word
	(cd "$1" && BUILD=$build SUITES="" ./harness/report.py "$tmp" $(cat "$recorded/boots")) \
		>"$tmp/summary.out" 2>&1 || true
	{
		grep -E '^[[:space:]]*(not )?ok ' "$tmp/ktap.txt" 2>/dev/null || true
		tail -1 "$tmp/summary.out"
	} >"$2"
	rm -rf "$tmp"
}

# harness_checks SOURCES DIR: judge a copy of the repository's harness/
# by the report's own tests (DIR/report.fails) and by its report on the
# recorded run (DIR/recorded).
harness_checks() {
	mkdir -p "$2"
	check_report "$1" | sort -u >"$2/report.fails"
	recorded_verdicts "$1" "$2/recorded"
}

# harness_kills SLOT RESULTS: what kills a mutant of harness/: the report's
# tests that fail with it and in neither baseline run, and the verdict
# lines on the recorded run it changed; only what it does again in a
# second run kills (the rest: RESULTS.unreproduced).
harness_kills() {
	local h=$out/baseline/host-report first again
	harness_checks "$1/src" "$2/1"
	first=$("$top/harness/mutants-report.py" kills "$h/fails" "$h/fails2" -- "$2/1/report.fails"
		"$top/harness/mutants-report.py" changes "$h/recorded" "$h/recorded2" -- "$2/1/recorded")
	[ -n "$first" ] || return 0
	harness_checks "$1/src" "$2/2"
	again=$("$top/harness/mutants-report.py" kills "$h/fails" "$h/fails2" -- \
		"$2/1/report.fails" "$2/2/report.fails"
		"$top/harness/mutants-report.py" changes "$h/recorded" "$h/recorded2" -- \
		"$2/1/recorded" "$2/2/recorded")
	comm -23 <(sort -u <<<"$first") <(sort -u <<<"$again") | sed '/^$/d' >>"$2.unreproduced"
	echo "$again"
}

# unjudged_boots RESULTS: the boots under RESULTS whose report did not reach
# its closing line (a re-run of a boot, BOOT.again, too).  A report that
# did not run judged nothing: no check failed, and that is no survival.
unjudged_boots() {
	local f
	for f in "$1"/run/*/summary.txt "$1"/run-all/*/summary.txt; do
		[ -f "$f" ] || continue
		# "N passed, N failed", or "reduced: ..." for a SUITES run.
		tail -1 "$f" | grep -Eq '^(reduced: )?[0-9]+ passed, [0-9]+ failed$' ||
			basename "$(dirname "$f")"
	done
}

# baseline_dir BOOT SUITES: where that boot's checks without a mutant are.
baseline_dir() {
	echo "$out/baseline/$1-$(echo "$2" | sha256sum | cut -c1-12)"
}

# baseline_runs_of BASE: the files of a baseline's runs, one a line:
# fails, fails2, ... up to MUTANT_BASELINE_RUNS.
baseline_runs_of() {
	local k
	echo "$1/fails"
	for ((k = 2; k <= baseline_runs; k++)); do echo "$1/fails$k"; done
}

# A baseline is ready when all its runs are recorded for this tree.
baseline_ready() {
	local f
	for f in $(baseline_runs_of "$1"); do [ -f "$f" ] || return 1; done
	[ "$(cat "$1/key" 2>/dev/null)" = "$key" ]
}

# boot_timeout BASE BOOT: how long a mutant's boot may take: three times
# the longest of the baseline's runs of the same boot and suites, and a
# minute, within MUTANT_BOOT_TIMEOUT (MUTANT_DEBUG_BOOT_TIMEOUT): a
# narrowed boot that hangs costs minutes, not the whole limit.  The
# baseline's runs finished in time, so a timeout still kills only a boot
# they ran without one.
boot_timeout() {
	local limit=$timeout longest
	case $2 in *-debug) limit=$debug_timeout ;; esac
	longest=$(sed -n 's/^watchlab: profile .* finished in \([0-9]*\).*/\1/p' \
		"$1"/run*/boot.log 2>/dev/null | sort -n | tail -1)
	[ -n "$longest" ] || { echo "$limit"; return; }
	longest=$((longest * 3 + 60))
	echo $((longest < limit ? longest : limit))
}

# kills SLOT MUTANT RESULTS BOOT SUITES: the checks of BOOT that fail with
# the mutant in every run and pass in every baseline run.  The boot runs
# again (BOOT.again, then BOOT.again2...: MUTANT_REPRODUCE times) only while
# a candidate is left; a candidate that does not fail again is written to
# RESULTS.unreproduced, and kills nothing.
kills() {
	local base first again k name t
	local -a bases runs
	base=$(baseline_dir "$4" "$5")
	baseline_ready "$base" || die "no baseline for $4 (${5:-every suite}): phase 1 did not run it"
	mapfile -t bases < <(baseline_runs_of "$base")
	mkdir -p "$3"
	t=$(boot_timeout "$base" "$4")
	check_boot "$1" "$3/$4" "$4" "$5" "$t" | sort -u >"$3/$4.fails"
	runs=("$3/$4.fails")
	first=$("$top/harness/mutants-report.py" kills "${bases[@]}" -- "${runs[@]}")
	again=$first
	for ((k = 1; k <= reproduce; k++)); do
		[ -n "$again" ] || break
		name=$4.again
		[ "$k" -eq 1 ] || name=$name$k
		check_boot "$1" "$3/$name" "$4" "$5" "$t" | sort -u >"$3/$name.fails"
		runs+=("$3/$name.fails")
		again=$("$top/harness/mutants-report.py" kills "${bases[@]}" -- "${runs[@]}")
	done
	[ -n "$first" ] || return 0
	LC_ALL=C comm -23 <(echo "$first") <(echo "$again") | sed '/^$/d' >>"$3.unreproduced"
	echo "$again"
}

# A list passed to mutants-report.py as @FILE: a mutant that fails every
# check has more kills than one argument may hold (128 KiB).
list_file() {
	printf '%s\n' "$2" >"$1"
	echo "@$1"
}

# run_one SLOT MUTANT: apply, build, boot, judge, restore; write the verdict.
run_one() {
	local s=$1 f=$2 n dir t0 t1 t2 verdict killers="" boots suites="" b scope detail="" unjudged
	local unreproduced="" debug=""
	n=$(basename "$f" .patch)
	local res=$out/logs/$n
	if [ "$(target_of "$f")" = src ]; then dir=$s/src; else dir=$s/linux; fi
	for p in $(diff_paths "$f"); do
		# Hard links into build/linux are broken before patch writes.
		[ "$dir" = "$s/src" ] || { cp "$dir/$p" "$dir/$p.wl-unlink" && mv "$dir/$p.wl-unlink" "$dir/$p"; }
	done
	t0=$(date +%s)
	patch -d "$dir" -p1 --batch --fuzz=0 -s <"$f"
	boots=$(boots_for "$f")
	scope=narrow
	if [ "${MUTANT_SCOPE:-}" = all ] || [ -z "$(header "$f" Boots)$(header "$f" Suites)" ]; then
		scope=all
	fi
	rm -rf "$res"
	mkdir -p "$res"
	[ -z "$(debug_boots "$boots")" ] || debug=debug
	if ! slot_make "$s" "$debug" >"$res/build.log" 2>&1; then
		t1=$(date +%s) t2=$t1
		verdict=stillborn detail="the mutant kernel or guest does not build: $(grep -m1 -E 'error' "$res/build.log" || tail -1 "$res/build.log")"
	else
		t1=$(date +%s)
		for b in $boots; do
			suites="$suites $(scoped_suites "$f" "$b" | sed "s/[^ ][^ ]*/$b:&/g")"
			killers="$killers$(kills "$s" "$f" "$res/run" "$b" "$(scoped_suites "$f" "$b")")
"
		done
		case $(diff_paths "$f") in *harness/*)
			killers="$killers$(harness_kills "$s" "$res/harness")
" ;;
		esac
		killers=$(sed '/^$/d' <<<"$killers")
		# A narrow run its report could not judge, or whose kill did not
		# reproduce, is not run again wider.
		if [ -z "$killers" ] && [ -z "$(unjudged_boots "$res")" ] &&
			[ -z "$(cat "$res"/*.unreproduced 2>/dev/null)" ] &&
			[ "$scope" = narrow ] && [ "$rescope" = 1 ]; then
			scope=all suites=""
			# Its other boots too (a debug-only bug survives every
			# lab boot), as phase 1 recorded their baselines; the
			# debug kernel is built with the mutant only now.  The
			# first boot that kills it ends the rescope.
			boots=$(rescope_boots "$f")
			if [ -n "$(debug_boots "$boots")" ] && [ -z "$debug" ]; then
				debug=debug
				slot_make "$s" debug >>"$res/build.log" 2>&1 || debug=stillborn
			fi
			for b in $boots; do
				[ -z "$killers" ] || break
				case $b in *-debug) [ "$debug" = debug ] || continue ;; esac
				killers=$(kills "$s" "$f" "$res/run-all" "$b" "" | sed '/^$/d')
			done
		fi
		t2=$(date +%s)
		unjudged=$(unjudged_boots "$res" | tr '\n' ' ')
		unreproduced=$(cat "$res"/*.unreproduced 2>/dev/null | sort -u || true)
		verdict=$("$top/harness/mutants-report.py" verdict "$unjudged" \
			"$(list_file "$res/verdict-killers" "$killers")" \
			"$(list_file "$res/verdict-unreproduced" "$unreproduced")")
		if [ "$debug" = stillborn ] && [ "$verdict" = survived ]; then
			verdict=stillborn
			detail="the mutant debug kernel does not build: $(grep -m1 -E 'error' "$res/build.log" || tail -1 "$res/build.log")"
		fi
		case $verdict in
		unjudged) detail="the report did not finish on: $unjudged" ;;
		flaky)
			detail="killed once, not again in the re-run of the same boot:"
			detail="$detail $(head -3 <<<"$unreproduced" | tr '\n' ' ')"
			;;
		esac
	fi
	restore "$s" "$f"
	"$top/harness/mutants-report.py" record "$out/verdicts/$n.json" \
		mutant="$n" key="$key$judge_key-$(sha256sum "$f" | cut -c1-16)" \
		bug="$(header "$f" Bug)" layer="$(header "$f" Layer)" threat="$(header "$f" Threat)" \
		equivalent="$(header "$f" Equivalent)" verdict="$verdict" scope="$scope" \
		boots="$boots" suites="$suites" detail="$detail" \
		killers="$(list_file "$res/verdict-killers" "$killers")" \
		unreproduced="$(list_file "$res/verdict-unreproduced" "$unreproduced")" \
		build_s=$((t1 - t0)) boot_s=$((t2 - t1)) baseline_runs="$baseline_runs" reproduce="$reproduce"
	echo "$verdict"
}

# prepare INDEX: the slot, and its share of the baselines not yet recorded
# for this tree (one a line of $out/.baselines: BOOT<TAB>SUITES).
prepare() {
	local i=$1 s=$slots/slot-$1 k=0 boot suites base t r f run
	local -a files
	slot_init "$s" || { echo "watchlab: mutants: slot $i did not build" >&2; return 1; }
	if [ "$i" -eq 0 ]; then
		# The report's own tests and its report on the recorded run, twice,
		# without a mutant, in a slot's copy as a mutant of harness/ runs
		# there (kcidb.json takes the tree's commit from git: a copy outside
		# the work tree has none, and the place changes the report).
		local h=$out/baseline/host-report
		rm -rf "$h"
		mkdir -p "$h"
		harness_checks "$s/src" "$h/1"
		harness_checks "$s/src" "$h/2"
		mv "$h/1/report.fails" "$h/fails"
		mv "$h/2/report.fails" "$h/fails2"
		mv "$h/1/recorded" "$h/recorded"
		mv "$h/2/recorded" "$h/recorded2"
		rm -rf "$h/1" "$h/2"
	fi
	while IFS=$'\t' read -r boot suites; do
		k=$((k + 1))
		[ $(((k - 1) % jobs)) -eq "$i" ] || continue
		base=$(baseline_dir "$boot" "$suites")
		t=$(date +%s)
		# MUTANT_BASELINE_RUNS times (twice): a check the runs differ on is
		# flaky, and cannot kill.  An earlier tree's runs are removed first.
		rm -f "$base"/fails "$base"/fails[0-9]* "$base"/key
		mapfile -t files < <(baseline_runs_of "$base")
		r=0
		for f in "${files[@]}"; do
			r=$((r + 1))
			run=run
			[ "$r" -eq 1 ] || run=run$r
			check_boot "$s" "$base/$run" "$boot" "$suites" | sort -u >"$f.new"
		done
		for f in "${files[@]}"; do mv "$f.new" "$f"; done
		"$top/harness/mutants-report.py" flaky "${files[@]}" >"$base/flaky"
		echo "$key" >"$base/key"
		printf '%s\t%s\n' "$boot" "$suites" >"$base/scope"
		say "baseline $boot (${suites:-every suite}), ${#files[@]} runs: $(($(date +%s) - t)) s," \
			"$(sort -u "${files[@]}" | wc -l) checks fail without a mutant," \
			"$(wc -l <"$base/flaky") of them flaky"
	done <"$out/.baselines"
}

# worker INDEX: the slot's share of the mutants, one line of progress each.
worker() {
	local i=$1 s=$slots/slot-$1 k=0 f n v done_n left eta
	local t_start
	t_start=$(date +%s)
	for f in "${todo[@]}"; do
		k=$((k + 1))
		[ $(((k - 1) % jobs)) -eq "$i" ] || continue
		n=$(basename "$f" .patch)
		v=$(run_one "$s" "$f")
		echo "$n" >>"$out/.done"
		done_n=$(wc -l <"$out/.done")
		left=$((${#todo[@]} - done_n))
		eta=$((($(date +%s) - t_start) * left / done_n))
		printf 'watchlab: mutants: [%d/%d] %-40s %-9s %s; ETA %d min %02d s\n' \
			"$done_n" "${#todo[@]}" "$n" "$v" \
			"$("$top/harness/mutants-report.py" line "$out/verdicts/$n.json")" \
			"$((eta / 60))" "$((eta % 60))"
	done
}

# Resumable: a mutant whose verdict carries this tree's key is not run again.
todo=()
for f in "${mutants[@]}"; do
	n=$(basename "$f" .patch)
	v=$out/verdicts/$n.json
	if [ -f "$v" ] && grep -q "\"key\": \"$key$judge_key-$(sha256sum "$f" | cut -c1-16)\"" "$v" &&
		! grep -q '"verdict": "stillborn"' "$v"; then
		continue
	fi
	rm -f "$v"
	todo+=("$f")
done

# The baselines the mutants to run need and this tree has not recorded.
{
	for f in "${todo[@]}"; do
		for b in $(boots_for "$f"); do printf '%s\t%s\n' "$b" "$(scoped_suites "$f" "$b")"; done
	done
	if [ "$rescope" = 1 ]; then
		# A mutant's rescope: its Rescope: profiles (or every one) and its
		# other boots, with every suite.
		for f in "${todo[@]}"; do
			for b in $(rescope_boots "$f"); do printf '%s\t\n' "$b"; done
		done
	fi
} | sort -u | while IFS=$'\t' read -r b suites; do
	base=$(baseline_dir "$b" "$suites")
	baseline_ready "$base" || { mkdir -p "$base" && printf '%s\t%s\n' "$b" "$suites"; }
done >"$out/.baselines"

# The debug kernel's objects go into the slots only if a boot needs them
# (a rescope's too).
need_debug=""
for f in "${todo[@]}"; do
	[ -z "$(debug_boots "$(boots_for "$f")")" ] || need_debug=debug
	if [ "$rescope" = 1 ] && [ -n "$(debug_boots "$(rescope_boots "$f")")" ]; then
		need_debug=debug
	fi
done
if cut -f1 "$out/.baselines" | grep -q -- '-debug$'; then need_debug=debug; fi
if [ -n "$need_debug" ] && [ ! -f "$build/kbuild-debug/vmlinux" ]; then
	die "a mutant boots the debug kernel and build/ has none: run make kernel-debug or make test first"
fi

# wait_all PHASE: every slot's process of PHASE ($pids), or die.
wait_all() {
	local p rc=0
	for p in "${pids[@]}"; do wait "$p" || rc=1; done
	pids=()
	[ "$rc" -eq 0 ] || die "$1 failed in a slot; see ${slots#"$top"/}/slot-*/init.log"
}

start=$(date +%s)
rm -f "$out/.done"
# No more slots than there is work for in either phase.
need=$(wc -l <"$out/.baselines")
[ "${#todo[@]}" -le "$need" ] || need=${#todo[@]}
[ "$need" -ge "$jobs" ] || jobs=$need
say "${#mutants[@]} mutants, ${#todo[@]} to run ($(( ${#mutants[@]} - ${#todo[@]} )) recorded for this tree), $(wc -l <"$out/.baselines") baselines to record, $jobs at once"
if [ "${#todo[@]}" -gt 0 ]; then
	pids=()
	for ((i = 0; i < jobs; i++)); do
		prepare "$i" &
		pids+=($!)
	done
	wait_all prepare
	for ((i = 0; i < jobs; i++)); do
		worker "$i" &
		pids+=($!)
	done
	wait_all worker
fi
for base in "$out"/baseline/*/; do
	base=${base%/}
	fails=$(cat "$base"/fails "$base"/fails[0-9]* 2>/dev/null | sort -u || true)
	if [ -n "$fails" ]; then
		say "baseline ${base##*/}: $(wc -l <<<"$fails") checks fail without any mutant" \
			"and kill none: $(head -3 <<<"$fails" | tr '\n' ' ')"
	fi
	if [ -s "$base/flaky" ]; then
		say "baseline ${base##*/} is flaky: $(wc -l <"$base/flaky") checks differ between" \
			"its runs and can never kill: $(head -3 "$base/flaky" | tr '\n' ' ')"
	fi
done
names=()
for f in "${mutants[@]}"; do names+=("$(basename "$f" .patch)"); done
rc=0
"$top/harness/mutants-report.py" report "$out" "$(($(date +%s) - start))" "${names[@]}" || rc=1
[ -z "$ktap" ] || "$top/harness/mutants-report.py" ktap "$out" "${names[@]}" >"$ktap"
exit "$rc"
