/* validate.c - predict published serving measurements row by row.
 *
 * Reads the inference validation schema (docs/formats/infer.md), builds the
 * row's model (zoo entry for what no column holds, columns for the rest),
 * replica layout, precisions and engine, runs the engine simulator in the
 * row's mode and compares output tokens/s (and mean TTFT / TPOT where the
 * row measured them).  Rows that cannot be modelled are kept with a reason.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpuplan/csv.h"
#include "gpuplan/infer.h"
#include "infer_private.h"

enum {
    C_ID, C_ZOO, C_LAYERS, C_HIDDEN, C_FFN, C_HEADS, C_KVH, C_HDIM, C_VOCAB,
    C_ATTN, C_MOE_E, C_MOE_K, C_MOE_F, C_GPU, C_NGPU, C_TP, C_PP, C_EP,
    C_WP, C_KVP, C_ENGINE, C_MODE, C_CONC, C_IN, C_OUT, C_MEAS, C_TTFT,
    C_TPOT, C_NOTES,
    /* optional: rate mode */
    C_RATE, C_MAXSEQ, C_MAXTOK, C_NPROMPT, C_TTFT90, C_TTFT99, C_TPOT90,
    C_TPOT99, C_E2E, C_E2E90, C_E2E99,
    C_ASYNC, /* optional: 1 when the engine overlapped its host work */
    C_RRR,   /* optional: the benchmark's random_range_ratio */
    C_HARNESS, /* optional: the benchmark harness that set the engine's
                * limits (trtllm-bench) */
    C_N
};

static const char *col_names[C_N] = {
    "id", "zoo", "layers", "hidden", "ffn_hidden", "heads", "kv_heads",
    "head_dim", "vocab", "attention", "moe_experts", "moe_topk",
    "moe_ffn_hidden", "gpu", "num_gpus", "tp", "pp", "ep",
    "weight_precision", "kv_precision", "engine", "mode", "concurrency",
    "input_len", "output_len", "measured_output_tok_s", "measured_ttft_ms",
    "measured_tpot_ms", "notes",
    "request_rate", "max_num_seqs", "max_num_batched_tokens", "num_prompts",
    "measured_ttft_p90_ms", "measured_ttft_p99_ms", "measured_tpot_p90_ms",
    "measured_tpot_p99_ms", "measured_e2e_ms", "measured_e2e_p90_ms",
    "measured_e2e_p99_ms", "async_scheduling", "random_range_ratio",
    "harness",
};

static void range_ratio_lengths (double r, struct gp_workload *w);

struct vctx {
    const char *path;
    const struct gp_catalog *cat;
    const struct gp_zoo *zoo;
    int col[C_N];
    struct gp_infer_val *out;
    size_t cap;
};

static const char *cell (const struct vctx *V, const struct gp_csv_row *r,
                         int c)
{
    int i = V->col[c];
    return i >= 0 && (size_t)i < r->n_fields ? r->fields[i] : "";
}

/* Parse a numeric cell; blank gives 0 and returns 0; junk returns -1. */
static int num (const struct vctx *V, const struct gp_csv_row *r, int c,
                double *v, gp_error_t *err)
{
    const char *s = cell (V, r, c);
    *v = 0;
    if (!*s)
        return 0;
    /* request_rate "inf": every request sent at once through the online
     * server (`vllm bench serve --request-rate inf`) */
    if (c == C_RATE && !strcmp (s, "inf")) {
        *v = INFINITY;
        return 0;
    }
    char *end;
    double x = strtod (s, &end);
    if (end == s || *end || !isfinite (x))
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: column '%s': not a number: '%s'",
                             V->path, r->line, col_names[c], s);
    if (x < 0)
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: column '%s': %s is negative (a count, "
                             "length, rate or time is >= 0)",
                             V->path, r->line, col_names[c], s);
    *v = x;
    return 0;
}

static void unsupported (struct gp_infer_val_row *o, const char *why)
{
    o->ok = 0;
    snprintf (o->reason, sizeof o->reason, "%s", why);
}

static double rel (double p, double m)
{
    return m > 0 ? (p - m) / m : 0;
}

/* The row's model: the zoo entry it names, overridden by its columns;
 * without a zoo entry, the documented defaults.  0, or -1 with 'o'
 * unsupported.
 */
