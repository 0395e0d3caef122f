/* spec.c - the plan spec loader: YAML via strict table unpacking, every
 * error positioned (file:line:col) and naming the field.
 *
 * Format: docs/formats/plan.md.  Names resolve against the catalog
 * (accelerators, instances) and the model zoo; unknown names fail with the
 * closest matches.
 */
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpuplan/arch.h"
#include "gpuplan/price.h"
#include "gpuplan/infer.h"
#include "gpuplan/policy.h"
#include "gpuplan/trace.h"
#include "plan_private.h"

static const char *const wl_kinds[] = {"training", "recurring", "inference",
                                       NULL};
static const char *const opt_kinds[] = {"onprem", "cloud", "expand",
                                        "burst", NULL};
static const char *const coolings[] = {"air", "liquid", NULL};

/* A year of 365 days, for the duration ranges below. */
#define GP_PLAN_YEAR_S (365.0 * 86400)

const char *gp_wl_kind_str (enum gp_wl_kind k)
{
    return (unsigned)k < 3 ? wl_kinds[k] : "?";
}

const char *gp_option_kind_str (enum gp_option_kind k)
{
    return k == GP_OPT_BURST ? "burst" : (unsigned)k < 2 ? opt_kinds[k] : "?";
}

struct top {
    char name[GP_PLAN_NAME];
    double horizon_s;
    char policy[32];
    const json_t *teams, *workloads, *constraints, *options, *assumptions;
    const json_t *existing;
};

#define F(f) offsetof (struct top, f)
static const struct gp_field top_fields[] = {
    {"name", GP_F_STRING, F (name), GP_PLAN_NAME, GP_F_REQUIRED, 0, NULL, 0,
     0},
    {"horizon", GP_F_QUANTITY, F (horizon_s), 0, GP_F_REQUIRED,
     GP_Q_DURATION, NULL, 0, 0},
    {"policy", GP_F_STRING, F (policy), 32, 0, 0, NULL, 0, 0},
    {"teams", GP_F_NODE, F (teams), 0, 0, 0, NULL, 0, 0},
    {"workloads", GP_F_NODE, F (workloads), 0, GP_F_REQUIRED, 0, NULL, 0, 0},
    {"constraints", GP_F_NODE, F (constraints), 0, 0, 0, NULL, 0, 0},
    {"options", GP_F_NODE, F (options), 0, GP_F_REQUIRED, 0, NULL, 0, 0},
    {"assumptions", GP_F_NODE, F (assumptions), 0, 0, 0, NULL, 0, 0},
    {"existing", GP_F_NODE, F (existing), 0, 0, 0, NULL, 0, 0},
    {NULL, 0, 0, 0, 0, 0, NULL, 0, 0},
};
#undef F

/* 'existing:': today's cluster (struct gp_plan_existing). */
struct existing_in {
    struct gp_plan_existing e;
    int gpus;
    const json_t *lead_time, *baseline;
};

#define F(f) offsetof (struct existing_in, f)
static const struct gp_field existing_fields[] = {
    {"accelerator", GP_F_STRING, F (e.accel_id), GP_PLAN_NAME, GP_F_REQUIRED,
     0, NULL, 0, 0},
    {"gpus", GP_F_INT, F (gpus), 0, GP_F_REQUIRED, 0, NULL, 1, 10000000},
    {"age_years", GP_F_DOUBLE, F (e.age_years), 0, 0, 0, NULL, 0, 30},
    {"delivery_lead_time", GP_F_NODE, F (lead_time), 0, 0, 0, NULL, 0, 0},
    {"baseline", GP_F_NODE, F (baseline), 0, 0, 0, NULL, 0, 0},
    {NULL, 0, 0, 0, 0, 0, NULL, 0, 0},
};
#undef F

#define F(f) offsetof (struct gp_plan_team, f)
static const struct gp_field team_fields[] = {
    {"name", GP_F_STRING, F (name), GP_PLAN_NAME, GP_F_REQUIRED, 0, NULL, 0,
     0},
    {"priority", GP_F_INT, F (priority), 0, 0, 0, NULL, -1000000, 1000000},
    {"weight", GP_F_DOUBLE, F (weight), 0, 0, 0, NULL, 1e-6, 1e6},
    {"quota_share", GP_F_DOUBLE, F (quota_share), 0, 0, 0, NULL, 0, 1},
    {NULL, 0, 0, 0, 0, 0, NULL, 0, 0},
};
#undef F

struct wl_in {
    struct gp_plan_workload w;
    int kind;
    const json_t *allow_spot;
    const json_t *precision;    /* a name, or a list for a service */
    const json_t *profile;      /* a service's day profile */
};

