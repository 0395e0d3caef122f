/* cmd_validate.c - 'gpuplan validate training FILE.csv': predict published
 * training measurements row by row and report the error.
 *
 * Each row is predicted from its own columns plus the catalog and the model
 * zoo.  Blank layout fields are chosen by the layout search (the fastest
 * layout that fits, with the row's fixed fields held); blank architecture
 * fields get the documented defaults of docs/model/training.md
 * ("Validation").  Rows that cannot be modelled are listed with the reason,
 * never dropped.  'validate inference' is delegated to
 * gp_validate_inference_cli().
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "gpuplan/arch.h"
#include "gpuplan/csv.h"
#include "gpuplan/train.h"
#include "validate.h"

const char cmd_validate_help[] =
    "NAME\n"
    "    gpuplan validate - predict published measurements and report the "
    "error\n"
    "\n"
    "SYNOPSIS\n"
    "    gpuplan validate training FILE.csv [--json] [--catalog DIR]\n"
    "    gpuplan validate inference FILE.csv [--json] [--catalog DIR]\n"
    "\n"
    "DESCRIPTION\n"
    "    Reads a validation CSV (docs/formats/train.md, 'Validation CSV'),\n"
    "    predicts every row from its own inputs, the catalog and the model\n"
    "    zoo, and prints per row the predicted and measured value and the\n"
    "    relative error: tokens/s per GPU for 'throughput' rows, GPU-hours\n"
    "    for 'campaign' rows.  Layout fields the row leaves blank are chosen\n"
    "    by the layout search.  Rows that cannot be modelled are listed as\n"
    "    'unsupported' with the reason.  The summary gives the median\n"
    "    absolute relative error and the share of rows within 10/20/30 %,\n"
    "    per kind and per source family (the id prefix).\n"
    "\n"
    "OPTIONS\n"
    "    --json          one JSON document: {rows: [{id, kind, status,\n"
    "                    predicted, measured, rel_err, layout, reason}],\n"
    "                    summary: {n, n_ok, median_abs_rel_err,\n"
    "                    within_10pct, within_20pct, within_30pct, by_kind,\n"
    "                    by_family}}; errors and shares are fractions\n"
    "    --catalog DIR   merge catalog CSV files found in DIR\n"
    "    --set GEN.KEY=V override one efficiency factor of a GPU generation\n"
    "                    (what-if and calibration studies; e.g.\n"
    "                    --set hopper.gemm_max=0.7); repeatable\n"
    "    -h, --help      show this page\n"
    "\n"
    "EXIT STATUS\n"
    "    0 ok (whatever the errors); 2 unreadable file, missing column,\n"
    "    unknown sub-word.\n"
    "\n"
    "EXAMPLES\n"
    "    gpuplan validate training validation/training/training-public.csv\n";

/* ============================ reading rows ============================= */

enum {
    C_ID, C_KIND, C_ZOO, C_LAYERS, C_HIDDEN, C_FFN, C_HEADS, C_KV, C_VOCAB,
    C_MLP, C_MOE_E, C_MOE_K, C_MOE_F, C_MOE_S, C_SEQ, C_GPU, C_NGPU, C_GPN,
    C_TP, C_PP, C_DP, C_CP, C_EP, C_VPP, C_SHARD, C_RECOMP, C_MB, C_GB,
    C_PREC, C_TOKENS, C_MEAS_TPS, C_MEAS_GPUH, C_HEAD_DIM, C_SCHED, C_N
};

static const char *const col_names[C_N] = {
    "id", "kind", "zoo", "layers", "hidden", "ffn_hidden", "heads",
    "kv_heads", "vocab", "mlp", "moe_experts", "moe_topk", "moe_ffn_hidden",
    "moe_shared_experts", "seq_len", "gpu", "num_gpus", "gpus_per_node", "tp",
    "pp", "dp", "cp", "ep", "vpp", "sharding", "recompute", "micro_batch",
    "global_batch", "precision", "tokens", "measured_tokens_per_s_per_gpu",
    "measured_gpu_hours", "head_dim", "pp_schedule",
};

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

