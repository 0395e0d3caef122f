#!/usr/bin/env python3
"""Validate models.csv and recompute every model's parameter count from its dimensions.

Usage:
    python3 check_models.py [--csv PATH] [--validation FILE.csv ...] [--quiet]

Checks (any failure makes the exit status non-zero):
  * exact header, UTF-8, '\\n' line ends, unique ids, required ids present;
  * column types, enums (mlp, attention, tied_embeddings) and cross-field rules
    (MHA/GQA/MLA head counts, MoE and MLA columns present exactly when they apply);
  * recomputed total (and, for MoE rows, active) parameters within 5 % of the stated
    params_b / active_params_b, unless the row's notes contain PARAMS-MISMATCH-EXPLAINED.

With --validation, every non-empty `zoo` value of the given validation CSV files must be an id
in models.csv; architecture columns that differ from the zoo entry are listed as information
(validation rows may legitimately use other values, e.g. a padded vocabulary).

Parameter-count convention (weights only, biases ignored):
  embeddings  vocab*hidden, doubled for an untied output head (tied_embeddings=0 or empty);
              + max_seq_len*hidden when notes contain LEARNED-POS-EMB
  attention   q: hidden*heads*head_dim, k and v: hidden*kv_heads*head_dim each,
              o: heads*head_dim*hidden;
              MLA: q = hidden*q_lora + q_lora + q_lora*heads*(nope+rope) (or hidden*heads*(nope+rope)
              without q_lora), kv = hidden*(kv_lora+rope) + kv_lora + kv_lora*heads*(nope+v),
              o = heads*v*hidden
  MLP         (3 if swiglu else 2) * hidden * width
  MoE layer   (experts + shared) * MLP(moe_ffn_hidden) + router hidden*experts;
              active: (topk + shared) * MLP(moe_ffn_hidden) + router
  layers      moe_dense_layers dense layers (ffn_hidden) and layers - moe_dense_layers MoE layers
  norms       2*hidden per layer + hidden final
  hybrid      (layer_pattern set) attention on '*' layers, MLP on '-' layers, Mamba-2 mixer on
              'M' layers: hidden*(2*d_in + 2*G*N + H) + (d_in + 2*G*N)*conv + 3*H + d_in
              + d_in*hidden (d_in = ssm_heads*ssm_head_dim); one norm per pattern layer
Active parameters count the input embedding and the output head.
"""

import argparse
import csv
import os
import sys

HEADER = [
    "id", "name", "family", "params_b", "active_params_b", "layers", "hidden", "ffn_hidden",
    "heads", "kv_heads", "head_dim", "vocab", "mlp", "attention", "tied_embeddings",
    "max_seq_len", "moe_experts", "moe_topk", "moe_ffn_hidden", "moe_shared_experts",
    "moe_dense_layers", "mla_q_lora_rank", "mla_kv_lora_rank", "mla_qk_nope_head_dim",
    "mla_qk_rope_head_dim", "mla_v_head_dim", "source", "source_date", "notes",
    "layer_pattern", "ssm_state", "ssm_heads", "ssm_head_dim", "ssm_groups", "ssm_conv",
    "ssm_chunk", "attn_chunk_size", "attn_global_interval",
]

REQUIRED_IDS = [
    "gpt3-175b", "mt-nlg-530b", "llama-7b", "llama-13b", "llama-33b", "llama-65b",
    "llama2-7b", "llama2-13b", "llama2-70b", "llama3-8b", "llama3-70b", "llama3.1-8b",
    "llama3.1-70b", "llama3.1-405b", "llama3.2-1b", "llama3.2-3b", "llama3.3-70b",
    "llama4-scout", "llama4-maverick", "mixtral-8x7b", "mixtral-8x22b", "deepseek-v3",
    "qwen3-235b-a22b", "mpt-1b", "mpt-3b", "mpt-7b", "mpt-13b", "mpt-30b", "mpt-70b",
    "opt-175b", "bloom-176b", "falcon-40b", "falcon-180b", "gpt-neox-20b",
    "starcoderbase-15b", "nemotron4-340b", "palm-540b", "gopher-280b",
    # widely used open models (README, "Sources by family"): each recomputed
    # below against its published total (and, MoE, active) count
    "qwen2.5-7b", "qwen2.5-14b", "qwen2.5-32b", "qwen3-0.6b", "qwen3-1.7b",
    "qwen3-4b", "qwen3-8b", "qwen3-14b", "qwen3-32b", "qwen3-30b-a3b",
    "mistral-nemo-12b", "mistral-large-2", "phi3-medium-14b", "phi4-14b",
    "gemma2-9b", "gemma3-4b", "gemma3-12b", "gemma3-27b", "deepseek-v2-lite",
    "deepseek-v2", "kimi-k2", "olmo2-7b", "olmo2-13b", "yi1.5-34b",
]

