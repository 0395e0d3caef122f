#!/usr/bin/env python3
"""Write a generic-CSV trace of N jobs (default 5,000,000) for the trace
memory benchmark (bench/trace_mem.sh): arrivals every 0-20 s, run times
60-1800 s, GPU counts from {1, 1, 1, 2, 4, 8}, 50 teams -- about 36 %
load on examples/cluster.yaml (768 GPUs), so the queue stays short and the
measurement is the reader and the job records, not queueing.
Deterministic (seed 1).  Usage: gen_trace.py OUT.csv [N]
"""
import random
import sys


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 5_000_000
    rng = random.Random(1)
    sizes = [1, 1, 1, 2, 4, 8]
    t = 0
    with open(out, "w") as f:
        f.write("id,submit,duration,gpus,team\n")
        for i in range(n):
            t += rng.randint(0, 20)
            f.write("%d,%d,%d,%d,team%d\n" % (i, t, rng.randint(60, 1800),
                                            rng.choice(sizes),
                                            rng.randint(0, 49)))


if __name__ == "__main__":
    main()
