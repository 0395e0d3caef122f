#!/usr/bin/env python3
"""Golden tests: run gpuplan on each case and diff stdout byte for byte.

A case is a folder tests/golden/<case>/ with
  cmd          one line: the arguments after 'gpuplan' (shell-quoted)
  expected.out the exact stdout
  expected.rc  optional: the exit status (default 0)
Commands run from the repository root.  UPDATE_GOLDEN=1 rewrites the
expected files from the current output (review the diff before committing).
"""
import difflib
import os
import shlex
import subprocess
import sys


def main():
    gp = os.path.abspath(sys.argv[1])
    root = os.path.dirname(os.path.abspath(__file__))
    update = os.environ.get("UPDATE_GOLDEN") == "1"
    cases = sorted(d for d in os.listdir(root)
                   if os.path.isdir(os.path.join(root, d)))
    failed = 0
    for case in cases:
        d = os.path.join(root, case)
        with open(os.path.join(d, "cmd")) as f:
            args = shlex.split(f.read().strip())
        p = subprocess.run([gp] + args, capture_output=True, timeout=600)
        want_rc = 0
        rc_path = os.path.join(d, "expected.rc")
        if os.path.exists(rc_path):
            with open(rc_path) as f:
                want_rc = int(f.read().strip())
        out_path = os.path.join(d, "expected.out")
        if update:
            with open(out_path, "wb") as f:
                f.write(p.stdout)
            if p.returncode != 0:
                with open(rc_path, "w") as f:
                    f.write(f"{p.returncode}\n")
            print(f"updated {case}")
            continue
        with open(out_path, "rb") as f:
            want = f.read()
        ok = True
        if p.returncode != want_rc:
            print(f"FAIL {case}: exit {p.returncode}, want {want_rc}")
            sys.stdout.write(p.stderr.decode(errors="replace"))
            ok = False
        if p.stdout != want:
            print(f"FAIL {case}: stdout differs")
            diff = difflib.unified_diff(
                want.decode(errors="replace").splitlines(True),
                p.stdout.decode(errors="replace").splitlines(True),
                "expected.out", "actual")
            sys.stdout.writelines(list(diff)[:60])
            ok = False
        if ok:
            print(f"ok {case}")
        else:
            failed += 1
    print(f"{len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
