/* sensitivity.c - how the recommendation moves: every option evaluated
 * again with one input moved to the low and the high end of its range
 * (prices and capex, demand, interruption rate, electricity price, and the
 * training planner's efficiency, the serving precision and engine of the
 * inference workloads), the recommended option's TCO and the pick under
 * each (docs/model/cost.md, Sensitivity).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_private.h"

/* One side of a row: every option evaluated under 'pt'; the recommended
 * option's TCO and the pick go to the row.
 */
static void sens_side (struct plan_ctx *c, struct gp_plan_option *tmp,
                       struct plan_perturb pt, int side,
                       struct gp_sens_row *row)
{
    int b = c->r->recommended;
    struct gp_plan_result *saved = c->r;
    c->r = NULL;
    /* on top of the scale rows in force (sample.c) */
    struct plan_perturb base = c->base.price > 0 ? c->base : PLAN_NO_PERTURB;
    pt.price *= base.price;
    pt.demand *= base.demand;
    pt.failure *= base.failure;
    pt.power_price *= base.power_price;
    pt.capex *= base.capex;
    pt.eff *= base.eff;
    c->pt = pt;
    size_t n = gp_plan_eval_all (c, tmp);
    c->pt = base;
    c->r = saved;
    if (gp__plan_options_oom (tmp, n))
        gp_plan_status_set (&row->status, GP_ENOMEM, "out of memory");
    int nb = gp_plan_pick (tmp, n);
    double tco = b >= 0 && (size_t)b < n ? tmp[b].tco_usd : 0;
    snprintf (side ? row->rec_high : row->rec_low, sizeof row->rec_low,
              "%s", nb >= 0 ? tmp[nb].name : "(none)");
    if (side)
        row->tco_high = tco;
    else
        row->tco_low = tco;
}

/* MFU moves the GPU count through the training planner. */
static void sens_mfu (struct plan_ctx *c, struct gp_plan_option *tmp)
{
    struct gp_plan_result *r = c->r;
    struct gp_sens_row *row = &r->sens[r->n_sens++];
    double xm = gp_plan_assumption (c, "sensitivity_mfu");
    snprintf (row->param, sizeof row->param, "MFU (training efficiency)");
    row->low_delta = 1 - xm;
    row->high_delta = 1 + xm;
    int any_sized = 0;
    for (size_t i = 0; i < r->n_options; i++)
        if (r->options[i].compute.code == 0
            && r->options[i].basis != GP_BASIS_FLEET_UNSIZED)
            any_sized = 1;
    if (!any_sized) {
        gp_plan_status_set (&row->status, GP_ENOTSUP,
                            "MFU moves GPU counts only for options the "
                            "training planner sizes");
        return;
    }
    for (int side = 0; side < 2; side++) {
        struct plan_perturb pt = PLAN_NO_PERTURB;
        pt.mfu = side ? 2 : 1;
        sens_side (c, tmp, pt, side, row);
    }
}

/* Serving precision and engine: every inference workload served with one
 * value, then the other (the planners' answers are sized afresh for each
 * side and the cached ones restored).  No row without an inference
 * workload.
 */