static int row_arch (const struct vctx *V, const struct gp_csv_row *r,
                     const double *d, struct gp_arch *ap,
                     struct gp_infer_val_row *o)
{
    gp_error_t e = {0};
    struct gp_arch a;
    memset (&a, 0, sizeof a);
    const char *zoo = cell (V, r, C_ZOO);
    if (*zoo) {
        const struct gp_arch *z = gp_zoo_find (V->zoo, zoo, &e);
        if (!z) {
            unsupported (o, e.text);
            return -1;
        }
        a = *z;
    } else {
        snprintf (a.id, sizeof a.id, "custom");
        a.mlp = GP_MLP_SWIGLU;
    }
    /* the row's columns override the zoo where given */
    if (d[C_LAYERS] > 0)
        a.layers = (int)d[C_LAYERS];
    if (d[C_HIDDEN] > 0)
        a.hidden = (int)d[C_HIDDEN];
    if (d[C_FFN] > 0)
        a.ffn_hidden = (int)d[C_FFN];
    if (d[C_HEADS] > 0)
        a.heads = (int)d[C_HEADS];
    if (d[C_KVH] > 0)
        a.kv_heads = (int)d[C_KVH];
    if (d[C_HDIM] > 0)
        a.head_dim = (int)d[C_HDIM];
    if (d[C_VOCAB] > 0)
        a.vocab = (int)d[C_VOCAB];
    if (d[C_MOE_E] > 0) {
        a.moe_experts = (int)d[C_MOE_E];
        if (d[C_MOE_K] > 0)
            a.moe_topk = (int)d[C_MOE_K];
        if (d[C_MOE_F] > 0)
            a.moe_ffn_hidden = (int)d[C_MOE_F];
    }
    const char *at = cell (V, r, C_ATTN);
    if (!strcmp (at, "mha"))
        a.attention = GP_ATTN_MHA;
    else if (!strcmp (at, "gqa"))
        a.attention = GP_ATTN_GQA;
    else if (!strcmp (at, "mla"))
        a.attention = GP_ATTN_MLA;
    if (!*zoo) {
        /* no zoo entry: a 4h MLP is the 2-matrix GELU MLP of GPT-style
         * models, anything else is taken as SwiGLU (documented default) */
        a.mlp = a.ffn_hidden == 4 * a.hidden ? GP_MLP_GELU : GP_MLP_SWIGLU;
        if (a.kv_heads <= 0)
            a.kv_heads = a.heads;
        if (a.head_dim <= 0 && a.heads > 0)
            a.head_dim = a.hidden / a.heads;
    }
    if (gp_arch_check (&a, &e)) {
        unsupported (o, e.text);
        return -1;
    }
    *ap = a;
    return 0;
}

/* The row's serving configuration on its accelerator: parallelism,
 * precisions, engine.  0, or -1 with 'o' unsupported.
 */
static int row_cfg (const struct vctx *V, const struct gp_csv_row *r,
                    const double *d, const struct gp_arch *ap,
                    struct gp_serve_cfg *cp, enum gp_engine *engp,
                    struct gp_infer_val_row *o)
{
    gp_error_t e = {0};
    const struct gp_arch a = *ap;
    const struct gp_accel *acc = gp_catalog_find_accel (V->cat,
                                                        cell (V, r, C_GPU),
                                                        &e);
    if (!acc) {
        unsupported (o, e.text);
        return -1;
    }
    if (!(d[C_IN] > 0) || !(d[C_OUT] > 0)) {
        unsupported (o, "input_len/output_len not given: the workload is "
                        "not defined");
        return -1;
    }
    struct gp_serve_cfg c;
    memset (&c, 0, sizeof c);
    c.arch = ap;
    c.accel = acc;
    int ngpu = d[C_NGPU] > 0 ? (int)d[C_NGPU] : 1;
    c.pp = d[C_PP] > 0 ? (int)d[C_PP] : 1;
    c.tp = d[C_TP] > 0 ? (int)d[C_TP] : ngpu / c.pp;
    if (c.tp < 1)
        c.tp = 1;
    c.ep = (int)d[C_EP];
    if (a.moe_experts > 0 && strstr (cell (V, r, C_NOTES), "attention_dp"))
        c.attn_dp = 1;
    const char *wp = cell (V, r, C_WP), *kp = cell (V, r, C_KVP);
    if (!*wp) {
        unsupported (o, "weight_precision not given");
        return -1;
    }
    if (gp_dtype_parse (wp, &c.weight_dtype, &e)) {
        unsupported (o, e.text);
        return -1;
    }
    if (*kp) {
        if (gp_dtype_parse (kp, &c.kv_dtype, &e)) {
            unsupported (o, e.text);
            return -1;
        }
    } else {
        /* default: quantised checkpoints carry an FP8 KV cache */
        c.kv_dtype = c.weight_dtype == GP_DT_FP8 || c.weight_dtype == GP_DT_FP4
                         ? GP_DT_FP8
                         : c.weight_dtype;
    }
    enum gp_engine eng = GP_ENGINE_TRTLLM;
    const char *es = cell (V, r, C_ENGINE);
    if (*es && gp_engine_parse (es, &eng, &e)) {
        unsupported (o, e.text);
        return -1;
    }
    gp_engine_defaults (eng, &c.eng);
    /* the run's own batch limits (vLLM max_num_seqs,
     * max_num_batched_tokens) where the row gives them */
    if (d[C_MAXSEQ] >= 1)
        c.eng.max_batch = (int)d[C_MAXSEQ];
    if (d[C_MAXTOK] >= 1)
        c.eng.max_num_tokens = (int)d[C_MAXTOK];
    *cp = c;
    *engp = eng;
    return 0;
}

