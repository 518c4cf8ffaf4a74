#!/bin/bash
# Tests of harness/shard-merge.sh on made-up shards: two that together make
# a whole run merge, file for file; a missing part, a part run twice, a
# shard of another tree or of another kernel, and a folder that is no
# shard each fail, naming the reason, and leave the output as it was.
# Then harness/kernel-artifacts.sh take refuses a kernel of another .config
# or another patched source, and a folder without the kernel, before it
# touches the build (when this checkout's lab kernel is configured).
# Prints one line per test: ok|not ok <TAB> name [<TAB> diagnostic].
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
merge=$top/harness/shard-merge.sh
tree=$("$top/harness/shard-id.sh" --tree)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
parts="plain-debug plain host"

# shard DIR KERNEL-LINE... -- PART...: a results folder that ran PARTs
shard() {
	local dir=$work/$1 part
	shift
	mkdir -p "$dir"
	{
		echo "$tree"
		while [ "$1" != -- ]; do
			echo "kernel $1"
			shift
		done
		shift
		echo "parts $*"
	} >"$dir/shard.txt"
	for part in "$@"; do
		case $part in
		host) echo "ok 1 host" >"$dir/host.ktap" ;;
		*) echo "console of $part" >"$dir/console-$part.log"
			echo "ok 1 s" >"$dir/console-$part.log.status"
			echo "manifest of $part" >"$dir/manifest-$part.ktap" ;;
		esac
	done
}

# check NAME WANT-STATUS WANT-TEXT SHARD...: the merge's status and message
check() {
	local name=$1 want=$2 text=$3 out rc=0
	shift 3
	rm -rf "$work/out"
	mkdir -p "$work/out"
	echo before >"$work/out/keep"
	out=$("$merge" "$work/out" "$parts" "${@/#/$work/}" 2>&1) || rc=$?
	if [ "$want" = 0 ] && [ "$rc" = 0 ] && [ ! -e "$work/out/keep" ]; then
		printf 'ok\t%s\n' "$name"
	elif [ "$want" != 0 ] && [ "$rc" != 0 ] && [[ $out == *"$text"* ]] &&
		[ -e "$work/out/keep" ]; then
		printf 'ok\t%s\t%s\n' "$name" "$out"
	else
		printf 'not ok\t%s\twant exit %s and "%s", output kept on failure; got exit %s: %s\n' \
			"$name" "$want" "$text" "$rc" "$out"
	fi
}

shard a "kbuild-lab s1 c1" "kbuild-debug s1 c2" -- plain-debug host
shard b "kbuild-lab s1 c1" -- plain
check merges_two_shards 0 "" a b
if cmp -s "$work/a/console-plain-debug.log" "$work/out/console-plain-debug.log" &&
	cmp -s "$work/b/manifest-plain.ktap" "$work/out/manifest-plain.ktap" &&
	[ -f "$work/out/host.ktap" ] && [ "$(grep -c '^parts' "$work/out/shards.txt")" = 2 ]; then
	printf 'ok\tmerged_files\n'
else
	printf 'not ok\tmerged_files\t%s\n' "$(ls "$work/out")"
fi
check missing_part 1 "no shard ran: plain" a
shard c "kbuild-lab s1 c1" -- plain host
check part_twice 1 "host ran in two shards" a c
shard d "kbuild-lab s1 c9" -- plain
check other_kernel 1 "ran another kbuild-lab kernel" a d
shard e "kbuild-lab s1 c1" -- plain
sed -i 's/^tree .*/tree 0000000000000000000000000000000000000000/' "$work/e/shard.txt"
check other_tree 1 "comes from another tree" a e
mkdir -p "$work/f"
check not_a_shard 1 "no shard.txt" a b f
shard g "kbuild-lab s1 c1" -- plain selinux
check unknown_part 1 "ran selinux, which a whole run does not" a g

# take_refuses NAME TEXT: kernel-artifacts.sh take of $work/kart fails with TEXT
build=${BUILD:-$top/build}
obj=$build/kbuild-lab
take_refuses() {
	local out rc=0 before after
	before=$(stat -c %Y "$obj/.config" "$obj/build.log" 2>/dev/null || true)
	out=$("$top/harness/kernel-artifacts.sh" take "$work/kart" "$obj" 2>&1) || rc=$?
	after=$(stat -c %Y "$obj/.config" "$obj/build.log" 2>/dev/null || true)
	if [ "$rc" != 0 ] && [[ $out == *"$2"* ]] && [ "$before" = "$after" ]; then
		printf 'ok\t%s\t%s\n' "$1" "$out"
	else
		printf 'not ok\t%s\twant a refusal naming "%s", the build untouched; got exit %s: %s\n' \
			"$1" "$2" "$rc" "$out"
	fi
}
if [ -f "$obj/.config" ] && [ -f "$build/linux.patches-key" ]; then
	mkdir -p "$work/kart/kbuild-lab"
	cp "$build/linux.patches-key" "$work/kart/"
	echo "not a kernel" >"$work/kart/kbuild-lab/bzImage"
	{ cat "$obj/.config"; echo "CONFIG_WATCHLAB_OTHER=y"; } >"$work/kart/kbuild-lab/config"
	take_refuses take_other_config "another .config"
	cp "$obj/.config" "$work/kart/kbuild-lab/config"
	echo 0 >"$work/kart/linux.patches-key"
	take_refuses take_other_source "another patched source"
	rm "$work/kart/kbuild-lab/bzImage"
	take_refuses take_no_kernel "no kbuild-lab kernel there"
else
	printf 'not ok\ttake_refusals\tno configured lab kernel in %s to test against\n' "$build"
fi
