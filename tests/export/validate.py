#!/usr/bin/env python3
"""Check Kueue and Volcano manifests the way a cluster admits them.

Usage:
  validate.py GPUPLAN SPEC.yaml [SPEC.yaml ...]
      Export kueue (with --kueue-api v1beta1 and v1beta2) and volcano for
      each SPEC and check every object.
  validate.py --file MANIFEST.yaml
      Check one hand-written manifest.  A file whose first line is
      "# expect: RULE" must be rejected by RULE (a negative test); any other
      file must pass.
  validate.py --dir DIR
      Check every object of every YAML file under DIR (an export set);
      all must pass.
  validate.py --coverage DIR
      Every rule has a negative test in DIR (a file expecting it).

Checks, each reported with its rule id:
  schema         the upstream CRD openAPIV3Schema of the object's apiVersion
                 (tests/export/schemas/), made strict: additionalProperties
                 false wherever properties are listed and
                 x-kubernetes-preserve-unknown-fields is not set, so unknown
                 or misspelt fields are rejected instead of pruned.
  kueue.*        the CEL rules of the Kueue v0.19.2 CRDs and the rules of
                 its ClusterQueue webhook (pkg/webhooks/clusterqueue_webhook.go).
  volcano.*      the rules of Volcano v1.15's queue webhook
                 (pkg/webhooks/admission/queues/validate/validate_queue.go).
  ref.*, name.*  cross-references and object names.
  admit.*        what a real pod needs to be admitted (cpu and memory
                 covered unless the Kueue Configuration excludes them).
"""
import json
import os
import re
import subprocess
import sys
from decimal import Decimal, InvalidOperation

try:
    import jsonschema
    import yaml
except ImportError:
    # The interpreter CMake found may lack them; Debian's has them when
    # python3-yaml and python3-jsonschema are installed (scripts/deps.sh).
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise

HERE = os.path.dirname(os.path.abspath(__file__))
DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS1123_SUB = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")

# ------------------------------------------------------------------ schemas


def strict(node):
    """additionalProperties: false wherever properties are listed."""
    if isinstance(node, dict):
        if ("properties" in node and "additionalProperties" not in node
                and not node.get("x-kubernetes-preserve-unknown-fields")):
            node["additionalProperties"] = False
        for v in node.values():
            strict(v)
    elif isinstance(node, list):
        for v in node:
            strict(v)
    return node


def load_crds():
    """Every CustomResourceDefinition under schemas/ (subfolders too)."""
    crds = {}
    d = os.path.join(HERE, "schemas")
    for root, dirs, files in os.walk(d):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith(".yaml"):
                continue
            with open(os.path.join(root, f)) as fh:
                crd = yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
            if not isinstance(crd, dict) or crd.get("kind") != "CustomResourceDefinition":
                continue
            group = crd["spec"]["group"]
            kind = crd["spec"]["names"]["kind"]
            for v in crd["spec"]["versions"]:
                s = v["schema"]["openAPIV3Schema"]
                s.setdefault("properties", {})["metadata"] = {"type": "object"}
                # The API server takes apiVersion and kind on every object,
                # also where a CRD's schema does not list them.
                s["properties"].setdefault("apiVersion", {"type": "string"})
                s["properties"].setdefault("kind", {"type": "string"})
                crds[(f"{group}/{v['name']}", kind)] = strict(s)
    return crds


CRDS = load_crds()

# --------------------------------------------------------------- quantities

SUFFIX = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50,
          "Ei": 2**60, "n": Decimal("1e-9"), "u": Decimal("1e-6"),
          "m": Decimal("1e-3"), "": 1, "k": 10**3, "M": 10**6, "G": 10**9,
          "T": 10**12, "P": 10**15, "E": 10**18}
QTY = re.compile(r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
                 r"(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$")


def qty(v):
    """A Kubernetes quantity as a Decimal (None when malformed)."""
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return Decimal(str(v))
    m = QTY.match(str(v))
    if not m:
        return None
    try:
        n = Decimal(m.group(1))
    except InvalidOperation:
        return None
    s = m.group(2) or ""
    if s[:1] in ("e", "E"):
        return n * (Decimal(10) ** int(s[1:]))
    return n * Decimal(SUFFIX[s])


def rmap(m):
    """A resource map {name: quantity} as Decimals (missing = {})."""
    return {k: qty(v) for k, v in (m or {}).items()}


# -------------------------------------------------------------------- rules