#define F(f) offsetof (struct wl_in, w.f)
static const struct gp_field wl_fields[] = {
    {"name", GP_F_STRING, F (name), GP_PLAN_NAME, GP_F_REQUIRED, 0, NULL, 0,
     0},
    {"kind", GP_F_ENUM, offsetof (struct wl_in, kind), 0, GP_F_REQUIRED, 0,
     wl_kinds, 0, 0},
    {"team", GP_F_STRING, F (team), GP_PLAN_NAME, 0, 0, NULL, 0, 0},
    {"model", GP_F_STRING, F (model), GP_PLAN_NAME, 0, 0, NULL, 0, 0},
    {"precision", GP_F_NODE, offsetof (struct wl_in, precision), 0, 0, 0,
     NULL, 0, 0},
    {"tokens", GP_F_QUANTITY, F (tokens), 0, 0, GP_Q_COUNT, NULL, 1, 1e17},
    {"deadline", GP_F_QUANTITY, F (deadline_s), 0, 0, GP_Q_DURATION, NULL,
     3600, 20 * GP_PLAN_YEAR_S},
    {"start_month", GP_F_DOUBLE, F (start_month), 0, 0, 0, NULL, 0, 120},
    {"runs_per_month", GP_F_DOUBLE, F (runs_per_month), 0, 0, 0, NULL, 0.01,
     10000},
    {"seq_len", GP_F_QUANTITY, F (seq_len), 0, 0, GP_Q_COUNT, NULL, 1, 1e7},
    {"global_batch", GP_F_QUANTITY, F (global_batch), 0, 0, GP_Q_COUNT, NULL,
     1, 1e8},
    {"dataset", GP_F_QUANTITY, F (dataset_bytes), 0, 0, GP_Q_BYTES, NULL, 1,
     1e19},
    {"trace", GP_F_STRING, F (trace), GP_PLAN_TEXT, 0, 0, NULL, 0, 0},
    {"trace_period", GP_F_QUANTITY, F (trace_period_s), 0, 0, GP_Q_DURATION,
     NULL, 60, 20 * GP_PLAN_YEAR_S},
    {"requests_per_s", GP_F_DOUBLE, F (requests_per_s), 0, 0, 0, NULL, 1e-6,
     1e7},
    {"input_tokens", GP_F_QUANTITY, F (input_tokens), 0, 0, GP_Q_COUNT, NULL,
     1, 1e7},
    {"output_tokens", GP_F_QUANTITY, F (output_tokens), 0, 0, GP_Q_COUNT,
     NULL, 1, 65536},
    {"growth_per_quarter", GP_F_DOUBLE, F (growth_per_quarter), 0, 0, 0,
     NULL, -0.9, 10},
    {"ttft", GP_F_QUANTITY, F (ttft_s), 0, 0, GP_Q_DURATION, NULL, 1e-3,
     3600},
    {"tpot", GP_F_QUANTITY, F (tpot_s), 0, 0, GP_Q_DURATION, NULL, 1e-4,
     60},
    {"allow_spot", GP_F_NODE, offsetof (struct wl_in, allow_spot), 0, 0, 0,
     NULL, 0, 0},
    {"engine", GP_F_STRING, F (engine), 16, 0, 0, NULL, 0, 0},
    {"profile", GP_F_NODE, offsetof (struct wl_in, profile), 0, 0, 0, NULL,
     0, 0},
    {NULL, 0, 0, 0, 0, 0, NULL, 0, 0},
};
#undef F

struct opt_in {
    struct gp_plan_option_spec o;
    int kind;
    int cooling;
    const json_t *pricing;
    int gpus;
    int max_gpus;
};

#define F(f) offsetof (struct opt_in, o.f)
static const struct gp_field opt_fields[] = {
    {"name", GP_F_STRING, F (name), GP_PLAN_NAME, GP_F_REQUIRED, 0, NULL, 0,
     0},
    {"kind", GP_F_ENUM, offsetof (struct opt_in, kind), 0, GP_F_REQUIRED, 0,
     opt_kinds, 0, 0},
    {"accelerator", GP_F_STRING, F (accel_id), GP_PLAN_NAME, 0, 0, NULL, 0,
     0},
    {"instance", GP_F_STRING, F (instance), GP_PLAN_NAME, 0, 0, NULL, 0, 0},
    {"region", GP_F_STRING, F (region), GP_PLAN_NAME, 0, 0, NULL, 0, 0},
    {"gpus_per_node", GP_F_INT, F (gpus_per_node), 0, 0, 0, NULL, 1, 128},
    {"gpus", GP_F_INT, offsetof (struct opt_in, gpus), 0, 0, 0, NULL, 1,
     10000000},
    {"node_power", GP_F_QUANTITY, F (node_w), 0, 0, GP_Q_POWER, NULL, 1,
     1e6},
    {"node_capex", GP_F_QUANTITY, F (node_capex), 0, 0, GP_Q_MONEY, NULL, 1,
     1e9},
    {"switch", GP_F_STRING, F (switch_id), 32, 0, 0, NULL, 0, 0},
    {"oversubscription", GP_F_DOUBLE, F (oversub), 0, 0, 0, NULL, 1, 64},
    {"nics_per_gpu", GP_F_INT, F (nics_per_gpu), 0, 0, 0, NULL, 1, 8},
    {"cooling", GP_F_ENUM, offsetof (struct opt_in, cooling), 0, 0, 0,
     coolings, 0, 0},
    {"pricing", GP_F_NODE, offsetof (struct opt_in, pricing), 0, 0, 0, NULL,
     0, 0},
    {"max_gpus", GP_F_INT, offsetof (struct opt_in, max_gpus), 0, 0, 0, NULL,
     1, 10000000},
    {NULL, 0, 0, 0, 0, 0, NULL, 0, 0},
};
#undef F

struct cons_in {
    struct gp_plan_constraints c;
    const json_t *clouds, *terms;
};

#define F(f) offsetof (struct cons_in, c.f)
static const struct gp_field cons_fields[] = {
    {"budget", GP_F_QUANTITY, F (budget_usd), 0, 0, GP_Q_MONEY, NULL, 1,
     1e13},
    {"power", GP_F_QUANTITY, F (power_w), 0, 0, GP_Q_POWER, NULL, 1, 1e10},
    {"rack_power_air", GP_F_QUANTITY, F (rack_w_air), 0, 0, GP_Q_POWER, NULL,
     100, 1e6},
    {"rack_power_liquid", GP_F_QUANTITY, F (rack_w_liquid), 0, 0, GP_Q_POWER,
     NULL, 100, 1e6},
    {"floor_racks", GP_F_INT, F (floor_racks), 0, 0, 0, NULL, 1, 1000000},
    {"clouds", GP_F_NODE, offsetof (struct cons_in, clouds), 0, 0, 0, NULL,
     0, 0},
    {"reservation_terms", GP_F_NODE, offsetof (struct cons_in, terms), 0, 0,
     0, NULL, 0, 0},
    {"min_availability", GP_F_DOUBLE, F (min_availability), 0, 0, 0, NULL, 0,
     1},
    {NULL, 0, 0, 0, 0, 0, NULL, 0, 0},
};
#undef F

