#!/usr/bin/env python3
"""Browser test of `gpuplan serve`: headless Debian chromium driven by
playwright-core (tests/serve/browser, pinned in package-lock.json and
installed by scripts/deps.sh) loads the page from a server this test
starts on loopback (--port 0) and stops, also on failure.

    browser_test.py GPUPLAN [CHROMIUM]

What the page must do is listed in browser/check.mjs.  A missing
chromium, node or playwright-core fails the test (run scripts/deps.sh).
"""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from server import serve  # noqa: E402


def main():
    gpuplan = sys.argv[1]
    chromium = sys.argv[2] if len(sys.argv) > 2 else "/usr/bin/chromium"
    node = shutil.which("node")
    pkg = os.path.join(HERE, "browser", "node_modules", "playwright-core")
    missing = [what for what, ok in (
        ("chromium (%s)" % chromium, os.access(chromium, os.X_OK)),
        ("node", node is not None),
        ("playwright-core (npm ci in tests/serve/browser)",
         os.path.isdir(pkg))) if not ok]
    if missing:
        print("FAIL: missing %s; run scripts/deps.sh" % ", ".join(missing))
        return 1
    with serve(gpuplan) as (url, _):
        r = subprocess.run([node, "check.mjs", url, chromium],
                           cwd=os.path.join(HERE, "browser"), timeout=150)
    return r.returncode


if __name__ == "__main__":
    sys.exit(main())
