#!/bin/bash
# Prepare build/linux: the linux-source-6.12 tree with kernel-patches/series
# applied and lsm/ grafted in as security/watchpol/.
#
# A change to the installed source package or to any patch extracts the
# package's tarball again, the pristine source, and applies the series to
# it (never to an already-patched tree), then syncs the result by content
# into build/linux, so kbuild recompiles only what changed.
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
tarball=/usr/src/linux-source-6.12.tar.xz
tree=$build/linux

say() { echo "watchlab: $*"; }

[ -f "$tarball" ] || { echo "watchlab: $tarball missing (apt-get install linux-source-6.12)" >&2; exit 1; }
pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
mkdir -p "$build"

series=$top/kernel-patches/series
patches=""
if [ -f "$series" ]; then
	patches=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$series")
fi

key=$( {
	echo "$pkgver"
	for p in $patches; do
		[ -f "$top/kernel-patches/$p" ] || { echo "watchlab: series names $p, which does not exist" >&2; exit 1; }
		sha256sum "$top/kernel-patches/$p" | cut -d' ' -f1
	done
} | sha256sum | cut -d' ' -f1)

if [ "$(cat "$tree.patches-key" 2>/dev/null)" != "$key" ]; then
	staging=$build/linux.staging
	rm -rf "$staging"
	mkdir -p "$staging"
	say "extracting linux-source-6.12 $pkgver"
	tar -C "$staging" --strip-components=1 -xf "$tarball"
	sublevel=$(sed -n 's/^SUBLEVEL = //p' "$staging/Makefile")
	say "patching 6.12.$sublevel ($(echo "$patches" | grep -c . || true) patches)"
	for p in $patches; do
		rej=$build/rejects/$p.rej
		mkdir -p "$build/rejects"
		rm -f "$rej"
		if ! out=$(cd "$staging" && patch -p1 --forward --batch --fuzz=0 \
			--no-backup-if-mismatch -r "$rej" <"$top/kernel-patches/$p" 2>&1); then
			echo "watchlab: patch $p failed to apply:" >&2
			echo "$out" | grep -E 'FAILED|can.t find|malformed|Reversed' >&2 || echo "$out" >&2
			if [ -s "$rej" ]; then
				echo "watchlab: failing hunk(s) of $p:" >&2
				cat "$rej" >&2
			fi
			exit 1
		fi
	done
	if [ -d "$tree" ]; then
		rsync -rlc --delete --exclude=/security/watchpol/ "$staging/" "$tree/"
		rm -rf "$staging"
	else
		mv "$staging" "$tree"
	fi
	echo "$key" >"$tree.patches-key"
fi

if [ -f "$top/lsm/Kconfig" ]; then
	mkdir -p "$tree/security/watchpol"
	rsync -rlc --delete --exclude=README.md "$top/lsm/" "$tree/security/watchpol/"
fi
