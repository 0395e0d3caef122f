# Rules of the network target's objects (docs/formats/export-network.md),
# exec'd by validate.py in its namespace (rule, spec, named, json, re).
#
#   multus.*   what Multus needs of a NetworkAttachmentDefinition: spec.config
#              is CNI JSON (k8snetworkplumbingwg/multus-cni docs/how-to-use.md
#              @v4.3.0; CNI SPEC.md: cniVersion and type, or a plugins list).
#   netop.*    the NVIDIA Network Operator (Mellanox/network-operator
#              @v26.4.1): the one NicClusterPolicy it reconciles, and the
#              device-plugin configs it passes through (k8s-rdma-shared-dev-
#              plugin / sriov-network-device-plugin README: configList /
#              resourceList entries with a resourceName of [a-zA-Z0-9_]+,
#              unique, with selectors).
#   sriov.*    the SR-IOV Network Operator's admission webhook
#              (k8snetworkplumbingwg/sriov-network-operator
#              pkg/webhook/validate.go @v1.6.0), the static checks and the
#              policy-against-policy ones for policies of one export set.
#   network.*  the set as a whole: IPAM strings the operators paste into the
#              CNI JSON, every network's resource defined by a policy or
#              device plugin, one resource per rail, and no two networks
#              rendering the same NetworkAttachmentDefinition.

NET_KINDS = ["HostDeviceNetwork", "IPoIBNetwork", "SriovNetwork", "SriovIBNetwork"]
RES_NAME = re.compile(r"^[a-zA-Z0-9_]+$")


def json_obj(text):
    """'text' parsed as a JSON object, or None."""
    try:
        v = json.loads(text)
    except (TypeError, ValueError):
        return None
    return v if isinstance(v, dict) else None


def of_kind(ctx, kinds):
    return [d for d in ctx["docs"] if d.get("kind") in kinds]


# Multus ------------------------------------------------------------------

@rule("multus.nad-config", ["NetworkAttachmentDefinition"])
def _(doc, ctx):
    cfg = spec(doc).get("config")
    if cfg is None:
        return []  # a NAD without config names a file on the node
    c = json_obj(cfg)
    if c is None:
        return ["spec.config is not a JSON object"]
    out = []
    if not c.get("cniVersion"):
        out.append("spec.config has no cniVersion")
    plugins = c.get("plugins")
    if plugins is not None:
        if not isinstance(plugins, list) or not plugins:
            out.append("spec.config plugins is not a non-empty list")
        else:
            out += [f"spec.config plugins[{i}] has no type"
                    for i, p in enumerate(plugins)
                    if not isinstance(p, dict) or not p.get("type")]
    elif not c.get("type"):
        out.append("spec.config has no type")
    return out


# NVIDIA Network Operator ---------------------------------------------------

@rule("netop.nicclusterpolicy-name", ["NicClusterPolicy"])
def _(doc, ctx):
    # controllers/nicclusterpolicy_controller.go: any other name is an
    # "unsupported instance" the operator ignores.
    name = doc["metadata"].get("name")
    return [] if name == "nic-cluster-policy" else [
        f"the operator reconciles only nic-cluster-policy, not {name}"]


def plugin_entries(doc):
    """(plugin, list key, entries or None) of a NicClusterPolicy."""
    out = []
    for plugin, key in (("rdmaSharedDevicePlugin", "configList"),
                        ("sriovDevicePlugin", "resourceList")):
        p = spec(doc).get(plugin)
        if p is None or p.get("config") is None:
            continue
        c = json_obj(p["config"])
        out.append((plugin, key, c.get(key) if c else None))
    return out


