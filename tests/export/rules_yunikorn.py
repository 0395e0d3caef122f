# rules_yunikorn.py - Apache YuniKorn's own checks of a queue configuration,
# applied to the `queues.yaml` key of a ConfigMap (exec'd in validate.py's
# namespace: rule(), spec(), HERE, re, yaml, Decimal).
#
# A port of what YuniKorn 1.9 does when it loads queues.yaml (any failure
# rejects the whole configuration):
#   - yunikorn-core pkg/common/configs/config.go: the YAML is decoded
#     strictly into its structs (unknown or misspelt keys, wrong types and
#     duplicate keys are errors);
#   - pkg/common/configs/configvalidator.go (Validate): partition names,
#     the root queue (inserted when missing, never with resources), queue
#     names and their uniqueness, ACLs, guaranteed <= max, a child's max
#     within its parent's, the children's guaranteed within the parent's
#     guaranteed and max, maxapplications, limits, node sorting, placement
#     rules and the queues their fixed parts name;
#   - the placement manager: rule names it knows (provided, user, fixed,
#     tag), a value for fixed and tag;
# plus gpuplan's own checks where YuniKorn falls back silently on a bad
# value (docs: user_guide/queue_config.md, "Properties"): property keys it
# knows, and values it accepts (application.sort.policy only fifo or fair).
# Documented as docs/formats/export-yunikorn.md, "Validation".

