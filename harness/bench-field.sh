# shellcheck shell=bash
# Sourced by harness/bench.sh and harness/bench-scale.sh: awk_field, an
# awk function their table programs start with.  field(KEY) is the value
# of KEY=value on the current BENCH line, "" when the line has none.
# shellcheck disable=SC2016,SC2034 # awk code, for awk to expand; used by the sourcing scripts
awk_field='
function field(k,   i) {
	for (i = 2; i <= NF; i++)
		if (index($i, k "=") == 1)
			return substr($i, length(k) + 2)
	return ""
}
'
