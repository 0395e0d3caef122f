#!/usr/bin/env bash
# export all from a plan's option: every one of the ten folders is written
# and every object in them passes the strict checks (validate.py --dir:
# upstream CRD schemas made strict, the core-kind checker, each target's
# ported rules).
# Usage: all_check.sh GPUPLAN PLAN.yaml OPTION
set -euo pipefail
gp=$1 plan=$2 option=$3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$gp" export all --plan "$plan" --option "$option" --out "$tmp/all" 2>"$tmp/err"
for t in kueue volcano slurm prometheus grafana gpu-operator yunikorn network serving jobs; do
  if ! ls "$tmp/all/$t"/* >/dev/null 2>&1; then
    echo "FAIL: export all wrote nothing into $t/"; cat "$tmp/err"; exit 1
  fi
done
python3 "$here/validate.py" --dir "$tmp/all"