@rule("netop.device-plugin-config", ["NicClusterPolicy"])
def _(doc, ctx):
    out = []
    for plugin, key, entries in plugin_entries(doc):
        if not isinstance(entries, list) or not entries:
            out.append(f"{plugin}.config is not JSON with a non-empty {key}")
            continue
        seen = set()
        for i, e in enumerate(entries):
            rn = e.get("resourceName") if isinstance(e, dict) else None
            if not isinstance(rn, str) or not RES_NAME.match(rn):
                out.append(f"{plugin}.config {key}[{i}].resourceName {rn!r} "
                           "is not [a-zA-Z0-9_]+")
            elif rn in seen:
                out.append(f"{plugin}.config resourceName {rn} is not unique")
            seen.add(rn)
            if not isinstance(e, dict) or not e.get("selectors"):
                out.append(f"{plugin}.config {key}[{i}] has no selectors")
    return out


# SR-IOV Network Operator webhook -------------------------------------------

@rule("sriov.policy.resource-name", ["SriovNetworkNodePolicy"])
def _(doc, ctx):
    rn = spec(doc).get("resourceName") or ""
    return [] if RES_NAME.match(rn) else [
        f"resource name {rn!r} contains invalid characters (^[a-zA-Z0-9_]+$)"]


@rule("sriov.policy.nic-selector", ["SriovNetworkNodePolicy"])
def _(doc, ctx):
    ns = spec(doc).get("nicSelector") or {}
    if any(ns.get(k) for k in ("vendor", "deviceID", "pfNames", "rootDevices", "netFilter")):
        return []
    return ["at least one of vendor, deviceID, pfNames, rootDevices or "
            "netFilter has to be defined in nicSelector"]


@rule("sriov.policy.vfio-rdma", ["SriovNetworkNodePolicy"])
def _(doc, ctx):
    s = spec(doc)
    return (["'deviceType: vfio-pci' conflicts with 'isRdma: true'"]
            if s.get("deviceType") == "vfio-pci" and s.get("isRdma") else [])


@rule("sriov.policy.switchdev-eth", ["SriovNetworkNodePolicy"])
def _(doc, ctx):
    s = spec(doc)
    lt = s.get("linkType") or ""
    return (["'eSwitchMode: switchdev' can be used only with ethernet links"]
            if lt and lt.lower() != "eth" and s.get("eSwitchMode") == "switchdev"
            else [])


@rule("sriov.policy.num-vfs", ["SriovNetworkNodePolicy"])
def _(doc, ctx):
    # validatePolicyForNodeState: numVfs 0 is refused (the deprecated
    # default policy aside), and a Mellanox PF takes at most 128 VFs.
    s = spec(doc)
    n = s.get("numVfs")
    if n == 0 and doc["metadata"].get("name") != "default":
        return ["numVfs 0 is not allowed"]
    if isinstance(n, int) and n > 128 and (s.get("nicSelector") or {}).get("vendor") == "15b3":
        return [f"numVfs {n} exceeds the maximum allowed value 128 (Mellanox)"]
    return []


def vf_range(pf):
    """(name, first, last) of a pfNames entry; a bare name is every VF."""
    if "#" not in pf:
        return pf, 0, 1 << 30
    name, rng = pf.split("#", 1)
    try:
        a, b = (int(x) for x in rng.split("-", 1))
    except ValueError:
        return name, 0, 1 << 30
    return name, a, b


@rule("sriov.policy.pf-overlap", ["SriovNetworkNodePolicy"])
def _(doc, ctx):
    # validatePfNames / validateRootDevices against the other policies of
    # the set that select the same nodes (same nodeSelector).
    out = []
    me = spec(doc)
    for other in of_kind(ctx, ["SriovNetworkNodePolicy"]):
        if other is doc or other["metadata"].get("name") == doc["metadata"].get("name"):
            continue
        os_ = spec(other)
        if os_.get("nodeSelector") != me.get("nodeSelector"):
            continue
        mine = (me.get("nicSelector") or {})
        theirs = (os_.get("nicSelector") or {})
        for cur in mine.get("pfNames") or []:
            cn, ca, cb = vf_range(cur)
            for pre in theirs.get("pfNames") or []:
                pn, pa, pb = vf_range(pre)
                if cn == pn and not (cb < pa or ca > pb):
                    out.append(f"VF index range in {cur} is overlapped with "
                               f"policy {other['metadata'].get('name')}")
        for rd in mine.get("rootDevices") or []:
            if rd in (theirs.get("rootDevices") or []):
                out.append(f"root device {rd} is overlapped with policy "
                           f"{other['metadata'].get('name')}")
    return out


