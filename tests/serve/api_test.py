#!/usr/bin/env python3
"""API test of `gpuplan serve` (docs/serve.md), against the real server.

    api_test.py GPUPLAN [--smoke N]     (N requests in the smoke, 100)

Starts the server on loopback with --port 0 (tests/serve/server.py),
checks status codes and bodies, runs a smoke of 100 POST /api/plan
requests over 8 concurrent connections, and stops exactly the process it
started, also on failure.  A second server with a connection limit of 2
and a 1 s timeout checks those two MHD options.

Expected bodies are the CLI's own output for the same input (the API's
contract: the JSON of `gpuplan plan --json` etc., byte for byte);
expected error positions are read off the test's own inputs.
"""
import concurrent.futures
import http.client
import json
import os
import socket
import subprocess
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server import serve  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
GPUPLAN = None
FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


def read(rel):
    with open(os.path.join(ROOT, rel), "rb") as f:
        return f.read()


_CLI = {}


def cli(*args):
    """stdout of `gpuplan ARGS` (each command run once)."""
    if args not in _CLI:
        r = subprocess.run([GPUPLAN, *args], cwd=ROOT, capture_output=True,
                           timeout=170)
        _CLI[args] = r.stdout
    return _CLI[args]


def request(url, method, path, body=None, headers=None):
    u = urllib.parse.urlparse(url)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
    try:
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        return r.status, dict(r.getheaders()), r.read()
    finally:
        c.close()


def error_of(body):
    try:
        return json.loads(body)["error"]
    except (ValueError, KeyError, TypeError):
        return {}


def line_of(text, needle):
    """1-based line of the first line of 'text' starting with 'needle'."""
    for i, line in enumerate(text.split("\n")):
        if line.startswith(needle):
            return i + 1
    raise AssertionError("no line starts with %r" % needle)


def test_static(url):
    for path, rel in (("/", "web/index.html"), ("/app.js", "web/app.js"),
                      ("/style.css", "web/style.css"),
                      ("/examples/startup-plan.yaml",
                       "examples/startup-plan.yaml")):
        st, h, body = request(url, "GET", path)
        check(st == 200 and body == read(rel), "GET %s serves %s" % (path, rel))
    st, h, _ = request(url, "GET", "/")
    check(h.get("Content-Type", "").startswith("text/html"), "/ is text/html")


def test_same_as_cli(url):
    for ex in ("startup", "lab"):
        spec = read("examples/%s-plan.yaml" % ex)
        st, h, body = request(url, "POST", "/api/plan", spec)
        want = cli("plan", "examples/%s-plan.yaml" % ex, "--json")
        check(st == 200 and h.get("Content-Type") == "application/json",
              "plan %s: 200 JSON (got %d)" % (ex, st))
        check(body == want and len(want) > 1000,
              "plan %s: body byte-equal to gpuplan plan --json" % ex)
    infer = "examples/infer-llama70b-chat.yaml"
    st, _, body = request(url, "POST", "/api/infer", read(infer))
    check(st == 200 and body == cli("infer", infer, "--json"),
          "infer: 200, byte-equal to gpuplan infer --json")
    for train in ("examples/train-llama3-8b-fp8.yaml",
                  "examples/train-llama3-70b.yaml"):
        st, _, body = request(url, "POST", "/api/train", read(train))
        check(st == 200 and body == cli("train", train, "--json"),
              "train %s: 200, byte-equal to gpuplan train --json" % train)
    # an unknown model: 400 at the value of 'model' (line 1, column 8)
    st, _, body = request(url, "POST", "/api/train",
                          b"model: llama3-7b\ngpu: H100-SXM\n")
    e = error_of(body)
    check(st == 400 and (e.get("line"), e.get("col")) == (1, 8)
          and e.get("code") == "GP_ENOTFOUND",
          "train unknown model: 400 at 1:8 (%r)" % e)
    for path, table in (("/api/catalog", "accelerators"),
                        ("/api/catalog/instances", "instances")):
        st, _, body = request(url, "GET", path)
        check(st == 200 and body == cli("catalog", "list", table, "--json"),
              "GET %s byte-equal to gpuplan catalog list %s --json"
              % (path, table))