RULES = {}


def rule(rid, kinds):
    def deco(fn):
        RULES[rid] = (kinds, fn)
        return fn
    return deco


def spec(doc):
    return doc.get("spec") or {}


def cohort_of(doc):
    s = spec(doc)
    return s.get("cohortName") if doc["apiVersion"].endswith("v1beta2") else s.get("cohort")


def cq_resources(doc):
    for gi, rg in enumerate(spec(doc).get("resourceGroups") or []):
        for fi, fl in enumerate(rg.get("flavors") or []):
            for ri, r in enumerate(fl.get("resources") or []):
                yield gi, rg, fi, fl, ri, r


# Kueue CRD CEL (ClusterQueue) ------------------------------------------------

@rule("kueue.cq.borrowing-needs-cohort", ["ClusterQueue"])
def _(doc, ctx):
    if cohort_of(doc):
        return []
    return [f"resourceGroups[{g}].flavors[{f}].resources[{i}]: borrowingLimit "
            "must be nil when cohort is empty"
            for g, _, f, _, i, r in cq_resources(doc) if "borrowingLimit" in r]


@rule("kueue.cq.fungibility-preference", ["ClusterQueue"])
def _(doc, ctx):
    ff = spec(doc).get("flavorFungibility") or {}
    if "preference" in ff and not (ff.get("whenCanBorrow") == "TryNextFlavor"
                                   and ff.get("whenCanPreempt") == "TryNextFlavor"):
        return ["flavorFungibility.preference needs whenCanBorrow and "
                "whenCanPreempt TryNextFlavor"]
    return []


@rule("kueue.cq.reclaim-never-borrow", ["ClusterQueue"])
def _(doc, ctx):
    p = spec(doc).get("preemption") or {}
    bw = p.get("borrowWithinCohort")
    if p.get("reclaimWithinCohort") == "Never" and bw and bw.get("policy") != "Never":
        return ["reclaimWithinCohort=Never with borrowWithinCohort.policy!=Never"]
    return []


@rule("kueue.cq.flavor-resource-count", ["ClusterQueue"])
def _(doc, ctx):
    out = []
    for g, rg in enumerate(spec(doc).get("resourceGroups") or []):
        for f, fl in enumerate(rg.get("flavors") or []):
            if len(fl.get("resources") or []) != len(rg.get("coveredResources") or []):
                out.append(f"resourceGroups[{g}].flavors[{f}]: resources differ "
                           "in number from coveredResources")
    return out


# Kueue ClusterQueue webhook ----------------------------------------------------

@rule("kueue.cq.resource-one-group", ["ClusterQueue"])
def _(doc, ctx):
    seen, out = set(), []
    for g, rg in enumerate(spec(doc).get("resourceGroups") or []):
        for r in rg.get("coveredResources") or []:
            if r in seen:
                out.append(f"resourceGroups[{g}]: resource {r} in two groups")
            seen.add(r)
    return out


@rule("kueue.cq.flavor-once", ["ClusterQueue"])
def _(doc, ctx):
    seen, out = set(), []
    for g, rg in enumerate(spec(doc).get("resourceGroups") or []):
        for fl in rg.get("flavors") or []:
            if fl.get("name") in seen:
                out.append(f"resourceGroups[{g}]: flavor {fl.get('name')} listed twice")
            seen.add(fl.get("name"))
    return out


@rule("kueue.cq.resource-order", ["ClusterQueue"])
def _(doc, ctx):
    out = []
    for g, rg, f, fl, i, r in cq_resources(doc):
        cov = rg.get("coveredResources") or []
        if i < len(cov) and r.get("name") != cov[i]:
            out.append(f"resourceGroups[{g}].flavors[{f}].resources[{i}]: "
                       f"{r.get('name')} != coveredResources[{i}] {cov[i]}")
    return out


@rule("kueue.cq.quantity-nonneg", ["ClusterQueue"])
def _(doc, ctx):
    out = []
    for g, _, f, _, i, r in cq_resources(doc):
        for k in ("nominalQuota", "borrowingLimit", "lendingLimit"):
            if k in r and (qty(r[k]) is None or qty(r[k]) < 0):
                out.append(f"resourceGroups[{g}].flavors[{f}].resources[{i}].{k}: "
                           f"{r[k]!r} is not a quantity >= 0")
    return out


