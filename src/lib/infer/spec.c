/* spec.c - the `gpuplan infer` request: defaults, the parsers of its
 * list-valued inputs, and the YAML spec loader (docs/formats/infer.md).
 * Strict keys; errors name file:line:col.
 */
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/infer.h"
#include "gpuplan/spec.h"

void gp_infer_request_defaults (struct gp_infer_request *rq)
{
    memset (rq, 0, sizeof *rq);
    rq->engine = GP_ENGINE_VLLM;
    rq->headroom = 0.2;
    rq->prompt_cv = rq->output_cv = 0.3;
    rq->seed = 1;
    rq->precisions[0] = GP_DT_BF16;
    rq->n_precisions = 1;
}

/* Call 'fn' on each comma-separated item of 's' (empty items skipped when
 * 'skip_empty'); stops at the first non-zero return.
 */
static int each_item (const char *s, int skip_empty,
                      int (*fn) (void *ctx, const char *item), void *ctx)
{
    char buf[128];
    const char *p = s;
    while (*p) {
        const char *c = strchr (p, ',');
        size_t n = c ? (size_t)(c - p) : strlen (p);
        snprintf (buf, sizeof buf, "%.*s", (int)n, p);
        if (n > 0 || !skip_empty) {
            int rc = fn (ctx, buf);
            if (rc)
                return rc;
        }
        p += n + (c ? 1 : 0);
        if (!c)
            break;
    }
    return 0;
}

struct list_ctx {
    struct gp_infer_request *rq;
    gp_error_t *err;
};

static int add_accel (void *ctx, const char *item)
{
    struct list_ctx *x = ctx;
    if (x->rq->n_accels == GP_INFER_MAX_LIST)
        return gp_errprintf (x->err, GP_EINVAL, "at most %d accelerators",
                             GP_INFER_MAX_LIST);
    snprintf (x->rq->accels[x->rq->n_accels++], sizeof x->rq->accels[0],
              "%s", item);
    return 0;
}

int gp_infer_request_set_accels (struct gp_infer_request *rq, const char *s,
                                 gp_error_t *err)
{
    struct list_ctx x = {rq, err};
    rq->n_accels = 0;
    int rc = each_item (s ? s : "", 1, add_accel, &x);
    if (rc)
        return rc;
    return rq->n_accels > 0 ? 0 : gp_errprintf (err, GP_EINVAL,
                                                "needs accelerator ids");
}

static int add_prec (void *ctx, const char *item)
{
    struct list_ctx *x = ctx;
    if (x->rq->n_precisions == GP_INFER_MAX_LIST)
        return gp_errprintf (x->err, GP_EINVAL, "at most %d precisions",
                             GP_INFER_MAX_LIST);
    int rc = gp_dtype_parse (item, &x->rq->precisions[x->rq->n_precisions],
                             x->err);
    if (rc)
        return rc;
    x->rq->n_precisions++;
    return 0;
}

int gp_infer_request_set_precisions (struct gp_infer_request *rq,
                                     const char *s, gp_error_t *err)
{
    struct list_ctx x = {rq, err};
    rq->n_precisions = 0;
    int rc = each_item (s ? s : "", 0, add_prec, &x);
    if (rc)
        return rc;
    return rq->n_precisions > 0 ? 0 : gp_errprintf (err, GP_EINVAL,
                                                    "empty precision list");
}

int gp_infer_request_set_profile (struct gp_infer_request *rq, const char *s,
                                  gp_error_t *err)
{
    rq->n_profile = 0;
    while (s && *s) {
        char *e;
        double v = strtod (s, &e);
        if (e == s || !(v >= 0) || !isfinite (v)
            || rq->n_profile == GP_INFER_MAX_PROFILE)
            break;
        rq->profile[rq->n_profile++] = v;
        if (*e == ',')
            e++;
        else if (*e)
            break;
        s = e;
        if (!*s)
            return 0;
    }
    rq->n_profile = 0;
    return gp_errprintf (err, GP_EINVAL,
                         "expected up to %d comma-separated rates >= 0",
                         GP_INFER_MAX_PROFILE);
}

