#!/usr/bin/env bash
# Byte-for-byte output check of two builds (a speed change must not move
# any answer): stdout and exit status of every golden case's command, the
# same with --json for the train and plan cases, and `plan` text and
# --json of every examples/*.yaml and tests/cli/specs/plan*.yaml.
#
# usage: bench/same_output.sh BEFORE_BUILD AFTER_BUILD
set -uo pipefail
cd "$(dirname "$0")/.."
A="$1/gpuplan"
B="$2/gpuplan"
for g in "$A" "$B"; do
  [ -x "$g" ] || { echo "same_output: no $g" >&2; exit 2; }
done
n=0
bad=0
check () { # the arguments of one command
  local oa ob ra rb
  oa=$("$A" "$@" 2>&1; echo "rc=$?")
  ob=$("$B" "$@" 2>&1; echo "rc=$?")
  n=$((n + 1))
  if [ "$oa" != "$ob" ]; then
    echo "DIFFERENT: gpuplan $*"
    bad=$((bad + 1))
  fi
}
for d in tests/golden/*/; do
  eval "set -- $(cat "$d/cmd")"
  check "$@"
  case $1 in
  train | plan)
    case " $* " in *" --json "*) ;; *) check "$@" --json ;; esac ;;
  esac
done
for f in examples/*.yaml tests/cli/specs/plan*.yaml; do
  check plan "$f"
  check plan "$f" --json
done
echo "same_output: $n commands, $bad different"
[ "$bad" -eq 0 ]