@rule("kueue.cq.lending-le-nominal", ["ClusterQueue"])
def _(doc, ctx):
    out = []
    for g, _, f, _, i, r in cq_resources(doc):
        if "lendingLimit" in r:
            ll, nq = qty(r["lendingLimit"]), qty(r.get("nominalQuota"))
            if ll is not None and nq is not None and ll > nq:
                out.append(f"resourceGroups[{g}].flavors[{f}].resources[{i}]: "
                           "lendingLimit above nominalQuota")
    return out


@rule("kueue.cq.lending-needs-cohort", ["ClusterQueue"])
def _(doc, ctx):
    if cohort_of(doc):
        return []
    return [f"resourceGroups[{g}].flavors[{f}].resources[{i}]: lendingLimit "
            "without a cohort" for g, _, f, _, i, r in cq_resources(doc)
            if "lendingLimit" in r]


@rule("kueue.cq.size-limits", ["ClusterQueue"])
def _(doc, ctx):
    rgs = spec(doc).get("resourceGroups") or []
    nf = sum(len(rg.get("flavors") or []) for rg in rgs)
    nr = sum(len(rg.get("coveredResources") or []) for rg in rgs)
    out = []
    if nf > 256:
        out.append(f"{nf} flavors in all (at most 256)")
    if nr > 256:
        out.append(f"{nr} covered resources in all (at most 256)")
    for g, rg in enumerate(rgs):
        pairs = len(rg.get("flavors") or []) * len(rg.get("coveredResources") or [])
        if pairs > 512:
            out.append(f"resourceGroups[{g}]: {pairs} flavor x resource pairs (at most 512)")
    return out


# Kueue CRD CEL (ResourceFlavor, Topology) ------------------------------------

@rule("kueue.rf.topology-needs-label", ["ResourceFlavor"])
def _(doc, ctx):
    s = spec(doc)
    if "topologyName" in s and len(s.get("nodeLabels") or {}) < 1:
        return ["at least one nodeLabel is required when topologyName is set"]
    return []


@rule("kueue.topology.levels-unique", ["Topology"])
def _(doc, ctx):
    lv = [json.dumps(x, sort_keys=True) for x in spec(doc).get("levels") or []]
    return ["levels must be unique"] if len(set(lv)) != len(lv) else []


@rule("kueue.topology.hostname-last", ["Topology"])
def _(doc, ctx):
    lv = [x.get("nodeLabel") for x in spec(doc).get("levels") or []]
    if "kubernetes.io/hostname" in lv and lv[-1] != "kubernetes.io/hostname":
        return ["kubernetes.io/hostname may only be the lowest level"]
    return []


# Cross-references and names ----------------------------------------------------

def named(ctx, kind):
    return {d["metadata"].get("name") for d in ctx["docs"] if d.get("kind") == kind}


@rule("ref.localqueue-clusterqueue", ["LocalQueue"])
def _(doc, ctx):
    cq = spec(doc).get("clusterQueue")
    return [] if cq in named(ctx, "ClusterQueue") else [f"unknown ClusterQueue {cq}"]


@rule("ref.localqueue-namespace", ["LocalQueue"])
def _(doc, ctx):
    ns = doc["metadata"].get("namespace")
    return [] if ns in named(ctx, "Namespace") else [f"namespace {ns} is not created"]


@rule("ref.clusterqueue-flavor", ["ClusterQueue"])
def _(doc, ctx):
    rf = named(ctx, "ResourceFlavor")
    return [f"unknown ResourceFlavor {fl.get('name')}"
            for rg in spec(doc).get("resourceGroups") or []
            for fl in rg.get("flavors") or [] if fl.get("name") not in rf]


@rule("ref.flavor-topology", ["ResourceFlavor"])
def _(doc, ctx):
    t = spec(doc).get("topologyName")
    return [] if t is None or t in named(ctx, "Topology") else [f"unknown Topology {t}"]


@rule("name.dns1123", ["*"])
def _(doc, ctx):
    md = doc.get("metadata") or {}
    name = md.get("name") or ""
    label = doc.get("kind") == "Namespace"
    ok = DNS1123_LABEL if label else DNS1123_SUB
    out = []
    if not ok.match(name) or len(name) > (63 if label else 253):
        out.append(f"metadata.name {name!r} is not a DNS-1123 "
                   f"{'label' if label else 'subdomain'}")
    if "namespace" in md and not DNS1123_LABEL.match(md["namespace"] or ""):
        out.append(f"metadata.namespace {md['namespace']!r} is not a DNS-1123 label")
    return out


