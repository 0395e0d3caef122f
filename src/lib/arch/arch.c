/* arch.c - transformer architectures: parameter counts, KV-cache size,
 * consistency checks, and the model zoo loaded from data/models/models.csv.
 *
 * The counting conventions are those of data/models/README.md, which the
 * zoo's own checker (data/models/check_models.py) applies independently in
 * Python; the unit tests compare the two.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpuplan/arch.h"
#include "gpuplan/catalog.h"
#include "gpuplan/csv.h"
#include "../core/embed.h"
#include "../core/strpool.h"

const char *gp_mlp_str (enum gp_mlp m)
{
    return m == GP_MLP_SWIGLU ? "swiglu" : "gelu";
}

const char *gp_attn_str (enum gp_attn a)
{
    return a == GP_ATTN_MLA ? "mla" : a == GP_ATTN_GQA ? "gqa" : "mha";
}

/* ========================== parameter counts =========================== */

/* ======================== hybrid Mamba-2 models ======================== */

int gp_arch_pattern_count (struct gp_arch *a, gp_error_t *err)
{
    a->n_ssm_layers = a->n_attn_layers = a->n_mlp_layers = 0;
    for (const char *c = a->layer_pattern; *c; c++) {
        if (*c == 'M')
            a->n_ssm_layers++;
        else if (*c == '*')
            a->n_attn_layers++;
        else if (*c == '-')
            a->n_mlp_layers++;
        else
            return gp_errprintf (err, GP_EINVAL,
                                 "%s: layer_pattern: '%c' at position %d is "
                                 "not M, * or - (MoE blocks 'E' in hybrid "
                                 "models: not yet supported)",
                                 a->id[0] ? a->id : "model", *c,
                                 (int)(c - a->layer_pattern) + 1);
    }
    return 0;
}

/* Mamba-2 mixer parameters (Megatron-Core MambaMixer, Dao & Gu 2024
 * Sec. 7): in_proj h x (2*d_in + 2*G*N + H) producing z, x, B, C, dt;
 * depthwise conv over x, B, C ((d_in + 2GN) x kernel; its bias ignored
 * like every bias); A_log, D and dt_bias (H each); the gated RMSNorm
 * (d_in); out_proj d_in x h.
 */
static double ssm_layer_params (const struct gp_arch *a)
{
    double h = a->hidden, H = a->ssm_heads, din = H * a->ssm_head_dim;
    double gn = (double)a->ssm_groups * a->ssm_state;
    return h * (2 * din + 2 * gn + H) + (din + 2 * gn) * a->ssm_conv
           + 3 * H + din + din * h;
}

/* Hybrid totals: one norm per pattern layer (pre-norm of the mixer or
 * MLP) plus the final norm; attention and MLP only on their layers.
 */
static void params_hybrid (const struct gp_arch *a,
                                    struct gp_param_count *pc)
{
    double h = a->hidden;
    pc->ssm_per_layer = ssm_layer_params (a);
    pc->ssm_layers = a->n_ssm_layers;
    pc->attn_layers = a->n_attn_layers;
    pc->dense_layers = a->n_mlp_layers;
    pc->norms = h * a->layers + h;
    pc->total = pc->embedding + a->n_attn_layers * pc->attn_per_layer
                + a->n_mlp_layers * pc->dense_mlp_per_layer
                + a->n_ssm_layers * pc->ssm_per_layer + pc->norms;
    pc->active = pc->total;
}

double gp_arch_ssm_state_elems (const struct gp_arch *a)
{
    if (!a || !a->layer_pattern[0])
        return 0.0;
    double din = (double)a->ssm_heads * a->ssm_head_dim;
    double gn = (double)a->ssm_groups * a->ssm_state;
    double conv = a->ssm_conv > 1 ? a->ssm_conv - 1 : 0;
    return a->n_ssm_layers * (din * a->ssm_state + (din + 2 * gn) * conv);
}