int gp_len_dist_parse (const char *s, enum gp_len_dist *d, gp_error_t *err)
{
    if (!strcmp (s, "fixed"))
        *d = GP_LEN_FIXED;
    else if (!strcmp (s, "uniform"))
        *d = GP_LEN_UNIFORM;
    else if (!strcmp (s, "exponential"))
        *d = GP_LEN_EXPONENTIAL;
    else
        return gp_errprintf (err, GP_EINVAL,
                             "unknown length distribution '%s'; expected "
                             "fixed, uniform or exponential",
                             s);
    return 0;
}

int gp_infer_layout_parse (const char *s, int *out, gp_error_t *err)
{
    if (!*s || !strcmp (s, "choose")) {
        *out = 0;
        return 0;
    }
    char *e;
    long v = strtol (s, &e, 10);
    if (*e || v < 1 || v > 64)
        return gp_errprintf (err, GP_EINVAL,
                             "must be 1-64 or 'choose', not '%s'", s);
    *out = (int)v;
    return 0;
}

/* ================================ spec ================================= */

struct spec_top {
    json_t *model, *serving, *traffic, *slo, *hardware;
};
struct spec_serving {
    json_t *precision;
    char kv_precision[16], engine[32], tp[16], pp[16], ep[16];
    double prefix_hit;
    int attention_dp;
};
struct spec_traffic {
    double prompt, output, rps, rps_trough, rps_mean, pcv, ocv;
    char pdist[16], odist[16];
    json_t *profile;
};
struct spec_slo {
    double ttft_p95, ttft_p99, tpot_p95, e2e_p95;
};
struct spec_hw {
    json_t *gpus;
    double headroom;
    int mig;
    char instance[64];
};

static const char *const mlp_choices[] = {"gelu", "swiglu", NULL};
static const char *const attn_choices[] = {"mha", "gqa", "mla", NULL};
struct spec_arch {
    int layers, hidden, ffn_hidden, heads, kv_heads, head_dim, vocab;
    int mlp, attention, tied, moe_e, moe_k, moe_f, moe_s, moe_dense;
    int ql, kvl, nope, rope, vd;
    int chunk, global_every; /* chunked local attention */
    char name[96];
};

#define F(k, t, st, m, fl) {k, t, offsetof (st, m), 0, fl, 0, NULL, 0, 0}
/* an integer field with its documented range (docs/formats/infer.md) */
#define FI(k, st, m, fl, lo, hi) {k, GP_F_INT, offsetof (st, m), 0, fl, 0, \
                                  NULL, lo, hi}
#define FS(k, st, m) {k, GP_F_STRING, offsetof (st, m), sizeof ((st *)0)->m, \
                      0, 0, NULL, 0, 0}
#define FQ(k, st, m, q, lo, hi) {k, GP_F_QUANTITY, offsetof (st, m), 0, 0, q, \
                                 NULL, lo, hi}
#define FN(k, st, m) {k, GP_F_NODE, offsetof (st, m), 0, 0, 0, NULL, 0, 0}
#define FR(k, st, m, lo, hi) {k, GP_F_DOUBLE, offsetof (st, m), 0, 0, 0, NULL, \
                              lo, hi}
#define F_END {NULL, 0, 0, 0, 0, 0, NULL, 0, 0}

