#!/bin/bash
# make series-export AUTHOR='Full Name <address>': the series as it would
# be mailed upstream, in build/series-export/.
#
# kernel-patches/ is the series the lab applies.  Two things in it are the
# lab's and not upstream's, and this writes them out:
#
#  - The author.  The patches carry the placeholder identity
#    "watchlab <watchlab@localhost>" because a Signed-off-by is a person's
#    Developer's Certificate of Origin and only a person can give it.  The
#    export puts AUTHOR in every From: and in the porter's Signed-off-by.
#    David Howells's Co-developed-by and Signed-off-by, carried from the
#    2019 posting on the patches ported from it, are kept.
#  - watchpol's sources.  The lab keeps them in lsm/ and grafts them in as
#    security/watchpol/ (harness/kernel-tree.sh); "security: Add the watchpol
#    LSM" wires them up with a Kconfig `source` that tolerates their
#    absence.  The export puts the sources in that patch and makes the line
#    a plain `source`.
#
# It `git am`s kernel-patches/series onto the pristine 6.12 copies of the
# files the series touches (harness/series-lib.sh; PRISTINE_REPO names such
# a repository already made, tagged "pristine"), amends the watchpol commit, re-applies the
# rest, and runs `git format-patch --cover-letter` with the text of
# kernel-patches/cover-letter.txt.  Nothing is sent.
#
# EXPORT_TEST=1 accepts an address in a documentation domain (example.org
# and the like); `make series-check` uses it to check the export itself.
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
out=${EXPORT_DIR:-$build/series-export}
work=$build/series-export.git
tarball=/usr/src/linux-source-6.12.tar.xz
placeholder="watchlab <watchlab@localhost>"
author=${AUTHOR:-}

die() { echo "watchlab: series-export: $*" >&2; exit 1; }
say() { echo "watchlab: series-export: $*"; }

# A person's identity: a name, then an address with a domain that mail
# can reach.
check_author() {
	local a=$1 domain
	[ -n "$a" ] || die "AUTHOR is not set: make series-export AUTHOR='Full Name <address>' (a Signed-off-by is the DCO of a person; the project cannot give it)"
	[[ $a =~ ^[^\<\>@]*[^\<\>@\ ]\ \<[^\<\>@\ ]+@([^\<\>@\ ]+\.[^\<\>@\ ]+)\>$ ]] ||
		die "AUTHOR '$a' is not 'Full Name <user@domain>'"
	domain=${BASH_REMATCH[1],,}
	[ "$a" != "$placeholder" ] || die "AUTHOR is the lab's placeholder"
	case $domain in
	localhost | *.localhost | *.local | *.invalid | *.test | localdomain | *.localdomain)
		die "AUTHOR's domain '$domain' is not reachable by mail" ;;
	example.com | example.org | example.net | *.example.com | *.example.org | *.example.net | *.example)
		[ "${EXPORT_TEST:-0}" = 1 ] || die "AUTHOR's domain '$domain' is for documentation (EXPORT_TEST=1 allows it)" ;;
	esac
}

check_author "$author"
[ -f "$tarball" ] || die "$tarball missing (apt-get install linux-source-6.12)"
[ -f "$top/kernel-patches/cover-letter.txt" ] || die "kernel-patches/cover-letter.txt missing"

# shellcheck source=harness/series-lib.sh
. "$top/harness/series-lib.sh"
series_patches

grep -l '^Subject: \[PATCH\] security: Add the watchpol LSM$' "${patches[@]}" >/dev/null ||
	die "no patch named 'security: Add the watchpol LSM' in the series"

rm -rf "$work" "$out" "$work.src"
mkdir -p "$out"
if [ -n "${PRISTINE_REPO:-}" ]; then
	# series-check's step 1 made one already.
	git clone -q "$PRISTINE_REPO" "$work"
	git -C "$work" checkout -q pristine
else
	say "pristine copies of the files the series touches"
	mkdir -p "$work.src"
	# Files the series creates are not in the tarball: tar names them and
	# exits 2, which is expected here.
	touched "${patches[@]}" | sed 's|^|linux-source-6.12/|' |
		tar -C "$work.src" --strip-components=1 -xf "$tarball" --wildcards -T - 2>/dev/null || true
	pristine_repo "$work" "$work.src"
	rm -rf "$work.src"
fi

email=${author##*<}
email=${email%>}
g() { git -C "$work" -c user.name="${author% <*}" -c user.email="$email" "$@"; }

say "git am of ${#patches[@]} patches, watchpol's sources in their patch"
for p in "${patches[@]}"; do
	sed -e "s/^From: $placeholder\$/From: $author/" \
		-e "s/^Signed-off-by: $placeholder\$/Signed-off-by: $author/" "$p" >"$work.patch"
	g am -q --committer-date-is-author-date "$work.patch" || die "git am failed at ${p##*/}"
	rm -f "$work.patch"
	if grep -q '^Subject: \[PATCH\] security: Add the watchpol LSM$' "$p"; then
		mkdir -p "$work/security/watchpol"
		rsync -rlc --exclude=README.md "$top/lsm/" "$work/security/watchpol/"
		# shellcheck disable=SC2016 # $(shell,...) is Kconfig's, not the shell's
		sed -i '\#^source "$(shell,test -f $(srctree)/security/watchpol/Kconfig #c\
source "security/watchpol/Kconfig"' "$work/security/Kconfig"
		grep -q '^source "security/watchpol/Kconfig"$' "$work/security/Kconfig" ||
			die "security/Kconfig: the watchpol source line is not the one expected"
		g log -1 --format=%B | awk '
			/^The LSM.s sources are kept outside this patch/ { skip = 1 }
			skip && /plain `source`\.$/ {
				print "The sources are in security/watchpol/: the policy parser and loader"
				print "(policy_parser.c, load.c, policy.c), the evaluation under the four"
				print "models (eval.c), the hooks (hooks.c), the securityfs interface (fs.c),"
				print "audit and the decision log (audit.c, log.c), what it reads of other"
				print "LSMs (interop.c), and a KUnit suite for the parser (policy_test.c)."
				skip = 0
				next
			}
			!skip' >"$work.msg"
		grep -q '^The sources are in security/watchpol/' "$work.msg" ||
			die "the watchpol changelog's paragraph on its sources is not the one expected"
		g add -A
		g commit -q --amend -F "$work.msg"
		rm -f "$work.msg"
	fi
done

say "format-patch into ${out#"$top"/}"
g format-patch -q --zero-commit --cover-letter -o "$out" pristine..HEAD
python3 - "$out/0000-cover-letter.patch" "$top/kernel-patches/cover-letter.txt" <<'EOF'
import sys
letter, cover = sys.argv[1:]
subject, _, body = open(cover).read().partition('\n\n')
s = open(letter).read()
s = s.replace('*** SUBJECT HERE ***', subject.strip())
s = s.replace('*** BLURB HERE ***', body.strip())
open(letter, 'w').write(s)
EOF
! grep -l "$placeholder" "$out"/*.patch || die "the files above still name the placeholder"
say "$(find "$out" -name '*.patch' | wc -l) files (cover letter included), From: $author"