/* The quantity kind of the spec field a dotted key names: the table is
 * chosen by the first segment (top-level, team, workload, option,
 * constraint or existing-cluster fields) and the field by the last.
 */
int gp__plan_key_quantity (const char *key, enum gp_quantity *q)
{
    /* the segments a key has: the mapping's name, a list entry's name
     * or index for the lists, then the field
     */
    static const struct {
        const char *top;
        const struct gp_field *fields;
        int segments;
    } tables[] = {
        {"teams", team_fields, 3},       {"workloads", wl_fields, 3},
        {"options", opt_fields, 3},      {"constraints", cons_fields, 2},
        {"existing", existing_fields, 2},
    };
    if (!key || !q)
        return 0;
    const char *dot = strchr (key, '.'), *last = strrchr (key, '.');
    int segments = 1;
    for (const char *p = key; *p; p++)
        segments += *p == '.';
    const struct gp_field *f = segments == 1 ? top_fields : NULL;
    for (size_t i = 0; dot && i < sizeof tables / sizeof tables[0]; i++)
        if (strlen (tables[i].top) == (size_t)(dot - key)
            && !strncmp (tables[i].top, key, (size_t)(dot - key))
            && segments == tables[i].segments)
            f = tables[i].fields;
    if (!f)
        return 0;
    const char *name = last ? last + 1 : key;
    for (; f->key; f++)
        if (!strcmp (f->key, name)) {
            if (f->type != GP_F_QUANTITY)
                return 0;
            *q = f->quantity;
            return 1;
        }
    return 0;
}

static int want_array (const struct gp_doc *doc, const json_t *n,
                       const char *what, gp_error_t *err)
{
    if (!json_is_array (n))
        return gp_doc_errorf (doc, n, err, GP_EPARSE,
                              "%s: expected a list", what);
    return 0;
}

/* The most GPUs the jobs of 'js' hold at once, each at its submit time
 * for its run time (a sweep over start and end events, ends first).
 */
struct ev {
    double t, d;
};

static int ev_cmp (const void *a, const void *b)
{
    const struct ev *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->d > y->d) - (x->d < y->d);
}

static double trace_peak (const struct gp_jobset *js)
{
    struct ev *e = calloc (2 * js->n_jobs + 1, sizeof *e);
    if (!e)
        return 0;
    for (size_t i = 0; i < js->n_jobs; i++) {
        const struct gp_job *j = &js->jobs[i];
        double g = j->n_gpus * (j->gpu_milli > 0 ? j->gpu_milli : 1000)
                   / 1000.0;
        e[2 * i] = (struct ev){j->submit_s, g};
        e[2 * i + 1] = (struct ev){j->submit_s + j->duration_s, -g};
    }
    qsort (e, 2 * js->n_jobs, sizeof *e, ev_cmp);
    double cur = 0, peak = 0;
    for (size_t i = 0; i < 2 * js->n_jobs; i++) {
        cur += e[i].d;
        peak = fmax (peak, cur);
    }
    free (e);
    return peak;
}

/* Read the trace of recurring workload 'w' (path relative to the spec's
 * directory) and sum one period of it: GPU-hours, the period (first
 * submit to last end, or trace_period), the largest job.
 */
static int load_trace (const struct gp_doc *doc, const json_t *j,
                       const char *what, struct gp_plan_workload *w,
                       gp_error_t *err)
{
    const json_t *at = json_object_get (j, "trace");
    char path[2 * GP_PLAN_TEXT];
    const char *name = gp_doc_name (doc);
    const char *slash = name ? strrchr (name, '/') : NULL;
    if (w->trace[0] == '/' || !slash)
        snprintf (path, sizeof path, "%s", w->trace);
    else
        snprintf (path, sizeof path, "%.*s/%s", (int)(slash - name), name,
                  w->trace);
    struct gp_trace_opts opts;
    memset (&opts, 0, sizeof opts);
    opts.format = GP_TRACE_AUTO;
    gp_error_t e2 = {0};
    struct gp_jobset *js = gp_trace_read (path, &opts, &e2);
    if (!js)
        return gp_doc_errorf (doc, at, err, e2.code ? e2.code : GP_EPARSE,
                              "%s.trace: %s", what, e2.text);
    w->trace_jobs = js;
    double first = INFINITY, last = 0, gh = 0;
    int big = 0;
    for (size_t i = 0; i < js->n_jobs; i++) {
        const struct gp_job *jb = &js->jobs[i];
        first = fmin (first, jb->submit_s);
        last = fmax (last, jb->submit_s + jb->duration_s);
        gh += jb->n_gpus * (jb->gpu_milli > 0 ? jb->gpu_milli : 1000)
              / 1000.0 * jb->duration_s / 3600;
        if (jb->n_gpus > big)
            big = jb->n_gpus;
    }
    if (js->n_jobs == 0 || !(gh > 0))
        return gp_doc_errorf (doc, at, err, GP_EPARSE,
                              "%s.trace: '%s' has no GPU jobs", what,
                              w->trace);
    double span = w->trace_period_s > 0 ? w->trace_period_s : last - first;
    if (w->trace_period_s > 0 && w->trace_period_s < last - first - 1e-6)
        return gp_doc_errorf (doc, json_object_get (j, "trace_period"), err,
                              GP_EPARSE,
                              "%s.trace_period: %.0f s is shorter than the "
                              "trace (%.0f s from first submit to last end)",
                              what, w->trace_period_s, last - first);
    w->trace_gpu_hours = gh;
    w->trace_span_s = span;
    w->trace_max_gpus = big;
    w->trace_peak_gpus = trace_peak (js);
    return 0;
}

