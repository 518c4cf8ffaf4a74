#!/bin/bash
# Host-side suites, reported as one KTAP document on stdout:
#   lint       - shellcheck on every shell script of the project
#   patches    - checkpatch --strict on each patch in kernel-patches/series;
#                every warning type left must be named in that patch's changelog
#   lsm_style  - checkpatch --strict -f on the watchpol sources
#   report     - the report parser's own tests (harness/test_report.py)
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

count=3
[ -d lsm ] && [ -n "$(ls lsm/*.c 2>/dev/null)" ] && count=4
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
series=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' kernel-patches/series 2>/dev/null || true)
for p in $series; do
	out=$(checkpatch --show-types "$top/kernel-patches/$p" 2>&1) || true
	changelog=$(sed -n '/^Subject:/,/^---$/p' "kernel-patches/$p")
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

if [ "$count" = 4 ]; then
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
if out=$(python3 "$top/harness/test_report.py" 2>&1); then
	result 1 "report_parser" "$(echo "$out" | tail -1)"
else
	result 0 "report_parser" "$(echo "$out" | tail -20)"
fi
end report
