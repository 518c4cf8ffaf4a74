#!/bin/bash
# make coverage's kernel tree: build/linux-cov, patched as build/linux is
# (harness/kernel-tree.sh with KERNEL_TREE), then gcov profiling switched
# on for the objects the series touches and for all of security/watchpol/:
# a "GCOV_PROFILE_<obj>.o := y" line appended to the kbuild file (Kbuild,
# else Makefile) of each directory holding a .c file a patch of
# kernel-patches/series touches, and "GCOV_PROFILE := y" to watchpol's.
# The object list is derived from the patches each run, so a new patch is
# covered with no list edited.  build/linux and the other kernels are left
# alone.  Idempotent: the appended block is replaced, and a kbuild file is
# written only when its text changes.
# usage: coverage-tree.sh TREE
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tree=$1
marker="# watchlab coverage (harness/coverage-tree.sh): gcov for the series' objects"

KERNEL_TREE=$tree "$top/harness/kernel-tree.sh"

# shellcheck source=harness/series-lib.sh
. "$top/harness/series-lib.sh"
series_patches

# The kernel's own .c files the series touches (not tools/ or samples/,
# which are no kernel objects), as DIR FILE.c.
declare -A lines
while read -r f; do
	case $f in
	*.c) ;;
	*) continue ;;
	esac
	case $f in
	tools/* | samples/* | Documentation/* | security/watchpol/*) continue ;;
	esac
	[ -f "$tree/$f" ] || continue
	d=$(dirname "$f") b=$(basename "$f" .c)
	lines[$d]+="GCOV_PROFILE_$b.o := y"$'\n'
done < <(touched "${patches[@]}")
lines[security/watchpol]="GCOV_PROFILE := y"$'\n'

n=0
for d in "${!lines[@]}"; do
	kfile=$tree/$d/Makefile
	[ -f "$tree/$d/Kbuild" ] && kfile=$tree/$d/Kbuild
	[ -f "$kfile" ] || { echo "watchlab: no kbuild file for $d in $tree" >&2; exit 1; }
	old=$(cat "$kfile")
	base=$(awk -v m="$marker" '$0 == m { exit } { print }' "$kfile")
	new=$base$'\n'$marker$'\n'${lines[$d]%$'\n'}
	if [ "$new" != "$old" ]; then
		printf '%s\n' "$new" >"$kfile"
	fi
	n=$((n + $(printf '%s' "${lines[$d]}" | grep -c .)))
done
echo "watchlab: gcov on in $tree for $n object lines in ${#lines[@]} directories"
