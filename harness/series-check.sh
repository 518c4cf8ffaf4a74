#!/bin/bash
# make series-check: does kernel-patches/series apply with `git am` to
# pristine 6.12, does each patch build on top of the ones before it, and
# is checkpatch --strict free of errors on every patch?
#
#  1. git am: the pristine versions of every file the series touches go in
#     a scratch git repository, and `git am` applies the series to it in
#     order (git am needs only the files a patch names).
#  2. Patch by patch, in build/series-check/linux (a pristine extraction of
#     its own, never build/linux): apply the next patch (patch --fuzz=0, as
#     harness/kernel-tree.sh does), configure with the lab's fragments
#     (tinyconfig + kvm_guest.config + images/lab.config; an option a patch
#     has not introduced yet is simply absent), run `make prepare`, then
#     compile every object of a C file that this patch or an earlier one
#     touches and that the lab kernel builds.  Each header a patch changes
#     is so compiled by every C file of the series that uses it, but not by
#     the rest of the kernel: a full build after every patch would rebuild
#     most of the tree several times over (0002 and 0006 change
#     linux/fs.h, 0003 linux/security.h), about an hour on two cores.
#     lsm/ is grafted in as security/watchpol/ right after the patch that
#     makes the kernel build it, as kernel-tree.sh grafts it after all.
#  3. The whole series: the lab kernel's own full build, as make kernel
#     does it, in build/series-check/lab (never build/kbuild-lab).
#  4. checkpatch --strict on every patch: the number of ERRORs.
#  5. The upstream export (harness/series-export.sh) with a test identity:
#     it must apply, differ from the lab's tree only in watchpol's Kconfig
#     `source` line, name no placeholder, and pass checkpatch --strict with
#     no ERROR, watchpol's sources included.
#  6. The maintainers' checks on the whole series, each against pristine
#     6.12 at the same .config (harness/series_lint.py says how): sparse
#     and W=1 (make C=2 W=1) of the objects step 2 compiles, coccicheck in
#     report mode and kernel-doc -Wall on the series' files.  A new finding
#     fails unless the changelog of the patch that wrote its line names the
#     tool and quotes the message.
# Compiler warnings in the series' files count as failures in step 2.
# Not part of make test.  Exits 1 if any step failed.
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
work=$build/series-check
tree=$work/linux
obj=$work/obj
tarball=/usr/src/linux-source-6.12.tar.xz
log=$work/series-check.log

say() { echo "watchlab: series-check: $*"; }

[ -f "$tarball" ] || { echo "watchlab: $tarball missing (apt-get install linux-source-6.12)" >&2; exit 1; }
# shellcheck source=harness/series-lib.sh
. "$top/harness/series-lib.sh"
series_patches

# Everything but the lab kernel's folder, which kernel-tree.sh and kbuild
# bring up to date (step 6 puts its tree back as it found it).
if [ -d "$work" ]; then
	find "$work" -mindepth 1 -maxdepth 1 ! -name lab -exec rm -rf {} +
fi
mkdir -p "$tree" "$obj"
: >"$log"

# The lab kernel first: its objects say which files the lab builds, and
# its build is step 3.  It is built as make kernel builds it, but in
# series-check's own folders ($work/lab: never build/linux or
# build/kbuild-lab, which a make test may be using); the paths relative to
# CCACHE_BASEDIR are the same, so it hits the lab kernel's cache entries.
say "3. the whole series: the lab kernel (as make kernel, in ${work#"$top"/}/lab)"
lab_obj=$work/lab/kbuild-lab
(
	export BUILD=$work/lab
	unset LSM_PATCHES
	nice -n 10 "$top/harness/kernel-tree.sh"
	nice -n 10 "$top/harness/kernel-config.sh" "$lab_obj" "$top/images/lab.config" >/dev/null
	nice -n 10 "$top/harness/kernel-build.sh" "$lab_obj"
)
say "extracting pristine linux-source-6.12 into ${tree#"$top"/}"
tar -C "$tree" --strip-components=1 -xf "$tarball"

fail=0

# 1. git am onto the pristine copies of the touched files.
say "1. git am of ${#patches[@]} patches onto pristine 6.12"
am=$work/am
pristine_repo "$am" "$tree"
for p in "${patches[@]}"; do
	if git -C "$am" -c user.name=watchlab -c user.email=watchlab@localhost am -q "$p" >>"$log" 2>&1; then
		echo "  git am ok      ${p##*/}"
	else
		echo "  git am FAILED  ${p##*/} (see ${log#"$top"/})"
		git -C "$am" am --abort >/dev/null 2>&1 || true
		fail=1
		break
	fi
done

# 2. Patch by patch.
configure() {
	make -s -C "$tree" O="$obj" tinyconfig >/dev/null
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
		"$tree/kernel/configs/kvm_guest.config" "$top/images/lab.config" >>"$log" 2>&1
	make -s -C "$tree" O="$obj" olddefconfig >/dev/null 2>>"$log"
}

export CCACHE_BASEDIR=$build CCACHE_NOHASHDIR=1 CCACHE_DEPEND=1
kmake() {
	env -u MAKEFLAGS -u MFLAGS nice -n 19 make -C "$tree" O="$obj" \
		CC="$top/harness/kernel-cc.sh" HOSTCC="ccache gcc" -j"$(nproc)" "$@"
}