/* Rate mode: predicted and measured TTFT, TPOT and E2E mean/p90/p99.  An
 * online server's front end tokenizes each prompt before the engine sees
 * it: 'fe' seconds (gp__infer_frontend_s) added to every TTFT and E2E of
 * the row (fixed prompt lengths: a shift of every order statistic).
 */
static void rate_stats (const struct gp_sim_result *s, const double *d,
                        double fe, struct gp_infer_val_row *o)
{
    const double pred[9] = {s->ttft_mean_s + fe, s->ttft_p90_s + fe,
                            s->ttft_p99_s + fe,  s->tpot_mean_s,
                            s->tpot_p90_s,       s->tpot_p99_s,
                            s->e2e_mean_s + fe,  s->e2e_p90_s + fe,
                            s->e2e_p99_s + fe};
    const int meas[9] = {C_TTFT, C_TTFT90, C_TTFT99, C_TPOT, C_TPOT90,
                         C_TPOT99, C_E2E, C_E2E90, C_E2E99};
    for (int i = 0; i < 9; i++) {
        o->lat_pred_s[i] = pred[i];
        o->lat_meas_s[i] = d[meas[i]] / 1e3;
    }
}

/* Front end of the row's server, seconds added to every TTFT and E2E
 * (docs/model/inference.md, "Host work and front end"): tokenization of
 * the prompt (gp__infer_frontend_s) and the engine's per-request
 * front-end latency (engines.csv frontend_s).  Rate rows always have a
 * front end; closed-loop rows where the engine's front end was measured
 * (frontend_s > 0), so rows fitted without one do not move.
 */
static double row_frontend (const struct gp_serve_cfg *c, enum gp_engine eng,
                            const struct gp_workload *w, int rate_mode)
{
    const struct gp_engine_stack *st = gp_engine_stack_for (eng, c->accel);
    if (!rate_mode && !(w->arrivals == GP_ARR_CLOSED && st->frontend_s > 0))
        return 0.0;
    return gp__infer_frontend_s (w->in_len) + st->frontend_s;
}

/* The row's workload for one of its 'replicas' (mode offline,
 * concurrency, batch or rate); -1 with the row marked unsupported.
 */
