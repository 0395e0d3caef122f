/* training.c - the training validation: predict published training
 * measurements row by row ('gpuplan validate training FILE.csv').
 *
 * Each row is predicted from its own columns plus the catalog and the model
 * zoo.  Blank layout fields are chosen by the layout search (the fastest
 * layout that fits, with the row's fixed fields held); blank architecture
 * fields get the documented defaults of docs/model/training.md
 * ("Validation").  Rows that cannot be modelled are kept with the reason,
 * never dropped.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpuplan/csv.h"
#include "gpuplan/train.h"
#include "gpuplan/validate.h"
#include "validate_private.h"
#include "../model/train_private.h"

/* ============================ reading rows ============================= */

enum {
    C_ID, C_KIND, C_ZOO, C_LAYERS, C_HIDDEN, C_FFN, C_HEADS, C_KV, C_VOCAB,
    C_MLP, C_MOE_E, C_MOE_K, C_MOE_F, C_MOE_S, C_SEQ, C_GPU, C_NGPU, C_GPN,
    C_TP, C_PP, C_DP, C_CP, C_EP, C_VPP, C_SHARD, C_RECOMP, C_MB, C_GB,
    C_PREC, C_TOKENS, C_MEAS_TPS, C_MEAS_GPUH, C_HEAD_DIM, C_SCHED,
    C_MEASURE, C_MVALUE, C_FLOPCONV,
    C_TPOVL, /* optional: tp_comm_overlap (0/1) */
    C_DAYS, /* optional: campaign deadline in days (row_gpus_open) */
    C_EVAL, C_METHOD,
    C_MOE_IMB, C_MOE_SHOV, C_GRAPHS, C_DISP,
    C_FT, C_LRANK, /* optional: finetune, lora_rank (row_lora) */
    C_OVSUB, C_NIC, /* optional: oversubscription, nic_gbps (row_fabric) */
    C_MOE_G, C_MOE_GK, /* optional: moe_groups, moe_group_topk */
    C_REMAT_OFF, C_LOGITS, /* optional: remat_offload, logits (row_job) */
    C_WDTYPE, /* optional: weight_dtype (row_job) */
    C_ATTN_K, /* optional: attn_kernel (row_job) */
    C_GRAD_RED, /* optional: grad_reduce (row_job) */
    C_N
};

static const char *const col_names[C_N] = {
    "id", "kind", "zoo", "layers", "hidden", "ffn_hidden", "heads",
    "kv_heads", "vocab", "mlp", "moe_experts", "moe_topk", "moe_ffn_hidden",
    "moe_shared_experts", "seq_len", "gpu", "num_gpus", "gpus_per_node", "tp",
    "pp", "dp", "cp", "ep", "vpp", "sharding", "recompute", "micro_batch",
    "global_batch", "precision", "tokens", "measured_tokens_per_s_per_gpu",
    "measured_gpu_hours", "head_dim", "pp_schedule", "measure",
    "measured_value", "flop_convention",
    "tp_comm_overlap",
    "days",
    "eval_tokens", "method",
    "moe_imbalance", "moe_shared_overlap", "cuda_graphs", "moe_dispatcher",
    "finetune", "lora_rank",
    "oversubscription", "nic_gbps",
    "moe_groups", "moe_group_topk",
    "remat_offload", "logits",
    "weight_dtype",
    "attn_kernel",
    "grad_reduce",
};

/* Columns a file may leave out (docs/formats/train.md). */
static int optional_col (int i)
{
    return i == C_ZOO || i == C_HEAD_DIM || i == C_SCHED || i == C_MEASURE
           || i == C_MVALUE || i == C_FLOPCONV || i == C_TPOVL
           || i == C_DAYS
           || i == C_EVAL || i == C_METHOD || i == C_MOE_IMB
           || i == C_MOE_SHOV || i == C_GRAPHS || i == C_DISP
           || i == C_FT || i == C_LRANK
           || i == C_OVSUB || i == C_NIC
           || i == C_MOE_G || i == C_MOE_GK
           || i == C_REMAT_OFF || i == C_LOGITS || i == C_WDTYPE
           || i == C_ATTN_K || i == C_GRAD_RED;
}

struct vrow {
    size_t line;
    char *f[C_N];
};

struct vfile {
    const char *path;
    int col[C_N];
    struct vrow *rows;
    size_t n, cap;
};

static int fabric_cells_check (const struct vfile *v, const struct vrow *r,
                               gp_error_t *err);
static int memory_cells_check (const struct vfile *v, const struct vrow *r,
                               gp_error_t *err);

static int on_row (const struct gp_csv_row *row, void *arg, gp_error_t *err)
{
    struct vfile *v = arg;
    if (row->index == 0) {
        int hrc = gp_csv_header_unique (row, v->path, err);
        if (hrc)
            return hrc;
        for (int i = 0; i < C_N; i++) {
            v->col[i] = gp_csv_col (row, col_names[i]);
            if (v->col[i] < 0 && !optional_col (i))
                return gp_errprintf (err, GP_EPARSE,
                                     "%s:%zu: missing column '%s'", v->path,
                                     row->line, col_names[i]);
        }
        return 0;
    }
    if (v->n == v->cap) {
        size_t nc = v->cap ? 2 * v->cap : 64;
        struct vrow *nr = realloc (v->rows, nc * sizeof *nr);
        if (!nr)
            return gp_errprintf (err, GP_ENOMEM, "out of memory");
        v->rows = nr;
        v->cap = nc;
    }
    struct vrow *r = &v->rows[v->n++];
    memset (r, 0, sizeof *r);
    r->line = row->line;
    for (int i = 0; i < C_N; i++) {
        int c = v->col[i];
        const char *s = c >= 0 && (size_t)c < row->n_fields ? row->fields[c]
                                                           : "";
        r->f[i] = strdup (s);
        if (!r->f[i])
            return gp_errprintf (err, GP_ENOMEM, "out of memory");
    }
    int rc = fabric_cells_check (v, r, err);
    return rc ? rc : memory_cells_check (v, r, err);
}

static void vfile_free (struct vfile *v)
{
    for (size_t i = 0; i < v->n; i++)
        for (int j = 0; j < C_N; j++)
            free (v->rows[i].f[j]);
    free (v->rows);
}

