#!/usr/bin/env python3
"""docs/model/defaults.md documents every row of the defaults registry.

Runs `gpuplan assumptions --json` and compares it with the table under
"## Rows" of docs/model/defaults.md: the same keys in the same order, and
for each the same value, unit, users and source.  Exits 1 listing every
disagreement.
"""
import json
import math
import os
import subprocess
import sys


def doc_rows(path):
    rows = []
    in_rows = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("## "):
                in_rows = line.strip() == "## Rows"
                continue
            if not in_rows or not line.startswith("| `"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) != 5:
                rows.append({"bad": line.strip()})
                continue
            key, value, unit, users, source = cells
            rows.append({"key": key.strip("`"), "value": value, "unit": unit,
                         "users": [u.strip() for u in users.split(",")],
                         "source": source})
    return rows


def same_value(doc, reg):
    if isinstance(reg, str):
        return doc == reg
    try:
        v = float(doc)
    except ValueError:
        return False
    return math.isclose(v, reg, rel_tol=1e-9, abs_tol=0.0)


def check_dists(path, reg):
    """The "## Distributions" table: one row per uncertain registry row,
    in registry order, with the same distribution text and source."""
    rows = []
    in_sec = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("## "):
                in_sec = line.strip() == "## Distributions"
                continue
            if in_sec and line.startswith("| `"):
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                if len(cells) != 3:
                    return [f"malformed distribution row: {line.strip()}"]
                rows.append((cells[0].strip("`"), cells[1], cells[2]))
    want = [(r["key"], r["distribution"]["text"], r["distribution"]["source"])
            for r in reg if "distribution" in r]
    errors = []
    for k in [w[0] for w in want if w[0] not in [r[0] for r in rows]]:
        errors.append(f"{k}: distribution in the registry, not in {path}")
    for k in [r[0] for r in rows if r[0] not in [w[0] for w in want]]:
        errors.append(f"{k}: distribution in {path}, not in the registry")
    if not errors and rows != want:
        errors.append("distributions differ from the registry (text, "
                      "source or order)")
    return errors


def main():
    gp = sys.argv[1]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    doc = os.path.join(root, "docs", "model", "defaults.md")
    out = subprocess.run([gp, "assumptions", "--json"], capture_output=True,
                         check=True, text=True).stdout
    reg = json.loads(out)["defaults"]
    rows = doc_rows(doc)
    errors = [f"malformed row: {r['bad']}" for r in rows if "bad" in r]
    rows = [r for r in rows if "bad" not in r]
    doc_keys = [r["key"] for r in rows]
    reg_keys = [r["key"] for r in reg]
    for k in reg_keys:
        if k not in doc_keys:
            errors.append(f"{k}: in the registry, not in {doc}")
    for k in doc_keys:
        if k not in reg_keys:
            errors.append(f"{k}: in {doc}, not in the registry")
    if not errors and doc_keys != reg_keys:
        errors.append("rows are not in registry order")
    by_key = {r["key"]: r for r in rows}
    for r in reg:
        d = by_key.get(r["key"])
        if not d:
            continue
        if not same_value(d["value"], r["value"]):
            errors.append(f"{r['key']}: value {d['value']} in the docs, "
                          f"{r['value']} in the registry")
        for field in ("unit", "users", "source"):
            if d[field] != r[field]:
                errors.append(f"{r['key']}: {field} differs:\n  docs:     "
                              f"{d[field]}\n  registry: {r[field]}")
    errors += check_dists(doc, reg)
    for e in errors:
        print(f"defaults_doc: {e}")
    if errors:
        return 1
    print(f"defaults_doc: {len(reg)} rows agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