/* One precision name 'v' (bf16, fp16, fp8) into 'dst'; 'at' and 'what'
 * for the error.
 */
static int precision_name (const struct gp_doc *doc, const json_t *v,
                           const char *what, char dst[16], gp_error_t *err)
{
    const char *p = json_string_value (v);
    if (!p || (strcasecmp (p, "bf16") != 0 && strcasecmp (p, "fp16") != 0
               && strcasecmp (p, "fp8") != 0))
        return gp_doc_errorf (doc, v, err, GP_EPARSE,
                              "%s.precision: '%s' is not bf16, fp16 or fp8",
                              what, p ? p : "(not a name)");
    snprintf (dst, 16, "%s", p);
    return 0;
}

/* The workload's 'precision': one name, or for an inference service a
 * list of the serving precisions it may use (the sizing picks the
 * cheapest per 1M output tokens among them); 'precision' keeps the
 * first.  Absent: bf16.
 */
static int load_precision (const struct gp_doc *doc, const json_t *v,
                           const char *what, struct gp_plan_workload *w,
                           gp_error_t *err)
{
    if (!v)
        return 0;
    if (!json_is_array (v))
        return precision_name (doc, v, what, w->precision, err);
    size_t n = json_array_size (v);
    if (w->kind != GP_WL_INFERENCE || n < 1 || n > GP_PLAN_MAX_PRECISIONS)
        return gp_doc_errorf (doc, v, err, GP_EPARSE,
                              "%s.precision: a list (1 to %d names) is for "
                              "an inference service only",
                              what, GP_PLAN_MAX_PRECISIONS);
    for (size_t k = 0; k < n; k++) {
        const json_t *e = json_array_get (v, k);
        if (precision_name (doc, e, what, w->precisions[k], err) != 0)
            return -1;
        for (size_t q = 0; q < k; q++)
            if (strcasecmp (w->precisions[q], w->precisions[k]) == 0)
                return gp_doc_errorf (doc, e, err, GP_EPARSE,
                                      "%s.precision: '%s' listed twice",
                                      what, w->precisions[k]);
    }
    w->n_precisions = n;
    snprintf (w->precision, sizeof w->precision, "%s", w->precisions[0]);
    return 0;
}

/* A service's 'profile' (docs/formats/plan.md): 24 hourly shares of
 * requests_per_s from 00:00, each in [0, 1], the busiest hour 1.
 */
static int load_profile (const struct gp_doc *doc, const json_t *v,
                         const char *what, struct gp_plan_workload *w,
                         gp_error_t *err)
{
    if (!v)
        return 0;
    if (w->kind != GP_WL_INFERENCE)
        return gp_doc_errorf (doc, v, err, GP_EPARSE,
                              "%s.profile: for an inference service only",
                              what);
    if (!json_is_array (v) || json_array_size (v) != GP_PLAN_DAY_HOURS)
        return gp_doc_errorf (doc, v, err, GP_EPARSE,
                              "%s.profile: expected a list of %d hourly "
                              "shares (00:00 to 23:00)",
                              what, GP_PLAN_DAY_HOURS);
    double most = 0;
    for (size_t h = 0; h < GP_PLAN_DAY_HOURS; h++) {
        const json_t *e = json_array_get (v, h);
        double x = json_number_value (e);
        if (!json_is_number (e) || !(x >= 0 && x <= 1))
            return gp_doc_errorf (doc, e, err, GP_EPARSE,
                                  "%s.profile[%zu]: expected a share in "
                                  "[0, 1] of requests_per_s",
                                  what, h);
        w->day_profile[h] = x;
        most = fmax (most, x);
    }
    if (most != 1)
        return gp_doc_errorf (doc, v, err, GP_EPARSE,
                              "%s.profile: the busiest hour must be 1 (the "
                              "shares are of requests_per_s, the peak the "
                              "plan provisions); largest is %g",
                              what, most);
    w->n_day_profile = GP_PLAN_DAY_HOURS;
    return 0;
}

