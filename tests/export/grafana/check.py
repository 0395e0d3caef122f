#!/usr/bin/env python3
"""Check 'gpuplan export grafana' without Grafana (no Debian package):

1. structure: the dashboard against dcgm-exporter's own dashboard
   (upstream/, copied with SOURCE.md): same top-level and panel keys with
   the same JSON types, one datasource variable of type prometheus, every
   $variable defined, panels on the 24-column grid without overlaps;
2. metric names: every series a query or variable reads is a DCGM counter
   of the copied counter lists, a rule of the exported rules file, or a
   series documented in docs/formats/export-{grafana,prometheus}.md;
3. promtool: every query (variables at their "All" values) as a recording
   rule: 'promtool check rules', then 'promtool test rules' with the
   hand-worked panels_test.yml, plus a check that each query returns data.

Usage: check.py GPUPLAN_BINARY   (run from the repository root)
"""
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
UP = os.path.join(HERE, "upstream")
BUILTIN_VARS = {"__range", "__range_s", "__interval", "__rate_interval",
                "__all"}
PANEL_TYPES = {"timeseries", "stat", "table", "gauge", "row"}
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def export(gp, target, spec, out):
    subprocess.run([gp, "export", target, "--cluster", spec, "--out", out],
                   check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def jtype(v):
    return "null" if v is None else type(v).__name__


# ----------------------------------------------------------------- shape
def check_shape(d, up, where):
    # Top level: the keys a dashboard model needs, present in the upstream
    # dashboard too, with the upstream's JSON type.
    for k in ("title", "uid", "schemaVersion", "time", "refresh", "tags",
              "templating", "panels", "annotations", "editable",
              "__requires", "timezone", "version", "id", "links",
              "graphTooltip", "timepicker", "description"):
        if k not in up:
            fail(f"{where}: reference dashboard lacks '{k}'")
        elif k not in d:
            fail(f"{where}: top-level '{k}' missing")
        elif jtype(d[k]) != jtype(up[k]) and not (
                k == "refresh" and isinstance(d[k], str)):
            # refresh: an interval ("1m"), or false for none (upstream)
            fail(f"{where}: '{k}' is {jtype(d[k])}, upstream {jtype(up[k])}")
    if not (36 <= d.get("schemaVersion", 0) <= 39):
        fail(f"{where}: schemaVersion {d.get('schemaVersion')} is not "
             "Grafana 10/11's (36-39)")
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,40}", d.get("uid", "")):
        fail(f"{where}: uid {d.get('uid')!r} not 1-40 of [A-Za-z0-9_-]")
    for k in ("from", "to"):
        if k not in d.get("time", {}):
            fail(f"{where}: time.{k} missing")
    # Variables: exactly one datasource variable, of type prometheus.
    tl = d["templating"]["list"]
    ups = [v for v in up["templating"]["list"] if v["type"] == "datasource"]
    dss = [v for v in tl if v["type"] == "datasource"]
    if len(dss) != 1 or dss[0]["name"] != "datasource" \
            or dss[0]["query"] != "prometheus":
        fail(f"{where}: want one datasource variable 'datasource' of type "
             f"prometheus, got {dss}")
    for k in ups[0]:
        if k in dss[0] and jtype(dss[0][k]) != jtype(ups[0][k]) \
                and k != "current":
            fail(f"{where}: datasource variable '{k}' type differs")
    names = {v["name"] for v in tl}
    for v in tl:
        if v["type"] not in ("datasource", "custom", "query"):
            fail(f"{where}: variable type {v['type']}")
    # Panels: upstream panel keys with upstream types; grid; ids.
    upkeys = {}
    for p in up["panels"]:
        for k, v in p.items():
            upkeys.setdefault(k, jtype(v))
    ids, cells = set(), set()
    used_types = set()
    for p in d["panels"]:
        pw = f"{where}: panel {p.get('id')} '{p.get('title')}'"
        for k in ("id", "type", "title", "gridPos"):
            if k not in p:
                fail(f"{pw}: '{k}' missing")
        if p["type"] not in PANEL_TYPES:
            fail(f"{pw}: type {p['type']}")
        used_types.add(p["type"])
        for k, v in p.items():
            # datasource: upstream's legacy string "$datasource"; current
            # Grafana writes {type, uid} (both accepted by Grafana 10/11).
            if k in upkeys and k != "datasource" and jtype(v) != upkeys[k]:
                fail(f"{pw}: '{k}' is {jtype(v)}, upstream {upkeys[k]}")
        if p["id"] in ids:
            fail(f"{pw}: duplicate id")
        ids.add(p["id"])
        g = p["gridPos"]
        if set(g) != {"h", "w", "x", "y"} or g["w"] > 24 or g["x"] < 0 \
                or g["x"] + g["w"] > 24 or g["h"] < 1:
            fail(f"{pw}: gridPos {g}")
        for x in range(g["x"], g["x"] + g["w"]):
            for y in range(g["y"], g["y"] + g["h"]):
                if (x, y) in cells:
                    fail(f"{pw}: overlaps another panel at {x},{y}")
                cells.add((x, y))
        if p["type"] == "row":
            continue
        want = {"type": "prometheus", "uid": "${datasource}"}
        if p.get("datasource") != want:
            fail(f"{pw}: datasource {p.get('datasource')}")
        if not p.get("targets"):
            fail(f"{pw}: no targets")
        for t in p.get("targets", []):
            for k in ("refId", "expr", "legendFormat"):
                if not isinstance(t.get(k), str):
                    fail(f"{pw}: target lacks string '{k}'")
            if t.get("datasource") != want:
                fail(f"{pw}: target datasource {t.get('datasource')}")
            for var in re.findall(r"\$\{?(\w+)", t.get("expr", "")):
                if var not in names and var not in BUILTIN_VARS:
                    fail(f"{pw}: undefined variable ${var}")
    req = {(r["type"], r["id"]) for r in d["__requires"]}
    for t in used_types - {"row"}:
        if ("panel", t) not in req:
            fail(f"{where}: __requires lacks panel {t}")
    if ("datasource", "prometheus") not in req:
        fail(f"{where}: __requires lacks the prometheus datasource")