/* A numeric cell: 1 and '*out' when present and valid, 0 when blank,
 * -1 when malformed.
 */
static int num (const char *s, double *out)
{
    if (!s || !*s)
        return 0;
    char *end;
    double v = strtod (s, &end);
    if (end == s || *end || !isfinite (v))
        return -1;
    *out = v;
    return 1;
}

static int inum (const struct vrow *r, int c, int dflt)
{
    double v;
    return num (r->f[c], &v) == 1 ? (int)v : dflt;
}

/* ========================= efficiency overrides ======================== */

static const char *const eff_keys[] = {"gemm_max", "gemm_dim_half", "attn",
                                       "hbm", "scale_up", "scale_out",
                                       "kernel_s", "attn_cudnn"};

int gp_eff_override_parse (const char *arg, struct gp_eff_override *o,
                           gp_error_t *err)
{
    if (!arg || !o)
        return gp_errprintf (err, GP_EINVAL, "efficiency override: NULL "
                                             "argument");
    const char *dot = strchr (arg, '.'), *eq = strchr (arg, '=');
    struct gp_eff_override e;
    memset (&e, 0, sizeof e);
    if (!dot || !eq || eq < dot || (size_t)(dot - arg) >= sizeof e.generation
        || (size_t)(eq - dot - 1) >= 24)
        goto bad;
    snprintf (e.generation, sizeof e.generation, "%.*s", (int)(dot - arg),
              arg);
    char key[24];
    snprintf (key, sizeof key, "%.*s", (int)(eq - dot - 1), dot + 1);
    char *end;
    e.value = strtod (eq + 1, &end);
    if (end == eq + 1 || *end || !(e.value > 0))
        goto bad;
    for (int i = 0; i < (int)(sizeof eff_keys / sizeof *eff_keys); i++)
        if (!strcmp (key, eff_keys[i])) {
            e.key = (enum gp_eff_key)i;
            *o = e;
            return 0;
        }
bad:
    return gp_errprintf (err, GP_EINVAL,
                         "bad efficiency override '%s' (GEN.KEY=VALUE, GEN "
                         "ampere|hopper|blackwell|cdna3|other|all, KEY "
                         "gemm_max|gemm_dim_half|attn|hbm|scale_up|"
                         "scale_out|kernel_s|attn_cudnn)", arg);
}

static void apply_overrides (const struct gp_validate_request *rq,
                             struct gp_train_eff *f)
{
    for (size_t i = 0; i < rq->n_overrides; i++) {
        const struct gp_eff_override *e = &rq->overrides[i];
        if (strcmp (e->generation, f->generation)
            && strcmp (e->generation, "all"))
            continue;
        switch (e->key) {
        case GP_EFF_GEMM_MAX: f->gemm_max = e->value; break;
        case GP_EFF_GEMM_DIM_HALF: f->gemm_dim_half = e->value; break;
        case GP_EFF_ATTN: f->attn = e->value; break;
        case GP_EFF_HBM: f->hbm = e->value; break;
        case GP_EFF_SCALE_UP: f->scale_up = e->value; break;
        case GP_EFF_SCALE_OUT: f->scale_out = e->value; break;
        case GP_EFF_KERNEL_S: f->kernel_s = e->value; break;
        case GP_EFF_ATTN_CUDNN: f->attn_cudnn = e->value; break;
        }
    }
}

/* ============================= predicting ============================== */

static void layout_str (const struct gp_layout *l, char *b, size_t n)
{
    snprintf (b, n,
              "tp%d pp%d dp%d cp%d ep%d vpp%d mb%d%s recompute=%s "
              "sharding=%s%s%s",
              l->tp, l->pp, l->dp, l->cp, l->ep, l->vpp, l->micro_batch,
              l->seq_par ? " sp" : "",
              gp_recompute_fmt (l, 0, (char[24]){0}, 24),
              gp_sharding_str (l->sharding),
              l->schedule != GP_SCHED_1F1B ? " " : "",
              l->schedule != GP_SCHED_1F1B ? gp_schedule_str (l->schedule)
                                           : "");
    /* CPU activation offload (appended only when used) */
    size_t k = strlen (b);
    if (l->offload_layers > 0 && k < n)
        snprintf (b + k, n - k, " offload=%d", l->offload_layers);
}

static int enum_of (const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcasecmp (s, names[i]))
            return i;
    return -2;
}

/* Partial (block) recomputation in the recompute column: "full:N", N
 * layers recomputed per (virtual) pipeline chunk (Megatron
 * --recompute-method block --recompute-num-layers N).  Returns 0 with
 * GP_RECOMP_FULL and N, -1 when 's' is not of that form or N < 1.
 */
static int recomp_block (const char *s, int *rec, int *layers)
{
    if (strncasecmp (s, "full:", 5))
        return -1;
    char *end;
    long n = strtol (s + 5, &end, 10);
    if (end == s + 5 || *end || n < 1 || n > 100000)
        return -1;
    *rec = GP_RECOMP_FULL;
    *layers = (int)n;
    return 0;
}

/* A precision below 16 bit (FP8 of any scaling, FP4, INT8): the rows the
 * low-precision terms act on (fit.c scope "fp8") and whose frozen LoRA
 * weights are kept at 1 byte.
 */
static int low_prec (enum gp_precision p)
{
    return p != GP_PREC_BF16 && p != GP_PREC_FP16;
}

/* Mark 'o' unsupported with a reason; returns -1 for 'return unsup()'. */
static int unsup (struct gp_val_row *o, const char *fmt, const char *what)
{
    o->ok = 0;
    snprintf (o->reason, sizeof o->reason, fmt, what);
    return -1;
}

/* The architecture: zoo entry, then the row's columns, then the documented
 * defaults for blank cells.  Returns 0, or -1 with 'o' unsupported.
 */
