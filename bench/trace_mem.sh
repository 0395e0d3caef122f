#!/usr/bin/env bash
# Peak memory and time of a 5,000,000-row trace (issue: "a 5M-row trace in
# at most 1 GB").  Generates the generic CSV once (bench/gen_trace.py, about
# 150 MB, kept as BUILD/bench/trace-5m.csv), then measures with
# /usr/bin/time -v:
#   read      bench_trace_read: the trace reader alone
#   simulate  gpuplan simulate --cluster examples/cluster.yaml --trace ...
#             (read + FIFO-backfill simulation + JSON), what the issue timed
# and prints wall time, CPU time (user + system: steadier than wall time on
# a shared machine) and maximum RSS of each, with the 1 GB limit.
#
#   [BEFORE=DIR] bench/trace_mem.sh [BUILD] [ROWS]
set -euo pipefail
build=${1:-build}
rows=${2:-5000000}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
trace="$build/bench/trace-$rows.csv"
mkdir -p "$build/bench"
[ -s "$trace" ] || python3 bench/gen_trace.py "$trace" "$rows"
limit_mb=1024
status=0
measure () {
  local name=$1; shift
  local tv
  tv=$(mktemp)
  /usr/bin/time -v "$@" >/dev/null 2>"$tv" || { cat "$tv" >&2; rm -f "$tv"; return 1; }
  local wall rss usr sys
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tv")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tv")
  usr=$(sed -n 's/.*User time (seconds): //p' "$tv")
  sys=$(sed -n 's/.*System time (seconds): //p' "$tv")
  rm -f "$tv"
  local mb=$(( rss / 1024 ))
  local verdict=ok
  [ "$mb" -le "$limit_mb" ] || { verdict="OVER ${limit_mb} MB"; status=1; }
  printf 'trace_mem_%s (%s rows): %s wall, %s s CPU, %d MB peak RSS  [%s]\n' \
    "$name" "$rows" "$wall" "$(awk -v u="$usr" -v s="$sys" 'BEGIN { printf "%.1f", u + s }')" "$mb" "$verdict"
}
measure read "$build/bench/bench_trace_read" "$trace"
# BEFORE=DIR: also measure DIR/gpuplan, a build of an earlier tree, in the
# same run (before/after comparisons in bench/trace_mem.md)
if [ -n "${BEFORE:-}" ]; then
  keep=$status  # the earlier build's verdict does not set the exit status
  measure simulate_before "$BEFORE/gpuplan" simulate \
    --cluster examples/cluster.yaml --trace "$trace" --json
  status=$keep
fi
measure simulate "$build/gpuplan" simulate --cluster examples/cluster.yaml \
  --trace "$trace" --json
exit $status