static int arch_from_node (const struct gp_doc *doc, json_t *node,
                           struct gp_arch *a, gp_error_t *err)
{
    static const struct gp_field f[] = {
        FI ("layers", struct spec_arch, layers, GP_F_REQUIRED, 1,
            10000),
        FI ("hidden", struct spec_arch, hidden, GP_F_REQUIRED, 1,
            1000000),
        FI ("ffn_hidden", struct spec_arch, ffn_hidden, 0, 0,
            10000000),
        FI ("heads", struct spec_arch, heads, GP_F_REQUIRED, 1,
            100000),
        FI ("kv_heads", struct spec_arch, kv_heads, GP_F_REQUIRED, 1,
            100000),
        FI ("head_dim", struct spec_arch, head_dim, GP_F_REQUIRED, 1,
            100000),
        FI ("vocab", struct spec_arch, vocab, GP_F_REQUIRED, 1,
            100000000),
        {"mlp", GP_F_ENUM, offsetof (struct spec_arch, mlp), 0, 0, 0,
         mlp_choices, 0, 0},
        {"attention", GP_F_ENUM, offsetof (struct spec_arch, attention), 0,
         0, 0, attn_choices, 0, 0},
        F ("tied_embeddings", GP_F_BOOL, struct spec_arch, tied, 0),
        FI ("moe_experts", struct spec_arch, moe_e, 0, 0,
            100000),
        FI ("moe_topk", struct spec_arch, moe_k, 0, 0,
            1024),
        FI ("moe_ffn_hidden", struct spec_arch, moe_f, 0, 0,
            10000000),
        FI ("moe_shared_experts", struct spec_arch, moe_s, 0, 0,
            1024),
        FI ("moe_dense_layers", struct spec_arch, moe_dense, 0, 0,
            10000),
        FI ("mla_q_lora_rank", struct spec_arch, ql, 0, 0,
            1000000),
        FI ("mla_kv_lora_rank", struct spec_arch, kvl, 0, 0,
            1000000),
        FI ("mla_qk_nope_head_dim", struct spec_arch, nope, 0, 0,
            100000),
        FI ("mla_qk_rope_head_dim", struct spec_arch, rope, 0, 0,
            100000),
        FI ("mla_v_head_dim", struct spec_arch, vd, 0, 0,
            100000),
        FI ("attn_chunk_size", struct spec_arch, chunk, 0, 0,
            100000000),
        FI ("attn_global_interval", struct spec_arch, global_every, 0, 0,
            10000),
        FS ("name", struct spec_arch, name),
        F_END,
    };
    struct spec_arch s;
    memset (&s, 0, sizeof s);
    s.mlp = 1;
    s.attention = 1;
    snprintf (s.name, sizeof s.name, "custom");
    int rc = gp_doc_unpack (doc, node, "model", f, &s, err);
    if (rc)
        return rc;
    memset (a, 0, sizeof *a);
    snprintf (a->id, sizeof a->id, "custom");
    snprintf (a->name, sizeof a->name, "%s", s.name);
    a->layers = s.layers, a->hidden = s.hidden, a->ffn_hidden = s.ffn_hidden;
    a->heads = s.heads, a->kv_heads = s.kv_heads, a->head_dim = s.head_dim;
    a->vocab = s.vocab;
    a->mlp = s.mlp ? GP_MLP_SWIGLU : GP_MLP_GELU;
    a->attention = (enum gp_attn)s.attention;
    a->tied_embeddings = s.tied;
    a->moe_experts = s.moe_e, a->moe_topk = s.moe_k, a->moe_ffn_hidden = s.moe_f;
    a->moe_shared_experts = s.moe_s, a->moe_dense_layers = s.moe_dense;
    a->mla_q_lora_rank = s.ql, a->mla_kv_lora_rank = s.kvl;
    a->mla_qk_nope_head_dim = s.nope, a->mla_qk_rope_head_dim = s.rope;
    a->mla_v_head_dim = s.vd;
    a->attn_chunk_size = s.chunk, a->attn_global_interval = s.global_every;
    if (s.global_every > 0 && s.chunk == 0)
        return gp_doc_errorf (doc, node, err, GP_EINVAL,
                              "model: attn_global_interval is set without "
                              "attn_chunk_size");
    if (s.global_every > s.layers)
        return gp_doc_errorf (doc, node, err, GP_EINVAL,
                              "model: attn_global_interval %d is more than "
                              "the %d layers", s.global_every, s.layers);
    a->source = "";
    a->source_date = "";
    rc = gp_arch_check (a, err);
    if (rc)
        return gp_doc_errorf (doc, node, err, rc, "model: %s", err->text);
    return 0;
}

/* A YAML sequence of strings or one comma-separated string, joined. */
static int node_list (const struct gp_doc *doc, json_t *n, const char *what,
                      char *out, size_t size, gp_error_t *err)
{
    if (json_is_string (n)) {
        snprintf (out, size, "%s", json_string_value (n));
        return 0;
    }
    if (!json_is_array (n) || json_array_size (n) == 0)
        return gp_doc_errorf (doc, n, err, GP_EINVAL,
                              "%s: expected a list of names", what);
    out[0] = 0;
    size_t i;
    json_t *v;
    json_array_foreach (n, i, v) {
        if (!json_is_string (v))
            return gp_doc_errorf (doc, v, err, GP_EINVAL,
                                  "%s[%zu]: expected a string", what, i);
        size_t l = strlen (out);
        snprintf (out + l, size - l, "%s%s", i ? "," : "",
                  json_string_value (v));
    }
    return 0;
}