static void sens_serving (struct plan_ctx *c, struct gp_plan_option *tmp,
                          int engine)
{
    static const char *const vals[2][2] = {{"bf16", "fp8"},
                                           {"vllm", "trtllm"}};
    struct gp_plan_spec *s = c->s;
    struct gp_plan_result *r = c->r;
    size_t n_inf = 0;
    for (size_t i = 0; i < s->n_workloads; i++)
        n_inf += s->workloads[i].kind == GP_WL_INFERENCE;
    if (!n_inf || r->n_sens >= GP_PLAN_MAX_SENS)
        return;
    struct gp_sens_row *row = &r->sens[r->n_sens++];
    snprintf (row->param, sizeof row->param, "serving %s (low %s, high %s)",
              engine ? "engine" : "precision", vals[engine][0],
              vals[engine][1]);
    /* the factor: weight bytes relative to bf16; 1 for the engine */
    row->low_delta = 1;
    row->high_delta = engine ? 1 : 0.5;
    struct plan_sizing *saved[GP_PLAN_MAX_OPTION_SPECS][3];
    char (*was)[16] = calloc (s->n_workloads, sizeof *was);
    size_t *was_n = calloc (s->n_workloads, sizeof *was_n);
    if (!was || !was_n) {
        free (was);
        free (was_n);
        c->failed = 1;
        return;
    }
    for (int side = 0; side < 2; side++) {
        for (size_t i = 0; i < s->n_workloads; i++) {
            struct gp_plan_workload *w = &s->workloads[i];
            char *f = engine ? w->engine : w->precision;
            memcpy (was[i], f, 16);
            if (w->kind == GP_WL_INFERENCE)
                snprintf (f, 16, "%s", vals[engine][side]);
            if (!engine)    /* one value, not the service's list */
                was_n[i] = w->n_precisions, w->n_precisions = 0;
        }
        memcpy (saved, c->sz, sizeof saved);
        memset (c->sz, 0, sizeof c->sz);
        sens_side (c, tmp, PLAN_NO_PERTURB, side, row);
        for (size_t i = 0; i < GP_PLAN_MAX_OPTION_SPECS; i++)
            for (size_t k = 0; k < 3; k++)
                free (c->sz[i][k]);
        memcpy (c->sz, saved, sizeof saved);
        for (size_t i = 0; i < s->n_workloads; i++)
            memcpy (engine ? s->workloads[i].engine
                           : s->workloads[i].precision, was[i], 16);
        for (size_t i = 0; i < s->n_workloads && !engine; i++)
            s->workloads[i].n_precisions = was_n[i];
    }
    free (was);
    free (was_n);
}

void gp_plan_sensitivity (struct plan_ctx *c)
{
    static const struct {
        const char *name;
        const char *key;
        int field; /* 0 price, 1 demand, 2 failure, 3 power price */
        int mult;  /* 1: factor 1/x..x; 0: 1-x..1+x */
    } rows[] = {
        {"price and capex", "sensitivity_price", 0, 0},
        {"demand", "sensitivity_demand", 1, 0},
        {"interruption/failure rate", "sensitivity_failure", 2, 1},
        {"electricity price", "sensitivity_price", 3, 0},
    };
    struct gp_plan_result *r = c->r;
    size_t n = r->n_options ? r->n_options : 1;
    struct gp_plan_option *tmp = calloc (n, sizeof *tmp);
    if (!tmp) {
        c->failed = 1;
        return;
    }
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        struct gp_sens_row *row = &r->sens[r->n_sens++];
        double x = gp_plan_assumption (c, rows[k].key);
        double lo = rows[k].mult ? 1 / x : 1 - x;
        double hi = rows[k].mult ? x : 1 + x;
        snprintf (row->param, sizeof row->param, "%s", rows[k].name);
        row->low_delta = lo;
        row->high_delta = hi;
        for (int side = 0; side < 2; side++) {
            struct plan_perturb pt = PLAN_NO_PERTURB;
            double f = side ? hi : lo;
            if (rows[k].field == 0)
                pt.price = f;
            else if (rows[k].field == 1)
                pt.demand = f;
            else if (rows[k].field == 2)
                pt.failure = f;
            else
                pt.power_price = f;
            sens_side (c, tmp, pt, side, row);
        }
    }
    sens_mfu (c, tmp);
    sens_serving (c, tmp, 0);
    sens_serving (c, tmp, 1);
    free (tmp);
}

/* ----------------------- the tornado from samples ---------------------- */

static double swing (const struct gp_sens_row *x)
{
    return fabs (x->tco_high - x->tco_low);
}

void gp__plan_sens_from_samples (struct gp_plan_result *r,
                                 const struct gp_sens_row *rows, size_t n)
{
    if (n > GP_PLAN_MAX_SENS)
        n = GP_PLAN_MAX_SENS;
    memcpy (r->sens, rows, n * sizeof *rows);
    r->n_sens = n;
    /* by swing, largest first (insertion sort: stable, at most 12) */
    for (size_t i = 1; i < n; i++) {
        struct gp_sens_row x = r->sens[i];
        size_t k = i;
        while (k > 0 && swing (&r->sens[k - 1]) < swing (&x)) {
            r->sens[k] = r->sens[k - 1];
            k--;
        }
        r->sens[k] = x;
    }
}
