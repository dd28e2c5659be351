#!/usr/bin/env bash
# Runs the property tests over many seeds. CI runs them once, from the fixed seed in .ci/run;
# this is the wider search to run before a release or after changing a parser or the fast path.
#
#   scripts/proptest-sweep.sh [SEEDS] [TEST FILTER...]
#
# SEEDS (default 20) seeds, starting at PROPTEST_SWEEP_FROM (default 1000). The filters default
# to the modules with property tests of the integration suite; the library's run too. Stops at
# the first failing seed and prints how to rerun it.
set -euo pipefail
cd "$(dirname "$0")/.."
seeds="${1:-20}"
shift || true
filters=("$@")
if [ "${#filters[@]}" -eq 0 ]; then
  filters=(fast:: properties:: bounded:: mismatch:: interp:: deny_side_doors:: hooks:: config:: scan:: policy::)
fi
cargo test -q --no-run --workspace >/dev/null 2>&1
from="${PROPTEST_SWEEP_FROM:-1000}"
for ((seed = from; seed < from + seeds; seed++)); do
  echo "seed $seed"
  if ! PROPTEST_RNG_SEED="$seed" cargo test -q --lib >/dev/null 2>&1 ||
    ! PROPTEST_RNG_SEED="$seed" cargo test -q --test it -- "${filters[@]}" >/dev/null 2>&1; then
    echo "seed $seed fails; rerun: PROPTEST_RNG_SEED=$seed cargo test --lib --test it" >&2
    exit 1
  fi
done
echo "all $seeds seeds pass"
