#!/usr/bin/env python3
"""Load test of `gpuplan serve`: N POST /api/plan requests (default
1,000) over C concurrent keep-alive connections (default 8), each body
the startup example (examples/startup-plan.yaml); every answer must be
200 and byte-equal to `gpuplan plan --json` of the same file.  Prints
"name: value unit" lines: requests, errors, throughput and the latency
percentiles p50/p90/p99 (nearest rank over all requests, client side,
from sending the request to reading the whole body).

    bench/serve_load.py [BUILD] [--requests N] [--conns C] [--spec FILE]

The server is started here on loopback (--port 0, temporary directory)
and stopped when the run ends, also on failure (tests/serve/server.py).
Exit status 1 when any request failed.
"""
import argparse
import concurrent.futures
import http.client
import math
import os
import subprocess
import sys
import time
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "serve"))
from server import serve  # noqa: E402


def pct(sorted_ms, p):
    """Nearest-rank percentile of an ascending list."""
    k = max(1, math.ceil(p / 100 * len(sorted_ms)))
    return sorted_ms[k - 1]


def run(url, body, want, n, conns):
    u = urllib.parse.urlparse(url)

    def worker(k):
        lat, bad = [], 0
        c = http.client.HTTPConnection(u.hostname, u.port, timeout=300)
        try:
            for _ in range(k):
                t0 = time.perf_counter()
                try:
                    c.request("POST", "/api/plan", body=body)
                    r = c.getresponse()
                    got = r.read()
                    bad += r.status != 200 or got != want
                except (OSError, http.client.HTTPException):
                    bad += 1
                    c.close()
                    c = http.client.HTTPConnection(u.hostname, u.port,
                                                   timeout=300)
                lat.append((time.perf_counter() - t0) * 1e3)
        finally:
            c.close()
        return lat, bad

    share = [n // conns + (i < n % conns) for i in range(conns)]
    t0 = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(conns) as ex:
        parts = list(ex.map(worker, share))
    wall = time.perf_counter() - t0
    lat = sorted(x for p in parts for x in p[0])
    return lat, sum(p[1] for p in parts), wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default="build")
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--conns", type=int, default=8)
    ap.add_argument("--spec", default="examples/startup-plan.yaml")
    a = ap.parse_args()
    gp = os.path.join(ROOT, a.build, "gpuplan")
    spec = os.path.join(ROOT, a.spec)
    with open(spec, "rb") as f:
        body = f.read()
    want = subprocess.run([gp, "plan", spec, "--json"], capture_output=True,
                          check=False).stdout
    with serve(gp) as (url, _):
        lat, errors, wall = run(url, body, want, a.requests, a.conns)
    name = "serve_load.%s" % os.path.basename(a.spec).split(".")[0]
    print("%s.requests: %d over %d connections" % (name, len(lat), a.conns))
    print("%s.errors: %d" % (name, errors))
    print("%s.wall: %.2f s" % (name, wall))
    print("%s.throughput: %.1f requests/s" % (name, len(lat) / wall))
    for p in (50, 90, 99):
        print("%s.latency_p%d: %.1f ms" % (name, p, pct(lat, p)))
    print("%s.latency_max: %.1f ms" % (name, lat[-1]))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
