#!/usr/bin/env bash
# Install the Debian packages gpuplan needs to build and test, if missing.
# Idempotent and quick when everything is present.  See README "Dependencies".
set -euo pipefail

PKGS=(
  build-essential cmake pkg-config   # toolchain
  libyaml-dev                        # YAML specs (libyaml)
  libjansson-dev                     # JSON trees and output (jansson)
  libcsv-dev                         # RFC 4180 CSV: catalog, traces (libcsv)
  libcmocka-dev                      # unit tests (cmocka)
  libglpk-dev                        # linear programs: fleet-mix optimisation (GLPK)
  python3                            # golden/CLI test drivers, data checks
  python3-yaml python3-jsonschema    # validating exported manifests against CRD schemas
  chromium                           # headless browser test of the HTML plan report
  prometheus                         # promtool: checks and unit-tests exported alerting rules
  munge                              # live Slurm export test: authentication of the Slurm daemons
  mariadb-server                     # live Slurm export test: slurmdbd's database (QOS, associations, GPU TRES)
  slurmdbd                           # live Slurm export test: accounting daemon (gres/gpu TRES needs it)
  slurmctld                          # live Slurm export test: controller loading the exported slurm.conf
  slurmd                             # live Slurm export test: one node with fake GPU device files
  slurm-client                       # live Slurm export test: sacctmgr, sbatch, squeue, scontrol, sacct
  clang libclang-rt-14-dev           # libFuzzer harnesses (make fuzz): clang, libclang_rt.fuzzer
  libmicrohttpd-dev                  # gpuplan serve: the planning assistant's HTTP server (GNU libmicrohttpd)
)
missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# Core-kind checks of exported manifests (tests/export/rules_core.py): node
# runs the kubernetes-models validators pinned in tests/export/k8score.
# Checked by command, not by package, so an existing Node.js install counts.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
# npm ci in tests/export/k8score, only when package-lock.json changed since
# the last install (a stamp beside node_modules; node_modules is not in git).
k8score() {
  local d lock stamp
  d="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests/export/k8score"
  lock="$(sha256sum "$d/package-lock.json" | cut -d' ' -f1)"
  stamp="$d/node_modules/.gpuplan-lock-sha256"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$lock" ]; then
    return 0
  fi
  echo "deps: npm ci in tests/export/k8score" >&2
  (cd "$d" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  echo "$lock" >"$stamp"
}
# npm ci in tests/serve/browser (playwright-core driving Debian's chromium
# in the gpuplan serve browser test), with the same kind of stamp.
serve_browser() {
  local d lock stamp
  d="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests/serve/browser"
  lock="$(sha256sum "$d/package-lock.json" | cut -d' ' -f1)"
  stamp="$d/node_modules/.gpuplan-lock-sha256"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$lock" ]; then
    return 0
  fi
  echo "deps: npm ci in tests/serve/browser" >&2
  (cd "$d" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  echo "$lock" >"$stamp"
}
if [ ${#missing[@]} -eq 0 ]; then
  k8score
  serve_browser
  exit 0
fi
echo "deps: installing ${missing[*]}" >&2
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=sudo
  else
    echo "deps: run as root: apt-get install ${missing[*]}" >&2
    exit 1
  fi
else
  SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
k8score
serve_browser
