#!/usr/bin/env python3
"""Regenerate the seed part of fuzz/corpus/ from the repository's own
examples, test specs and trace samples (run from the repository root).

Seeds are named seed-*; inputs that found a bug are named crash-* or
regress-* and are kept by hand.  Each trace format has its own corpus
(trace_<format>/): the first byte of an input picks the format
(fuzz/fuzz_trace.c), so a seed is that byte followed by the first lines of
the format's sample.  CLI seeds are the argument lists of
tests/cli/*.cases, NUL-separated, for the runs that take under 0.1 s (release build).
"""
import glob
import os
import shlex
import subprocess
import sys
import time

ROOT = "fuzz/corpus"
FORMATS = ["auto", "generic", "philly", "tiresias", "pollux", "gavel",
           "alibaba2023", "sacct"]
SAMPLES = {
    "generic": ["traces/generic/example.csv",
                "tests/scenarios/hol-fifo/jobs.csv"],
    "philly": ["traces/philly/philly-2000.csv"],
    "tiresias": ["traces/tiresias/60_job.csv"],
    "pollux": ["traces/pollux/workload-1.csv"],
    "gavel": ["traces/gavel/artifact_evaluation.trace"],
    "alibaba2023": ["traces/alibaba2023/pods.csv"],
    "sacct": ["traces/sacct/example.txt"],
}


def put(target, name, data):
    d = os.path.join(ROOT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


def head(path, lines=25):
    with open(path, "rb") as f:
        return b"".join(f.readlines()[:lines])


def yaml_seeds():
    for p in ["examples/cluster.yaml", "examples/shared-cluster.yaml"] + \
            sorted(glob.glob("tests/corpus/yaml/*.yaml")) + \
            ["tests/cli/specs/minimal.yaml", "tests/cli/specs/bad-k8s-name.yaml"]:
        put("cluster", p.replace("/", "_"), open(p, "rb").read())
    for p in sorted(glob.glob("examples/*-plan.yaml")) + \
            sorted(glob.glob("tests/cli/specs/plan-*.yaml")):
        put("plan", p.replace("/", "_"), open(p, "rb").read())
    for p in sorted(glob.glob("examples/infer-*.yaml")) + \
            sorted(glob.glob("tests/cli/specs/infer-*.yaml")):
        put("infer", p.replace("/", "_"), open(p, "rb").read())


def trace_seeds():
    for i, fmt in enumerate(FORMATS):
        srcs = SAMPLES.get(fmt) or [s for v in SAMPLES.values() for s in v]
        for p in srcs:
            put("trace_" + fmt, p.replace("/", "_"), bytes([i]) + head(p))


UNITS = [
    (0, ["80GB", "80GiB", "2TB", "512MiB", "1.5 TB", "1024", "1e999"]),
    (1, ["3.35TB/s", "900GB/s", "400Gbps", "400Gb/s", "25GiB/s"]),
    (2, ["989TFLOPS", "989.4 TFLOP/s", "1.2PFLOP/s", "2e15"]),
    (3, ["70B", "15T", "4M", "1.5k", "128", "7e9", "0x8"]),
    (4, ["45d", "12h", "800ms", "30min", "1h30m", "2w", "3y", "6mo"]),
    (5, ["700W", "10.2kW", "1.2MW"]),
    (6, ["$1.2M", "$250k", "1200 USD"]),
    (7, ["$2.10/h", "$2.10/hr", "55.04 USD/hour"]),
]


def unit_seeds():
    for kind, texts in UNITS:
        for n, t in enumerate(texts):
            put("units", f"{kind}-{n}", bytes([kind]) + t.encode())


# Runs under 0.1 s in a release build that take over a second in the fuzz
# build (ASan+UBSan and coverage): the LLM serving simulations.
SLOW = {
    "\0".join(shlex.split(a)) for a in [
        "infer --model qwen3-235b-a22b --gpu H200-SXM --precision fp8 "
        "--attention-dp --tp 8 --rps 2 --prompt 1000 --output 200 "
        "--ttft-p95 2s --json",
        "infer --model llama3.1-8b --gpu H100-SXM --no-mig --profile "
        "1,2,4,0.5 --prompt 1000 --output 200 --ttft-p95 1s --json",
        "infer --model llama3.1-8b --gpu H100-SXM --no-mig --rps 4 "
        "--rps-trough 1 --prompt 1000 --output 200 --ttft-p95 1s",
        "infer --model llama3.1-70b --gpu H100-SXM --rps 2 --prompt 1000 "
        "--output 200 --set infer.kv_dtype=fp8 --json",
        "infer --catalog tests/cli/specs/catalog-flagged --model llama3.1-8b "
        "--gpu L40S --rps 1 --prompt 500 --output 50",
        "infer --catalog tests/cli/specs/catalog-flagged --model llama3.1-8b "
        "--gpu L40S --rps 1 --prompt 500 --output 50 --json",
    ]
}


def cli_seeds(gpuplan):
    seen = set()
    for cases in sorted(glob.glob("tests/cli/*.cases")):
        for line in open(cases):
            if not line.startswith("args:"):
                continue
            args = shlex.split(line[5:])
            key = "\0".join(args)
            if key in seen or any(a.startswith("/") or ".." in a for a in args):
                continue
            seen.add(key)
            t = time.monotonic()
            subprocess.run([gpuplan] + args, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if time.monotonic() - t > 0.1 or key in SLOW:
                continue
            name = os.path.basename(cases)[:-6] + "-%03d" % len(seen)
            put("cli", name, key.encode())


def main():
    yaml_seeds()
    trace_seeds()
    unit_seeds()
    if len(sys.argv) > 1:
        cli_seeds(sys.argv[1])


if __name__ == "__main__":
    main()