/* tp/pp/ep may be written as numbers: a copy of 'serving' with them as
 * strings (the caller decrefs).
 */
static json_t *serving_strings (json_t *serving)
{
    json_t *copy = json_copy (serving);
    static const char *const keys[] = {"tp", "pp", "ep"};
    for (int i = 0; copy && i < 3; i++) {
        json_t *n = json_object_get (serving, keys[i]);
        if (n && json_is_integer (n)) {
            char buf[32];
            snprintf (buf, sizeof buf, "%lld",
                      (long long)json_integer_value (n));
            json_object_set_new (copy, keys[i], json_string (buf));
        }
    }
    return copy;
}

static int load_serving (const struct gp_doc *doc, json_t *node,
                         struct gp_infer_request *q, gp_error_t *err)
{
    static const struct gp_field fs[] = {
        FN ("precision", struct spec_serving, precision),
        FS ("kv_precision", struct spec_serving, kv_precision),
        FS ("engine", struct spec_serving, engine),
        FS ("tp", struct spec_serving, tp),
        FS ("pp", struct spec_serving, pp),
        FS ("ep", struct spec_serving, ep),
        FR ("prefix_hit", struct spec_serving, prefix_hit, 0, 0.99),
        F ("attention_dp", GP_F_BOOL, struct spec_serving, attention_dp, 0),
        F_END,
    };
    struct spec_serving s;
    memset (&s, 0, sizeof s);
    s.prefix_hit = q->prefix_hit;
    json_t *copy = serving_strings (node);
    if (!copy)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    int rc = gp_doc_unpack (doc, copy, "serving", fs, &s, err);
    char buf[256];
    if (!rc && s.precision)
        if (!(rc = node_list (doc, s.precision, "serving.precision", buf,
                              sizeof buf, err)))
            rc = gp_infer_request_set_precisions (q, buf, err);
    json_decref (copy);
    if (rc)
        return rc;
    if (s.kv_precision[0]) {
        if ((rc = gp_dtype_parse (s.kv_precision, &q->kv_dtype, err)))
            return rc;
        q->kv_set = 1;
    }
    if (s.engine[0] && (rc = gp_engine_parse (s.engine, &q->engine, err)))
        return rc;
    if (gp_infer_layout_parse (s.tp, &q->tp, NULL)
        || gp_infer_layout_parse (s.pp, &q->pp, NULL)
        || gp_infer_layout_parse (s.ep, &q->ep, NULL))
        return gp_doc_errorf (doc, node, err, GP_EINVAL,
                              "serving: tp/pp/ep must be 1-64 or 'choose'");
    q->prefix_hit = s.prefix_hit;
    q->attn_dp = s.attention_dp;
    return 0;
}

/* traffic.profile: hourly (or any period) rates: peak, trough and mean */
static int load_profile (const struct gp_doc *doc, json_t *p,
                         struct gp_infer_request *q, gp_error_t *err)
{
    if (!json_is_array (p) || !json_array_size (p))
        return gp_doc_errorf (doc, p, err, GP_EINVAL,
                              "traffic.profile: expected a list of request "
                              "rates");
    if (json_array_size (p) > GP_INFER_MAX_PROFILE)
        return gp_doc_errorf (doc, p, err, GP_EINVAL,
                              "traffic.profile: at most %d periods",
                              GP_INFER_MAX_PROFILE);
    double mx = 0, mn = 1e300, sum = 0;
    size_t i;
    json_t *v;
    q->n_profile = 0;
    json_array_foreach (p, i, v) {
        if (!json_is_number (v) || json_number_value (v) < 0)
            return gp_doc_errorf (doc, v, err, GP_EINVAL,
                                  "traffic.profile[%zu]: expected a rate "
                                  ">= 0",
                                  i);
        double x = json_number_value (v);
        q->profile[q->n_profile++] = x;
        mx = fmax (mx, x), mn = fmin (mn, x), sum += x;
    }
    if (q->rps_peak <= 0)
        q->rps_peak = mx;
    if (q->rps_trough <= 0)
        q->rps_trough = mn;
    q->rps_mean = sum / json_array_size (p);
    return 0;
}