INT_COLS = [
    "layers", "hidden", "ffn_hidden", "heads", "kv_heads", "head_dim", "vocab", "max_seq_len",
    "moe_experts", "moe_topk", "moe_ffn_hidden", "moe_shared_experts", "moe_dense_layers",
    "mla_q_lora_rank", "mla_kv_lora_rank", "mla_qk_nope_head_dim", "mla_qk_rope_head_dim",
    "mla_v_head_dim", "ssm_state", "ssm_heads", "ssm_head_dim", "ssm_groups", "ssm_conv",
    "ssm_chunk", "attn_chunk_size", "attn_global_interval",
]
SSM_COLS = ["ssm_state", "ssm_heads", "ssm_head_dim", "ssm_groups", "ssm_conv", "ssm_chunk"]
FLOAT_COLS = ["params_b", "active_params_b"]
REQUIRED_COLS = [
    "id", "name", "family", "params_b", "active_params_b", "layers", "hidden", "heads",
    "kv_heads", "head_dim", "vocab", "mlp", "attention", "max_seq_len", "moe_experts",
    "source", "source_date",
]
MOE_COLS = ["moe_topk", "moe_ffn_hidden", "moe_shared_experts", "moe_dense_layers"]
MLA_COLS = ["mla_kv_lora_rank", "mla_qk_nope_head_dim", "mla_qk_rope_head_dim", "mla_v_head_dim"]
ENUMS = {"mlp": {"gelu", "swiglu"}, "attention": {"mha", "gqa", "mla"},
         "tied_embeddings": {"0", "1", ""}}

TOLERANCE = 0.05
EXPLAINED = "PARAMS-MISMATCH-EXPLAINED"
LEARNED_POS = "LEARNED-POS-EMB"


def parse_row(raw, errors):
    """Convert numeric columns; returns a dict with ints/floats/None."""
    r = dict(raw)
    rid = raw.get("id", "?")
    for c in INT_COLS:
        v = raw[c].strip()
        if v == "":
            r[c] = None
            continue
        try:
            r[c] = int(v)
        except ValueError:
            errors.append(f"{rid}: {c}={v!r} is not an integer")
            r[c] = None
            continue
        if r[c] < 0:
            errors.append(f"{rid}: {c} is negative")
    for c in FLOAT_COLS:
        v = raw[c].strip()
        if v == "":
            r[c] = None
            continue
        try:
            r[c] = float(v)
        except ValueError:
            errors.append(f"{rid}: {c}={v!r} is not a number")
            r[c] = None
            continue
        if r[c] <= 0:
            errors.append(f"{rid}: {c} must be positive")
    return r