def test_samples(url):
    """POST /api/plan?samples=N&seed=S is `gpuplan plan --samples N --seed S
    --json`, byte for byte; bad values are 400 naming the parameter; N is
    capped at 200 (GP_SERVE_MAX_SAMPLES, docs/serve.md)."""
    spec = read("examples/startup-plan.yaml")
    st, _, body = request(url, "POST", "/api/plan?samples=20&seed=3", spec)
    want = cli("plan", "examples/startup-plan.yaml", "--samples", "20",
               "--seed", "3", "--json")
    check(st == 200 and body == want and b'"p10"' in want,
          "plan?samples=20&seed=3: byte-equal to plan --samples 20 --seed 3")
    st, _, body = request(url, "POST", "/api/plan?samples=20", spec)
    want = cli("plan", "examples/startup-plan.yaml", "--samples", "20",
               "--json")
    check(st == 200 and body == want,
          "plan?samples=20: the CLI's default seed (1)")
    for q, name in (("samples=201", "samples"), ("samples=0", "samples"),
                    ("samples=abc", "samples"), ("samples=5&seed=-1", "seed"),
                    ("seed=3", "seed"), ("samples=5&n=1", "'n'")):
        st, _, body = request(url, "POST", "/api/plan?" + q, spec)
        e = error_of(body)
        check(st == 400 and e.get("code") == "GP_EINVAL"
              and name in e.get("message", ""),
              "plan?%s: 400 naming %s (%d %r)" % (q, name, st, e))


def test_errors(url):
    spec = read("examples/startup-plan.yaml").decode()
    # an unknown key: named at its own line, column 1
    bad = spec.replace("\nhorizon: 3y\n", "\nhorizn: 3y\n")
    st, _, body = request(url, "POST", "/api/plan", bad.encode())
    e = error_of(body)
    check(st == 400 and e.get("line") == line_of(bad, "horizn:")
          and e.get("col") == 1, "unknown key: 400 at its line:1 (%r)" % e)
    # malformed YAML: an unclosed flow sequence, reported at the end
    st, _, body = request(url, "POST", "/api/plan", b"name: x\nclouds: [aws\n")
    e = error_of(body)
    check(st == 400 and e.get("code") == "GP_EPARSE" and e.get("line") == 3,
          "malformed YAML: 400 GP_EPARSE at line 3 (%r)" % e)
    # a file named by the request is refused at its position
    bad = spec.replace("    dataset: 8TB\n",
                       "    dataset: 8TB\n    trace: /etc/passwd\n", 1)
    st, _, body = request(url, "POST", "/api/plan", bad.encode())
    e = error_of(body)
    check(st == 400 and e.get("line") == line_of(bad, "    trace:")
          and "reads no file" in e.get("message", ""),
          "trace file in a request: 400 at its line (%r)" % e)
    for path in ("/nope", "/api/nope", "/api/plan/x", "/api/catalog/bogus"):
        st, h, body = request(url, "GET", path)
        check(st == 404 and "error" in json.loads(body), "GET %s: 404" % path)
    for method, path, allow in (("GET", "/api/plan", "POST"),
                                ("PUT", "/api/infer", "POST"),
                                ("POST", "/api/catalog", "GET"),
                                ("POST", "/", "GET, HEAD"),
                                ("DELETE", "/app.js", "GET, HEAD")):
        st, h, body = request(url, method, path, b"" if method != "GET"
                              else None)
        check(st == 405 and h.get("Allow") == allow
              and error_of(body).get("status") == 405,
              "%s %s: 405 with Allow: %s (got %d %r)"
              % (method, path, allow, st, h.get("Allow")))


def raw(url, data, read_bytes=65536):
    u = urllib.parse.urlparse(url)
    with socket.create_connection((u.hostname, u.port), timeout=30) as s:
        try:
            s.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass
        out = b""
        while True:
            try:
                chunk = s.recv(read_bytes)
            except ConnectionResetError:
                break
            if not chunk:
                break
            out += chunk
        return out


def test_limits(url):
    limit = 1 << 20  # the documented default, 1 MiB
    # declared over the limit: 413 before the body is read
    head = ("POST /api/plan HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n"
            "Connection: close\r\n\r\n" % (limit + 1)).encode()
    resp = raw(url, head + b"#" * 1000)
    check(resp.startswith(b"HTTP/1.1 413"), "Content-Length over 1 MiB: 413")
    # exactly at the limit: accepted (and then not a plan: 400)
    st, _, _ = request(url, "POST", "/api/plan", b"#" * limit)
    check(st == 400, "a 1 MiB body is read (400 for a comment-only spec, "
          "got %d)" % st)
    # chunked, no length: 413 once it passes the limit
    u = urllib.parse.urlparse(url)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    try:
        c.request("POST", "/api/plan",
                  body=iter([b"#" * 65536] * 17), encode_chunked=True)
        st = c.getresponse().status
    except (BrokenPipeError, ConnectionResetError):
        st = 413  # refused while sending: read the reply on a raw socket
    finally:
        c.close()
    check(st == 413, "chunked body over 1 MiB: 413 (got %d)" % st)


