#!/usr/bin/env bash
# Fresh fuzzing: run each libFuzzer target of BUILD (built with
# -DGP_FUZZ=ON, see fuzz/README.md) for a fixed time, starting from its
# corpus in fuzz/corpus/.  New inputs go to BUILD/fuzz/new/<target>/ (the
# repository corpus is only read); a crash, leak or timeout stops the run
# with its input saved as BUILD/fuzz/crashes/<target>-crash-<sha1>.
#
#   fuzz/run.sh BUILD [TOTAL_SECONDS]      (default 286: 13 runs x 22 s)
#
# The total is split evenly over the runs (five parsers, the flag parser and
# one run per trace-format corpus), so it bounds the whole step.
set -euo pipefail
build=$(cd "${1:?usage: fuzz/run.sh BUILD [TOTAL_SECONDS]}" && pwd)
total=${2:-286}
root=$(cd "$(dirname "$0")/.." && pwd)
runs=(cluster plan infer units cli
      trace:auto trace:generic trace:philly trace:tiresias trace:pollux
      trace:gavel trace:alibaba2023 trace:sacct)
per=$(( total / ${#runs[@]} ))
[ "$per" -ge 1 ] || per=1
mkdir -p "$build/fuzz/crashes"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
start=$(date +%s)
fail=0
printf '%-20s %10s %8s %6s\n' target execs exec/s cov
for r in "${runs[@]}"; do
  t=${r%%:*}
  if [ "$t" = trace ]; then corpus=trace_${r#*:}; else corpus=$t; fi
  new="$build/fuzz/new/$corpus"
  log="$build/fuzz/$corpus.log"
  mkdir -p "$new"
  if ! "$build/fuzz/fuzz_$t" -max_total_time="$per" -timeout=25 \
       -rss_limit_mb=2560 -max_len=16384 -print_final_stats=1 \
       -artifact_prefix="$build/fuzz/crashes/$corpus-" \
       "$new" "$root/fuzz/corpus/$corpus" >"$log" 2>&1; then
    fail=1
    echo "fuzz: $corpus FAILED; input saved under $build/fuzz/crashes/" >&2
    grep -E 'ERROR|SUMMARY|Test unit written' "$log" | head -20 >&2 || true
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
  printf '%-20s %10s %8s %6s\n' "$corpus" "${execs:-?}" "${rate:-?}" "${cov:-?}"
done
echo "fuzz: ${#runs[@]} runs of ${per} s in $(( $(date +%s) - start )) s"
exit $fail
