#!/usr/bin/env bash
# Run the benchmarks and print their report ("name: value unit" lines; see
# bench/README.md).  Usage: bench/run.sh [BUILD]   (default: build)
#
# 1. Deep queues (issue 13): the 82,247-job Philly list (bench/data/
#    philly.csv.gz, decompressed to a temporary file) sorted with
#    `sort -t, -k2,2n`, then `gpuplan simulate` of the same file on 32 nodes
#    x 8 A100 (bench/data/a100-32x8.yaml) under fair-share and
#    fifo-backfill; each time is the best of RUNS wall-clock runs and is
#    printed with its ratio to the sort (target: at most 5x).  bench_sim
#    below replays the same list per policy with the plain scans and with
#    the indexes (the before/after ratio, same schedule checked).
# 2. Every bench/bench_* program built in BUILD/bench: bench_sim gets the
#    decompressed Philly list (1M synthetic jobs per policy: time, memory,
#    utilization, mean JCT, p95 wait; scan-depth effect).
set -euo pipefail
BUILD=${1:-build}
RUNS=${RUNS:-3}
cd "$(dirname "$0")/.."
GP="$BUILD/gpuplan"
[ -x "$GP" ] || { echo "bench: $GP not built (make first)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gzip -dc bench/data/philly.csv.gz > "$tmp/philly.csv"

# best wall-clock seconds of RUNS runs of "$@" (output discarded)
best () {
  local b="" t0 t1 d
  for _ in $(seq "$RUNS"); do
    t0=$(date +%s.%N)
    "$@" > /dev/null
    t1=$(date +%s.%N)
    d=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
    if [ -z "$b" ] || awk -v d="$d" -v b="$b" 'BEGIN { exit !(d < b) }'; then
      b=$d
    fi
  done
  printf '%.3f' "$b"
}

echo "== deep queues: Philly (82,247 jobs) on 32 x 8 A100, best of $RUNS"
t_sort=$(best sort -t, -k2,2n "$tmp/philly.csv")
echo "philly.sort.time: $t_sort s"
for p in fair-share fifo-backfill; do
  t=$(best "$GP" simulate --cluster bench/data/a100-32x8.yaml \
        --trace "$tmp/philly.csv" --policy "$p")
  echo "philly_256gpu.$p.time: $t s"
  r=$(awk -v t="$t" -v s="$t_sort" 'BEGIN { printf "%.1f", t / s }')
  echo "philly_256gpu.$p.ratio_to_sort: $r x (target <= 5)"
done

shopt -s nullglob
ran=0
for b in "$BUILD"/bench/bench_*; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  if [ "$(basename "$b")" = bench_sim ]; then
    "$b" "$tmp/philly.csv"
  else
    "$b"
  fi
  ran=$((ran + 1))
done
[ "$ran" -gt 0 ] || echo "no benchmarks built"

# 3. gpuplan serve under load: 1,000 POST /api/plan over 8 connections,
#    0 errors, latency p50/p90/p99 (bench/serve_load.py).
echo "== serve_load"
python3 bench/serve_load.py "$BUILD"
