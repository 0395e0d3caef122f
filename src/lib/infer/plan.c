/* plan.c - the inference plan: every accelerator x weight precision of a
 * request sized with the layout choice, priced with the one pricing rule,
 * rounded to whole nodes, costed over the day, and the recommendation
 * (docs/model/inference.md, "Fleet cost"; docs/formats/infer.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/infer.h"
#include "gpuplan/price.h"

const char *gp_infer_layout_rule_str (enum gp_infer_layout_rule l)
{
    switch (l) {
    case GP_INFER_LAYOUT_CHEAPEST: return "cheapest_per_1m_output_tokens";
    case GP_INFER_LAYOUT_FEWEST_GPUS: return "fewest_gpus";
    }
    return "unknown";
}

void gp_infer_plan_destroy (struct gp_infer_plan_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; r->options && i < r->n_options; i++)
        free (r->options[i].fleet_replicas);
    free (r->options);
    gp_zoo_destroy (r->zoo_);
    free (r);
}

/* Check the request and fill the rates it implies: peak and trough from
 * the profile when not given, the trough clamped to the peak.
 */
static int resolve_request (struct gp_infer_request *q, gp_error_t *err)
{
    if (!q->model[0] && !q->has_arch)
        return gp_errprintf (err, GP_EINVAL, "infer: no model");
    if (q->n_accels <= 0 || q->n_accels > GP_INFER_MAX_LIST)
        return gp_errprintf (err, GP_EINVAL, "infer: no accelerator");
    if (q->n_precisions <= 0 || q->n_precisions > GP_INFER_MAX_LIST)
        return gp_errprintf (err, GP_EINVAL, "infer: no weight precision");
    if (q->n_profile > GP_INFER_MAX_PROFILE)
        return gp_errprintf (err, GP_EINVAL, "infer: at most %d profile "
                             "periods", GP_INFER_MAX_PROFILE);
    if (q->n_profile > 0) {
        double mx = 0, mn = 1e300, sum = 0;
        for (size_t i = 0; i < q->n_profile; i++)
            mx = fmax (mx, q->profile[i]), mn = fmin (mn, q->profile[i]),
            sum += q->profile[i];
        if (q->rps_peak <= 0)
            q->rps_peak = mx;
        if (q->rps_trough <= 0)
            q->rps_trough = mn;
        q->rps_mean = sum / q->n_profile;
    }
    if (!(q->rps_peak > 0))
        return gp_errprintf (err, GP_EINVAL, "infer: no request rate");
    if (!(q->prompt >= 1) || !(q->output >= 1))
        return gp_errprintf (err, GP_EINVAL, "infer: prompt and output must "
                             "be >= 1 token");
    if (!(q->headroom >= 0) || q->headroom >= 0.95)
        return gp_errprintf (err, GP_EINVAL, "infer: headroom must be in "
                             "[0, 0.95)");
    if (!(q->prefix_hit >= 0) || q->prefix_hit >= 1)
        return gp_errprintf (err, GP_EINVAL, "infer: prefix hit must be in "
                             "[0, 1)");
    if (q->rps_trough <= 0 || q->rps_trough > q->rps_peak)
        q->rps_trough = q->rps_peak;
    return 0;
}

/* GPUs per rented node: the priced instance's, else the scale-up domain
 * capped at 8.
 */
static int gpus_per_node (const struct gp_infer_plan_option *x)
{
    if (x->price.inst)
        return x->price.inst->n_accels;
    int d = x->opt.accel->scale_up_domain;
    return d >= 8 ? 8 : d > 0 ? d : 1;
}

/* Nodes that 'reps' replicas occupy, MIG slices as the whole GPUs they
 * take: the same basis at the peak, the trough and every period of the
 * day (cloud capacity is rented by the node).
 */
static int nodes_for (const struct gp_infer_plan_option *x, int reps)
{
    return gp_infer_option_nodes (&x->opt, reps, x->gpus_per_node);
}

/* Price one GPU-hour of the option's accelerator with the pricing rule. */
static int price_option (const struct gp_catalog *cat,
                         const struct gp_infer_request *q,
                         struct gp_infer_plan_option *x, gp_error_t *err)
{
    struct gp_price_query pq = {GP_PRICE_ON_DEMAND,
                                q->instance[0] ? q->instance : NULL, NULL,
                                NULL};
    gp_error_t e = {0};
    int rc = gp_price_gpu_hour (cat, x->opt.accel, &pq, &x->price, &e);
    if (rc == GP_ENOTFOUND)
        x->price_status = q->instance[0] ? GP_INFER_UNPRICED_INSTANCE
                                         : GP_INFER_UNPRICED;
    else if (rc)
        return gp_errprintf (err, rc, "%s", e.text);
    else {
        x->price_status = GP_INFER_PRICED;
        /* the catalog's node price as published (not gpu x n rebuilt) */
        x->price.usd_per_node_hour =
            gp_instance_price (x->price.inst, GP_PRICE_ON_DEMAND);
    }
    x->gpus_per_node = gpus_per_node (x);
    return 0;
}

