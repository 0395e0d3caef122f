#!/usr/bin/env bash
# run.sh - the serving export's objects through the strict validator: the
# serving unit test writes every file it renders (hand-built plans and the
# enterprise example) under a temporary folder, and validate.py's check_dir
# checks each set (serving/check.py) (CRD schemas of KServe, KEDA and LWS; the core checker
# for the HPA; the serving rules).
# Usage: run.sh TEST_EXPORT_SERVING PYTHON
set -u
bin=$(realpath "$1")
py=${2:-python3}
here=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
(cd "$here/../" && GP_SERVE_OUT="$out" "$bin" >"$out/unit.log" 2>&1) || {
    cat "$out/unit.log"; echo "FAIL: the serving unit test failed"; exit 1; }
"$py" "$here/serving/check.py" "$out" 10
