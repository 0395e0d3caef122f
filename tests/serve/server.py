"""Start and stop one `gpuplan serve` for a test.

The server runs on loopback with --port 0 in a temporary directory; the
test reads the URL from its first stdout line (bounded wait) and stops
exactly that process (SIGTERM, then SIGKILL after a bound), also when the
test fails.  Daemon tests run one at a time (ctest RUN_SERIAL).
"""
import contextlib
import os
import re
import select
import signal
import subprocess
import tempfile
import time

START_TIMEOUT_S = 20
STOP_TIMEOUT_S = 10


@contextlib.contextmanager
def serve(gpuplan, *args):
    """Yield (url, proc) of a running `gpuplan serve --port 0 ARGS`."""
    with tempfile.TemporaryDirectory(prefix="gpuplan-serve-") as tmp:
        proc = subprocess.Popen(
            [os.path.abspath(gpuplan), "serve", "--port", "0", *args],
            cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            yield _wait_url(proc), proc
        finally:
            _stop(proc)


def _wait_url(proc):
    deadline = time.monotonic() + START_TIMEOUT_S
    line = b""
    while time.monotonic() < deadline and not line.endswith(b"\n"):
        if proc.poll() is not None:
            raise RuntimeError("gpuplan serve exited with %d: %s" % (
                proc.returncode, proc.stderr.read().decode(errors="replace")))
        ready, _, _ = select.select([proc.stdout], [], [], 0.2)
        if ready:
            ch = os.read(proc.stdout.fileno(), 1)
            if not ch:
                break
            line += ch
    m = re.match(rb"gpuplan serve: listening on (http://127\.0\.0\.1:\d+/)\n",
                 line)
    if not m:
        raise RuntimeError("no URL from gpuplan serve within %d s: %r"
                           % (START_TIMEOUT_S, line))
    return m.group(1).decode()


def _stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    err = proc.stderr.read().decode(errors="replace")
    proc.stdout.close()
    proc.stderr.close()
    if proc.returncode not in (0, -signal.SIGKILL):
        raise RuntimeError("gpuplan serve ended with %d: %s"
                           % (proc.returncode, err))
