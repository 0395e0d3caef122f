#!/usr/bin/env python3
"""CLI contract tests: exit codes and messages of gpuplan.

Every tests/cli/*.cases file holds blocks separated by blank lines:

    # what the block checks
    args: catalog show H100
    rc: 2
    stderr: did you mean H100-SXM
    stdout: some text
    json: key.sub=value          (stdout parsed as JSON; dotted path; value
                                  compared as JSON, numbers to 1e-9 relative)
    stdin: text fed on standard input (optional, one line)
    stdout_file: /dev/full       (optional: the command's stdout goes to
                                  this file instead of being captured)

'{tmp}' in args names a temporary directory, one per cases file (removed
at the end), so that one block can read what an earlier one wrote.

'args' is shell-quoted and runs from the repository root; every 'stderr:'
and 'stdout:' line must appear as a substring.  Any non-zero exit must also
leave a message starting 'gpuplan: error:' on stderr, and no run may crash
(signal) or print a sanitizer report.
"""
import glob
import json
import os
import shlex
import subprocess
import sys
import tempfile


def parse(path):
    blocks, cur = [], {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip():
                if cur:
                    blocks.append(cur)
                    cur = {}
                continue
            if line.startswith("#"):
                cur.setdefault("title", line[1:].strip())
                continue
            key, _, val = line.partition(":")
            key, val = key.strip(), val.strip()
            if key not in ("args", "rc", "stderr", "stdout", "json", "stdin",
                           "stdout_file"):
                raise SystemExit(f"{path}:{n}: unknown key {key!r}")
            cur.setdefault("line", n)
            if key in ("stderr", "stdout", "json"):
                cur.setdefault(key, []).append(val)
            else:
                cur[key] = val
    if cur:
        blocks.append(cur)
    return blocks


def get_path(doc, path):
    for part in path.split("."):
        if isinstance(doc, list):
            doc = doc[int(part)]
        else:
            doc = doc[part]
    return doc


def check(gp, path, b, tmp):
    args = [a.replace("{tmp}", tmp) for a in shlex.split(b["args"])]
    sink = open(b["stdout_file"], "wb") if "stdout_file" in b else None
    p = subprocess.run([gp] + args, stdout=sink or subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=600,
                       input=b.get("stdin", "").encode())
    if sink:
        sink.close()
    out = (p.stdout or b"").decode(errors="replace")
    err = p.stderr.decode(errors="replace")
    where = f"{os.path.basename(path)}:{b['line']} ({b.get('title', b['args'])})"
    problems = []
    want_rc = int(b.get("rc", "0"))
    if p.returncode < 0:
        problems.append(f"killed by signal {-p.returncode}")
    if p.returncode != want_rc:
        problems.append(f"exit {p.returncode}, want {want_rc}")
    if p.returncode != 0 and "gpuplan: error:" not in err:
        problems.append("non-zero exit without 'gpuplan: error:' message")
    if "Sanitizer" in err or "runtime error:" in err:
        problems.append("sanitizer report")
    for s in b.get("stderr", []):
        if s not in err:
            problems.append(f"stderr lacks {s!r}")
    for s in b.get("stdout", []):
        if s not in out:
            problems.append(f"stdout lacks {s!r}")
    if b.get("json"):
        try:
            doc = json.loads(out)
        except ValueError as e:
            problems.append(f"stdout is not JSON: {e}")
            doc = None
        for spec in b["json"] if doc is not None else []:
            key, _, val = spec.partition("=")
            try:
                got = get_path(doc, key.strip())
            except (KeyError, IndexError, ValueError, TypeError):
                problems.append(f"JSON lacks {key.strip()}")
                continue
            want = json.loads(val.strip())
            if isinstance(want, (int, float)) and isinstance(got, (int, float)):
                if abs(got - want) > 1e-9 * max(1.0, abs(want)):
                    problems.append(f"{key.strip()} = {got}, want {want}")
            elif got != want:
                problems.append(f"{key.strip()} = {got!r}, want {want!r}")
    if problems:
        print(f"FAIL {where}: " + "; ".join(problems))
        if err:
            print("  stderr: " + err.strip().replace("\n", "\n          "))
        return False
    print(f"ok {where}")
    return True


def main():
    gp = os.path.abspath(sys.argv[1])
    root = os.path.dirname(os.path.abspath(__file__))
    # Optional second argument: one NAME (NAME.cases); default all files.
    pattern = (sys.argv[2] if len(sys.argv) > 2 else "*") + ".cases"
    passed = failed = 0
    for path in sorted(glob.glob(os.path.join(root, pattern))):
        with tempfile.TemporaryDirectory(prefix="gpuplan-cli-") as tmp:
            for b in parse(path):
                if "args" not in b:
                    print(f"FAIL {path}:{b.get('line')}: block without args")
                    failed += 1
                    continue
                if check(gp, path, b, tmp):
                    passed += 1
                else:
                    failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
