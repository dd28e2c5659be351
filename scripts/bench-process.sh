#!/usr/bin/env bash
# Process-level bench: `cmdguard check` as a fresh process (what a hook pays) against
# /bin/true, measured in the same run and alternated round by round, so that load from other
# processes on a shared machine falls on both alike. Prints each command's median wall time,
# its ratio to /bin/true, its CPU time (user + system, which a busy machine inflates far less
# than wall time), and its peak RSS. For a load-independent count, see BENCHMARKS.md
# (callgrind instruction counts).
#
# Usage: scripts/bench-process.sh [BINARY] [ROUNDS]
#   BINARY  default target/release/cmdguard (build it first: cargo build --release)
#   ROUNDS  default 20; each round runs every command RUNS times (env RUNS, default 5)
# Needs hyperfine (Debian: apt-get install hyperfine), GNU time (/usr/bin/time), awk.
set -euo pipefail

bin=${1:-target/release/cmdguard}
rounds=${2:-20}
runs=${RUNS:-5}
bin=$(realpath "$bin")
command -v hyperfine >/dev/null || { echo "bench-process: hyperfine is not installed" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench-process: GNU time (/usr/bin/time) is not installed" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A small repository, so `git status` takes the repository read a hook in a project pays.
repo=$work/repo
mkdir "$repo"
git -C "$repo" init -q
echo hello >"$repo/README"
git -C "$repo" add README
git -C "$repo" -c user.name=bench -c user.email=bench@example.invalid commit -qm init

pipeline='rg --files | sed "s/foo/bar/g" | sort | uniq -c | sort -rn | head -5 | cat'
names=(true git_status pipeline_7)
cmds=(
  "/bin/true"
  "$bin check 'git status'"
  "$bin check '$pipeline'"
)

cd "$repo"
for ((r = 0; r < rounds; r++)); do
  hyperfine -N --style none --warmup 1 --runs "$runs" --export-csv "$work/round-$r.csv" \
    "${cmds[@]}" >/dev/null 2>&1
done

# The median of the per-round medians, in milliseconds, for the command in CSV row $1.
median_of_row() {
  local row=$1
  for ((r = 0; r < rounds; r++)); do
    awk -F, -v row="$row" 'NR == row + 2 { print $4 * 1000 }' "$work/round-$r.csv"
  done | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# The median of the per-round mean CPU times (user + system), in milliseconds.
cpu_of_row() {
  local row=$1
  for ((r = 0; r < rounds; r++)); do
    awk -F, -v row="$row" 'NR == row + 2 { print ($5 + $6) * 1000 }' "$work/round-$r.csv"
  done | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Peak RSS in KiB of one run of the command line $1 (run directly, not under a shell).
peak_rss_kib() {
  eval "/usr/bin/time -f %M -o '$work/rss' $1" >/dev/null 2>&1 || true
  tail -1 "$work/rss"
}

base=$(median_of_row 0)
base_cpu=$(cpu_of_row 0)
printf '%-12s %10s %8s %8s %8s %12s\n' command median_ms ratio cpu_ms ratio peak_rss_kib
for i in "${!names[@]}"; do
  m=$(median_of_row "$i")
  ratio=$(awk -v m="$m" -v b="$base" 'BEGIN { printf "%.2f", m / b }')
  c=$(cpu_of_row "$i")
  cpu_ratio=$(awk -v m="$c" -v b="$base_cpu" 'BEGIN { printf "%.2f", (b > 0) ? m / b : 0 }')
  rss=$(peak_rss_kib "${cmds[$i]}")
  printf '%-12s %10.3f %8s %8.3f %8s %12s\n' "${names[$i]}" "$m" "${ratio}x" "$c" "${cpu_ratio}x" "$rss"
done
echo "($rounds rounds x $runs runs per command, alternating; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
