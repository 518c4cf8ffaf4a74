#!/bin/bash
# Build the guest initramfs with the kernel tree's own usr/gen_init_cpio:
# busybox-static and its applets, the lab's static programs, Debian's
# keyctl (keyutils, dynamically linked: with its shared libraries and the
# loader, at the paths it was linked against), /init, the policies, the
# scenarios and the workbench's walkthrough (docs/workbench.md).
# usage: initramfs.sh OUT.cpio [DEST=FILE]... PROGRAM...
# A DEST=FILE argument packs a generated FILE (the compiled SELinux policy)
# as DEST in the guest; a PROGRAM goes to /bin.
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
out=$1
shift

gen=$build/host/gen_init_cpio
if [ ! -x "$gen" ] || [ "$build/linux/usr/gen_init_cpio.c" -nt "$gen" ]; then
	mkdir -p "$build/host"
	gcc -O2 -o "$gen" "$build/linux/usr/gen_init_cpio.c"
fi

# Every file under SRC, as DEST/<relative path>, read-only for all.
pack_dir() {
	[ -d "$1" ] || return 0
	echo "dir $2 0755 0 0"
	(cd "$1" && find . -mindepth 1 -type d | sort) | while read -r d; do
		echo "dir $2/${d#./} 0755 0 0"
	done
	(cd "$1" && find . -type f | sort) | while read -r f; do
		echo "file $2/${f#./} $1/${f#./} 0644 0 0"
	done
}

# keyctl and what it loads, from the build machine: missing is an error,
# never a guest without it.  KEYCTL overrides the path (for a test).
keyctl=${KEYCTL:-/bin/keyctl}
if [ ! -x "$keyctl" ]; then
	echo "watchlab: $keyctl is missing: install Debian's keyutils (harness/deps.sh does)" >&2
	exit 1
fi
# ldd prints "name => /path (addr)" for a library, "/path (addr)" for the
# loader; the vdso has no path.
if ! libs=$(ldd "$keyctl" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }') ||
	[ -z "$libs" ]; then
	echo "watchlab: ldd $keyctl found no libraries to pack" >&2
	exit 1
fi

list=$out.list
{
	for d in /bin /sbin /dev /proc /sys /tmp /etc /root /mnt; do
		echo "dir $d 0755 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "nod /dev/null 0666 0 0 c 1 3"
	echo "file /bin/busybox /bin/busybox 0755 0 0"
	for applet in $(/bin/busybox --list); do
		[ "$applet" = busybox ] || echo "slink /bin/$applet /bin/busybox 0777 0 0"
	done
	echo "file /init $top/images/init.sh 0755 0 0"
	for p in "$@"; do
		case $p in
		*=*) ;;
		*) echo "file /bin/$(basename "$p") $p 0755 0 0" ;;
		esac
	done
	# The kernel's key-construction upcall is the runner (request_key.c),
	# and so are the workbench commands (wl --help).
	echo "slink /sbin/request-key /bin/wlrun 0777 0 0"
	echo "slink /bin/wl /bin/wlrun 0777 0 0"
	echo "file /bin/keyctl $keyctl 0755 0 0"
	for lib in $libs; do
		d=$(dirname "$lib") path=""
		for part in ${d//\// }; do
			path+=/$part
			echo "$path"
		done
	done | sort -u | while read -r d; do echo "dir $d 0755 0 0"; done
	for lib in $libs; do
		echo "file $lib $(readlink -f "$lib") 0755 0 0"
	done
	pack_dir "$top/policy" /etc/watchlab
	pack_dir "$top/testcases/scenarios" /etc/watchlab/scenarios
	pack_dir "$top/testcases/walkthrough" /etc/watchlab/walkthrough
	for p in "$@"; do
		case $p in
		*=*) echo "file ${p%%=*} ${p#*=} 0644 0 0" ;;
		esac
	done
} >"$list"
"$gen" "$list" >"$out.tmp"
mv "$out.tmp" "$out"
