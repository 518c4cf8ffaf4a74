#!/bin/bash
# Check the watch syscalls' numbers against the patched tree's own tables.
# usage: syscall-numbers.sh TREE UAPI_INCLUDE
# Prints one "ok|not ok<TAB>name<TAB>diagnostic" line per check, for
# host-tests.sh.  Every table that defines a watch syscall must give it the
# same number; no other syscall of the tree may use it; it must be above
# every number the tree's mainline syscalls use; it must be none of the
# numbers mainline gave to syscalls after 6.12 (the tree cannot know those);
# the installed UAPI headers must agree; and the runner must not hard-code
# the numbers.
set -eu -o pipefail

tree=$1 uapi=$2
top=$(cd "$(dirname "$0")/.." && pwd)
names="watch_mount watch_sb watch_devices"
# Mainline's syscalls after 6.12 (6.13 to 6.17), which 6.12's tables lack.
mainline_later="463:setxattrat 464:getxattrat 465:listxattrat 466:removexattrat
467:open_tree_attr 468:file_getattr 469:file_setattr"

say() { printf '%s\t%s\t%s\n' "$1" "$2" "${3:-}"; }

# tbl_nr FILE ABI-REGEX NAME: the number of NAME in a syscall.tbl, or empty.
tbl_nr() {
	awk -v abi="$2" -v n="$3" '$1 ~ /^[0-9]+$/ && $2 ~ abi && $3 == n { print $1 }' "$1"
}
# hdr_nr FILE NAME: the value of #define __NR_NAME in a header, or empty.
hdr_nr() {
	sed -n "s/^#define __NR_$2[[:space:]]\{1,\}\([0-9]\{1,\}\).*/\1/p" "$1" 2>/dev/null | head -1
}

x64=$tree/arch/x86/entry/syscalls/syscall_64.tbl
x32=$tree/arch/x86/entry/syscalls/syscall_32.tbl
gen=$tree/scripts/syscall.tbl
genh=$tree/include/uapi/asm-generic/unistd.h

for n in $names; do
	a=$(tbl_nr "$x64" '^(common|64)$' "$n")
	b=$(tbl_nr "$x32" '^i386$' "$n")
	c=$(tbl_nr "$gen" '^(common|64)$' "$n")
	d=$(hdr_nr "$genh" "$n")
	u64=$(hdr_nr "$uapi/asm/unistd_64.h" "$n")
	u32=$(hdr_nr "$uapi/asm/unistd_32.h" "$n")
	if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" = "$c" ] && [ "$a" = "$d" ]; then
		say ok "same_number:$n" "$n is $a in x86_64, i386, scripts/syscall.tbl and asm-generic/unistd.h"
	else
		say "not ok" "same_number:$n" "x86_64 '$a' i386 '$b' syscall.tbl '$c' asm-generic '$d'"
		continue
	fi
	if [ "$u64" = "$a" ] && [ "$u32" = "$a" ]; then
		say ok "uapi_headers:$n"
	else
		say "not ok" "uapi_headers:$n" "installed unistd_64.h '$u64' unistd_32.h '$u32', tables $a"
	fi
	clash=""
	for t in "$x64" "$x32" "$gen"; do
		clash+=$(awk -v nr="$a" -v n="$n" '$1 == nr && $3 != n { print FILENAME ": " $0 }' "$t")
		top_other=$(awk -v w=" $names " '$1 ~ /^[0-9]+$/ && $1 < 512 && index(w, " " $3 " ") == 0 { if ($1 > m) m = $1 } END { print m + 0 }' "$t")
		[ "$a" -gt "$top_other" ] || clash+="$t: $a is not above the tree's own $top_other"$'\n'
	done
	for m in $mainline_later; do
		[ "${m%%:*}" != "$a" ] || clash+="mainline uses $a for ${m#*:}"$'\n'
	done
	if [ -z "$clash" ]; then
		say ok "free_number:$n"
	else
		say "not ok" "free_number:$n" "$clash"
	fi
done

# The runner takes the numbers from the installed UAPI headers only.
if hard=$(grep -rnE '#define[[:space:]]+__NR_watch_|syscall\([0-9]+' "$top/testcases/runner"); then
	say "not ok" "runner_uses_uapi" "$hard"
else
	say ok "runner_uses_uapi"
fi
