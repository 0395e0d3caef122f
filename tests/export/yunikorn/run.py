#!/usr/bin/env python3
"""Export yunikorn for each cluster spec and check it as a cluster would.

Usage: run.py GPUPLAN SPEC.yaml [SPEC.yaml ...]
       (a SPEC written plan:PATH is a plan: exported with --plan PATH)

Each export must be one ConfigMap yunikorn-configs (namespace yunikorn)
that passes tests/export/validate.py --dir: the core-kind check of the
ConfigMap (kubernetes-models plus unknown fields) and every rule of
rules_yunikorn.py on its queues.yaml (YuniKorn's own validation and
gpuplan's property checks).
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
VALIDATE = os.path.join(HERE, "..", "validate.py")


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    gp, failed = argv[1], 0
    for spec in argv[2:]:
        kind = "--cluster"
        if spec.startswith("plan:"):
            kind, spec = "--plan", spec[5:]
        label = os.path.basename(spec)
        p = subprocess.run([gp, "export", "yunikorn", kind, spec, "--json"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            print(f"FAIL {label}: export failed: {p.stderr.strip()}")
            failed += 1
            continue
        files = json.loads(p.stdout)["files"]
        if [f["name"] for f in files] != ["yunikorn-configs.yaml"]:
            print(f"FAIL {label}: files {[f['name'] for f in files]}")
            failed += 1
            continue
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, files[0]["name"]), "w") as fh:
                fh.write(files[0]["text"])
            v = subprocess.run([sys.executable, VALIDATE, "--dir", d],
                               capture_output=True, text=True)
        print(v.stdout.strip().replace(os.path.basename(d), label))
        if v.returncode != 0 or "1 objects, 0 failures" not in v.stdout:
            print(f"FAIL {label}: {v.stderr.strip()}")
            failed += 1
    print(f"{len(argv) - 2} specs, {failed} failures")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