static int load_workload (const struct gp_doc *doc, const json_t *j,
                          size_t i, struct gp_plan_spec *s,
                          const struct gp_zoo *zoo, gp_error_t *err)
{
    struct wl_in in;
    char what[48];
    memset (&in, 0, sizeof in);
    snprintf (in.w.precision, sizeof in.w.precision, "bf16");
    snprintf (in.w.engine, sizeof in.w.engine, "vllm");
    in.w.seq_len = 4096;
    snprintf (what, sizeof what, "workloads[%zu]", i);
    if (gp_doc_unpack (doc, j, what, wl_fields, &in, err) != 0)
        return err ? err->code : GP_EPARSE;
    struct gp_plan_workload *w = &s->workloads[i];
    *w = in.w;
    w->kind = (enum gp_wl_kind)in.kind;
    gp_doc_pos (doc, j, &w->line, &w->col);
    if (in.allow_spot) {
        if (!json_is_boolean (in.allow_spot))
            return gp_doc_errorf (doc, in.allow_spot, err, GP_EPARSE,
                                  "%s.allow_spot: expected true or false",
                                  what);
        w->allow_spot = json_is_true (in.allow_spot) ? 1 : -1;
    }
    const json_t *at = json_object_get (j, "name");
    for (size_t q = 0; q < i; q++)
        if (strcmp (s->workloads[q].name, w->name) == 0)
            return gp_doc_errorf (doc, at, err, GP_EPARSE,
                                  "%s.name: '%s' is used by workloads[%zu]",
                                  what, w->name, q);
    if (w->kind != GP_WL_RECURRING || !w->trace[0]) {
        if (!w->model[0])
            return gp_doc_errorf (doc, j, err, GP_EPARSE,
                                  "%s.model: required for a %s workload",
                                  what, gp_wl_kind_str (w->kind));
    }
    if (w->model[0]) {
        gp_error_t e2 = {0};
        const struct gp_arch *a = gp_zoo_find (zoo, w->model, &e2);
        if (!a) {
            at = json_object_get (j, "model");
            return gp_doc_errorf (doc, at, err, GP_ENOTFOUND, "%s.model: %s",
                                  what, e2.text);
        }
        struct gp_param_count pc;
        if (gp_arch_check (a, NULL) == 0) {
            gp_arch_params (a, &pc);
            w->params = pc.total;
        } else {
            w->params = a->params_stated;
        }
    }
    if (load_precision (doc, in.precision, what, w, err) != 0)
        return err ? err->code : GP_EPARSE;
    if (load_profile (doc, in.profile, what, w, err) != 0)
        return err ? err->code : GP_EPARSE;
    enum gp_engine eng;
    gp_error_t e3 = {0};
    if (gp_engine_parse (w->engine, &eng, &e3) != 0)
        return gp_doc_errorf (doc, json_object_get (j, "engine"), err,
                              GP_EPARSE, "%s.engine: %s", what, e3.text);
    switch (w->kind) {
    case GP_WL_TRAINING:
        if (!(w->tokens > 0))
            return gp_doc_errorf (doc, j, err, GP_EPARSE,
                                  "%s.tokens: required (> 0) for training",
                                  what);
        if (!(w->deadline_s > 0))
            return gp_doc_errorf (doc, j, err, GP_EPARSE,
                                  "%s.deadline: required (> 0) for training",
                                  what);
        break;
    case GP_WL_RECURRING:
        if (!w->trace[0] && (!(w->tokens > 0) || !(w->runs_per_month > 0)))
            return gp_doc_errorf (doc, j, err, GP_EPARSE,
                                  "%s: a recurring workload needs tokens and "
                                  "runs_per_month (or a trace)",
                                  what);
        if (w->trace[0] && load_trace (doc, j, what, w, err) != 0)
            return err ? err->code : GP_EPARSE;
        break;
    case GP_WL_INFERENCE:
        if (!(w->requests_per_s > 0) || !(w->output_tokens > 0))
            return gp_doc_errorf (doc, j, err, GP_EPARSE,
                                  "%s: an inference workload needs "
                                  "requests_per_s and output_tokens (> 0)",
                                  what);
        break;
    }
    if (w->team[0]) {
        size_t t;
        for (t = 0; t < s->n_teams; t++)
            if (strcmp (s->teams[t].name, w->team) == 0)
                break;
        if (t == s->n_teams)
            return gp_doc_errorf (doc, json_object_get (j, "team"), err,
                                  GP_ENOTFOUND,
                                  "%s.team: unknown team '%s'", what,
                                  w->team);
    }
    return 0;
}

static int load_pricing (const struct gp_doc *doc, const json_t *p,
                         const char *what, unsigned *mask, gp_error_t *err)
{
    char w2[64];
    snprintf (w2, sizeof w2, "%s.pricing", what);
    if (want_array (doc, p, w2, err) != 0)
        return GP_EPARSE;
    *mask = 0;
    size_t k;
    const json_t *v;
    json_array_foreach (p, k, v) {
        enum gp_pricing pr;
        gp_error_t e2 = {0};
        if (!json_is_string (v)
            || gp_pricing_parse (json_string_value (v), &pr, &e2) != 0)
            return gp_doc_errorf (doc, v, err, GP_EPARSE, "%s[%zu]: %s", w2,
                                  k,
                                  json_is_string (v) ? e2.text
                                                     : "expected a name");
        *mask |= 1u << pr;
    }
    if (!*mask)
        return gp_doc_errorf (doc, p, err, GP_EPARSE, "%s: empty list", w2);
    return 0;
}

/* The option's kind into o->kind: 'expand' is an onprem option over the
 * existing fleet (its accelerator, checked); 'burst' keeps the existing
 * fleet and rents the demand above it (docs/model/cost.md, "Cloud
 * burst"); both need 'existing:'.
 */
static int load_fleet_kind (const struct gp_doc *doc, const json_t *j,
                            const char *what, const struct opt_in *in,
                            const struct gp_plan_spec *s,
                            struct gp_plan_option_spec *o, gp_error_t *err)
{
    const struct gp_plan_existing *ex = &s->existing;
    if (in->kind >= 2 && ex->gpus < 1)
        return gp_doc_errorf (doc, json_object_get (j, "kind"), err,
                              GP_EPARSE,
                              "%s.kind: '%s' needs an existing fleet "
                              "(existing: accelerator, gpus)",
                              what, opt_kinds[in->kind]);
    o->kind = in->kind == 2   ? GP_OPT_ONPREM
              : in->kind == 3 ? GP_OPT_BURST
                              : (enum gp_option_kind)in->kind;
    if (in->kind == 2 && !in->o.accel_id[0])
        snprintf (o->accel_id, sizeof o->accel_id, "%s", ex->accel_id);
    if (in->kind >= 2 && o->accel_id[0]
        && strcasecmp (o->accel_id, ex->accel_id))
        return gp_doc_errorf (doc, json_object_get (j, "accelerator"), err,
                              GP_EPARSE,
                              "%s.accelerator: a %s option is of the "
                              "existing fleet's %s, not %s",
                              what, opt_kinds[in->kind], ex->accel_id,
                              o->accel_id);
    if (o->kind == GP_OPT_BURST && in->gpus)
        return gp_doc_errorf (doc, json_object_get (j, "gpus"), err,
                              GP_EPARSE,
                              "%s.gpus: a burst option keeps the existing "
                              "fleet (existing.gpus); its size is not set",
                              what);
    return 0;
}

