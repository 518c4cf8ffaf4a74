#!/bin/bash
# make coverage, once the gcov kernel is built: boot make test's set of
# boots on it, carry each boot's gcov data out of the guest, merge it with
# lcov, write the HTML (genhtml), the per-file summary and each patch's
# diff coverage (harness/coverage.py) into $COV_OUT, and print the
# per-patch table and the totals.
#
# usage: coverage.sh TREE INITRD_ARG... -- BOOT_SPEC...
#   TREE         the tree the gcov kernels were built from (build/linux-cov)
#   INITRD_ARG   harness/initramfs.sh's arguments after OUT.cpio: the guest
#                programs and the SELinux policy (the Makefile's $(INITRD) list)
#   BOOT_SPEC    harness/boot-all.sh's specs, naming the gcov kernels
#
# The guest: images/init.sh, on a kernel with /sys/kernel/debug/gcov, writes
# a gzipped tar of the .gcda files in base64 to its second serial port,
# ttyS1, between "WATCHLAB-GCOV-BEGIN N" and "WATCHLAB-GCOV-END";
# harness/boot.sh (BOOT_TTYS1=1) saves ttyS1 as console-NAME.log.ttyS1.
# Work files go to $BUILD/cov-* (cov-boot: the boots' own BUILD, with its
# initramfs and a link to the guest programs; cov-data: the gcda and .info
# files; cov-am: the series applied with git am, for git blame).
# The answers to the lines no boot executes: testcases/coverage-answers
# (COV_ANSWERS names another file), parsed before any boot so that a
# malformed one stops the run at once; uncovered.md gives each line its
# answer and the counts are printed last.
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
out=${COV_OUT:-$top/results/coverage}
tree=$1
shift
initrd_args=()
while [ "$1" != -- ]; do
	initrd_args+=("$1")
	shift
done
shift
specs=("$@")
answers=${COV_ANSWERS:-$top/testcases/coverage-answers}
"$top/harness/coverage.py" --check "$answers"

say() { echo "watchlab: coverage: $*"; }
start=$(date +%s)

boot=$build/cov-boot
data=$build/cov-data
results=$boot/results
rm -rf "$results" "$data"
mkdir -p "$boot" "$results" "$data"

# 1. The initramfs: make test's guest programs, packed with this
# checkout's images/init.sh (the one that writes the gcov data out).
ln -sfn "$build/guest" "$boot/guest"
"$top/harness/initramfs.sh" "$boot/initramfs.cpio" "${initrd_args[@]}"

# 2. The boots, as make test boots them, on the gcov kernels.
say "booting ${#specs[@]} boots on the gcov kernel"
BUILD=$boot RESULTS=$results BOOT_TTYS1=1 FRESH=1 "$top/harness/boot-all.sh" "${specs[@]}" ||
	say "a boot failed (its coverage counts if its data came out; see $results)"

# link_gcno DIR OBJ: beside each .gcda file under DIR, a link to the .gcno
# file of the kernel build OBJ that lcov reads with it.
link_gcno() {
	find "$1" -name '*.gcda' | while read -r f; do
		rel=${f#"$1"/}
		ln -sf "$2/${rel%.gcda}.gcno" "${f%.gcda}.gcno"
	done
}

# suite_counters DIR OBJ OUT: the runner's copies of the counters, before
# the first suite and after each (DIR/suites/NNN-SUITE,
# testcases/runner/lib/gcov_suites.c), each captured by lcov into
# OUT/NNN-SUITE.info, two at a time: harness/coverage.py credits each line
# to the suites during which its count grew (lines.json's "suites").
suite_counters() {
	local copy
	[ -d "$1/suites" ] || return 0
	rm -rf "$3"
	mkdir -p "$3"
	# shellcheck disable=SC2016 # expanded by xargs' sh, one copy a call
	for copy in "$1"/suites/*/; do
		copy=${copy%/}
		link_gcno "$copy/${2#/}" "$2"
		printf '%s\0' "$copy"
	done | OBJ=$2 OUT=$3 xargs -0 -r -P 2 -n 1 sh -c \
		'lcov -q --capture --directory "$1/${OBJ#/}" --output-file "$OUT/${1##*/}.info" 2>/dev/null' _ ||
		say "$(basename "$3" .suites): lcov failed on a suite's counters"
	say "$(basename "$3" .suites): counters of $(find "$3" -name '*.info' | wc -l) suites"
}

