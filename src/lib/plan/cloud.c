/* cloud.c - a cloud design option under one pricing model: the instance's
 * fabric, the cheapest mix of commitments, on-demand and spot node-hours
 * month by month (gp_mix_solve), managed-Lustre storage, and the
 * provisioned GPU-hours it pays for (docs/model/cost.md).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/price.h"
#include "plan_private.h"

/* A (c, key): an assumption; P (c, id, key): a catalog part value,
 * recorded as a source (run.c).
 */
#define A gp_plan_assumption
#define P gp_plan_part

const char *gp_plan_cloud_fs_row (const char *cloud)
{
    if (!strcmp (cloud, "gcp"))
        return "gcp-managed-lustre-125";
    if (!strcmp (cloud, "azure"))
        return "azure-managed-lustre-250";
    return "fsx-lustre-p2-ssd-125";
}

int gp_plan_wl_allows_spot (const struct gp_plan_workload *w)
{
    if (w->allow_spot)
        return w->allow_spot > 0;
    return w->kind == GP_WL_RECURRING;
}

/* The nodes per month of workloads that tolerate preemption, into 'tol':
 * the month's nodes 'd' x the share of its demand GPUs that tolerate it
 * (the planners' split) when they sized the portfolio; else all of 'd'
 * when every workload tolerates preemption, none otherwise.  Returns the
 * sum over the months.
 */
static double spot_tolerant (struct plan_ctx *c, struct gp_plan_option *o,
                             const double *d, double *tol)
{
    const struct plan_sizing *z = gp_plan_sizing_of (c, o->spec_index,
                                                     o->n_periods);
    int all = c->s->n_workloads > 0;
    for (size_t i = 0; i < c->s->n_workloads; i++)
        all = all && gp_plan_wl_allows_spot (&c->s->workloads[i]);
    double sum = 0, dsum = 0;
    for (size_t t = 0; t < o->n_periods; t++) {
        if (o->basis == GP_BASIS_PLANNERS
            || o->basis == GP_BASIS_FLEET_CHECKED)
            tol[t] = z && z->code == 0 && z->demand[t] > 0
                         ? d[t] * fmin (z->spot_ok[t] / z->demand[t], 1)
                         : 0;
        else
            tol[t] = all ? d[t] : 0;
        sum += tol[t];
        dsum += d[t];
    }
    o->spot_tolerant_share = dsum > 0 ? sum / dsum : 0;
    return sum;
}

/* The share of demand spot may serve: spot_max_share, and under
 * constraints.min_availability A at most 1 - A, since spot capacity can
 * be withdrawn at any time (docs/model/cost.md).
 */
static double spot_share (struct plan_ctx *c)
{
    double x = A (c, "spot_max_share");
    double a = c->s->cons.min_availability;
    return a > 0 ? fmin (x, 1 - a) : x;
}

/* Node-hour prices of the option's instance (perturbed); cb: its AWS
 * Capacity Blocks rate (0 = none in parts.csv), cb_nodes: the most
 * instances held across blocks.
 */
struct cloud_prices {
    double od, spot, r1, r3;
    double cb, cb_nodes;
};

/* The Capacity Blocks rate of 'in' (parts.csv row aws-cb-<instance>,
 * dots as dashes) and the terms' instance limit into 'pr'.
 */