static int row_arch (const struct vrow *r, const struct gp_zoo *zoo,
                     struct gp_arch *a, struct gp_val_row *o)
{
    memset (a, 0, sizeof *a);
    const struct gp_arch *z = NULL;
    if (zoo && r->f[C_ZOO][0])
        z = gp_zoo_find (zoo, r->f[C_ZOO], NULL);
    if (z)
        *a = *z;
    else
        snprintf (a->id, sizeof a->id, "custom");
    int zh = a->heads;
    a->layers = inum (r, C_LAYERS, a->layers);
    a->hidden = inum (r, C_HIDDEN, a->hidden);
    a->ffn_hidden = inum (r, C_FFN, a->ffn_hidden);
    a->heads = inum (r, C_HEADS, a->heads);
    a->kv_heads = inum (r, C_KV, a->kv_heads);
    a->vocab = inum (r, C_VOCAB, a->vocab);
    a->moe_experts = inum (r, C_MOE_E, a->moe_experts);
    a->moe_topk = inum (r, C_MOE_K, a->moe_topk);
    a->moe_ffn_hidden = inum (r, C_MOE_F, a->moe_ffn_hidden);
    a->moe_shared_experts = inum (r, C_MOE_S, a->moe_shared_experts);
    if (!strcmp (r->f[C_MLP], "swiglu"))
        a->mlp = GP_MLP_SWIGLU;
    else if (!strcmp (r->f[C_MLP], "gelu"))
        a->mlp = GP_MLP_GELU;
    if (a->layers <= 0 || a->hidden <= 0)
        return unsup (o, "layers or hidden missing%s", "");
    if (a->heads <= 0)
        a->heads = a->hidden % 128 == 0 ? a->hidden / 128 : a->hidden / 64;
    if (a->kv_heads <= 0)
        a->kv_heads = a->heads;
    if (a->moe_experts <= 0 && a->ffn_hidden <= 0)
        a->ffn_hidden = 4 * a->hidden;
    if (a->vocab <= 0)
        a->vocab = 51200;
    if (!z || zh != a->heads || a->head_dim <= 0)
        a->head_dim = a->hidden / a->heads;
    a->head_dim = inum (r, C_HEAD_DIM, a->head_dim);
    if (a->attention != GP_ATTN_MLA)
        a->attention = a->kv_heads < a->heads ? GP_ATTN_GQA : GP_ATTN_MHA;
    return 0;
}

/* The job: sequence length, batch, tokens, precision.  A blank seq_len
 * or global_batch is the training planner's to choose, as 'gpuplan train'
 * chooses it: the default sequence length, and the batch searched by
 * gp_train_search_batch (job->batch_free).  A malformed one is an error.
 */
/* The MoE columns (docs/formats/train.md): routing imbalance, shared-
 * expert overlap, CUDA graphs and the token dispatcher; blank =
 * balanced, off, eager, flex (DeepEP/HybridEP).
 */
static int row_job_moe (const struct vrow *r, struct gp_train_job *job,
                        struct gp_val_row *o)
{
    double v;
    int k = num (r->f[C_MOE_IMB], &v);
    if (k < 0 || (k == 1 && v < 1))
        return unsup (o, "bad moe_imbalance '%s' (>= 1)", r->f[C_MOE_IMB]);
    if (k == 1)
        job->moe_imbalance = v;
    int c[2] = {C_MOE_SHOV, C_GRAPHS};
    int *dst[2] = {&job->moe_shared_overlap, &job->cuda_graphs};
    for (int i = 0; i < 2; i++) {
        k = num (r->f[c[i]], &v);
        if (k < 0 || (k == 1 && v != 0 && v != 1))
            return unsup (o, "bad %s (0 or 1)", col_names[c[i]]);
        if (k == 1)
            *dst[i] = (int)v;
    }
    static const char *const disp[] = {"flex", "alltoall"};
    if (r->f[C_DISP][0]) {
        int d = enum_of (r->f[C_DISP], disp, 2);
        if (d < 0)
            return unsup (o, "unknown moe_dispatcher '%s' (flex, alltoall)",
                          r->f[C_DISP]);
        job->moe_a2a_nccl = d == 1;
    }
    /* group-limited routing: both or neither (checked against the model
     * by gp__moe_route_check)
     */
    int gc[2] = {C_MOE_G, C_MOE_GK};
    int *gd[2] = {&job->moe_groups, &job->moe_group_topk};
    for (int i = 0; i < 2; i++) {
        k = num (r->f[gc[i]], &v);
        if (k < 0 || (k == 1 && (v < 1 || v > 65536 || v != floor (v))))
            return unsup (o, gc[i] == C_MOE_G
                                 ? "bad moe_groups '%s' (a whole number, "
                                   "1 to 65536)"
                                 : "bad moe_group_topk '%s' (a whole number, "
                                   "1 to 65536)",
                          r->f[gc[i]]);
        if (k == 1)
            *gd[i] = (int)v;
    }
    if ((job->moe_groups > 0) != (job->moe_group_topk > 0))
        return unsup (o, "moe_groups and moe_group_topk go together%s", "");
    return 0;
}