YK_QUEUE_NAME = re.compile(r"^[a-zA-Z0-9_:#/@-]{1,64}$")
YK_RULE_NAME = re.compile(r"^[_a-zA-Z][a-zA-Z0-9_]*$")
YK_USER = re.compile(r"^[_a-zA-Z][a-zA-Z0-9:#/_.@-]*[$]?$")
YK_GROUP = re.compile(r"^[_a-zA-Z][a-zA-Z0-9:_.-]*$")
YK_RULES_KNOWN = {"provided", "user", "fixed", "tag"}
YK_QTY = re.compile(r"^([0-9]+)(k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei|m)?$")
YK_SUFFIX = {None: 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12,
             "P": 10**15, "E": 10**18, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30,
             "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
YK_DURATION = re.compile(r"^[-+]?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|ms|s|m|h))+)$")

# The structs of config.go (v1.9), by YAML key: a type name, a nested
# struct (dict), or [element].
YK_STR, YK_BOOL, YK_UINT = "string", "bool", "uint"
YK_STRMAP, YK_FLOATMAP = "map[string]string", "map[string]float64"
YK_FILTER = {"type": YK_STR, "users": [YK_STR], "groups": [YK_STR]}
YK_RULE = {"name": YK_STR, "create": YK_BOOL, "filter": YK_FILTER,
           "value": YK_STR}
YK_RULE["parent"] = YK_RULE
YK_LIMIT = {"limit": YK_STR, "users": [YK_STR], "groups": [YK_STR],
            "maxresources": YK_STRMAP, "maxapplications": YK_UINT}
YK_RESOURCES = {"guaranteed": YK_STRMAP, "max": YK_STRMAP}
YK_QUEUE = {"name": YK_STR, "parent": YK_BOOL, "resources": YK_RESOURCES,
            "maxapplications": YK_UINT, "properties": YK_STRMAP,
            "adminacl": YK_STR, "submitacl": YK_STR,
            "childtemplate": {"maxapplications": YK_UINT,
                              "properties": YK_STRMAP,
                              "resources": YK_RESOURCES},
            "limits": [YK_LIMIT]}
YK_QUEUE["queues"] = [YK_QUEUE]
YK_PARTITION = {"name": YK_STR, "queues": [YK_QUEUE],
                "placementrules": [YK_RULE], "limits": [YK_LIMIT],
                "preemption": {"enabled": YK_BOOL,
                               "quotapreemptionenabled": YK_BOOL},
                "nodesortpolicy": {"type": YK_STR,
                                   "resourceweights": YK_FLOATMAP},
                "statedumpfilepath": YK_STR,
                "usergroupresolver": {"type": YK_STR}}
YK_CONFIG = {"partitions": [YK_PARTITION], "checksum": YK_STR}


class _YkLoader(yaml.SafeLoader):
    """yaml.v3 rejects a key defined twice in one mapping."""


def _yk_mapping(loader, node, deep=False):
    seen = set()
    for k, _ in node.value:
        key = loader.construct_object(k, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"mapping key {key!r} already defined", k.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_YkLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _yk_mapping)


def _yk_types(v, t, path, out):
    """Strict decoding of 'v' into type 't' (config.go): messages in 'out'."""
    if v is None:
        return  # a null leaves the zero value
    if isinstance(t, dict):
        if not isinstance(v, dict):
            out.append(f"{path}: expected a mapping")
            return
        for k, x in v.items():
            if k not in t:
                out.append(f"{path}: field {k} not found in type")
            else:
                _yk_types(x, t[k], f"{path}.{k}" if path else str(k), out)
    elif isinstance(t, list):
        if not isinstance(v, list):
            out.append(f"{path}: expected a sequence")
            return
        for i, x in enumerate(v):
            _yk_types(x, t[0], f"{path}[{i}]", out)
    elif t == YK_STR:
        if isinstance(v, (dict, list)):
            out.append(f"{path}: expected a string")
    elif t == YK_BOOL:
        if not isinstance(v, bool):
            out.append(f"{path}: {v!r} is not a bool")
    elif t == YK_UINT:
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            out.append(f"{path}: {v!r} is not an unsigned integer")
    elif t in (YK_STRMAP, YK_FLOATMAP):
        if not isinstance(v, dict):
            out.append(f"{path}: expected a mapping")
            return
        for k, x in v.items():
            bad = (isinstance(x, (dict, list)) if t == YK_STRMAP else
                   isinstance(x, bool) or not isinstance(x, (int, float)))
            if bad:
                out.append(f"{path}.{k}: {x!r} is not a "
                           f"{'string' if t == YK_STRMAP else 'number'}")


_YK_CACHE = {}


def yk_config(doc):
    """(config, [strict errors]) of the ConfigMap's queues.yaml; config is
    None when it has no such key or does not decode."""
    data = doc.get("data") or {}
    if not isinstance(data, dict) or "queues.yaml" not in data:
        return None, []
    text = data["queues.yaml"]
    if text in _YK_CACHE:
        return _YK_CACHE[text]
    errs = []
    try:
        conf = yaml.load(str(text), Loader=_YkLoader)
    except yaml.YAMLError as e:
        conf, errs = None, [f"queues.yaml does not parse: {e}"]
    if conf is not None:
        _yk_types(conf, YK_CONFIG, "", errs)
        if errs:
            conf = None
    res = (conf if isinstance(conf, dict) else None, errs)
    _YK_CACHE[text] = res
    return res


def yk_partitions(doc):
    conf, _ = yk_config(doc)
    return [p for p in (conf or {}).get("partitions") or [] if isinstance(p, dict)]


def yk_root(part):
    """The partition's root queue as YuniKorn normalises it: a single
    top-level queue named root (any case), else a root inserted above the
    top-level queues."""
    qs = part.get("queues") or []
    if len(qs) == 1 and str(qs[0].get("name", "")).lower() == "root":
        root = dict(qs[0])
    else:
        root = {"name": "root", "queues": qs}
    root["parent"] = True
    return root


def yk_walk(q, path="root"):
    """(path, queue) for 'q' and every queue below it."""
    yield path, q
    for c in q.get("queues") or []:
        yield from yk_walk(c, f"{path}.{c.get('name')}")


def yk_queues(doc):
    for part in yk_partitions(doc):
        yield from yk_walk(yk_root(part))


def yk_qty(name, v):
    """A YuniKorn quantity in base units (vcore in millicores), or None."""
    m = YK_QTY.match(str(v).strip())
    if not m or (m.group(2) == "m" and name != "vcore"):
        return None
    n = int(m.group(1))
    if m.group(2) == "m":
        return n
    n *= YK_SUFFIX[m.group(2)]
    return n * 1000 if name == "vcore" else n


def yk_res(m):
    """A resource map in base units (malformed entries left out)."""
    out = {}
    for k, v in (m or {}).items():
        q = yk_qty(k, v)
        if q is not None:
            out[k] = q
    return out


def yk_fits(big, small):
    """FitInMaxUndef: every resource of 'small' within 'big' where 'big'
    sets it (a resource 'big' does not set is unlimited)."""
    return [k for k, v in small.items() if k in big and v > big[k]]


def yk_min(a, b):
    """ComponentWiseMinPermissive: the smaller where both set one."""
    out = dict(a)
    for k, v in b.items():
        out[k] = min(v, out[k]) if k in out else v
    return out


def yk_resources(q):
    r = q.get("resources") or {}
    return yk_res(r.get("guaranteed")), yk_res(r.get("max"))


def yk_check_resources(q, parent_max, path, out):
    """checkQueueResource: returns the guaranteed the queue passes up
    (its own, else its children's sum); appends (rule, message)."""
    g, m = yk_resources(q)
    for k in yk_fits(m, g):
        out.append(("yunikorn.guaranteed-le-max",
                    f"{path}: guaranteed {k} {g[k]} above max {m[k]}"))
    if parent_max is not None:
        for k in yk_fits(parent_max, m):
            out.append(("yunikorn.child-max-le-parent",
                        f"{path}: max {k} {m[k]} above its parent's {parent_max[k]}"))
        m = yk_min(m, parent_max)
    total = {}
    for c in q.get("queues") or []:
        cg = yk_check_resources(c, m, f"{path}.{c.get('name')}", out)
        for k, v in cg.items():
            total[k] = total.get(k, 0) + v
    for k in yk_fits(g, total):
        out.append(("yunikorn.children-guaranteed-le-parent",
                    f"{path}: children's guaranteed {k} {total[k]} above "
                    f"the queue's guaranteed {g[k]}"))
    for k in yk_fits(m, total):
        out.append(("yunikorn.children-guaranteed-le-parent",
                    f"{path}: children's guaranteed {k} {total[k]} above "
                    f"the queue's max {m[k]}"))
    return total if not any(g.values()) else g


def yk_resource_fails(doc, rid):
    out = []
    for part in yk_partitions(doc):
        yk_check_resources(yk_root(part), None, "root", out)
    return [msg for r, msg in out if r == rid]


YK_KINDS = ["ConfigMap"]


@rule("yunikorn.configmap", YK_KINDS)
def _(doc, ctx):
    # YuniKorn reads its queues from yunikorn-configs' queues.yaml key; a
    # yunikorn-configs without it leaves the defaults in force, silently.
    if (doc.get("metadata") or {}).get("name") != "yunikorn-configs":
        return []
    data = doc.get("data") or {}
    return [] if "queues.yaml" in data else ["yunikorn-configs has no queues.yaml key"]


@rule("yunikorn.strict-keys", YK_KINDS)
def _(doc, ctx):
    return list(yk_config(doc)[1])


@rule("yunikorn.partition-default", YK_KINDS)
def _(doc, ctx):
    conf, _ = yk_config(doc)
    if conf is None:
        return []
    parts = conf.get("partitions") or []
    names = [str(p.get("name") or "default").lower() for p in parts]
    out = []
    if not parts:
        out.append("no partition")
    for n in set(names):
        if names.count(n) > 1:
            out.append(f"partition {n} defined {names.count(n)} times")
    # The Kubernetes shim schedules the 'default' partition only (YUNIKORN-22).
    out += [f"partition {n}: the Kubernetes shim uses only 'default'"
            for n in names if n != "default"]
    out += [f"partition {p.get('name') or 'default'}: queue config is not set"
            for p in parts if not p.get("queues")]
    return out


@rule("yunikorn.root-no-resources", YK_KINDS)
def _(doc, ctx):
    out = []
    for part in yk_partitions(doc):
        r = yk_root(part).get("resources") or {}
        if r.get("guaranteed") is not None or r.get("max") is not None:
            out.append("root queue must not have resource limits set")
    return out


@rule("yunikorn.queue-name", YK_KINDS)
def _(doc, ctx):
    return [f"{p}: invalid child name {c.get('name')!r} (at most 64 of "
            "a-z A-Z 0-9 _ : # / @ -)"
            for p, q in yk_queues(doc) for c in q.get("queues") or []
            if not YK_QUEUE_NAME.match(str(c.get("name") or ""))]


@rule("yunikorn.queue-unique", YK_KINDS)
def _(doc, ctx):
    out = []
    for p, q in yk_queues(doc):
        seen = set()
        for c in q.get("queues") or []:
            n = str(c.get("name") or "").lower()
            if n in seen:
                out.append(f"{p}: duplicate child name {c.get('name')}")
            seen.add(n)
    return out


@rule("yunikorn.quantity", YK_KINDS)
def _(doc, ctx):
    out = []
    for p, q in yk_queues(doc):
        for key in ("guaranteed", "max"):
            for k, v in ((q.get("resources") or {}).get(key) or {}).items():
                if yk_qty(k, v) is None:
                    out.append(f"{p}: resources.{key}.{k} {v!r} is not a "
                               "quantity >= 0")
    return out


@rule("yunikorn.guaranteed-le-max", YK_KINDS)
def _(doc, ctx):
    return yk_resource_fails(doc, "yunikorn.guaranteed-le-max")


@rule("yunikorn.child-max-le-parent", YK_KINDS)
def _(doc, ctx):
    return yk_resource_fails(doc, "yunikorn.child-max-le-parent")


@rule("yunikorn.children-guaranteed-le-parent", YK_KINDS)
def _(doc, ctx):
    return yk_resource_fails(doc, "yunikorn.children-guaranteed-le-parent")


@rule("yunikorn.maxapplications", YK_KINDS)
def _(doc, ctx):
    out = []
    for p, q in yk_queues(doc):
        mine = q.get("maxapplications") or 0
        for c in q.get("queues") or []:
            theirs = c.get("maxapplications") or 0
            if mine and (theirs == 0 or theirs > mine):
                out.append(f"{p}.{c.get('name')}: maxapplications {theirs} "
                           f"not within its parent's {mine}")
    return out


@rule("yunikorn.acl", YK_KINDS)
def _(doc, ctx):
    return [f"{p}: {k} {q[k]!r}: multiple spaces found in ACL"
            for p, q in yk_queues(doc) for k in ("adminacl", "submitacl")
            if q.get(k) is not None and len(str(q[k]).split()) > 2]


def yk_chain(r):
    """The rule chain, outermost parent first (getRuleChain)."""
    return (yk_chain(r["parent"]) if isinstance(r.get("parent"), dict) else []) + [r]


@rule("yunikorn.placement-rule", YK_KINDS)
def _(doc, ctx):
    out = []
    for part in yk_partitions(doc):
        for i, top in enumerate(part.get("placementrules") or []):
            for r in yk_chain(top):
                n = str(r.get("name") or "")
                where = f"placementrules[{i}] ({n})"
                if not YK_RULE_NAME.match(n):
                    out.append(f"{where}: invalid rule name, not an identifier")
                elif n.lower() not in YK_RULES_KNOWN:
                    out.append(f"{where}: unknown rule (provided, user, fixed, tag)")
                if n.lower() in ("fixed", "tag") and not r.get("value"):
                    out.append(f"{where}: needs a value")
                ft = str((r.get("filter") or {}).get("type") or "")
                if ft.lower() not in ("", "allow", "deny"):
                    out.append(f"{where}: filter type {ft} (allow or deny)")
    return out


def yk_static_path(top):
    """getLongestStaticPath: (path, dynamic part follows, error)."""
    path, dynamic = "", False
    for r in yk_chain(top):
        if dynamic:
            continue
        if str(r.get("name") or "") != "fixed":
            path, dynamic = path or "<dynamic>", True
            continue
        v = str(r.get("value") or "")
        if v.startswith("root"):
            if path:
                return path, dynamic, f"illegal fully qualified 'fixed' rule with value {v}"
            path = v
            continue
        path = (path or "root") + "." + v
    return path, dynamic, None


def yk_place_check(parts, create, dynamic, queues, parent):
    """checkQueueHierarchyForPlacement (only 'parent: true' and the root
    count as parents)."""
    if not queues:
        if not parent.get("parent"):
            return f"the last queue {parent.get('name')} is a leaf"
        return None if create else "references non-existing queues and create is false"
    q = next((x for x in queues if x.get("name") == parts[0]), None)
    if q is None:
        return None if create else "references non-existing queues and create is false"
    if len(parts) == 1:
        if dynamic:
            return None if q.get("parent") else "references a queue which is not a parent"
        return "references a queue which is not a leaf" if q.get("parent") else None
    return yk_place_check(parts[1:], create, dynamic, q.get("queues") or [], q)


@rule("yunikorn.placement-path", YK_KINDS)
def _(doc, ctx):
    out = []
    for part in yk_partitions(doc):
        root = yk_root(part)
        for i, top in enumerate(part.get("placementrules") or []):
            path, dynamic, err = yk_static_path(top)
            if err:
                out.append(f"placementrules[{i}]: {err}")
                continue
            if not path.startswith("root"):
                continue
            why = yk_place_check(path.lower().split("."), bool(top.get("create")),
                                 dynamic, [root], None)
            if why:
                out.append(f"placementrules[{i}] ({path}): {why}")
    return out


# gpuplan's checks of queue properties (YuniKorn logs a bad value at debug
# level and uses the default).
def yk_int32(v):
    return re.match(r"^[-+]?[0-9]+$", v) is not None and -2**31 <= int(v) < 2**31


def yk_uint64(v):
    return re.match(r"^[0-9]+$", v) is not None and int(v) < 2**64


def yk_duration(v):
    return YK_DURATION.match(v) is not None


YK_PROPERTIES = {
    "application.sort.policy": lambda v: v in ("fifo", "fair"),
    "application.sort.priority": lambda v: v in ("enabled", "disabled"),
    "priority.policy": lambda v: v in ("default", "fence"),
    "priority.offset": yk_int32,
    "preemption.policy": lambda v: v in ("default", "fence", "disabled"),
    "preemption.delay": lambda v: yk_duration(v) and not v.startswith("-") and v not in ("0", "+0"),
    "quota.preemption.delay": lambda v: yk_duration(v) and not v.startswith("-"),
    "application.unschedasks.backoff": yk_uint64,
    "application.unschedasks.backoff.delay": lambda v: yk_duration(v) and not v.startswith("-"),
}


def yk_properties(doc):
    """(queue path, is leaf, key, value) of every queue property."""
    for p, q in yk_queues(doc):
        leaf = not q.get("queues") and not q.get("parent")
        for k, v in (q.get("properties") or {}).items():
            yield p, leaf, str(k), str(v)


@rule("yunikorn.property-known", YK_KINDS)
def _(doc, ctx):
    return [f"{p}: property {k} is not one YuniKorn knows (ignored)"
            for p, _, k, _ in yk_properties(doc) if k not in YK_PROPERTIES]


@rule("yunikorn.property-value", YK_KINDS)
def _(doc, ctx):
    out = []
    for p, leaf, k, v in yk_properties(doc):
        if k in YK_PROPERTIES and not YK_PROPERTIES[k](v):
            out.append(f"{p}: {k} {v!r} is not a valid value (YuniKorn would "
                       "silently use the default)")
        if k == "preemption.delay" and not leaf:
            out.append(f"{p}: preemption.delay applies to leaf queues only")
    return out


@rule("yunikorn.nodesort", YK_KINDS)
def _(doc, ctx):
    out = []
    for part in yk_partitions(doc):
        ns = part.get("nodesortpolicy") or {}
        t = str(ns.get("type") or "")
        if t.lower() not in ("", "fair", "binpacking"):
            out.append(f"nodesortpolicy.type {t}: fair or binpacking")
        out += [f"nodesortpolicy.resourceweights.{k}: negative weight"
                for k, w in (ns.get("resourceweights") or {}).items() if w < 0]
    return out


def yk_limits(doc):
    """(where, limit, owning queue or None) of every limit."""
    for part in yk_partitions(doc):
        for lm in part.get("limits") or []:
            yield "partition", lm, None
        for p, q in yk_walk(yk_root(part)):
            for lm in q.get("limits") or []:
                yield p, lm, q


@rule("yunikorn.limit", YK_KINDS)
def _(doc, ctx):
    out = []
    for where, lm, q in yk_limits(doc):
        users, groups = lm.get("users") or [], lm.get("groups") or []
        w = f"{where}: limit {lm.get('limit') or ''!r}"
        if not users and not groups:
            out.append(f"{w}: empty user and group lists")
        out += [f"{w}: invalid user {u!r}" for u in users
                if u != "*" and not YK_USER.match(str(u))]
        out += [f"{w}: invalid group {g!r}" for g in groups
                if g != "*" and not YK_GROUP.match(str(g))]
        mr = lm.get("maxresources") or {}
        res = yk_res(mr)
        if mr and not any(res.values()):
            out.append(f"{w}: maxresources are all zero")
        if not mr and not lm.get("maxapplications"):
            out.append(f"{w}: neither maxresources nor maxapplications")
        if q is not None:
            qa = q.get("maxapplications") or 0
            if qa and (lm.get("maxapplications") or 0) > qa:
                out.append(f"{w}: maxapplications above the queue's")
            if q.get("name") != "root":
                for k in yk_fits(yk_resources(q)[1], res):
                    out.append(f"{w}: maxresources {k} above the queue's max")
    return out