static int load_option (const struct gp_doc *doc, const json_t *j, size_t i,
                        struct gp_plan_spec *s, const struct gp_catalog *cat,
                        gp_error_t *err)
{
    struct opt_in in;
    char what[48];
    memset (&in, 0, sizeof in);
    in.o.oversub = 1;
    in.o.nics_per_gpu = 1;
    snprintf (in.o.switch_id, sizeof in.o.switch_id, "qm9700");
    snprintf (what, sizeof what, "options[%zu]", i);
    if (gp_doc_unpack (doc, j, what, opt_fields, &in, err) != 0)
        return err ? err->code : GP_EPARSE;
    struct gp_plan_option_spec *o = &s->options[i];
    *o = in.o;
    if (load_fleet_kind (doc, j, what, &in, s, o, err) != 0)
        return err ? err->code : GP_EPARSE;
    o->liquid = in.cooling == 1;
    o->gpus = in.gpus;
    o->max_gpus = in.max_gpus;
    gp_doc_pos (doc, j, &o->line, &o->col);
    if (o->kind == GP_OPT_ONPREM && o->max_gpus)
        return gp_doc_errorf (doc, json_object_get (j, "max_gpus"), err,
                              GP_EPARSE, "%s.max_gpus: applies to cloud "
                              "options only", what);
    for (size_t k = 0; k < i; k++)
        if (strcmp (s->options[k].name, o->name) == 0)
            return gp_doc_errorf (doc, json_object_get (j, "name"), err,
                                  GP_EPARSE,
                                  "%s.name: '%s' is used by options[%zu]",
                                  what, o->name, k);
    gp_error_t e2 = {0};
    if (o->kind == GP_OPT_ONPREM) {
        if (!o->accel_id[0])
            return gp_doc_errorf (doc, j, err, GP_EPARSE,
                                  "%s.accelerator: required for an onprem "
                                  "option",
                                  what);
        if (o->instance[0] || in.pricing)
            return gp_doc_errorf (doc, j, err, GP_EPARSE,
                                  "%s: 'instance' and 'pricing' apply to "
                                  "cloud options only",
                                  what);
        o->accel = gp_catalog_find_accel (cat, o->accel_id, &e2);
        if (!o->accel)
            return gp_doc_errorf (doc, json_object_get (j, "accelerator"),
                                  err, GP_ENOTFOUND, "%s.accelerator: %s",
                                  what, e2.text);
        if (!o->gpus_per_node)
            o->gpus_per_node = gp_plan_node_gpus (o->accel);
        double v;
        char key[64];
        snprintf (key, sizeof key, "port_gbps");
        if (gp_catalog_part_value (cat, o->switch_id, "ports", &v, NULL) != 0
            || gp_catalog_part_value (cat, o->switch_id, key, &v, NULL) != 0)
            return gp_doc_errorf (doc, json_object_get (j, "switch"), err,
                                  GP_ENOTFOUND,
                                  "%s.switch: no catalog switch '%s' with "
                                  "ports and port_gbps (try qm9700, q3400)",
                                  what, o->switch_id);
    } else {
        if (!o->instance[0])
            return gp_doc_errorf (doc, j, err, GP_EPARSE,
                                  "%s.instance: required for a cloud option",
                                  what);
        o->inst = gp_catalog_find_instance (
            cat, o->instance, o->region[0] ? o->region : NULL, &e2);
        /* Without a region, the pricing rule picks the row: a flagged
         * on-demand price is skipped when an unflagged region exists.
         */
        struct gp_gpu_price gp;
        struct gp_price_query pq = {GP_PRICE_ON_DEMAND, o->instance, NULL,
                                    NULL};
        if (o->inst && !o->region[0]
            && gp_price_gpu_hour (cat, o->inst->accel, &pq, &gp, NULL) == 0)
            o->inst = gp.inst;
        if (!o->inst)
            return gp_doc_errorf (doc, json_object_get (j, "instance"), err,
                                  GP_ENOTFOUND, "%s.instance: %s", what,
                                  e2.text);
        if (o->accel_id[0] && strcasecmp (o->accel_id, o->inst->accel_id))
            return gp_doc_errorf (doc, json_object_get (j, "accelerator"),
                                  err, GP_EPARSE,
                                  "%s.accelerator: %s has %s, not %s", what,
                                  o->inst->id, o->inst->accel_id,
                                  o->accel_id);
        o->accel = o->inst->accel;
        snprintf (o->accel_id, sizeof o->accel_id, "%s", o->inst->accel_id);
        snprintf (o->region, sizeof o->region, "%s", o->inst->region);
        o->gpus_per_node = o->inst->n_accels;
        o->pricing = 1u << GP_PRICE_ON_DEMAND;
        if (in.pricing && load_pricing (doc, in.pricing, what, &o->pricing,
                                        err) != 0)
            return err ? err->code : GP_EPARSE;
        const struct gp_plan_existing *ex = &s->existing;
        if (o->kind == GP_OPT_BURST
            && o->gpus_per_node != gp_plan_node_gpus (ex->accel))
            return gp_doc_errorf (doc, json_object_get (j, "instance"), err,
                                  GP_EPARSE,
                                  "%s.instance: %s has %d GPUs per node, the "
                                  "existing fleet's servers %d",
                                  what, o->inst->id, o->gpus_per_node,
                                  gp_plan_node_gpus (ex->accel));
        if (o->kind == GP_OPT_BURST
            && strcasecmp (o->accel_id, ex->accel_id))
            return gp_doc_errorf (doc, json_object_get (j, "instance"), err,
                                  GP_EPARSE,
                                  "%s.instance: %s has %s, the existing "
                                  "fleet %s",
                                  what, o->inst->id, o->accel_id,
                                  ex->accel_id);
    }
    return 0;
}

