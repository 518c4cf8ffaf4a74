#!/bin/bash
# A kernel built once, for shards on other machines to take instead of
# compiling it again (make kernel-artifacts, make test KERNELS=DIR).
#
# usage: kernel-artifacts.sh save DIR OBJDIR...   copy each built kernel's
#                                                 bzImage and .config, and the
#                                                 patched source's key, to DIR
#        kernel-artifacts.sh take DIR OBJDIR      put DIR's kernel of that name
#                                                 in OBJDIR instead of building
#
# take refuses, changing nothing, a kernel of another patched source or
# another .config than the ones this checkout just made (same fragments,
# same compiler): that would be another kernel.  It then prepares OBJDIR
# (kbuild's generated headers, which the UAPI install and the SELinux
# policy read), which compiles a few files, not the kernel.
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
[ $# -ge 3 ] || { echo "usage: kernel-artifacts.sh save DIR OBJDIR... | take DIR OBJDIR" >&2; exit 2; }
cmd=$1 dir=$2
shift 2

case $cmd in
save)
	mkdir -p "$dir"
	cp "$build/linux.patches-key" "$dir/linux.patches-key"
	for obj in "$@"; do
		name=$(basename "$obj")
		[ -f "$obj/arch/x86/boot/bzImage" ] || { echo "watchlab: $obj has no bzImage: build it first" >&2; exit 1; }
		mkdir -p "$dir/$name"
		cp "$obj/arch/x86/boot/bzImage" "$dir/$name/bzImage"
		cp "$obj/.config" "$dir/$name/config"
		echo "watchlab: saved $name to $dir/$name"
	done
	;;
take)
	obj=$1 name=$(basename "$1")
	fail() {
		echo "watchlab: KERNELS=$dir: $*" >&2
		exit 1
	}
	if [ ! -f "$dir/$name/bzImage" ] || [ ! -f "$dir/$name/config" ]; then
		fail "no $name kernel there (make kernel-artifacts writes it)"
	fi
	cmp -s "$dir/linux.patches-key" "$build/linux.patches-key" ||
		fail "its $name comes from another patched source than this checkout's"
	cmp -s "$dir/$name/config" "$obj/.config" ||
		fail "its $name has another .config than this checkout makes: $(diff "$dir/$name/config" "$obj/.config" | grep -c '^[<>]') lines differ"
	env -u MAKEFLAGS -u MFLAGS make -s -C "$build/linux" O="$obj" HOSTCC="ccache gcc" \
		CC="$top/harness/kernel-cc.sh" prepare >"$obj/build.log" 2>&1 ||
		{ tail -20 "$obj/build.log" >&2; fail "preparing $obj failed"; }
	mkdir -p "$obj/arch/x86/boot"
	cp "$dir/$name/bzImage" "$obj/arch/x86/boot/bzImage"
	echo "watchlab: $name taken from $dir (built elsewhere: the same patched source and .config)"
	;;
*)
	echo "usage: kernel-artifacts.sh save DIR OBJDIR... | take DIR OBJDIR" >&2
	exit 2
	;;
esac