static void capacity_block_price (struct plan_ctx *c,
                                  const struct gp_instance *in,
                                  struct gp_plan_option *o,
                                  struct cloud_prices *pr)
{
    char id[GP_PLAN_NAME + 8];
    snprintf (id, sizeof id, "aws-cb-%s", in->id);
    for (char *p = id; *p; p++)
        if (*p == '.')
            *p = '-';
    double v = 0;
    pr->cb = pr->cb_nodes = 0;
    if (strcmp (in->cloud, "aws")
        || gp_catalog_part_value (c->cat, id, "usd_per_instance_hr", &v, NULL)
               != 0)
        return;
    pr->cb = gp_plan_part (c, id, "usd_per_instance_hr") * c->pt.price;
    pr->cb_nodes = gp_plan_part (c, "aws-capacity-blocks",
                                 "max_instances_all_blocks");
    /* Its date is the parts row's, not the instance's price_as_of: say
     * so, since list prices of different dates may not compare.
     */
    for (size_t i = 0; i < gp_catalog_n_parts (c->cat); i++) {
        const struct gp_part *r = gp_catalog_part (c->cat, i);
        if (!strcmp (r->id, id) && !strcmp (r->key, "usd_per_instance_hr"))
            snprintf (o->price_warning, sizeof o->price_warning,
                      "%s capacity-block rate $%.2f/node-h is dated %s "
                      "(parts.csv), the instance's other prices %s",
                      in->id, v, r->source_date,
                      in->price_as_of && *in->price_as_of ? in->price_as_of
                                                          : "undated");
    }
}

/* GPUs per month the option rents: its demand; for a burst option the
 * demand above the existing fleet's free GPUs (existing.gpus less the
 * baseline), into 'g'.
 */
static void rented_gpus (const struct plan_ctx *c,
                         const struct gp_plan_option *o, double *g)
{
    const struct gp_plan_existing *ex = &c->s->existing;
    double owned = o->kind == GP_OPT_BURST
                       ? (double)(ex->gpus - ex->baseline_gpus)
                       : 0;
    for (size_t t = 0; t < o->n_periods; t++)
        g[t] = fmax (0, o->demand_gpus[t] - owned);
}

/* Spot-tolerant nodes of a burst option: the owned GPUs serve deadline
 * training and services first, so the rented nodes are the tolerant work
 * up to all of them (docs/model/cost.md, "Cloud burst").
 */
static void burst_tolerant (struct plan_ctx *c, struct gp_plan_option *o,
                            const double *d, double *tol)
{
    const struct plan_sizing *z = gp_plan_sizing_of (c, o->spec_index,
                                                     o->n_periods);
    double sum = 0, dsum = 0;
    for (size_t t = 0; t < o->n_periods; t++) {
        double ok = z && z->code == 0 ? z->spot_ok[t] * c->pt.demand : 0;
        tol[t] = fmin (d[t], floor (ok / o->gpus_per_node + 1e-9));
        sum += tol[t];
        dsum += d[t];
    }
    o->spot_tolerant_share = dsum > 0 ? sum / dsum : 0;
}

/* The linear program's input for the option's pricing model; 'd' gets
 * the nodes demanded per month.
 */
