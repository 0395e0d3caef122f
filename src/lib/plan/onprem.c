/* onprem.c - an on-prem design option: node power and capex from the
 * catalog's system rows, the rail-optimized fat tree, power and racks,
 * capex and opex over the horizon, and the break-even utilization against
 * renting the same accelerator on demand (docs/model/cost.md,
 * docs/model/infrastructure.md).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "plan_private.h"

/* A (c, key): an assumption; P (c, id, key): a catalog part value,
 * recorded as a source (run.c).
 */
#define A gp_plan_assumption
#define P gp_plan_part

/* GPUs per on-prem node when the spec gives none: the catalog's
 * accelerators per host (host_accelerators: GB200/GB300 trays 4, trn1/2
 * 16, TPU hosts 4, PCIe cards their typical server, e.g. 8 L40S), else
 * the scale-up domain up to 8 (the HGX/DGX or OAM baseboard), the rule
 * the training model uses for its node (train.c, gp_train_hw_from_accel).
 */
int gp_plan_node_gpus (const struct gp_accel *a)
{
    if (!a)
        return 8;
    if (a->host_accels > 0)
        return a->host_accels;
    return a->scale_up_domain >= 8  ? 8
           : a->scale_up_domain > 0 ? a->scale_up_domain
                                    : 8;
}

/* Catalog rows behind a node of an accelerator: DGX/HGX system power and
 * capex estimates.  Returns 0 or GP_ENOTFOUND when the catalog has none.
 */
int gp_plan_node_power_w (struct plan_ctx *c,
                          const struct gp_plan_option_spec *os, double *w)
{
    if (os->node_w > 0) {
        *w = os->node_w;
        return 0;
    }
    const char *id = NULL;
    if (!strcasecmp (os->accel_id, "H100-SXM")
        || !strcasecmp (os->accel_id, "H200-SXM"))
        id = "dgx-h100";
    else if (!strncasecmp (os->accel_id, "A100-SXM", 8))
        id = "dgx-a100";
    else if (!strcasecmp (os->accel_id, "B200"))
        id = "dgx-b200";
    if (!id || os->gpus_per_node != 8)
        return GP_ENOTFOUND;
    double kw = P (c, id, "max_power_kw");
    if (!(kw > 0))
        return GP_ENOTFOUND;
    *w = kw * 1000;
    return 0;
}

int gp_plan_node_capex_usd (struct plan_ctx *c,
                            const struct gp_plan_option_spec *os, double *usd)
{
    if (os->node_capex > 0) {
        *usd = os->node_capex * c->pt.price;
        return 0;
    }
    if (os->gpus_per_node != 8)
        return GP_ENOTFOUND;
    if (!strcasecmp (os->accel_id, "H100-SXM")) {
        *usd = P (c, "dgx-h100", "price_usd") * c->pt.price;
        return *usd > 0 ? 0 : GP_ENOTFOUND;
    }
    const char *gpu = NULL;
    if (!strcasecmp (os->accel_id, "H200-SXM"))
        gpu = "h200-gpu";
    else if (!strcasecmp (os->accel_id, "B200"))
        gpu = "b200-gpu";
    if (!gpu)
        return GP_ENOTFOUND;
    /* GPUs' share of a DGX H100's price, DERIVED from two catalog rows. */
    double dgx = P (c, "dgx-h100", "price_usd");
    double h100 = P (c, "h100-gpu", "price_usd");
    double each = P (c, gpu, "price_usd");
    if (!(dgx > 0 && h100 > 0 && each > 0))
        return GP_ENOTFOUND;
    double share = 8 * h100 / dgx;
    *usd = 8 * each / share * c->pt.price;
    return 0;
}

/* Cumulative cost per month: capex charged spread evenly, opex as it
 * falls (its present value spread evenly when discounted).
 */
static void fill_cum_onprem (struct gp_plan_option *o, size_t T)
{
    double opex_month = (o->onprem.discount_rate > 0
                         || o->onprem.delivery_years > 0)
                            ? o->onprem.opex_charged / (double)T
                            : o->onprem.opex_year / 12;
    double per_month = (o->onprem.capex_charged + o->onprem.burst_usd)
                           / (double)T
                       + opex_month;
    for (size_t t = 0; t < T; t++)
        o->cum_cost[t] = per_month * (double)(t + 1);
}