def validate_row(raw, r, errors):
    rid = raw["id"]
    for c in REQUIRED_COLS:
        if raw[c].strip() == "":
            errors.append(f"{rid}: required column {c} is empty")
    for c, allowed in ENUMS.items():
        if raw[c] not in allowed:
            errors.append(f"{rid}: {c}={raw[c]!r} not in {sorted(allowed)}")
    for c in HEADER:
        if raw[c] != raw[c].strip():
            errors.append(f"{rid}: {c} has leading/trailing whitespace")
    heads, kv = r["heads"], r["kv_heads"]
    att = raw["attention"]
    if heads and kv:
        if att == "mha" and kv != heads:
            errors.append(f"{rid}: attention mha but kv_heads {kv} != heads {heads}")
        if att == "gqa" and not (kv < heads and heads % kv == 0):
            errors.append(f"{rid}: attention gqa needs kv_heads < heads and heads % kv_heads == 0")
    mla_set = [c for c in MLA_COLS + ["mla_q_lora_rank"] if r[c] is not None]
    if att == "mla":
        for c in MLA_COLS:
            if r[c] is None:
                errors.append(f"{rid}: MLA row needs {c}")
        if r["mla_qk_nope_head_dim"] and r["mla_qk_rope_head_dim"] and r["head_dim"] is not None:
            if r["head_dim"] != r["mla_qk_nope_head_dim"] + r["mla_qk_rope_head_dim"]:
                errors.append(f"{rid}: MLA head_dim must equal qk_nope + qk_rope")
    elif mla_set:
        errors.append(f"{rid}: MLA columns {mla_set} set on a non-MLA row")
    pat = raw["layer_pattern"]
    if pat:
        if set(pat) - set("M*-"):
            errors.append(f"{rid}: layer_pattern may only hold M, * and -")
        if r["layers"] is not None and len(pat) != r["layers"]:
            errors.append(f"{rid}: layer_pattern length {len(pat)} != layers {r['layers']}")
        for c in SSM_COLS:
            if not r[c]:
                errors.append(f"{rid}: hybrid row needs {c}")
        if r["ssm_heads"] and r["ssm_groups"] and r["ssm_heads"] % r["ssm_groups"]:
            errors.append(f"{rid}: ssm_heads must be a multiple of ssm_groups")
    elif [c for c in SSM_COLS if r[c] is not None]:
        errors.append(f"{rid}: ssm columns set without a layer_pattern")
    experts = r["moe_experts"]
    if experts is None:
        return
    if experts == 0:
        for c in MOE_COLS:
            if r[c] not in (None, 0):
                errors.append(f"{rid}: dense row has {c}={r[c]}")
        if r["ffn_hidden"] is None:
            errors.append(f"{rid}: dense row needs ffn_hidden")
        if r["params_b"] is not None and r["active_params_b"] is not None \
                and abs(r["params_b"] - r["active_params_b"]) > 1e-9:
            errors.append(f"{rid}: dense row needs active_params_b == params_b")
    else:
        for c in MOE_COLS:
            if r[c] is None:
                errors.append(f"{rid}: MoE row needs {c}")
        if r["moe_topk"] is not None and not (1 <= r["moe_topk"] <= experts):
            errors.append(f"{rid}: moe_topk out of range")
        nd = r["moe_dense_layers"]
        if nd is not None and r["layers"] is not None:
            if nd >= r["layers"]:
                errors.append(f"{rid}: moe_dense_layers must be < layers")
            if nd > 0 and r["ffn_hidden"] is None:
                errors.append(f"{rid}: moe_dense_layers > 0 needs ffn_hidden")
            if nd == 0 and r["ffn_hidden"] is not None:
                errors.append(f"{rid}: ffn_hidden set but no dense layers (leave it empty)")
        if r["params_b"] is not None and r["active_params_b"] is not None \
                and r["active_params_b"] >= r["params_b"]:
            errors.append(f"{rid}: MoE active_params_b must be below params_b")


def count_params(raw, r):
    """Return (total, active) parameter counts from the dimensions."""
    h, L, V = r["hidden"], r["layers"], r["vocab"]
    tied = raw["tied_embeddings"] == "1"
    emb = V * h * (1 if tied else 2)
    if LEARNED_POS in raw["notes"]:
        emb += r["max_seq_len"] * h
    heads, kv, hd = r["heads"], r["kv_heads"], r["head_dim"]
    if raw["attention"] == "mla":
        ql, kvl = r["mla_q_lora_rank"], r["mla_kv_lora_rank"]
        nope, rope, vd = (r["mla_qk_nope_head_dim"], r["mla_qk_rope_head_dim"],
                          r["mla_v_head_dim"])
        q = (h * ql + ql + ql * heads * (nope + rope)) if ql else h * heads * (nope + rope)
        kvp = h * (kvl + rope) + kvl + kvl * heads * (nope + vd)
        attn = q + kvp + heads * vd * h
    else:
        attn = h * heads * hd + 2 * h * kv * hd + heads * hd * h
    mats = 3 if raw["mlp"] == "swiglu" else 2
    norms = 2 * h
    experts = r["moe_experts"] or 0
    pat = raw["layer_pattern"]
    if pat:
        # hybrid Mamba-2/attention: one pre-norm per pattern layer; Mamba-2 mixer =
        # in_proj h*(2*d_in + 2*G*N + H) + conv (d_in + 2*G*N)*kernel + A, D, dt_bias
        # + gated norm d_in + out_proj d_in*h, with d_in = ssm_heads * ssm_head_dim
        H, N, G = r["ssm_heads"], r["ssm_state"], r["ssm_groups"]
        din = H * r["ssm_head_dim"]
        ssm = (h * (2 * din + 2 * G * N + H) + (din + 2 * G * N) * r["ssm_conv"]
               + 3 * H + din + din * h)
        total = (emb + pat.count("*") * attn + pat.count("-") * mats * h * r["ffn_hidden"]
                 + pat.count("M") * ssm + h * len(pat) + h)
        return total, total
    if experts == 0:
        mlp = mats * h * r["ffn_hidden"]
        total = emb + L * (attn + norms + mlp) + h
        return total, total
    nd = r["moe_dense_layers"] or 0
    nm = L - nd
    expert = mats * h * r["moe_ffn_hidden"]
    shared = r["moe_shared_experts"] or 0
    router = h * experts
    dense_mlp = mats * h * r["ffn_hidden"] if nd else 0
    base = emb + L * (attn + norms) + nd * dense_mlp + h
    total = base + nm * ((experts + shared) * expert + router)
    active = base + nm * ((r["moe_topk"] + shared) * expert + router)
    return total, active