def test_diff(url):
    a = json.loads(cli("plan", "examples/startup-plan.yaml", "--json"))
    b = json.loads(cli("plan", "examples/lab-plan.yaml", "--json"))
    st, _, body = request(url, "POST", "/api/diff",
                          json.dumps({"a": a, "b": b}).encode())
    if st == 501:
        check(error_of(body).get("code") == "GP_ENOTSUP",
              "diff: 501 with GP_ENOTSUP")
    else:
        check(st == 200 and isinstance(json.loads(body), dict),
              "diff: 200 with a JSON object (got %d)" % st)
    for bad in (b"not json", b"[1]", b'{"a": {}}', b'{"a": 1, "b": 2}'):
        st, _, body = request(url, "POST", "/api/diff", bad)
        check(st == 400 and error_of(body).get("status") == 400,
              "diff %r: 400 (got %d)" % (bad, st))


def test_no_crash(url):
    bodies = [b"", b"\x00\x01\x02\xff" * 100, b"[" * 5000, b"{" * 5000,
              b"a: &x 1\nb: *x\n", b"- - - - - -\n" * 200,
              b"name: \xff\xfe\n", b"options: 3\n", b"teams: [{}]\n",
              ("name: x\n" + "k: v\n" * 20000).encode()]
    for b in bodies:
        for path in ("/api/plan", "/api/infer", "/api/train"):
            st, _, body = request(url, "POST", path, b)
            check(st == 400 and "error" in json.loads(body),
                  "garbage %r... on %s: 400 JSON (got %d)"
                  % (b[:12], path, st))
    st, _, _ = request(url, "GET", "/api/catalog")
    check(st == 200, "server alive after the garbage")


def test_smoke(url, n=100, conns=8):
    """n POST /api/plan over 'conns' keep-alive connections."""
    spec = read("examples/startup-plan.yaml")
    want = cli("plan", "examples/startup-plan.yaml", "--json")
    u = urllib.parse.urlparse(url)

    def worker(k):
        c = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
        bad = 0
        try:
            for _ in range(k):
                c.request("POST", "/api/plan", body=spec)
                r = c.getresponse()
                bad += r.status != 200 or r.read() != want
        finally:
            c.close()
        return bad

    share = [n // conns + (i < n % conns) for i in range(conns)]
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(conns) as ex:
        bad = sum(ex.map(worker, share))
    dt = time.monotonic() - t0
    check(bad == 0, "smoke: %d of %d requests failed or differed" % (bad, n))
    print("smoke: %d requests over %d connections in %.1f s" % (n, conns, dt))


def test_conn_limit():
    with serve(GPUPLAN, "--max-conns", "2", "--timeout", "1s") as (url, _):
        u = urllib.parse.urlparse(url)
        idle = [socket.create_connection((u.hostname, u.port), timeout=10)
                for _ in range(2)]
        try:
            time.sleep(0.3)
            st, body = None, b""
            try:
                st, _, body = request(url, "GET", "/api/catalog")
            except (ConnectionError, http.client.HTTPException, OSError):
                pass
            check(st is None, "third connection over --max-conns 2 refused "
                  "(got %r)" % st)
            t0 = time.monotonic()
            closed = [s.recv(1) == b"" for s in idle]
            check(all(closed) and time.monotonic() - t0 < 8,
                  "idle connections closed by --timeout 1s")
        finally:
            for s in idle:
                s.close()
        time.sleep(0.2)
        st, _, _ = request(url, "GET", "/api/catalog")
        check(st == 200, "serving again once the idle connections are gone")


def main():
    global GPUPLAN
    GPUPLAN = os.path.abspath(sys.argv[1])
    # the sanitizer build runs a reduced smoke (each plan is ~10x slower)
    smoke = int(sys.argv[3]) if sys.argv[2:3] == ["--smoke"] else 100
    with serve(GPUPLAN) as (url, _):
        test_static(url)
        test_same_as_cli(url)
        test_samples(url)
        test_errors(url)
        test_limits(url)
        test_diff(url)
        test_no_crash(url)
        test_smoke(url, n=smoke)
    test_conn_limit()
    if FAILS:
        print("%d checks failed" % len(FAILS))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
