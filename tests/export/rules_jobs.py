# Rules for the jobs export (TrainJob, ClusterTrainingRuntime, JobSet);
# exec'd by validate.py in its namespace (rule, spec, qty, rmap).
#
# Sources, one per rule:
#   trainer.*  the CEL rules of the Kubeflow Trainer v2.3.0 CRDs copied in
#              schemas/kubeflow-trainer/ (x-kubernetes-validations), and the
#              Trainer's runtime contract (the replicated job the TrainJob's
#              trainer section overrides is the one labelled
#              trainer.kubeflow.org/trainjob-ancestor-step: trainer, container
#              'node': manifests/base/runtimes/torch_distributed.yaml @v2.3.0).
#   kueue.tas.* Kueue v0.19 topology-aware scheduling: one of the podset
#              topology annotations per pod template, naming a level of the
#              Topology (gpuplan's levels: src/lib/export/kueue.c).
#   kueue.queue-label  Kueue admits a job only through a LocalQueue named by
#              the kueue.x-k8s.io/queue-name label, in the job's namespace.
#   gpuplan.jobs.*  the layout identities of docs/formats/export-jobs.md:
#              tp*pp*dp*cp = the GPUs the pods ask, the global batch a
#              multiple of micro-batch * dp (Megatron-LM derives the
#              accumulation from it), tensor-parallel groups inside a node,
#              and the gpuplan.io annotations agreeing with the arguments.

RFC1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
GPU_RES = ("nvidia.com/gpu", "amd.com/gpu", "aws.amazon.com/neuron",
           "google.com/tpu", "habana.ai/gaudi")
TAS_KEYS = ("kueue.x-k8s.io/podset-required-topology",
            "kueue.x-k8s.io/podset-preferred-topology",
            "kueue.x-k8s.io/podset-unconstrained-topology")
GPUPLAN_LEVELS = ("gpuplan.io/block", "gpuplan.io/rack", "kubernetes.io/hostname")


def pod_templates(doc):
    """(path, pod template) of a ClusterTrainingRuntime or JobSet."""
    s = spec(doc)
    js = (s.get("template") or {}).get("spec") or {} if doc.get("kind") != "JobSet" else s
    for i, rj in enumerate(js.get("replicatedJobs") or []):
        pt = ((rj.get("template") or {}).get("spec") or {}).get("template") or {}
        yield f"replicatedJobs[{i}]", rj, pt


def megatron(words):
    """{flag: value} of '--flag value' pairs in a list of words."""
    out, words = {}, [str(w) for w in words or []]
    for i, w in enumerate(words):
        if w.startswith("--"):
            if "=" in w:
                k, v = w.split("=", 1)
                out[k] = v
            else:
                out[w] = words[i + 1] if i + 1 < len(words) and not words[i + 1].startswith("--") else True
    return out


def gpus_of(res):
    lim = rmap((res or {}).get("limits"))
    return sum(int(v) for k, v in lim.items() if k in GPU_RES and v is not None)


def job_shape(doc):
    """(pods, GPUs per pod, processes per pod, Megatron args) of a TrainJob
    or JobSet; None when the document has no trainer/containers."""
    s = spec(doc)
    if doc.get("kind") == "TrainJob":
        t = s.get("trainer") or {}
        words = list(t.get("command") or []) + list(t.get("args") or [])
        return (t.get("numNodes") or 1, gpus_of(t.get("resourcesPerNode")),
                t.get("numProcPerNode"), megatron(words))
    for _, rj, pt in pod_templates(doc):
        js = (rj.get("template") or {}).get("spec") or {}
        for c in (pt.get("spec") or {}).get("containers") or []:
            if c.get("name") == "node":
                words = list(c.get("command") or []) + list(c.get("args") or [])
                a = megatron(words)
                npp = a.get("--nproc-per-node")
                pods = (rj.get("replicas") or 1) * (js.get("parallelism") or 1)
                return pods, gpus_of(c.get("resources")), \
                    int(npp) if npp not in (None, True) else None, a
    return None


def layout_of(a):
    g = lambda k: int(a.get(k, 1)) if a.get(k, 1) is not True else 1
    return (g("--tensor-model-parallel-size"), g("--pipeline-model-parallel-size"),
            g("--context-parallel-size"), g("--expert-model-parallel-size"))