/* Whole nodes, costs at the peak and trough, and the fleet over the day,
 * all on one basis: whole nodes of the priced instance holding the
 * replicas' whole GPUs (docs/model/inference.md, "Serving search").
 */
static int cost_option (const struct gp_infer_request *q,
                        struct gp_infer_plan_option *x, gp_error_t *err)
{
    const struct gp_infer_option *o = &x->opt;
    double unit = o->slice[0] ? o->gpu_share : (double)o->gpus_per_replica;
    x->nodes = nodes_for (x, o->size.replicas);
    x->nodes_trough = nodes_for (x, o->size.replicas_min);
    int priced = x->price.inst != NULL;
    double node_usd = x->price.usd_per_node_hour;
    if (priced) {
        x->usd_per_hour = x->nodes * node_usd;
        x->usd_per_hour_trough = x->nodes_trough * node_usd;
        x->usd_per_1m_output_tokens =
            x->usd_per_hour / (q->rps_peak * q->output * 3600.0) * 1e6;
    }
    /* the day: the profile, else 12 h at peak, 12 h at trough */
    double two[2] = {q->rps_peak, q->rps_trough};
    const double *rates = q->n_profile ? q->profile : two;
    size_t nr = q->n_profile ? q->n_profile : 2;
    x->fleet_replicas = calloc (nr, sizeof *x->fleet_replicas);
    if (!x->fleet_replicas)
        return gp_errprintf (err, GP_ENOMEM, "infer: out of memory");
    int rc = gp_infer_fleet (o->size.rate_per_replica, q->headroom, rates, nr,
                             unit, priced ? x->price.usd_per_gpu_hour : 0.0,
                             q->output, x->fleet_replicas, &x->fleet, err);
    if (rc)
        return rc;
    /* Whole GPUs per period (a slice's GPU is not shared with others). */
    struct gp_fleet *f = &x->fleet;
    double gh = 0.0, day = 0.0;
    for (size_t i = 0; i < f->n_periods; i++) {
        gh += gp_infer_option_gpus (o, x->fleet_replicas[i])
              * f->hours_per_period;
        day += nodes_for (x, x->fleet_replicas[i]) * node_usd
               * f->hours_per_period;
    }
    f->gpu_hours_per_day = gh;
    if (!priced)
        return 0;
    /* Rented by the node: charge whole nodes per period. */
    f->usd_per_day = day;
    f->usd_per_month = day * 365.0 / 12.0;
    f->usd_per_1m_output_tokens =
        f->output_tokens_per_day > 0 ? day / f->output_tokens_per_day * 1e6
                                     : 0.0;
    return 0;
}

/* Is feasible option 'x' a better recommendation than 'b'?  Priced beats
 * unpriced; among priced the lower $/h at the peak; among unpriced the
 * fewer GPUs.  Ties keep the earlier option.
 */
static int better_choice (const struct gp_infer_plan_option *x,
                          const struct gp_infer_plan_option *b)
{
    int xp = x->price.inst != NULL, bp = b->price.inst != NULL;
    if (xp && bp)
        return x->usd_per_hour < b->usd_per_hour;
    if (xp != bp)
        return xp;
    return x->opt.gpus < b->opt.gpus;
}

static void serve_cfg (const struct gp_infer_plan_result *r,
                       const struct gp_accel *acc, enum gp_dtype w,
                       struct gp_serve_cfg *c)
{
    const struct gp_infer_request *q = &r->request;
    memset (c, 0, sizeof *c);
    c->arch = &r->arch;
    c->accel = acc;
    c->tp = q->tp, c->pp = q->pp, c->ep = q->ep;
    c->weight_dtype = w;
    /* The infer.kv_dtype default in force (an override was checked by
     * gp_defaults_set_text, so this cannot fail).
     */
    c->kv_dtype = q->kv_dtype;
    if (!q->kv_set
        && gp_kv_dtype_default (q->defaults, w, acc, &c->kv_dtype, NULL))
        c->kv_dtype = GP_DT_BF16;
    gp_engine_defaults (q->engine, &c->eng);
    c->prefix_hit = q->prefix_hit;
    c->attn_dp = q->attn_dp;
}