static int row_job (const struct vrow *r, struct gp_train_job *job,
                    struct gp_val_row *o)
{
    gp_train_job_default (job);
    double v;
    int k = num (r->f[C_SEQ], &v);
    if (k < 0 || (k == 1 && v <= 0))
        return unsup (o, "bad seq_len '%s'", r->f[C_SEQ]);
    if (k == 1)
        job->seq_len = v;
    else
        o->seq_chosen = 1;
    k = num (r->f[C_GB], &v);
    if (k < 0 || (k == 1 && v <= 0))
        return unsup (o, "bad global_batch '%s'", r->f[C_GB]);
    if (k == 1)
        job->global_batch = v;
    else {
        job->global_batch = gp_train_batch_sequences (0, job->seq_len);
        job->batch_free = 1;
        o->batch_chosen = 1;
    }
    o->planned = o->seq_chosen || o->batch_chosen;
    if (num (r->f[C_TOKENS], &v) == 1)
        job->tokens = v;
    /* TP communication overlap, as the row's recipe sets it */
    if (r->f[C_TPOVL][0]) {
        if (strcmp (r->f[C_TPOVL], "0") && strcmp (r->f[C_TPOVL], "1"))
            return unsup (o, "bad tp_comm_overlap '%s' (0 or 1)",
                          r->f[C_TPOVL]);
        job->tp_comm_overlap = r->f[C_TPOVL][0] == '1';
    }
    /* host-offloaded remat checkpoints and the loss memory, as the row's
     * recipe sets them (cells checked by memory_cells_check)
     */
    job->remat_offload = !strcmp (r->f[C_REMAT_OFF], "checkpoints");
    job->logits_xla = !strcmp (r->f[C_LOGITS], "xla");
    /* the attention kernel of the row's stack (blank: what Transformer
     * Engine selects; cell checked by memory_cells_check)
     */
    job->attn_kernel = !strcmp (r->f[C_ATTN_K], "fa2")     ? GP_ATTN_FA2
                       : !strcmp (r->f[C_ATTN_K], "cudnn") ? GP_ATTN_CUDNN
                                                           : GP_ATTN_AUTO;
    /* when the stack reduces gradients (blank: overlapped) */
    job->grad_reduce_after = !strcmp (r->f[C_GRAD_RED], "after");
    /* weight_dtype bf16 (MaxText): the parameters, their gradients and
     * optax's Adam moments (mu_dtype unset, nu as the parameters) in
     * 16 bit: gradients 2 B, master + moments 2 + 2 + 2 B
     */
    if (!strcmp (r->f[C_WDTYPE], "bf16")) {
        job->grad_bytes = 2;
        job->optim_bytes = 6;
    }
    if (r->f[C_PREC][0]) {
        int p = gp_precision_parse (r->f[C_PREC]);
        if (p < 0)
            return unsup (o, "unknown precision '%s'", r->f[C_PREC]);
        job->precision = p;
    }
    /* fp16 (or unstated precision) on Ampere marks the pre-FlashAttention
     * Megatron/DeepSpeed stacks of 2021-22: unfused softmax.
     */
    if (!strncasecmp (r->f[C_GPU], "A100", 4)
        && (!r->f[C_PREC][0] || job->precision == GP_PREC_FP16))
        job->flash_attn = 0;
    return row_job_moe (r, job, o);
}

/* What the row trains (docs/formats/train.md): finetune 'lora' (or
 * method 'lora') makes it a LoRA job of rank lora_rank (blank = 16) on the
 * attention projections, with the frozen weights in FP8 when the row's
 * precision is an FP8 one (the MLPerf LoRA NeMo recipe ties fp8_params to
 * fp8) and bf16 otherwise; docs/model/training.md, "LoRA fine-tuning".
 */
static int row_lora (const struct vrow *r, const struct gp_train_model *m,
                     struct gp_train_job *job, struct gp_val_row *o)
{
    const char *ft = r->f[C_FT];
    int lora = !strcasecmp (r->f[C_METHOD], "lora");
    if (ft[0] && strcasecmp (ft, "lora") && strcasecmp (ft, "full"))
        return unsup (o, "unknown finetune '%s' (full or lora)", ft);
    if (ft[0] && !strcasecmp (ft, "full") && lora)
        return unsup (o, "finetune full contradicts method lora%s", "");
    lora |= !strcasecmp (ft, "lora");
    double v;
    int k = num (r->f[C_LRANK], &v);
    if (k < 0 || (k == 1 && (v < 1 || v > 65536 || v != floor (v))))
        return unsup (o, "bad lora_rank '%s' (an integer >= 1)",
                      r->f[C_LRANK]);
    if (!lora)
        return k == 1 ? unsup (o, "lora_rank needs finetune lora%s", "")
                      : 0;
    job->finetune = GP_FT_LORA;
    job->lora_rank = k == 1 ? (int)v : GP_LORA_RANK_DEFAULT;
    job->lora_targets = GP_LORA_ATTN;
    job->base_bytes = low_prec (job->precision) ? 1 : 2;
    gp_error_t e = {0};
    if (gp_train_lora_check (m, job, &e))
        return unsup (o, "%s", e.text);
    return 0;
}

/* The row's group-limited routing against its model (train_moe.c). */
static int row_moe_route (const struct gp_train_model *m,
                          const struct gp_train_job *job, struct gp_val_row *o)
{
    gp_error_t e = {0};
    if (gp__moe_route_check (m, job, &e))
        return unsup (o, "%s", e.text);
    return 0;
}

/* The row's fixed layout fields; blank ones stay free. */
static int row_fix (const struct vrow *r, struct gp_search_fix *fix,
                    struct gp_val_row *o)
{
    gp_search_fix_free (fix);
    fix->tp = inum (r, C_TP, -1);
    fix->pp = inum (r, C_PP, -1);
    fix->dp = inum (r, C_DP, -1);
    fix->cp = inum (r, C_CP, -1);
    fix->ep = inum (r, C_EP, -1);
    fix->vpp = inum (r, C_VPP, -1);
    fix->micro_batch = inum (r, C_MB, -1);
    if (r->f[C_SCHED][0]) {
        static const char *const sch[] = {"1f1b", "a2a-overlap",
                                          "dualpipe"};
        fix->schedule = enum_of (r->f[C_SCHED], sch, 3);
        if (fix->schedule < 0)
            return unsup (o, "unknown pp_schedule '%s'", r->f[C_SCHED]);
    }
    static const char *const rec[] = {"none", "selective", "full"};
    static const char *const shd[] = {"none", "zero1", "zero2", "zero3",
                                      "fsdp"};
    if (r->f[C_RECOMP][0]) {
        fix->recompute = enum_of (r->f[C_RECOMP], rec, 3);
        if (fix->recompute < 0
            && recomp_block (r->f[C_RECOMP], &fix->recompute,
                             &fix->recompute_layers))
            return unsup (o, "recompute '%s': none, selective, full or "
                             "full:N (N >= 1 recomputed layers per "
                             "pipeline chunk)", r->f[C_RECOMP]);
        if (fix->recompute < 0)
            return unsup (o, "unknown recompute '%s'", r->f[C_RECOMP]);
        if (fix->recompute == GP_RECOMP_SELECTIVE)
            fix->seq_par = 1; /* selective comes with SP (Korthikanti) */
    }
    if (r->f[C_SHARD][0]) {
        fix->sharding = enum_of (r->f[C_SHARD], shd, 5);
        if (fix->sharding < 0)
            return unsup (o, "unknown sharding '%s'", r->f[C_SHARD]);
    }
    return 0;
}