static void cloud_mix_in (struct plan_ctx *c, struct gp_plan_option *o,
                          const struct cloud_prices *pr, double *d,
                          double *tol, struct gp_mix_in *mi)
{
    size_t T = o->n_periods;
    double max_nodes = 0;
    double g[GP_PLAN_MAX_PERIODS];
    rented_gpus (c, o, g);
    for (size_t t = 0; t < T; t++) {
        d[t] = ceil (g[t] / o->gpus_per_node - 1e-9);
        if (d[t] > max_nodes)
            max_nodes = d[t];
    }
    double rate = A (c, "spot_interruptions_per_node_month") / HOURS_PER_MONTH
                  * c->pt.failure;
    const struct plan_sizing *z = gp_plan_sizing_of (c, o->spec_index,
                                                     o->n_periods);
    double interval = z && z->code == 0 && z->ckpt_interval_s > 0
                          ? z->ckpt_interval_s
                          : A (c, "checkpoint_interval_s");
    o->spot_overhead = gp_spot_overhead (rate, max_nodes, interval,
                                         A (c, "restart_s"));
    memset (mi, 0, sizeof *mi);
    mi->n_periods = T;
    mi->demand = d;
    mi->period_hours = HOURS_PER_MONTH;
    mi->spot_overhead = o->spot_overhead;
    mi->integer = 1;
    if (o->kind == GP_OPT_BURST)
        burst_tolerant (c, o, d, tol);
    else
        spot_tolerant (c, o, d, tol);
    mi->spot_cap = tol;
    long long cap_gpus = c->s->options[o->spec_index].max_gpus;
    if (cap_gpus > 0) {
        double cap = floor ((double)cap_gpus / o->gpus_per_node + 1e-9);
        mi->max_on_demand = mi->max_spot = cap;
        for (size_t j = 0; j < GP_MIX_MAX_COMMIT; j++)
            mi->max_commit[j] = cap;
    }
    switch (o->pricing) {
    case GP_PRICE_ON_DEMAND:
        mi->on_demand_price = pr->od;
        break;
    case GP_PRICE_RESERVED_1Y:
        mi->n_commit = 1;
        mi->commit_price[0] = pr->r1;
        mi->commit_term_periods[0] = 12;
        break;
    case GP_PRICE_RESERVED_3Y:
        mi->n_commit = 1;
        mi->commit_price[0] = pr->r3;
        mi->commit_term_periods[0] = 36;
        break;
    case GP_PRICE_SPOT:
        /* Spot for the share of the demand that tolerates preemption
         * (spot_cap), on-demand for the rest (services and deadline
         * runs).
         */
        mi->spot_price = pr->spot;
        mi->spot_max_share = spot_share (c);
        mi->on_demand_price = pr->od;
        break;
    case GP_PRICE_MIX:
        mi->on_demand_price = pr->od;
        mi->spot_price = pr->spot;
        mi->spot_max_share = spot_share (c);
        if (c->s->cons.terms & 1) {
            mi->commit_price[mi->n_commit] = pr->r1;
            mi->commit_term_periods[mi->n_commit++] = 12;
        }
        if (c->s->cons.terms & 2) {
            mi->commit_price[mi->n_commit] = pr->r3;
            mi->commit_term_periods[mi->n_commit++] = 36;
        }
        break;
    case GP_PRICE_CAPACITY_BLOCK:
        /* Whole instances booked a month at a time (blocks run 1 to 182
         * days, so a month is one block or a few), paid up front like a
         * one-period commitment, at most cb_nodes across blocks.
         */
        mi->n_commit = 1;
        mi->commit_price[0] = pr->cb;
        mi->commit_term_periods[0] = 1;
        if (pr->cb_nodes > 0
            && (!(mi->max_commit[0] > 0) || pr->cb_nodes < mi->max_commit[0]))
            mi->max_commit[0] = pr->cb_nodes;
        break;
    }
}

/* The option's costs from the solved mix 'm' of 'mi'. */
static void cloud_costs (struct plan_ctx *c, struct gp_plan_option *o,
                         const struct cloud_prices *pr,
                         const struct gp_mix_in *mi, const struct gp_mix *m)
{
    size_t T = o->n_periods;
    double fs_price = P (c, "fsx-lustre-p2-ssd-125", "price_usd_per_gb_month")
                      * c->pt.price;
    /* a burst option's rented nodes use the owned cluster's storage */
    double storage_month = o->kind == GP_OPT_BURST
                               ? 0
                               : o->stor.fast_bytes / 1e9 * fs_price;
    o->cloud_storage_usd = storage_month * (double)T;
    o->cloud_compute_usd = m->cost;
    o->commit_usd = 0;
    for (size_t j = 0; j < mi->n_commit; j++)
        o->commit_usd += m->commit_cost[j];
    o->on_demand_usd = m->on_demand_cost;
    o->spot_usd = m->spot_cost;
    o->tco_usd = m->cost + o->cloud_storage_usd;
    double cum = 0;
    for (size_t t = 0; t < T; t++) {
        double month = storage_month;
        for (size_t j = 0; j < mi->n_commit; j++)
            month += m->commit[j * T + t] * mi->commit_price[j]
                     * HOURS_PER_MONTH;
        month += m->on_demand[t] * pr->od * HOURS_PER_MONTH
                 + m->spot[t] * pr->spot * HOURS_PER_MONTH;
        cum += month;
        o->cum_cost[t] = cum;
    }
    /* Commitment terms that run past the horizon are paid in full. */
    if (o->tco_usd > cum && T > 0)
        o->cum_cost[T - 1] = o->tco_usd;
    /* Provisioned GPU-hours: every node-hour paid for, used or not: each
     * commitment for its whole term (also past the horizon), on-demand
     * and spot node-hours as rented (cost.md, "Cost per GPU-hour").
     */
    double paid_node_h = 0;
    for (size_t j = 0; j < mi->n_commit; j++)
        if (mi->commit_price[j] > 0)
            paid_node_h += m->commit_cost[j] / mi->commit_price[j];
    if (pr->od > 0)
        paid_node_h += m->on_demand_cost / pr->od;
    if (pr->spot > 0)
        paid_node_h += m->spot_cost / pr->spot;
    o->provisioned_gpu_hours = paid_node_h * o->gpus_per_node;
    o->usd_per_gpu_hour = o->provisioned_gpu_hours > 0
                              ? o->tco_usd / o->provisioned_gpu_hours
                              : 0;
}

