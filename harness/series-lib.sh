# shellcheck shell=bash
# Sourced by harness/series-check.sh and harness/series-export.sh: the
# patches of kernel-patches/series, and a git repository of the pristine
# copies of the files they touch, for `git am`.  Needs $top.

: "${top:?series-lib.sh needs top, the project folder}"
patches=()

# series_patches: the series' patch paths, in order, into the array
# patches; exits naming a listed patch that does not exist.
series_patches() {
	local p
	patches=()
	while read -r p; do
		[ -f "$top/kernel-patches/$p" ] || {
			echo "watchlab: series names $p, which does not exist" >&2
			exit 1
		}
		patches+=("$top/kernel-patches/$p")
	done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$top/kernel-patches/series")
}

# touched PATCH...: every path the patches touch, once each.
touched() {
	sed -n 's|^diff --git a/\([^ ]*\) b/\([^ ]*\)$|\1\n\2|p' "$@" | sort -u
}

# pristine_repo DIR TREE: a new git repository in DIR holding TREE's copies
# (TREE: a pristine extraction) of every file the series' patches touch, in
# one commit tagged "pristine".  Files the series creates are not copied.
pristine_repo() {
	local dir=$1 src=$2 f
	mkdir -p "$dir"
	touched "${patches[@]}" | while read -r f; do
		if [ -f "$src/$f" ]; then
			mkdir -p "$dir/$(dirname "$f")"
			cp -p "$src/$f" "$dir/$f"
		fi
	done
	git -C "$dir" init -q
	git -C "$dir" add -A
	git -C "$dir" -c user.name=watchlab -c user.email=watchlab@localhost commit -q -m "pristine 6.12"
	git -C "$dir" tag pristine
}
