#!/usr/bin/env python3
"""Check every export set under DIR (one folder each) with validate.py's
check_dir, loading the CRD schemas once for all of them.

Usage: check.py DIR MIN_SETS
"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "validate", os.path.join(HERE, "..", "validate.py"))
validate = importlib.util.module_from_spec(spec)
spec.loader.exec_module(validate)


def main(d, min_sets):
    sets = sorted(e for e in os.listdir(d) if os.path.isdir(os.path.join(d, e)))
    rc = 0
    for s in sets:
        print(f"== {s}")
        rc |= validate.check_dir(os.path.join(d, s))
    if len(sets) < min_sets:
        print(f"FAIL: {len(sets)} export sets written, expected {min_sets}")
        rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2])))