static int load_constraints (const struct gp_doc *doc, const json_t *j,
                             struct gp_plan_spec *s, gp_error_t *err)
{
    struct cons_in in;
    memset (&in, 0, sizeof in);
    in.c.terms = 3;
    if (gp_doc_unpack (doc, j, "constraints", cons_fields, &in, err) != 0)
        return err ? err->code : GP_EPARSE;
    s->cons = in.c;
    size_t k;
    const json_t *v;
    if (in.clouds) {
        if (want_array (doc, in.clouds, "constraints.clouds", err) != 0)
            return GP_EPARSE;
        json_array_foreach (in.clouds, k, v) {
            const char *c = json_is_string (v) ? json_string_value (v) : "";
            if (strcmp (c, "aws") && strcmp (c, "gcp") && strcmp (c, "azure"))
                return gp_doc_errorf (doc, v, err, GP_EPARSE,
                                      "constraints.clouds[%zu]: expected "
                                      "aws, gcp or azure",
                                      k);
            if (s->cons.n_clouds < 4)
                snprintf (s->cons.clouds[s->cons.n_clouds++], 16, "%s", c);
        }
    }
    if (in.terms) {
        if (want_array (doc, in.terms, "constraints.reservation_terms", err))
            return GP_EPARSE;
        s->cons.terms = 0;
        json_array_foreach (in.terms, k, v) {
            const char *c = json_is_string (v) ? json_string_value (v) : "";
            if (strcmp (c, "1y") == 0)
                s->cons.terms |= 1;
            else if (strcmp (c, "3y") == 0)
                s->cons.terms |= 2;
            else
                return gp_doc_errorf (doc, v, err, GP_EPARSE,
                                      "constraints.reservation_terms[%zu]: "
                                      "expected 1y or 3y",
                                      k);
        }
    }
    return 0;
}

/* existing.baseline: below 1 a share of the owned GPUs, else a GPU
 * count; rounded up to whole nodes of the accelerator's server
 * (gp_plan_node_gpus).  At most the owned GPUs.
 */
static int load_baseline (const struct gp_doc *doc, const json_t *b,
                          struct gp_plan_existing *e, gp_error_t *err)
{
    double v = json_is_number (b) ? json_number_value (b) : -1;
    if (!(v >= 0) || (v >= 1 && v != floor (v)))
        return gp_doc_errorf (doc, b, err, GP_EPARSE,
                              "existing.baseline: expected a share below 1 "
                              "or a whole number of GPUs");
    double g = v < 1 ? v * (double)e->gpus : v;
    int gpn = gp_plan_node_gpus (e->accel);
    if (g > (double)e->gpus + 1e-9)
        return gp_doc_errorf (doc, b, err, GP_EPARSE,
                              "existing.baseline: %.6g GPUs, more than the "
                              "%lld owned",
                              g, e->gpus);
    long long nodes = (long long)ceil (g / gpn - 1e-9);
    long long bg = nodes * gpn;
    if (bg > e->gpus)
        bg = e->gpus;
    e->baseline = v;
    e->baseline_gpus = bg;
    return 0;
}

static int load_existing (const struct gp_doc *doc, const json_t *j,
                          struct gp_plan_spec *s, const struct gp_catalog *cat,
                          gp_error_t *err)
{
    struct existing_in in;
    memset (&in, 0, sizeof in);
    if (json_object_get (j, "cluster") || json_object_get (j, "usage")) {
        /* today's cluster from files (existing.c) */
        const json_t *b = json_object_get (j, "baseline");
        if (gp__plan_existing_files (doc, j, cat, &s->existing, err) != 0
            || (b && load_baseline (doc, b, &s->existing, err) != 0))
            return err ? err->code : GP_EPARSE;
        return 0;
    }
    if (gp_doc_unpack (doc, j, "existing", existing_fields, &in, err) != 0)
        return err ? err->code : GP_EPARSE;
    if (in.lead_time)
        return gp_doc_errorf (doc, in.lead_time, err, GP_ENOTSUP,
                              "existing.delivery_lead_time: not yet "
                              "supported (the lead time of bought GPUs is "
                              "assumptions.delivery_lead_time_months)");
    gp_error_t e2 = {0};
    in.e.accel = gp_catalog_find_accel (cat, in.e.accel_id, &e2);
    if (!in.e.accel)
        return gp_doc_errorf (doc, json_object_get (j, "accelerator"), err,
                              GP_ENOTFOUND, "existing.accelerator: %s",
                              e2.text);
    snprintf (in.e.accel_id, sizeof in.e.accel_id, "%s", in.e.accel->id);
    in.e.gpus = in.gpus;
    if (in.baseline && load_baseline (doc, in.baseline, &in.e, err) != 0)
        return err ? err->code : GP_EPARSE;
    gp_doc_pos (doc, j, &in.e.line, &in.e.col);
    s->existing = in.e;
    return 0;
}

static int load_assumptions (const struct gp_doc *doc, const json_t *j,
                             struct gp_plan_spec *s, gp_error_t *err)
{
    if (!json_is_object (j))
        return gp_doc_errorf (doc, j, err, GP_EPARSE,
                              "assumptions: expected a mapping of name to "
                              "number");
    const char *key;
    const json_t *v;
    json_object_foreach ((json_t *)j, key, v) {
        struct gp_assumption *a = gp_plan_assume_find (s, key);
        if (!a) {
            const char *keys[GP_PLAN_MAX_ASSUMPTIONS];
            size_t n = gp_plan_assume_keys (s, keys, GP_PLAN_MAX_ASSUMPTIONS);
            char near[160] = "";
            gp_closest_names (key, keys, n, 3, near, sizeof near);
            return gp_doc_errorf (doc, v, err, GP_EPARSE,
                                  "assumptions: unknown key '%s'; did you "
                                  "mean %s?",
                                  key, near);
        }
        if (!json_is_number (v) || !(json_number_value (v) >= 0))
            return gp_doc_errorf (doc, v, err, GP_EPARSE,
                                  "assumptions.%s: expected a number >= 0",
                                  key);
        a->value = json_number_value (v);
        a->overridden = 1;
    }
    const struct gp_assumption *ws = gp_plan_assume_find (s,
                                                          "checkpoint_write_s");
    const struct gp_assumption *bw =
        gp_plan_assume_find (s, "ckpt_write_bw_per_node");
    if (ws && bw && ws->overridden && bw->overridden)
        return gp_doc_errorf (doc, j, err, GP_EPARSE,
                              "assumptions: set checkpoint_write_s (a write "
                              "time budget) or ckpt_write_bw_per_node (a "
                              "rate per node), not both");
    if (bw && bw->overridden && !(bw->value > 0))
        return gp_doc_errorf (doc, json_object_get (j, "ckpt_write_bw_per_node")
                                   ? json_object_get (j,
                                                      "ckpt_write_bw_per_node")
                                   : j,
                              err, GP_EPARSE,
                              "assumptions.ckpt_write_bw_per_node: must be "
                              "> 0");
    return 0;
}

