#!/bin/bash
# make mutants-sample N=... SEED=...: draw N generated mutants
# (harness/mutants-gen.py: mutation operators placed by coccinelle on the
# covered lines the series adds and on watchpol's; docs/generated-mutants.md),
# judge them as the catalogue's (harness/mutants.sh, MUTANT_CATALOGUE) and
# print the generated mutation score and the survivors.
#
# The coverage: COVERAGE=FILE, default results/coverage/lines.json (make
# coverage writes it); without it nothing is drawn.  SEED unset: one is
# drawn and printed, so that the sample can be drawn again.  The sample and
# its judging go to results/mutants-sample/ (catalogue/: the mutants;
# verdicts/, logs/, baseline/: harness/mutants.sh's).
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
n=${N:-10}
seed=${SEED:-}
if [ -z "$seed" ]; then
	seed=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
	echo "watchlab: mutants-sample: no SEED given; drawn: SEED=$seed"
fi
case $n$seed in *[!0-9]*) echo "watchlab: mutants-sample: N and SEED are numbers" >&2; exit 2 ;; esac
out=${MUTANT_SAMPLE_RESULTS:-$top/results/mutants-sample}
catalogue=$out/catalogue

start=$(date +%s)
"$top/harness/mutants-gen.py" sample --n "$n" --seed "$seed" --out "$catalogue"
rc=0
MUTANT_CATALOGUE=$catalogue MUTANT_RESULTS=$out "$top/harness/mutants.sh" || rc=$?
"$top/harness/mutants-gen.py" summary --out "$catalogue" --results "$out" \
	--seconds "$(($(date +%s) - start))" || rc=1
exit "$rc"
