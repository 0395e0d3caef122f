/* fit.c - honest fitting: how many constants of the training model were
 * set on the validation rows, per source family, and the
 * leave-one-source-out error of the one fit that can be re-run (the GEMM
 * ceiling per generation, validation/training/calibrate.py's procedure).
 * docs/model/training.md, "Honest fitting".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate_private.h"

/* Efficiency factors of one generation (struct gp_train_eff). */
#define FACTORS_PER_GENERATION 8

/* The constants set after looking at the validation rows
 * (docs/model/training.md, "Calibration"), with the rows they act on:
 * a generation, "*" (every modelled row), "zero3", "unfused", "fp8" or
 * "moe".
 */
static const struct {
    const char *scope;
    const char *name;
} fitted[] = {
    {"ampere", "gemm_max (0.86 -> 0.72)"},
    {"hopper", "gemm_max (0.80 -> 0.72)"},
    {"blackwell", "gemm_max (0.68)"},
    {"*", "gemm_dim_half (64/96 -> 128)"},
    {"*", "memory-bound passes (2 -> 3)"},
    {"hopper", "attn (0.45 -> 0.35)"},
    {"hopper", "attention kernel split: cuDNN fused attention 0.53 where Transformer Engine runs (FlashAttention-3 paper figures; added after the dgxc residuals)"},
    {"zero3", "ZeRO-3 overlap (70 %)"},
    {"unfused", "unfused attention for A100 fp16 stacks"},
    {"fp8", "FP8 cast kernels"},
    {"fp8", "FP8 precision terms (attention at the BF16 peak, weight cast once per step, 5 B current-scaling cast)"},
    {"moe", "MoE host time per eager operator (31 us; set on the MXFP8 DGX B200 run of Megatron-Bridge PR #1760, not a validation row)"},
    {"moe", "a2a-overlap schedule host time (1.6 ms per MoE layer and micro-batch; set on the BF16 DGX B200 pair of Megatron-Bridge PR #1760, not a validation row)"},
    /* TPU factors: both values are read from their sources, but were
     * chosen with the TPU rows' residuals known (docs/model/training.md,
     * "Efficiency factors"), so they are listed */
    {"tpu", "gemm_max (0.60 -> 0.92; XLA bf16 matmul 8192^3 on TPU v5e, JAX Pallas TPU matmul guide; maxtext/mxtier residuals known)"},
    {"tpu", "int8 gemm_eff (1 -> 0.65; AQT 1.2-1.4x step-time reduction, google/aqt README; the MLPerf v4.0 GPT-3 v5p residual known)"},
    /* serving model (docs/model/inference.md, "Host work and front end"
     * and "Engines and vendor stacks"): scope "serving:" and an engine
     * stack (gp_infer_val_row.stack) or a generation; it never matches a
     * training row (gp__val_serving_fitted counts them per family) */
    {"serving:vllm/rocm", "vLLM ROCm GEMM factor (0.6)"},
    {"serving:vllm/cuda", "vLLM host time per step (+1.1 ms)"},
    {"serving:vllm/cuda", "vLLM front-end latency per request (7 ms)"},
    {"serving:vllm/cuda", "vLLM front-end work per streamed token (19 us; derived from one published run, vllm-project/vllm pull request #17546, no validation row)"},
    {"serving:blackwell", "expert weight streaming efficiency infer_moe (0.5 -> 1.0; B200 rows of serving-heldout-2026.csv, GB200 held out)"},
};

static int in_scope (const char *scope, const struct gp_val_row *r)
{
    if (!strcmp (scope, "*"))
        return 1;
    if (!strcmp (scope, "zero3"))
        return r->zero3;
    if (!strcmp (scope, "unfused"))
        return r->unfused_attn;
    if (!strcmp (scope, "fp8"))
        return r->fp8;
    if (!strcmp (scope, "moe"))
        return r->moe;
    return !strcmp (scope, r->generation);
}

void gp__val_family_of (const char *id, char *out, size_t n)
{
    size_t i = 0;
    while (id[i] && id[i] != '-' && i + 1 < n) {
        out[i] = id[i];
        i++;
    }
    out[i] = 0;
}

long gp__val_family_add (struct gp_val_summary **by, size_t *n, size_t *cap,
                         const char *id)
{
    char fam[32];
    gp__val_family_of (id, fam, sizeof fam);
    for (size_t f = 0; f < *n; f++)
        if (!strcmp ((*by)[f].name, fam))
            return (long)f;
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 16;
        struct gp_val_summary *p = realloc (*by, nc * sizeof *p);
        if (!p)
            return -1;
        *by = p;
        *cap = nc;
    }
    struct gp_val_summary *x = &(*by)[*n];
    memset (x, 0, sizeof *x);
    snprintf (x->name, sizeof x->name, "%s", fam);
    return (long)(*n)++;
}

/* Index in v->by_family of row i's family (always found). */
static size_t fam_index (const struct gp_validation *v, size_t i)
{
    char fam[32];
    gp__val_family_of (v->rows[i].id, fam, sizeof fam);
    for (size_t f = 0; f < v->n_families; f++)
        if (!strcmp (v->by_family[f].name, fam))
            return f;
    return 0;
}