struct gp_plan_spec *gp_plan_spec_from_doc (const struct gp_doc *doc,
                                            const struct gp_catalog *cat,
                                            gp_error_t *err)
{
    struct gp_plan_spec *s = calloc (1, sizeof *s);
    struct gp_zoo *zoo = NULL;
    struct top top;
    memset (&top, 0, sizeof top);
    if (!s) {
        gp_errprintf (err, GP_ENOMEM, "plan: out of memory");
        return NULL;
    }
    if (!doc || !cat) {
        gp_errprintf (err, GP_EINVAL, "plan: missing document or catalog");
        goto error;
    }
    gp_plan_assume_defaults (s);
    snprintf (s->file, sizeof s->file, "%s", gp_doc_name (doc));
    snprintf (top.policy, sizeof top.policy, "fair-share");
    const json_t *root = gp_doc_root (doc);
    if (gp_doc_unpack (doc, root, "plan", top_fields, &top, err) != 0)
        goto error;
    memcpy (s->name, top.name, sizeof s->name);
    memcpy (s->policy, top.policy, sizeof s->policy);
    {
        gp_error_t e2 = {0};
        if (!gp_policy_find (s->policy, &e2)) {
            gp_doc_errorf (doc, json_object_get (root, "policy"), err,
                           GP_ENOTFOUND, "policy: %s", e2.text);
            goto error;
        }
    }
    s->horizon_years = top.horizon_s / (365.0 * 86400);
    if (!(s->horizon_years >= 1.0 / 12 - 1e-9)
        || s->horizon_years > GP_PLAN_MAX_PERIODS / 12.0 + 1e-9) {
        gp_doc_errorf (doc, json_object_get (root, "horizon"), err,
                       GP_EPARSE,
                       "horizon: must be between 1 month and %d years",
                       GP_PLAN_MAX_PERIODS / 12);
        goto error;
    }
    size_t k;
    const json_t *v;
    if (top.teams) {
        if (want_array (doc, top.teams, "teams", err) != 0)
            goto error;
        if (json_array_size (top.teams) > GP_PLAN_MAX_TEAMS) {
            gp_doc_errorf (doc, top.teams, err, GP_EPARSE,
                           "teams: at most %d", GP_PLAN_MAX_TEAMS);
            goto error;
        }
        json_array_foreach (top.teams, k, v) {
            struct gp_plan_team *t = &s->teams[k];
            char what[32];
            t->weight = 1;
            snprintf (what, sizeof what, "teams[%zu]", k);
            if (gp_doc_unpack (doc, v, what, team_fields, t, err) != 0)
                goto error;
            for (size_t q = 0; q < k; q++)
                if (strcmp (s->teams[q].name, t->name) == 0) {
                    gp_doc_errorf (doc, v, err, GP_EPARSE,
                                   "%s.name: '%s' is used by teams[%zu]",
                                   what, t->name, q);
                    goto error;
                }
            s->n_teams++;
        }
    }
    if (top.assumptions && load_assumptions (doc, top.assumptions, s, err))
        goto error;
    if (top.existing && load_existing (doc, top.existing, s, cat, err))
        goto error;
    if (top.constraints) {
        if (load_constraints (doc, top.constraints, s, err) != 0)
            goto error;
    } else {
        s->cons.terms = 3;
    }
    zoo = gp_zoo_load (NULL, err);
    if (!zoo)
        goto error;
    if (want_array (doc, top.workloads, "workloads", err) != 0)
        goto error;
    if (json_array_size (top.workloads) > GP_PLAN_MAX_WORKLOADS) {
        gp_doc_errorf (doc, top.workloads, err, GP_EPARSE,
                       "workloads: at most %d", GP_PLAN_MAX_WORKLOADS);
        goto error;
    }
    json_array_foreach (top.workloads, k, v) {
        if (load_workload (doc, v, k, s, zoo, err) != 0)
            goto error;
        s->n_workloads++;
    }
    if (want_array (doc, top.options, "options", err) != 0)
        goto error;
    if (json_array_size (top.options) == 0
        || json_array_size (top.options) > GP_PLAN_MAX_OPTION_SPECS) {
        gp_doc_errorf (doc, top.options, err, GP_EPARSE,
                       "options: between 1 and %d options",
                       GP_PLAN_MAX_OPTION_SPECS);
        goto error;
    }
    json_array_foreach (top.options, k, v) {
        if (load_option (doc, v, k, s, cat, err) != 0)
            goto error;
        s->n_options++;
    }
    gp_zoo_destroy (zoo);
    return s;
error:
    gp_zoo_destroy (zoo);
    gp_plan_spec_destroy (s);
    return NULL;
}

void gp_plan_spec_destroy (struct gp_plan_spec *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < GP_PLAN_MAX_WORKLOADS; i++)
        gp_jobset_destroy (s->workloads[i].trace_jobs);
    free (s);
}