void gp_arch_params (const struct gp_arch *a, struct gp_param_count *pc)
{
    memset (pc, 0, sizeof *pc);
    if (!a)
        return;
    double h = a->hidden, V = a->vocab;
    pc->embedding = V * h * (a->tied_embeddings ? 1.0 : 2.0);
    if (a->learned_pos_emb)
        pc->embedding += (double)a->max_seq_len * h;

    if (a->attention == GP_ATTN_MLA) {
        double H = a->heads, ql = a->mla_q_lora_rank,
               kvl = a->mla_kv_lora_rank, nope = a->mla_qk_nope_head_dim,
               rope = a->mla_qk_rope_head_dim, vd = a->mla_v_head_dim;
        /* DeepSeek-V2 Sec. 2.1: q = W_UQ W_DQ h (+ norm of the latent),
         * kv latent W_DKV h plus decoupled rope key W_KR h, up-projections
         * W_UK, W_UV, output W_O.
         */
        double q = ql > 0 ? h * ql + ql + ql * H * (nope + rope)
                          : h * H * (nope + rope);
        double kv = h * (kvl + rope) + kvl + kvl * H * (nope + vd);
        pc->attn_per_layer = q + kv + H * vd * h;
    } else {
        double H = a->heads, K = a->kv_heads, d = a->head_dim;
        pc->attn_per_layer = h * H * d + 2.0 * h * K * d + H * d * h;
    }
    double mats = a->mlp == GP_MLP_SWIGLU ? 3.0 : 2.0;
    if (a->moe_experts > 0) {
        pc->dense_layers = a->moe_dense_layers;
        pc->moe_layers = a->layers - a->moe_dense_layers;
        pc->dense_mlp_per_layer = a->moe_dense_layers > 0
                                      ? mats * h * a->ffn_hidden
                                      : 0.0;
        double expert = mats * h * a->moe_ffn_hidden;
        double router = h * a->moe_experts;
        pc->moe_all_per_layer =
            expert * (a->moe_experts + a->moe_shared_experts) + router;
        pc->moe_active_per_layer =
            expert * (a->moe_topk + a->moe_shared_experts) + router;
    } else {
        pc->dense_layers = a->layers;
        pc->moe_layers = 0;
        pc->dense_mlp_per_layer = mats * h * a->ffn_hidden;
    }
    pc->norms = 2.0 * h * a->layers + h;
    if (a->layer_pattern[0]) {
        params_hybrid (a, pc);
        return;
    }
    double common = pc->embedding + a->layers * pc->attn_per_layer
                    + pc->norms + pc->dense_layers * pc->dense_mlp_per_layer;
    pc->total = common + pc->moe_layers * pc->moe_all_per_layer;
    pc->active = common + pc->moe_layers * pc->moe_active_per_layer;
}

double gp_arch_kv_elems_per_token (const struct gp_arch *a)
{
    if (!a)
        return 0.0;
    if (a->layer_pattern[0]) /* hybrid: only the attention layers cache */
        return 2.0 * a->n_attn_layers * a->kv_heads * a->head_dim;
    if (a->attention == GP_ATTN_MLA)
        return (double)a->layers
               * (a->mla_kv_lora_rank + a->mla_qk_rope_head_dim);
    return 2.0 * a->layers * a->kv_heads * a->head_dim;
}