/* Resolve the model, the accelerators and the instance named. */
static int resolve_names (const struct gp_catalog *cat,
                          struct gp_infer_plan_result *r,
                          const struct gp_accel **accs, gp_error_t *err)
{
    const struct gp_infer_request *q = &r->request;
    if (q->has_arch) {
        r->arch = q->arch;
    } else {
        if (!(r->zoo_ = gp_zoo_load (NULL, err)))
            return err ? err->code : GP_EINTERNAL;
        const struct gp_arch *a = gp_zoo_find (r->zoo_, q->model, err);
        if (!a)
            return err ? err->code : GP_ENOTFOUND;
        r->arch = *a;
    }
    for (int i = 0; i < q->n_accels; i++)
        if (!(accs[i] = gp_catalog_find_accel (cat, q->accels[i], err)))
            return err ? err->code : GP_ENOTFOUND;
    if (q->instance[0]) {
        gp_error_t e = {0};
        if (!gp_catalog_find_instance (cat, q->instance, NULL, &e))
            return gp_errprintf (err, GP_ENOTFOUND, "%s: %s",
                                 q->instance_origin[0] ? q->instance_origin
                                                       : "instance",
                                 e.text);
    }
    return 0;
}

static int plan_options (const struct gp_catalog *cat,
                         struct gp_infer_plan_result *r,
                         const struct gp_accel *const *accs, gp_error_t *err)
{
    const struct gp_infer_request *q = &r->request;
    struct gp_workload w;
    memset (&w, 0, sizeof w);
    w.in_len = q->prompt;
    w.out_len = q->output;
    w.in_dist = q->prompt_dist, w.out_dist = q->output_dist;
    w.in_cv = q->prompt_cv, w.out_cv = q->output_cv;
    w.seed = q->seed;
    for (size_t k = 0; k < r->n_options; k++) {
        struct gp_infer_plan_option *x = &r->options[k];
        struct gp_serve_cfg c;
        serve_cfg (r, accs[k / q->n_precisions],
                   q->precisions[k % q->n_precisions], &c);
        x->engine = q->engine;
        x->opt.accel = c.accel;
        int rc = price_option (cat, q, x, err);
        /* Priced: the layout with the fewest whole nodes of the priced
         * instance; unpriced: the fewest whole GPUs.
         */
        int per_node = x->price.inst ? x->gpus_per_node : 0;
        x->layout_rule = per_node ? GP_INFER_LAYOUT_CHEAPEST
                                  : GP_INFER_LAYOUT_FEWEST_GPUS;
        if (!rc)
            rc = gp_infer_choose_on (&c, cat, !q->no_mig, &w, &q->slo,
                                     q->rps_peak, q->rps_trough, q->headroom,
                                     per_node, &x->opt, err);
        if (rc)
            return rc;
        if (!x->opt.feasible)
            continue;
        if ((rc = cost_option (q, x, err)))
            return rc;
        if (x->price.inst && x->price.undated)
            r->n_undated_prices++;
        if (r->recommended < 0
            || better_choice (x, &r->options[r->recommended]))
            r->recommended = (int)k;
    }
    if (r->recommended >= 0)
        r->choice = r->options[r->recommended].price.inst
                        ? GP_INFER_CHOICE_CHEAPEST_PRICED
                        : GP_INFER_CHOICE_FEWEST_GPUS;
    return 0;
}

int gp_infer_plan (const struct gp_catalog *cat,
                   const struct gp_infer_request *rq,
                   struct gp_infer_plan_result **out, gp_error_t *err)
{
    if (!out)
        return gp_errprintf (err, GP_EINVAL, "infer: missing argument");
    *out = NULL;
    if (!cat || !rq)
        return gp_errprintf (err, GP_EINVAL, "infer: missing argument");
    struct gp_infer_plan_result *r = calloc (1, sizeof *r);
    if (!r)
        return gp_errprintf (err, GP_ENOMEM, "infer: out of memory");
    r->request = *rq;
    r->recommended = -1;
    r->choice = GP_INFER_CHOICE_NONE;
    const struct gp_accel *accs[GP_INFER_MAX_LIST];
    enum gp_dtype kv; /* an overridden infer.kv_dtype must name a dtype */
    int rc = gp_kv_dtype_default (rq->defaults, GP_DT_BF16, NULL, &kv, err);
    if (rc)
        gp_errprefix (err, "default infer.kv_dtype");
    else
        rc = resolve_request (&r->request, err);
    if (!rc)
        rc = resolve_names (cat, r, accs, err);
    if (!rc) {
        r->n_options = (size_t)r->request.n_accels
                       * (size_t)r->request.n_precisions;
        r->options = calloc (r->n_options, sizeof *r->options);
        rc = r->options ? plan_options (cat, r, accs, err)
                        : gp_errprintf (err, GP_ENOMEM, "infer: out of "
                                        "memory");
    }
    if (rc) {
        gp_infer_plan_destroy (r);
        return rc;
    }
    *out = r;
    return 0;
}
