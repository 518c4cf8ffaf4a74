#!/bin/sh
# The kernel's compiler: gcc through ccache, except for an assembler source
# that .incbin's a file (arch/x86/boot/compressed/piggy.S pulls in the
# compressed vmlinux): ccache hashes a source and the headers it includes,
# never what .incbin reads, so it would hand back the object of an earlier
# kernel whose piggy.S happened to be the same text (same sizes), and the
# lab would boot that kernel.  Those few sources compile without ccache.
for a in "$@"; do
	case $a in
	*.S)
		if [ -f "$a" ] && grep -q '\.incbin' "$a"; then
			exec gcc "$@"
		fi
		;;
	esac
done
exec ccache gcc "$@"