static int load_traffic (const struct gp_doc *doc, json_t *node,
                         struct gp_infer_request *q, gp_error_t *err)
{
    static const struct gp_field fq[] = {
        {"prompt", GP_F_QUANTITY, offsetof (struct spec_traffic, prompt), 0,
         GP_F_REQUIRED, GP_Q_COUNT, NULL, 1, 1e7},
        {"output", GP_F_QUANTITY, offsetof (struct spec_traffic, output), 0,
         GP_F_REQUIRED, GP_Q_COUNT, NULL, 1, 65536},
        FR ("rps", struct spec_traffic, rps, 0, 1e7),
        FR ("rps_trough", struct spec_traffic, rps_trough, 0, 1e7),
        FR ("rps_mean", struct spec_traffic, rps_mean, 0, 1e7),
        FS ("prompt_dist", struct spec_traffic, pdist),
        FS ("output_dist", struct spec_traffic, odist),
        FR ("prompt_cv", struct spec_traffic, pcv, 0, 0.577),
        FR ("output_cv", struct spec_traffic, ocv, 0, 0.577),
        FN ("profile", struct spec_traffic, profile),
        F_END,
    };
    struct spec_traffic t;
    memset (&t, 0, sizeof t);
    t.pcv = q->prompt_cv, t.ocv = q->output_cv;
    int rc = gp_doc_unpack (doc, node, "traffic", fq, &t, err);
    if (rc)
        return rc;
    /* rps 0 means "from the profile": without one it is no rate at all */
    const json_t *rps = json_object_get (node, "rps");
    if (rps && !(t.rps > 0) && !t.profile)
        return gp_doc_errorf (doc, rps, err, GP_EINVAL,
                              "field 'traffic.rps': 0 needs a "
                              "traffic.profile to take the rate from");
    q->prompt = t.prompt, q->output = t.output;
    q->rps_peak = t.rps, q->rps_trough = t.rps_trough;
    q->rps_mean = t.rps_mean;
    q->prompt_cv = t.pcv, q->output_cv = t.ocv;
    if (t.pdist[0] && (rc = gp_len_dist_parse (t.pdist, &q->prompt_dist, err)))
        return rc;
    if (t.odist[0] && (rc = gp_len_dist_parse (t.odist, &q->output_dist, err)))
        return rc;
    return t.profile ? load_profile (doc, t.profile, q, err) : 0;
}

static int load_slo (const struct gp_doc *doc, json_t *node,
                     struct gp_infer_request *q, gp_error_t *err)
{
    static const struct gp_field fl[] = {
        FQ ("ttft_p95", struct spec_slo, ttft_p95, GP_Q_DURATION, 1e-4,
            86400),
        FQ ("ttft_p99", struct spec_slo, ttft_p99, GP_Q_DURATION, 1e-4,
            86400),
        FQ ("tpot_p95", struct spec_slo, tpot_p95, GP_Q_DURATION, 1e-4,
            86400),
        FQ ("e2e_p95", struct spec_slo, e2e_p95, GP_Q_DURATION, 1e-4,
            86400),
        F_END,
    };
    struct spec_slo s = {0, 0, 0, 0};
    int rc = gp_doc_unpack (doc, node, "slo", fl, &s, err);
    if (rc)
        return rc;
    q->slo.ttft_p95_s = s.ttft_p95, q->slo.ttft_p99_s = s.ttft_p99;
    q->slo.tpot_p95_s = s.tpot_p95, q->slo.e2e_p95_s = s.e2e_p95;
    return 0;
}

