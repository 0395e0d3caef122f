/* summary.c - the executive summary's derived values (struct
 * gp_plan_summary) and the recommended option's GPUs-vs-days curve
 * (struct gp_plan_curve), from the plan result's typed fields, so the
 * renderers show them without computing (docs/formats/plan.md,
 * "summary" and "train_curve").
 *
 * The runner-up is the option ranked second on TCO; what makes it win is
 * the TCO it must lose (its gap to the recommendation), a sensitivity row
 * under which the plan picks it, or its shortfalls.  Risks are listed
 * from the most to the least binding: the recommendation's shortfalls,
 * its queueing and quota flags, its flagged or undated prices, its
 * obtainable capacity, then the sensitivity rows that move the pick.
 */
#include <string.h>

#include "gpuplan/plan.h"

static void add_risk (struct gp_plan_summary *s, enum gp_plan_risk_kind k,
                      int option, int shortfall, int sens, int high)
{
    if (s->n_risks >= GP_PLAN_MAX_RISKS)
        return;
    struct gp_plan_risk *x = &s->risks[s->n_risks++];
    x->kind = k;
    x->option = option;
    x->shortfall = (enum gp_plan_shortfall)shortfall;
    x->sens = sens;
    x->high = high;
}

static void add_decision (struct gp_plan_summary *s,
                          enum gp_plan_decision_kind k, int option)
{
    if (s->n_decisions >= GP_PLAN_MAX_DECISIONS)
        return;
    s->decisions[s->n_decisions].kind = k;
    s->decisions[s->n_decisions++].option = option;
}

/* The TCO range over the base and the sensitivity rows that ran. */
static void sens_range (const struct gp_plan_result *r,
                        struct gp_plan_summary *s)
{
    s->tco_low_usd = s->tco_high_usd = s->tco_usd;
    for (size_t i = 0; i < r->n_sens; i++) {
        const struct gp_sens_row *x = &r->sens[i];
        if (x->status.code)
            continue;
        double v[2] = {x->tco_low, x->tco_high};
        for (int k = 0; k < 2; k++) {
            if (!(v[k] > 0))
                continue;
            if (v[k] < s->tco_low_usd)
                s->tco_low_usd = v[k];
            if (v[k] > s->tco_high_usd)
                s->tco_high_usd = v[k];
        }
    }
}

/* The runner-up and what would make it win. */
static void runner_up (const struct gp_plan_result *r,
                       struct gp_plan_summary *s)
{
    s->runner_up = -1;
    s->runner_sens = -1;
    int best = 0;
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_rules *u = &r->options[i].rules;
        if ((int)i == r->recommended
            || u->verdict != GP_RULE_VERDICT_TCO_RANK || u->rank <= 0)
            continue;
        if (s->runner_up < 0 || u->rank < best) {
            s->runner_up = (int)i;
            best = u->rank;
        }
    }
    if (s->runner_up < 0)
        return;
    const struct gp_plan_option *o = &r->options[s->runner_up];
    s->runner_tco_usd = o->tco_usd;
    s->runner_gap_usd = o->tco_usd - s->tco_usd;
    s->runner_cut_share = o->tco_usd > 0 ? s->runner_gap_usd / o->tco_usd
                                         : 0;
    for (size_t i = 0; i < r->n_sens && s->runner_sens < 0; i++) {
        const struct gp_sens_row *x = &r->sens[i];
        if (x->status.code)
            continue;
        if (!strcmp (x->rec_low, o->name) || !strcmp (x->rec_high, o->name)) {
            s->runner_sens = (int)i;
            s->runner_sens_high = strcmp (x->rec_low, o->name) != 0;
        }
    }
}

