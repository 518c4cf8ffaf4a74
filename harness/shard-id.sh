#!/bin/bash
# What a shard ran, for `make report RESULTS=...` to check before it merges
# shards: the tree (commit, plus a hash of any uncommitted change), each
# kernel it used (the patched source's key and the .config, which names the
# compiler), the boots and host parts it ran, whether SUITES reduced its
# boots ("suites all", or the suites SUITES named) and which of its boots
# were replayed from the boot cache ("replayed none", or their names: their
# console-NAME.log.status in RESULTS_DIR ends in "cached").  The initramfs
# is built from the tree and the patched UAPI, both named already.  Two
# machines that build the same tree with the same toolchain agree on every
# line but "parts", although their bzImages differ (build time, host name).
#
# usage: shard-id.sh OBJDIR[:OBJDIR] RESULTS_DIR PART...   prints the record
#        shard-id.sh --tree                    prints its tree line only
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}

cd "$top"
# WATCHLAB_TREE: the tree line's value for a copy of the tree that is not
# a git work tree (harness/mutants.sh's slots, which name their tree key).
if [ -n "${WATCHLAB_TREE:-}" ]; then
	echo "tree $WATCHLAB_TREE"
else
	rev=$(git rev-parse HEAD)
	# Untracked files count too: a new scenario file changes what the boots ran.
	dirty=$({ git diff HEAD; git ls-files --others --exclude-standard | sort |
		xargs -r sha256sum; } | sha256sum | cut -c1-16)
	clean=$(printf '' | sha256sum | cut -c1-16)
	echo "tree $rev$([ "$dirty" = "$clean" ] || echo "+$dirty")"
fi
[ "${1:-}" != --tree ] || exit 0
[ $# -ge 3 ] || { echo "usage: shard-id.sh OBJDIR[:OBJDIR] RESULTS_DIR PART... | --tree" >&2; exit 2; }
objs=$1 results=$2
shift 2
IFS=: read -ra dirs <<<"$objs"
for obj in "${dirs[@]}"; do
	[ -f "$obj/.config" ] || { echo "watchlab: $obj has no .config: not built" >&2; exit 1; }
	echo "kernel $(basename "$obj") $(sha256sum <"$build/linux.patches-key" | cut -c1-16) $(sha256sum <"$obj/.config" | cut -c1-16)"
done
echo "parts $*"
# A boot part leaves its status in RESULTS_DIR (harness/boot.sh); the host
# parts leave none, and SUITES does not reduce them.
booted=0
replayed=()
for part in "$@"; do
	status=$results/console-$part.log.status
	[ -f "$status" ] || continue
	booted=1
	case $(cat "$status") in *" cached") replayed+=("$part") ;; esac
done
read -ra only <<<"${SUITES:-}"
if [ "$booted" = 1 ] && [ ${#only[@]} -gt 0 ]; then
	echo "suites ${only[*]}"
else
	echo "suites all"
fi
if [ ${#replayed[@]} -gt 0 ]; then
	echo "replayed ${replayed[*]}"
else
	echo "replayed none"
fi