int gp_arch_check (const struct gp_arch *a, gp_error_t *err)
{
    if (!a)
        return gp_errprintf (err, GP_EINVAL, "model: NULL architecture");
    const char *id = a->id[0] ? a->id : "model";
#define POS(f)                                                                \
    if (a->f <= 0)                                                            \
        return gp_errprintf (err, GP_EINVAL, "%s: '" #f "' must be positive",  \
                             id);
    POS (layers)
    POS (hidden)
    POS (heads)
    POS (kv_heads)
    POS (head_dim)
    POS (vocab)
#undef POS
    if (a->kv_heads > a->heads || a->heads % a->kv_heads != 0)
        return gp_errprintf (err, GP_EINVAL,
                             "%s: heads (%d) must be a multiple of kv_heads "
                             "(%d)",
                             id, a->heads, a->kv_heads);
    if (a->attention == GP_ATTN_MHA && a->kv_heads != a->heads)
        return gp_errprintf (err, GP_EINVAL,
                             "%s: attention mha needs kv_heads == heads", id);
    if (a->attention == GP_ATTN_GQA && a->kv_heads == a->heads)
        return gp_errprintf (err, GP_EINVAL,
                             "%s: attention gqa needs kv_heads < heads", id);
    if (a->attention == GP_ATTN_MLA) {
        if (a->mla_kv_lora_rank <= 0 || a->mla_qk_nope_head_dim <= 0
            || a->mla_qk_rope_head_dim <= 0 || a->mla_v_head_dim <= 0)
            return gp_errprintf (err, GP_EINVAL,
                                 "%s: attention mla needs mla_kv_lora_rank, "
                                 "mla_qk_nope_head_dim, mla_qk_rope_head_dim "
                                 "and mla_v_head_dim",
                                 id);
        if (a->head_dim != a->mla_qk_nope_head_dim + a->mla_qk_rope_head_dim)
            return gp_errprintf (err, GP_EINVAL,
                                 "%s: head_dim must equal qk_nope + qk_rope "
                                 "for mla",
                                 id);
    }
    if (a->moe_experts < 0 || a->moe_dense_layers < 0
        || a->moe_shared_experts < 0)
        return gp_errprintf (err, GP_EINVAL, "%s: negative MoE field", id);
    if (a->moe_experts > 0) {
        if (a->moe_topk < 1 || a->moe_topk > a->moe_experts)
            return gp_errprintf (err, GP_EINVAL,
                                 "%s: moe_topk must be in 1..moe_experts", id);
        if (a->moe_ffn_hidden <= 0)
            return gp_errprintf (err, GP_EINVAL,
                                 "%s: MoE models need moe_ffn_hidden", id);
        if (a->moe_dense_layers >= a->layers)
            return gp_errprintf (err, GP_EINVAL,
                                 "%s: moe_dense_layers must be below layers",
                                 id);
        if (a->moe_dense_layers > 0 && a->ffn_hidden <= 0)
            return gp_errprintf (err, GP_EINVAL,
                                 "%s: dense layers need ffn_hidden", id);
    } else if (a->ffn_hidden <= 0) {
        return gp_errprintf (err, GP_EINVAL,
                             "%s: 'ffn_hidden' must be positive", id);
    }
    if (a->layer_pattern[0]) {
        struct gp_arch c = *a;
        int rc = gp_arch_pattern_count (&c, err);
        if (rc)
            return rc;
        if ((int)strlen (a->layer_pattern) != a->layers)
            return gp_errprintf (err, GP_EINVAL,
                                 "%s: layer_pattern has %d layers, 'layers' "
                                 "says %d",
                                 id, (int)strlen (a->layer_pattern),
                                 a->layers);
        if (c.n_ssm_layers != a->n_ssm_layers
            || c.n_attn_layers != a->n_attn_layers
            || c.n_mlp_layers != a->n_mlp_layers)
            return gp_errprintf (err, GP_EINVAL,
                                 "%s: layer counts not those of "
                                 "layer_pattern (gp_arch_pattern_count)",
                                 id);
        if (a->ssm_state <= 0 || a->ssm_heads <= 0 || a->ssm_head_dim <= 0
            || a->ssm_groups <= 0 || a->ssm_conv <= 0 || a->ssm_chunk <= 0)
            return gp_errprintf (err, GP_EINVAL,
                                 "%s: a layer_pattern needs ssm_state, "
                                 "ssm_heads, ssm_head_dim, ssm_groups, "
                                 "ssm_conv and ssm_chunk",
                                 id);
        if (a->ssm_heads % a->ssm_groups)
            return gp_errprintf (err, GP_EINVAL,
                                 "%s: ssm_heads must be a multiple of "
                                 "ssm_groups", id);
        if (a->moe_experts > 0 || a->attention == GP_ATTN_MLA)
            return gp_errprintf (err, GP_EINVAL,
                                 "%s: hybrid models with MoE or MLA: not yet "
                                 "supported", id);
    }
    if (a->learned_pos_emb && a->max_seq_len <= 0)
        return gp_errprintf (err, GP_EINVAL,
                             "%s: learned positions need max_seq_len", id);
    return 0;
}