@rule("trainer.trainjob.name-rfc1035", ["TrainJob"])
def _(doc, ctx):
    n = (doc.get("metadata") or {}).get("name") or ""
    out = []
    if not RFC1035.match(n):
        out.append(f"metadata.name {n!r} must match RFC 1035 DNS label format")
    if len(n) > 63:
        out.append("metadata.name must be no more than 63 characters")
    return out


@rule("trainer.trainjob.managed-by", ["TrainJob"])
def _(doc, ctx):
    m = spec(doc).get("managedBy")
    ok = ("trainer.kubeflow.org/trainjob-controller", "kueue.x-k8s.io/multikueue")
    return [] if m is None or m in ok else [f"managedBy {m!r} not in {ok}"]


@rule("trainer.runtime.one-policy", ["ClusterTrainingRuntime", "TrainingRuntime"])
def _(doc, ctx):
    ml = spec(doc).get("mlPolicy") or {}
    got = [k for k in ("torch", "mpi", "jax", "xgboost", "flux") if k in ml]
    return [f"mlPolicy sets {got}: at most one"] if len(got) > 1 else []


@rule("trainer.runtime.trainer-node", ["ClusterTrainingRuntime", "TrainingRuntime"])
def _(doc, ctx):
    for _, rj, pt in pod_templates(doc):
        lab = ((rj.get("template") or {}).get("metadata") or {}).get("labels") or {}
        names = [c.get("name") for c in (pt.get("spec") or {}).get("containers") or []]
        if lab.get("trainer.kubeflow.org/trainjob-ancestor-step") == "trainer" and "node" in names:
            return []
    return ["no replicated job labelled trainjob-ancestor-step: trainer with a "
            "container 'node' (the TrainJob's trainer section has nothing to override)"]


@rule("ref.trainjob-runtime", ["TrainJob"])
def _(doc, ctx):
    ref = spec(doc).get("runtimeRef") or {}
    kind = ref.get("kind", "ClusterTrainingRuntime")
    names = {d["metadata"].get("name") for d in ctx["docs"] if d.get("kind") == kind}
    return [] if ref.get("name") in names else [f"runtimeRef names unknown {kind} {ref.get('name')}"]


@rule("kueue.tas.one-annotation", ["ClusterTrainingRuntime", "JobSet"])
def _(doc, ctx):
    out = []
    for where, _, pt in pod_templates(doc):
        ann = (pt.get("metadata") or {}).get("annotations") or {}
        got = [k for k in TAS_KEYS if k in ann]
        if len(got) > 1:
            out.append(f"{where}: more than one of {got}")
    return out


@rule("kueue.tas.level", ["ClusterTrainingRuntime", "JobSet"])
def _(doc, ctx):
    levels = {lv.get("nodeLabel") for d in ctx["docs"] if d.get("kind") == "Topology"
              for lv in spec(d).get("levels") or []} or set(GPUPLAN_LEVELS)
    out = []
    for where, _, pt in pod_templates(doc):
        ann = (pt.get("metadata") or {}).get("annotations") or {}
        for k in TAS_KEYS[:2]:
            if k in ann and ann[k] not in levels:
                out.append(f"{where}: {k}={ann[k]!r} is not a Topology level {sorted(levels)}")
    return out


@rule("kueue.queue-label", ["TrainJob", "JobSet"])
def _(doc, ctx):
    md = doc.get("metadata") or {}
    q = (md.get("labels") or {}).get("kueue.x-k8s.io/queue-name")
    if not q:
        return ["no kueue.x-k8s.io/queue-name label"]
    lqs = {(d["metadata"].get("namespace"), d["metadata"].get("name"))
           for d in ctx["docs"] if d.get("kind") == "LocalQueue"}
    if lqs and (md.get("namespace"), q) not in lqs:
        return [f"no LocalQueue {q} in namespace {md.get('namespace')}"]
    return []