@rule("admit.cpu-memory", ["ClusterQueue"])
def _(doc, ctx):
    # A pod always requests cpu and memory: unless the Kueue Configuration
    # excludes them, a ClusterQueue that does not cover them admits nothing
    # ("resource cpu unavailable in ClusterQueue").
    excluded = ctx.get("excluded", [])
    covered = {r for rg in spec(doc).get("resourceGroups") or []
               for r in rg.get("coveredResources") or []}
    return [f"{r} is neither covered nor excluded by the Kueue Configuration"
            for r in ("cpu", "memory")
            if r not in covered and not any(r.startswith(p) for p in excluded)]


# Volcano v1.15 queue webhook ---------------------------------------------------

def queues(ctx):
    return {d["metadata"]["name"]: d for d in ctx["docs"] if d.get("kind") == "Queue"}


def top(parent):
    return parent in (None, "", "root")


@rule("volcano.quantity-nonneg", ["Queue"])
def _(doc, ctx):
    s, out = spec(doc), []
    for key, m in (("capability", s.get("capability")), ("deserved", s.get("deserved")),
                   ("guarantee.resource", (s.get("guarantee") or {}).get("resource"))):
        for r, v in rmap(m).items():
            if v is None or v < 0:
                out.append(f"{key}[{r}] is not a quantity >= 0")
    return out


@rule("volcano.guarantee-le-deserved", ["Queue"])
def _(doc, ctx):
    s = spec(doc)
    des = rmap(s.get("deserved"))
    out = []
    for r, g in rmap((s.get("guarantee") or {}).get("resource")).items():
        if r not in des:
            out.append(f"deserved[{r}] must be >= guarantee[{r}] (missing)")
        elif des[r] is not None and g is not None and des[r] < g:
            out.append(f"deserved[{r}] must be >= guarantee[{r}]")
    return out


@rule("volcano.deserved-le-capability", ["Queue"])
def _(doc, ctx):
    s = spec(doc)
    cap = rmap(s.get("capability"))
    return [f"deserved[{r}] must be <= capability[{r}]"
            for r, d in rmap(s.get("deserved")).items()
            if r in cap and d is not None and cap[r] is not None and d > cap[r]]


@rule("volcano.parent-not-self", ["Queue"])
def _(doc, ctx):
    return (["queue cannot use itself as parent"]
            if spec(doc).get("parent") == doc["metadata"]["name"] else [])


@rule("volcano.parent-exists", ["Queue"])
def _(doc, ctx):
    # Applied in file order, the parent must already exist when a child is
    # created ("failed to get parent queue").
    p = spec(doc).get("parent")
    if top(p):
        return []
    before = {d["metadata"]["name"] for d in ctx["docs"][:ctx["index"]]
              if d.get("kind") == "Queue"}
    return [] if p in before else [f"parent queue {p} is not created before it"]


@rule("volcano.depth", ["Queue"])
def _(doc, ctx):
    qs, seen, p = queues(ctx), {doc["metadata"]["name"]}, spec(doc).get("parent")
    while not top(p) and p in qs:
        if p in seen:
            return [f"parent chain loops at {p}"]
        seen.add(p)
        p = spec(qs[p]).get("parent")
    return []


def nearest_capability(ctx, doc, r):
    qs, p = queues(ctx), spec(doc).get("parent")
    hops = 0
    while not top(p) and p in qs and hops < 64:
        v = rmap(spec(qs[p]).get("capability")).get(r)
        if v is not None and v > 0:
            return v
        p, hops = spec(qs[p]).get("parent"), hops + 1
    return None


@rule("volcano.child-capability-le-ancestor", ["Queue"])
def _(doc, ctx):
    out = []
    for r, v in rmap(spec(doc).get("capability")).items():
        up = nearest_capability(ctx, doc, r)
        if up is not None and v is not None and v > up:
            out.append(f"capability[{r}] exceeds its ancestor's capability")
    return out


def children(ctx, name):
    return [d for d in ctx["docs"] if d.get("kind") == "Queue"
            and spec(d).get("parent") == name]


def sum_exceeds(parent_map, kids, get):
    # Volcano's LessPartly: a resource the parent does not list counts 0.
    total = {}
    for k in kids:
        for r, v in rmap(get(k)).items():
            total[r] = total.get(r, Decimal(0)) + (v or 0)
    return [r for r, v in total.items() if v > (parent_map.get(r) or 0)]


