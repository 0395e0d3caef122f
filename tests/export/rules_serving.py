# rules_serving.py - rules of the serving export's objects for validate.py
# (exec'd in its namespace: rule(), spec(), CORE_CHECKERS).
#
# keda.*    what KEDA v2.20 checks when it builds a ScaledObject's scalers
#           (pkg/scalers/cron_scaler.go, prometheus_scaler.go) and its
#           admission webhook (min <= max, idle < min).
# kserve.*  KServe v0.20 InferenceService webhook checks (replica bounds,
#           the name KServe derives '<name>-predictor' objects from).
# serving.* what makes gpuplan's set work as a whole: the autoscaler's
#           target exists and KServe leaves it alone, bounds agree, the
#           cron windows cover the day inside the bounds, vLLM's layout
#           uses exactly the GPUs the pods ask, each object names its
#           workload.  docs/formats/export-serving.md.

_SRV_REMOVED_VLLM = ("vllm:gpu_cache_usage_perc", "vllm:time_per_output_token_seconds")
_SRV_SCALED = ("ScaledObject", "HorizontalPodAutoscaler")


def _srv_ours(doc):
    """A serving object of gpuplan's: the serving CRDs, or an HPA that
    names its workload (the other targets' HPAs are not checked here)."""
    ann = (doc.get("metadata") or {}).get("annotations") or {}
    return doc.get("kind") != "HorizontalPodAutoscaler" or "gpuplan.io/workload" in ann


def _srv_cron_hour(expr):
    """The hour of a '0 H * * *' daily cron expression, else None."""
    f = str(expr).split()
    if len(f) == 5 and f[0] == "0" and f[1].isdigit() and f[2:] == ["*", "*", "*"]:
        h = int(f[1])
        return h if 0 <= h < 24 else None
    return None


def _srv_crons(doc):
    return [t for t in spec(doc).get("triggers") or [] if t.get("type") == "cron"]


def _srv_target(doc, ctx):
    """The object a ScaledObject/HPA scales, found in the set, or None."""
    ref = spec(doc).get("scaleTargetRef") or {}
    ns = (doc.get("metadata") or {}).get("namespace")
    for d in ctx["docs"]:
        md = d.get("metadata") or {}
        if md.get("namespace") != ns:
            continue
        if (ref.get("kind") == "Deployment" and d.get("kind") == "InferenceService"
                and ref.get("name") == f"{md.get('name')}-predictor"):
            return d
        if (ref.get("kind") == "LeaderWorkerSet" and d.get("kind") == "LeaderWorkerSet"
                and ref.get("name") == md.get("name")):
            return d
    return None


def _srv_bounds(doc):
    s = spec(doc)
    if doc.get("kind") == "ScaledObject":
        return s.get("minReplicaCount", 0), s.get("maxReplicaCount", 100)
    return s.get("minReplicas", 1), s.get("maxReplicas")


def _srv_flag(words, name):
    """The value of vLLM flag 'name' in a list of words ('--f=v' or '--f v')."""
    for i, w in enumerate(words):
        if w.startswith(name + "="):
            return w.split("=", 1)[1]
        if w == name and i + 1 < len(words):
            return words[i + 1]
    return None


@rule("keda.cron-trigger", ["ScaledObject"])
def _(doc, ctx):
    out = []
    for t in _srv_crons(doc):
        md = t.get("metadata") or {}
        for k in ("timezone", "start", "end", "desiredReplicas"):
            if not md.get(k):
                out.append(f"cron trigger without {k}")
        if md.get("start") and md.get("start") == md.get("end"):
            out.append(f"cron window starts where it ends ({md.get('start')})")
        for k in ("start", "end"):
            if md.get(k) and len(str(md[k]).split()) != 5:
                out.append(f"cron {k} '{md[k]}' is not a 5-field expression")
        n = md.get("desiredReplicas")
        if n is not None and (not str(n).isdigit() or int(n) < 1):
            out.append(f"desiredReplicas '{n}' must be an integer >= 1")
    return out


@rule("keda.min-le-max", ["ScaledObject"])
def _(doc, ctx):
    lo, hi = _srv_bounds(doc)
    out = [] if lo <= hi else [f"minReplicaCount {lo} > maxReplicaCount {hi}"]
    idle = spec(doc).get("idleReplicaCount")
    if idle is not None and idle >= lo:
        out.append(f"idleReplicaCount {idle} must be < minReplicaCount {lo}")
    return out


@rule("keda.prometheus-trigger", ["ScaledObject"])
def _(doc, ctx):
    out = []
    for t in spec(doc).get("triggers") or []:
        if t.get("type") != "prometheus":
            continue
        md = t.get("metadata") or {}
        for k in ("serverAddress", "query", "threshold"):
            if not md.get(k):
                out.append(f"prometheus trigger without {k}")
        try:
            float(md.get("threshold", "1"))
        except ValueError:
            out.append(f"threshold '{md.get('threshold')}' is not a number")
        for m in _SRV_REMOVED_VLLM:
            if m in str(md.get("query", "")):
                out.append(f"query uses {m}, which vLLM removed")
    return out


