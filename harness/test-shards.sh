#!/bin/bash
# Tests of harness/shard-merge.sh on made-up shards: two that together make
# a whole run merge, file for file; a missing part, a part run twice, a
# shard of another tree or of another kernel, a folder that is no shard, a
# shard whose boots SUITES reduced and one that replayed a boot from the
# boot cache (unless ALLOW_REPLAY=1) each fail, naming the shard and the
# reason, and leave the output as it was.  harness/shard-id.sh records
# SUITES and the replayed boots.
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
		echo "suites all"
		echo "replayed none"
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
# A make lab shard: SUITES ran only some suites in its boots, or a boot
# was replayed from the boot cache (its status ends in "cached").
shard h "kbuild-lab s1 c1" -- plain
sed -i 's/^suites all$/suites suite_scenarios suite_properties/' "$work/h/shard.txt"
check reduced_shard 1 "$work/h is a reduced shard: SUITES ran only suite_scenarios suite_properties" a h
ALLOW_REPLAY=1 check reduced_shard_allow_replay 1 "$work/h is a reduced shard" a h
shard i "kbuild-lab s1 c1" -- plain
echo "ok 61.5 cached" >"$work/i/console-plain.log.status"
sed -i 's/^replayed none$/replayed plain/' "$work/i/shard.txt"
check replayed_shard 1 "$work/i replayed plain from the boot cache" a i
ALLOW_REPLAY=1 check replayed_shard_allowed 0 "" a i
sed -i 's/^replayed plain$/replayed none/' "$work/i/shard.txt"
check replayed_status_unrecorded 1 "$work/i replayed plain from the boot cache" a i
sed -i '/^suites /d; /^replayed /d' "$work/i/shard.txt"
check record_without_flags 1 "does not say whether SUITES reduced its boots" a i

# What shard-id.sh records: SUITES when it reduced a boot, and the boots
# whose console-*.log.status ends in "cached".
fake=$work/fakebuild
mkdir -p "$fake/kbuild-lab" "$work/res"
echo key >"$fake/linux.patches-key"
echo "CONFIG_X=y" >"$fake/kbuild-lab/.config"
echo "ok 61.5 cached" >"$work/res/console-plain.log.status"
echo "ok 70.1" >"$work/res/console-smack.log.status"
record() { # record NAME WANT-SUITES WANT-REPLAYED [VAR=VALUE...] -- PART...
	local name=$1 suites=$2 replayed=$3 out rc=0
	shift 3
	local vars=()
	while [ "$1" != -- ]; do
		vars+=("$1")
		shift
	done
	shift
	out=$(env BUILD="$fake" "${vars[@]}" "$top/harness/shard-id.sh" "$fake/kbuild-lab" "$work/res" "$@" 2>&1) || rc=$?
	if [ "$rc" = 0 ] && grep -qx "suites $suites" <<<"$out" && grep -qx "replayed $replayed" <<<"$out" &&
		grep -qx "parts $*" <<<"$out"; then
		printf 'ok\t%s\n' "$name"
	else
		printf 'not ok\t%s\twant "suites %s", "replayed %s" and "parts %s"; got exit %s: %s\n' \
			"$name" "$suites" "$replayed" "$*" "$rc" "$(tr '\n' '|' <<<"$out")"
	fi
}
record shard_id_fresh_whole all none SUITES= -- smack host
record shard_id_replayed all plain SUITES= -- plain smack
record shard_id_reduced "suite_a suite_b" none "SUITES=suite_a suite_b" -- smack
record shard_id_suites_without_a_boot all none "SUITES=suite_a" -- host mutants

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
