#!/usr/bin/env python3
"""Check 'gpuplan export gpu-operator' on the specs given:

1. every object of the export set passes validate.py's checks: the
   ClusterPolicy strictly against the GPU Operator v26.7.0 CRD, and the
   rules of rules_gpu_operator.py (ConfigMaps it names exist, mig-parted
   and device-plugin configs parse as their components parse them, the
   dcgm-exporter CSV names real DCGM fields with their types).  ConfigMaps
   are core kinds: until validate.py has a checker for them (rules_core.py)
   their "no schema" message is the only one tolerated;
2. the counters CSV enables every DCGM field the exported Prometheus rules
   and Grafana dashboard of the same spec read (the deprecated clock-event
   alias aside, which the rules accept but the CSV need not list);
3. node-labels.sh is valid POSIX shell (sh -n) and labels every NVIDIA pool.

Usage: run.py GPUPLAN SPEC.yaml [SPEC.yaml ...]   (from the repository root)
"""
import importlib.util
import json
import os
import re
import subprocess
import sys

try:
    import yaml
except ImportError:
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise

HERE = os.path.dirname(os.path.abspath(__file__))
spec_ = importlib.util.spec_from_file_location(
    "validate", os.path.join(HERE, "..", "validate.py"))
V = importlib.util.module_from_spec(spec_)
spec_.loader.exec_module(V)

ALIAS = {"DCGM_FI_DEV_CLOCK_THROTTLE_REASONS"}
failed = 0


def fail(msg):
    global failed
    failed += 1
    print(f"FAIL {msg}")


def export(gp, target, spec):
    p = subprocess.run([gp, "export", target, "--cluster", spec, "--json"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"{spec}: export {target}: {p.stderr.strip()}")
        return {}
    return {f["name"]: f["text"] for f in json.loads(p.stdout)["files"]}


def check_objects(label, files):
    docs = []
    for name, text in files.items():
        if name.endswith(".yaml"):
            docs += [d for d in yaml.safe_load_all(text) if d]
    core = ("v1", "ConfigMap") in V.CORE_CHECKERS
    n = 0
    for rid, msg in V.check_docs(docs, label):
        if not core and "no schema for ('v1', 'ConfigMap')" in msg:
            continue
        fail(msg)
        n += 1
    kinds = sorted({d["kind"] for d in docs})
    print(f"ok   {label}: {len(docs)} objects ({', '.join(kinds)}), {n} "
          f"failures{'' if core else '; ConfigMap core schema not yet available'}")
    return docs


def csv_fields(docs):
    for d in docs:
        text = (d.get("data") or {}).get("dcgm-metrics.csv")
        if text is not None:
            return {ln.split(",")[0].strip() for ln in text.splitlines()
                    if ln.strip() and not ln.lstrip().startswith("#")}
    return set()


def check_fields(gp, spec, label, docs):
    enabled = csv_fields(docs)
    if not enabled:
        fail(f"{label}: no dcgm-metrics.csv")
        return
    read = set()
    rules = export(gp, "prometheus", spec).get("gpuplan-rules.yml", "")
    for g in (yaml.safe_load(rules) or {}).get("groups", []):
        for r in g["rules"]:
            read |= set(re.findall(r"DCGM_FI_[A-Z0-9_]+", r["expr"]))
    dash = export(gp, "grafana", spec)
    for text in dash.values():
        read |= set(re.findall(r"DCGM_FI_[A-Z0-9_]+", text))
    missing = sorted(read - enabled - ALIAS)
    for n in missing:
        fail(f"{label}: rules or dashboard read {n}, the counters CSV does not enable it")
    unused = sorted(enabled - read)
    for n in unused:
        fail(f"{label}: the counters CSV enables {n}, which nothing reads")
    print(f"ok   {label}: {len(read)} DCGM fields read, all enabled")


def check_labels(spec, label, files):
    sh = files.get("node-labels.sh", "")
    p = subprocess.run(["sh", "-n"], input=sh, text=True, capture_output=True)
    if p.returncode != 0:
        fail(f"{label}: node-labels.sh: {p.stderr.strip()}")
    with open(spec) as fh:
        pools = yaml.safe_load(fh)["pools"]
    for pool in pools:
        want = f"-l 'gpuplan.io/pool={pool['name']}' 'nvidia.com/mig.config="
        nvidia = not re.match(r"(MI|GAUDI|TPU|TRN|INF)", pool["accelerator"])
        if nvidia and want not in sh:
            fail(f"{label}: node-labels.sh does not label pool {pool['name']}")


def main(argv):
    gp, specs = argv[1], argv[2:]
    for spec in specs:
        label = f"{os.path.basename(spec)} gpu-operator"
        files = export(gp, "gpu-operator", spec)
        if not files:
            continue
        docs = check_objects(label, files)
        check_fields(gp, spec, label, docs)
        check_labels(spec, label, files)
    print(f"{len(specs)} specs, {failed} failures")
    return 1 if failed or not specs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