/* ================================ zoo ================================== */

struct gp_zoo {
    struct gp_arch *models;
    size_t n, cap;
    struct gp__strpool strings; /* sources and dates */
};

enum zcol {
    Z_ID, Z_NAME, Z_FAMILY, Z_PARAMS, Z_ACTIVE, Z_LAYERS, Z_HIDDEN, Z_FFN,
    Z_HEADS, Z_KV, Z_HEAD_DIM, Z_VOCAB, Z_MLP, Z_ATTN, Z_TIED, Z_SEQ,
    Z_EXPERTS, Z_TOPK, Z_MOE_FFN, Z_SHARED, Z_DENSE, Z_QLORA, Z_KVLORA,
    Z_NOPE, Z_ROPE, Z_VDIM, Z_SOURCE, Z_DATE, Z_NOTES,
    /* optional (a file without them describes transformers only) */
    Z_PATTERN, Z_SSM_STATE, Z_SSM_HEADS, Z_SSM_HEAD_DIM, Z_SSM_GROUPS,
    Z_SSM_CONV, Z_SSM_CHUNK,
    /* optional: chunked local attention (Llama 4) */
    Z_ATTN_CHUNK, Z_ATTN_GLOBAL, Z_NCOLS
};
#define Z_NREQ Z_PATTERN

static const char *const zcol_names[Z_NCOLS] = {
    "id", "name", "family", "params_b", "active_params_b", "layers", "hidden",
    "ffn_hidden", "heads", "kv_heads", "head_dim", "vocab", "mlp", "attention",
    "tied_embeddings", "max_seq_len", "moe_experts", "moe_topk",
    "moe_ffn_hidden", "moe_shared_experts", "moe_dense_layers",
    "mla_q_lora_rank", "mla_kv_lora_rank", "mla_qk_nope_head_dim",
    "mla_qk_rope_head_dim", "mla_v_head_dim", "source", "source_date",
    "notes", "layer_pattern", "ssm_state", "ssm_heads", "ssm_head_dim",
    "ssm_groups", "ssm_conv", "ssm_chunk", "attn_chunk_size",
    "attn_global_interval"};

struct zload {
    struct gp_zoo *zoo;
    const char *name;
    int map[Z_NCOLS];
    size_t n_header;
    int replace;
};

static int cell_int (const struct zload *L, const struct gp_csv_row *row,
                     enum zcol c, int required, int *out, gp_error_t *err)
{
    const char *s = L->map[c] >= 0 ? row->fields[L->map[c]] : "";
    if (!*s) {
        if (required)
            return gp_errprintf (err, GP_EPARSE,
                                 "%s:%zu: column '%s' must not be empty",
                                 L->name, row->line, zcol_names[c]);
        *out = 0;
        return 0;
    }
    char *end;
    errno = 0;
    long v = strtol (s, &end, 10);
    if (*end || errno || v < 0 || v > 100000000)
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: column '%s': '%s' is not a "
                             "non-negative integer",
                             L->name, row->line, zcol_names[c], s);
    *out = (int)v;
    return 0;
}

static int cell_num (const struct zload *L, const struct gp_csv_row *row,
                     enum zcol c, double *out, gp_error_t *err)
{
    const char *s = row->fields[L->map[c]];
    if (!*s) {
        *out = 0;
        return 0;
    }
    char *end;
    errno = 0;
    double v = strtod (s, &end);
    if (*end || errno || !isfinite (v) || v < 0)
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: column '%s': '%s' is not a "
                             "non-negative number",
                             L->name, row->line, zcol_names[c], s);
    *out = v;
    return 0;
}

static int copy_str (const struct zload *L, const struct gp_csv_row *row,
                     enum zcol c, char *dst, size_t size, gp_error_t *err)
{
    const char *s = L->map[c] >= 0 ? row->fields[L->map[c]] : "";
    if (strlen (s) >= size)
        return gp_errprintf (err, GP_ERANGE,
                             "%s:%zu: column '%s' is longer than %zu "
                             "characters",
                             L->name, row->line, zcol_names[c], size - 1);
    memcpy (dst, s, strlen (s) + 1);
    return 0;
}

