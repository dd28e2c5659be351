#!/usr/bin/env bash
# Runs one fuzz target for a while, carrying on past findings, which land in artifacts/<target>/.
# Usage: fuzz/run.sh <analyze|grammar|allowlist|interp|fast_vs_full> [seconds]   (needs nightly and cargo-fuzz)
# Set CMDGUARD_FUZZ_ALLOWS=FILE to log the allowed commands for the differential test.
set -euo pipefail
cd "$(dirname "$0")"
target=$1
secs=${2:-1800}
mkdir -p "corpus/$target" "artifacts/$target"
dict=()
if [ "$target" = analyze ] || [ "$target" = fast_vs_full ]; then dict=(-dict=bash.dict); fi
exec cargo +nightly fuzz run -O "$target" "corpus/$target" -- "${dict[@]}" \
  -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
  -max_total_time="$secs" -timeout=5 -rss_limit_mb=3072 -max_len=8192 \
  -artifact_prefix="artifacts/$target/" -print_final_stats=1
