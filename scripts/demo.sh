#!/usr/bin/env bash
# The main job on the embedded defaults (what 'make demo' runs): the capacity
# plan of the shipped enterprise example, with its HTML report.
set -euo pipefail
GP=${1:-build/gpuplan}
cd "$(dirname "$0")/.."
OUT="$(dirname "$GP")/plan-report.html"
echo "== gpuplan plan examples/enterprise-plan.yaml"
"$GP" plan examples/enterprise-plan.yaml
"$GP" plan examples/enterprise-plan.yaml --format html --out "$OUT"
echo
echo "HTML report with charts: $OUT"
echo
echo "== gpuplan cluster examples/cluster.yaml"
"$GP" cluster examples/cluster.yaml
