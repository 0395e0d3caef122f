#!/usr/bin/env bash
# Plan speed against sort (issue 13, "Plan speed"): the enterprise example's
# `gpuplan plan` beside `sort -t, -k2,2n` of the 82k-job Philly CSV, both in
# this run on this machine; prints each median of 5 runs and the ratio
# (target: at most 3).
#
# Measured on a shared 2-core machine (load 5), medians of 5, sort 0.06 to
# 0.10 s: before the planner memo (serving search and training sizing
# remembered per exact inputs) and the integer token sums in the serving
# simulator, 7.3 s (124x); after, 1.6 s (16x); unloaded, 5.2 s before and
# 0.87 s after (about 11x a 0.08 s sort).  The rest was nine distinct
# serving searches (three accelerators x base, fp8, trtllm), each a
# simulation per layout and bisection step, 12 M engine iterations, 98 %
# of them decode-only.  Decode-only runs taken in O(1) a step (the same
# arithmetic, identical results: tests/unit/test_infer_sim_runs.c) and a
# radix sort of the latency samples: see the ratio this script prints
# with BEFORE= a build of the earlier tree, both in the same run.
#
# usage: [BEFORE=DIR] bench/plan_speed.sh [BUILD_DIR] [PHILLY_CSV]
#   BUILD_DIR   default build
#   BEFORE      optional: a build directory of another tree (an earlier
#               commit), timed in the same run for a before/after ratio
#   PHILLY_CSV  the Pollux/Sia philly.csv (82,053 jobs), plain or .gz;
#               default $PHILLY_CSV, else bench/data/philly.csv.gz
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
CSV=${2:-${PHILLY_CSV:-bench/data/philly.csv.gz}}
GP="$BUILD/gpuplan"
SPEC=examples/enterprise-plan.yaml
[ -x "$GP" ] || { echo "plan_speed: no $GP (build first)" >&2; exit 2; }
[ -r "$CSV" ] || { echo "plan_speed: no Philly CSV at $CSV" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case "$CSV" in
*.gz) gzip -dc "$CSV" > "$tmp/philly.csv" ;;
*) cp "$CSV" "$tmp/philly.csv" ;;
esac
rows=$(($(wc -l < "$tmp/philly.csv") - 1))

# median wall seconds of 5 runs of "$@" (output discarded)
median5() {
  local i t
  for i in 1 2 3 4 5; do
    t0=$(date +%s.%N)
    "$@" > /dev/null
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'
  done | sort -n | sed -n 3p
}

sort_s=$(median5 sort -t, -k2,2n "$tmp/philly.csv")
plan_s=$(median5 "$GP" plan "$SPEC")
printf 'sort -t, -k2,2n philly.csv (%d jobs): %.3f s\n' "$rows" "$sort_s"
printf 'gpuplan plan %s: %.3f s\n' "$SPEC" "$plan_s"
awk -v p="$plan_s" -v s="$sort_s" 'BEGIN { printf "plan / sort: %.1fx (target <= 3x)\n", p / s }'
if [ -n "${BEFORE:-}" ]; then
  [ -x "$BEFORE/gpuplan" ] || { echo "plan_speed: no $BEFORE/gpuplan" >&2; exit 2; }
  before_s=$(median5 "$BEFORE/gpuplan" plan "$SPEC")
  cmp -s <("$BEFORE/gpuplan" plan "$SPEC") <("$GP" plan "$SPEC") \
    && same=identical || same=DIFFERENT
  printf 'before (%s): %.3f s, %.1fx the sort; output %s\n' "$BEFORE" \
    "$before_s" "$(awk -v p="$before_s" -v s="$sort_s" 'BEGIN { print p / s }')" "$same"
  awk -v a="$before_s" -v b="$plan_s" 'BEGIN { printf "before / after: %.2fx faster\n", a / b }'
fi