/* The hybrid columns: pattern string and Mamba-2 mixer sizes. */
static int zoo_row_ssm (const struct zload *L, const struct gp_csv_row *row,
                        struct gp_arch *a, gp_error_t *err)
{
    int rc;
    if ((rc = copy_str (L, row, Z_PATTERN, a->layer_pattern,
                        sizeof a->layer_pattern, err))
        || (rc = cell_int (L, row, Z_SSM_STATE, 0, &a->ssm_state, err))
        || (rc = cell_int (L, row, Z_SSM_HEADS, 0, &a->ssm_heads, err))
        || (rc = cell_int (L, row, Z_SSM_HEAD_DIM, 0, &a->ssm_head_dim, err))
        || (rc = cell_int (L, row, Z_SSM_GROUPS, 0, &a->ssm_groups, err))
        || (rc = cell_int (L, row, Z_SSM_CONV, 0, &a->ssm_conv, err))
        || (rc = cell_int (L, row, Z_SSM_CHUNK, 0, &a->ssm_chunk, err)))
        return rc;
    gp_error_t e;
    if (gp_arch_pattern_count (a, &e) != 0)
        return gp_errprintf (err, GP_EPARSE, "%s:%zu: column "
                             "'layer_pattern': %s", L->name, row->line,
                             e.text);
    return 0;
}

/* The chunked-attention columns: both empty (full attention), or a chunk
 * size >= 1 and a global-layer interval between 0 (no global layer) and
 * the layer count.
 */
static int zoo_row_chunk (const struct zload *L, const struct gp_csv_row *row,
                          struct gp_arch *a, gp_error_t *err)
{
    int rc;
    if ((rc = cell_int (L, row, Z_ATTN_CHUNK, 0, &a->attn_chunk_size, err))
        || (rc = cell_int (L, row, Z_ATTN_GLOBAL, 0, &a->attn_global_interval,
                           err)))
        return rc;
    const char *cs = L->map[Z_ATTN_CHUNK] >= 0
                         ? row->fields[L->map[Z_ATTN_CHUNK]]
                         : "";
    if (*cs && a->attn_chunk_size < 1)
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: column 'attn_chunk_size': '%s' is not "
                             "a chunk of at least 1 token (leave it empty "
                             "for full attention)", L->name, row->line, cs);
    if (a->attn_global_interval > 0 && a->attn_chunk_size == 0)
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: column 'attn_global_interval': set "
                             "without attn_chunk_size", L->name, row->line);
    if (a->attn_global_interval > a->layers)
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: column 'attn_global_interval': %d is "
                             "more than the %d layers", L->name, row->line,
                             a->attn_global_interval, a->layers);
    if (a->attn_chunk_size > 0 && a->layer_pattern[0])
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: column 'attn_chunk_size': chunked "
                             "attention in hybrid (layer_pattern) models is "
                             "not yet supported", L->name, row->line);
    return 0;
}

/* The zoo's header row: every column once, the required ones present,
 * no unknown one.
 */
static int zoo_header (struct zload *L, const struct gp_csv_row *row,
                       gp_error_t *err)
{
    int hrc = gp_csv_header_unique (row, L->name, err);
    if (hrc)
        return hrc;
    for (int c = 0; c < Z_NCOLS; c++) {
        L->map[c] = gp_csv_col (row, zcol_names[c]);
        if (L->map[c] < 0 && c < Z_NREQ)
            return gp_errprintf (err, GP_EPARSE,
                                 "%s:%zu: missing column '%s'", L->name,
                                 row->line, zcol_names[c]);
    }
    for (size_t f = 0; f < row->n_fields; f++) {
        int known = 0;
        for (int c = 0; c < Z_NCOLS; c++)
            known |= L->map[c] >= 0 && (size_t)L->map[c] == f;
        if (!known)
            return gp_errprintf (err, GP_EPARSE,
                                 "%s:%zu: unknown column '%s'", L->name,
                                 row->line, row->fields[f]);
    }
    L->n_header = row->n_fields;
    return 0;
}