/* A campaign row the planner sizes (no num_gpus, the batch or sequence
 * left to the planner): the GPU count comes from the training planner's
 * deadline sizing (gp__train_plan_days, as 'gpuplan train --days D'), for
 * the row's 'days' column or, without one, the default deadline
 * train.default_days.  A row that measures its own duration (days,
 * time-to-train) stays unsupported: its measurement would size it.
 * Returns 0 with o->gpus_chosen set, or -1 with 'o' unsupported.
 */
static int row_gpus_open (const struct vrow *r, const struct gp_train_job *job,
                          struct gp_val_row *o)
{
    if (o->kind != GP_VAL_CAMPAIGN || !(job->tokens > 0))
        return unsup (o, "num_gpus missing: only a campaign row with tokens "
                         "is sized by the planner (for its days or the "
                         "default deadline)%s", "");
    if (o->measure == GP_MEAS_DAYS || o->measure == GP_MEAS_TIME_TO_TRAIN_MIN)
        return unsup (o, "num_gpus missing: the row measures its duration, "
                         "which would size its own GPU count%s", "");
    double d;
    int k = num (r->f[C_DAYS], &d);
    if (k < 0 || (k == 1 && !(d > 0)))
        return unsup (o, "bad days '%s' (> 0)", r->f[C_DAYS]);
    o->gpus_chosen = 1;
    o->days_default = k != 1;
    o->target_days = k == 1 ? d : 0; /* 0: the default, set when sized */
    return 0;
}

/* Size a row_gpus_open row: the fewest whole nodes that train its tokens
 * by its deadline, the planner's own sizing.  Returns 0 with o->n_gpus
 * set, or -1 with 'o' unsupported.
 */
static int row_size_days (const struct gp_train_model *m,
                          const struct gp_train_job *job,
                          const struct gp_train_hw *hw,
                          const struct gp_search_fix *fix,
                          struct gp_val_row *o)
{
    struct gp_train_size *sz = malloc (sizeof *sz);
    struct gp_train_result top[1];
    if (!sz)
        return unsup (o, "out of memory%s", "");
    size_t k = gp__train_plan_days (m, job, hw, fix, NULL, NULL,
                                    o->target_days, top, 1, sz,
                                    &o->target_days);
    int n = sz->n_gpus, best = sz->best_n;
    free (sz);
    if (!k || n <= 0) {
        o->ok = 0;
        snprintf (o->reason, sizeof o->reason,
                  "no GPU count meets the %s%.0f-day deadline (%s%d GPUs)",
                  o->days_default ? "default " : "", o->target_days,
                  best ? "fastest at " : "nothing fits up to ",
                  best ? best : GP_TRAIN_MAX_GPUS);
        return -1;
    }
    o->n_gpus = n;
    return 0;
}

/* The fabric cells (docs/formats/train.md, "Validation CSV"): blank, or
 * oversubscription a number in [1, 64] (leaf down:up ratio, as `train
 * --oversubscription`) and nic_gbps a number in (0, 800000] (scale-out
 * Gb/s per GPU, one direction, as `train --nic-bw`).  A bad cell is bad
 * input (file, line and column named), not an unsupported row: the row
 * states its fabric, and a wrong one would give a wrong answer.
 */
