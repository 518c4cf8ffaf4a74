#!/bin/bash
# Build watchlab's SELinux policy for the patched kernel tree: the classes,
# permissions and initial SIDs come from the tree itself (its
# scripts/selinux/mdp, built and run here), the rest from policy/selinux/.
# usage: selinux-policy.sh KBUILD_OBJ OUT.bin [TYPE]
# With TYPE, every line of policy/selinux/ that names it is left out: the
# same policy without that type (suite_early loads one under a watchpol
# text that names it).
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
obj=$1
out=$2
drop=${3:-}
src=$build/linux
pol=$top/policy/selinux
version=33	# the newest checkpolicy 3.4 (Debian 12) writes; 6.12 loads it

if [ -n "$drop" ] && ! grep -qw -- "$drop" "$pol/watchlab.te"; then
	echo "watchlab: policy/selinux/watchlab.te names no $drop to leave out" >&2
	exit 1
fi

work=$out.d
rm -rf "$work"
mkdir -p "$work"

# mdp prints the kernel's classes, initial SIDs and permissions, then a
# one-type policy of its own, starting at its policycap lines: keep only
# the declarations.
gcc -O2 -o "$work/mdp" "$src/scripts/selinux/mdp/mdp.c" \
	-I"$src/include/uapi" -I"$src/include" \
	-I"$src/security/selinux/include" -I"$obj/include"
"$work/mdp" "$work/mdp.conf" "$work/mdp.fc"
sed -n '/^policycap /q; p' "$work/mdp.conf" >"$work/flask.conf"
classes=$(sed -n 's/^class \([a-z0-9_]*\)$/\1/p' "$work/flask.conf" | sort -u)
sids=$(sed -n 's/^sid \([a-z0-9_]*\)$/\1/p' "$work/flask.conf")
if [ -z "$classes" ] || [ -z "$sids" ]; then
	echo "watchlab: no classes or initial SIDs in mdp's output" >&2
	exit 1
fi

# The context of an initial SID, from policy/selinux/initial_sids.
sid_context() {
	sed -e 's/#.*//' "$pol/initial_sids" | awk -v sid="$1" '$1 == sid { print $2 }'
}

unlabeled=$(sid_context unlabeled)
if [ -z "$unlabeled" ]; then
	echo "watchlab: policy/selinux/initial_sids has no context for unlabeled" >&2
	exit 1
fi

{
	cat "$work/flask.conf" "$pol/mls.conf"
	if [ -n "$drop" ]; then grep -vw -- "$drop" "$pol/watchlab.te"; else cat "$pol/watchlab.te"; fi
	echo "# Generated: every class the kernel has."
	for c in $classes; do
		echo "allow wl_init_t wl_any:$c *;"
		echo "allow wl_domain self:$c *;"
	done
	cat "$pol/users.conf"
	echo "# Generated: every initial SID the kernel has."
	for s in $sids; do
		ctx=$(sid_context "$s")
		echo "sid $s ${ctx:-$unlabeled}"
	done
	cat "$pol/fs_contexts.conf"
} >"$work/policy.conf"

checkpolicy -M -c "$version" -o "$out.tmp" "$work/policy.conf" >"$work/checkpolicy.log" 2>&1 || {
	cat "$work/checkpolicy.log" >&2
	echo "watchlab: checkpolicy failed on $work/policy.conf" >&2
	exit 1
}
mv "$out.tmp" "$out"
echo "watchlab: SELinux policy $(basename "$out"): $(wc -w <<<"$classes") classes, version $version"
