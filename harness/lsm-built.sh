#!/bin/bash
# Print which LSMs of a comma-separated list a configured kernel has built
# in, in the list's order, comma-separated (capability is CONFIG_SECURITY).
# usage: lsm-built.sh OBJDIR LSM[,LSM...]
set -eu -o pipefail

obj=$1 list=$2
built=""
for l in ${list//,/ }; do
	case $l in
	capability) sym=CONFIG_SECURITY ;;
	*) sym=CONFIG_SECURITY_$(echo "$l" | tr '[:lower:]' '[:upper:]') ;;
	esac
	if grep -qx "$sym=y" "$obj/.config"; then
		built=${built:+$built,}$l
	fi
done
echo "$built"
