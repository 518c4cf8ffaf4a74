#!/bin/bash
# Host-side suites, reported as one KTAP document on stdout:
#   lint       - shellcheck on every shell script of the project
#   patches    - checkpatch --strict on each patch in kernel-patches/series and examples/;
#                every warning type left must be named in that patch's changelog
#   lsm_style  - checkpatch --strict -f on the watchpol sources
#   report     - the report parser's own tests (harness/test_report.py),
#                the LAVA jobs' (harness/test_lava.py), the LAVA server round
#                trip's (harness/test_lava_lab.py: recorded lavacli answers) and the page's
#                (harness/test_html_report.py: a made-up run in Chromium) and
#                make coverage's (harness/test_coverage.py: lcov parsing, blame
#                attribution, the answers to uncovered lines checked against
#                the last run's record), make mutants' judge (harness/test_mutants_report.py:
#                recorded runs, no boot), make mutants-sample's generator
#                (harness/test_mutants_gen.py: spatch's operators on a made-up
#                file, sampling by seed), series-check's maintainers' checks
#                (harness/test_series_lint.py) and the runner's layering checker
#                (harness/test_runner_layers.py)
#   scenarios  - testcases/scenarios/ parses (every "scenario" line of the files) and
#                malformed scenario files fail with their file and line
#   entry      - every make goal installs the packages before any rule runs
#   runner     - every suite file of the in-guest runner registers a suite,
#                each layer includes and calls only its own and lower layers,
#                in no circle, with main() above them (harness/runner_layers.py),
#                and docs/workbench.md quotes each walkthrough transcript as it is
#   syscalls   - the watch syscalls' numbers agree across the tree's tables
#                and the installed UAPI headers, and clash with no mainline
#                syscall (harness/syscall-numbers.sh)
#   shards     - make report's merge of shards refuses a missing, doubled,
#                foreign, reduced or replayed shard (harness/test-shards.sh)
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# checkpatch runs scripts/spdxcheck.py with the system python3 (python3-ply).
export PATH=/usr/bin:/bin:$PATH
tree=${BUILD:-$top/build}/linux
cd "$top"

suites=0
suite_body=""
suite_ok=1
n=0

begin() { suite_body=""; suite_ok=1; n=0; }
result() { # result OK NAME [DIAG...]
	local ok=$1 name=$2
	shift 2
	n=$((n + 1))
	for d in "$@"; do
		while IFS= read -r line; do
			suite_body+="    # $line"$'\n'
		done <<<"$d"
	done
	if [ "$ok" = 1 ]; then
		suite_body+="    ok $n $name"$'\n'
	else
		suite_body+="    not ok $n $name"$'\n'
		suite_ok=0
	fi
}
end() { # end NAME
	suites=$((suites + 1))
	printf '    KTAP version 1\n    # Subtest: %s\n    1..%d\n%s' "$1" "$n" "$suite_body"
	if [ "$suite_ok" = 1 ]; then echo "ok $suites $1"; else echo "not ok $suites $1"; fi
}

has_lsm=0
[ -d lsm ] && [ -n "$(ls lsm/*.c 2>/dev/null)" ] && has_lsm=1
count=$((8 + has_lsm))
echo "KTAP version 1"
echo "1..$count"

begin
for f in harness/*.sh images/init.sh .ci/run; do
	if out=$(shellcheck -x "$f" 2>&1); then
		result 1 "shellcheck:$f"
	else
		result 0 "shellcheck:$f" "$out"
	fi
done
end lint

begin
# From inside the kernel tree, which is no git repository: checkpatch then
# skips the git-only checks instead of running them against watchlab's .git.
checkpatch() {
	(cd "$tree" && ./scripts/checkpatch.pl --strict --terse --no-summary "$@")
}
# The series, and the shipped bring-your-own-LSM examples (examples/*/).
series=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' -e 's|^|kernel-patches/|' \
	kernel-patches/series 2>/dev/null || true)
