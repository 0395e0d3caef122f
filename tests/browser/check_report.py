#!/usr/bin/env python3
"""Browser test: render the HTML capacity-plan report in headless Chromium
and check that the executive summary comes first and that every chart was
drawn with labelled axis ticks and a legend in distinct colours.

    check_report.py GPUPLAN PLAN.yaml [PLAN ARGS...]

PLAN ARGS go to 'gpuplan plan' (e.g. --samples 20 --seed 1); with
--samples the report must also draw the "ranges" chart (P10-P90 of TCO per
option, x ticks in USD).
Writes the report to a temporary file, loads it with
'chromium --headless --dump-dom' (the DOM after the page's scripts ran),
and reads the body's data-render-check attribute, which the report's
inline script fills after layout with, per chart, the number of marks
whose bounding box is not empty, the chart's rendered size, its visible
x and y tick labels, its legend entries and their distinct colours, and
data-first-section, the first <h2> heading.  Every chart must have drawn
marks, a non-empty size, at least 3 visible tick labels (x and y on the
charts over a numeric x axis), at least 2 legend entries, one colour per
entry; the first section must be the executive summary; the page must
load no external resource.  Fails when no Chromium is installed (a
required test tool, scripts/deps.sh).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

CHARTS = ("cost-over-time", "cost-breakdown", "utilization", "sensitivity",
          "gpus-vs-days")
# charts with a numeric x axis and a y axis: both carry tick labels
XY_CHARTS = ("cost-over-time", "utilization", "gpus-vs-days")


def find_browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def main():
    if len(sys.argv) < 3:
        raise SystemExit("usage: check_report.py GPUPLAN PLAN.yaml "
                         "[PLAN ARGS...]")
    gp, plan = os.path.abspath(sys.argv[1]), sys.argv[2]
    extra = sys.argv[3:]
    charts = CHARTS + (("ranges",) if "--samples" in extra else ())
    browser = find_browser()
    if not browser:
        print("FAIL: no chromium installed (scripts/deps.sh installs it)")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        html = os.path.join(tmp, "plan.html")
        p = subprocess.run([gp, "plan", plan, *extra, "--format", "html",
                            "--out", html], capture_output=True, text=True,
                           timeout=120)
        if p.returncode != 0:
            print(p.stdout, p.stderr)
            print("FAIL: gpuplan plan exited", p.returncode)
            return 1
        text = open(html, encoding="utf-8").read()
        for pat in (r'src="https?:', r'href="https?:', r"<link\b",
                    r"@import", r"url\(\s*['\"]?https?:"):
            if re.search(pat, text):
                print("FAIL: external resource matching", pat)
                return 1
        profile = os.path.join(tmp, "profile")
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu",
               "--disable-background-networking",
               "--disable-component-update", "--disable-sync",
               "--no-first-run", "--user-data-dir=" + profile,
               "--dump-dom", "file://" + html]
        try:
            b = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=120)
        except subprocess.TimeoutExpired:
            print("FAIL: chromium timed out")
            return 1
        m = re.search(r'data-render-check="([^"]*)"', b.stdout)
        if not m:
            print(b.stderr[-2000:])
            print("FAIL: the page's render check did not run")
            return 1
        seen = {}
        for item in m.group(1).split():
            name, marks, size, xt, yt, lg, cols = item.split(":")
            w, h = (int(v) for v in size.split("x"))
            seen[name] = (int(marks), w, h, int(xt), int(yt), int(lg),
                          int(cols))
        bad = 0
        first = re.search(r'data-first-section="([^"]*)"', b.stdout)
        print("first section:", first.group(1) if first else None)
        if not first or first.group(1) != "Executive summary":
            print("FAIL: the executive summary is not the first section")
            bad = 1
        for c in charts:
            if c not in seen:
                print("FAIL: chart", c, "missing")
                bad = 1
                continue
            marks, w, h, xt, yt, lg, cols = seen[c]
            print(f"chart {c}: {marks} marks drawn, {w}x{h} px, "
                  f"{xt} x and {yt} y tick labels, {lg} legend entries "
                  f"in {cols} colours")
            if marks < 1 or w < 100 or h < 50:
                print("FAIL: chart", c, "not drawn")
                bad = 1
            if xt + yt < 3 or (c in XY_CHARTS and (xt < 2 or yt < 2)) \
                    or (c == "ranges" and xt < 3):
                print("FAIL: chart", c, "lacks tick labels")
                bad = 1
            if lg < 2 or cols != lg:
                print("FAIL: chart", c, "lacks a legend in distinct colours")
                bad = 1
        if bad:
            return 1
    print("ok: summary first, all charts drawn with ticks and legends")
    return 0


if __name__ == "__main__":
    sys.exit(main())