static int zoo_row (const struct gp_csv_row *row, void *arg, gp_error_t *err)
{
    struct zload *L = arg;
    if (row->index == 0) {
        return zoo_header (L, row, err);
    }
    if (row->n_fields != L->n_header)
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: %zu fields where the header has %zu",
                             L->name, row->line, row->n_fields, L->n_header);
    struct gp_arch a;
    memset (&a, 0, sizeof a);
    int rc;
    double pb = 0, ab = 0;
    if ((rc = copy_str (L, row, Z_ID, a.id, sizeof a.id, err))
        || (rc = copy_str (L, row, Z_NAME, a.name, sizeof a.name, err))
        || (rc = copy_str (L, row, Z_FAMILY, a.family, sizeof a.family, err))
        || (rc = cell_num (L, row, Z_PARAMS, &pb, err))
        || (rc = cell_num (L, row, Z_ACTIVE, &ab, err))
        || (rc = cell_int (L, row, Z_LAYERS, 1, &a.layers, err))
        || (rc = cell_int (L, row, Z_HIDDEN, 1, &a.hidden, err))
        || (rc = cell_int (L, row, Z_FFN, 0, &a.ffn_hidden, err))
        || (rc = cell_int (L, row, Z_HEADS, 1, &a.heads, err))
        || (rc = cell_int (L, row, Z_KV, 1, &a.kv_heads, err))
        || (rc = cell_int (L, row, Z_HEAD_DIM, 1, &a.head_dim, err))
        || (rc = cell_int (L, row, Z_VOCAB, 1, &a.vocab, err))
        || (rc = cell_int (L, row, Z_TIED, 0, &a.tied_embeddings, err))
        || (rc = cell_int (L, row, Z_SEQ, 0, &a.max_seq_len, err))
        || (rc = cell_int (L, row, Z_EXPERTS, 0, &a.moe_experts, err))
        || (rc = cell_int (L, row, Z_TOPK, 0, &a.moe_topk, err))
        || (rc = cell_int (L, row, Z_MOE_FFN, 0, &a.moe_ffn_hidden, err))
        || (rc = cell_int (L, row, Z_SHARED, 0, &a.moe_shared_experts, err))
        || (rc = cell_int (L, row, Z_DENSE, 0, &a.moe_dense_layers, err))
        || (rc = cell_int (L, row, Z_QLORA, 0, &a.mla_q_lora_rank, err))
        || (rc = cell_int (L, row, Z_KVLORA, 0, &a.mla_kv_lora_rank, err))
        || (rc = cell_int (L, row, Z_NOPE, 0, &a.mla_qk_nope_head_dim, err))
        || (rc = cell_int (L, row, Z_ROPE, 0, &a.mla_qk_rope_head_dim, err))
        || (rc = cell_int (L, row, Z_VDIM, 0, &a.mla_v_head_dim, err))
        || (rc = zoo_row_ssm (L, row, &a, err))
        || (rc = zoo_row_chunk (L, row, &a, err)))
        return rc;
    if (!a.id[0])
        return gp_errprintf (err, GP_EPARSE, "%s:%zu: column 'id' must not "
                             "be empty", L->name, row->line);
    a.params_stated = pb * 1e9;
    a.active_stated = ab * 1e9;
    const char *mlp = row->fields[L->map[Z_MLP]];
    if (!strcmp (mlp, "gelu"))
        a.mlp = GP_MLP_GELU;
    else if (!strcmp (mlp, "swiglu"))
        a.mlp = GP_MLP_SWIGLU;
    else
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: column 'mlp': '%s' is not gelu or "
                             "swiglu", L->name, row->line, mlp);
    const char *at = row->fields[L->map[Z_ATTN]];
    if (!strcmp (at, "mha"))
        a.attention = GP_ATTN_MHA;
    else if (!strcmp (at, "gqa"))
        a.attention = GP_ATTN_GQA;
    else if (!strcmp (at, "mla"))
        a.attention = GP_ATTN_MLA;
    else
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: column 'attention': '%s' is not mha, "
                             "gqa or mla", L->name, row->line, at);
    /* Learned absolute positions are flagged in the notes (the README's
     * LEARNED-POS-EMB marker): they add max_seq_len x hidden parameters.
     */
    a.learned_pos_emb =
        strstr (row->fields[L->map[Z_NOTES]], "LEARNED-POS-EMB") != NULL;
    struct gp__strpool *pool = &L->zoo->strings;
    if (!(a.source = gp__strpool_dup (pool, row->fields[L->map[Z_SOURCE]]))
        || !(a.source_date =
                 gp__strpool_dup (pool, row->fields[L->map[Z_DATE]])))
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    gp_error_t e;
    if (gp_arch_check (&a, &e) != 0)
        return gp_errprintf (err, GP_EPARSE, "%s:%zu: %s", L->name, row->line,
                             e.text);
    struct gp_zoo *z = L->zoo;
    for (size_t i = 0; i < z->n; i++)
        if (strcasecmp (z->models[i].id, a.id) == 0) {
            if (!L->replace)
                return gp_errprintf (err, GP_EPARSE,
                                     "%s:%zu: duplicate model id '%s'",
                                     L->name, row->line, a.id);
            z->models[i] = a;
            return 0;
        }
    if (z->n == z->cap) {
        size_t nc = z->cap ? 2 * z->cap : 64;
        struct gp_arch *v = realloc (z->models, nc * sizeof *v);
        if (!v)
            return gp_errprintf (err, GP_ENOMEM, "out of memory");
        z->models = v;
        z->cap = nc;
    }
    z->models[z->n++] = a;
    return 0;
}

