#!/usr/bin/env bash
# Instruction counts of `cmdguard check` as a fresh process, under callgrind: unlike wall time
# they do not move with the load on a shared machine, so before/after comparisons of start-up
# work are exact to a fraction of a percent. Prints one line per case: its name and the
# instructions the whole process executed (loader, clap, allowlist, analysis, output).
#
# Usage: scripts/bench-instructions.sh [BINARY]
#   BINARY  default target/release/cmdguard (build it first: cargo build --release)
# Env: KEEP=DIR keeps each case's callgrind.out in DIR (read with
#   `callgrind_annotate --inclusive=yes DIR/CASE.out | head -60`).
# Needs valgrind. The corpus case runs all 2,000 commands of benches/data/agent-commands.txt
# through one `check --jsonl` process. Its count still moves by about 1% between runs: a few
# commands walk `/` or the repository under a wall-clock limit; the single checks repeat to
# the instruction.
set -euo pipefail

bin=$(realpath "${1:-target/release/cmdguard}")
corpus=$(realpath benches/data/agent-commands.txt)
command -v valgrind >/dev/null || { echo "bench-instructions: valgrind is not installed" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# An empty git repository, as a hook in a fresh project sees it, and an empty home: commands
# that search `~` (`grep -r x ~`) walk the directory tree under a time limit, so a real home,
# changing as others work in it, would move the count by tens of millions.
repo=$work/repo
mkdir "$repo" "$work/home"
git -C "$repo" init -q

pipeline20='cat a.txt'
for ((i = 1; i < 20; i++)); do pipeline20+=" | grep -v x$i"; done
# One JSON string per line, as `check --jsonl` reads them.
while IFS= read -r line; do
  line=${line//\\/\\\\}
  line=${line//\"/\\\"}
  line=${line//$'\t'/\\t}
  printf '"%s"\n' "$line"
done <"$corpus" >"$work/corpus.jsonl"

# Runs case $1 (the remaining words: cmdguard's arguments) under callgrind, stdin from $STDIN.
run() {
  local name=$1
  shift
  local out=$work/$name.out
  (cd "$repo" && HOME=$work/home valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" "$@" \
    <"${STDIN:-/dev/null}" >/dev/null 2>"$work/$name.log") || true
  local total
  total=$(awk '/^summary:/ { print $2 }' "$out")
  printf '%-22s %12s instructions (%.2f M)\n' "$name" "$total" "$(echo "$total / 1000000" | bc -l)"
  if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$out" "$KEEP/$name.out"; fi
}

run version --version
run git_status check --no-config --cwd "$repo" 'git status'
run ls_la check --no-config --cwd "$repo" 'ls -la'
run pipeline_20 check --no-config --cwd "$repo" "$pipeline20"
STDIN=$work/corpus.jsonl run corpus_jsonl check --no-config --cwd "$repo" --jsonl
