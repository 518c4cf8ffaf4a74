#!/bin/bash
# What a shard ran, for `make report RESULTS=...` to check before it merges
# shards: the tree (commit, plus a hash of any uncommitted change), each
# kernel it used (the patched source's key and the .config, which names the
# compiler), and the boots and host parts it ran.  The initramfs is built
# from the tree and the patched UAPI, both named already.  Two machines that
# build the same tree with the same toolchain agree on every line but
# "parts", although their bzImages differ (build time, host name).
#
# usage: shard-id.sh OBJDIR[:OBJDIR] PART...   prints the shard's record
#        shard-id.sh --tree                    prints its tree line only
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}

cd "$top"
rev=$(git rev-parse HEAD)
# Untracked files count too: a new scenario file changes what the boots ran.
dirty=$({ git diff HEAD; git ls-files --others --exclude-standard | sort |
	xargs -r sha256sum; } | sha256sum | cut -c1-16)
clean=$(printf '' | sha256sum | cut -c1-16)
echo "tree $rev$([ "$dirty" = "$clean" ] || echo "+$dirty")"
[ "${1:-}" != --tree ] || exit 0
[ $# -ge 2 ] || { echo "usage: shard-id.sh OBJDIR[:OBJDIR] PART... | --tree" >&2; exit 2; }
objs=$1
shift
IFS=: read -ra dirs <<<"$objs"
for obj in "${dirs[@]}"; do
	[ -f "$obj/.config" ] || { echo "watchlab: $obj has no .config: not built" >&2; exit 1; }
	echo "kernel $(basename "$obj") $(sha256sum <"$build/linux.patches-key" | cut -c1-16) $(sha256sum <"$obj/.config" | cut -c1-16)"
done
echo "parts $*"
