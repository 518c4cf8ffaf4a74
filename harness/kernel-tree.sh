#!/bin/bash
# Prepare build/linux (KERNEL_TREE=DIR: another tree, make coverage's
# build/linux-cov): the linux-source-6.12 tree with kernel-patches/series
# applied, then the patches of $LSM_PATCHES (a folder of `git format-patch`
# files, applied in name order: an LSM brought for `make compare`), and
# lsm/ grafted in as security/watchpol/.
#
# A change to the installed source package or to any patch extracts the
# package's tarball again, the pristine source, and applies the series to
# it (never to an already-patched tree), then syncs the result by content
# into build/linux, so kbuild recompiles only what changed.
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
tarball=/usr/src/linux-source-6.12.tar.xz
tree=${KERNEL_TREE:-$build/linux}

say() { echo "watchlab: $*"; }

[ -f "$tarball" ] || { echo "watchlab: $tarball missing (apt-get install linux-source-6.12)" >&2; exit 1; }
pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
mkdir -p "$build"

series=$top/kernel-patches/series
patches=""
if [ -f "$series" ]; then
	while read -r p; do
		[ -f "$top/kernel-patches/$p" ] || { echo "watchlab: series names $p, which does not exist" >&2; exit 1; }
		patches="$patches $top/kernel-patches/$p"
	done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$series")
fi
if [ -n "${LSM_PATCHES:-}" ]; then
	[ -d "$LSM_PATCHES" ] || { echo "watchlab: LSM_PATCHES=$LSM_PATCHES is not a folder" >&2; exit 1; }
	extra=$(find "$LSM_PATCHES" -maxdepth 1 -name '*.patch' | sort)
	[ -n "$extra" ] || { echo "watchlab: LSM_PATCHES=$LSM_PATCHES has no *.patch file" >&2; exit 1; }
	patches="$patches $extra"
fi

key=$( {
	echo "$pkgver"
	for p in $patches; do
		sha256sum "$p" | cut -d' ' -f1
	done
} | sha256sum | cut -d' ' -f1)

if [ "$(cat "$tree.patches-key" 2>/dev/null)" != "$key" ]; then
	staging=$tree.staging
	rm -rf "$staging"
	mkdir -p "$staging"
	say "extracting linux-source-6.12 $pkgver"
	tar -C "$staging" --strip-components=1 -xf "$tarball"
	sublevel=$(sed -n 's/^SUBLEVEL = //p' "$staging/Makefile")
	say "patching 6.12.$sublevel ($(echo "$patches" | wc -w) patches)"
	for path in $patches; do
		p=${path##*/}
		rej=$build/rejects/$p.rej
		mkdir -p "$build/rejects"
		rm -f "$rej"
		if ! out=$(cd "$staging" && patch -p1 --forward --batch --fuzz=0 \
			--no-backup-if-mismatch -r "$rej" <"$path" 2>&1); then
			echo "watchlab: patch $path failed to apply:" >&2
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
