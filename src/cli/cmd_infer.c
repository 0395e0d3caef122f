/* cmd_infer.c - 'gpuplan infer': size a serving deployment.
 *
 * Reads the request from flags or a SPEC.yaml (docs/formats/infer.md),
 * evaluates every accelerator x weight precision asked for with the
 * library's layout choice and SLO sizing (gp_infer_choose), prices each
 * option from the catalog's on-demand instance prices, and prints a table
 * or one JSON document.  Exit 1 when no option meets the request.
 */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "gpuplan/infer.h"

const char cmd_infer_help[] =
    "NAME\n"
    "    gpuplan infer - size an LLM serving deployment against latency SLOs\n"
    "\n"
    "SYNOPSIS\n"
    "    gpuplan infer SPEC.yaml [OPTIONS]\n"
    "    gpuplan infer --model ID --gpu A[,B...] --rps R --prompt N --output N\n"
    "                  [--ttft-p95 T] [--tpot-p95 T] [OPTIONS]\n"
    "\n"
    "DESCRIPTION\n"
    "    For each accelerator and weight precision, picks the layout (tensor\n"
    "    parallel 1-8, pipeline across nodes when one node is not enough, or\n"
    "    a MIG slice for small models) that meets every SLO at the peak rate\n"
    "    with the fewest GPUs, and reports replicas, GPUs, nodes, latency at\n"
    "    peak, the autoscaling range, cost per hour and per million output\n"
    "    tokens (catalog on-demand prices; unknown when no priced instance\n"
    "    carries the accelerator) and the reason each option stops where it\n"
    "    does.  Latencies come from a discrete-event model of a continuous-\n"
    "    batching engine over a roofline step-time model\n"
    "    (docs/model/inference.md).  Flags override the spec.\n"
    "\n"
    "OPTIONS\n"
    "    --model ID          zoo model (gpuplan's data/models/models.csv)\n"
    "    --gpu LIST          catalog accelerator ids, comma-separated\n"
    "    --precision LIST    weight formats: bf16, fp16, fp8, int8, int4, fp4\n"
    "                        (default bf16)\n"
    "    --kv-precision P    KV-cache format (default fp8 for fp8/fp4 weights\n"
    "                        on parts with FP8, else bf16)\n"
    "    --engine E          trtllm, vllm, sglang (default vllm)\n"
    "    --tp N, --pp N      fix the layout (default: choose)\n"
    "    --ep N              MoE: expert-parallel ranks, dividing tp\n"
    "                        (default: choose among 1 and tp)\n"
    "    --rps R             peak request rate (requests/s)\n"
    "    --rps-trough R      lowest rate (autoscaling floor; default = peak)\n"
    "    --profile R,R,...   request rates over one day in equal periods\n"
    "                        (24 values = hourly); peak/trough default to\n"
    "                        its max/min; without it the day is 12 h at\n"
    "                        peak and 12 h at trough (fleet cost)\n"
    "    --prompt N, --output N   mean prompt and output tokens\n"
    "    --prompt-dist D, --output-dist D   fixed, uniform, exponential\n"
    "    --prompt-cv X, --output-cv X       spread of 'uniform' (default 0.3)\n"
    "    --ttft-p95 T, --ttft-p99 T, --tpot-p95 T, --e2e-p95 T   SLOs (800ms)\n"
    "    --headroom X        spare share of each replica's SLO rate (0.2)\n"
    "    --prefix-hit X      share of prompt tokens served from the cache\n"
    "    --attention-dp      MoE: attention data parallel over the tp ranks,\n"
    "                        dispatch/combine all-to-all to the expert ranks\n"
    "    --no-mig            do not consider MIG slices\n"
    "    --instance ID       price from this catalog instance\n"
    "    --seed N            workload seed (default 1)\n"
    "    --json              one JSON document (docs/formats/infer.md)\n"
    "    --catalog DIR       merge catalog CSV files found in DIR\n"
    "\n"
    "EXIT STATUS\n"
    "    0 at least one option meets the request; 1 none does (the reasons\n"
    "    are printed: the model fits nowhere, or an SLO is unreachable);\n"
    "    2 bad flag, spec or name.\n"
    "\n"
    "EXAMPLES\n"
    "    gpuplan infer --model llama3.3-70b --gpu H100-SXM,H200-SXM,MI300X,L40S\n"
    "        --precision fp8,bf16 --rps 40 --prompt 2000 --output 400\n"
    "        --ttft-p95 1s --tpot-p95 50ms\n"
    "    gpuplan infer examples/infer-llama70b-chat.yaml --json\n";

#define MAX_LIST 16
#define MAX_PROFILE 288 /* periods of a day (5-minute resolution) */

struct req {
    char model[64];
    struct gp_arch custom;
    int has_custom;
    char gpus[MAX_LIST][48];
    int n_gpus;
    enum gp_dtype prec[MAX_LIST];
    int n_prec;
    int kv_set;
    enum gp_dtype kv;
    enum gp_engine engine;
    int tp, pp, ep;
    double rps, rps_trough, rps_mean;
    double profile[MAX_PROFILE]; /* request rates over one day */
    size_t n_profile;
    double prompt, output;
    enum gp_len_dist pdist, odist;
    double pcv, ocv;
    struct gp_slo slo;
    double headroom, prefix_hit;
    int no_mig;
    int attn_dp;
    char instance[64];
    unsigned long long seed;
};

/* ============================ parsing helpers ========================== */

static int parse_list_gpus (struct req *q, const char *s)
{
    q->n_gpus = 0;
    const char *p = s;
    while (*p) {
        const char *c = strchr (p, ',');
        size_t n = c ? (size_t)(c - p) : strlen (p);
        if (n > 0 && q->n_gpus < MAX_LIST)
            snprintf (q->gpus[q->n_gpus++], 48, "%.*s", (int)n, p);
        p += n + (c ? 1 : 0);
        if (!c)
            break;
    }
    return q->n_gpus > 0 ? 0 : -1;
}

static int parse_list_prec (struct req *q, const char *s, gp_error_t *err)
{
    q->n_prec = 0;
    char buf[64];
    const char *p = s;
    while (*p) {
        const char *c = strchr (p, ',');
        size_t n = c ? (size_t)(c - p) : strlen (p);
        snprintf (buf, sizeof buf, "%.*s", (int)n, p);
        if (q->n_prec < MAX_LIST) {
            int rc = gp_dtype_parse (buf, &q->prec[q->n_prec], err);
            if (rc)
                return rc;
            q->n_prec++;
        }
        p += n + (c ? 1 : 0);
        if (!c)
            break;
    }
    return q->n_prec > 0 ? 0 : gp_errprintf (err, GP_EINVAL,
                                             "empty precision list");
}