@rule("gpuplan.jobs.layout-gpus", ["TrainJob", "JobSet"])
def _(doc, ctx):
    sh = job_shape(doc)
    if sh is None:
        return ["no trainer or 'node' container"]
    pods, per_pod, _, a = sh
    tp, pp, cp, ep = layout_of(a)
    asked = pods * per_pod
    ann = (doc.get("metadata") or {}).get("annotations") or {}
    out = []
    if asked % (tp * pp * cp) != 0:
        out.append(f"{asked} GPUs asked are not a multiple of tp*pp*cp = {tp * pp * cp}")
        return out
    dp = asked // (tp * pp * cp)
    if str(ann.get("gpuplan.io/gpus")) != str(asked):
        out.append(f"gpuplan.io/gpus {ann.get('gpuplan.io/gpus')!r} != {asked} GPUs the pods ask")
    if (dp * cp) % ep != 0:
        out.append(f"expert parallelism {ep} does not divide dp*cp = {dp * cp}")
    want = f"tp={tp},pp={pp},dp={dp},cp={cp},ep={ep}"
    if ann.get("gpuplan.io/layout") != want:
        out.append(f"gpuplan.io/layout {ann.get('gpuplan.io/layout')!r} != {want} "
                   "(tp*pp*dp*cp = the GPUs asked)")
    return out


@rule("gpuplan.jobs.global-batch", ["TrainJob", "JobSet"])
def _(doc, ctx):
    sh = job_shape(doc)
    if sh is None:
        return []
    pods, per_pod, _, a = sh
    tp, pp, cp, _ = layout_of(a)
    dp = (pods * per_pod) // (tp * pp * cp) or 1
    mb, gb = a.get("--micro-batch-size"), a.get("--global-batch-size")
    if mb in (None, True) or gb in (None, True):
        return ["no --micro-batch-size / --global-batch-size"]
    if int(gb) % (int(mb) * dp) != 0:
        return [f"global batch {gb} is not micro-batch {mb} x dp {dp} x an accumulation"]
    return []


@rule("gpuplan.jobs.tp-in-node", ["TrainJob", "JobSet"])
def _(doc, ctx):
    sh = job_shape(doc)
    if sh is None:
        return []
    _, per_pod, procs, a = sh
    tp = layout_of(a)[0]
    out = []
    if procs is not None and procs != per_pod:
        out.append(f"{procs} processes per node for {per_pod} GPUs per pod")
    if per_pod % tp != 0:
        out.append(f"tensor-parallel groups of {tp} straddle pods of {per_pod} GPUs")
    return out


def _int(a, k, default=None):
    v = a.get(k)
    return default if v in (None, True) else int(v)


@rule("megatron.model-fits-layout", ["TrainJob", "JobSet"])
def _(doc, ctx):
    """What Megatron-LM asserts of the model arguments against the layout
    (NVIDIA/Megatron-LM megatron/training/arguments.py validate_args and
    megatron/core/transformer/transformer_config.py): the required model
    arguments, heads and query groups per tensor-parallel rank, layers per
    pipeline stage (or an uneven first/last stage), max position
    embeddings >= sequence length, experts per expert-parallel rank."""
    sh = job_shape(doc)
    if sh is None:
        return []
    a = sh[3]
    out = [f"no {k} (Megatron-LM requires it)" for k in
           ("--num-layers", "--hidden-size", "--num-attention-heads",
            "--max-position-embeddings") if _int(a, k) is None]
    if out:
        return out
    tp, pp, _, ep = layout_of(a)
    layers, heads = _int(a, "--num-layers"), _int(a, "--num-attention-heads")
    if heads % tp:
        out.append(f"{heads} attention heads are not a multiple of tp {tp}")
    if a.get("--group-query-attention") is True:
        g = _int(a, "--num-query-groups", 1)
        if g % tp:
            out.append(f"{g} query groups are not a multiple of tp {tp}")
    first = _int(a, "--decoder-first-pipeline-num-layers")
    last = _int(a, "--decoder-last-pipeline-num-layers")
    if first is None and last is None:
        if layers % pp:
            out.append(f"{layers} layers are not a multiple of pp {pp}")
    else:
        mid = layers - (first or 0) - (last or 0)
        if mid < 0 or (pp > 2 and mid % (pp - 2)) or (pp <= 2 and mid):
            out.append(f"first {first} + last {last} layers do not leave "
                       f"{layers} layers evenly to the middle stages of pp {pp}")
    seq = _int(a, "--seq-length")
    if seq is not None and _int(a, "--max-position-embeddings") < seq:
        out.append(f"max position embeddings below the sequence length {seq}")
    if ep > 1:
        n = _int(a, "--num-experts")
        if n is None or n % ep:
            out.append(f"expert parallelism {ep} needs experts in multiples "
                       f"of it (--num-experts {n})")
    return out
