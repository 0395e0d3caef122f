/* infer_json.c - the inference plan as one JSON document
 * (docs/formats/infer.md, "gpuplan infer --json").
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/infer.h"

static void set (json_t *o, const char *k, json_t *v)
{
    json_object_set_new (o, k, v);
}

/* A number, or null when 'v' is 0 (unset). */
static json_t *known (double v)
{
    return v > 0 ? json_real (v) : json_null ();
}

static json_t *request_json (const struct gp_infer_plan_result *res)
{
    const struct gp_infer_request *q = &res->request;
    json_t *r = json_object ();
    set (r, "model", json_string (res->arch.id));
    set (r, "rps_peak", json_real (q->rps_peak));
    set (r, "rps_trough", json_real (q->rps_trough));
    set (r, "prompt_tokens", json_real (q->prompt));
    set (r, "output_tokens", json_real (q->output));
    set (r, "ttft_p95_s", known (q->slo.ttft_p95_s));
    set (r, "ttft_p99_s", known (q->slo.ttft_p99_s));
    set (r, "tpot_p95_s", known (q->slo.tpot_p95_s));
    set (r, "e2e_p95_s", known (q->slo.e2e_p95_s));
    set (r, "headroom", json_real (q->headroom));
    set (r, "engine", json_string (gp_engine_str (q->engine)));
    return r;
}

static json_t *layout_json (const struct gp_infer_option *o)
{
    json_t *l = json_object ();
    set (l, "tp", json_integer (o->tp));
    set (l, "pp", json_integer (o->pp));
    set (l, "ep", json_integer (o->ep > 0 ? o->ep : 1));
    set (l, "mig_profile", o->slice[0] ? json_string (o->slice) : json_null ());
    set (l, "gpus_per_replica", o->slice[0] ? json_real (o->gpu_share)
                                            : json_real (o->gpus_per_replica));
    if (o->slice[0])
        set (l, "slices_per_gpu", json_integer (o->slices_per_gpu));
    return l;
}

static json_t *at_peak_json (const struct gp_infer_option *o, double rps)
{
    const struct gp_sim_result *r = &o->size.at_peak;
    json_t *lat = json_object ();
    set (lat, "rate_per_replica_rps", json_real (rps / o->size.replicas));
    set (lat, "ttft_mean_s", json_real (r->ttft_mean_s));
    set (lat, "ttft_p50_s", json_real (r->ttft_p50_s));
    set (lat, "ttft_p95_s", json_real (r->ttft_p95_s));
    set (lat, "ttft_p99_s", json_real (r->ttft_p99_s));
    set (lat, "tpot_mean_s", json_real (r->tpot_mean_s));
    set (lat, "tpot_p50_s", json_real (r->tpot_p50_s));
    set (lat, "tpot_p95_s", json_real (r->tpot_p95_s));
    set (lat, "e2e_mean_s", json_real (r->e2e_mean_s));
    set (lat, "e2e_p95_s", json_real (r->e2e_p95_s));
    set (lat, "mean_batch", json_real (r->mean_batch));
    set (lat, "output_tokens_per_s_per_replica", json_real (r->out_tok_s));
    return lat;
}

static json_t *memory_json (const struct gp_serve_model *m, double seq)
{
    json_t *mem = json_object ();
    set (mem, "device_bytes", json_real (m->mem_bytes));
    set (mem, "weights_bytes_per_gpu", json_real (m->weight_bytes));
    set (mem, "workspace_bytes_per_gpu",
         json_real (m->act_bytes + m->runtime_bytes));
    set (mem, "kv_bytes_per_gpu", json_real (m->kv_bytes_avail));
    set (mem, "kv_bytes_per_token_per_gpu", json_real (m->kv_bytes_per_token));
    set (mem, "kv_capacity_tokens", json_real (m->kv_capacity_tokens));
    set (mem, "max_sequences", json_real (floor (m->kv_capacity_tokens / seq)));
    return mem;
}

/* The instance's ';'-separated price flags as an array of strings. */
static json_t *flags_json (const char *flags)
{
    json_t *a = json_array ();
    const char *p = flags ? flags : "";
    while (*p) {
        const char *c = strchr (p, ';');
        size_t n = c ? (size_t)(c - p) : strlen (p);
        char buf[96];
        snprintf (buf, sizeof buf, "%.*s", (int)n, p);
        if (n > 0)
            json_array_append_new (a, json_string (buf));
        p += n + (c ? 1 : 0);
    }
    return a;
}

