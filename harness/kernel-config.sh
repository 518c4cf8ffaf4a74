#!/bin/bash
# Configure a kernel variant: tinyconfig + kvm_guest.config + our fragments.
# usage: kernel-config.sh OBJDIR FRAGMENT...
# Every option a fragment sets must survive olddefconfig, or the build stops
# naming it (a silently dropped option would make the lab test less than it says).
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# KERNEL_TREE=DIR: another patched tree (make coverage's build/linux-cov).
tree=${KERNEL_TREE:-${BUILD:-$top/build}/linux}
obj=$1
shift

# Configuring is one job: its makes stay out of the caller's jobserver
# (`make test` runs two steps at a time), which they could not join anyway.
unset MAKEFLAGS MFLAGS
mkdir -p "$obj"
# A configuration left half done (an interrupted run, an option that did not
# stick) must not look up to date to make: only a finished one stays.
trap 'rm -f "$obj/.config"' EXIT
trap 'exit 1' INT TERM HUP
echo "watchlab: configuring $(basename "$obj") from tinyconfig + kvm_guest.config + $(for f in "$@"; do basename "$f"; done | tr '\n' ' ')"
make -s -C "$tree" O="$obj" tinyconfig >/dev/null
"$tree/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
	"$tree/kernel/configs/kvm_guest.config" "$@" >"$obj/merge_config.log" 2>&1
make -s -C "$tree" O="$obj" olddefconfig >/dev/null

config=$(cat "$obj/.config")
# A later fragment may override an earlier one (debug.config trims what only
# the lab profiles need), so check each option's last setting.
declare -A want from
order=()
for frag in "$@"; do
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) opt=${line%%=*} ;;
		*) continue ;;
		esac
		[ -n "${want[$opt]+set}" ] || order+=("$opt")
		want[$opt]=$line
		from[$opt]=${frag##*/}
	done <"$frag"
done

bad=0
for opt in "${order[@]}"; do
	line=${want[$opt]}
	if [ "$line" = "$opt=n" ]; then
		if grep -q "^$opt=" <<<"$config"; then
			echo "watchlab: ${from[$opt]}: $opt should be off but is $(grep "^$opt=" <<<"$config")" >&2
			bad=1
		fi
	elif ! grep -qx "$line" <<<"$config"; then
		echo "watchlab: ${from[$opt]}: $line did not stick (now: $(grep -E "^$opt=|# $opt is not set" <<<"$config" || echo unset))" >&2
		bad=1
	fi
done
[ "$bad" -eq 0 ] || { echo "watchlab: fix the dependencies of the options above" >&2; exit 1; }
trap - EXIT