/* Network: rail-optimized fat tree from catalog switch rows. */
static void onprem_network (struct plan_ctx *c,
                            const struct gp_plan_option_spec *os,
                            struct gp_plan_option *o)
{
    struct gp_fabric_in fin = {0};
    fin.nodes = o->nodes;
    fin.gpus_per_node = o->gpus_per_node;
    fin.nics_per_gpu = os->nics_per_gpu > 0
                           ? os->nics_per_gpu
                           : (int)P (c, "rail-optimized", "nics_per_gpu");
    if (fin.nics_per_gpu < 1)
        fin.nics_per_gpu = 1;
    fin.radix = (int)P (c, os->switch_id, "ports");
    fin.port_bw = P (c, os->switch_id, "port_gbps") * 1e9 / 8;
    fin.nic_bw = fin.port_bw;
    fin.oversub = os->oversub * 1;
    snprintf (o->fabric_name, sizeof o->fabric_name,
              "rail-optimized fat tree (%s)", os->switch_id);
    gp_error_t err = {0};
    if (gp_fabric_size (&fin, &o->fabric, &err) != 0)
        gp_plan_status_set (&o->network, err.code, "%s", err.text);
    else if (o->nodes == 1) {
        /* one node: scale-up only, nothing crosses a NIC */
        snprintf (o->fabric_name, sizeof o->fabric_name,
                  "none (one node: scale-up only)");
        o->given_bw_per_gpu = 0;
    }
}

static void onprem_power (struct plan_ctx *c,
                          const struct gp_plan_option_spec *os,
                          struct gp_plan_option *o)
{
    const struct gp_plan_spec *s = c->s;
    double node_w = 0;
    gp_plan_node_power_w (c, os, &node_w);
    o->node_w = node_w;
    struct gp_power_in pin = {0};
    pin.nodes = o->nodes;
    pin.node_w = node_w;
    pin.other_it_w = A (c, "other_it_share") * node_w * o->nodes;
    if (os->liquid)
        pin.rack_w = s->cons.rack_w_liquid > 0
                         ? s->cons.rack_w_liquid
                         : P (c, "gb200-nvl72", "it_load_kw") * 1000;
    else
        pin.rack_w = s->cons.rack_w_air > 0
                         ? s->cons.rack_w_air
                         : P (c, "dgx-h100-air-rack", "it_load_kw") * 1000;
    pin.pue = P (c, "planning-assumption", "pue");
    pin.load_factor = A (c, "load_factor");
    pin.usd_per_kwh = P (c, "planning-assumption", "usd_per_kwh")
                      * c->pt.power_price;
    gp_error_t err = {0};
    if (gp_power_size (&pin, &o->pow, &err) != 0)
        gp_plan_status_set (&o->power, err.code, "%s", err.text);
}

/* Head (login) and management (control-plane) nodes by the scale tier
 * of the build, the tiers of the storage and stack choice
 * (gp_storage_tier_for; docs/model/infrastructure.md, "Supporting
 * infrastructure"): one node is its own login node with no control plane
 * (Docker Compose); a small cluster (9-32 GPUs) has head_nodes_small
 * login nodes and mgmt_nodes_small K3s servers; from 33 GPUs head_nodes
 * and mgmt_nodes (an etcd quorum).
 */
static void onprem_support_nodes (struct plan_ctx *c,
                                  struct gp_plan_option *o)
{
    switch (o->nodes <= 1 ? GP_TIER_LOCAL_NVME
                          : gp_storage_tier_for (o->gpus)) {
    case GP_TIER_LOCAL_NVME:
        o->head_nodes = 0;
        o->mgmt_nodes = 0;
        break;
    case GP_TIER_NFS:
        o->head_nodes = (int)A (c, "head_nodes_small");
        o->mgmt_nodes = (int)A (c, "mgmt_nodes_small");
        break;
    default:
        o->head_nodes = (int)A (c, "head_nodes");
        o->mgmt_nodes = (int)A (c, "mgmt_nodes");
        break;
    }
}

/* Capex of servers, network and storage, and the supporting nodes. */
static void onprem_capex (struct plan_ctx *c,
                          const struct gp_plan_option_spec *os,
                          struct gp_plan_option *o)
{
    double node_usd = 0;
    gp_plan_node_capex_usd (c, os, &node_usd);
    onprem_support_nodes (c, o);
    o->cpu_nodes = (int)ceil (o->stor.read_bw
                              / fmax (A (c, "cpu_node_preprocess_bw"), 1));
    o->capex_servers = o->nodes * node_usd * c->pt.capex;
    const struct gp_fabric *f = &o->fabric;
    double px = c->pt.price * c->pt.capex;
    o->capex_network = px * (f->switches * A (c, "switch_usd")
                             + f->nics * A (c, "nic_usd")
                             + f->transceivers * A (c, "transceiver_usd")
                             + f->cables * A (c, "cable_usd"));
    o->capex_storage = px * (o->stor.fast_bytes / 1e12
                                 * A (c, "storage_usd_per_tb")
                             + o->stor.object_bytes / 1e12
                                   * A (c, "object_usd_per_tb"));
}

