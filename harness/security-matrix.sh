#!/bin/bash
# Replace the measured-matrix section of SECURITY.md (between the
# matrix:begin/matrix:end markers) with results/latest/matrix.md.
# usage: security-matrix.sh [--check]   --check: only report whether it is current
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
doc=$top/SECURITY.md
matrix=$top/results/latest/matrix.md
[ -f "$matrix" ] || { echo "watchlab: no $matrix: run make lab first" >&2; exit 1; }

new=$(awk -v m="$matrix" '
	/<!-- matrix:begin -->/ { print; while ((getline l < m) > 0) print l; skip = 1; next }
	/<!-- matrix:end -->/ { skip = 0 }
	!skip { print }' "$doc")
if [ "${1:-}" = --check ]; then
	[ "$new" = "$(cat "$doc")" ] || { echo "watchlab: SECURITY.md's matrix differs from results/latest/matrix.md (run make matrix)" >&2; exit 1; }
	exit 0
fi
printf '%s\n' "$new" >"$doc"
echo "watchlab: SECURITY.md matrix updated from results/latest/matrix.md"
