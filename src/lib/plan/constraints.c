/* constraints.c - the plan's constraints on one option: allowed clouds,
 * power, floor space, budget, jobs that never finish in the simulation,
 * spare nodes for constraints.min_availability, and the queueing check on
 * the simulated waits.  Each verdict is set as a typed field
 * (gp_plan_option.infeasible, .queue) with its message beside it; the
 * soft checks an option may fail and stay feasible are gathered as typed
 * shortfalls (gp_plan_option.shortfalls).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/train.h"
#include "gpuplan/units.h"
#include "plan_private.h"

static int cloud_allowed (const struct gp_plan_spec *s, const char *cloud)
{
    if (s->cons.n_clouds == 0)
        return 1;
    for (size_t i = 0; i < s->cons.n_clouds; i++)
        if (!strcmp (s->cons.clouds[i], cloud))
            return 1;
    return 0;
}

static void reject (struct gp_plan_option *o, enum gp_plan_infeasible why,
                    const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
static void reject (struct gp_plan_option *o, enum gp_plan_infeasible why,
                    const char *fmt, ...)
{
    va_list ap;
    o->feasible = 0;
    o->infeasible = why;
    va_start (ap, fmt);
    vsnprintf (o->violation, sizeof o->violation, fmt, ap);
    va_end (ap);
}

static const char *const shortfall_names[GP_N_SHORTFALLS] = {
    "network", "storage", "queueing", "quota",
};

const char *gp_plan_shortfall_str (enum gp_plan_shortfall s)
{
    return (unsigned)s < GP_N_SHORTFALLS ? shortfall_names[s] : "?";
}

/* The soft checks as typed shortfalls (plan.h, enum gp_plan_shortfall). */
static unsigned shortfalls_of (const struct gp_plan_option *o)
{
    unsigned m = 0;
    if (o->bw_short)
        m |= 1u << GP_SHORT_NETWORK;
    if (o->storage.code == 0 && o->storage_short)
        m |= 1u << GP_SHORT_STORAGE;
    if (o->queue != GP_QUEUE_OK)
        m |= 1u << GP_SHORT_QUEUE;
    /* A job above its team's quota borrows idle quota in the cohort;
     * when the simulation ran, its queueing check (GP_SHORT_QUEUE) judges
     * whether that borrowing works, so the quota note alone is a
     * shortfall only when nothing simulated it.
     */
    if (o->quota_short && o->compute.code == 0 && o->sim.code != 0)
        m |= 1u << GP_SHORT_QUOTA;
    return m;
}

void gp_plan_check_constraints (struct plan_ctx *c, struct gp_plan_option *o)
{
    const struct gp_plan_constraints *k = &c->s->cons;
    o->shortfalls = shortfalls_of (o);
    o->feasible = 1;
    o->infeasible = GP_INFEAS_NONE;
    if (o->kind != GP_OPT_ONPREM && !cloud_allowed (c->s, o->cloud)) {
        reject (o, GP_INFEAS_CLOUD, "cloud %s is not in constraints.clouds",
                o->cloud);
        return;
    }
    if (o->compute.code == GP_EINFEASIBLE) {
        reject (o, GP_INFEAS_COMPUTE, "%s", o->compute.text);
        return;
    }
    if (o->kind == GP_OPT_ONPREM && o->power.code == 0) {
        if (k->power_w > 0 && o->pow.it_w > k->power_w) {
            char it[32], cap[32];
            reject (o, GP_INFEAS_POWER,
                    "IT power %s exceeds constraints.power %s",
                    gp_format_quantity (o->pow.it_w, GP_Q_POWER, 0, it,
                                        sizeof it),
                    gp_format_quantity (k->power_w, GP_Q_POWER, 0, cap,
                                        sizeof cap));
            return;
        }
        if (k->floor_racks > 0 && o->pow.racks > k->floor_racks) {
            reject (o, GP_INFEAS_RACKS,
                    "%lld racks exceed constraints.floor_racks %d",
                    o->pow.racks, k->floor_racks);
            return;
        }
    }
    if (o->power.code == GP_EINFEASIBLE || o->network.code == GP_EINFEASIBLE
        || o->cost.code == GP_EINFEASIBLE) {
        reject (o,
                !o->power.code && !o->network.code && o->cost_why
                    ? o->cost_why
                    : GP_INFEAS_PART,
                "%s",
                o->power.code ? o->power.text
                : o->network.code ? o->network.text
                                  : o->cost.text);
        return;
    }
    if (o->sim.code == 0 && o->sim_unfinished > 0) {
        reject (o, GP_INFEAS_UNFINISHED,
                "simulation: %zu of %zu jobs never finish on %lld GPUs "
                "under the '%s' policy",
                o->sim_unfinished, o->sim_jobs, o->gpus, c->s->policy);
        return;
    }
    if (k->budget_usd > 0 && o->cost.code == 0
        && o->tco_usd > k->budget_usd) {
        char u1[32], u2[32];
        reject (o, GP_INFEAS_BUDGET, "TCO %s exceeds constraints.budget %s",
                gp_fmt_usd (o->tco_usd, u1, sizeof u1),
                gp_fmt_usd (k->budget_usd, u2, sizeof u2));
    }
}

