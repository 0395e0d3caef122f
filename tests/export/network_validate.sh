#!/bin/bash
# The network target's four export sets (InfiniBand and RoCE, NVIDIA
# Network Operator and SR-IOV Network Operator), written by the unit test
# binary from its hand-built plans, pass validate.py --dir: the upstream
# CRDs made strict and rules_network.py.
# Usage: network_validate.sh TEST_EXPORT_NETWORK
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
"$1" --write "$out" || { echo "FAIL: writing the export sets"; exit 1; }
rc=0
for set in ib-nvidia roce-nvidia ib-sriov roce-sriov; do
    echo "== $set"
    [ -d "$out/$set" ] || { echo "FAIL: no $set"; rc=1; continue; }
    python3 "$here/validate.py" --dir "$out/$set" || rc=1
done
exit $rc
