#!/usr/bin/env python3
"""Numeric extremes on every numeric key of the plan, cluster, infer and
train specs.

For each base spec in this folder and each line `key: number-or-quantity`
in it, the value is replaced by each of 0, -1, 1e-300, 1e300, 1e999, 0x8
and a 230-digit number, and the command runs on the result.  Every run
must end with exit 0, 1 or 2 (never a signal, never exit 3), print
'gpuplan: error:' on a non-zero exit, name a position (FILE:LINE:COL) on
exit 2 for a value the loader rejects, and print no sanitizer report
('runtime error', 'AddressSanitizer').  Run it with a binary built with
-fsanitize=undefined,float-cast-overflow,float-divide-by-zero to find
undefined behaviour; ctest runs it with the normal build.

usage: numeric_sweep.py GPUPLAN [--deep]
"""
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
BASES = [
    ("plan", "plan.yaml"),
    ("plan", "plan-existing.yaml"),
    ("cluster", "cluster.yaml"),
    ("infer", "infer.yaml"),
    ("infer", "infer-moe.yaml"),
    ("train", "train.yaml"),
    ("train", "train-moe.yaml"),
]
VALUES = ["0", "-1", "1e-300", "1e300", "1e999", "0x8",
          "1" + "234567890" * 25 + "12345"]
# --deep adds values inside most ranges, so that the models run on them
DEEP = ["1", "3", "1e7", "1e12"]
LINE = re.compile(r"^(\s*(?:- )?)([a-z_0-9]+): ([-$0-9.][^#]*?)\s*$")
POS = re.compile(r":\d+:\d+: ")


def variants(text, values):
    lines = text.split("\n")
    for i, line in enumerate(lines):
        m = LINE.match(line)
        if not m or m.group(2) in ("name",):
            continue
        for v in values:
            copy = list(lines)
            copy[i] = f"{m.group(1)}{m.group(2)}: {v}"
            yield m.group(2), v, "\n".join(copy)


def run_one(gp, tmp, i, cmd, base, key, v, spec, env):
    """One variant: None when it behaves, else the reason."""
    path = os.path.join(tmp, f"{i}-{key}.yaml")
    with open(path, "w") as f:
        f.write(spec)
    try:
        p = subprocess.run([gp, cmd, path], capture_output=True, text=True,
                           errors="replace", timeout=120, env=env)
    except subprocess.TimeoutExpired:
        return "over 120 s"
    err = p.stderr
    if p.returncode < 0 or p.returncode > 2:
        why = f"exit {p.returncode}"
    elif "runtime error" in err or "Sanitizer" in err:
        why = "sanitizer report"
    elif p.returncode and "gpuplan: error:" not in err:
        why = "no 'gpuplan: error:' message"
    elif p.returncode == 2 and not POS.search(err):
        why = "exit 2 without FILE:LINE:COL"
    elif len(v) > 100 and v in err:
        why = "the long number echoed in full"
    else:
        return None
    return f"{why}: {err.strip().splitlines()[:3]}"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    gp = sys.argv[1]
    values = VALUES + (DEEP if "--deep" in sys.argv[2:] else [])
    env = dict(os.environ, UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1")
    jobs = []
    for cmd, base in BASES:
        with open(os.path.join(HERE, base)) as f:
            text = f.read()
        for key, v, spec in variants(text, values):
            jobs.append((cmd, base, key, v, spec))
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            res = pool.map(lambda a: run_one(gp, tmp, *a, env),
                           [(i,) + j for i, j in enumerate(jobs)])
            for (cmd, base, key, v, spec), why in zip(jobs, res):
                if why:
                    bad += 1
                    print(f"FAIL {base} {key}={v[:20]}: {why}")
    print(f"{len(jobs)} runs, {bad} failed")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
