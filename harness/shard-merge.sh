#!/bin/bash
# Merge shards: results folders of runs that each ran some of make test's
# boots and host parts (make test BOOTS="..."), into one results folder that
# the report then judges as one whole run.  Refuses, changing nothing, when
# a shard has no record (shard.txt), comes from another tree than this
# checkout or another kernel than the other shards, runs a part another
# shard ran too, or when a part is missing from every shard.  A whole run
# runs every suite and boots every boot afresh, so it also refuses a shard
# whose boots SUITES reduced (make lab SUITES=...), and one that replayed a
# boot from the boot cache (its record, or a console-*.log.status ending
# in "cached", says so) unless ALLOW_REPLAY=1.
#
# usage: [ALLOW_REPLAY=1] shard-merge.sh OUT "PART..." SHARD_DIR...
#        PART...: every part a whole run has (the Makefile's list)
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 3 ] || { echo "usage: shard-merge.sh OUT \"PART...\" SHARD_DIR..." >&2; exit 2; }
out=$1 want=$2
shift 2

fail() {
	echo "watchlab: make report: $*" >&2
	exit 1
}

here=$("$top/harness/shard-id.sh" --tree | sed -n 's/^tree //p')
declare -A owner kernel
for dir in "$@"; do
	rec=$dir/shard.txt
	[ -f "$rec" ] || fail "$dir is not a shard: no shard.txt (make test BOOTS=... writes it)"
	tree=$(sed -n 's/^tree //p' "$rec")
	[ "$tree" = "$here" ] ||
		fail "$dir comes from another tree: $tree, this checkout is $here"
	while read -r _ name src config; do
		[ -n "${kernel[$name]:-}" ] || kernel[$name]="$src $config $dir"
		[ "${kernel[$name]% *}" = "$src $config" ] ||
			fail "$dir ran another $name kernel than ${kernel[$name]##* } (source and .config $src $config, there ${kernel[$name]% *})"
	done < <(grep '^kernel ' "$rec")
	read -ra parts <<<"$(sed -n 's/^parts //p' "$rec")"
	for part in "${parts[@]}"; do
		[ -z "${owner[$part]:-}" ] || fail "$part ran in two shards: ${owner[$part]} and $dir"
		owner[$part]=$dir
	done
	suites=$(sed -n 's/^suites //p' "$rec")
	read -ra replayed <<<"$(sed -n 's/^replayed //p' "$rec")"
	if [ -z "$suites" ] || [ ${#replayed[@]} = 0 ]; then
		fail "$dir's shard.txt does not say whether SUITES reduced its boots or whether it replayed any (harness/shard-id.sh writes both)"
	fi
	[ "$suites" = all ] ||
		fail "$dir is a reduced shard: SUITES ran only $suites in its boots, and a whole run runs every suite; run that shard again without SUITES (make test BOOTS=...)"
	[ "${replayed[*]}" != none ] || replayed=()
	for part in "${parts[@]}"; do
		case " ${replayed[*]} " in *" $part "*) continue ;; esac
		case $(cat "$dir/console-$part.log.status" 2>/dev/null) in
		*" cached") replayed+=("$part") ;;
		esac
	done
	[ ${#replayed[@]} = 0 ] || [ "${ALLOW_REPLAY:-0}" = 1 ] ||
		fail "$dir replayed ${replayed[*]} from the boot cache: an earlier run's results, and a whole run boots every boot again; run that shard with make test BOOTS=..., or merge with ALLOW_REPLAY=1 to count them"
done
missing=""
for part in $want; do
	[ -n "${owner[$part]:-}" ] || missing="$missing $part"
done
[ -z "$missing" ] || fail "no shard ran:$missing"
for part in "${!owner[@]}"; do
	case " $want " in *" $part "*) ;; *) fail "${owner[$part]} ran $part, which a whole run does not" ;; esac
done

# Into a new folder first: a shard may be OUT itself (results/latest).
new=$out.merge.$$
rm -rf "$new"
mkdir -p "$new"
trap 'rm -rf "$new"' EXIT
for part in $want; do
	dir=${owner[$part]}
	case $part in
	host) cp "$dir/host.ktap" "$new/" ;;
	lava) cp "$dir/lava.ktap" "$new/"
		[ ! -d "$dir/lava" ] || cp -r "$dir/lava" "$new/" ;;
	mutants) cp "$dir/mutants.ktap" "$dir/mutants.log" "$new/"
		[ ! -d "$dir/mutants" ] || cp -r "$dir/mutants" "$new/" ;;
	*) cp "$dir/console-$part.log" "$dir/console-$part.log.status" \
		"$dir/manifest-$part.ktap" "$new/" ;;
	esac
done
for dir in "$@"; do
	cat "$dir/shard.txt"
done >"$new/shards.txt"
rm -rf "$out"
mv "$new" "$out"
trap - EXIT
echo "watchlab: merged $# shards ($*) into ${out#"$top"/}"
