#!/bin/bash
# Run several boots at once, at most BOOT_JOBS (default: one per host core).
# TCG runs a busy guest on about one host thread, so on two cores two boots
# take the time of one.  Give the longest boot first.
# usage: boot-all.sh OBJDIR:PROFILE:LOGNAME:TIMEOUT_S[:debug[:ARG+ARG...]]...
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
jobs=${BOOT_JOBS:-$(nproc)}
running=0
rc=0

reap() {
	wait -n || rc=1
	running=$((running - 1))
}

for spec in "$@"; do
	IFS=: read -r obj profile name timeout debug extra <<<"$spec"
	[ "$running" -lt "$jobs" ] || reap
	"$top/harness/run-profile.sh" "$obj" "$profile" "$name" "$timeout" "${debug:-}" ${extra:+"$extra"} &
	running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
	reap
done
exit "$rc"