/* Flagged or undated prices the option uses, by the pricing rule on its
 * own instance and region, into o->price_warning (docs/model/cost.md,
 * "The pricing rule").
 */
static void price_warnings (struct plan_ctx *c, struct gp_plan_option *o,
                            const struct gp_instance *in)
{
    enum gp_pricing used[2] = {GP_PRICE_ON_DEMAND, GP_PRICE_SPOT};
    int n_used = o->pricing == GP_PRICE_SPOT || o->pricing == GP_PRICE_MIX
                     ? 2
                 : o->pricing == GP_PRICE_CAPACITY_BLOCK ? 0
                                                         : 1;
    o->price_warning[0] = 0;
    size_t len = 0;
    int undated = 0;
    for (int k = 0; k < n_used; k++) {
        struct gp_price_query q = {used[k], in->id, in->cloud, in->region};
        struct gp_gpu_price gp;
        if (gp_price_gpu_hour (c->cat, in->accel, &q, &gp, NULL) != 0)
            continue;
        undated |= gp.undated;
        if (!gp.flagged || len >= sizeof o->price_warning - 1)
            continue;
        len += (size_t)snprintf (o->price_warning + len,
                                 sizeof o->price_warning - len,
                                 "%s%s %s %s price $%.2f/GPU-h is flagged "
                                 "(%s)",
                                 len ? " | " : "", in->id, in->region,
                                 gp_pricing_str (used[k]), gp.usd_per_gpu_hour,
                                 in->price_flags);
    }
    if (undated && n_used > 0 && len < sizeof o->price_warning - 1)
        snprintf (o->price_warning + len, sizeof o->price_warning - len,
                  "%s%s %s prices are undated (basis: %s)", len ? " | " : "",
                  in->id, in->region,
                  in->price_date && *in->price_date ? in->price_date
                                                    : "none given");
}

/* The capacity catalog's cap on 'in' under 'p' in GPUs (0 = none
 * published); 'row' gets the row (NULL when none).
 */
static long long catalog_cap (const struct gp_catalog *cat,
                              const struct gp_instance *in, enum gp_pricing p,
                              const struct gp_capacity **row)
{
    *row = NULL;
    for (size_t i = 0; i < gp_catalog_n_capacity (cat); i++) {
        const struct gp_capacity *r = gp_catalog_capacity (cat, i);
        if (strcmp (r->cloud, in->cloud) || strcmp (r->accel_id, in->accel_id)
            || strcmp (r->pricing, gp_pricing_str (p))
            || (r->region[0] && strcmp (r->region, in->region)))
            continue;
        *row = r;
        return (long long)r->max_gpus;
    }
    return 0;
}