@rule("serving.cron-cover", ["ScaledObject"])
def _(doc, ctx):
    crons = _srv_crons(doc)
    if not crons:
        return []
    lo, hi = _srv_bounds(doc)
    covered = [0] * 24
    out = []
    for t in crons:
        md = t.get("metadata") or {}
        s, e = _srv_cron_hour(md.get("start")), _srv_cron_hour(md.get("end"))
        if s is None or e is None or s == e:
            out.append(f"window {md.get('start')} - {md.get('end')} is not hour to hour")
            continue
        n = int(md.get("desiredReplicas") or 0)
        if not lo <= n <= hi:
            out.append(f"window {s}-{e} asks {n} replicas outside [{lo}, {hi}]")
        h = s
        while h != e:
            covered[h] = max(covered[h], n)
            h = (h + 1) % 24
    holes = [h for h in range(24) if not covered[h]]
    if holes:
        out.append(f"hours {holes} have no cron window")
    elif min(covered) != lo:
        out.append(f"minReplicaCount {lo} is not the day's trough {min(covered)}")
    elif max(covered) != hi:
        out.append(f"maxReplicaCount {hi} is not the day's peak {max(covered)}")
    return out


@rule("serving.scale-target", list(_SRV_SCALED))
def _(doc, ctx):
    ref = spec(doc).get("scaleTargetRef") or {}
    return [] if not _srv_ours(doc) or _srv_target(doc, ctx) else [
        f"scale target {ref.get('kind')} {ref.get('name')} is not in the set"]


@rule("serving.replicas-match", list(_SRV_SCALED))
def _(doc, ctx):
    t = _srv_target(doc, ctx)
    if t is None:
        return []
    lo, hi = _srv_bounds(doc)
    if t["kind"] == "InferenceService":
        p = spec(t).get("predictor") or {}
        if (p.get("minReplicas"), p.get("maxReplicas")) != (lo, hi):
            return [f"InferenceService replicas {p.get('minReplicas')}-"
                    f"{p.get('maxReplicas')} differ from the autoscaler's {lo}-{hi}"]
    elif spec(t).get("replicas") != lo:
        return [f"LeaderWorkerSet replicas {spec(t).get('replicas')} != min {lo}"]
    return []


@rule("serving.isvc-external", ["InferenceService"])
def _(doc, ctx):
    md = doc.get("metadata") or {}
    ann = md.get("annotations") or {}
    scaled = any(d.get("kind") in _SRV_SCALED and _srv_target(d, ctx) is doc
                 for d in ctx["docs"])
    if not scaled:
        return []
    out = []
    if ann.get("serving.kserve.io/autoscalerClass") not in ("external", "none"):
        out.append("scaled by its own autoscaler but autoscalerClass is "
                   f"{ann.get('serving.kserve.io/autoscalerClass')!r} (KServe "
                   "would create a competing HPA)")
    if ann.get("serving.kserve.io/deploymentMode") not in ("Standard", "RawDeployment"):
        out.append("deploymentMode must be Standard (RawDeployment): "
                   f"{ann.get('serving.kserve.io/deploymentMode')!r}")
    return out


@rule("kserve.replicas", ["InferenceService"])
def _(doc, ctx):
    p = spec(doc).get("predictor") or {}
    lo, hi = p.get("minReplicas", 1), p.get("maxReplicas", 0)
    if lo < 0 or hi < 0:
        return ["minReplicas and maxReplicas must be >= 0"]
    if hi != 0 and lo > hi:
        return [f"minReplicas {lo} > maxReplicas {hi}"]
    return []


@rule("kserve.name", ["InferenceService"])
def _(doc, ctx):
    n = (doc.get("metadata") or {}).get("name") or ""
    if not re.match(r"^[a-z]([-a-z0-9]*[a-z0-9])?$", n):
        return [f"name {n!r} is not a DNS-1035 label"]
    if len(n) + len("-predictor") > 63:
        return [f"'{n}-predictor' is over 63 characters"]
    return []


@rule("serving.gpus-layout", ["InferenceService", "LeaderWorkerSet"])
def _(doc, ctx):
    if doc["kind"] == "InferenceService":
        m = (spec(doc).get("predictor") or {}).get("model") or {}
        words, pods = [str(a) for a in m.get("args") or []], 1
        res = m.get("resources") or {}
    else:
        lwt = spec(doc).get("leaderWorkerTemplate") or {}
        c = ((((lwt.get("leaderTemplate") or {}).get("spec") or {})
              .get("containers")) or [{}])[0]
        words = " ".join(str(w) for w in c.get("command") or []).split()
        pods, res = lwt.get("size", 1), c.get("resources") or {}
    gpus = qty((res.get("limits") or {}).get("nvidia.com/gpu", 0)) or 0
    tp = int(_srv_flag(words, "--tensor-parallel-size") or 1)
    pp = int(_srv_flag(words, "--pipeline-parallel-size") or 1)
    if tp * pp != gpus * pods:
        return [f"vLLM tp {tp} x pp {pp} != {gpus * pods} GPUs per replica"]
    return []


@rule("serving.workload-annotation", ["InferenceService", "LeaderWorkerSet", "ScaledObject"])
def _(doc, ctx):
    ann = (doc.get("metadata") or {}).get("annotations") or {}
    return [] if ann.get("gpuplan.io/workload") else ["no gpuplan.io/workload annotation"]
