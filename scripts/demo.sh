#!/usr/bin/env bash
# The main job on the embedded defaults (what 'make demo' runs).
set -euo pipefail
GP=${1:-build/gpuplan}
cd "$(dirname "$0")/.."
echo "== gpuplan cluster examples/cluster.yaml"
"$GP" cluster examples/cluster.yaml
echo
echo "== gpuplan catalog list accelerators"
"$GP" catalog list accelerators