void gp_plan_log_cloud (struct plan_ctx *c)
{
    const struct gp_plan_result *r = c->r;
    for (size_t i = 0; i < r->n_options; i++)
        if (r->options[i].price_warning[0])
            gp_plan_log (c, "price warning: %s (%.200s)", r->options[i].name,
                         r->options[i].price_warning);
    /* One line for every cloud option without a capacity figure. */
    char names[GP_PLAN_TEXT] = "";
    size_t len = 0, n = 0;
    for (size_t i = 0; i < c->s->n_options; i++) {
        const struct gp_plan_option_spec *os = &c->s->options[i];
        const struct gp_capacity *row;
        if (!os->inst || os->max_gpus > 0
            || catalog_cap (c->cat, os->inst, GP_PRICE_ON_DEMAND, &row) > 0)
            continue;
        if (len < sizeof names - 1)
            len += (size_t)snprintf (names + len, sizeof names - len, "%s%s",
                                     n ? ", " : "", os->name);
        n++;
    }
    if (n)
        gp_plan_log (c, "capacity: no published obtainable-capacity figure "
                        "for %.120s (capacity.csv): no cap applied; set "
                        "options[].max_gpus to cap",
                     names);
}

/* Obtainable capacity (cost.md, "Obtainable capacity"): the spec's
 * max_gpus bounds every pricing model; else the capacity catalog's row per
 * model.  Sets the LP's column bounds (nodes) and o->max_gpus (the fleet
 * cap over the models the option uses; 0 = none); returns -1 with the
 * option infeasible (GP_INFEAS_CAPACITY) when the fleet exceeds it.
 */
static int capacity_caps (struct plan_ctx *c, struct gp_plan_option *o,
                          const struct gp_instance *in, long long need,
                          struct gp_mix_in *mi)
{
    const struct gp_plan_option_spec *os = &c->s->options[o->spec_index];
    double gpn = o->gpus_per_node;
    o->max_gpus = 0;
    if (os->max_gpus > 0) {
        o->max_gpus = os->max_gpus;
    } else {
        const struct gp_capacity *row;
        long long od = catalog_cap (c->cat, in, GP_PRICE_ON_DEMAND, &row);
        long long sp = catalog_cap (c->cat, in, GP_PRICE_SPOT, &row);
        mi->max_on_demand = floor ((double)od / gpn + 1e-9);
        mi->max_spot = floor ((double)sp / gpn + 1e-9);
        int uses_spot = o->pricing == GP_PRICE_SPOT
                        || o->pricing == GP_PRICE_MIX;
        if (od > 0 && (!uses_spot || sp > 0))
            o->max_gpus = od + (uses_spot ? sp : 0);
    }
    if (o->pricing == GP_PRICE_CAPACITY_BLOCK && mi->max_commit[0] > 0) {
        long long cb = (long long)(mi->max_commit[0] * gpn);
        if (o->max_gpus == 0 || cb < o->max_gpus)
            o->max_gpus = cb;
    }
    if (o->max_gpus > 0 && need > o->max_gpus) {
        o->cost_why = GP_INFEAS_CAPACITY;
        gp_plan_status_set (&o->cost, GP_EINFEASIBLE,
                            "capacity: the fleet needs %lld GPUs of %s, at "
                            "most %lld obtainable (%s)",
                            need, in->id, o->max_gpus,
                            os->max_gpus > 0 && os->max_gpus <= o->max_gpus
                                ? "options.max_gpus"
                            : o->pricing == GP_PRICE_CAPACITY_BLOCK
                                ? "parts.csv aws-capacity-blocks "
                                  "max_instances_all_blocks"
                                : "capacity.csv");
        return -1;
    }
    return 0;
}

/* The cloud's fabric and supporting nodes of a cloud option. */
static void cloud_fabric (struct plan_ctx *c, struct gp_plan_option *o,
                          const struct gp_instance *in)
{
    o->cloud_fabric = 1;
    snprintf (o->fabric_name, sizeof o->fabric_name, "%s fabric (%s)",
              in->cloud, in->fabric[0] ? in->fabric : "unknown");
    o->fabric.per_gpu_bw = in->net_bw / in->n_accels;
    o->fabric.nics = 0;
    /* Head/login nodes as on-prem; no management nodes: the provider
     * runs the managed control plane (infrastructure.md).
     */
    o->head_nodes = (int)A (c, "head_nodes");
    o->mgmt_nodes = 0;
    o->cpu_nodes = (int)ceil (o->stor.read_bw
                              / fmax (A (c, "cpu_node_preprocess_bw"), 1));
}