static int row_workload (const struct vctx *V, const struct gp_csv_row *r,
                         const double *d, int replicas,
                         struct gp_workload *wp, struct gp_infer_val_row *o)
{
    struct gp_workload w;
    memset (&w, 0, sizeof w);
    w.in_len = d[C_IN];
    w.out_len = d[C_OUT];
    if (*cell (V, r, C_RRR))
        range_ratio_lengths (d[C_RRR], &w);
    w.seed = 1;
    const char *mode = cell (V, r, C_MODE);
    int conc = d[C_CONC] > 0 ? (int)d[C_CONC] : 1;
    if (!strcmp (mode, "offline")) {
        w.arrivals = GP_ARR_OFFLINE;
        /* the run's own request count where the row gives it (an
         * infinite-rate run of a benchmark client sends them all at
         * once); else the simulator's choice */
        if (d[C_NPROMPT] >= replicas)
            w.n_requests = (int)(d[C_NPROMPT] / replicas);
    } else if (!strcmp (mode, "concurrency")) {
        w.arrivals = GP_ARR_CLOSED;
        w.concurrency = (conc + replicas - 1) / replicas;
    } else if (!strcmp (mode, "batch")) {
        w.arrivals = GP_ARR_BATCH;
        w.concurrency = (conc + replicas - 1) / replicas;
    } else if (!strcmp (mode, "rate")) {
        if (!(d[C_RATE] > 0)) {
            unsupported (o, "mode rate needs request_rate (requests/s)");
            return -1;
        }
        /* open loop: Poisson arrivals split evenly over the replicas */
        w.arrivals = GP_ARR_POISSON;
        w.rate = d[C_RATE] / replicas;
        w.n_requests = d[C_NPROMPT] > 0 ? (int)(d[C_NPROMPT] / replicas) : 0;
        o->rate_mode = 1;
    } else {
        unsupported (o, "mode must be offline, concurrency, batch or rate");
        return -1;
    }
    *wp = w;
    return 0;
}

static void predict (const struct vctx *V, const struct gp_csv_row *r,
                     const double *d, struct gp_infer_val_row *o)
{
    gp_error_t e = {0};
    struct gp_arch a;
    struct gp_serve_cfg c;
    enum gp_engine eng;
    if (row_arch (V, r, d, &a, o) || row_cfg (V, r, d, &a, &c, &eng, o))
        return;
    c.arch = &a;
    snprintf (o->stack, sizeof o->stack, "%s/%s", gp_engine_str (eng),
              gp_engine_stack_name (c.accel));
    snprintf (o->generation, sizeof o->generation, "%s",
              c.accel && c.accel->generation ? c.accel->generation : "");
    int ngpu = d[C_NGPU] > 0 ? (int)d[C_NGPU] : 1;
    int replicas = ngpu / (c.tp * c.pp);
    if (replicas < 1)
        replicas = 1;
    snprintf (o->layout, sizeof o->layout, "tp%d pp%d%s x%d %s/%s kv %s",
              c.tp, c.pp, c.attn_dp ? " attn-dp" : "", replicas,
              gp_engine_str (eng), gp_dtype_str (c.weight_dtype),
              gp_dtype_str (c.kv_dtype));
    struct gp_serve_model m;
    if (gp_infer_prepare (&c, d[C_IN] + d[C_OUT], &m, &e)) {
        unsupported (o, e.text);
        return;
    }
    if (eng == GP_ENGINE_TRTLLM && !strcmp (cell (V, r, C_MODE), "offline")
        && !strcmp (cell (V, r, C_HARNESS), "trtllm-bench")
        && d[C_MAXSEQ] < 1 && d[C_MAXTOK] < 1
        && gp__trtllm_bench_settings (&m, d[C_IN], d[C_OUT], &c.eng)) {
        if (gp_infer_prepare (&c, d[C_IN] + d[C_OUT], &m, &e)) {
            unsupported (o, e.text);
            return;
        }
    }
    /* the run's engine version: its host work overlapped with the GPU's
     * or not, in place of the stack's current version
     * (docs/model/inference.md, "Host work and front end") */
    if (*cell (V, r, C_ASYNC))
        m.cfg.eng.host_overlap = d[C_ASYNC] == 1;
    if (a.moe_experts > 0)
        snprintf (o->layout, sizeof o->layout,
                  "tp%d pp%d ep%d%s x%d %s/%s kv %s", c.tp, c.pp, m.cfg.ep,
                  c.attn_dp ? " attn-dp" : "", replicas, gp_engine_str (eng),
                  gp_dtype_str (c.weight_dtype), gp_dtype_str (c.kv_dtype));
    struct gp_workload w;
    int conc = d[C_CONC] > 0 ? (int)d[C_CONC] : 1;
    if (row_workload (V, r, d, replicas, &w, o))
        return;
    /* an open-loop row of an engine whose front end is measured runs
     * behind that front end: one process, in order of arrival
     * (docs/model/inference.md, "Front-end throughput"); others add the
     * front end's latency afterwards (row_frontend) */
    const struct gp_engine_stack *st = gp_engine_stack_for (eng, c.accel);
    int fe_queue = o->rate_mode && st->frontend_s > 0;
    double fe_req = fe_queue ? gp__infer_frontend_s (w.in_len)
                                   + st->frontend_s
                             : 0.0;
    double fe_tok = fe_queue ? GP_INFER_FE_TOKEN_S : 0.0;
    /* a closed-loop row with its request count is a finite benchmark
     * run: the client's statistics over all its requests */
    int whole = w.arrivals == GP_ARR_CLOSED && d[C_NPROMPT] > 0;
    struct gp_sim_result s;
    if (gp__infer_simulate_run (&m, &w, 1, fe_req, fe_tok, whole, &s, &e)) {
        unsupported (o, e.text);
        return;
    }
    o->ok = 1;
    o->predicted = s.out_tok_s * replicas;
    o->rel_err = rel (o->predicted, o->measured);
    if (w.arrivals == GP_ARR_BATCH) {
        /* one static batch: tokens / (prefill + decode) of the batch */
        o->predicted = s.makespan_s > 0 ? w.out_len * conc / s.makespan_s
                                        : 0;
        o->rel_err = rel (o->predicted, o->measured);
    }
    double fe = fe_queue ? 0.0 : row_frontend (&c, eng, &w, o->rate_mode);
    if (fe > 0 && w.arrivals == GP_ARR_CLOSED && s.e2e_mean_s > 0) {
        /* a closed-loop client waits for the front end too: each cycle
         * lasts e2e + fe (Little's law, as the simulator's rate) */
        o->predicted *= s.e2e_mean_s / (s.e2e_mean_s + fe);
        o->rel_err = rel (o->predicted, o->measured);
    }
    if (o->rate_mode)
        rate_stats (&s, d, fe, o);
    o->ttft_pred_s = s.ttft_mean_s + fe;
    o->tpot_pred_s = s.tpot_mean_s;
    if (o->ttft_meas_s > 0)
        o->ttft_rel_err = rel (o->ttft_pred_s, o->ttft_meas_s);
    if (o->tpot_meas_s > 0)
        o->tpot_rel_err = rel (o->tpot_pred_s, o->tpot_meas_s);
}

