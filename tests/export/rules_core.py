# rules_core.py - core Kubernetes kinds (no CRD) for validate.py.
#
# Exec'd in validate.py's namespace.  Each core kind below gets a checker in
# CORE_CHECKERS: the object must pass the validator that the npm package
# kubernetes-models (pinned in k8score/package.json) generates from the
# Kubernetes OpenAPI definitions, and must have no field those definitions
# lack (kubectl's strict field validation; see k8score/check.mjs for how the
# unknown-field walk works).  Every failure is reported under rule id
# "schema", like a CRD schema failure.
#
# All core objects of one check_docs run are checked in ONE node process
# (CORE_PREFETCH runs before the per-object checks); a checker called on an
# object outside such a run starts node for that object alone.
#
# node and the package come from scripts/deps.sh (Debian nodejs/npm, then
# `npm ci` in tests/export/k8score).  When either is missing every core
# object FAILS with a message saying so: the check is never skipped.

K8SCORE_DIR = os.path.join(HERE, "k8score")

# The kinds gpuplan's exports emit; another kind is one more line here.
CORE_KINDS = [
    ("v1", "ConfigMap"),
    ("v1", "Service"),
    ("v1", "ResourceQuota"),
    ("autoscaling/v2", "HorizontalPodAutoscaler"),
    ("scheduling.k8s.io/v1", "PriorityClass"),
]

_CORE_CACHE = {}


def _core_key(doc):
    return json.dumps(doc, sort_keys=True, default=str)


def _core_run(docs):
    """Checks 'docs' in one node call; returns a list of message lists."""
    script = os.path.join(K8SCORE_DIR, "check.mjs")
    if not os.path.isdir(os.path.join(K8SCORE_DIR, "node_modules", "kubernetes-models")):
        msg = ("kubernetes-models is not installed in tests/export/k8score "
               "(run scripts/deps.sh)")
        return [[msg] for _ in docs]
    try:
        p = subprocess.run(["node", script], input=json.dumps(docs, default=str),
                           capture_output=True, text=True, cwd=K8SCORE_DIR, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return [[f"node could not check core objects: {e} (run scripts/deps.sh)"]
                for _ in docs]
    if p.returncode != 0:
        return [[f"node check.mjs failed: {p.stderr.strip()[-400:]}"] for _ in docs]
    out = json.loads(p.stdout)
    if len(out) != len(docs):
        return [["node check.mjs returned a wrong number of results"] for _ in docs]
    return out


def core_prefetch(docs):
    """Checks every core object of 'docs' not yet checked, in one node call."""
    todo, keys = [], []
    for d in docs:
        if (d.get("apiVersion"), d.get("kind")) in CORE_CHECKERS:
            k = _core_key(d)
            if k not in _CORE_CACHE and k not in keys:
                keys.append(k)
                todo.append(d)
    if todo:
        for k, msgs in zip(keys, _core_run(todo)):
            _CORE_CACHE[k] = msgs


def core_check(doc):
    k = _core_key(doc)
    if k not in _CORE_CACHE:
        _CORE_CACHE[k] = _core_run([doc])[0]
    return list(_CORE_CACHE[k])


for _key in CORE_KINDS:
    CORE_CHECKERS[_key] = core_check
CORE_PREFETCH.append(core_prefetch)