static int fabric_cells_check (const struct vfile *v, const struct vrow *r,
                               gp_error_t *err)
{
    static const struct {
        int col;
        double lo, hi;
        int lo_open;
        const char *want;
    } c[] = {
        {C_OVSUB, 1, 64, 0, "a number from 1 to 64"},
        {C_NIC, 0, 800000, 1, "Gb/s per GPU, a number above 0 and at most "
                              "800000"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        double x = 0;
        int k = num (r->f[c[i].col], &x);
        if (k == 0)
            continue;
        if (k < 0 || x > c[i].hi || x < c[i].lo
            || (c[i].lo_open && x <= c[i].lo))
            return gp_errprintf (err, GP_EPARSE,
                                 "%s:%zu: column '%s': bad value '%s' (%s)",
                                 v->path, r->line, col_names[c[i].col],
                                 r->f[c[i].col], c[i].want);
    }
    return 0;
}

/* The memory cells (docs/formats/train.md, "Validation CSV"): blank, or
 * remat_offload 'none' or 'checkpoints', logits 'fp32' or 'xla' and
 * weight_dtype 'fp32' or 'bf16'.  A
 * bad cell is bad input (file, line and column named), as for the fabric
 * cells: the row states its recipe's memory policy.
 */
static int memory_cells_check (const struct vfile *v, const struct vrow *r,
                               gp_error_t *err)
{
    static const struct {
        int col;
        const char *a, *b;
    } c[] = {
        {C_REMAT_OFF, "none", "checkpoints"},
        {C_LOGITS, "fp32", "xla"},
        {C_WDTYPE, "fp32", "bf16"},
        {C_ATTN_K, "fa2", "cudnn"},
        {C_GRAD_RED, "overlap", "after"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        const char *x = r->f[c[i].col];
        if (x[0] && strcmp (x, c[i].a) && strcmp (x, c[i].b))
            return gp_errprintf (err, GP_EPARSE,
                                 "%s:%zu: column '%s': bad value '%s' (%s "
                                 "or %s)",
                                 v->path, r->line, col_names[c[i].col], x,
                                 c[i].a, c[i].b);
    }
    return 0;
}

/* The row's fabric on the hardware 'hw' (cells checked by
 * fabric_cells_check): the same fields `train --oversubscription` and
 * `--nic-bw` set (train_plan.c); blank cells keep the catalog's.
 */
static void row_fabric (const struct vrow *r, struct gp_train_hw *hw)
{
    double x;
    if (num (r->f[C_OVSUB], &x) == 1)
        hw->oversub = x;
    if (num (r->f[C_NIC], &x) == 1)
        hw->scale_out_bw = x * 1e9 / 8; /* Gb/s -> byte/s, one direction */
}

/* The hardware and the GPU count (blank: one sequence per GPU per step,
 * whole nodes).
 */
static int row_hw (const struct vrow *r, const struct gp_catalog *cat,
                   const struct gp_validate_request *rq,
                   const struct gp_train_job *job, struct gp_train_hw *hw,
                   struct gp_val_row *o)
{
    gp_error_t err = {0};
    const struct gp_accel *acc = gp_catalog_find_accel (cat, r->f[C_GPU],
                                                        &err);
    if (!acc)
        return unsup (o, "%s", err.text);
    gp_train_hw_from_accel (acc, job->precision, hw);
    if (job->precision >= GP_PREC_MXFP8 && !hw->fp8)
        return unsup (o, "precision %s needs a data/catalog/precisions.csv "
                         "row for the accelerator's generation",
                      gp_precision_str (job->precision));
    apply_overrides (rq, &hw->eff);
    snprintf (o->generation, sizeof o->generation, "%s",
              hw->eff.generation ? hw->eff.generation : "");
    int gpn = inum (r, C_GPN, 0);
    if (gpn > 0)
        hw->gpus_per_node = gpn;
    row_fabric (r, hw);
    if (hw->peak_flops <= 0 || hw->mem_bytes <= 0)
        return unsup (o, "accelerator '%s' lacks peak FLOP/s or memory in "
                         "the catalog", acc->id);
    int n = inum (r, C_NGPU, 0);
    if (n > 0 && r->f[C_DAYS][0]) /* as `train`: a count or a deadline */
        return unsup (o, "give num_gpus or days, not both%s", "");
    if (n <= 0 && o->planned)
        return row_gpus_open (r, job, o);
    if (n <= 0) {
        n = (int)job->global_batch;
        if (n >= hw->gpus_per_node)
            n -= n % hw->gpus_per_node;
    }
    o->n_gpus = n;
    return 0;
}

/* The two largest terms of a memory estimate, "activations 30.1 GB,
 * logits 12.6 GB", for the reason of a row nothing fits (the terms of
 * gp_train_mem, docs/model/training.md "Memory").
 */
static void mem_largest (const struct gp_train_mem *m, char *b, size_t n)
{
    const char *name[] = {"weights", "gradients", "optimizer", "activations",
                          "logits", "buffers", "runtime"};
    double v[] = {m->weights, m->grads, m->optim, m->activations, m->logits,
                  m->buffers, m->runtime};
    int i1 = 0, i2 = -1;
    for (int i = 1; i < 7; i++)
        if (v[i] > v[i1])
            i1 = i;
    for (int i = 0; i < 7; i++)
        if (i != i1 && (i2 < 0 || v[i] > v[i2]))
            i2 = i;
    snprintf (b, n, "%s %.1f GB, %s %.1f GB", name[i1], v[i1] / 1e9,
              name[i2], v[i2] / 1e9);
}

/* Search the layout; a row that publishes its whole layout ran, so when
 * the memory model finds that layout over the HBM the throughput model is
 * still validated on it and the row says so (docs/model/training.md,
 * "Validation").
 */
static int row_layout (const struct gp_train_model *m,
                       struct gp_train_job *job,
                       const struct gp_train_hw *hw,
                       const struct gp_search_fix *fix,
                       struct gp_train_result *res, struct gp_val_row *o)
{
    int n = o->n_gpus;
    struct gp_search_stats st;
    double batch = job->global_batch;
    /* the planner's batch search when the row gives no batch, else the
     * layout search at the row's batch (gp_train_search_batch does both)
     */
    size_t k = gp_train_search_batch (m, job, hw, n, fix, res, 1, &st,
                                      &batch);
    if (k)
        job->global_batch = batch;
    int full_layout = fix->tp > 0 && fix->pp > 0 && fix->dp > 0
                      && fix->micro_batch > 0 && fix->recompute >= 0
                      && (fix->vpp > 0 || fix->pp == 1)
                      && (fix->ep > 0 || !m->moe_experts);
    int over_mem = 0;
    if (k == 0 && st.have_oom && full_layout) {
        *res = st.best_oom;
        k = 1;
        over_mem = 1;
    }
    if (k == 0) {
        if (st.have_oom) {
            char b[160], t[96];
            layout_str (&st.best_oom.layout, b, sizeof b);
            mem_largest (&st.best_oom.mem, t, sizeof t);
            snprintf (o->reason, sizeof o->reason,
                      "no layout fits in memory (closest: %s needs %.1f GB "
                      "of %.0f GB; largest: %s)", b,
                      st.best_oom.mem.total / 1e9, hw->mem_bytes / 1e9, t);
        } else
            snprintf (o->reason, sizeof o->reason,
                      "no valid layout for %d GPUs with the row's fixed "
                      "fields", n);
        o->ok = 0;
        return -1;
    }
    layout_str (&res->layout, o->layout, sizeof o->layout);
    if (over_mem) {
        size_t len = strlen (o->layout);
        snprintf (o->layout + len, sizeof o->layout - len,
                  " [memory model: %.1f GB > %.0f GB]", res->mem.total / 1e9,
                  hw->mem_bytes / 1e9);
    }
    o->has_layout = 1;
    o->mfu = res->time.mfu;
    o->step_s = res->time.step_s;
    o->mem_bytes = res->mem.total;
    return 0;
}

/* The row's measure, kind and measured value: the 'measure' and
 * 'measured_value' columns when the measure is given, else the kind's
 * legacy column (tokens/s per GPU or GPU-hours).  Returns 0, or -1 with
 * 'o' unsupported for an unknown measure or a kind that contradicts it
 * (a missing value only sets the reason: the row is still predicted).
 */
static int row_measure (const struct vrow *r, struct gp_val_row *o,
                        enum gp_flop_convention *conv)
{
    o->kind = strcmp (r->f[C_KIND], "campaign") ? GP_VAL_THROUGHPUT
                                                : GP_VAL_CAMPAIGN;
    o->measure = o->kind == GP_VAL_CAMPAIGN ? GP_MEAS_GPU_HOURS
                                            : GP_MEAS_TOKENS_PER_S_PER_GPU;
    int mc = o->kind == GP_VAL_CAMPAIGN ? C_MEAS_GPUH : C_MEAS_TPS;
    o->measured = NAN;
    if (r->f[C_MEASURE][0]) {
        if (gp_val_measure_parse (r->f[C_MEASURE], &o->measure))
            return unsup (o, "unknown measure '%s'", r->f[C_MEASURE]);
        if (gp_val_measure_kind (o->measure) != o->kind)
            return unsup (o, "measure '%s' contradicts the row's kind",
                          r->f[C_MEASURE]);
        mc = C_MVALUE;
    }
    double ev;
    int k = num (r->f[C_EVAL], &ev);
    if (k < 0 || (k == 1 && ev < 0))
        return unsup (o, "bad eval_tokens '%s'", r->f[C_EVAL]);
    if (k == 1 && o->measure != GP_MEAS_TIME_TO_TRAIN_MIN)
        return unsup (o, "eval_tokens applies to time_to_train_min rows "
                         "only%s", "");
    o->eval_tokens = k == 1 ? ev : 0;
    if (o->measure == GP_MEAS_TFLOPS_PER_GPU
        && gp_flop_convention_parse (r->f[C_FLOPCONV], conv))
        return unsup (o, "tflops_per_gpu needs flop_convention 6N or "
                         "6N+attn (got '%s')", r->f[C_FLOPCONV]);
    double meas;
    if (num (r->f[mc], &meas) != 1 || meas <= 0)
        unsup (o, "no measured value in the row%s", "");
    else
        o->measured = meas;
    return 0;
}

static void predict (const struct vrow *r, const struct gp_catalog *cat,
                     const struct gp_zoo *zoo,
                     const struct gp_validate_request *rq,
                     struct gp_val_row *o)
{
    memset (o, 0, sizeof *o);
    snprintf (o->id, sizeof o->id, "%s", r->f[C_ID]);
    o->line = r->line;
    enum gp_flop_convention conv = GP_FLOPS_6N;
    if (row_measure (r, o, &conv))
        return;
    /* what the run trains: every weight (pretrain) or LoRA adapters on
     * frozen weights (row_lora)
     */
    if (r->f[C_METHOD][0] && strcasecmp (r->f[C_METHOD], "pretrain")
        && strcasecmp (r->f[C_METHOD], "lora")) {
        unsup (o, "unknown method '%s' (pretrain or lora)", r->f[C_METHOD]);
        return;
    }

    struct gp_arch a;
    if (row_arch (r, zoo, &a, o))
        return;
    struct gp_train_model m;
    gp_error_t err = {0};
    if (gp_train_prep (&a, &m, &err)) {
        unsup (o, "%s", err.text);
        return;
    }
    struct gp_train_job job;
    struct gp_train_hw hw;
    struct gp_search_fix fix;
    if (row_job (r, &job, o) || row_lora (r, &m, &job, o)
        || row_moe_route (&m, &job, o)
        || row_hw (r, cat, rq, &job, &hw, o)
        || row_fix (r, &fix, o))
        return;
    if (o->gpus_chosen && row_size_days (&m, &job, &hw, &fix, o))
        return;
    o->unfused_attn = !job.flash_attn;
    o->fp8 = low_prec (job.precision);
    o->moe = m.moe_experts > 0;
    if (fix.tp > 0 && fix.pp > 0 && fix.dp > 0
        && fix.tp * fix.pp * fix.dp * (fix.cp > 0 ? fix.cp : 1) != o->n_gpus) {
        unsup (o, "tp*pp*dp*cp differs from num_gpus%s", "");
        return;
    }
    if (fix.recompute_layers > 0 && fix.pp > 0) {
        /* full:N with the row's pipeline: N at most a chunk's layers */
        struct gp_layout cl = {.pp = fix.pp, .vpp = fix.vpp > 0 ? fix.vpp
                                                                : 1};
        int c = gp_train_chunk_layers (&cl, m.layers);
        if (fix.recompute_layers > c) {
            char why[160];
            snprintf (why, sizeof why, "recompute 'full:%d': more layers "
                      "than a pipeline chunk holds (%d of %d layers over "
                      "pp %d x vpp %d)", fix.recompute_layers, c, m.layers,
                      fix.pp, cl.vpp);
            unsup (o, "%s", why);
            return;
        }
    }
    struct gp_train_result res;
    if (row_layout (&m, &job, &hw, &fix, &res, o))
        return;
    o->seq_len = job.seq_len;
    o->global_batch = job.global_batch;
    o->zero3 = res.layout.sharding == GP_SHARD_ZERO3;
    struct gp_val_native nat = {
        .tokens_per_s_per_gpu = res.time.tokens_per_s_per_gpu,
        .flops_per_token = gp_val_flops_per_token (&m, job.seq_len, conv),
        .goodput = 1,
        .tokens = job.tokens,
        .n_gpus = o->n_gpus,
        .eval_tokens = o->eval_tokens,
    };
    if (o->kind == GP_VAL_CAMPAIGN) {
        if (job.tokens <= 0) {
            unsup (o, "campaign row without tokens%s", "");
            return;
        }
        /* goodput from the reliability model at its documented defaults
         * (gp_train_reliability, docs/model/training.md).
         */
        struct gp_reliability rel;
        gp_train_reliability (&m, &job, o->n_gpus, hw.gpus_per_node, &rel);
        nat.goodput = rel.goodput;
        if (o->measure == GP_MEAS_GPU_HOURS || o->measure == GP_MEAS_DAYS)
            o->goodput = rel.goodput;
    }
    o->predicted = gp_val_measure_of (o->measure, &nat);
    if (isnan (o->predicted)) {
        o->predicted = 0;
        unsup (o, "the row lacks an input its measure '%s' needs",
               gp_val_measure_str (o->measure));
        return;
    }
    if (isnan (o->measured))
        return; /* reason already set */
    o->rel_err = (o->predicted - o->measured) / o->measured;
    o->ok = 1;
}

/* ============================== summary =============================== */

/* The summaries of 'v' over its rows. */
static int summarise (struct gp_validation *v)
{
    size_t n = v->n_rows;
    struct val_acc all, kind[2], *fam = NULL;
    long *fi = calloc (n ? n : 1, sizeof *fi);
    size_t cap = 0;
    int rc = -1;
    if (!fi || gp__val_acc_init (&all, n) || gp__val_acc_init (&kind[0], n)
        || gp__val_acc_init (&kind[1], n))
        goto done;
    for (size_t i = 0; i < n; i++) {
        fi[i] = gp__val_family_add (&v->by_family, &v->n_families, &cap,
                                    v->rows[i].id);
        if (fi[i] < 0)
            goto done;
    }
    fam = calloc (v->n_families ? v->n_families : 1, sizeof *fam);
    if (!fam)
        goto done;
    for (size_t f = 0; f < v->n_families; f++)
        if (gp__val_acc_init (&fam[f], n))
            goto done;
    for (size_t i = 0; i < n; i++) {
        const struct gp_val_row *r = &v->rows[i];
        gp__val_acc_add (&all, r->ok, r->rel_err);
        gp__val_acc_add (&kind[r->kind], r->ok, r->rel_err);
        gp__val_acc_add (&fam[fi[i]], r->ok, r->rel_err);
    }
    gp__val_acc_summary (&all, "all", &v->all);
    gp__val_acc_summary (&kind[0], "throughput", &v->by_kind[0]);
    gp__val_acc_summary (&kind[1], "campaign", &v->by_kind[1]);
    for (size_t f = 0; f < v->n_families; f++) {
        char name[sizeof v->by_family[f].name];
        memcpy (name, v->by_family[f].name, sizeof name);
        gp__val_acc_summary (&fam[f], name, &v->by_family[f]);
    }
    rc = 0;
done:
    gp__val_acc_free (&all);
    gp__val_acc_free (&kind[0]);
    gp__val_acc_free (&kind[1]);
    for (size_t f = 0; fam && f < v->n_families; f++)
        gp__val_acc_free (&fam[f]);
    free (fam);
    free (fi);
    return rc;
}

/* ======================== leave one source out ========================= */

/* Predict every row again at each GEMM ceiling of the grid (an
 * 'all.gemm_max' override after the request's own) and hand the errors
 * to gp__val_loso.  Returns 0, or -1 on allocation failure.
 */
static int loso (const struct vfile *vf, const struct gp_catalog *cat,
                 const struct gp_zoo *zoo,
                 const struct gp_validate_request *rq,
                 struct gp_validation *v)
{
    size_t n = vf->n, ng = GP__VAL_GRID_N;
    double *err = calloc (ng * n + 1, sizeof *err);
    unsigned char *ok = calloc (ng * n + 1, 1);
    struct gp_eff_override *ov = calloc (rq->n_overrides + 1, sizeof *ov);
    int rc = -1;
    if (!err || !ok || !ov)
        goto done;
    if (rq->n_overrides)
        memcpy (ov, rq->overrides, rq->n_overrides * sizeof *ov);
    struct gp_eff_override *g_ov = &ov[rq->n_overrides];
    snprintf (g_ov->generation, sizeof g_ov->generation, "all");
    g_ov->key = GP_EFF_GEMM_MAX;
    struct gp_validate_request r2 = *rq;
    r2.overrides = ov;
    r2.n_overrides = rq->n_overrides + 1;
    for (size_t g = 0; g < ng; g++) {
        g_ov->value = gp__val_grid (g);
        for (size_t i = 0; i < n; i++) {
            struct gp_val_row row;
            predict (&vf->rows[i], cat, zoo, &r2, &row);
            err[g * n + i] = row.rel_err;
            ok[g * n + i] = (unsigned char)row.ok;
        }
    }
    rc = gp__val_loso (v, err, ok);
done:
    free (err);
    free (ok);
    free (ov);
    return rc;
}

/* ============================== public ================================= */

void gp_validation_destroy (struct gp_validation *v)
{
    if (!v)
        return;
    free (v->rows);
    free (v->by_family);
    free (v->fit);
    free (v);
}

/* Every file of 'rq' (rq->paths, else rq->path) parsed in turn (each
 * with its own header) into one row list '*vf'.  0, or the first file's
 * error with '*vf' freed.
 */
static int read_files (const struct gp_validate_request *rq,
                       struct vfile *vf, gp_error_t *err)
{
    memset (vf, 0, sizeof *vf);
    size_t nf = rq->n_paths ? rq->n_paths : 1;
    for (size_t k = 0; k < nf; k++) {
        struct vfile one;
        memset (&one, 0, sizeof one);
        one.path = rq->n_paths ? rq->paths[k] : rq->path;
        int rc = one.path ? gp_csv_parse_file (one.path, ',', on_row, &one,
                                               err)
                          : gp_errprintf (err, GP_EINVAL,
                                          "validate training: no file");
        struct vrow *p = rc ? NULL
                            : realloc (vf->rows, (vf->n + one.n + 1)
                                                     * sizeof *p);
        if (!rc && !p)
            rc = gp_errprintf (err, GP_ENOMEM, "out of memory");
        if (rc) {
            vfile_free (&one);
            vfile_free (vf);
            return rc;
        }
        /* the cells move to '*vf' */
        memcpy (p + vf->n, one.rows, one.n * sizeof *p);
        vf->rows = p;
        vf->n += one.n;
        vf->cap = vf->n + 1;
        vf->path = one.path;
        free (one.rows);
    }
    return 0;
}

int gp_validate_training (const struct gp_catalog *cat,
                          const struct gp_validate_request *rq,
                          struct gp_validation **out, gp_error_t *err)
{
    if (!cat || !rq || (!rq->path && !rq->n_paths) || !out
        || (rq->n_paths && !rq->paths)
        || (rq->n_overrides && !rq->overrides))
        return gp_errprintf (err, GP_EINVAL, "validate training: NULL "
                                             "argument");
    struct vfile vf;
    int rc = read_files (rq, &vf, err);
    if (rc)
        return rc;
    struct gp_zoo *own_zoo = NULL;
    const struct gp_zoo *zoo = rq->zoo;
    if (!zoo)
        zoo = own_zoo = gp_zoo_load (NULL, NULL); /* NULL: columns only */
    struct gp_validation *v = calloc (1, sizeof *v);
    if (v)
        v->rows = calloc (vf.n ? vf.n : 1, sizeof *v->rows);
    if (!v || !v->rows) {
        rc = gp_errprintf (err, GP_ENOMEM, "out of memory");
        goto done;
    }
    v->n_rows = vf.n;
    for (size_t i = 0; i < vf.n; i++)
        predict (&vf.rows[i], cat, zoo, rq, &v->rows[i]);
    if (summarise (v) || gp__val_fit_counts (v)
        || (rq->loso && loso (&vf, cat, zoo, rq, v))) {
        rc = gp_errprintf (err, GP_ENOMEM, "out of memory");
        goto done;
    }
    *out = v;
    v = NULL;
done:
    gp_validation_destroy (v);
    gp_zoo_destroy (own_zoo);
    vfile_free (&vf);
    return rc;
}