/* Lengths of a `bench_serving --dataset-name random` run with range ratio
 * 'r' (docs/model/inference.md, "Length spread of random benchmarks"): each
 * length is drawn uniformly between r x N and N (sglang.bench_serving and
 * vllm benchmark_serving, sample_random_requests), so the row's mean
 * length is N (1 + r) / 2 and the coefficient of variation of a uniform
 * draw is (1 - r) / ((1 + r) sqrt 3).  r = 1: fixed lengths.
 */
static void range_ratio_lengths (double r, struct gp_workload *w)
{
    if (!(r >= 0 && r < 1))
        return;
    double cv = (1.0 - r) / ((1.0 + r) * sqrt (3.0));
    if (cv > 0.577)
        cv = 0.577; /* the simulator's uniform spread stays >= 0 */
    w->in_dist = w->out_dist = GP_LEN_UNIFORM;
    w->in_cv = w->out_cv = cv;
}

/* Cells that contradict each other: an error naming the row, never a
 * silent choice.
 */
static int row_checks (const struct vctx *V, const struct gp_csv_row *r,
                       const double *d, gp_error_t *err)
{
    if (*cell (V, r, C_ASYNC) && d[C_ASYNC] != 0 && d[C_ASYNC] != 1)
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: column 'async_scheduling': '%s' is "
                             "neither 0 nor 1",
                             V->path, r->line, cell (V, r, C_ASYNC));
    if (*cell (V, r, C_HARNESS) && strcmp (cell (V, r, C_HARNESS),
                                           "trtllm-bench"))
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: column 'harness': '%s' is not "
                             "trtllm-bench (or blank)",
                             V->path, r->line, cell (V, r, C_HARNESS));
    if (*cell (V, r, C_RRR) && !(d[C_RRR] >= 0 && d[C_RRR] <= 1))
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: column 'random_range_ratio': '%s' is "
                             "not between 0 and 1",
                             V->path, r->line, cell (V, r, C_RRR));
    if (*cell (V, r, C_RATE) && *cell (V, r, C_CONC))
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: columns 'request_rate' and "
                             "'concurrency' are both set: a row is either "
                             "open loop (request_rate, mode rate) or closed "
                             "loop (concurrency), not both",
                             V->path, r->line);
    if (!strcmp (cell (V, r, C_MODE), "rate") && *cell (V, r, C_RATE)
        && !(d[C_RATE] > 0))
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: column 'request_rate': %s requests/s "
                             "(a rate row needs a rate > 0)",
                             V->path, r->line, cell (V, r, C_RATE));
    return 0;
}

