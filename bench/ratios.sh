#!/usr/bin/env bash
# The two speed targets of issue 13 in one interleaved loop, as ratios to
# `sort -t, -k2,2n` of the 82k-job Philly list measured in the same loop:
#   plan      gpuplan plan examples/enterprise-plan.yaml      (target <= 3)
#   fs, fb    gpuplan simulate --cluster bench/data/a100-32x8.yaml
#             --trace philly.csv --policy fair-share | fifo-backfill
#                                                              (target <= 5)
# Each round runs sort, then every command (and, with BEFORE, the same
# command of the other build right after), so load changes on a shared
# machine hit both sides alike.  Prints the median of RUNS (default 7)
# wall-clock times per command and its ratio to the median sort, then the
# same for CPU time (user + system: steadier under load).  With
# BEFORE it also checks that both builds print byte-identical output
# (text and --json) for every command.
#
# usage: [RUNS=7] [BEFORE=DIR] bench/ratios.sh [BUILD]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
RUNS=${RUNS:-7}
GP="$BUILD/gpuplan"
[ -x "$GP" ] || { echo "ratios: no $GP (build first)" >&2; exit 2; }
if [ -n "${BEFORE:-}" ] && [ ! -x "$BEFORE/gpuplan" ]; then
  echo "ratios: no $BEFORE/gpuplan" >&2
  exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gzip -dc bench/data/philly.csv.gz > "$tmp/philly.csv"
CL=bench/data/a100-32x8.yaml

args () { # the arguments of command $1
  case $1 in
  plan) echo "plan examples/enterprise-plan.yaml" ;;
  fs) echo "simulate --cluster $CL --trace $tmp/philly.csv --policy fair-share" ;;
  fb) echo "simulate --cluster $CL --trace $tmp/philly.csv --policy fifo-backfill" ;;
  esac
}

wall () { # "WALL CPU" seconds of one run of "$@", output discarded
  # (CPU: user + system of the command; steadier on a loaded machine)
  local TIMEFORMAT='%3R %3U %3S'
  { time "$@" > /dev/null 2>&1; } 2> "$tmp/t1"
  awk '{ printf "%.4f %.4f\n", $1, $2 + $3 }' "$tmp/t1"
}

for _ in $(seq "$RUNS"); do
  echo "sort $(wall sort -t, -k2,2n "$tmp/philly.csv")"
  for c in plan fs fb; do
    # shellcheck disable=SC2046
    echo "$c $(wall "$GP" $(args $c))"
    if [ -n "${BEFORE:-}" ]; then
      # shellcheck disable=SC2046
      echo "$c.before $(wall "$BEFORE/gpuplan" $(args $c))"
    fi
  done
done > "$tmp/times"

med () { # median of the times of key $1 (column COL: 2 wall, 3 CPU)
  awk -v k="$1" -v c="${COL:-2}" '$1 == k { print $c }' "$tmp/times" \
    | sort -n \
    | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

for COL in 2 3; do
  case $COL in 2) what="wall-clock" ;; *) what="CPU (user + sys)" ;; esac
  s=$(med sort)
  echo "== issue 13 speed ratios, $what, median of $RUNS interleaved runs"
  printf 'sort -t, -k2,2n philly.csv: %.3f s\n' "$s"
  for c in plan fs fb; do
    case $c in plan) tgt=3 ;; *) tgt=5 ;; esac
    t=$(med $c)
    printf '%s: %.3f s, %.2fx the sort (target <= %d)' "$c" "$t" \
      "$(awk -v t="$t" -v s="$s" 'BEGIN { print t / s }')" "$tgt"
    if [ -n "${BEFORE:-}" ]; then
      b=$(med $c.before)
      printf '; before %.3f s, %.2fx' "$b" \
        "$(awk -v t="$b" -v s="$s" 'BEGIN { print t / s }')"
    fi
    echo
  done
done
if [ -n "${BEFORE:-}" ]; then
  for c in plan fs fb; do
    for f in "" --json; do
      # shellcheck disable=SC2046
      if cmp -s <("$BEFORE/gpuplan" $(args $c) $f) <("$GP" $(args $c) $f); then
        echo "output $c ${f:-text}: identical"
      else
        echo "output $c ${f:-text}: DIFFERENT"
      fi
    done
  done
fi
