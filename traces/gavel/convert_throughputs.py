#!/usr/bin/env python3
"""Flatten Gavel's scheduler/simulation_throughputs.json into the CSV that
gpuplan's gavel trace reader takes (--gavel-throughputs).

Usage: convert_throughputs.py simulation_throughputs.json > throughputs.csv

Keeps the isolated throughput (key "null", steps/s) of every
(gpu_type, job_type, scale_factor); space-sharing pairs are dropped.
"""
import ast
import csv
import json
import sys

d = json.load(open(sys.argv[1]))
w = csv.writer(sys.stdout, lineterminator="\n")
w.writerow(["gpu_type", "job_type", "scale_factor", "steps_per_s"])
for gpu in sorted(d):
    rows = []
    for key, v in d[gpu].items():
        job_type, sf = ast.literal_eval(key)
        rows.append((job_type, int(sf), v["null"]))
    for job_type, sf, t in sorted(rows):
        w.writerow([gpu, job_type, sf, repr(float(t))])
