#!/bin/bash
# Build bzImage for a configured variant with ccache and report the hit rate.
# usage: kernel-build.sh OBJDIR
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
# KERNEL_TREE=DIR: another patched tree (make coverage's build/linux-cov).
tree=${KERNEL_TREE:-$build/linux}
obj=$1
name=$(basename "$obj")
log=$obj/build.log

# Paths under build/ are rewritten relative, so a fresh clone in another
# folder hits the same cache entries.
export CCACHE_BASEDIR=$build
export CCACHE_NOHASHDIR=1
# Depend mode hashes the compiler's own dependency output (kbuild passes
# -Wp,-MMD) instead of running the preprocessor a second time on a miss:
# about 30% less CPU for a cold kernel build.
export CCACHE_DEPEND=1
export KBUILD_BUILD_TIMESTAMP="watchlab"
export KBUILD_BUILD_USER=watchlab KBUILD_BUILD_HOST=watchlab

before=$(ccache --print-stats | awk '$1 ~ /^(direct_cache_hit|preprocessed_cache_hit|cache_miss)$/ {s[$1]=$2} END {print s["direct_cache_hit"]+s["preprocessed_cache_hit"], s["cache_miss"]+0}')
echo "watchlab: building $name (log: ${log#"$top"/})"
start=$(date +%s)
# The log must name every object compiled (kbuild's "CC" lines), even when
# the outer make runs with -s: kbuild reads the silent flag from MAKEFLAGS.
if ! env -u MAKEFLAGS -u MFLAGS make -C "$tree" O="$obj" CC="$top/harness/kernel-cc.sh" \
	HOSTCC="ccache gcc" -j"$(nproc)" bzImage >"$log" 2>&1; then
	echo "watchlab: kernel build of $name failed; last lines of $log:" >&2
	grep -E 'error|Error' "$log" | head -20 >&2 || true
	tail -20 "$log" >&2
	exit 1
fi
# The image must carry this build's kernel: its compressed payload is the
# vmlinux.bin.gz just made, byte for byte (harness/kernel-cc.sh says how a
# cached piggy.o once smuggled in an earlier kernel).
if ! python3 - "$obj/arch/x86/boot/bzImage" "$obj/arch/x86/boot/compressed/vmlinux.bin.gz" <<'PY'
import sys
image, payload = (open(p, "rb").read() for p in sys.argv[1:3])
sys.exit(0 if payload in image else 1)
PY
then
	echo "watchlab: $obj/arch/x86/boot/bzImage does not carry this build's vmlinux (stale piggy.o?)" >&2
	exit 1
fi
after=$(ccache --print-stats | awk '$1 ~ /^(direct_cache_hit|preprocessed_cache_hit|cache_miss)$/ {s[$1]=$2} END {print s["direct_cache_hit"]+s["preprocessed_cache_hit"], s["cache_miss"]+0}')
read -r hits0 misses0 <<<"$before"
read -r hits1 misses1 <<<"$after"
hits=$((hits1 - hits0)) misses=$((misses1 - misses0))
lookups=$((hits + misses > 0 ? hits + misses : 1))
# kbuild names each object it compiles; ccache also counts the compiler
# probes every make run does, so only the log says whether anything was built.
objects=$(grep -c '^  CC ' "$log" || true)
if [ "$objects" -eq 0 ]; then
	echo "watchlab: $name up to date ($(($(date +%s) - start)) s, nothing compiled)"
else
	echo "watchlab: built $name in $(($(date +%s) - start)) s ($objects objects compiled, ccache hit rate $((100 * hits / lookups))%)"
fi