@rule("volcano.children-deserved-le-parent", ["Queue"])
def _(doc, ctx):
    kids = children(ctx, doc["metadata"]["name"])
    bad = sum_exceeds(rmap(spec(doc).get("deserved")), kids,
                      lambda k: spec(k).get("deserved"))
    return [f"sum of children's deserved[{r}] exceeds the parent's deserved" for r in bad]


@rule("volcano.children-guarantee-le-parent", ["Queue"])
def _(doc, ctx):
    kids = children(ctx, doc["metadata"]["name"])
    bad = sum_exceeds(rmap((spec(doc).get("guarantee") or {}).get("resource")), kids,
                      lambda k: (spec(k).get("guarantee") or {}).get("resource"))
    return [f"sum of children's guarantee[{r}] exceeds the parent's guarantee" for r in bad]


def subtree_max_capability(ctx, q, r, depth=0):
    v = rmap(spec(q).get("capability")).get(r)
    if v is not None and v > 0:
        return v
    if depth > 64:
        return Decimal(0)
    return max([subtree_max_capability(ctx, c, r, depth + 1)
                for c in children(ctx, q["metadata"]["name"])] or [Decimal(0)])


@rule("volcano.parent-capability-ge-children", ["Queue"])
def _(doc, ctx):
    kids = children(ctx, doc["metadata"]["name"])
    out = []
    for r, v in rmap(spec(doc).get("capability")).items():
        most = max([subtree_max_capability(ctx, k, r) for k in kids] or [Decimal(0)])
        if v is not None and v < most:
            out.append(f"capability[{r}] is smaller than its descendants' max capability")
    return out


@rule("volcano.root-reserved", ["Queue"])
def _(doc, ctx):
    # The scheduler owns the root queue; with root protection its resources
    # cannot be changed, and it cannot be anyone's child.
    return (["the root queue is Volcano's own"]
            if doc["metadata"]["name"] == "root" else [])


# ------------------------------------------------------- more rule modules

# Core Kubernetes kinds (ConfigMap, HorizontalPodAutoscaler, ...) have no
# CRD: a rule module registers a checker per (apiVersion, kind) here, each
# returning a list of messages.  A kind with neither a CRD nor a checker
# fails ("no schema").
CORE_CHECKERS = {}

# Each export target's rules live in rules_<target>.py beside this file,
# run in this module's namespace (rule(), spec(), qty(), CORE_CHECKERS).
for _f in sorted(os.listdir(HERE)):
    if _f.startswith("rules_") and _f.endswith(".py"):
        with open(os.path.join(HERE, _f)) as _fh:
            exec(compile(_fh.read(), os.path.join(HERE, _f), "exec"), globals())

# ------------------------------------------------------------------ checking

def check_docs(docs, label, excluded=()):
    """Returns a list of (rule, message) failures."""
    fails = []
    ctx = {"docs": docs, "excluded": list(excluded)}
    for i, doc in enumerate(docs):
        ctx["index"] = i
        kind, name = doc.get("kind"), (doc.get("metadata") or {}).get("name")
        where = f"{label} {kind} {name}"
        key = (doc.get("apiVersion"), kind)
        if key in CORE_CHECKERS:
            for msg in CORE_CHECKERS[key](doc):
                fails.append(("schema", f"{where}: {msg}"))
        elif key != ("v1", "Namespace"):
            schema = CRDS.get(key)
            if schema is None:
                fails.append(("schema", f"{where}: no schema for {key}"))
            else:
                for e in jsonschema.Draft7Validator(schema).iter_errors(doc):
                    fails.append(("schema", f"{where}: {'/'.join(map(str, e.path))}: "
                                            f"{e.message}"))
        for rid, (kinds, fn) in RULES.items():
            if "*" in kinds or kind in kinds:
                for msg in fn(doc, ctx):
                    fails.append((rid, f"{where}: {rid}: {msg}"))
    return fails


def config_excludes(text):
    """resources.excludeResourcePrefixes of a Kueue Configuration file."""
    out = []
    for d in yaml.safe_load_all(text):
        if d and d.get("kind") == "Configuration":
            out += (d.get("resources") or {}).get("excludeResourcePrefixes") or []
    return out


def export(gp, target, spec_path, api=None):
    cmd = [gp, "export", target, "--cluster", spec_path, "--json"]
    if api:
        cmd += ["--kueue-api", api]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip()
    return {f["name"]: f["text"] for f in json.loads(p.stdout)["files"]}, None