series+=$'\n'$(find examples -name '*.patch' 2>/dev/null | sort)
for p in $series; do
	out=$(checkpatch --show-types "$top/$p" 2>&1) || true
	changelog=$(sed -n '/^Subject:/,/^---$/p' "$p")
	unexplained=""
	for type in $(echo "$out" | grep -oE '(ERROR|WARNING|CHECK):[A-Z_]+' | sort -u); do
		case $type in
		ERROR:*) unexplained+="$type "$'\n' ;;
		*) grep -q "${type#*:}" <<<"$changelog" || unexplained+="$type "$'\n' ;;
		esac
	done
	if [ -z "$unexplained" ]; then
		result 1 "checkpatch:$p"
	else
		result 0 "checkpatch:$p" "unexplained: $unexplained" "$(echo "$out" | head -20)"
	fi
done
end patches

if [ "$has_lsm" = 1 ]; then
	begin
	for f in lsm/*.c lsm/*.h; do
		[ -f "$f" ] || continue
		out=$(checkpatch -f "$top/$f" 2>&1) || true
		if [ -z "$out" ]; then
			result 1 "checkpatch:$f"
		else
			result 0 "checkpatch:$f" "$(echo "$out" | head -20)"
		fi
	done
	end lsm_style
fi

begin
# Each harness unit test file, and the name of its result.
for t in test_report:report_parser test_lava:lava_jobs test_lava_lab:lava_lab \
	test_html_report:html_page \
	test_coverage:coverage_report test_mutants_report:mutants_judge \
	test_mutants_gen:mutants_gen test_series_lint:series_lint \
	test_runner_layers:runner_layers; do
	if out=$(python3 "$top/harness/${t%%:*}.py" 2>&1); then
		result 1 "${t#*:}" "$(echo "$out" | tail -1)"
	else
		result 0 "${t#*:}" "$(echo "$out" | tail -20)"
	fi
done
end report

# scenario-lint: the runner's parser built for the host.
lint=${BUILD:-$top/build}/host/scenario-lint
mkdir -p "$(dirname "$lint")"
begin
if out=$(harness/wl-lists.sh "$(dirname "$lint")/gen/wl_lists.h" 2>&1 &&
	gcc -std=gnu11 -O2 -Wall -Wextra -Werror -DSCN_HOST -I testcases/runner/scenario \
	-I "$(dirname "$lint")/gen" \
	-I "${BUILD:-$top/build}/uapi/include" -o "$lint" harness/scenario-lint.c \
	testcases/runner/scenario/scenario_parse.c testcases/runner/scenario/scenario_mainline.c \
		testcases/runner/scenario/scenario_actions.c 2>&1); then
	result 1 "build_scenario_lint"
else
	result 0 "build_scenario_lint" "$out"
fi
# As many scenarios as the files have "scenario" lines: none skipped.
defined=$(cat testcases/scenarios/*.scn | grep -c '^scenario ')
if out=$("$lint" testcases/scenarios 2>&1) && [ "${out%% *}" -eq "$defined" ]; then
	result 1 "scenario_files" "$out"
else
	result 0 "scenario_files" "want every file to parse and all $defined scenarios: $out"
fi
# Each malformed file must be rejected naming the file and the offending line.
bad=$(mktemp -d)
trap 'rm -rf "$bad"' EXIT
good='scenario s1
	source  key
	object  key
	owner   uid=1000
	watcher uid=1000
	trigger uid=1000
	action  update
	expect  * delivered
	threat  use
end'
malformed() { # malformed NAME LINE TEXT: TEXT fails at LINE
	local name=$1 line=$2
	printf '%s\n' "$3" >"$bad/$name.scn"
	if out=$("$lint" "$bad/$name.scn" 2>&1); then
		result 0 "malformed:$name" "accepted: $out"
	elif [[ $out == "$bad/$name.scn:$line: "* ]]; then
		result 1 "malformed:$name" "$out"
	else
		result 0 "malformed:$name" "want $name.scn:$line:, got: $out"
	fi
}
malformed unknown_keyword 4 "${good/object  key/object  key
	colour  blue}"
malformed no_end 1 "${good%end}"
malformed bad_uid 5 "${good/watcher uid=1000/watcher uid=-1}"
malformed huge_uid 5 "${good/watcher uid=1000/watcher uid=99999999999}"
malformed unknown_action 7 "${good/action  update/action  explode}"
malformed bad_result 8 "${good/expect  \* delivered/expect  * maybe}"
malformed unknown_model 8 "${good/expect  \* delivered/expect  paranoid delivered}"
malformed where_step 8 "${good/expect  \* delivered/expect  * blocked@fence:kernel}"
malformed where_who 8 "${good/expect  \* delivered/expect  * blocked@post:apparmor}"
malformed where_three 8 "${good/expect  \* delivered/expect  * blocked@post:watchpol+smack+selinux}"
malformed missing_cell 1 "${good/expect  \* delivered/expect  plain delivered}"
malformed duplicate_name 11 "$good
$good"
malformed control_byte 2 "${good/source  key/source  k$(printf '\001')ey}"
malformed fput_not_destruction 1 "${good/action  update/action  update
	fput    both}"
malformed no_watcher 1 "${good/watcher uid=1000/}"
malformed watch_via_no_mntns 1 "${good/action  update/action  update
	watch-via trigger}"
malformed watch_via_what 8 "${good/action  update/action  update
	watch-via owner}"
malformed no_threat 1 "${good/threat  use/}"
malformed unknown_threat 9 "${good/threat  use/threat  usefulness}"
# A property row: one expectation for every cell, not-posted or refused by the kernel.
malformed property_empty 10 "${good/threat  use/threat  use
	property}"
malformed property_delivered 1 "${good/threat  use/threat  use
	property the kernel posts it}"
malformed property_watchpol 1 "${good/expect  \* delivered/expect  * blocked@watch:watchpol
	property the kernel refuses it}"
malformed property_two_expects 1 "${good/expect  \* delivered/expect  * not-posted
	expect  strict not-posted
	property the kernel never posts it}"
if out=$("$lint" "$bad/none.scn" 2>&1); then
	result 0 "missing_file" "accepted a missing file"
else
	result 1 "missing_file" "$out"
fi
end scenarios

# The package install must finish before any rule starts, whatever -j says
# (a fresh machine compiled the guest while apt-get was still installing its
# headers).  With a DEPS that fails, no goal may print a single recipe line;
# with one that succeeds, it must have run before make printed any.
begin
fake=$(mktemp -d)
trap 'rm -rf "$bad" "$fake"' EXIT
printf '#!/bin/sh\necho deps-ran >>%s/log\nexit 3\n' "$fake" >"$fake/fail"
printf '#!/bin/sh\necho deps-ran >>%s/log\n' "$fake" >"$fake/ok"
chmod +x "$fake/fail" "$fake/ok"
for goal in lab test compare kernel guest bench bench-scale matrix tree; do
	: >"$fake/log"
	if out=$(env -u MAKEFLAGS -u MAKELEVEL make -s -n -j2 -C "$top" DEPS="$fake/fail" "$goal" 2>&1); then
		result 0 "deps_gate:$goal" "make -n $goal went on after DEPS failed: $out"
	elif [ "$(cat "$fake/log")" != deps-ran ] || [ "$(grep -vc 'watchlab: .*failed (exit 3); nothing was built' <<<"$out")" != 0 ]; then
		result 0 "deps_gate:$goal" "want DEPS run once and only its error, got: $out"
	else
		result 1 "deps_gate:$goal"
	fi
done
: >"$fake/log"
if out=$(env -u MAKEFLAGS -u MAKELEVEL make -s -n -C "$top" DEPS="$fake/fail" help clean 2>&1) &&
	[ ! -s "$fake/log" ]; then
	result 1 "deps_gate:help_clean_need_none"
else
	result 0 "deps_gate:help_clean_need_none" "$out"
fi
# make compare names what it needs; a bad LSM name stops every goal.  (The
# lab's own make exports LSM_PATCHES and LSM: these calls must not see them.)
byo_refused() { # byo_refused NAME WANT ARGS...: make -n ARGS fails saying WANT
	local name=$1 want=$2
	shift 2
	if out=$(env -u MAKEFLAGS -u MAKELEVEL -u LSM_PATCHES -u LSM \
		make -s -n -C "$top" DEPS="$fake/ok" "$@" 2>&1); then
		result 0 "byo:$name" "make -n $* went on: $out"
	elif [[ $out == *"$want"* ]]; then
		result 1 "byo:$name"
	else
		result 0 "byo:$name" "want '$want', got: $out"
	fi
}
byo_refused compare_needs_both "needs LSM_PATCHES=DIR and LSM=NAME" compare LSM=mylsm
if out=$(env -u MAKEFLAGS -u MAKELEVEL -u LSM_PATCHES -u LSM make -s -n -C "$top" DEPS="$fake/ok" compare \
	LSM_PATCHES=examples/lsm-uidpost LSM=uidpost 2>&1); then
	result 1 "byo:compare_takes_both"
else
	result 0 "byo:compare_takes_both" "$out"
fi
byo_refused bad_lsm_name "is not an LSM name" lab "LSM=My LSM"
end entry

# The runner runs what registers itself (WL_SUITE, WL_SCENARIO_SUITE...: core/wl.h):
# a suite file that registers nothing compiles and silently never runs.
begin
for f in testcases/runner/suites/*.c; do
	if grep -Eq '^WL_([A-Z]+_)?SUITE(_[A-Z]+)*\(' "$f"; then
		result 1 "registers_a_suite:${f##*/}"
	else
		result 0 "registers_a_suite:${f##*/}" "$f defines no suite (WL_SUITE(name, tests) at the end)"
	fi