void gp_zoo_destroy (struct gp_zoo *z)
{
    if (!z)
        return;
    int saved = errno;
    gp__strpool_free (&z->strings);
    free (z->models);
    free (z);
    errno = saved;
}

struct gp_zoo *gp_zoo_load (const char *extra_csv, gp_error_t *err)
{
    struct gp_zoo *z = calloc (1, sizeof *z);
    if (!z) {
        gp_errprintf (err, GP_ENOMEM, "out of memory");
        return NULL;
    }
    const struct gp__embedded_file *f =
        gp__embedded_find ("models/models.csv");
    if (!f) {
        gp_errprintf (err, GP_EINTERNAL, "embedded models/models.csv missing");
        goto error;
    }
    struct zload L = {.zoo = z, .name = "models/models.csv"};
    if (gp_csv_parse (f->data, f->len, L.name, ',', zoo_row, &L, err) != 0)
        goto error;
    if (extra_csv) {
        struct zload X = {.zoo = z, .name = extra_csv, .replace = 1};
        if (gp_csv_parse_file (extra_csv, ',', zoo_row, &X, err) != 0)
            goto error;
    }
    return z;
error:
    gp_zoo_destroy (z);
    return NULL;
}

size_t gp_zoo_size (const struct gp_zoo *z)
{
    return z ? z->n : 0;
}

const struct gp_arch *gp_zoo_get (const struct gp_zoo *z, size_t i)
{
    return z && i < z->n ? &z->models[i] : NULL;
}

const struct gp_arch *gp_zoo_find (const struct gp_zoo *z, const char *id,
                                   gp_error_t *err)
{
    if (!z || !id) {
        gp_errprintf (err, GP_EINVAL, "find model: NULL argument");
        return NULL;
    }
    for (size_t i = 0; i < z->n; i++)
        if (strcasecmp (z->models[i].id, id) == 0)
            return &z->models[i];
    const char **ids = calloc (z->n ? z->n : 1, sizeof *ids);
    char near[256] = "";
    size_t m = 0;
    if (ids) {
        for (size_t i = 0; i < z->n; i++)
            ids[i] = z->models[i].id;
        m = gp_closest_names (id, ids, z->n, 3, near, sizeof near);
        free (ids);
    }
    if (m)
        gp_errprintf (err, GP_ENOTFOUND, "unknown model '%s'; did you mean %s?",
                      id, near);
    else
        gp_errprintf (err, GP_ENOTFOUND,
                      "unknown model '%s' (see data/models/models.csv)", id);
    return NULL;
}