long long gp_plan_rented_peak (const struct plan_ctx *c,
                               const struct gp_plan_option *o)
{
    if (o->kind != GP_OPT_BURST)
        return o->gpus;
    double g[GP_PLAN_MAX_PERIODS], most = 0;
    rented_gpus (c, o, g);
    for (size_t t = 0; t < o->n_periods; t++)
        most = fmax (most, ceil (g[t] / o->gpus_per_node - 1e-9));
    return (long long)most * o->gpus_per_node;
}

void gp_plan_eval_cloud (struct plan_ctx *c, struct gp_plan_option *o)
{
    const struct gp_instance *in = c->s->options[o->spec_index].inst;
    o->cost_why = GP_INFEAS_NONE;
    if (o->kind != GP_OPT_BURST)
        cloud_fabric (c, o, in);
    char what[GP_PLAN_TEXT];
    snprintf (what, sizeof what, "instances.csv %s %s prices", in->id,
              in->region);
    gp_plan_add_source (c, what, in->on_demand_usd_hr, "USD/node-h",
                        in->source, in->price_date);
    price_warnings (c, o, in);
    struct cloud_prices pr;
    pr.od = in->on_demand_usd_hr * c->pt.price;
    pr.spot = in->spot_usd_hr * c->pt.price;
    pr.r1 = pr.od * (1 - A (c, "reserved_1y_discount"));
    pr.r3 = pr.od * (1 - A (c, "reserved_3y_discount"));
    pr.cb = pr.cb_nodes = 0;
    if (o->pricing == GP_PRICE_CAPACITY_BLOCK)
        capacity_block_price (c, in, o, &pr);
    double d[GP_PLAN_MAX_PERIODS], tol[GP_PLAN_MAX_PERIODS];
    struct gp_mix_in mi;
    cloud_mix_in (c, o, &pr, d, tol, &mi);
    if (o->pricing == GP_PRICE_CAPACITY_BLOCK) {
        if (!(pr.cb > 0)) {
            gp_plan_status_set (&o->cost, GP_EINFEASIBLE,
                                "%s has no capacity-block rate in the "
                                "catalog (parts.csv aws-cb-*)",
                                in->id);
            return;
        }
    } else if ((o->pricing == GP_PRICE_SPOT && !(pr.spot > 0))
               || !(pr.od > 0)) {
        gp_plan_status_set (&o->cost, GP_EINFEASIBLE,
                            "%s has no %s price in the catalog", in->id,
                            o->pricing == GP_PRICE_SPOT && !(pr.spot > 0)
                                ? "spot"
                                : "on-demand");
        return;
    }
    if (o->pricing == GP_PRICE_SPOT && !(o->spot_tolerant_share > 0)) {
        o->cost_why = GP_INFEAS_SPOT_INTOLERANT;
        gp_plan_status_set (&o->cost, GP_EINFEASIBLE,
                            "spot: no workload tolerates preemption (deadline "
                            "training and services stay off spot unless "
                            "allow_spot: true)");
        return;
    }
    if (capacity_caps (c, o, in, gp_plan_rented_peak (c, o), &mi) != 0)
        return;
    struct gp_mix m;
    gp_error_t err = {0};
    if (gp_mix_solve (&mi, &m, &err) != 0) {
        if (err.code == GP_EINFEASIBLE && o->max_gpus > 0)
            o->cost_why = GP_INFEAS_CAPACITY;
        gp_plan_status_set (&o->cost, err.code, "%s", err.text);
        return;
    }
    cloud_costs (c, o, &pr, &mi, &m);
    gp_mix_free (&m);
}