# The export set -----------------------------------------------------------

@rule("network.ipam-json", NET_KINDS)
def _(doc, ctx):
    # The operators paste the string into the rendered CNI JSON as the
    # "ipam" object: anything but a JSON object with a type breaks the NAD.
    ipam = spec(doc).get("ipam")
    if ipam is None:
        return []
    c = json_obj(ipam)
    if c is None:
        return ["spec.ipam is not a JSON object"]
    return [] if c.get("type") else ["spec.ipam has no type"]


def defined_resources(ctx, kind):
    """Resources the set's policies / device plugins define for 'kind'."""
    if kind in ("SriovNetwork", "SriovIBNetwork"):
        return [spec(d).get("resourceName") for d in of_kind(ctx, ["SriovNetworkNodePolicy"])]
    out = []
    for d in of_kind(ctx, ["NicClusterPolicy"]):
        for plugin, key, entries in plugin_entries(d):
            if plugin == "sriovDevicePlugin" and isinstance(entries, list):
                out += [e.get("resourceName") for e in entries if isinstance(e, dict)]
    return out


def rdma_ifnames(ctx):
    out = []
    for d in of_kind(ctx, ["NicClusterPolicy"]):
        for plugin, key, entries in plugin_entries(d):
            if plugin == "rdmaSharedDevicePlugin" and isinstance(entries, list):
                for e in entries:
                    if isinstance(e, dict):
                        out += (e.get("selectors") or {}).get("ifNames") or []
    return out


@rule("network.resource-defined", NET_KINDS)
def _(doc, ctx):
    kind = doc["kind"]
    if kind == "IPoIBNetwork":
        # IPoIB children of 'master'; pods ask the RDMA shared device
        # plugin's resource for that interface.
        m = spec(doc).get("master")
        return [] if m in rdma_ifnames(ctx) else [
            f"master {m} is selected by no rdmaSharedDevicePlugin resource"]
    rn = spec(doc).get("resourceName")
    if rn in defined_resources(ctx, kind):
        return []
    by = ("SriovNetworkNodePolicy of the set" if kind.startswith("Sriov")
          else "the NicClusterPolicy sriovDevicePlugin")
    return [f"resourceName {rn} is defined by no {by}"]


@rule("network.one-resource-per-rail", NET_KINDS + ["SriovNetworkNodePolicy"])
def _(doc, ctx):
    # gpuplan's rail rule (NVIDIA's 8-GPU/8-NIC presets): one policy, one
    # resource and one network per rail, so no two share a resource.
    rn = spec(doc).get("resourceName")
    if rn is None:
        return []
    group = ["SriovNetworkNodePolicy"] if doc["kind"] == "SriovNetworkNodePolicy" else NET_KINDS
    n = sum(1 for d in of_kind(ctx, group) if spec(d).get("resourceName") == rn)
    return [] if n == 1 else [f"resource {rn} is shared by {n} {'policies' if group != NET_KINDS else 'networks'}"]


def nad_key(doc):
    if doc["kind"] == "NetworkAttachmentDefinition":
        return (doc["metadata"].get("namespace") or "default", doc["metadata"].get("name"))
    return (spec(doc).get("networkNamespace") or doc["metadata"].get("namespace") or "default",
            doc["metadata"].get("name"))


@rule("network.nad-unique", NET_KINDS + ["NetworkAttachmentDefinition"])
def _(doc, ctx):
    # Each network renders the NAD <networkNamespace>/<name>; a second
    # object rendering the same NAD is refused by the SR-IOV operator
    # (Ready=False, owner mismatch) or overwrites the first.
    k = nad_key(doc)
    n = sum(1 for d in of_kind(ctx, NET_KINDS + ["NetworkAttachmentDefinition"])
            if nad_key(d) == k)
    return [] if n == 1 else [f"{n} objects define NetworkAttachmentDefinition {k[0]}/{k[1]}"]
