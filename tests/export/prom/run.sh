#!/usr/bin/env bash
# Check 'gpuplan export prometheus' with Prometheus' own tool: the rules
# must pass 'promtool check rules' and the hand-worked unit tests
# rules_test.yml (cluster.yaml), health_test.yml (the GPU health alerts,
# cluster.yaml) and mixed_test.yml (mixed.yaml) with 'promtool test rules'.  promtool (Debian package 'prometheus',
# scripts/deps.sh) is required: without it the test fails.
set -euo pipefail
GP=$1
HERE=$(cd "$(dirname "$0")" && pwd)
command -v promtool >/dev/null 2>&1 || {
  echo "promtool not installed (apt-get install prometheus; see scripts/deps.sh)" >&2
  exit 1
}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$GP" export prometheus --cluster "$HERE/cluster.yaml" --out "$TMP/tiny" 2>/dev/null
"$GP" export prometheus --cluster "$HERE/mixed.yaml" --out "$TMP/mixed" 2>/dev/null
"$GP" export prometheus --cluster "$HERE/../../../examples/shared-cluster.yaml" \
  --out "$TMP/shared" 2>/dev/null
promtool check rules --lint-fatal "$TMP/tiny/gpuplan-rules.yml" \
  "$TMP/mixed/gpuplan-rules.yml" "$TMP/shared/gpuplan-rules.yml"
cp "$HERE/rules_test.yml" "$HERE/health_test.yml" "$TMP/tiny/"
cp "$HERE/mixed_test.yml" "$TMP/mixed/"
promtool test rules "$TMP/tiny/rules_test.yml" "$TMP/tiny/health_test.yml" \
  "$TMP/mixed/mixed_test.yml"
echo "4 passed, 0 failed"