/* The risks of the recommended option 'b'. */
static void risks (const struct gp_plan_result *r, struct gp_plan_summary *s)
{
    int b = r->recommended;
    const struct gp_plan_option *o = &r->options[b];
    for (int k = 0; k < GP_N_SHORTFALLS; k++)
        if ((o->shortfalls & (1u << k)) && k != GP_SHORT_QUEUE
            && k != GP_SHORT_QUOTA)
            add_risk (s, GP_RISK_SHORTFALL, b, k, -1, 0);
    if (o->queue != GP_QUEUE_OK)
        add_risk (s, GP_RISK_QUEUE, b, 0, -1, 0);
    if (o->quota_short)
        add_risk (s, GP_RISK_QUOTA, b, 0, -1, 0);
    if (o->price_warning[0])
        add_risk (s, GP_RISK_PRICE, b, 0, -1, 0);
    if (o->kind != GP_OPT_ONPREM)
        add_risk (s, o->max_gpus > 0 ? GP_RISK_CAPACITY_CAPPED
                                     : GP_RISK_CAPACITY_UNCAPPED,
                  b, 0, -1, 0);
    for (size_t i = 0; i < r->n_sens; i++) {
        const struct gp_sens_row *x = &r->sens[i];
        if (x->status.code)
            continue;
        int low = strcmp (x->rec_low, o->name) != 0;
        int high = strcmp (x->rec_high, o->name) != 0;
        if (low || high)
            add_risk (s, GP_RISK_SENS_FLIP, b, 0, (int)i, !low);
    }
    /* the runner-up's own price flags weigh on the comparison too */
    if (s->runner_up >= 0 && r->options[s->runner_up].price_warning[0])
        add_risk (s, GP_RISK_PRICE, s->runner_up, 0, -1, 0);
}

/* The decisions the reader must take on the recommended option 'b'. */
static void decisions (const struct gp_plan_result *r,
                       struct gp_plan_summary *s)
{
    int b = r->recommended;
    const struct gp_plan_option *o = &r->options[b];
    if (o->kind == GP_OPT_ONPREM) {
        add_decision (s, GP_DECIDE_BUY, b);
        if (o->sharp_known && o->sharp_step_gain > 0)
            add_decision (s, GP_DECIDE_FABRIC, b);
    } else {
        add_decision (s, GP_DECIDE_COMMIT, b);
    }
    if (o->price_warning[0])
        add_decision (s, GP_DECIDE_CONFIRM_PRICE, b);
    if (o->kind != GP_OPT_ONPREM)
        add_decision (s, GP_DECIDE_CONFIRM_CAPACITY, b);
    if (o->quota_short || o->queue != GP_QUEUE_OK)
        add_decision (s, GP_DECIDE_QUOTAS, b);
    if (o->shortfalls & ((1u << GP_SHORT_NETWORK) | (1u << GP_SHORT_STORAGE)))
        add_decision (s, GP_DECIDE_SHORTFALL, b);
}

/* The recommended option's first training run with a curve. */
static void curve (struct gp_plan_result *r, const struct gp_plan_spec *spec)
{
    struct gp_plan_curve *c = &r->curve;
    memset (c, 0, sizeof *c);
    c->option = -1;
    c->workload = -1;
    if (r->recommended < 0)
        return;
    const struct gp_plan_option *o = &r->options[r->recommended];
    for (size_t i = 0; i < GP_PLAN_MAX_WORKLOADS; i++) {
        const struct gp_plan_wl_plan *p = &o->wl[i];
        if (!p->sized || p->kind != GP_WL_TRAINING || !p->n_curve)
            continue;
        c->option = r->recommended;
        c->workload = (int)i;
        memcpy (c->name, p->workload, sizeof c->name);
        c->planned_gpus = p->gpus;
        c->planned_days = p->run_days;
        if (spec && i < spec->n_workloads)
            c->deadline_days = spec->workloads[i].deadline_s / 86400;
        c->n = p->n_curve;
        memcpy (c->pt, p->curve, p->n_curve * sizeof *p->curve);
        return;
    }
}

void gp_plan_summarize (struct gp_plan_result *r,
                        const struct gp_plan_spec *spec)
{
    if (!r)
        return;
    struct gp_plan_summary *s = &r->summary;
    memset (s, 0, sizeof *s);
    s->recommended = r->recommended;
    s->runner_up = -1;
    s->runner_sens = -1;
    curve (r, spec);
    if (r->recommended < 0 || (size_t)r->recommended >= r->n_options)
        return;
    s->tco_usd = r->options[r->recommended].tco_usd;
    sens_range (r, s);
    runner_up (r, s);
    risks (r, s);
    decisions (r, s);
}
