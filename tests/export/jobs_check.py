#!/usr/bin/env python3
"""Check a jobs export set (the files `gpuplan export jobs` writes).

Usage:
  jobs_check.py DIR      every object under DIR passes validate.py (strict
                         CRD schemas, rules_jobs.py), every *.sbatch passes
                         `bash -n` and the sbatch directive check below, and
                         each script asks the GPUs and layout of its TrainJob.
  jobs_check.py --self-test
                         the sbatch directive check rejects what it should.

The sbatch directive check is a port of what sbatch(1) says about batch
scripts (Slurm 22.05, man page dated December 2022, sections DESCRIPTION and
OPTIONS): "#SBATCH" options are read only before the first line that is not a
comment or blank; each must be an option sbatch knows; options that take a
value need one.  Option names are copied by hand from the OPTIONS section.
sbatch itself cannot check a script without a running slurmctld.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# sbatch(1) OPTIONS, Slurm 22.05: long options that take a value ...
SBATCH_VALUE = {
    "account", "acctg-freq", "array", "batch", "bb", "bbf", "begin", "chdir",
    "cluster-constraint", "clusters", "comment", "constraint", "container",
    "core-spec", "cores-per-socket", "cpu-freq", "cpus-per-gpu",
    "cpus-per-task", "deadline", "delay-boot", "dependency", "distribution",
    "error", "exclude", "export", "export-file", "extra-node-info", "gid",
    "gpu-bind", "gpu-freq", "gpus", "gpus-per-node", "gpus-per-socket",
    "gpus-per-task", "gres", "gres-flags", "hint", "input", "job-name",
    "kill-on-invalid-dep", "licenses", "mail-type", "mail-user", "mcs-label",
    "mem", "mem-bind", "mem-per-cpu", "mem-per-gpu", "mincpus", "network",
    "nodefile", "nodelist", "nodes", "ntasks", "ntasks-per-core",
    "ntasks-per-gpu", "ntasks-per-node", "ntasks-per-socket", "open-mode",
    "output", "partition", "power", "prefer", "priority", "profile",
    "propagate", "qos", "reservation", "signal", "sockets-per-node",
    "switches", "thread-spec", "threads-per-core", "time", "time-min", "tmp",
    "uid", "wait-all-nodes", "wckey", "wrap",
}
# ... and those without one, or with an optional one.
SBATCH_FLAG = {
    "contiguous", "exclusive", "get-user-env", "help", "ignore-pbs", "nice",
    "no-kill", "no-requeue", "overcommit", "oversubscribe", "parsable",
    "quiet", "reboot", "requeue", "spread-job", "test-only", "usage",
    "use-min-nodes", "verbose", "version", "wait",
}
INT_OPTS = {"nodes", "ntasks-per-node", "ntasks", "cpus-per-task"}
TIME = re.compile(r"^(\d+-)?\d+(:\d\d){0,2}$")


def sbatch_directives(text):
    """(options {name: value or None}, errors) of a batch script."""
    opts, errs, body = {}, [], False
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("#!") and n == 1:
            continue
        if s.startswith("#SBATCH"):
            if body:
                errs.append(f"line {n}: #SBATCH after the first command is ignored by sbatch")
                continue
            m = re.match(r"^#SBATCH\s+--([a-z0-9-]+)(?:=(\S*))?\s*$", line)
            if not m:
                errs.append(f"line {n}: not a '#SBATCH --option[=value]' line: {line!r}")
                continue
            name, val = m.group(1), m.group(2)
            if name in SBATCH_VALUE:
                if not val:
                    errs.append(f"line {n}: --{name} needs a value")
            elif name not in SBATCH_FLAG:
                errs.append(f"line {n}: sbatch has no option --{name}")
            elif val is not None and name not in ("exclusive", "nice"):
                errs.append(f"line {n}: --{name} takes no value")
            if name in INT_OPTS and val is not None and not re.match(r"^[1-9]\d*$", val):
                errs.append(f"line {n}: --{name}={val} is not a positive integer")
            if name == "gpus-per-node" and val and not re.match(r"^([a-z0-9_.-]+:)?[1-9]\d*$", val):
                errs.append(f"line {n}: --gpus-per-node={val} is not [type:]count")
            if name == "time" and val and not TIME.match(val):
                errs.append(f"line {n}: --time={val} is not [D-]HH[:MM[:SS]]")
            opts[name] = val
        elif not s.startswith("#"):
            body = True
    return opts, errs


def megatron_flag(text, flag):
    m = re.search(r"'" + re.escape(flag) + r"' '([^']*)'", text)
    return m.group(1) if m else None


def check_dir(d):
    import yaml
    fails = 0
    p = subprocess.run([sys.executable, os.path.join(HERE, "validate.py"), "--dir", d],
                       capture_output=True, text=True)
    print(p.stdout.strip())
    fails += p.returncode != 0
    jobs = {}
    for f in sorted(os.listdir(d)):
        if f.endswith(".yaml"):
            for doc in yaml.safe_load_all(open(os.path.join(d, f))):
                if isinstance(doc, dict) and doc.get("kind") == "TrainJob":
                    jobs[doc["metadata"]["name"]] = doc
    scripts = sorted(f for f in os.listdir(d) if f.endswith(".sbatch"))
    for f in scripts:
        path = os.path.join(d, f)
        text = open(path).read()
        p = subprocess.run(["bash", "-n", path], capture_output=True, text=True)
        if p.returncode != 0:
            print(f"FAIL {f}: bash -n: {p.stderr.strip()}")
            fails += 1
        opts, errs = sbatch_directives(text)
        for e in errs:
            print(f"FAIL {f}: {e}")
        fails += len(errs)
        tj = jobs.get(opts.get("job-name"))
        if tj is None:
            print(f"FAIL {f}: no TrainJob named {opts.get('job-name')}")
            fails += 1
            continue
        ann = tj["metadata"]["annotations"]
        gpus = int(opts.get("nodes") or 0) * int((opts.get("gpus-per-node") or "0").split(":")[-1])
        if str(gpus) != ann["gpuplan.io/gpus"]:
            print(f"FAIL {f}: asks {gpus} GPUs, its TrainJob {ann['gpuplan.io/gpus']}")
            fails += 1
        args = tj["spec"]["trainer"]["args"]
        for flag in ("--tensor-model-parallel-size", "--pipeline-model-parallel-size",
                     "--context-parallel-size", "--micro-batch-size", "--global-batch-size",
                     "--save-interval", "--save", "--num-layers", "--hidden-size",
                     "--num-attention-heads", "--seq-length",
                     "--max-position-embeddings", "--num-experts"):
            want = args[args.index(flag) + 1] if flag in args else None
            if megatron_flag(text, flag) != want:
                print(f"FAIL {f}: {flag} {megatron_flag(text, flag)!r} != TrainJob's {want!r}")
                fails += 1
        print(f"ok   {f}: {gpus} GPUs, {len(opts)} directives")
    if not scripts or not jobs:
        print("FAIL no sbatch scripts or TrainJobs")
        fails += 1
    print(f"{len(scripts)} scripts, {fails} failures")
    return 1 if fails else 0


SELF_TESTS = [
    ("#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gpus-per-node=8\nsrun true\n", None),
    ("#!/bin/bash\n#SBATCH --gpus-per-nodes=8\n", "has no option"),
    ("#!/bin/bash\n#SBATCH --nodes\n", "needs a value"),
    ("#!/bin/bash\n#SBATCH --nodes=0\n", "not a positive integer"),
    ("#!/bin/bash\n#SBATCH --gpus-per-node=eight\n", "not [type:]count"),
    ("#!/bin/bash\n#SBATCH --time=7 days\n", "not a '#SBATCH"),
    ("#!/bin/bash\n#SBATCH --time=7d\n", "not [D-]HH"),
    ("#!/bin/bash\nset -e\n#SBATCH --nodes=2\n", "after the first command"),
    ("#!/bin/bash\n#SBATCH --requeue=yes\n", "takes no value"),
    ("#!/bin/bash\n#SBATCH --exclusive=user\n", None),
    ]


def self_test():
    bad = 0
    for text, want in SELF_TESTS:
        _, errs = sbatch_directives(text)
        ok = (not errs) if want is None else any(want in e for e in errs)
        print(f"{'ok  ' if ok else 'FAIL'} {text.splitlines()[1:]!r}: {errs}")
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        sys.exit(self_test())
    if len(sys.argv) == 2:
        sys.exit(check_dir(sys.argv[1]))
    print(__doc__, file=sys.stderr)
    sys.exit(2)
