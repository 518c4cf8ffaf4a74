#!/bin/bash
# Install what the lab needs with apt-get, or say exactly what is missing.
set -eu

pkgs="linux-source-6.12 qemu-system-x86 busybox-static keyutils libkeyutils-dev
libselinux1-dev libsepol-dev libpcre2-dev checkpolicy ccache gcc make bc bison
flex libelf-dev libssl-dev cpio xz-utils rsync patch python3 python3-ply python3-git
python3-jsonschema perl shellcheck lava-dispatcher chromium lcov sparse coccinelle
ocaml-nox lava-server lavacli postgresql gnuplot-nox"

missing=""
for p in $pkgs; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$status" = installed ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "watchlab: missing packages:$missing" >&2
	echo "watchlab: install them as root with: apt-get update && apt-get install -y$missing" >&2
	exit 1
fi
echo "watchlab: installing:$missing"
# No package starts a service here: without systemd, postgresql's postinst
# starts its new cluster through invoke-rc.d and leaves it running
# (lava-server's only starts units under systemd, and makes its database
# only if PostgreSQL runs).  harness/lava-lab.sh starts and stops what the
# LAVA lab needs and makes the database.  A policy-rc.d already in place
# (containers ship one) is left as it is.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\n# watchlab: harness/deps.sh, during its install\nexit 101\n' >"$policy"
	chmod 755 "$policy"
	trap 'rm -f "$policy"' EXIT
fi
apt-get update -q
# shellcheck disable=SC2086 # word splitting of the package list is intended
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