/* The queueing check on the simulated waits (infrastructure.md,
 * Multi-tenancy): the first team over a limit sets o->queue; queue_flag
 * says it in words.
 */
void gp_plan_queue_check (struct plan_ctx *c, struct gp_plan_option *o)
{
    o->queue = GP_QUEUE_OK;
    o->queue_flag[0] = 0;
    if (o->sim.code != 0)
        return;
    double p95_h = gp_plan_assumption (c, "queue_p95_wait_limit_h");
    double max_h = gp_plan_assumption (c, "queue_max_wait_limit_h");
    for (size_t i = 0; i < o->n_quotas; i++) {
        const struct gp_plan_quota *q = &o->quotas[i];
        if (p95_h > 0 && q->wait_p95_s > p95_h * 3600) {
            o->queue = GP_QUEUE_P95_WAIT;
            o->queue_wait_h = q->wait_p95_s / 3600;
            o->queue_limit_h = p95_h;
        } else if (max_h > 0 && q->wait_max_s > max_h * 3600) {
            o->queue = GP_QUEUE_MAX_WAIT;
            o->queue_wait_h = q->wait_max_s / 3600;
            o->queue_limit_h = max_h;
        } else {
            continue;
        }
        o->queue_team = (int)i;
        if (o->queue == GP_QUEUE_P95_WAIT)
            snprintf (o->queue_flag, sizeof o->queue_flag,
                      "queueing: team %.60s's p95 wait %.1f h exceeds "
                      "queue_p95_wait_limit_h %.4g h",
                      q->team, o->queue_wait_h, o->queue_limit_h);
        else
            snprintf (o->queue_flag, sizeof o->queue_flag,
                      "queueing: team %.60s waits up to %.1f h, over "
                      "queue_max_wait_limit_h %.4g h",
                      q->team, o->queue_wait_h, o->queue_limit_h);
        return;
    }
}

/* P(X <= k) for X ~ Binomial(n, u), by the recurrence on the terms. */
static double binom_cdf (long long n, long long k, double u)
{
    if (u <= 0)
        return 1;
    if (u >= 1)
        return k >= n ? 1 : 0;
    double term = exp ((double)n * log1p (-u));   /* P(X = 0) */
    double sum = term;
    for (long long i = 1; i <= k && i <= n; i++) {
        term *= (double)(n - i + 1) / (double)i * u / (1 - u);
        sum += term;
    }
    return fmin (sum, 1);
}

/* constraints.min_availability on-prem: N + k.  A node is down for
 * node_repair_h after each failure; failures arrive at the reliability
 * model's rate per GPU-hour (train.h, Llama 3 paper) x GPUs per node, so
 * a node is down a share u = l r / (1 + l r) of the time.  k is the
 * fewest spares with P(at most k of N + k nodes down) >= A, N the nodes
 * the demand needs at its peak (docs/model/infrastructure.md).  A sized
 * fleet gets the spares added; a given fleet must already hold them.
 * Returns -1 when the option is rejected.
 */
int gp_plan_availability_spares (struct plan_ctx *c,
                                 const struct gp_plan_option_spec *os,
                                 const struct plan_sizing *z,
                                 struct gp_plan_option *o)
{
    double a = c->s->cons.min_availability;
    int gpn = o->gpus_per_node;
    if (os->gpus > 0 && !(z && z->code == 0))
        return 0; /* a given fleet without a demand: nothing to check */
    double lam = gp_plan_assumption (c, "fail_per_gpu_hour") * gpn
                 * c->pt.failure;
    double lr = lam * gp_plan_assumption (c, "node_repair_h");
    double u = lr / (1 + lr);
    long long need = o->gpus / gpn;
    if (os->gpus > 0)
        need = (long long)ceil ((double)z->peak_gpus * c->pt.demand / gpn
                                - 1e-9);
    long long k = 0;
    while (binom_cdf (need + k, k, u) < a && k < need + 1000)
        k++;
    o->node_down_share = u;
    o->spare_nodes = k;
    o->availability = binom_cdf (need + k, k, u);
    if (os->gpus > 0) {
        long long have = o->gpus / gpn;
        o->availability = binom_cdf (have, have - need, u);
        if (have < need + k) {
            o->feasible = 0;
            gp_plan_status_set (&o->compute, GP_EINFEASIBLE,
                                "constraints.min_availability %.4g needs %lld "
                                "spare nodes over the %lld the demand needs "
                                "(node down %.3g%% of the time); "
                                "options[%d].gpus gives %lld",
                                a, k, need, 100 * u, o->spec_index,
                                have - need);
            o->spare_nodes = have - need;
            return -1;
        }
        o->spare_nodes = have - need;
        return 0;
    }
    o->gpus += k * gpn;
    return 0;
}