static double onprem_od_price (struct plan_ctx *c,
                               const struct gp_plan_option *o,
                               const struct gp_instance **bi_out);

/* The spec's existing fleet inside this build: the owned GPUs of the
 * same accelerator free for the portfolio (existing.gpus less the
 * baseline held by other work; at most the build's), whose servers are
 * not bought again.  Moves their share of o->capex_servers into cin.
 */
static long long onprem_owned (struct plan_ctx *c, struct gp_plan_option *o,
                               struct gp_onprem_in *cin)
{
    const struct gp_plan_existing *ex = &c->s->existing;
    long long free_gpus = ex->gpus - ex->baseline_gpus;
    if (free_gpus < 1 || o->gpus < 1
        || strcasecmp (ex->accel_id, o->accel_id))
        return 0;
    long long owned = free_gpus < o->gpus ? free_gpus : o->gpus;
    cin->owned_gpu_share = (double)owned / (double)o->gpus;
    double usd = o->capex_servers * (double)owned / (double)o->gpus;
    o->capex_servers -= usd;
    cin->capex_servers = o->capex_servers;
    cin->owned_servers_usd = usd;
    cin->owned_age_years = ex->age_years;
    char u[32];
    if (c->r && o->kind == GP_OPT_BURST)
        gp_plan_log (c, "%s: keeps the existing fleet: %lld owned %s GPUs "
                        "(%.3g years old, %s new), nothing bought",
                     o->name, owned, o->accel_id, ex->age_years,
                     gp_fmt_usd (usd, u, sizeof u));
    else if (c->r)
        gp_plan_log (c, "%s: expands the existing fleet: %lld of its %lld %s "
                        "GPUs are owned (%.3g years old, %s new), only the "
                        "rest is bought",
                     o->name, owned, o->gpus, o->accel_id, ex->age_years,
                     gp_fmt_usd (usd, u, sizeof u));
    if (c->r && ex->baseline_gpus > 0)
        gp_plan_log (c, "%s: existing.baseline: %lld of the %lld owned GPUs "
                        "serve work outside the portfolio and are not "
                        "charged to it",
                     o->name, ex->baseline_gpus, ex->gpus);
    return owned;
}

/* Until the bought GPUs arrive ('lead' months into the horizon) the demand
 * beyond the owned GPUs is rented on demand (the cheapest on-demand price
 * of the accelerator), month by month at present value.  0, or -1 with
 * o->cost set when there is no price to burst to.
 */
static int onprem_burst (struct plan_ctx *c, struct gp_plan_option *o,
                         long long owned, double lead)
{
    const struct gp_instance *bi = NULL;
    double p = onprem_od_price (c, o, &bi);
    double r = o->onprem.discount_rate;
    double usd = 0, gh = 0;
    for (size_t t = 0; t < o->n_periods && (double)t < lead; t++) {
        double part = fmin (1, lead - (double)t);
        double g = fmax (0, o->demand_gpus[t] - (double)owned);
        double h = g * HOURS_PER_MONTH * part;
        gh += h;
        usd += h * p * (r > 0 ? pow (1 + r, -((double)t + part / 2) / 12)
                              : 1);
    }
    if (gh > 0 && !bi) {
        gp_plan_status_set (&o->cost, GP_ENOTFOUND,
                            "delivery_lead_time_months %.3g: no on-demand "
                            "price of %s to serve the demand before the "
                            "GPUs arrive",
                            lead, o->accel_id);
        return -1;
    }
    o->onprem.burst_usd = usd;
    o->onprem.burst_gpu_hours = gh;
    o->onprem.tco += usd;
    o->onprem.gpu_hours += gh;
    o->onprem.usd_per_gpu_hour = o->onprem.gpu_hours > 0
                                     ? o->onprem.tco / o->onprem.gpu_hours
                                     : 0;
    if (c->r && gh > 0) {
        char u[32];
        gp_plan_log (c, "%s: the bought GPUs arrive after %.3g months; the "
                        "demand beyond the owned GPUs until then (%.0f "
                        "GPU-hours) is rented on demand (%s, %s)",
                     o->name, lead, gh, bi->id, gp_fmt_usd (usd, u, sizeof u));
    }
    return 0;
}

/* Capex and opex over the horizon; 0, or -1 when the power or network
 * figures it needs are missing.
 */