static int parse_dist (const char *s, enum gp_len_dist *d, gp_error_t *err)
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

static int qty (const char *flag, const char *s, enum gp_quantity k,
                double *out, gp_error_t *err)
{
    int rc = gp_parse_quantity (s, k, out, err);
    if (rc)
        return gp_errprefix (err, "%s", flag);
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
    char name[96];
};

#define F(k, t, st, m, fl) {k, t, offsetof (st, m), 0, fl, 0, NULL, 0, 0}
#define FS(k, st, m) {k, GP_F_STRING, offsetof (st, m), sizeof ((st *)0)->m, \
                      0, 0, NULL, 0, 0}
#define FQ(k, st, m, q) {k, GP_F_QUANTITY, offsetof (st, m), 0, 0, q, NULL, \
                         0, 0}
#define FN(k, st, m) {k, GP_F_NODE, offsetof (st, m), 0, 0, 0, NULL, 0, 0}
#define FR(k, st, m, lo, hi) {k, GP_F_DOUBLE, offsetof (st, m), 0, 0, 0, NULL, \
                              lo, hi}

static int arch_from_node (const struct gp_doc *doc, json_t *node,
                           struct gp_arch *a, gp_error_t *err)
{
    static const struct gp_field f[] = {
        F ("layers", GP_F_INT, struct spec_arch, layers, GP_F_REQUIRED),
        F ("hidden", GP_F_INT, struct spec_arch, hidden, GP_F_REQUIRED),
        F ("ffn_hidden", GP_F_INT, struct spec_arch, ffn_hidden, 0),
        F ("heads", GP_F_INT, struct spec_arch, heads, GP_F_REQUIRED),
        F ("kv_heads", GP_F_INT, struct spec_arch, kv_heads, GP_F_REQUIRED),
        F ("head_dim", GP_F_INT, struct spec_arch, head_dim, GP_F_REQUIRED),
        F ("vocab", GP_F_INT, struct spec_arch, vocab, GP_F_REQUIRED),
        {"mlp", GP_F_ENUM, offsetof (struct spec_arch, mlp), 0, 0, 0,
         mlp_choices, 0, 0},
        {"attention", GP_F_ENUM, offsetof (struct spec_arch, attention), 0,
         0, 0, attn_choices, 0, 0},
        F ("tied_embeddings", GP_F_BOOL, struct spec_arch, tied, 0),
        F ("moe_experts", GP_F_INT, struct spec_arch, moe_e, 0),
        F ("moe_topk", GP_F_INT, struct spec_arch, moe_k, 0),
        F ("moe_ffn_hidden", GP_F_INT, struct spec_arch, moe_f, 0),
        F ("moe_shared_experts", GP_F_INT, struct spec_arch, moe_s, 0),
        F ("moe_dense_layers", GP_F_INT, struct spec_arch, moe_dense, 0),
        F ("mla_q_lora_rank", GP_F_INT, struct spec_arch, ql, 0),
        F ("mla_kv_lora_rank", GP_F_INT, struct spec_arch, kvl, 0),
        F ("mla_qk_nope_head_dim", GP_F_INT, struct spec_arch, nope, 0),
        F ("mla_qk_rope_head_dim", GP_F_INT, struct spec_arch, rope, 0),
        F ("mla_v_head_dim", GP_F_INT, struct spec_arch, vd, 0),
        FS ("name", struct spec_arch, name),
        {NULL, 0, 0, 0, 0, 0, NULL, 0, 0},
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

/* "R,R,..." request rates >= 0, at most MAX_PROFILE. */
static int parse_profile (struct req *q, const char *s)
{
    q->n_profile = 0;
    while (*s) {
        char *e;
        double v = strtod (s, &e);
        if (e == s || !(v >= 0) || !isfinite (v)
            || q->n_profile == MAX_PROFILE)
            return -1;
        q->profile[q->n_profile++] = v;
        if (*e == ',')
            e++;
        else if (*e)
            return -1;
        s = e;
    }
    return q->n_profile > 0 ? 0 : -1;
}

static int layout_int (const char *s, int *out)
{
    if (!*s || !strcmp (s, "choose")) {
        *out = 0;
        return 0;
    }
    char *e;
    long v = strtol (s, &e, 10);
    if (*e || v < 1 || v > 64)
        return -1;
    *out = (int)v;
    return 0;
}

static int load_spec (const char *path, struct req *q, gp_error_t *err)
{
    struct gp_doc *doc = gp_doc_load (path, err);
    if (!doc)
        return err ? err->code : GP_EIO;
    int rc = 0;
    json_t *root = gp_doc_root (doc);
    static const struct gp_field ft[] = {
        {"model", GP_F_NODE, offsetof (struct spec_top, model), 0,
         GP_F_REQUIRED, 0, NULL, 0, 0},
        FN ("serving", struct spec_top, serving),
        {"traffic", GP_F_NODE, offsetof (struct spec_top, traffic), 0,
         GP_F_REQUIRED, 0, NULL, 0, 0},
        FN ("slo", struct spec_top, slo),
        {"hardware", GP_F_NODE, offsetof (struct spec_top, hardware), 0,
         GP_F_REQUIRED, 0, NULL, 0, 0},
        {NULL, 0, 0, 0, 0, 0, NULL, 0, 0},
    };
    struct spec_top top;
    memset (&top, 0, sizeof top);
    if (!json_is_object (root)) {
        rc = gp_doc_errorf (doc, root, err, GP_EINVAL,
                            "expected a mapping with model, traffic, "
                            "hardware");
        goto out;
    }
    if ((rc = gp_doc_unpack (doc, root, "spec", ft, &top, err)))
        goto out;
    if (json_is_string (top.model)) {
        snprintf (q->model, sizeof q->model, "%s",
                  json_string_value (top.model));
    } else if (json_is_object (top.model)) {
        if ((rc = arch_from_node (doc, top.model, &q->custom, err)))
            goto out;
        q->has_custom = 1;
    } else {
        rc = gp_doc_errorf (doc, top.model, err, GP_EINVAL,
                            "model: expected a zoo id or a mapping of "
                            "dimensions");
        goto out;
    }
    if (top.serving) {
        static const struct gp_field fs[] = {
            FN ("precision", struct spec_serving, precision),
            FS ("kv_precision", struct spec_serving, kv_precision),
            FS ("engine", struct spec_serving, engine),
            FS ("tp", struct spec_serving, tp),
            FS ("pp", struct spec_serving, pp),
            FS ("ep", struct spec_serving, ep),
            FR ("prefix_hit", struct spec_serving, prefix_hit, 0, 0.99),
            F ("attention_dp", GP_F_BOOL, struct spec_serving, attention_dp,
               0),
            {NULL, 0, 0, 0, 0, 0, NULL, 0, 0},
        };
        struct spec_serving s;
        memset (&s, 0, sizeof s);
        s.prefix_hit = q->prefix_hit;
        /* tp/pp may be written as numbers: accept via node check */
        json_t *tpn = json_object_get (top.serving, "tp");
        json_t *ppn = json_object_get (top.serving, "pp");
        json_t *epn = json_object_get (top.serving, "ep");
        char tpbuf[16] = "", ppbuf[16] = "", epbuf[16] = "";
        if (epn && json_is_integer (epn))
            snprintf (epbuf, sizeof epbuf, "%lld",
                      (long long)json_integer_value (epn));
        if (tpn && json_is_integer (tpn))
            snprintf (tpbuf, sizeof tpbuf, "%lld",
                      (long long)json_integer_value (tpn));
        if (ppn && json_is_integer (ppn))
            snprintf (ppbuf, sizeof ppbuf, "%lld",
                      (long long)json_integer_value (ppn));
        json_t *copy = json_copy (top.serving);
        if (tpbuf[0])
            json_object_set_new (copy, "tp", json_string (tpbuf));
        if (ppbuf[0])
            json_object_set_new (copy, "pp", json_string (ppbuf));
        if (epbuf[0])
            json_object_set_new (copy, "ep", json_string (epbuf));
        rc = gp_doc_unpack (doc, copy, "serving", fs, &s, err);
        if (rc) {
            json_decref (copy);
            goto out;
        }
        char buf[256];
        if (s.precision) {
            if ((rc = node_list (doc, s.precision, "serving.precision", buf,
                                 sizeof buf, err))
                || (rc = parse_list_prec (q, buf, err))) {
                json_decref (copy);
                goto out;
            }
        }
        json_decref (copy);
        if (s.kv_precision[0]) {
            if ((rc = gp_dtype_parse (s.kv_precision, &q->kv, err)))
                goto out;
            q->kv_set = 1;
        }
        if (s.engine[0] && (rc = gp_engine_parse (s.engine, &q->engine, err)))
            goto out;
        if (layout_int (s.tp, &q->tp) || layout_int (s.pp, &q->pp)
            || layout_int (s.ep, &q->ep)) {
            rc = gp_doc_errorf (doc, top.serving, err, GP_EINVAL,
                                "serving: tp/pp/ep must be 1-64 or 'choose'");
            goto out;
        }
        q->prefix_hit = s.prefix_hit;
        q->attn_dp = s.attention_dp;
    }
    {
        static const struct gp_field fq[] = {
            {"prompt", GP_F_QUANTITY, offsetof (struct spec_traffic, prompt),
             0, GP_F_REQUIRED, GP_Q_COUNT, NULL, 0, 0},
            {"output", GP_F_QUANTITY, offsetof (struct spec_traffic, output),
             0, GP_F_REQUIRED, GP_Q_COUNT, NULL, 0, 0},
            FR ("rps", struct spec_traffic, rps, 0, 1e7),
            FR ("rps_trough", struct spec_traffic, rps_trough, 0, 1e7),
            FR ("rps_mean", struct spec_traffic, rps_mean, 0, 1e7),
            FS ("prompt_dist", struct spec_traffic, pdist),
            FS ("output_dist", struct spec_traffic, odist),
            FR ("prompt_cv", struct spec_traffic, pcv, 0, 0.577),
            FR ("output_cv", struct spec_traffic, ocv, 0, 0.577),
            FN ("profile", struct spec_traffic, profile),
            {NULL, 0, 0, 0, 0, 0, NULL, 0, 0},
        };
        struct spec_traffic t;
        memset (&t, 0, sizeof t);
        t.pcv = q->pcv, t.ocv = q->ocv;
        if ((rc = gp_doc_unpack (doc, top.traffic, "traffic", fq, &t, err)))
            goto out;
        q->prompt = t.prompt, q->output = t.output;
        q->rps = t.rps, q->rps_trough = t.rps_trough, q->rps_mean = t.rps_mean;
        q->pcv = t.pcv, q->ocv = t.ocv;
        if (t.pdist[0] && (rc = parse_dist (t.pdist, &q->pdist, err)))
            goto out;
        if (t.odist[0] && (rc = parse_dist (t.odist, &q->odist, err)))
            goto out;
        if (t.profile) {
            /* hourly (or any period) rates: peak, trough and mean */
            if (!json_is_array (t.profile) || !json_array_size (t.profile)) {
                rc = gp_doc_errorf (doc, t.profile, err, GP_EINVAL,
                                    "traffic.profile: expected a list of "
                                    "request rates");
                goto out;
            }
            double mx = 0, mn = 1e300, sum = 0;
            size_t i;
            json_t *v;
            if (json_array_size (t.profile) > MAX_PROFILE) {
                rc = gp_doc_errorf (doc, t.profile, err, GP_EINVAL,
                                    "traffic.profile: at most %d periods",
                                    MAX_PROFILE);
                goto out;
            }
            q->n_profile = 0;
            json_array_foreach (t.profile, i, v) {
                if (!json_is_number (v) || json_number_value (v) < 0) {
                    rc = gp_doc_errorf (doc, v, err, GP_EINVAL,
                                        "traffic.profile[%zu]: expected a "
                                        "rate >= 0",
                                        i);
                    goto out;
                }
                double x = json_number_value (v);
                q->profile[q->n_profile++] = x;
                mx = fmax (mx, x), mn = fmin (mn, x), sum += x;
            }
            if (q->rps <= 0)
                q->rps = mx;
            if (q->rps_trough <= 0)
                q->rps_trough = mn;
            q->rps_mean = sum / json_array_size (t.profile);
        }
    }
    if (top.slo) {
        static const struct gp_field fl[] = {
            FQ ("ttft_p95", struct spec_slo, ttft_p95, GP_Q_DURATION),
            FQ ("ttft_p99", struct spec_slo, ttft_p99, GP_Q_DURATION),
            FQ ("tpot_p95", struct spec_slo, tpot_p95, GP_Q_DURATION),
            FQ ("e2e_p95", struct spec_slo, e2e_p95, GP_Q_DURATION),
            {NULL, 0, 0, 0, 0, 0, NULL, 0, 0},
        };
        struct spec_slo s = {0, 0, 0, 0};
        if ((rc = gp_doc_unpack (doc, top.slo, "slo", fl, &s, err)))
            goto out;
        q->slo.ttft_p95_s = s.ttft_p95, q->slo.ttft_p99_s = s.ttft_p99;
        q->slo.tpot_p95_s = s.tpot_p95, q->slo.e2e_p95_s = s.e2e_p95;
    }
    {
        static const struct gp_field fh[] = {
            {"gpus", GP_F_NODE, offsetof (struct spec_hw, gpus), 0,
             GP_F_REQUIRED, 0, NULL, 0, 0},
            FR ("headroom", struct spec_hw, headroom, 0, 0.95),
            F ("mig", GP_F_BOOL, struct spec_hw, mig, 0),
            FS ("instance", struct spec_hw, instance),
            {NULL, 0, 0, 0, 0, 0, NULL, 0, 0},
        };
        struct spec_hw h;
        memset (&h, 0, sizeof h);
        h.headroom = q->headroom;
        h.mig = !q->no_mig;
        if ((rc = gp_doc_unpack (doc, top.hardware, "hardware", fh, &h, err)))
            goto out;
        char buf[MAX_LIST * 48];
        if ((rc = node_list (doc, h.gpus, "hardware.gpus", buf, sizeof buf,
                             err)))
            goto out;
        parse_list_gpus (q, buf);
        q->headroom = h.headroom;
        q->no_mig = !h.mig;
        if (h.instance[0])
            snprintf (q->instance, sizeof q->instance, "%s", h.instance);
    }
out:
    gp_doc_destroy (doc);
    return rc;
}

/* ================================ pricing ============================== */

struct price {
    const struct gp_instance *in;
    double usd_per_gpu_hr;
};

/* The named instance, else the first priced instance in catalog order
 * carrying the accelerator.
 */
static struct price price_for (const struct gp_catalog *cat,
                               const struct gp_accel *a, const char *inst)
{
    struct price p = {NULL, 0};
    for (size_t i = 0; i < gp_catalog_n_instances (cat); i++) {
        const struct gp_instance *in = gp_catalog_instance (cat, i);
        if (strcasecmp (in->accel_id, a->id) || in->on_demand_usd_hr <= 0
            || in->n_accels <= 0)
            continue;
        if (inst && *inst && strcasecmp (in->id, inst))
            continue;
        p.in = in;
        p.usd_per_gpu_hr = in->on_demand_usd_hr / in->n_accels;
        return p;
    }
    return p;
}

/* ================================ output =============================== */

struct opt_out {
    struct gp_infer_option o;
    struct price pr;
    int nodes;
    double usd_hr, usd_per_m, usd_hr_trough;
    struct gp_fleet fleet;       /* valid when o.feasible */
    int fleet_reps[MAX_PROFILE];
};

static int gpus_per_node (const struct opt_out *x)
{
    if (x->pr.in)
        return x->pr.in->n_accels;
    int d = x->o.accel->scale_up_domain;
    return d >= 8 ? 8 : d > 0 ? d : 1;
}

/* Nodes that 'reps' replicas of 'unit' GPUs occupy: whole nodes per replica
 * when a replica spans nodes, else replicas packed onto shared nodes.  Cloud
 * capacity is rented by the node, so costs are charged per node.
 */
static int nodes_for (const struct opt_out *x, int reps, double unit)
{
    int per_node = gpus_per_node (x);
    int gpr = x->o.gpus_per_replica;
    if (gpr > per_node)
        return reps * ((gpr + per_node - 1) / per_node);
    return (int)ceil ((double)reps * unit / per_node - 1e-9);
}

/* " ep8" for MoE layouts (expert parallel), "" otherwise. */
static const char *ep_tag (const struct opt_out *x)
{
    static char b[4][16];
    static int i;
    if (!x->o.model.cfg.arch || x->o.model.cfg.arch->moe_experts <= 0)
        return "";
    i = (i + 1) % 4;
    snprintf (b[i], sizeof b[i], " ep%d", x->o.ep > 0 ? x->o.ep : 1);
    return b[i];
}

static json_t *opt_json (const struct opt_out *x, const struct req *q)
{
    const struct gp_infer_option *o = &x->o;
    json_t *j = json_object ();
    json_object_set_new (j, "gpu", json_string (o->accel->id));
    json_object_set_new (j, "weight_precision",
                         json_string (gp_dtype_str (o->weight_dtype)));
    json_object_set_new (j, "kv_precision",
                         json_string (gp_dtype_str (o->kv_dtype)));
    json_object_set_new (j, "engine", json_string (gp_engine_str (q->engine)));
    json_object_set_new (j, "feasible", json_boolean (o->feasible));
    json_object_set_new (j, "reason", json_string (o->reason));
    if (!o->feasible)
        return j;
    json_t *l = json_object ();
    json_object_set_new (l, "tp", json_integer (o->tp));
    json_object_set_new (l, "pp", json_integer (o->pp));
    json_object_set_new (l, "ep", json_integer (o->ep > 0 ? o->ep : 1));
    json_object_set_new (l, "mig_profile",
                         o->slice[0] ? json_string (o->slice) : json_null ());
    json_object_set_new (l, "gpus_per_replica",
                         o->slice[0] ? json_real (o->gpu_share)
                                     : json_real (o->gpus_per_replica));
    json_object_set_new (j, "layout", l);
    json_object_set_new (j, "replicas", json_integer (o->size.replicas));
    json_object_set_new (j, "replicas_min", json_integer (o->size.replicas_min));
    json_object_set_new (j, "gpus", json_integer (o->gpus_whole));
    json_object_set_new (j, "nodes", json_integer (x->nodes));
    json_object_set_new (j, "rate_per_replica_rps",
                         json_real (o->size.rate_per_replica));
    json_object_set_new (j, "max_rate_per_replica_rps",
                         json_real (o->size.max_rate_per_replica));
    const struct gp_sim_result *r = &o->size.at_peak;
    json_t *lat = json_object ();
    json_object_set_new (lat, "rate_per_replica_rps",
                         json_real (q->rps / o->size.replicas));
    json_object_set_new (lat, "ttft_p50_s", json_real (r->ttft_p50_s));
    json_object_set_new (lat, "ttft_p95_s", json_real (r->ttft_p95_s));
    json_object_set_new (lat, "ttft_p99_s", json_real (r->ttft_p99_s));
    json_object_set_new (lat, "tpot_p50_s", json_real (r->tpot_p50_s));
    json_object_set_new (lat, "tpot_p95_s", json_real (r->tpot_p95_s));
    json_object_set_new (lat, "e2e_p95_s", json_real (r->e2e_p95_s));
    json_object_set_new (lat, "mean_batch", json_real (r->mean_batch));
    json_object_set_new (lat, "output_tokens_per_s_per_replica",
                         json_real (r->out_tok_s));
    json_object_set_new (j, "at_peak", lat);
    const struct gp_serve_model *m = &o->model;
    json_t *mem = json_object ();
    json_object_set_new (mem, "device_bytes", json_real (m->mem_bytes));
    json_object_set_new (mem, "weights_bytes_per_gpu",
                         json_real (m->weight_bytes));
    json_object_set_new (mem, "workspace_bytes_per_gpu",
                         json_real (m->act_bytes + m->runtime_bytes));
    json_object_set_new (mem, "kv_bytes_per_gpu", json_real (m->kv_bytes_avail));
    json_object_set_new (mem, "kv_bytes_per_token_per_gpu",
                         json_real (m->kv_bytes_per_token));
    json_object_set_new (mem, "kv_capacity_tokens",
                         json_real (m->kv_capacity_tokens));
    json_object_set_new (mem, "max_sequences",
                         json_real (floor (m->kv_capacity_tokens
                                           / (q->prompt + q->output))));
    json_object_set_new (j, "memory", mem);
    json_t *c = json_object ();
    if (x->pr.in) {
        json_object_set_new (c, "instance", json_string (x->pr.in->id));
        json_object_set_new (c, "cloud", json_string (x->pr.in->cloud));
        json_object_set_new (c, "region", json_string (x->pr.in->region));
        json_object_set_new (c, "price_date",
                             json_string (x->pr.in->price_date));
        json_object_set_new (c, "usd_per_gpu_hour",
                             json_real (x->pr.usd_per_gpu_hr));
        json_object_set_new (c, "usd_per_hour_at_peak", json_real (x->usd_hr));
        json_object_set_new (c, "usd_per_hour_at_trough",
                             json_real (x->usd_hr_trough));
        json_object_set_new (c, "usd_per_1m_output_tokens",
                             json_real (x->usd_per_m));
        json_object_set_new (j, "cost", c);
    } else {
        json_decref (c);
        json_object_set_new (j, "cost", json_null ());
    }
    if (x->o.feasible) {
        const struct gp_fleet *f = &x->fleet;
        json_t *fl = json_object (), *reps = json_array ();
        for (size_t i = 0; i < f->n_periods; i++)
            json_array_append_new (reps, json_integer (x->fleet_reps[i]));
        json_object_set_new (fl, "periods", json_integer ((json_int_t)
                                                          f->n_periods));
        json_object_set_new (fl, "hours_per_period",
                             json_real (f->hours_per_period));
        json_object_set_new (fl, "replicas_per_period", reps);
        json_object_set_new (fl, "replica_hours_per_day",
                             json_real (f->replica_hours_per_day));
        json_object_set_new (fl, "gpu_hours_per_day",
                             json_real (f->gpu_hours_per_day));
        json_object_set_new (fl, "output_tokens_per_day",
                             json_real (f->output_tokens_per_day));
        json_object_set_new (fl, "usd_per_day",
                             x->pr.in ? json_real (f->usd_per_day)
                                      : json_null ());
        json_object_set_new (fl, "usd_per_month",
                             x->pr.in ? json_real (f->usd_per_month)
                                      : json_null ());
        json_object_set_new (fl, "usd_per_1m_output_tokens",
                             x->pr.in ? json_real (f->usd_per_1m_output_tokens)
                                      : json_null ());
        json_object_set_new (j, "fleet", fl);
    } else {
        json_object_set_new (j, "fleet", json_null ());
    }
    return j;
}

static void fmt_ms (char *b, size_t n, double s)
{
    if (s >= 10)
        snprintf (b, n, "%.1f s", s);
    else
        snprintf (b, n, "%.0f ms", s * 1e3);
}

/* ================================= main ================================ */

int cmd_infer (int argc, char **argv)
{
    enum {
        O_MODEL = 256, O_GPU, O_PREC, O_KV, O_ENGINE, O_TP, O_PP, O_RPS,
        O_TROUGH, O_PROFILE, O_PROMPT, O_OUTPUT, O_PDIST, O_ODIST, O_PCV, O_OCV,
        O_TTFT95, O_TTFT99, O_TPOT95, O_E2E95, O_HEAD, O_HIT, O_NOMIG,
        O_INST, O_SEED, O_JSON, O_CAT, O_ADP, O_EP,
    };
    static const struct option opts[] = {
        {"model", required_argument, NULL, O_MODEL},
        {"gpu", required_argument, NULL, O_GPU},
        {"precision", required_argument, NULL, O_PREC},
        {"kv-precision", required_argument, NULL, O_KV},
        {"engine", required_argument, NULL, O_ENGINE},
        {"tp", required_argument, NULL, O_TP},
        {"ep", required_argument, NULL, O_EP},
        {"pp", required_argument, NULL, O_PP},
        {"rps", required_argument, NULL, O_RPS},
        {"rps-trough", required_argument, NULL, O_TROUGH},
        {"profile", required_argument, NULL, O_PROFILE},
        {"prompt", required_argument, NULL, O_PROMPT},
        {"output", required_argument, NULL, O_OUTPUT},
        {"prompt-dist", required_argument, NULL, O_PDIST},
        {"output-dist", required_argument, NULL, O_ODIST},
        {"prompt-cv", required_argument, NULL, O_PCV},
        {"output-cv", required_argument, NULL, O_OCV},
        {"ttft-p95", required_argument, NULL, O_TTFT95},
        {"ttft-p99", required_argument, NULL, O_TTFT99},
        {"tpot-p95", required_argument, NULL, O_TPOT95},
        {"e2e-p95", required_argument, NULL, O_E2E95},
        {"headroom", required_argument, NULL, O_HEAD},
        {"prefix-hit", required_argument, NULL, O_HIT},
        {"no-mig", no_argument, NULL, O_NOMIG},
        {"attention-dp", no_argument, NULL, O_ADP},
        {"instance", required_argument, NULL, O_INST},
        {"seed", required_argument, NULL, O_SEED},
        {"json", no_argument, NULL, O_JSON},
        {"catalog", required_argument, NULL, O_CAT},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct req q;
    memset (&q, 0, sizeof q);
    q.engine = GP_ENGINE_VLLM;
    q.headroom = 0.2;
    q.pcv = q.ocv = 0.3;
    q.seed = 1;
    q.prec[0] = GP_DT_BF16;
    q.n_prec = 1;
    int as_json = 0;
    const char *dir = NULL;
    gp_error_t err = {0};

    /* pass 1: find the spec (first non-option) and load it */
    const char *spec = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp (argv[i], "-h") || !strcmp (argv[i], "--help"))
            return cli_help ("infer");
        if (argv[i][0] != '-') {
            int prev_takes = 0;
            if (i > 1 && argv[i - 1][0] == '-' && argv[i - 1][1] == '-') {
                for (const struct option *o = opts; o->name; o++)
                    if (!strcmp (argv[i - 1] + 2, o->name))
                        prev_takes = o->has_arg == required_argument;
            }
            if (!prev_takes) {
                if (spec)
                    return cli_usage_error ("infer: more than one SPEC "
                                            "given ('%s', '%s')",
                                            spec, argv[i]);
                spec = argv[i];
            }
        }
    }
    if (spec && load_spec (spec, &q, &err))
        return cli_fail (&err);

    int o;
    optind = 0;
    opterr = 0;
    double v;
    while ((o = getopt_long (argc, argv, "h", opts, NULL)) != -1) {
        const char *fl = optind > 0 ? argv[optind - 1] : "";
        int rc = 0;
        switch (o) {
        case O_MODEL:
            snprintf (q.model, sizeof q.model, "%s", optarg);
            q.has_custom = 0;
            break;
        case O_GPU:
            if (parse_list_gpus (&q, optarg))
                return cli_usage_error ("infer: --gpu needs accelerator ids");
            break;
        case O_PREC:
            rc = parse_list_prec (&q, optarg, &err);
            break;
        case O_KV:
            rc = gp_dtype_parse (optarg, &q.kv, &err);
            q.kv_set = 1;
            break;
        case O_ENGINE:
            rc = gp_engine_parse (optarg, &q.engine, &err);
            break;
        case O_TP:
        case O_PP:
        case O_EP:
            if (layout_int (optarg, o == O_TP   ? &q.tp
                                    : o == O_PP ? &q.pp
                                                : &q.ep))
                return cli_usage_error ("infer: --%s must be 1-64 or "
                                        "'choose', not '%s'",
                                        o == O_TP   ? "tp"
                                        : o == O_PP ? "pp"
                                                    : "ep",
                                        optarg);
            break;
        case O_RPS:
            rc = qty ("--rps", optarg, GP_Q_COUNT, &q.rps, &err);
            break;
        case O_TROUGH:
            rc = qty ("--rps-trough", optarg, GP_Q_COUNT, &q.rps_trough, &err);
            break;
        case O_PROFILE:
            if (parse_profile (&q, optarg))
                return cli_usage_error ("infer: --profile: expected up to %d "
                                        "comma-separated rates >= 0",
                                        MAX_PROFILE);
            break;
        case O_PROMPT:
            rc = qty ("--prompt", optarg, GP_Q_COUNT, &q.prompt, &err);
            break;
        case O_OUTPUT:
            rc = qty ("--output", optarg, GP_Q_COUNT, &q.output, &err);
            break;
        case O_PDIST:
            rc = parse_dist (optarg, &q.pdist, &err);
            break;
        case O_ODIST:
            rc = parse_dist (optarg, &q.odist, &err);
            break;
        case O_PCV:
        case O_OCV:
            rc = qty (fl, optarg, GP_Q_COUNT, &v, &err);
            if (!rc && v > 0.577)
                return cli_usage_error ("infer: %s must be <= 0.577 (a "
                                        "uniform spread cannot reach 0)",
                                        fl);
            if (!rc)
                *(o == O_PCV ? &q.pcv : &q.ocv) = v;
            break;
        case O_TTFT95:
            rc = qty ("--ttft-p95", optarg, GP_Q_DURATION, &q.slo.ttft_p95_s,
                      &err);
            break;
        case O_TTFT99:
            rc = qty ("--ttft-p99", optarg, GP_Q_DURATION, &q.slo.ttft_p99_s,
                      &err);
            break;
        case O_TPOT95:
            rc = qty ("--tpot-p95", optarg, GP_Q_DURATION, &q.slo.tpot_p95_s,
                      &err);
            break;
        case O_E2E95:
            rc = qty ("--e2e-p95", optarg, GP_Q_DURATION, &q.slo.e2e_p95_s,
                      &err);
            break;
        case O_HEAD:
            rc = qty ("--headroom", optarg, GP_Q_COUNT, &q.headroom, &err);
            if (!rc && q.headroom >= 0.95)
                return cli_usage_error ("infer: --headroom must be below "
                                        "0.95");
            break;
        case O_HIT:
            rc = qty ("--prefix-hit", optarg, GP_Q_COUNT, &q.prefix_hit, &err);
            if (!rc && q.prefix_hit >= 1)
                return cli_usage_error ("infer: --prefix-hit must be below 1");
            break;
        case O_NOMIG:
            q.no_mig = 1;
            break;
        case O_ADP:
            q.attn_dp = 1;
            break;
        case O_INST:
            snprintf (q.instance, sizeof q.instance, "%s", optarg);
            break;
        case O_SEED:
            rc = qty ("--seed", optarg, GP_Q_COUNT, &v, &err);
            if (!rc)
                q.seed = (unsigned long long)v;
            break;
        case O_JSON:
            as_json = 1;
            break;
        case O_CAT:
            dir = optarg;
            break;
        case 'h':
            return cli_help ("infer");
        default:
            return cli_usage_error ("infer: unknown or incomplete option "
                                    "'%s' (see 'gpuplan infer --help')",
                                    fl);
        }
        if (rc) {
            err.code = GP_EINVAL;
            return cli_fail (&err);
        }
    }
    if (!q.model[0] && !q.has_custom)
        return cli_usage_error ("infer: no model (--model ID or a SPEC.yaml)");
    if (q.n_gpus == 0)
        return cli_usage_error ("infer: no accelerator (--gpu ID[,ID...])");
    if (q.n_profile > 0) {
        double mx = 0, mn = 1e300, sum = 0;
        for (size_t i = 0; i < q.n_profile; i++)
            mx = fmax (mx, q.profile[i]), mn = fmin (mn, q.profile[i]),
            sum += q.profile[i];
        if (q.rps <= 0)
            q.rps = mx;
        if (q.rps_trough <= 0)
            q.rps_trough = mn;
        q.rps_mean = sum / q.n_profile;
    }
    if (!(q.rps > 0))
        return cli_usage_error ("infer: no request rate (--rps R)");
    if (!(q.prompt >= 1) || !(q.output >= 1))
        return cli_usage_error ("infer: --prompt and --output must be >= 1 "
                                "token");
    if (q.rps_trough <= 0 || q.rps_trough > q.rps)
        q.rps_trough = q.rps;

    struct gp_catalog *cat = cli_catalog (dir, &err);
    if (!cat)
        return cli_fail (&err);
    struct gp_zoo *zoo = gp_zoo_load (NULL, &err);
    if (!zoo) {
        gp_catalog_destroy (cat);
        return cli_fail (&err);
    }
    int rc = EXIT_OK;
    const struct gp_arch *arch = q.has_custom ? &q.custom : NULL;
    const struct gp_accel *accs[MAX_LIST];
    struct opt_out *opts_out = NULL;
    if (!arch && !(arch = gp_zoo_find (zoo, q.model, &err))) {
        rc = cli_fail (&err);
        goto done;
    }
    for (int i = 0; i < q.n_gpus; i++)
        if (!(accs[i] = gp_catalog_find_accel (cat, q.gpus[i], &err))) {
            rc = cli_fail (&err);
            goto done;
        }
    size_t n_opt = (size_t)q.n_gpus * q.n_prec;
    opts_out = calloc (n_opt, sizeof *opts_out);
    if (!opts_out) {
        fprintf (stderr, "gpuplan: error: out of memory\n");
        rc = EXIT_INTERNAL;
        goto done;
    }
    struct gp_workload w;
    memset (&w, 0, sizeof w);
    w.in_len = q.prompt;
    w.out_len = q.output;
    w.in_dist = q.pdist, w.out_dist = q.odist;
    w.in_cv = q.pcv, w.out_cv = q.ocv;
    w.seed = q.seed;
    int best = -1;
    for (int g = 0; g < q.n_gpus; g++)
        for (int p = 0; p < q.n_prec; p++) {
            struct opt_out *x = &opts_out[g * q.n_prec + p];
            struct gp_serve_cfg c;
            memset (&c, 0, sizeof c);
            c.arch = arch;
            c.accel = accs[g];
            c.tp = q.tp, c.pp = q.pp, c.ep = q.ep;
            c.weight_dtype = q.prec[p];
            c.kv_dtype = q.kv_set ? q.kv
                         : ((q.prec[p] == GP_DT_FP8 || q.prec[p] == GP_DT_FP4)
                            && accs[g]->fp8_flops > 0)
                             ? GP_DT_FP8
                             : GP_DT_BF16;
            gp_engine_defaults (q.engine, &c.eng);
            c.prefix_hit = q.prefix_hit;
            c.attn_dp = q.attn_dp;
            if (gp_infer_choose (&c, cat, !q.no_mig, &w, &q.slo, q.rps,
                                 q.rps_trough, q.headroom, &x->o, &err)) {
                rc = cli_fail (&err);
                goto done;
            }
            x->pr = price_for (cat, accs[g], q.instance);
            if (!x->o.feasible)
                continue;
            int per_node = gpus_per_node (x);
            int gpr = x->o.gpus_per_replica;
            double unit = x->o.slice[0] ? x->o.gpu_share
                                        : (double)x->o.gpus_per_replica;
            if (gpr > per_node)
                x->nodes = x->o.size.replicas * ((gpr + per_node - 1)
                                                 / per_node);
            else
                x->nodes = (x->o.gpus_whole + per_node - 1) / per_node;
            double node_usd = x->pr.in ? x->pr.in->on_demand_usd_hr : 0.0;
            if (x->pr.in) {
                x->usd_hr = x->nodes * node_usd;
                x->usd_hr_trough =
                    nodes_for (x, x->o.size.replicas_min, unit) * node_usd;
                x->usd_per_m = x->usd_hr / (q.rps * q.output * 3600.0) * 1e6;
            }
            {
                /* the day: the profile, else 12 h at peak, 12 h at trough */
                double two[2] = {q.rps, q.rps_trough};
                const double *rates = q.n_profile ? q.profile : two;
                size_t nr = q.n_profile ? q.n_profile : 2;
                if (gp_infer_fleet (x->o.size.rate_per_replica, q.headroom,
                                    rates, nr, unit,
                                    x->pr.in ? x->pr.usd_per_gpu_hr : 0.0,
                                    q.output, x->fleet_reps, &x->fleet,
                                    &err)) {
                    rc = cli_fail (&err);
                    goto done;
                }
                if (x->pr.in) {
                    /* Rented by the node: charge whole nodes per period. */
                    struct gp_fleet *f = &x->fleet;
                    double day = 0.0;
                    for (size_t i = 0; i < f->n_periods; i++)
                        day += nodes_for (x, x->fleet_reps[i], unit)
                               * node_usd * f->hours_per_period;
                    f->usd_per_day = day;
                    f->usd_per_month = day * 365.0 / 12.0;
                    f->usd_per_1m_output_tokens =
                        f->output_tokens_per_day > 0
                            ? day / f->output_tokens_per_day * 1e6
                            : 0.0;
                }
            }
            int k = g * q.n_prec + p;
            if (best < 0) {
                best = k;
            } else {
                const struct opt_out *b = &opts_out[best];
                int cheaper = x->pr.in && b->pr.in
                                  ? x->usd_hr < b->usd_hr
                                  : (x->pr.in && !b->pr.in) ? 1
                                  : (!x->pr.in && b->pr.in) ? 0
                                                            : x->o.gpus
                                                                  < b->o.gpus;
                if (cheaper)
                    best = k;
            }
        }
    if (as_json) {
        json_t *root = json_object ();
        json_t *r = json_object ();
        json_object_set_new (r, "model", json_string (arch->id));
        json_object_set_new (r, "rps_peak", json_real (q.rps));
        json_object_set_new (r, "rps_trough", json_real (q.rps_trough));
        json_object_set_new (r, "prompt_tokens", json_real (q.prompt));
        json_object_set_new (r, "output_tokens", json_real (q.output));
        json_object_set_new (r, "ttft_p95_s", cli_json_known (q.slo.ttft_p95_s));
        json_object_set_new (r, "ttft_p99_s", cli_json_known (q.slo.ttft_p99_s));
        json_object_set_new (r, "tpot_p95_s", cli_json_known (q.slo.tpot_p95_s));
        json_object_set_new (r, "e2e_p95_s", cli_json_known (q.slo.e2e_p95_s));
        json_object_set_new (r, "headroom", json_real (q.headroom));
        json_object_set_new (r, "engine", json_string (gp_engine_str (q.engine)));
        json_object_set_new (root, "request", r);
        json_t *arr = json_array ();
        for (size_t i = 0; i < n_opt; i++)
            json_array_append_new (arr, opt_json (&opts_out[i], &q));
        json_object_set_new (root, "options", arr);
        json_object_set_new (root, "recommended",
                             best >= 0 ? json_integer (best) : json_null ());
        rc = cli_print_json (root);
        if (rc == EXIT_OK && best < 0)
            rc = EXIT_INFEASIBLE;
        if (best < 0)
            fprintf (stderr, "gpuplan: error: no option meets the request "
                             "(reasons in 'options[].reason')\n");
        goto done;
    }
    printf ("%s: %.4g req/s peak (trough %.4g), %.0f in / %.0f out tokens",
            arch->name[0] ? arch->name : arch->id, q.rps, q.rps_trough,
            q.prompt, q.output);
    {
        char a[32], b[32];
        printf ("; SLO");
        if (q.slo.ttft_p95_s > 0)
            fmt_ms (a, sizeof a, q.slo.ttft_p95_s), printf (" TTFT p95 %s", a);
        if (q.slo.ttft_p99_s > 0)
            fmt_ms (a, sizeof a, q.slo.ttft_p99_s), printf (" TTFT p99 %s", a);
        if (q.slo.tpot_p95_s > 0)
            snprintf (b, sizeof b, "%.1f ms", q.slo.tpot_p95_s * 1e3),
                printf (" TPOT p95 %s", b);
        if (q.slo.e2e_p95_s > 0)
            fmt_ms (a, sizeof a, q.slo.e2e_p95_s), printf (" e2e p95 %s", a);
        printf ("; headroom %.0f %%; engine %s\n\n", q.headroom * 100,
                gp_engine_str (q.engine));
    }
    const char *h[] = {"GPU", "WEIGHTS/KV", "LAYOUT", "REPLICAS", "GPUS",
                       "NODES", "TTFT p95", "TPOT p95", "$/h", "$/1M OUT"};
    struct cli_table *t = cli_table_create (10, h);
    for (size_t i = 0; i < n_opt; i++) {
        const struct opt_out *x = &opts_out[i];
        char b[9][48];
        snprintf (b[0], 48, "%s/%s", gp_dtype_str (x->o.weight_dtype),
                  gp_dtype_str (x->o.kv_dtype));
        if (!x->o.feasible) {
            const char *cells[10] = {x->o.accel->id, b[0], "infeasible", "-",
                                     "-", "-", "-", "-", "-", "-"};
            cli_table_add (t, cells);
            continue;
        }
        if (x->o.slice[0])
            snprintf (b[1], 48, "MIG %s", x->o.slice);
        else
            snprintf (b[1], 48, "tp%d pp%d%s", x->o.tp, x->o.pp,
                      ep_tag (x));
        if (x->o.size.replicas_min != x->o.size.replicas)
            snprintf (b[2], 48, "%d-%d", x->o.size.replicas_min,
                      x->o.size.replicas);
        else
            snprintf (b[2], 48, "%d", x->o.size.replicas);
        snprintf (b[3], 48, "%d", x->o.gpus_whole);
        snprintf (b[4], 48, "%d", x->nodes);
        fmt_ms (b[5], 48, x->o.size.at_peak.ttft_p95_s);
        snprintf (b[6], 48, "%.1f ms", x->o.size.at_peak.tpot_p95_s * 1e3);
        if (x->pr.in) {
            snprintf (b[7], 48, "%.2f", x->usd_hr);
            snprintf (b[8], 48, "%.3f", x->usd_per_m);
        } else {
            snprintf (b[7], 48, "unknown");
            snprintf (b[8], 48, "unknown");
        }
        const char *cells[10] = {x->o.accel->id, b[0], b[1], b[2], b[3],
                                 b[4], b[5], b[6], b[7], b[8]};
        cli_table_add (t, cells);
    }
    cli_table_print (t);
    printf ("\nWhy:\n");
    for (size_t i = 0; i < n_opt; i++) {
        const struct opt_out *x = &opts_out[i];
        printf ("  %s %s: ", x->o.accel->id, gp_dtype_str (x->o.weight_dtype));
        if (!x->o.feasible) {
            printf ("infeasible: %s\n", x->o.reason);
            continue;
        }
        const struct gp_serve_model *m = &x->o.model;
        printf ("weights %.1f GB/GPU, KV cache %.0f tokens (%.0f sequences of "
                "%.0f) per replica; one replica meets the SLOs up to %.2f "
                "req/s (saturates at %.2f), bound by %s",
                m->weight_bytes / 1e9, m->kv_capacity_tokens,
                floor (m->kv_capacity_tokens / (q.prompt + q.output)),
                q.prompt + q.output, x->o.size.rate_per_replica,
                x->o.size.max_rate_per_replica, x->o.reason);
        if (x->pr.in)
            printf ("; price %s %s (%s) $%.2f/node-h = $%.3f/GPU-h, price "
                    "date %s\n",
                    x->pr.in->cloud, x->pr.in->id, x->pr.in->region,
                    x->pr.in->on_demand_usd_hr, x->pr.usd_per_gpu_hr,
                    x->pr.in->price_date);
        else
            printf ("; cost unknown (no priced catalog instance with %s)\n",
                    x->o.accel->id);
        const struct gp_fleet *f = &x->fleet;
        char rr[32];
        if (f->replicas_min != f->replicas_max)
            snprintf (rr, sizeof rr, "%d-%d", f->replicas_min,
                      f->replicas_max);
        else
            snprintf (rr, sizeof rr, "%d", f->replicas_max);
        printf ("    over the day (%s): %s replicas, %.1f GPU-h/day",
                q.n_profile ? "traffic profile" : "12 h peak, 12 h trough",
                rr, f->gpu_hours_per_day);
        if (x->pr.in)
            printf (", $%.2f/day, $%.0f/month, $%.3f per 1M output tokens "
                    "(day average)\n",
                    f->usd_per_day, f->usd_per_month,
                    f->usd_per_1m_output_tokens);
        else
            printf (", cost unknown\n");
    }
    if (best >= 0) {
        const struct opt_out *x = &opts_out[best];
        char lay[64];
        if (x->o.slice[0])
            snprintf (lay, sizeof lay, "MIG %s", x->o.slice);
        else
            snprintf (lay, sizeof lay, "tp%d pp%d%s", x->o.tp, x->o.pp,
                      ep_tag (x));
        printf ("\nRecommended: %s %s/%s, %s, %d replicas at peak (%d at "
                "trough), %d GPUs on %d nodes (%s)\n",
                x->o.accel->id, gp_dtype_str (x->o.weight_dtype),
                gp_dtype_str (x->o.kv_dtype), lay, x->o.size.replicas,
                x->o.size.replicas_min, x->o.gpus_whole, x->nodes,
                x->pr.in ? "cheapest priced option"
                         : "fewest GPUs; no option is priced");
    } else {
        fprintf (stderr, "gpuplan: error: no option meets the request; see "
                         "'Why' above\n");
        rc = EXIT_INFEASIBLE;
    }
done:
    free (opts_out);
    gp_zoo_destroy (zoo);
    gp_catalog_destroy (cat);
    return rc;
}