static int load_hardware (const struct gp_doc *doc, json_t *node,
                          struct gp_infer_request *q, gp_error_t *err)
{
    static const struct gp_field fh[] = {
        {"gpus", GP_F_NODE, offsetof (struct spec_hw, gpus), 0,
         GP_F_REQUIRED, 0, NULL, 0, 0},
        FR ("headroom", struct spec_hw, headroom, 0, 0.95),
        F ("mig", GP_F_BOOL, struct spec_hw, mig, 0),
        FS ("instance", struct spec_hw, instance),
        F_END,
    };
    struct spec_hw h;
    memset (&h, 0, sizeof h);
    h.headroom = q->headroom;
    h.mig = !q->no_mig;
    int rc = gp_doc_unpack (doc, node, "hardware", fh, &h, err);
    if (rc)
        return rc;
    char buf[GP_INFER_MAX_LIST * 48 + 64];
    if ((rc = node_list (doc, h.gpus, "hardware.gpus", buf, sizeof buf, err)))
        return rc;
    gp_error_t e = {0};
    if (gp_infer_request_set_accels (q, buf, &e))
        return gp_doc_errorf (doc, h.gpus, err, GP_EINVAL,
                              "hardware.gpus: %s", e.text);
    q->headroom = h.headroom;
    q->no_mig = !h.mig;
    if (h.instance[0]) {
        snprintf (q->instance, sizeof q->instance, "%s", h.instance);
        int line = 0, col = 0;
        gp_doc_pos (doc, json_object_get (node, "instance"), &line, &col);
        snprintf (q->instance_origin, sizeof q->instance_origin,
                  "%s:%d:%d: hardware.instance", gp_doc_name (doc), line,
                  col);
    }
    return 0;
}

static int load_model (const struct gp_doc *doc, json_t *node,
                       struct gp_infer_request *q, gp_error_t *err)
{
    if (json_is_string (node)) {
        snprintf (q->model, sizeof q->model, "%s", json_string_value (node));
        q->has_arch = 0;
        return 0;
    }
    if (json_is_object (node)) {
        int rc = arch_from_node (doc, node, &q->arch, err);
        if (!rc)
            q->has_arch = 1;
        return rc;
    }
    return gp_doc_errorf (doc, node, err, GP_EINVAL,
                          "model: expected a zoo id or a mapping of "
                          "dimensions");
}

static int spec_from_doc (struct gp_doc *doc, struct gp_infer_request *q,
                          gp_error_t *err);

int gp_infer_spec_load (const char *path, struct gp_infer_request *q,
                        gp_error_t *err)
{
    if (!path || !q)
        return gp_errprintf (err, GP_EINVAL, "infer spec: missing argument");
    struct gp_doc *doc = gp_doc_load (path, err);
    if (!doc)
        return err ? err->code : GP_EIO;
    return spec_from_doc (doc, q, err);
}

int gp_infer_spec_parse (const char *text, size_t len, const char *name,
                         struct gp_infer_request *q, gp_error_t *err)
{
    if (!text || !name || !q)
        return gp_errprintf (err, GP_EINVAL, "infer spec: missing argument");
    struct gp_doc *doc = gp_doc_parse (text, len, name, err);
    if (!doc)
        return err ? err->code : GP_EPARSE;
    return spec_from_doc (doc, q, err);
}

/* Read the spec 'doc' into 'q' and free 'doc'. */
static int spec_from_doc (struct gp_doc *doc, struct gp_infer_request *q,
                          gp_error_t *err)
{
    static const struct gp_field ft[] = {
        {"model", GP_F_NODE, offsetof (struct spec_top, model), 0,
         GP_F_REQUIRED, 0, NULL, 0, 0},
        FN ("serving", struct spec_top, serving),
        {"traffic", GP_F_NODE, offsetof (struct spec_top, traffic), 0,
         GP_F_REQUIRED, 0, NULL, 0, 0},
        FN ("slo", struct spec_top, slo),
        {"hardware", GP_F_NODE, offsetof (struct spec_top, hardware), 0,
         GP_F_REQUIRED, 0, NULL, 0, 0},
        F_END,
    };
    json_t *root = gp_doc_root (doc);
    struct spec_top top;
    memset (&top, 0, sizeof top);
    int rc;
    if (!json_is_object (root))
        rc = gp_doc_errorf (doc, root, err, GP_EINVAL,
                            "expected a mapping with model, traffic, "
                            "hardware");
    else if (!(rc = gp_doc_unpack (doc, root, "spec", ft, &top, err))
             && !(rc = load_model (doc, top.model, q, err))
             && !(top.serving && (rc = load_serving (doc, top.serving, q,
                                                     err)))
             && !(rc = load_traffic (doc, top.traffic, q, err))
             && !(top.slo && (rc = load_slo (doc, top.slo, q, err))))
        rc = load_hardware (doc, top.hardware, q, err);
    gp_doc_destroy (doc);
    return rc;
}