static int onprem_tco (struct plan_ctx *c, struct gp_plan_option *o)
{
    struct gp_onprem_in cin = {0};
    cin.capex_servers = o->capex_servers;
    long long owned = onprem_owned (c, o, &cin);
    /* a burst option buys no GPUs: nothing waits for delivery */
    double lead = o->kind == GP_OPT_BURST ? 0
                                          : A (c, "delivery_lead_time_months");
    cin.delivery_years = lead / 12;
    cin.capex_network = o->capex_network;
    cin.capex_storage = o->capex_storage;
    cin.depreciation_years = A (c, "depreciation_years");
    cin.horizon_years = c->s->horizon_years;
    cin.energy_usd_year = o->pow.energy_usd_year;
    cin.support_share = A (c, "support_share_year");
    cin.staff_share = A (c, "staff_share_year");
    cin.space_usd_kw_month = A (c, "space_usd_per_kw_month");
    cin.it_kw = o->pow.it_w / 1000;
    cin.n_gpus = o->gpus;
    cin.discount_rate = A (c, "discount_rate");
    gp_error_t err = {0};
    if (o->power.code == 0 && o->network.code == 0
        && gp_onprem_cost (&cin, &o->onprem, &err) != 0)
        gp_plan_status_set (&o->cost, err.code, "%s", err.text);
    if (o->power.code || o->network.code) {
        gp_plan_status_set (&o->cost, o->power.code ? o->power.code
                                                    : o->network.code,
                            "needs the %s", o->power.code ? "power"
                                                          : "network");
        return -1;
    }
    if (o->cost.code == 0 && lead > 0 && onprem_burst (c, o, owned, lead))
        return -1;
    o->capex_usd = o->onprem.capex;
    o->tco_usd = o->onprem.tco;
    o->provisioned_gpu_hours = o->onprem.gpu_hours;
    o->usd_per_gpu_hour = o->onprem.usd_per_gpu_hour;
    fill_cum_onprem (o, o->n_periods);
    return 0;
}

/* The cheapest on-demand price per GPU-hour of the option's accelerator:
 * the plan's own cloud options first, the whole catalog only when the plan
 * has none.  Recorded as a source; 0 (and *bi NULL) when there is none.
 */
static double onprem_od_price (struct plan_ctx *c,
                               const struct gp_plan_option *o,
                               const struct gp_instance **bi_out)
{
    const struct gp_plan_spec *s = c->s;
    double best = 0;
    const struct gp_instance *bi = NULL;
    for (size_t i = 0; i < s->n_options; i++) {
        const struct gp_instance *in = s->options[i].inst;
        if (!in || strcasecmp (in->accel_id, o->accel_id)
            || !(in->on_demand_usd_hr > 0))
            continue;
        double p = in->on_demand_usd_hr / in->n_accels;
        if (!bi || p < best)
            best = p, bi = in;
    }
    size_t ni = bi ? 0 : gp_catalog_n_instances (c->cat);
    for (size_t i = 0; i < ni; i++) {
        const struct gp_instance *in = gp_catalog_instance (c->cat, i);
        if (strcasecmp (in->accel_id, o->accel_id) || !(in->on_demand_usd_hr
                                                        > 0))
            continue;
        double p = in->on_demand_usd_hr / in->n_accels;
        if (!bi || p < best)
            best = p, bi = in;
    }
    if (bi) {
        char what[GP_PLAN_TEXT];
        snprintf (what, sizeof what, "instances.csv %s %s on_demand_usd_hr",
                  bi->id, bi->region);
        gp_plan_add_source (c, what, bi->on_demand_usd_hr, "USD/h", bi->source,
                            bi->price_date);
    }
    *bi_out = bi;
    return bi ? best * c->pt.price : 0;
}

/* Break-even against renting the same accelerator on demand. */
static void onprem_breakeven (struct plan_ctx *c, struct gp_plan_option *o)
{
    const struct gp_instance *bi = NULL;
    double p = onprem_od_price (c, o, &bi);
    if (bi)
        o->breakeven_util = gp_breakeven_util (
            o->onprem.depreciation_year + o->onprem.opex_year, o->gpus, p);
}

void gp_plan_eval_onprem (struct plan_ctx *c,
                          const struct gp_plan_option_spec *os,
                          struct gp_plan_option *o)
{
    onprem_network (c, os, o);
    onprem_power (c, os, o);
    onprem_capex (c, os, o);
    if (onprem_tco (c, o) != 0)
        return;
    onprem_breakeven (c, o);
    gp__plan_sharp (c, os, o); /* the fabric choice: needs the cost */
}
