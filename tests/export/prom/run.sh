#!/usr/bin/env bash
# Check 'gpuplan export prometheus' with Prometheus' own tool: the rules
# must pass 'promtool check rules' and the hand-worked unit test
# rules_test.yml ('promtool test rules').  Exit 77 (skipped) without promtool.
set -euo pipefail
GP=$1
HERE=$(cd "$(dirname "$0")" && pwd)
command -v promtool >/dev/null 2>&1 || { echo "promtool not installed"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$GP" export prometheus --cluster "$HERE/cluster.yaml" --out "$TMP" 2>/dev/null
"$GP" export prometheus --cluster "$HERE/../../../examples/shared-cluster.yaml" \
  --out "$TMP/shared" 2>/dev/null
promtool check rules "$TMP/gpuplan-rules.yml" "$TMP/shared/gpuplan-rules.yml"
cp "$HERE/rules_test.yml" "$TMP/"
promtool test rules "$TMP/rules_test.yml"
echo "2 passed, 0 failed"