static json_t *cost_json (const struct gp_infer_plan_option *x)
{
    const struct gp_instance *in = x->price.inst;
    if (!in)
        return json_null ();
    json_t *c = json_object ();
    set (c, "instance", json_string (in->id));
    set (c, "cloud", json_string (in->cloud));
    set (c, "region", json_string (in->region));
    set (c, "price_date", json_string (in->price_date));
    set (c, "price_as_of", in->price_as_of && *in->price_as_of
                               ? json_string (in->price_as_of)
                               : json_null ());
    /* Only flags that apply to the on-demand price (price.h). */
    set (c, "price_flags", flags_json (x->price.flagged ? in->price_flags
                                                         : NULL));
    set (c, "source", json_string (in->source ? in->source : ""));
    set (c, "pricing", json_string ("on_demand"));
    set (c, "usd_per_gpu_hour", json_real (x->price.usd_per_gpu_hour));
    set (c, "usd_per_hour_at_peak", json_real (x->usd_per_hour));
    set (c, "usd_per_hour_at_trough", json_real (x->usd_per_hour_trough));
    set (c, "usd_per_1m_output_tokens",
         json_real (x->usd_per_1m_output_tokens));
    return c;
}

static json_t *fleet_json (const struct gp_infer_plan_option *x)
{
    const struct gp_fleet *f = &x->fleet;
    int priced = x->price.inst != NULL;
    json_t *fl = json_object (), *reps = json_array ();
    for (size_t i = 0; i < f->n_periods; i++)
        json_array_append_new (reps, json_integer (x->fleet_replicas[i]));
    set (fl, "periods", json_integer ((json_int_t)f->n_periods));
    set (fl, "hours_per_period", json_real (f->hours_per_period));
    set (fl, "replicas_per_period", reps);
    set (fl, "replica_hours_per_day", json_real (f->replica_hours_per_day));
    set (fl, "gpu_hours_per_day", json_real (f->gpu_hours_per_day));
    set (fl, "output_tokens_per_day", json_real (f->output_tokens_per_day));
    set (fl, "usd_per_day", priced ? json_real (f->usd_per_day) : json_null ());
    set (fl, "usd_per_month",
         priced ? json_real (f->usd_per_month) : json_null ());
    set (fl, "usd_per_1m_output_tokens",
         priced ? json_real (f->usd_per_1m_output_tokens) : json_null ());
    return fl;
}

static json_t *option_json (const struct gp_infer_plan_result *res,
                            const struct gp_infer_plan_option *x)
{
    const struct gp_infer_request *q = &res->request;
    const struct gp_infer_option *o = &x->opt;
    json_t *j = json_object ();
    set (j, "gpu", json_string (o->accel->id));
    set (j, "weight_precision", json_string (gp_dtype_str (o->weight_dtype)));
    set (j, "kv_precision", json_string (gp_dtype_str (o->kv_dtype)));
    set (j, "engine", json_string (gp_engine_str (x->engine)));
    set (j, "feasible", json_boolean (o->feasible));
    set (j, "reason", json_string (o->reason));
    set (j, "limit", json_string (gp_infer_limit_str (o->limit)));
    if (!o->feasible)
        return j;
    set (j, "layout", layout_json (o));
    set (j, "replicas", json_integer (o->size.replicas));
    set (j, "replicas_min", json_integer (o->size.replicas_min));
    set (j, "gpus", json_integer (o->gpus_whole));
    set (j, "nodes", json_integer (x->nodes));
    set (j, "rate_per_replica_rps", json_real (o->size.rate_per_replica));
    set (j, "max_rate_per_replica_rps",
         json_real (o->size.max_rate_per_replica));
    set (j, "at_peak", at_peak_json (o, q->rps_peak));
    set (j, "memory", memory_json (&o->model, q->prompt + q->output));
    set (j, "cost", cost_json (x));
    set (j, "fleet", fleet_json (x));
    set (j, "layout_rule", json_string (gp_infer_layout_rule_str (
                               x->layout_rule)));
    set (j, "layouts_tried", json_integer (o->layouts_tried));
    return j;
}

static const char *choice_str (enum gp_infer_choice c)
{
    switch (c) {
    case GP_INFER_CHOICE_CHEAPEST_PRICED: return "cheapest_priced";
    case GP_INFER_CHOICE_FEWEST_GPUS: return "fewest_gpus_unpriced";
    case GP_INFER_CHOICE_NONE: break;
    }
    return NULL;
}

json_t *gp_report_infer_json (const struct gp_infer_plan_result *r)
{
    if (!r)
        return NULL;
    json_t *root = json_object ();
    if (!root)
        return NULL;
    set (root, "request", request_json (r));
    json_t *arr = json_array ();
    for (size_t i = 0; i < r->n_options; i++)
        json_array_append_new (arr, option_json (r, &r->options[i]));
    set (root, "options", arr);
    set (root, "recommended", r->recommended >= 0
                                  ? json_integer (r->recommended)
                                  : json_null ());
    const char *why = choice_str (r->choice);
    set (root, "recommended_reason", why ? json_string (why) : json_null ());
    return root;
}