int gp__val_fit_counts (struct gp_validation *v)
{
    enum { NF = sizeof fitted / sizeof *fitted, NG = 16 };
    v->fit = calloc (v->n_families ? v->n_families : 1, sizeof *v->fit);
    if (!v->fit)
        return -1;
    for (size_t f = 0; f < v->n_families; f++) {
        int used[NF] = {0};
        const char *gens[NG];
        int n_gens = 0;
        for (size_t i = 0; i < v->n_rows; i++) {
            const struct gp_val_row *r = &v->rows[i];
            if (!r->ok || fam_index (v, i) != f)
                continue;
            for (int k = 0; k < NF; k++)
                used[k] |= in_scope (fitted[k].scope, r);
            int seen = !r->generation[0];
            for (int g = 0; g < n_gens && !seen; g++)
                seen = !strcmp (gens[g], r->generation);
            if (!seen && n_gens < NG)
                gens[n_gens++] = r->generation;
        }
        v->fit[f].factors = FACTORS_PER_GENERATION * n_gens;
        for (int k = 0; k < NF; k++)
            v->fit[f].fitted += used[k];
    }
    return 0;
}

double gp__val_grid (size_t g)
{
    return 0.55 + 0.01 * (double)g;
}

/* The grid index whose GEMM ceiling gives the lowest median |error| over
 * the modelled rows of kind 'kind' and generation 'gen' outside family
 * 'skip' (the smaller ceiling on a tie); -1 when no such row exists.
 */
static long best_grid (const struct gp_validation *v, const size_t *fam,
                       size_t skip, const char *gen, const double *err,
                       const unsigned char *ok, struct val_acc *acc,
                       enum gp_val_kind kind)
{
    size_t n = v->n_rows;
    long best = -1;
    double best_med = 0;
    for (size_t g = 0; g < GP__VAL_GRID_N; g++) {
        acc->n_ok = acc->n_all = 0;
        for (size_t i = 0; i < n; i++) {
            const struct gp_val_row *r = &v->rows[i];
            if (fam[i] != skip && r->kind == kind
                && !strcmp (r->generation, gen))
                gp__val_acc_add (acc, ok[g * n + i], err[g * n + i]);
        }
        if (!acc->n_ok)
            continue;
        struct gp_val_summary s;
        gp__val_acc_summary (acc, "", &s);
        if (best < 0 || s.median_abs_rel_err < best_med) {
            best = (long)g;
            best_med = s.median_abs_rel_err;
        }
    }
    return best;
}

/* Row i held out: its error at the ceiling refitted without its family
 * on the other families' throughput rows of its generation, or, when
 * there are none, on their campaign rows of its generation (a file of
 * campaign or time-to-train rows only); the shipped prediction when its
 * generation has no other rows at all.  Returns 1 when refitted.
 */
static int held_out (const struct gp_validation *v, const size_t *fam,
                     size_t i, const double *err, const unsigned char *ok,
                     struct val_acc *scratch, struct val_acc *into,
                     struct val_acc *all)
{
    size_t n = v->n_rows;
    const struct gp_val_row *r = &v->rows[i];
    long g = r->generation[0]
                 ? best_grid (v, fam, fam[i], r->generation, err, ok,
                              scratch, GP_VAL_THROUGHPUT)
                 : -1;
    if (g < 0 && r->generation[0])
        g = best_grid (v, fam, fam[i], r->generation, err, ok, scratch,
                       GP_VAL_CAMPAIGN);
    int k = g < 0 ? r->ok : ok[(size_t)g * n + i];
    double e = g < 0 ? r->rel_err : err[(size_t)g * n + i];
    gp__val_acc_add (into, k, e);
    gp__val_acc_add (all, k, e);
    return g >= 0;
}

int gp__val_loso (struct gp_validation *v, const double *err,
                  const unsigned char *ok)
{
    size_t n = v->n_rows;
    size_t *fam = calloc (n ? n : 1, sizeof *fam);
    struct val_acc scratch, one, all;
    int rc = -1;
    int a = gp__val_acc_init (&scratch, n), b = gp__val_acc_init (&one, n),
        c = gp__val_acc_init (&all, n);
    if (!fam || a || b || c)
        goto done;
    for (size_t i = 0; i < n; i++)
        fam[i] = fam_index (v, i);
    for (size_t f = 0; f < v->n_families; f++) {
        one.n_ok = one.n_all = 0;
        struct gp_val_family_fit *ff = &v->fit[f];
        ff->loso_refit = 0;
        for (size_t i = 0; i < n; i++)
            if (fam[i] == f)
                ff->loso_refit += held_out (v, fam, i, err, ok, &scratch,
                                            &one, &all)
                                  && v->rows[i].ok;
        gp__val_acc_summary (&one, v->by_family[f].name, &ff->loso);
        ff->have_loso = ff->loso.n_ok && v->by_family[f].n_ok;
        if (ff->have_loso) {
            ff->gap = ff->loso.median_abs_rel_err
                      - v->by_family[f].median_abs_rel_err;
            ff->gap_flag = ff->gap > GP_VAL_GAP_FLAG;
        }
    }
    gp__val_acc_summary (&all, "all", &v->loso_all);
    v->have_loso = 1;
    rc = 0;
done:
    gp__val_acc_free (&scratch);
    gp__val_acc_free (&one);
    gp__val_acc_free (&all);
    free (fam);
    return rc;
}

int gp__val_serving_fitted (const char *stack, const char *generation)
{
    static const char pre[] = "serving:";
    int n = 0;
    for (size_t k = 0; k < sizeof fitted / sizeof *fitted; k++) {
        const char *sc = fitted[k].scope;
        if (strncmp (sc, pre, sizeof pre - 1))
            continue;
        sc += sizeof pre - 1;
        n += (stack[0] && !strcmp (sc, stack))
             || (generation[0] && !strcmp (sc, generation));
    }
    return n;
}