def check_file_bytes(path, errors):
    with open(path, "rb") as f:
        data = f.read()
    if b"\r" in data:
        errors.append("file contains '\\r' (line ends must be '\\n')")
    if data.startswith(b"\xef\xbb\xbf"):
        errors.append("file starts with a UTF-8 BOM")
    if not data.endswith(b"\n"):
        errors.append("file does not end with '\\n'")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        errors.append(f"file is not UTF-8: {e}")


def cross_check(models, paths, errors):
    cols = ["layers", "hidden", "ffn_hidden", "heads", "kv_heads", "head_dim", "vocab",
            "mlp", "attention", "moe_experts", "moe_topk", "moe_ffn_hidden",
            "moe_shared_experts"]
    for path in paths:
        with open(path, encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
        seen = set()
        for row in rows:
            zoo = (row.get("zoo") or "").strip()
            if not zoo:
                continue
            if zoo not in models:
                errors.append(f"{os.path.basename(path)} row {row.get('id')}: zoo {zoo!r} not in models.csv")
                continue
            m = models[zoo]
            diffs = []
            for c in cols:
                if c not in row or row[c].strip() == "":
                    continue
                a, b = row[c].strip(), (m[c] or "").strip()
                if c == "moe_experts" and a in ("0", "") and b in ("0", ""):
                    continue
                if a != b:
                    diffs.append(f"{c} {a} vs {b}")
            key = (zoo, tuple(diffs))
            if diffs and key not in seen:
                seen.add(key)
                print(f"  info {os.path.basename(path)} {row.get('id')} ({zoo}): " + "; ".join(diffs))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csv", default=os.path.join(here, "models.csv"))
    ap.add_argument("--validation", nargs="*", default=[],
                    help="validation CSV files whose zoo column must name models.csv ids")
    ap.add_argument("--quiet", action="store_true", help="print only problems and the summary")
    args = ap.parse_args()

    errors = []
    check_file_bytes(args.csv, errors)
    with open(args.csv, encoding="utf-8", newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        body = list(reader)
    if header != HEADER:
        errors.append(f"header mismatch:\n  got      {header}\n  expected {HEADER}")
        for e in errors:
            print("ERROR", e)
        return 1
    raws = []
    for i, cells in enumerate(body, start=2):
        if len(cells) != len(HEADER):
            errors.append(f"line {i}: {len(cells)} fields, expected {len(HEADER)}")
            continue
        raws.append(dict(zip(HEADER, cells)))

    ids = [r["id"] for r in raws]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        errors.append(f"duplicate ids: {dup}")
    missing = [i for i in REQUIRED_IDS if i not in ids]
    if missing:
        errors.append(f"required ids missing: {missing}")

    models = {}
    mismatches = 0
    explained = 0
    lines = []
    for raw in raws:
        r = parse_row(raw, errors)
        validate_row(raw, r, errors)
        models[raw["id"]] = raw
        try:
            total, active = count_params(raw, r)
        except TypeError:
            errors.append(f"{raw['id']}: cannot count parameters (missing dimensions)")
            continue
        stated, stated_act = r["params_b"], r["active_params_b"]
        dt = total / 1e9 / stated - 1
        is_moe = (r["moe_experts"] or 0) > 0
        da = active / 1e9 / stated_act - 1 if is_moe else 0.0
        bad = abs(dt) > TOLERANCE or abs(da) > TOLERANCE
        flag = "ok"
        if bad:
            if EXPLAINED in raw["notes"]:
                flag = "explained"
                explained += 1
            else:
                flag = "MISMATCH"
                mismatches += 1
                errors.append(f"{raw['id']}: computed {total / 1e9:.2f}B / {active / 1e9:.2f}B "
                              f"vs stated {stated}B / {stated_act}B (> {TOLERANCE:.0%})")
        elif abs(dt) > 0.03 or abs(da) > 0.03:
            flag = "ok (>3%)"
        act = f"{active / 1e9:9.2f} {stated_act:9.2f} {da:+7.1%}" if is_moe else f"{'':9} {'':9} {'':7}"
        lines.append(f"{raw['id']:<18} {total / 1e9:10.2f} {stated:10.2f} {dt:+7.1%}  {act}  {flag}")

    if not args.quiet:
        print(f"{'id':<18} {'computed':>10} {'stated':>10} {'diff':>7}  "
              f"{'act.comp':>9} {'act.stat':>9} {'diff':>7}  status")
        for ln in lines:
            print(ln)
    if args.validation:
        cross_check(models, args.validation, errors)
    for e in errors:
        print("ERROR", e)
    print(f"{len(raws)} rows, {mismatches} unexplained mismatches, {explained} explained, "
          f"{len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