done
# The layers (the Makefile's RUNNER_LAYERS, lowest first) and the entry point
# above them: per layer, no upward include, no upward call and no circle, in
# the graph harness/runner_layers.py derives from the includes.
while IFS=$'\t' read -r ok name diag; do
	result "$([ "$ok" = ok ] && echo 1 || echo 0)" "$name" ${diag:+"$diag"}
done < <(python3 harness/runner_layers.py 2>&1 || [ $? = 1 ] ||
	printf 'not ok\trunner_layers_script\tharness/runner_layers.py failed\n')
# docs/workbench.md's walkthrough is the transcript suite_workbench_walkthrough runs:
# the fenced block after its marker must be the file, line for line.
for t in testcases/walkthrough/*.txt; do
	quoted=$(awk -v m="<!-- walkthrough: $t -->" '
		$0 == m { found = 1; next }
		found && /^```/ { if (inside) exit; inside = 1; next }
		inside { print }' docs/workbench.md)
	if [ -z "$quoted" ]; then
		result 0 "readme_quotes:${t##*/}" "docs/workbench.md has no block after <!-- walkthrough: $t -->"
	elif [ "$quoted" = "$(cat "$t")" ]; then
		result 1 "readme_quotes:${t##*/}"
	else
		result 0 "readme_quotes:${t##*/}" "docs/workbench.md's block differs from $t:" \
			"$(diff <(echo "$quoted") "$t" | head -20)"
	fi
done
end runner

begin
while IFS=$'\t' read -r ok name diag; do
	result "$([ "$ok" = ok ] && echo 1 || echo 0)" "$name" ${diag:+"$diag"}
done < <(harness/syscall-numbers.sh "$tree" "${BUILD:-$top/build}/uapi/include" 2>&1 ||
	printf 'not ok\tsyscall_numbers_script\tharness/syscall-numbers.sh failed\n')
end syscalls

begin
while IFS=$'\t' read -r ok name diag; do
	result "$([ "$ok" = ok ] && echo 1 || echo 0)" "$name" ${diag:+"$diag"}
done < <(harness/test-shards.sh 2>&1 || printf 'not ok\ttest_shards_script\tharness/test-shards.sh failed\n')
end shards
