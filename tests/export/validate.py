#!/usr/bin/env python3
"""Validate `gpuplan export` output against the real CRD schemas.

Usage: validate.py GPUPLAN SPEC.yaml

Runs `gpuplan export kueue` and `gpuplan export volcano` on SPEC, splits the
multi-document YAML, and validates every custom resource's object against
the openAPIV3Schema of its CRD version (tests/export/schemas/, copied from
the upstream releases) with jsonschema; core objects (Namespace) are checked
for a DNS-1123 name.  Also checks the cross-references Kueue needs:
LocalQueue -> ClusterQueue, ClusterQueue flavors -> ResourceFlavors.
"""
import os
import re
import subprocess
import sys

try:
    import jsonschema
    import yaml
except ImportError:
    # The interpreter CMake found may lack them; Debian's has them when
    # python3-yaml and python3-jsonschema are installed (scripts/deps.sh).
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise

HERE = os.path.dirname(os.path.abspath(__file__))
DNS1123 = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def load_crds():
    crds = {}
    d = os.path.join(HERE, "schemas")
    for f in sorted(os.listdir(d)):
        if not f.endswith(".yaml"):
            continue
        with open(os.path.join(d, f)) as fh:
            crd = yaml.safe_load(fh)
        group = crd["spec"]["group"]
        kind = crd["spec"]["names"]["kind"]
        for v in crd["spec"]["versions"]:
            crds[(f"{group}/{v['name']}", kind)] = v["schema"]["openAPIV3Schema"]
    return crds


def main():
    gp, spec = sys.argv[1], sys.argv[2]
    crds = load_crds()
    failed = checked = 0
    for target in ("kueue", "volcano"):
        p = subprocess.run([gp, "export", target, "--cluster", spec, "--json"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            print(f"FAIL export {target}: {p.stderr.strip()}")
            failed += 1
            continue
        import json
        text = json.loads(p.stdout)["files"][0]["text"]
        docs = [d for d in yaml.safe_load_all(text) if d is not None]
        names = {}
        for doc in docs:
            key = (doc["apiVersion"], doc["kind"])
            name = doc["metadata"]["name"]
            names.setdefault(doc["kind"], set()).add(name)
            if not DNS1123.match(name):
                print(f"FAIL {target} {doc['kind']} {name}: not a DNS-1123 label")
                failed += 1
            if key == ("v1", "Namespace"):
                checked += 1
                continue
            schema = crds.get(key)
            if schema is None:
                print(f"FAIL {target}: no schema for {key}")
                failed += 1
                continue
            errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(doc),
                            key=lambda e: list(e.path))
            for e in errors:
                print(f"FAIL {target} {doc['kind']} {name}: "
                      f"{'/'.join(map(str, e.path))}: {e.message}")
            failed += bool(errors)
            checked += 1
        if target == "kueue":
            for doc in docs:
                if doc["kind"] == "LocalQueue":
                    if doc["spec"]["clusterQueue"] not in names.get("ClusterQueue", ()):
                        print(f"FAIL LocalQueue {doc['metadata']['name']}: unknown ClusterQueue")
                        failed += 1
                if doc["kind"] == "ClusterQueue":
                    for rg in doc["spec"]["resourceGroups"]:
                        for fl in rg["flavors"]:
                            if fl["name"] not in names.get("ResourceFlavor", ()):
                                print(f"FAIL ClusterQueue {doc['metadata']['name']}: "
                                      f"unknown flavor {fl['name']}")
                                failed += 1
                            for r in fl["resources"]:
                                if r["name"] not in rg["coveredResources"]:
                                    print(f"FAIL {r['name']} not covered")
                                    failed += 1
    print(f"{checked - failed} passed, {failed} failed")
    return 1 if failed or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