static int on_row (const struct gp_csv_row *r, void *arg, gp_error_t *err)
{
    struct vctx *V = arg;
    if (r->index == 0) {
        int hrc = gp_csv_header_unique (r, V->path, err);
        if (hrc)
            return hrc;
        for (int c = 0; c < C_N; c++) {
            V->col[c] = gp_csv_col (r, col_names[c]);
            if (V->col[c] < 0 && c != C_NOTES && c != C_EP && c < C_RATE)
                return gp_errprintf (err, GP_EPARSE,
                                     "%s:%zu: missing column '%s' (see "
                                     "docs/formats/infer.md)",
                                     V->path, r->line, col_names[c]);
        }
        return 0;
    }
    if (V->out->n_rows == V->cap) {
        size_t nc = V->cap ? 2 * V->cap : 32;
        void *p = realloc (V->out->rows, nc * sizeof *V->out->rows);
        if (!p)
            return gp_errprintf (err, GP_ENOMEM, "out of memory");
        V->out->rows = p;
        V->cap = nc;
    }
    struct gp_infer_val_row *o = &V->out->rows[V->out->n_rows];
    memset (o, 0, sizeof *o);
    snprintf (o->id, sizeof o->id, "%s", cell (V, r, C_ID));
    if (!o->id[0])
        return gp_errprintf (err, GP_EPARSE, "%s:%zu: column 'id': empty",
                             V->path, r->line);
    double d[C_N] = {0};
    static const int numeric[] = {C_LAYERS, C_HIDDEN, C_FFN,  C_HEADS,
                                  C_KVH,    C_HDIM,   C_VOCAB, C_MOE_E,
                                  C_MOE_K,  C_MOE_F,  C_NGPU, C_TP,
                                  C_PP,     C_EP,     C_CONC, C_IN,
                                  C_OUT,    C_MEAS,   C_TTFT, C_TPOT,
                                  C_RATE,   C_MAXSEQ, C_MAXTOK, C_NPROMPT,
                                  C_TTFT90, C_TTFT99, C_TPOT90, C_TPOT99,
                                  C_E2E,    C_E2E90,  C_E2E99, C_ASYNC,
                                  C_RRR};
    for (size_t i = 0; i < sizeof numeric / sizeof numeric[0]; i++) {
        int rc = num (V, r, numeric[i], &d[numeric[i]], err);
        if (rc)
            return rc;
    }
    int rc = row_checks (V, r, d, err);
    if (rc)
        return rc;
    V->out->n_rows++;
    o->measured = d[C_MEAS];
    o->ttft_meas_s = d[C_TTFT] / 1e3;
    o->tpot_meas_s = d[C_TPOT] / 1e3;
    if (!(o->measured > 0)) {
        unsupported (o, "no measured output tokens/s");
        return 0;
    }
    predict (V, r, d, o);
    return 0;
}

int gp_infer_validate (const char *path,
                       const struct gp_catalog *cat,
                       const struct gp_zoo *zoo,
                       struct gp_infer_val *out,
                       gp_error_t *err)
{
    if (!path || !cat || !zoo || !out)
        return gp_errprintf (err, GP_EINVAL, "validate: missing argument");
    struct vctx V;
    memset (&V, 0, sizeof V);
    V.path = path;
    V.cat = cat;
    V.zoo = zoo;
    struct gp_infer_val res = {NULL, 0};
    V.out = &res;
    int rc = gp_csv_parse_file (path, ',', on_row, &V, err);
    if (rc) {
        free (res.rows);
        return rc;
    }
    *out = res;
    return 0;
}

void gp_infer_val_free (struct gp_infer_val *v)
{
    if (!v)
        return;
    free (v->rows);
    v->rows = NULL;
    v->n_rows = 0;
}