static int on_row (const struct gp_csv_row *row, void *arg, gp_error_t *err)
{
    struct vfile *v = arg;
    if (row->index == 0) {
        for (int i = 0; i < C_N; i++) {
            v->col[i] = gp_csv_col (row, col_names[i]);
            /* zoo, head_dim and pp_schedule are optional columns */
            if (v->col[i] < 0 && i != C_ZOO && i != C_HEAD_DIM
                && i != C_SCHED)
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
    r->line = row->line;
    for (int i = 0; i < C_N; i++) {
        int c = v->col[i];
        const char *s = c >= 0 && (size_t)c < row->n_fields ? row->fields[c]
                                                           : "";
        r->f[i] = strdup (s);
        if (!r->f[i])
            return gp_errprintf (err, GP_ENOMEM, "out of memory");
    }
    return 0;
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

/* ============================= predicting ============================== */

/* --set GEN.KEY=VALUE: what-if overrides of the efficiency factors, used
 * by validation/training/calibrate.py for the leave-one-family-out check.
 */
struct eff_set {
    char gen[16];
    char key[24];
    double v;
};
static struct eff_set sets[32];
static int n_sets;

static int parse_set (const char *arg)
{
    const char *dot = strchr (arg, '.'), *eq = strchr (arg, '=');
    if (!dot || !eq || eq < dot || n_sets == 32 || (size_t)(dot - arg) >= 16
        || (size_t)(eq - dot - 1) >= 24)
        return -1;
    struct eff_set *e = &sets[n_sets];
    snprintf (e->gen, sizeof e->gen, "%.*s", (int)(dot - arg), arg);
    snprintf (e->key, sizeof e->key, "%.*s", (int)(eq - dot - 1), dot + 1);
    char *end;
    e->v = strtod (eq + 1, &end);
    if (end == eq + 1 || *end || !(e->v > 0))
        return -1;
    static const char *const keys[] = {"gemm_max", "gemm_dim_half", "attn",
                                       "hbm", "scale_up", "scale_out",
                                       "kernel_s"};
    for (int i = 0; i < 7; i++)
        if (!strcmp (e->key, keys[i])) {
            n_sets++;
            return 0;
        }
    return -1;
}

static void apply_sets (struct gp_train_eff *f)
{
    for (int i = 0; i < n_sets; i++) {
        const struct eff_set *e = &sets[i];
        if (strcmp (e->gen, f->generation) && strcmp (e->gen, "all"))
            continue;
        if (!strcmp (e->key, "gemm_max"))
            f->gemm_max = e->v;
        else if (!strcmp (e->key, "gemm_dim_half"))
            f->gemm_dim_half = e->v;
        else if (!strcmp (e->key, "attn"))
            f->attn = e->v;
        else if (!strcmp (e->key, "hbm"))
            f->hbm = e->v;
        else if (!strcmp (e->key, "scale_up"))
            f->scale_up = e->v;
        else if (!strcmp (e->key, "scale_out"))
            f->scale_out = e->v;
        else
            f->kernel_s = e->v;
    }
}

struct vres {
    int ok;
    int campaign;
    char reason[200];
    double predicted, measured, rel_err;
    struct gp_train_result res;
    int n_gpus;
    char layout[224];
};

static void layout_str (const struct gp_layout *l, char *b, size_t n)
{
    snprintf (b, n,
              "tp%d pp%d dp%d cp%d ep%d vpp%d mb%d%s recompute=%s "
              "sharding=%s%s%s",
              l->tp, l->pp, l->dp, l->cp, l->ep, l->vpp, l->micro_batch,
              l->seq_par ? " sp" : "", gp_recompute_str (l->recompute),
              gp_sharding_str (l->sharding),
              l->schedule != GP_SCHED_1F1B ? " " : "",
              l->schedule != GP_SCHED_1F1B ? gp_schedule_str (l->schedule)
                                           : "");
}

static int enum_of (const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcasecmp (s, names[i]))
            return i;
    return -2;
}

static void unsup (struct vres *o, const char *fmt, const char *what)
{
    o->ok = 0;
    snprintf (o->reason, sizeof o->reason, fmt, what);
}

static void predict (const struct vrow *r, const struct gp_catalog *cat,
                     const struct gp_zoo *zoo, struct vres *o)
{
    memset (o, 0, sizeof *o);
    o->campaign = !strcmp (r->f[C_KIND], "campaign");
    double meas;
    int mc = o->campaign ? C_MEAS_GPUH : C_MEAS_TPS;
    if (num (r->f[mc], &meas) != 1 || meas <= 0) {
        o->measured = NAN;
        unsup (o, "no measured value in the row%s", "");
    } else
        o->measured = meas;

    /* ---- architecture: zoo entry, then the row's columns ---- */
    struct gp_arch a;
    memset (&a, 0, sizeof a);
    const struct gp_arch *z = NULL;
    if (zoo && r->f[C_ZOO][0])
        z = gp_zoo_find (zoo, r->f[C_ZOO], NULL);
    if (z)
        a = *z;
    else
        snprintf (a.id, sizeof a.id, "custom");
    int zh = a.heads;
    a.layers = inum (r, C_LAYERS, a.layers);
    a.hidden = inum (r, C_HIDDEN, a.hidden);
    a.ffn_hidden = inum (r, C_FFN, a.ffn_hidden);
    a.heads = inum (r, C_HEADS, a.heads);
    a.kv_heads = inum (r, C_KV, a.kv_heads);
    a.vocab = inum (r, C_VOCAB, a.vocab);
    a.moe_experts = inum (r, C_MOE_E, a.moe_experts);
    a.moe_topk = inum (r, C_MOE_K, a.moe_topk);
    a.moe_ffn_hidden = inum (r, C_MOE_F, a.moe_ffn_hidden);
    a.moe_shared_experts = inum (r, C_MOE_S, a.moe_shared_experts);
    if (!strcmp (r->f[C_MLP], "swiglu"))
        a.mlp = GP_MLP_SWIGLU;
    else if (!strcmp (r->f[C_MLP], "gelu"))
        a.mlp = GP_MLP_GELU;
    if (a.layers <= 0 || a.hidden <= 0) {
        unsup (o, "layers or hidden missing%s", "");
        return;
    }
    /* documented defaults for blank architecture cells */
    if (a.heads <= 0)
        a.heads = a.hidden % 128 == 0 ? a.hidden / 128 : a.hidden / 64;
    if (a.kv_heads <= 0)
        a.kv_heads = a.heads;
    if (a.moe_experts <= 0 && a.ffn_hidden <= 0)
        a.ffn_hidden = 4 * a.hidden;
    if (a.vocab <= 0)
        a.vocab = 51200;
    if (!z || zh != a.heads || a.head_dim <= 0)
        a.head_dim = a.hidden / a.heads;
    a.head_dim = inum (r, C_HEAD_DIM, a.head_dim);
    if (a.attention != GP_ATTN_MLA)
        a.attention = a.kv_heads < a.heads ? GP_ATTN_GQA : GP_ATTN_MHA;
    struct gp_train_model m;
    gp_error_t err = {0};
    if (gp_train_prep (&a, &m, &err)) {
        unsup (o, "%s", err.text);
        return;
    }

    /* ---- job ---- */
    struct gp_train_job job;
    gp_train_job_default (&job);
    double v;
    if (num (r->f[C_SEQ], &v) != 1 || v <= 0) {
        unsup (o, "seq_len missing%s", "");
        return;
    }
    job.seq_len = v;
    if (num (r->f[C_GB], &v) != 1 || v <= 0) {
        unsup (o, "global_batch missing%s", "");
        return;
    }
    job.global_batch = v;
    if (num (r->f[C_TOKENS], &v) == 1)
        job.tokens = v;
    static const char *const precs[] = {"bf16", "fp16", "fp8"};
    if (r->f[C_PREC][0]) {
        int p = enum_of (r->f[C_PREC], precs, 3);
        if (p < 0) {
            unsup (o, "unknown precision '%s'", r->f[C_PREC]);
            return;
        }
        job.precision = p;
    }

    /* fp16 (or unstated precision) on Ampere marks the pre-FlashAttention
     * Megatron/DeepSpeed stacks of 2021-22: unfused softmax.
     */
    if (!strncasecmp (r->f[C_GPU], "A100", 4)
        && (!r->f[C_PREC][0] || job.precision == GP_PREC_FP16))
        job.flash_attn = 0;

    /* ---- hardware ---- */
    const struct gp_accel *acc = gp_catalog_find_accel (cat, r->f[C_GPU],
                                                        &err);
    if (!acc) {
        unsup (o, "%s", err.text);
        return;
    }
    struct gp_train_hw hw;
    gp_train_hw_from_accel (acc, job.precision, &hw);
    apply_sets (&hw.eff);
    int gpn = inum (r, C_GPN, 0);
    if (gpn > 0)
        hw.gpus_per_node = gpn;
    if (hw.peak_flops <= 0 || hw.mem_bytes <= 0) {
        unsup (o, "accelerator '%s' lacks peak FLOP/s or memory in the "
                  "catalog", acc->id);
        return;
    }
    /* blank GPU count: one sequence per GPU per step (whole nodes) */
    int n = inum (r, C_NGPU, 0);
    if (n <= 0) {
        n = (int)job.global_batch;
        if (n >= hw.gpus_per_node)
            n -= n % hw.gpus_per_node;
    }
    o->n_gpus = n;

    /* ---- layout: fixed where given, searched where blank ---- */
    struct gp_search_fix fix;
    gp_search_fix_free (&fix);
    fix.tp = inum (r, C_TP, -1);
    fix.pp = inum (r, C_PP, -1);
    fix.dp = inum (r, C_DP, -1);
    fix.cp = inum (r, C_CP, -1);
    fix.ep = inum (r, C_EP, -1);
    fix.vpp = inum (r, C_VPP, -1);
    fix.micro_batch = inum (r, C_MB, -1);
    if (r->f[C_SCHED][0]) {
        static const char *const sch[] = {"1f1b", "a2a-overlap",
                                          "dualpipe"};
        fix.schedule = enum_of (r->f[C_SCHED], sch, 3);
        if (fix.schedule < 0) {
            unsup (o, "unknown pp_schedule '%s'", r->f[C_SCHED]);
            return;
        }
    }
    static const char *const rec[] = {"none", "selective", "full"};
    static const char *const shd[] = {"none", "zero1", "zero2", "zero3",
                                      "fsdp"};
    if (r->f[C_RECOMP][0]) {
        fix.recompute = enum_of (r->f[C_RECOMP], rec, 3);
        if (fix.recompute < 0) {
            unsup (o, "unknown recompute '%s'", r->f[C_RECOMP]);
            return;
        }
        if (fix.recompute == GP_RECOMP_SELECTIVE)
            fix.seq_par = 1; /* selective comes with SP (Korthikanti) */
    }
    if (r->f[C_SHARD][0]) {
        fix.sharding = enum_of (r->f[C_SHARD], shd, 5);
        if (fix.sharding < 0) {
            unsup (o, "unknown sharding '%s'", r->f[C_SHARD]);
            return;
        }
    }
    if (fix.tp > 0 && fix.pp > 0 && fix.dp > 0
        && fix.tp * fix.pp * fix.dp * (fix.cp > 0 ? fix.cp : 1) != n) {
        unsup (o, "tp*pp*dp*cp differs from num_gpus%s", "");
        return;
    }
    struct gp_search_stats st;
    size_t k = gp_search_layouts (&m, &job, &hw, n, &fix, &o->res, 1, &st);
    /* A row that publishes its whole layout ran: when the memory model
     * finds that layout over the HBM, the throughput model is still
     * validated on it and the row says so (docs/model/training.md,
     * "Validation").
     */
    int full_layout = fix.tp > 0 && fix.pp > 0 && fix.dp > 0
                      && fix.micro_batch > 0 && fix.recompute >= 0
                      && (fix.vpp > 0 || fix.pp == 1)
                      && (fix.ep > 0 || !m.moe_experts);
    int over_mem = 0;
    if (k == 0 && st.have_oom && full_layout) {
        o->res = st.best_oom;
        k = 1;
        over_mem = 1;
    }
    if (k == 0) {
        if (st.have_oom) {
            char b[160];
            layout_str (&st.best_oom.layout, b, sizeof b);
            snprintf (o->reason, sizeof o->reason,
                      "no layout fits in memory (closest: %s needs %.1f GB "
                      "of %.0f GB)", b, st.best_oom.mem.total / 1e9,
                      hw.mem_bytes / 1e9);
        } else
            snprintf (o->reason, sizeof o->reason,
                      "no valid layout for %d GPUs with the row's fixed "
                      "fields", n);
        o->ok = 0;
        return;
    }
    layout_str (&o->res.layout, o->layout, sizeof o->layout);
    if (over_mem) {
        size_t len = strlen (o->layout);
        snprintf (o->layout + len, sizeof o->layout - len,
                  " [memory model: %.1f GB > %.0f GB]",
                  o->res.mem.total / 1e9, hw.mem_bytes / 1e9);
    }
    double tps = o->res.time.tokens_per_s_per_gpu;
    if (o->campaign) {
        if (job.tokens <= 0) {
            unsup (o, "campaign row without tokens%s", "");
            return;
        }
        /* goodput from the reliability model at its documented defaults
         * (gp_train_reliability, docs/model/training.md).
         */
        struct gp_reliability rel;
        gp_train_reliability (&m, &job, n, hw.gpus_per_node, &rel);
        o->predicted = job.tokens / (tps * rel.goodput) / 3600.0;
    } else
        o->predicted = tps;
    if (isnan (o->measured))
        return; /* reason already set */
    o->rel_err = (o->predicted - o->measured) / o->measured;
    o->ok = 1;
}

/* ============================== summary =============================== */

struct agg {
    char name[32];
    double *errs;
    size_t n, n_all;
};

static int cmp_d (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void agg_add (struct agg *g, int ok, double e)
{
    g->n_all++;
    if (ok)
        g->errs[g->n++] = fabs (e);
}

struct stats {
    double median, w10, w20, w30;
};

static void agg_stats (struct agg *g, struct stats *s)
{
    memset (s, 0, sizeof *s);
    if (!g->n)
        return;
    qsort (g->errs, g->n, sizeof *g->errs, cmp_d);
    s->median = g->n % 2 ? g->errs[g->n / 2]
                         : 0.5 * (g->errs[g->n / 2 - 1] + g->errs[g->n / 2]);
    for (size_t i = 0; i < g->n; i++) {
        s->w10 += g->errs[i] <= 0.10;
        s->w20 += g->errs[i] <= 0.20;
        s->w30 += g->errs[i] <= 0.30;
    }
    s->w10 /= g->n;
    s->w20 /= g->n;
    s->w30 /= g->n;
}

static json_t *agg_json (struct agg *g)
{
    struct stats s;
    agg_stats (g, &s);
    json_t *o = json_object ();
    json_object_set_new (o, "n", json_integer ((json_int_t)g->n_all));
    json_object_set_new (o, "n_ok", json_integer ((json_int_t)g->n));
    json_object_set_new (o, "median_abs_rel_err",
                         g->n ? json_real (s.median) : json_null ());
    json_object_set_new (o, "within_10pct", json_real (s.w10));
    json_object_set_new (o, "within_20pct", json_real (s.w20));
    json_object_set_new (o, "within_30pct", json_real (s.w30));
    return o;
}

static void agg_print (struct agg *g)
{
    struct stats s;
    agg_stats (g, &s);
    if (!g->n) {
        printf ("  %-14s %4zu rows, %4zu ok\n", g->name, g->n_all, g->n);
        return;
    }
    printf ("  %-14s %4zu rows, %4zu ok   median |err| %5.1f %%   within "
            "10/20/30 %%: %3.0f / %3.0f / %3.0f %%\n",
            g->name, g->n_all, g->n, 100 * s.median, 100 * s.w10,
            100 * s.w20, 100 * s.w30);
}

static void family_of (const char *id, char *out, size_t n)
{
    size_t i = 0;
    while (id[i] && id[i] != '-' && i + 1 < n) {
        out[i] = id[i];
        i++;
    }
    out[i] = 0;
}

static int run_training (const char *path, int as_json, const char *dir)
{
    gp_error_t err = {0};
    struct vfile vf;
    memset (&vf, 0, sizeof vf);
    vf.path = path;
    int rc = gp_csv_parse_file (path, ',', on_row, &vf, &err);
    if (rc) {
        vfile_free (&vf);
        return cli_fail (&err);
    }
    struct gp_catalog *cat = cli_catalog (dir, &err);
    if (!cat) {
        vfile_free (&vf);
        return cli_fail (&err);
    }
    struct gp_zoo *zoo = gp_zoo_load (NULL, &err);
    struct vres *res = calloc (vf.n ? vf.n : 1, sizeof *res);
    size_t cap = vf.n ? vf.n : 1;
    struct agg all = {"all", calloc (cap, sizeof (double)), 0, 0};
    struct agg kinds[2] = {{"throughput", calloc (cap, sizeof (double)), 0,
                            0},
                           {"campaign", calloc (cap, sizeof (double)), 0, 0}};
    struct agg fams[32];
    size_t n_fams = 0;
    if (!res || !all.errs || !kinds[0].errs || !kinds[1].errs) {
        fprintf (stderr, "gpuplan: error: out of memory\n");
        rc = EXIT_INTERNAL;
        goto done;
    }
    for (size_t i = 0; i < vf.n; i++) {
        struct vres *o = &res[i];
        predict (&vf.rows[i], cat, zoo, o);
        agg_add (&all, o->ok, o->rel_err);
        agg_add (&kinds[o->campaign], o->ok, o->rel_err);
        char fam[32];
        family_of (vf.rows[i].f[C_ID], fam, sizeof fam);
        size_t f;
        for (f = 0; f < n_fams; f++)
            if (!strcmp (fams[f].name, fam))
                break;
        if (f == n_fams && n_fams < 32) {
            memset (&fams[f], 0, sizeof fams[f]);
            snprintf (fams[f].name, sizeof fams[f].name, "%s", fam);
            fams[f].errs = calloc (cap, sizeof (double));
            if (!fams[f].errs)
                continue;
            n_fams++;
        }
        if (f < n_fams)
            agg_add (&fams[f], o->ok, o->rel_err);
    }
    if (as_json) {
        json_t *root = json_object ();
        json_t *rows = json_array ();
        for (size_t i = 0; i < vf.n; i++) {
            struct vres *o = &res[i];
            json_t *j = json_object ();
            json_object_set_new (j, "id", json_string (vf.rows[i].f[C_ID]));
            json_object_set_new (j, "kind",
                                 json_string (o->campaign ? "campaign"
                                                          : "throughput"));
            json_object_set_new (j, "status",
                                 json_string (o->ok ? "ok" : "unsupported"));
            json_object_set_new (j, "unit",
                                 json_string (o->campaign ? "gpu_hours"
                                                          : "tokens_per_s_"
                                                            "per_gpu"));
            json_object_set_new (j, "predicted",
                                 o->predicted > 0 ? json_real (o->predicted)
                                                  : json_null ());
            json_object_set_new (j, "measured",
                                 isnan (o->measured)
                                     ? json_null ()
                                     : json_real (o->measured));
            json_object_set_new (j, "rel_err",
                                 o->ok ? json_real (o->rel_err)
                                       : json_null ());
            json_object_set_new (j, "layout",
                                 o->layout[0] ? json_string (o->layout)
                                              : json_null ());
            if (o->layout[0]) {
                json_object_set_new (j, "num_gpus", json_integer (o->n_gpus));
                json_object_set_new (j, "mfu", json_real (o->res.time.mfu));
                json_object_set_new (j, "step_s",
                                     json_real (o->res.time.step_s));
                json_object_set_new (j, "mem_bytes",
                                     json_real (o->res.mem.total));
            }
            if (!o->ok)
                json_object_set_new (j, "reason", json_string (o->reason));
            json_array_append_new (rows, j);
        }
        json_object_set_new (root, "rows", rows);
        json_t *sum = agg_json (&all);
        json_t *bk = json_object ();
        json_object_set_new (bk, "throughput", agg_json (&kinds[0]));
        json_object_set_new (bk, "campaign", agg_json (&kinds[1]));
        json_object_set_new (sum, "by_kind", bk);
        json_t *bf = json_object ();
        for (size_t f = 0; f < n_fams; f++)
            json_object_set_new (bf, fams[f].name, agg_json (&fams[f]));
        json_object_set_new (sum, "by_family", bf);
        json_object_set_new (root, "summary", sum);
        rc = cli_print_json (root);
    } else {
        const char *h[] = {"ID", "KIND", "PREDICTED", "MEASURED", "ERR",
                           "LAYOUT / REASON"};
        struct cli_table *t = cli_table_create (6, h);
        for (size_t i = 0; i < vf.n; i++) {
            struct vres *o = &res[i];
            char p[32], m[32], e[32];
            snprintf (p, sizeof p, o->predicted > 0 ? "%.1f" : "-",
                      o->predicted);
            if (isnan (o->measured))
                snprintf (m, sizeof m, "-");
            else
                snprintf (m, sizeof m, "%.1f", o->measured);
            if (o->ok)
                snprintf (e, sizeof e, "%+.1f%%", 100 * o->rel_err);
            else
                snprintf (e, sizeof e, "unsupported");
            const char *c[6] = {vf.rows[i].f[C_ID],
                                o->campaign ? "gpu-h" : "tok/s/gpu", p, m, e,
                                o->ok ? o->layout : o->reason};
            cli_table_add (t, c);
        }
        cli_table_print (t);
        printf ("\nsummary (|relative error|; throughput rows in tokens/s "
                "per GPU, campaign rows in GPU-hours)\n");
        agg_print (&all);
        agg_print (&kinds[0]);
        agg_print (&kinds[1]);
        printf ("by source family\n");
        for (size_t f = 0; f < n_fams; f++)
            agg_print (&fams[f]);
        rc = EXIT_OK;
    }
done:
    for (size_t f = 0; f < n_fams; f++)
        free (fams[f].errs);
    free (all.errs);
    free (kinds[0].errs);
    free (kinds[1].errs);
    free (res);
    gp_zoo_destroy (zoo);
    gp_catalog_destroy (cat);
    vfile_free (&vf);
    return rc;
}

int cmd_validate (int argc, char **argv)
{
    /* 'validate [opts] inference ...': hand the rest, with the sub-word
     * as argv[0], to the inference validator.
     */
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-') {
            if ((!strcmp (argv[i], "--catalog") || !strcmp (argv[i], "--set"))
                && i + 1 < argc)
                i++;
            continue;
        }
        if (strcmp (argv[i], "inference"))
            break;
        char *sub[64];
        int n = 0;
        sub[n++] = argv[i];
        for (int j = 1; j < argc && n < 63; j++)
            if (j != i)
                sub[n++] = argv[j];
        sub[n] = NULL;
        return gp_validate_inference_cli (n, sub);
    }
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"catalog", required_argument, NULL, 'c'},
        {"set", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int as_json = 0;
    const char *dir = NULL;
    int o;
    optind = 0;
    opterr = 0;
    n_sets = 0;
    while ((o = getopt_long (argc, argv, "h", opts, NULL)) != -1) {
        switch (o) {
        case 'j':
            as_json = 1;
            break;
        case 's':
            if (parse_set (optarg))
                return cli_usage_error ("validate: bad --set '%s' (GEN.KEY="
                                        "VALUE, GEN ampere|hopper|blackwell|"
                                        "cdna3|other|all, KEY gemm_max|"
                                        "gemm_dim_half|attn|hbm|scale_up|"
                                        "scale_out|kernel_s)", optarg);
            break;
        case 'c':
            dir = optarg;
            break;
        case 'h':
            return cli_help ("validate");
        default:
            return cli_usage_error ("validate: unknown or incomplete option "
                                    "'%s' (see 'gpuplan validate --help')",
                                    argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return cli_usage_error ("validate: expected 'training FILE.csv' or "
                                "'inference FILE.csv'");
    if (strcmp (argv[optind], "training"))
        return cli_usage_error ("validate: unknown sub-word '%s' (expected "
                                "training or inference)", argv[optind]);
    if (optind + 2 != argc)
        return cli_usage_error ("validate training: expected one FILE.csv");
    return run_training (argv[optind + 1], as_json, dir);
}
