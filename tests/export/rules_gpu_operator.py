# Rules for 'gpuplan export gpu-operator' (exec'd by validate.py in its
# namespace: rule(), spec()).  The ClusterPolicy is checked against the
# GPU Operator v26.7.0 CRD (schemas/gpu-operator/); these rules check what
# the CRD cannot: that the ConfigMaps it names exist and hold what the
# operator's components parse (docs/formats/export-gpu-operator.md).
# ConfigMaps are core kinds: their type check is rules_core.py's; these
# rules read their data keys only.
#
# Sources: mig-parted pkg/types/v1 (config.yaml: version, mig-configs:
# name -> [{device-filter, devices: all | [int], mig-enabled,
# mig-devices: {profile: count}}]; config-default.yaml v0.15.0);
# k8s-device-plugin api/config/v1 (version v1, flags, resources, sharing
# {timeSlicing, mps}: {renameByDefault, failRequestsGreaterThanOne,
# resources: [{name, devices, replicas}]}, replicas at least 2);
# dcgm-exporter counters CSV (field, type, help) against the copied
# counter lists of dcgm-exporter 4.5.3-4.8.2 (grafana/upstream/) and the
# DCGM fields below that those lists do not carry.
import csv as _csv
import io as _io

_GPUOP_DCGM_LISTS = ("default-counters.csv", "dcp-metrics-included.csv")
# DCGM fields outside dcgm-exporter's lists (NVIDIA DCGM
# dcgmlib/dcgm_fields.h v4.6.0: ID, DCGM_FT_INT64 -> gauge).
_GPUOP_DCGM_EXTRA = {
    "DCGM_FI_DEV_CLOCKS_EVENT_REASONS": "gauge",    # 112
    "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS": "gauge",  # 112, deprecated alias
    "DCGM_FI_DEV_MEM_MAX_OP_TEMP": "gauge",         # 151
    "DCGM_FI_DEV_GPU_MAX_OP_TEMP": "gauge",         # 152
    "DCGM_FI_DEV_PCIE_LINK_GEN": "gauge",           # 237
    "DCGM_FI_DEV_PCIE_LINK_WIDTH": "gauge",         # 238
}


def _gpuop_known_fields():
    """name -> type from the copied counter lists, commented rows too."""
    known = dict(_GPUOP_DCGM_EXTRA)
    d = os.path.join(HERE, "grafana", "upstream")
    for f in _GPUOP_DCGM_LISTS:
        with open(os.path.join(d, f), newline="") as fh:
            for line in fh:
                line = line.strip().lstrip("#").strip()
                row = [c.strip() for c in line.split(",")]
                if len(row) >= 3 and row[0].startswith("DCGM_"):
                    known.setdefault(row[0], row[1])
    return known


def _gpuop_data(doc, key):
    """ConfigMap data[key] parsed as YAML, or None when absent."""
    text = (doc.get("data") or {}).get(key)
    if text is None:
        return None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        return e


def _gpuop_configmap(ctx, name):
    for d in ctx["docs"]:
        if d.get("kind") == "ConfigMap" and \
                (d.get("metadata") or {}).get("name") == name:
            return d
    return None


def _gpuop_refs(doc):
    """(field, ConfigMap name, data key the component reads or None,
    default entry or None) named by a ClusterPolicy."""
    s = spec(doc)
    for comp, key in (("migManager", "config.yaml"), ("devicePlugin", None),
                      ("dcgmExporter", "dcgm-metrics.csv")):
        cfg = (s.get(comp) or {}).get("config") or {}
        if cfg.get("name"):
            yield comp, cfg["name"], key, cfg.get("default")


@rule("gpuop.policy.configmap-exists", ["ClusterPolicy"])
def _(doc, ctx):
    for comp, name, key, _d in _gpuop_refs(doc):
        cm = _gpuop_configmap(ctx, name)
        if cm is None:
            yield f"spec.{comp}.config.name: no ConfigMap {name}"
        elif key and key not in (cm.get("data") or {}):
            yield f"spec.{comp}.config.name: ConfigMap {name} lacks key {key}"


@rule("gpuop.policy.default-config-exists", ["ClusterPolicy"])
def _(doc, ctx):
    for comp, name, key, default in _gpuop_refs(doc):
        cm = _gpuop_configmap(ctx, name)
        if not default or cm is None:
            continue
        if comp == "migManager":
            cfg = _gpuop_data(cm, "config.yaml")
            have = (cfg.get("mig-configs") or {}) if isinstance(cfg, dict) else {}
        else:
            have = cm.get("data") or {}
        if default not in have:
            yield f"spec.{comp}.config.default: '{default}' is not in {name}"


@rule("gpuop.policy.mig-strategy-fits", ["ClusterPolicy"])
def _(doc, ctx):
    """The single strategy exposes one MIG profile per node: every MIG
    layout may hold only one profile, and all the same one."""
    if (spec(doc).get("mig") or {}).get("strategy") != "single":
        return
    for d in ctx["docs"]:
        cfg = _gpuop_data(d, "config.yaml") if d.get("kind") == "ConfigMap" else None
        if not isinstance(cfg, dict):
            continue
        profiles = set()
        for name, entries in (cfg.get("mig-configs") or {}).items():
            for e in entries or []:
                profiles |= set((e.get("mig-devices") or {}).keys())
        if len(profiles) > 1:
            yield f"mig.strategy single with MIG profiles {sorted(profiles)}"


_GPUOP_MIG_KEYS = {"device-filter", "devices", "mig-enabled", "mig-devices"}