def check_exports(gp, specs):
    failed = checked = 0
    for spec_path in specs:
        runs = [("kueue", "v1beta1"), ("kueue", "v1beta2"), ("volcano", None)]
        for target, api in runs:
            label = f"{os.path.basename(spec_path)} {target}" + (f" {api}" if api else "")
            files, err = export(gp, target, spec_path, api)
            if files is None:
                print(f"FAIL {label}: export failed: {err}")
                failed += 1
                continue
            text = files[f"{target}.yaml"]
            docs = [d for d in yaml.safe_load_all(text) if d is not None]
            want = f"kueue.x-k8s.io/{api}" if api else "scheduling.volcano.sh/v1beta1"
            for d in docs:
                if d.get("kind") != "Namespace" and d.get("apiVersion") != want:
                    print(f"FAIL {label}: {d.get('kind')} has apiVersion {d.get('apiVersion')}")
                    failed += 1
            excluded = config_excludes(files.get("kueue-config.yaml", ""))
            if "kueue-config.yaml" in files:
                cfg = yaml.safe_load(files["kueue-config.yaml"])
                if cfg.get("apiVersion") != f"config.kueue.x-k8s.io/{api}":
                    print(f"FAIL {label}: Configuration apiVersion {cfg.get('apiVersion')}")
                    failed += 1
            fails = check_docs(docs, label, excluded)
            for _, msg in fails:
                print(f"FAIL {msg}")
            failed += len(fails)
            checked += len(docs)
            print(f"ok   {label}: {len(docs)} objects")
    print(f"{checked} objects checked, {failed} failures")
    return 1 if failed or not checked else 0


def check_file(path):
    with open(path) as fh:
        text = fh.read()
    first = text.splitlines()[0] if text else ""
    m = re.match(r"#\s*expect:\s*(\S+)", first)
    docs = [d for d in yaml.safe_load_all(text) if d is not None]
    excluded = config_excludes(text)
    docs = [d for d in docs if d.get("kind") != "Configuration"]
    fails = check_docs(docs, os.path.basename(path), excluded)
    if m:
        want = m.group(1)
        if want not in RULES and want != "schema":
            print(f"FAIL {path}: unknown rule {want}")
            return 1
        hit = [msg for rid, msg in fails if rid == want]
        for msg in hit:
            print(f"ok   rejected: {msg}")
        if not hit:
            print(f"FAIL {path}: not rejected by {want}; got {fails}")
            return 1
        return 0
    for _, msg in fails:
        print(f"FAIL {msg}")
    print(f"{len(docs)} objects, {len(fails)} failures")
    return 1 if fails or not docs else 0


def check_coverage(d):
    expected = set()
    for f in sorted(os.listdir(d)):
        with open(os.path.join(d, f)) as fh:
            m = re.match(r"#\s*expect:\s*(\S+)", fh.readline())
        if m:
            expected.add(m.group(1))
    missing = sorted(set(RULES) - expected)
    for rid in missing:
        print(f"FAIL rule {rid} has no negative test in {d}")
    print(f"{len(RULES)} rules, {len(missing)} without a negative test")
    return 1 if missing or "schema" not in expected else 0


def check_dir(d):
    """Every object of every .yaml file under 'd' (an export set) passes."""
    docs, n_files = [], 0
    for root, dirs, files in os.walk(d):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith((".yaml", ".yml")):
                continue
            n_files += 1
            with open(os.path.join(root, f)) as fh:
                for doc in yaml.safe_load_all(fh):
                    if isinstance(doc, dict) and "apiVersion" in doc and "kind" in doc:
                        docs.append(doc)
    excluded = []
    for doc in docs:
        if doc.get("kind") == "Configuration":
            excluded += (doc.get("resources") or {}).get("excludeResourcePrefixes") or []
    docs = [x for x in docs if x.get("kind") != "Configuration"]
    fails = check_docs(docs, os.path.basename(os.path.normpath(d)), excluded)
    for _, msg in fails:
        print(f"FAIL {msg}")
    print(f"{n_files} files, {len(docs)} objects, {len(fails)} failures")
    return 1 if fails or not docs else 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--dir":
        return check_dir(argv[2])
    if len(argv) == 3 and argv[1] == "--file":
        return check_file(argv[2])
    if len(argv) == 3 and argv[1] == "--coverage":
        return check_coverage(argv[2])
    if len(argv) >= 3:
        return check_exports(argv[1], argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
