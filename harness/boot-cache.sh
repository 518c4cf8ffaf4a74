#!/bin/bash
# The boot cache: a boot is a function of its kernel, initramfs, command line
# and QEMU, so a boot of the same inputs whose report passed is replayed
# instead of booted again.  Only a passing report commits a boot to the
# cache; a failing one empties it, so a failure is never replayed.
#
# usage: boot-cache.sh begin                 a run starts: forget pending boots
#        boot-cache.sh replay NAME KEY LOG   exit 0 if the cache held KEY
#                                            (LOG and LOG.status written)
#        boot-cache.sh store NAME KEY LOG    keep a finished boot, pending
#        boot-cache.sh commit                the report passed: keep pending
#        boot-cache.sh drop                  the report failed: forget all
#        boot-cache.sh key FILE... -- WORD...  print the key of these inputs
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${BUILD:-$top/build}/boot-cache

key() {
	local files=()
	while [ "$1" != -- ]; do
		files+=("$1")
		shift
	done
	shift
	{
		sha256sum "${files[@]}" | cut -d' ' -f1
		echo "$*"
		qemu-system-x86_64 --version | head -1
	} | sha256sum | cut -d' ' -f1
}

replay() {
	local name=$1 key=$2 log=$3 secs
	[ -f "$cache/$name/key" ] && [ "$(cat "$cache/$name/key")" = "$key" ] || return 1
	cp "$cache/$name/console.log" "$log"
	read -r _ secs _ <"$cache/$name/console.log.status"
	echo "ok $secs cached" >"$log.status"
	date -r "$cache/$name/key" '+%F %T'
}

begin() {
	rm -rf "$cache"/*.pending
}

store() {
	local name=$1 key=$2 log=$3
	rm -rf "$cache/$name.pending"
	mkdir -p "$cache/$name.pending"
	cp "$log" "$cache/$name.pending/console.log"
	cp "$log.status" "$cache/$name.pending/console.log.status"
	echo "$key" >"$cache/$name.pending/key"
}

commit() {
	local pending
	for pending in "$cache"/*.pending; do
		[ -d "$pending" ] || continue
		rm -rf "${pending%.pending}"
		mv "$pending" "${pending%.pending}"
	done
}

drop() {
	rm -rf "$cache"
}

cmd=${1:-}
shift || true
case $cmd in
begin | key | replay | store | commit | drop) "$cmd" "$@" ;;
*)
	echo "usage: boot-cache.sh begin|key|replay|store|commit|drop ..." >&2
	exit 2
	;;
esac
