#!/usr/bin/env python3
"""Leave-one-family-out check of the training model's GEMM ceiling.

The training model has a handful of efficiency factors per GPU generation
(docs/model/training.md).  This script asks how much the validation score
depends on having seen a family: for each source family F (the id prefix)
it refits the one most influential factor, `gemm_max`, separately for each
GPU generation, on the throughput rows of every family except F (grid
0.55..0.90, minimising the median absolute relative error), then predicts
F's rows with the refitted values.  It prints the shipped (in-sample)
errors, the refitted in-sample optimum, and the leave-one-family-out
errors per family and overall.

`gpuplan validate training` runs the same procedure in the library
(docs/model/training.md, "Honest fitting"); with --check this script
recomputes each family's leave-one-source-out median over all its
modelled rows (throughput and campaign, as the library reports it) and
exits 1 when it differs from the library's `summary.fit` by more than
1e-9, so the two implementations check each other.

usage: calibrate.py GPUPLAN [--check] [training-public.csv]
"""
import json
import os
import statistics
import subprocess
import sys

GENS = {"A100": "ampere", "H100": "hopper", "H200": "hopper", "H800": "hopper",
        "GB300": "blackwell",
        "B200": "blackwell", "GB200": "blackwell"}


def run(gp, csv, sets):
    args = [gp, "validate", "training", csv, "--json", "--no-loso"]
    for s in sets:
        args += ["--set", s]
    out = subprocess.run(args, capture_output=True, check=True).stdout
    return json.loads(out)["rows"]


def gen_of(row_gpu):
    for k, v in GENS.items():
        if row_gpu.startswith(k):
            return v
    return "other"


def check(gp, csv, fam, ids, lofo_all):
    """Compare the per-family LOSO medians with the library's."""
    out = subprocess.run([gp, "validate", "training", csv, "--json"],
                         capture_output=True, check=True).stdout
    fit = json.loads(out)["summary"]["fit"]
    bad = 0
    for F in sorted(set(fam.values())):
        errs = [abs(lofo_all[i]["rel_err"]) for i in ids
                if fam[i] == F and lofo_all[i]["status"] == "ok"]
        mine = statistics.median(errs) if errs else None
        lib = fit[F]["loso_median_abs_rel_err"]
        same = (mine is None and lib is None) or (
            mine is not None and lib is not None and abs(mine - lib) <= 1e-9)
        print(f"  check {F:14s} script {mine} library {lib}"
              f"{'' if same else '  MISMATCH'}")
        bad += not same
    return bad


def main():
    gp = sys.argv[1]
    argv = sys.argv[2:]
    do_check = "--check" in argv
    argv = [a for a in argv if a != "--check"]
    here = os.path.dirname(os.path.abspath(__file__))
    csv = argv[0] if argv else os.path.join(here, "training-public.csv")
    import csv as csvmod
    with open(csv) as f:
        meta = {r["id"]: r for r in csvmod.DictReader(f)}
    fam = {i: i.split("-")[0] for i in meta}
    gen = {i: gen_of(meta[i]["gpu"]) for i in meta}

    grid = [round(0.55 + 0.01 * k, 2) for k in range(36)]
    runs = {}
    for g in grid:
        rows = run(gp, csv, [f"all.gemm_max={g}"])
        runs[g] = {r["id"]: r for r in rows}
    shipped = {r["id"]: r for r in run(gp, csv, [])}

    def ok_err(rows, ids):
        return [abs(rows[i]["rel_err"]) for i in ids
                if rows[i]["status"] == "ok" and rows[i]["kind"] ==
                "throughput"]

    def summary(errs):
        if not errs:
            return "n=0"
        return (f"n={len(errs):3d} median {100*statistics.median(errs):5.1f} %"
                f"  within 20 % {100*sum(e <= 0.2 for e in errs)/len(errs):5.1f} %")

    ids = list(meta)
    print("shipped constants (in-sample):", summary(ok_err(shipped, ids)))
    gens = sorted(set(gen.values()))

    def fit(train_ids):
        best = {}
        for gg in gens:
            sel = [i for i in train_ids if gen[i] == gg]
            cand = [(statistics.median(ok_err(runs[g], sel)), g)
                    for g in grid if ok_err(runs[g], sel)]
            if cand:
                best[gg] = min(cand)[1]
        return best

    allfit = fit(ids)
    fitted = {i: runs[allfit.get(gen[i], 0.72)][i] if gen[i] in allfit
              else shipped[i] for i in ids}
    print("refit on all rows (in-sample):", summary(ok_err(fitted, ids)),
          " gemm_max:", allfit)

    lofo = {}
    print("leave-one-family-out:")
    for F in sorted(set(fam.values())):
        train = [i for i in ids if fam[i] != F]
        test = [i for i in ids if fam[i] == F]
        b = fit(train)
        for i in test:
            lofo[i] = runs[b[gen[i]]][i] if gen[i] in b else shipped[i]
        print(f"  {F:14s} {summary(ok_err(lofo, test))}   gemm_max {b}")
    print("leave-one-family-out overall:", summary(ok_err(lofo, ids)))
    if do_check:
        sys.exit(1 if check(gp, csv, fam, ids, lofo) else 0)


if __name__ == "__main__":
    main()