# 3. Each boot's data, out of its ttyS1 log, into a folder of its own
# beside links to the .gcno files of its kernel's build, then lcov.
infos=()
for spec in "${specs[@]}"; do
	IFS=: read -r obj _ name _ <<<"$spec"
	tty=$results/console-$name.log.ttyS1
	dir=$data/$name
	mkdir -p "$dir"
	if ! [ -s "$tty" ] || ! grep -q '^WATCHLAB-GCOV-END' "$tty"; then
		say "$name: no gcov data came out (no complete $tty)"
		continue
	fi
	n=$(sed -n 's/^WATCHLAB-GCOV-BEGIN \([0-9]*\).*/\1/p' "$tty" | tr -d '\r')
	sed -n '/^WATCHLAB-GCOV-BEGIN/,/^WATCHLAB-GCOV-END/p' "$tty" | sed '1d;$d' | tr -d '\r' |
		base64 -d | tar -xzf - -C "$dir"
	# The guest's paths are the build's: gcov/<OBJ>/fs/namespace.gcda.
	if ! [ -d "$dir/${obj#/}" ]; then
		say "$name: the gcov data names no file of $obj"
		continue
	fi
	got=$(find "$dir/${obj#/}" -name '*.gcda' | wc -l)
	[ "$got" = "$n" ] || say "$name: $got of the $n .gcda files the guest sent"
	link_gcno "$dir/${obj#/}" "$obj"
	lcov -q --capture --rc lcov_branch_coverage=1 --test-name "${name//-/_}" \
		--directory "$dir/${obj#/}" --output-file "$data/$name.info" 2>"$data/$name.lcov.log" || {
		say "$name: lcov failed ($data/$name.lcov.log)"
		continue
	}
	infos+=(--add-tracefile "$data/$name.info")
	say "$name: $got .gcda files"
	suite_counters "$dir" "$obj" "$data/$name.suites"
	# How long each suite took in this boot (the runner's "# SUITE took N s"):
	# what narrowing a generated mutant to some suites would save.
	[ ! -d "$data/$name.suites" ] ||
		sed -n 's/^ *# \(suite_[^ ]*\) took \([0-9.]*\) s.*/\1 \2/p' \
			"$results/console-$name.log" | tr -d '\r' >"$data/$name.suites/seconds"
done
[ "${#infos[@]}" -gt 0 ] || { say "no boot gave coverage data" >&2; exit 1; }
lcov -q --rc lcov_branch_coverage=1 "${infos[@]}" --output-file "$data/all.info"
lcov -q --rc lcov_branch_coverage=1 --extract "$data/all.info" "$(realpath "$tree")/*" \
	--output-file "$data/tree.info"

# 4. The series applied with git am onto the pristine copies of the files
# it touches (harness/series-lib.sh), one commit a patch, for git blame.
# shellcheck source=harness/series-lib.sh
. "$top/harness/series-lib.sh"
series_patches
am=$build/cov-am
key=$(sha256sum "${patches[@]}" | sha256sum | cut -d' ' -f1)
if [ "$(cat "$am.key" 2>/dev/null)" != "$key" ]; then
	say "git am of ${#patches[@]} patches onto pristine 6.12 (for git blame)"
	rm -rf "$am" "$am.pristine" "$am.key"
	mkdir -p "$am.pristine"
	# Only the files the series touches; the ones it creates are no members.
	touched "${patches[@]}" | sed 's|^|linux-source-6.12/|' >"$am.files"
	tar -C "$am.pristine" --strip-components=1 --verbatim-files-from -T "$am.files" \
		-xf /usr/src/linux-source-6.12.tar.xz 2>/dev/null || true
	pristine_repo "$am" "$am.pristine"
	: >"$am.commits"
	for p in "${patches[@]}"; do
		git -C "$am" -c user.name=watchlab -c user.email=watchlab@localhost am -q "$p" >/dev/null
		echo "$(git -C "$am" rev-parse HEAD) ${p##*/}" >>"$am.commits"
	done
	rm -rf "$am.pristine" "$am.files"
	echo "$key" >"$am.key"
fi

# 5. The report.
rm -rf "$out"
mkdir -p "$out"
genhtml -q --branch-coverage --prefix "$(realpath "$tree")" --title "watchlab: the series and watchpol" \
	--output-directory "$out/html" "$data/tree.info" >"$data/genhtml.log" 2>&1 ||
	say "genhtml failed ($data/genhtml.log)"
cp "$data/tree.info" "$out/coverage.info"
for spec in "${specs[@]}"; do
	IFS=: read -r _ _ name _ <<<"$spec"
	echo "$name $(cat "$results/console-$name.log.status" 2>/dev/null || echo missing)"
done >"$out/boots.txt"
"$top/harness/coverage.py" --suites "$data" "$data/tree.info" "$tree" "$am" "$am.commits" "$out" "$answers"
say "boots: $(tr '\n' ';' <"$out/boots.txt" | sed 's/;$//; s/;/; /g')"
say "results in ${out#"$top"/}/ (summary.md, uncovered.md with the answers, html/index.html) in $(($(date +%s) - start)) s"