@rule("gpuop.migparted.structure", ["ConfigMap"])
def _(doc, ctx):
    cfg = _gpuop_data(doc, "config.yaml")
    if cfg is None:
        return
    if not isinstance(cfg, dict) or set(cfg) - {"version", "mig-configs"}:
        yield "config.yaml: expected {version, mig-configs}"
        return
    if cfg.get("version") != "v1":
        yield f"config.yaml: version {cfg.get('version')!r}, expected v1"
    for name, entries in (cfg.get("mig-configs") or {}).items():
        if not isinstance(entries, list) or not entries:
            yield f"mig-configs.{name}: expected a list of device groups"
            continue
        for i, e in enumerate(entries):
            where = f"mig-configs.{name}[{i}]"
            if not isinstance(e, dict) or set(e) - _GPUOP_MIG_KEYS:
                yield f"{where}: unknown keys {sorted(set(e) - _GPUOP_MIG_KEYS)}"
                continue
            dev = e.get("devices")
            if dev != "all" and not (isinstance(dev, list) and dev and all(
                    isinstance(x, int) and not isinstance(x, bool) and x >= 0
                    for x in dev)):
                yield f"{where}.devices: {dev!r} is neither 'all' nor GPU indices"
            if not isinstance(e.get("mig-enabled"), bool):
                yield f"{where}.mig-enabled: expected a boolean"
            md = e.get("mig-devices")
            if e.get("mig-enabled") is True and (not isinstance(md, dict) or any(
                    not isinstance(v, int) or isinstance(v, bool) or v < 1
                    for v in md.values())):
                yield f"{where}.mig-devices: expected profile: count >= 1"


@rule("gpuop.migparted.devices-disjoint", ["ConfigMap"])
def _(doc, ctx):
    cfg = _gpuop_data(doc, "config.yaml")
    if not isinstance(cfg, dict):
        return
    for name, entries in (cfg.get("mig-configs") or {}).items():
        seen, groups = set(), 0
        for e in entries if isinstance(entries, list) else []:
            dev = e.get("devices") if isinstance(e, dict) else None
            groups += 1
            if dev == "all":
                seen.add("all")
            elif isinstance(dev, list):
                for x in dev:
                    if x in seen:
                        yield f"mig-configs.{name}: GPU {x} in two device groups"
                    seen.add(x)
        if "all" in seen and groups > 1:
            yield f"mig-configs.{name}: 'all' beside other device groups"


_GPUOP_SHARING_KEYS = {"renameByDefault", "failRequestsGreaterThanOne",
                       "resources"}


def _gpuop_plugin_configs(doc, ctx):
    """The data entries of the ConfigMap a ClusterPolicy names as its
    device-plugin config."""
    for d in ctx["docs"]:
        if d.get("kind") != "ClusterPolicy":
            continue
        name = ((spec(d).get("devicePlugin") or {}).get("config") or {}).get("name")
        if name and (doc.get("metadata") or {}).get("name") == name:
            return list((doc.get("data") or {}).items())
    return []


@rule("gpuop.plugin.structure", ["ConfigMap"])
def _(doc, ctx):
    for key, text in _gpuop_plugin_configs(doc, ctx):
        try:
            cfg = yaml.safe_load(text)
        except yaml.YAMLError:
            cfg = None
        if not isinstance(cfg, dict) or cfg.get("version") != "v1":
            yield f"data.{key}: expected a config with version: v1"
            continue
        if set(cfg) - {"version", "flags", "resources", "sharing"}:
            yield f"data.{key}: unknown keys {sorted(set(cfg) - {'version', 'flags', 'resources', 'sharing'})}"
        sharing = cfg.get("sharing") or {}
        if set(sharing) - {"timeSlicing", "mps"}:
            yield f"data.{key}.sharing: unknown keys {sorted(sharing)}"
        for mode in ("timeSlicing", "mps"):
            ts = sharing.get(mode)
            if ts is None:
                continue
            if set(ts) - _GPUOP_SHARING_KEYS:
                yield f"data.{key}.sharing.{mode}: unknown keys {sorted(set(ts) - _GPUOP_SHARING_KEYS)}"
            for r in ts.get("resources") or []:
                n = r.get("replicas")
                if not isinstance(n, int) or isinstance(n, bool) or n < 2:
                    yield f"data.{key}.sharing.{mode}: replicas {n!r} (at least 2)"
                if not str(r.get("name", "")).startswith("nvidia.com/"):
                    yield f"data.{key}.sharing.{mode}: resource {r.get('name')!r}"


@rule("gpuop.dcgm.csv", ["ConfigMap"])
def _(doc, ctx):
    text = (doc.get("data") or {}).get("dcgm-metrics.csv")
    if text is None:
        return
    known = _gpuop_known_fields()
    rows = 0
    for n, row in enumerate(_csv.reader(_io.StringIO(text)), 1):
        if not row or not row[0].strip() or row[0].lstrip().startswith("#"):
            continue
        rows += 1
        name, typ = row[0].strip(), row[1].strip() if len(row) > 1 else ""
        if len(row) < 3:
            yield f"dcgm-metrics.csv line {n}: expected field, type, help"
        elif name not in known:
            yield f"dcgm-metrics.csv line {n}: unknown DCGM field {name}"
        elif typ != known[name]:
            yield f"dcgm-metrics.csv line {n}: {name} is a {known[name]}, not {typ}"
    if rows == 0:
        yield "dcgm-metrics.csv: no fields"
