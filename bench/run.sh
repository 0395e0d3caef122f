#!/usr/bin/env bash
# Run every benchmark built from bench/bench_*.c and print its report.
# Benchmarks print "name: value unit" lines; see bench/README.md.
set -euo pipefail
BUILD=${1:-build}
cd "$(dirname "$0")/.."
shopt -s nullglob
ran=0
for b in "$BUILD"/bench/bench_*; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  "$b"
  ran=$((ran + 1))
done
[ "$ran" -gt 0 ] || echo "no benchmarks built"