say "2. each patch on the ones before it (log: ${log#"$top"/})"
grafted=0
applied=0
series_c=()
for p in "${patches[@]}"; do
	name=${p##*/}
	if ! out=$(cd "$tree" && patch -p1 --forward --batch --fuzz=0 --no-backup-if-mismatch <"$p" 2>&1); then
		echo "  apply FAILED   $name"
		echo "$out" >>"$log"
		fail=1
		break
	fi
	applied=$((applied + 1))
	if [ "$grafted" = 0 ] && grep -q 'watchpol/' "$tree/security/Makefile" 2>/dev/null; then
		mkdir -p "$tree/security/watchpol"
		rsync -rlc --exclude=README.md "$top/lsm/" "$tree/security/watchpol/"
		grafted=1
	fi
	while read -r f; do
		case $f in
		tools/* | Documentation/* | samples/*) ;;
		*.c) series_c+=("$f") ;;
		# The syscall tables compile into these.
		*syscall*.tbl) series_c+=(arch/x86/entry/syscall_64.c arch/x86/entry/syscall_32.c) ;;
		esac
	done < <(touched "$p")
	if [ "$grafted" = 1 ]; then
		for f in "$tree"/security/watchpol/*.c; do
			series_c+=("${f#"$tree"/}")
		done
	fi
	objs=()
	for f in $(printf '%s\n' "${series_c[@]}" | sort -u); do
		[ -f "$tree/$f" ] && [ -f "$lab_obj/${f%.c}.o" ] && objs+=("${f%.c}.o")
	done
	configure
	echo "=== $name: ${objs[*]}" >>"$log"
	[ "${#objs[@]}" -eq 0 ] || rm -f "${objs[@]/#/$obj/}"
	# A single-object target runs `make prepare` first.
	[ "${#objs[@]}" -gt 0 ] || objs=(prepare)
	if ! kout=$(kmake "${objs[@]}" 2>&1); then
		echo "  build FAILED   $name"
		echo "$kout" >>"$log"
		echo "$kout" | grep -E 'error|Error' | head -5 | sed 's/^/      /'
		fail=1
		continue
	fi
	echo "$kout" >>"$log"
	if grep -q 'warning:' <<<"$kout"; then
		echo "  build WARNS    $name: $(grep -c 'warning:' <<<"$kout") warning(s)"
		grep 'warning:' <<<"$kout" | head -5 | sed 's/^/      /'
		fail=1
	else
		echo "  build ok       $name (${#objs[@]} objects)"
	fi
done

# 4. checkpatch --strict, from the patched tree (no git repository: the
# git-only checks are skipped).
say "4. checkpatch --strict"
errors=0
for p in "${patches[@]}"; do
	out=$(cd "$tree" && ./scripts/checkpatch.pl --strict --terse --no-summary "$p" 2>&1) || true
	n=$(grep -c ': ERROR:' <<<"$out" || true)
	[ "$n" = 0 ] || echo "  checkpatch: $n ERROR(s) in ${p##*/}"
	errors=$((errors + n))
done
echo "  checkpatch --strict: $errors ERROR(s) in ${#patches[@]} patches"
[ "$errors" = 0 ] || fail=1

# 5. The upstream export.
say "5. the upstream export (make series-export), author A. U. Thor <author@example.org>"
export_dir=$work/export
if EXPORT_TEST=1 EXPORT_DIR=$export_dir BUILD=$work PRISTINE_REPO=$am AUTHOR='A. U. Thor <author@example.org>' \
	"$top/harness/series-export.sh" >>"$log" 2>&1; then
	# The export's tree against step 2's (the series and the graft, no
	# LSM_PATCHES): only the Kconfig line may differ.
	exp_tree=$work/series-export.git
	diffs=$(cd "$exp_tree" && git ls-files | while read -r f; do
		cmp -s "$f" "$tree/$f" || echo "$f"
	done)
	if [ "$diffs" != "security/Kconfig" ]; then
		echo "  export differs from the lab's tree in: $(echo "$diffs" | tr '\n' ' ')"
		fail=1
	fi
	errors=0
	for p in "$export_dir"/0*.patch; do
		[ "${p##*/}" != 0000-cover-letter.patch ] || continue
		out=$(cd "$tree" && ./scripts/checkpatch.pl --strict --terse --no-summary "$p" 2>&1) || true
		n=$(grep -c ': ERROR:' <<<"$out" || true)
		[ "$n" = 0 ] || echo "  checkpatch: $n ERROR(s) in export ${p##*/}"
		errors=$((errors + n))
	done
	echo "  export: $(find "$export_dir" -name '0*.patch' | wc -l) files, checkpatch --strict: $errors ERROR(s)"
	[ "$errors" = 0 ] || fail=1
else
	echo "  export FAILED (see ${log#"$top"/})"
	fail=1
fi

# 6. The maintainers' checks on the whole series (harness/series_lint.py):
# sparse, W=1, coccinelle and kernel-doc, compared with pristine 6.12.
say "6. sparse (make C=2), W=1, coccicheck and kernel-doc -Wall: new findings only"
if [ "$applied" = "${#patches[@]}" ]; then
	start=$(date +%s)
	nice -n 10 python3 "$top/harness/series_lint.py" "$work" "${patches[@]}" || fail=1
	echo "  step 6 took $(($(date +%s) - start)) s"
else
	echo "  skipped: the series did not apply"
	fail=1
fi

if [ "$fail" = 0 ]; then
	say "every patch applies with git am and builds on the ones before it"
else
	say "FAILED (see above and ${log#"$top"/})"
fi
exit "$fail"