# ---------------------------------------------------------------- metrics
def dcgm_counters():
    names = set()
    for f in ("default-counters.csv", "dcp-metrics-included.csv"):
        with open(os.path.join(UP, f), newline="") as fh:
            for row in csv.reader(fh):
                if row and row[0].strip() and \
                        not row[0].lstrip().startswith("#"):
                    names.add(row[0].strip())
    return names


def documented():
    names = set()
    for f in ("export-grafana.md", "export-prometheus.md"):
        text = open(os.path.join(ROOT, "docs", "formats", f)).read()
        m = re.search(r"<!-- metrics:.*?-->(.*?)<!-- /metrics -->", text,
                      re.S)
        if not m:
            fail(f"docs/formats/{f}: no metrics list")
            continue
        names |= set(re.findall(r"^\| `([A-Za-z_:][\w:]*)` \|", m.group(1),
                                re.M))
    return names


KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right",
            "and", "or", "unless", "bool", "offset", "inf", "nan"}


def metric_names(expr):
    """Series names an expression reads: identifiers that are not
    functions, aggregation keywords, label names or grouping lists."""
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)      # string literals
    e = re.sub(r"\{[^}]*\}", "", e)                     # matchers
    e = re.sub(r"\[[^\]]*\]", "", e)                    # ranges
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*"
               r"\([^)]*\)", " ", e)
    out = set()
    for m in re.finditer(r"[A-Za-z_:][\w:]*", e):
        rest = e[m.end():].lstrip()
        if rest.startswith("(") or m.group(0) in KEYWORDS:
            continue
        if e[max(0, m.start() - 1)] == "$":
            continue
        out.add(m.group(0))
    return out


def check_metrics(dash, rules, where):
    known = dcgm_counters() | documented()
    recorded = {r["record"] for g in rules["groups"] for r in g["rules"]
                if "record" in r}
    exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]
    for v in dash["templating"]["list"]:
        if v["type"] == "query":
            q = v["query"]["query"] if isinstance(v["query"], dict) \
                else v["query"]
            exprs.append(re.sub(r"^label_values\((.*),\s*\w+\)$", r"\1", q))
    for e in exprs:
        for n in metric_names(e):
            if n not in recorded and n not in known:
                fail(f"{where}: '{n}' in {e!r} is neither a DCGM counter, "
                     "a gpuplan rule nor a documented series")
    for g in rules["groups"]:
        for r in g["rules"]:
            for n in metric_names(r["expr"]):
                if n not in recorded and n not in known:
                    fail(f"{where} rules: '{n}' in {r['expr']!r} unknown")
    for n in ("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED"):
        if n not in dcgm_counters():
            fail(f"counter list lacks {n}")
    print(f"{where}: {len(exprs)} queries, metric names known")


# ---------------------------------------------------------------- promtool
def slug(s):
    return re.sub(r"_+", "_", re.sub(r"[^a-z0-9]", "_", s.lower())).strip("_")


def substitute(expr, dash):
    allv = {v["name"]: v.get("allValue") or ".*"
            for v in dash["templating"]["list"]}
    e = expr.replace("$__range_s", "3600").replace("$__range", "1h")
    e = e.replace("$__rate_interval", "5m").replace("$__interval", "1m")
    for n, v in allv.items():
        e = e.replace("${%s}" % n, v).replace("$" + n, v)
    return e


def check_promtool(gp, dash, rulesdir, tmp):
    panel_rules = []
    for p in dash["panels"]:
        for t in p.get("targets", []):
            panel_rules.append({
                "record": "gpuplan_panel:%s:%s" % (slug(p["title"]),
                                                   t["refId"]),
                "expr": substitute(t["expr"], dash)})
    names = [r["record"] for r in panel_rules]
    if len(set(names)) != len(names):
        fail("two panels give the same rule name")
    pfile = os.path.join(rulesdir, "panels.yml")
    with open(pfile, "w") as fh:
        yaml.safe_dump({"groups": [{"name": "panels",
                                    "rules": panel_rules}]}, fh)
    r = subprocess.run(["promtool", "check", "rules", pfile],
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail("promtool check rules panels.yml:\n" + r.stdout + r.stderr)
        return
    with open(os.path.join(HERE, "panels_test.yml")) as fh:
        test = yaml.safe_load(fh)
    test["rule_files"] = ["gpuplan-rules.yml", "panels.yml"]
    case = test["tests"][0]
    hand = {n for n in names
            if any(re.search(re.escape(n) + r"\b", x["expr"])
                   for x in case["promql_expr_test"])}
    silent = {x["expr"] for x in case["promql_expr_test"]
              if not x.get("exp_samples")}
    for n in names:
        if n not in silent:  # returns data: absent() is empty
            case["promql_expr_test"].append(
                {"expr": "absent(%s)" % n, "eval_time": "59m",
                 "exp_samples": []})
    missing = [n for n in names if n not in hand]
    tfile = os.path.join(rulesdir, "panels_test.yml")
    with open(tfile, "w") as fh:
        yaml.safe_dump(test, fh)
    r = subprocess.run(["promtool", "test", "rules", tfile],
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail("promtool test rules:\n" + r.stdout + r.stderr)
    print(f"promtool: {len(names)} panel queries checked and evaluated "
          f"({len(names) - len(missing)} with hand-worked values)")


def self_test():
    """The name extractor on hand-written expressions."""
    got = metric_names('sum by (node) (rate(foo_total{a="b c"}[5m])) / on '
                       '(x) group_left (y) bar:baz:sum > bool 3 or '
                       'label_replace(DCGM_FI_DEV_FB_USED, "n", "$1", '
                       '"Hostname", "(.+)")')
    assert got == {"foo_total", "bar:baz:sum", "DCGM_FI_DEV_FB_USED"}, got
    assert substitute('x{pool=~"$pool"}[$__range:1m]', {"templating": {
        "list": [{"name": "pool", "allValue": "h100|a100"}]}}) \
        == 'x{pool=~"h100|a100"}[1h:1m]'


def main():
    self_test()
    gp = sys.argv[1]
    if not shutil.which("promtool"):
        print("promtool not installed (apt-get install prometheus; see "
              "scripts/deps.sh)", file=sys.stderr)
        return 1
    with open(os.path.join(UP, "dcgm-exporter-dashboard.json")) as fh:
        up = json.load(fh)
    with tempfile.TemporaryDirectory() as tmp:
        specs = {"mixed": os.path.join(ROOT, "tests/export/prom/mixed.yaml"),
                 "shared": os.path.join(ROOT, "examples/shared-cluster.yaml")}
        for name, spec in specs.items():
            out = os.path.join(tmp, name)
            export(gp, "grafana", spec, out)
            export(gp, "prometheus", spec, out)
            with open(os.path.join(out, "gpuplan-dashboard.json")) as fh:
                dash = json.load(fh)
            with open(os.path.join(out, "gpuplan-rules.yml")) as fh:
                rules = yaml.safe_load(fh)
            check_shape(dash, up, name)
            check_metrics(dash, rules, name)
            if name == "mixed":
                check_promtool(gp, dash, out, tmp)
    if failures:
        print(f"{len(failures)} failed")
        return 1
    print("grafana: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
