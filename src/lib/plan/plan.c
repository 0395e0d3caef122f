/* plan.c - the capacity plan: build every design option of a spec, size
 * its network, storage and power, cost it over the horizon, check the
 * constraints, pick the recommendation with a decision log, and move the
 * inputs to see how the recommendation moves (sensitivity).
 *
 * The GPU count of an option comes either from the spec (a fixed fleet
 * size) or from the training and inference planners (compute.c); every
 * other figure is a formula of cost.h over catalog rows (recorded with
 * their sources) and the documented assumptions of assume.c.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpuplan/arch.h"
#include "gpuplan/train.h"
#include "plan_private.h"


struct ctx {
    struct gp_plan_spec *s;
    const struct gp_catalog *cat;
    struct gp_plan_result *r;   /* NULL: do not record sources */
    struct plan_perturb pt;
    struct gp_zoo *zoo;
    /* planner answers per option spec and MFU setting, computed once */
    struct plan_sizing *sz[GP_PLAN_MAX_OPTION_SPECS][3];
};

static const struct plan_sizing *sizing (struct ctx *c, int spec_index,
                                         size_t n_periods)
{
    int k = c->pt.mfu;
    struct plan_sizing **z = &c->sz[spec_index][k];
    if (!*z) {
        *z = calloc (1, sizeof **z);
        if (!*z)
            return NULL;
        double x = gp_plan_assume (c->s, "sensitivity_mfu");
        double mfu = k == 1 ? 1 - x : k == 2 ? 1 + x : 1;
        plan_size_compute (c->s, c->cat, c->zoo, &c->s->options[spec_index],
                           mfu, n_periods, *z);
    }
    return *z;
}

static double A (struct ctx *c, const char *key)
{
    double v = gp_plan_assume (c->s, key);
    return isnan (v) ? 0 : v;
}

static const struct gp_part *part_row (const struct gp_catalog *cat,
                                       const char *id, const char *key)
{
    size_t n = gp_catalog_n_parts (cat);
    for (size_t i = 0; i < n; i++) {
        const struct gp_part *p = gp_catalog_part (cat, i);
        if (p->has_value && strcasecmp (p->id, id) == 0
            && strcmp (p->key, key) == 0)
            return p;
    }
    return NULL;
}

static void add_source (struct gp_plan_result *r, const char *what,
                        double value, const char *unit, const char *source,
                        const char *date)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_sources; i++)
        if (strcmp (r->sources[i].what, what) == 0)
            return;
    if (r->n_sources >= GP_PLAN_MAX_SOURCES)
        return;
    struct gp_plan_source *s = &r->sources[r->n_sources++];
    snprintf (s->what, sizeof s->what, "%s", what);
    s->value = value;
    snprintf (s->unit, sizeof s->unit, "%s", unit ? unit : "");
    snprintf (s->source, sizeof s->source, "%s", source ? source : "");
    snprintf (s->date, sizeof s->date, "%s", date ? date : "");
}

/* A catalog part value, recorded as a source; 0 when absent. */
static double P (struct ctx *c, const char *id, const char *key)
{
    const struct gp_part *p = part_row (c->cat, id, key);
    if (!p)
        return 0;
    char what[GP_PLAN_TEXT];
    snprintf (what, sizeof what, "parts.csv %s %s", id, key);
    add_source (c->r, what, p->value, p->unit, p->source, p->source_date);
    return p->value;
}

static void status_set (struct gp_part_status *st, int code, const char *fmt,
                        ...) __attribute__ ((format (printf, 3, 4)));
static void status_set (struct gp_part_status *st, int code, const char *fmt,
                        ...)
{
    va_list ap;
    st->code = code;
    va_start (ap, fmt);
    vsnprintf (st->text, sizeof st->text, fmt, ap);
    va_end (ap);
}

/* ------------------------- on-prem node figures ------------------------ */

/* Catalog rows behind a node of an accelerator: DGX/HGX system power and
 * capex estimates.  Returns 0 or GP_ENOTFOUND when the catalog has none.
 */
static int node_power_w (struct ctx *c, const struct gp_plan_option_spec *os,
                         double *w)
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

static int node_capex_usd (struct ctx *c,
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

/* -------------------------------- stack -------------------------------- */

static void stack_for (struct gp_plan_option *o)
{
    long long g = o->gpus;
    const char *tier, *stack, *why;
    if (g <= 8) {
        tier = "single workstation (1-8 GPUs)";
        stack = "Docker Compose; local NVMe; DCGM exporter + Prometheus + "
                "Grafana; MLflow tracking and registry";
        why = "one node: a scheduler adds nothing, containers pin versions";
    } else if (g <= 32) {
        tier = "small cluster (9-32 GPUs)";
        stack = "K3s or MicroK8s + NVIDIA GPU Operator; NFS or Longhorn; "
                "DCGM exporter + Prometheus + Grafana; MLflow";
        why = "a few nodes: a light Kubernetes keeps operations small, NFS "
              "serves the data rates";
    } else if (g <= 128) {
        tier = "mid-scale (33-128 GPUs)";
        stack = "Kubernetes + GPU Operator + Kueue quotas; Ceph or BeeGFS; "
                "DCGM exporter + Prometheus + Grafana; MLflow";
        why = "several teams share the cluster: quotas and gang admission "
              "matter, a scale-out file system serves checkpoints";
    } else {
        tier = "large (129-1000+ GPUs)";
        stack = "Kubernetes + GPU Operator + Volcano/Kueue, or Slurm; "
                "Lustre/GPFS/WekaFS + object store; DCGM exporter + "
                "Prometheus + Grafana; MLflow";
        why = "multi-node jobs need gang scheduling and topology-aware "
              "placement; checkpoint bursts need a parallel file system";
    }
    if (o->kind == GP_OPT_CLOUD && g > 8) {
        stack = "managed Kubernetes (EKS/GKE/AKS) + GPU Operator + Kueue, "
                "or cloud Slurm (ParallelCluster, Cluster Toolkit, "
                "CycleCloud); managed Lustre + object store; DCGM exporter "
                "+ Prometheus + Grafana; MLflow";
        why = "rented nodes: the provider runs the control plane and the "
              "file system, quotas and gang admission stay ours";
    }
    snprintf (o->scale_tier, sizeof o->scale_tier, "%s", tier);
    snprintf (o->stack, sizeof o->stack, "%s", stack);
    snprintf (o->stack_why, sizeof o->stack_why, "%s", why);
}

/* ------------------------------ evaluation ----------------------------- */

static const char *cloud_fs_row (const char *cloud)
{
    if (!strcmp (cloud, "gcp"))
        return "gcp-managed-lustre-125";
    if (!strcmp (cloud, "azure"))
        return "azure-managed-lustre-250";
    return "fsx-lustre-p2-ssd-125";
}

static void eval_storage (struct ctx *c, struct gp_plan_option *o)
{
    struct gp_plan_spec *s = c->s;
    struct gp_storage_in in = {0};
    double ckpt_bpp = P (c, "full-resumable-checkpoint", "bytes_per_param");
    double weights_bpp = P (c, "weights-only-bf16", "bytes_per_param");
    double bpt = A (c, "bytes_per_token");
    for (size_t i = 0; i < s->n_workloads; i++) {
        const struct gp_plan_workload *w = &s->workloads[i];
        in.dataset_bytes += w->dataset_bytes;
        in.artifact_bytes += w->params * weights_bpp;
        if (w->kind != GP_WL_INFERENCE && w->params * ckpt_bpp
                                              > in.checkpoint_bytes)
            in.checkpoint_bytes = w->params * ckpt_bpp;
        if (w->kind == GP_WL_TRAINING)
            in.read_bw += w->tokens / w->deadline_s * bpt;
        else if (w->kind == GP_WL_RECURRING)
            in.read_bw += w->tokens * w->runs_per_month
                          / (HOURS_PER_MONTH * 3600) * bpt;
    }
    in.n_gpus = o->gpus;
    in.checkpoints_kept = (int)A (c, "checkpoints_kept");
    in.ckpt_write_s = A (c, "checkpoint_write_s");
    in.headroom = A (c, "storage_headroom");
    in.object_copies = A (c, "object_copies");
    double mbs_tib;
    if (o->kind == GP_OPT_CLOUD)
        mbs_tib = P (c, cloud_fs_row (o->cloud), "throughput_mbs_per_tib");
    else
        mbs_tib = A (c, "storage_tput_mbs_per_tib");
    in.tput_per_byte = mbs_tib * 1e6 / 1099511627776.0;
    gp_error_t err = {0};
    if (gp_storage_size (&in, &o->stor, &err) != 0) {
        status_set (&o->storage, err.code, "%s", err.text);
        return;
    }
    o->storage_given_bw = o->stor.fast_bytes * in.tput_per_byte;
    o->storage_short = in.tput_per_byte > 0
                       && fmax (o->stor.read_bw, o->stor.write_bw)
                              > o->storage_given_bw * (1 + 1e-9);
    if (o->kind == GP_OPT_CLOUD)
        o->stor.tier = GP_TIER_PARALLEL_FS;
    if (o->kind == GP_OPT_CLOUD)
        snprintf (o->storage_stack, sizeof o->storage_stack,
                  "managed Lustre (%s) + object store; local NVMe cache",
                  cloud_fs_row (o->cloud));
    else
        snprintf (o->storage_stack, sizeof o->storage_stack, "%s",
                  o->stor.tier == GP_TIER_LOCAL_NVME ? "local NVMe"
                  : o->stor.tier == GP_TIER_NFS      ? "NFS or Longhorn"
                  : o->stor.tier == GP_TIER_CEPH
                      ? "Ceph or BeeGFS + object store"
                      : "Lustre/GPFS/WekaFS + object store");
}

static void fill_cum_onprem (struct gp_plan_option *o, size_t T)
{
    double per_month = (o->onprem.capex_charged / (double)T)
                       + o->onprem.opex_year / 12;
    for (size_t t = 0; t < T; t++)
        o->cum_cost[t] = per_month * (double)(t + 1);
}

static void eval_onprem (struct ctx *c, const struct gp_plan_option_spec *os,
                         struct gp_plan_option *o)
{
    struct gp_plan_spec *s = c->s;
    /* network: rail-optimized fat tree from catalog switch rows */
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
        status_set (&o->network, err.code, "%s", err.text);

    /* power */
    double node_w = 0;
    node_power_w (c, os, &node_w);
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
    if (gp_power_size (&pin, &o->pow, &err) != 0)
        status_set (&o->power, err.code, "%s", err.text);

    /* capex */
    double node_usd = 0;
    node_capex_usd (c, os, &node_usd);
    o->head_nodes = (int)A (c, "head_nodes");
    o->mgmt_nodes = o->gpus > 32 ? (int)A (c, "mgmt_nodes") : 1;
    o->cpu_nodes = (int)ceil (o->stor.read_bw
                              / fmax (A (c, "cpu_node_preprocess_bw"), 1));
    o->capex_servers = o->nodes * node_usd;
    const struct gp_fabric *f = &o->fabric;
    double px = c->pt.price;
    o->capex_network = px * (f->switches * A (c, "switch_usd")
                             + f->nics * A (c, "nic_usd")
                             + f->transceivers * A (c, "transceiver_usd")
                             + f->cables * A (c, "cable_usd"));
    o->capex_storage = px * (o->stor.fast_bytes / 1e12
                                 * A (c, "storage_usd_per_tb")
                             + o->stor.object_bytes / 1e12
                                   * A (c, "object_usd_per_tb"));
    struct gp_onprem_in cin = {0};
    cin.capex_servers = o->capex_servers;
    cin.capex_network = o->capex_network;
    cin.capex_storage = o->capex_storage;
    cin.depreciation_years = A (c, "depreciation_years");
    cin.horizon_years = s->horizon_years;
    cin.energy_usd_year = o->pow.energy_usd_year;
    cin.support_share = A (c, "support_share_year");
    cin.staff_share = A (c, "staff_share_year");
    cin.space_usd_kw_month = A (c, "space_usd_per_kw_month");
    cin.it_kw = o->pow.it_w / 1000;
    cin.n_gpus = o->gpus;
    if (o->power.code == 0 && o->network.code == 0
        && gp_onprem_cost (&cin, &o->onprem, &err) != 0)
        status_set (&o->cost, err.code, "%s", err.text);
    if (o->power.code || o->network.code) {
        status_set (&o->cost, o->power.code ? o->power.code
                                            : o->network.code,
                    "needs the %s", o->power.code ? "power" : "network");
        return;
    }
    o->capex_usd = o->onprem.capex;
    o->tco_usd = o->onprem.tco;
    o->provisioned_gpu_hours = o->onprem.gpu_hours;
    o->usd_per_gpu_hour = o->onprem.usd_per_gpu_hour;
    fill_cum_onprem (o, o->n_periods);
    /* break-even against on-demand rental of the same accelerator */
    /* Break-even against the plan's own cloud options with the same
     * accelerator; the whole catalog only when the plan has none.
     */
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
        add_source (c->r, what, bi->on_demand_usd_hr, "USD/h", bi->source,
                    bi->price_date);
        o->breakeven_util = gp_breakeven_util (
            o->onprem.depreciation_year + o->onprem.opex_year, o->gpus,
            best * c->pt.price);
    }
}

/* The share of demand spot may serve: spot_max_share, and under
 * constraints.min_availability A at most 1 - A, since spot capacity can
 * be withdrawn at any time (docs/model/cost.md).
 */
static double spot_share (struct ctx *c)
{
    double x = A (c, "spot_max_share");
    double a = c->s->cons.min_availability;
    return a > 0 ? fmin (x, 1 - a) : x;
}

static void eval_cloud (struct ctx *c, struct gp_plan_option *o)
{
    struct gp_plan_spec *s = c->s;
    const struct gp_instance *in = s->options[o->spec_index].inst;
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
    char what[GP_PLAN_TEXT];
    snprintf (what, sizeof what, "instances.csv %s %s prices", in->id,
              in->region);
    add_source (c->r, what, in->on_demand_usd_hr, "USD/node-h", in->source,
                in->price_date);
    double od = in->on_demand_usd_hr * c->pt.price;
    double spot = in->spot_usd_hr * c->pt.price;
    double r1 = od * (1 - A (c, "reserved_1y_discount"));
    double r3 = od * (1 - A (c, "reserved_3y_discount"));
    size_t T = o->n_periods;
    double d[GP_PLAN_MAX_PERIODS];
    double max_nodes = 0;
    for (size_t t = 0; t < T; t++) {
        d[t] = ceil (o->demand_gpus[t] / o->gpus_per_node - 1e-9);
        if (d[t] > max_nodes)
            max_nodes = d[t];
    }
    double rate = A (c, "spot_interruptions_per_node_month") / HOURS_PER_MONTH
                  * c->pt.failure;
    const struct plan_sizing *z = sizing (c, o->spec_index, o->n_periods);
    double interval = z && z->code == 0 && z->ckpt_interval_s > 0
                          ? z->ckpt_interval_s
                          : A (c, "checkpoint_interval_s");
    o->spot_overhead = gp_spot_overhead (rate, max_nodes, interval,
                                         A (c, "restart_s"));
    struct gp_mix_in mi = {0};
    mi.n_periods = T;
    mi.demand = d;
    mi.period_hours = HOURS_PER_MONTH;
    mi.spot_overhead = o->spot_overhead;
    mi.integer = 1;
    switch (o->pricing) {
    case GP_PRICE_ON_DEMAND:
        mi.on_demand_price = od;
        break;
    case GP_PRICE_RESERVED_1Y:
        mi.n_commit = 1;
        mi.commit_price[0] = r1;
        mi.commit_term_periods[0] = 12;
        break;
    case GP_PRICE_RESERVED_3Y:
        mi.n_commit = 1;
        mi.commit_price[0] = r3;
        mi.commit_term_periods[0] = 36;
        break;
    case GP_PRICE_SPOT:
        /* Spot for the share of the demand that tolerates preemption,
         * on-demand for the rest (services and deadline runs).
         */
        mi.spot_price = spot;
        mi.spot_max_share = spot_share (c);
        mi.on_demand_price = od;
        break;
    case GP_PRICE_MIX:
        mi.on_demand_price = od;
        mi.spot_price = spot;
        mi.spot_max_share = spot_share (c);
        if (s->cons.terms & 1) {
            mi.commit_price[mi.n_commit] = r1;
            mi.commit_term_periods[mi.n_commit++] = 12;
        }
        if (s->cons.terms & 2) {
            mi.commit_price[mi.n_commit] = r3;
            mi.commit_term_periods[mi.n_commit++] = 36;
        }
        break;
    }
    if ((o->pricing == GP_PRICE_SPOT && !(spot > 0)) || !(od > 0)) {
        status_set (&o->cost, GP_EINFEASIBLE,
                    "%s has no %s price in the catalog", in->id,
                    o->pricing == GP_PRICE_SPOT && !(spot > 0) ? "spot"
                                                               : "on-demand");
        return;
    }
    struct gp_mix m;
    gp_error_t err = {0};
    if (gp_mix_solve (&mi, &m, &err) != 0) {
        status_set (&o->cost, err.code, "%s", err.text);
        return;
    }
    double fs_price = P (c, "fsx-lustre-p2-ssd-125", "price_usd_per_gb_month")
                      * c->pt.price;
    double storage_month = o->stor.fast_bytes / 1e9 * fs_price;
    o->cloud_storage_usd = storage_month * (double)T;
    o->cloud_compute_usd = m.cost;
    o->commit_usd = 0;
    for (size_t j = 0; j < mi.n_commit; j++)
        o->commit_usd += m.commit_cost[j];
    o->on_demand_usd = m.on_demand_cost;
    o->spot_usd = m.spot_cost;
    o->tco_usd = m.cost + o->cloud_storage_usd;
    double cum = 0, paid_in_horizon = 0;
    for (size_t t = 0; t < T; t++) {
        double month = storage_month;
        for (size_t j = 0; j < mi.n_commit; j++)
            month += m.commit[j * T + t] * mi.commit_price[j]
                     * HOURS_PER_MONTH;
        month += m.on_demand[t] * od * HOURS_PER_MONTH
                 + m.spot[t] * spot * HOURS_PER_MONTH;
        cum += month;
        o->cum_cost[t] = cum;
    }
    paid_in_horizon = cum;
    /* Commitment terms that run past the horizon are paid in full. */
    if (o->tco_usd > paid_in_horizon && T > 0)
        o->cum_cost[T - 1] = o->tco_usd;
    /* Provisioned GPU-hours: every node-hour paid for, used or not: each
     * commitment for its whole term (also past the horizon), on-demand
     * and spot node-hours as rented (cost.md, "Cost per GPU-hour").
     */
    double paid_node_h = 0;
    for (size_t j = 0; j < mi.n_commit; j++)
        if (mi.commit_price[j] > 0)
            paid_node_h += m.commit_cost[j] / mi.commit_price[j];
    if (od > 0)
        paid_node_h += m.on_demand_cost / od;
    if (spot > 0)
        paid_node_h += m.spot_cost / spot;
    gp_mix_free (&m);
    o->provisioned_gpu_hours = paid_node_h * o->gpus_per_node;
    o->usd_per_gpu_hour = o->provisioned_gpu_hours > 0
                              ? o->tco_usd / o->provisioned_gpu_hours
                              : 0;
}

static int cloud_allowed (const struct gp_plan_spec *s, const char *cloud)
{
    if (s->cons.n_clouds == 0)
        return 1;
    for (size_t i = 0; i < s->cons.n_clouds; i++)
        if (!strcmp (s->cons.clouds[i], cloud))
            return 1;
    return 0;
}

static void check_constraints (struct ctx *c, struct gp_plan_option *o)
{
    const struct gp_plan_constraints *k = &c->s->cons;
    o->feasible = 1;
    char *v = o->violation;
    size_t vs = sizeof o->violation;
    if (o->kind == GP_OPT_CLOUD && !cloud_allowed (c->s, o->cloud)) {
        o->feasible = 0;
        snprintf (v, vs, "cloud %s is not in constraints.clouds", o->cloud);
        return;
    }
    if (o->compute.code == GP_EINFEASIBLE) {
        o->feasible = 0;
        snprintf (v, vs, "%s", o->compute.text);
        return;
    }
    if (o->kind == GP_OPT_ONPREM && o->power.code == 0) {
        if (k->power_w > 0 && o->pow.it_w > k->power_w) {
            o->feasible = 0;
            snprintf (v, vs, "IT power %.0f kW exceeds constraints.power "
                             "%.0f kW",
                      o->pow.it_w / 1e3, k->power_w / 1e3);
            return;
        }
        if (k->floor_racks > 0 && o->pow.racks > k->floor_racks) {
            o->feasible = 0;
            snprintf (v, vs, "%lld racks exceed constraints.floor_racks %d",
                      o->pow.racks, k->floor_racks);
            return;
        }
    }
    if (o->power.code == GP_EINFEASIBLE || o->network.code == GP_EINFEASIBLE
        || o->cost.code == GP_EINFEASIBLE) {
        o->feasible = 0;
        snprintf (v, vs, "%s",
                  o->power.code ? o->power.text
                  : o->network.code ? o->network.text
                                    : o->cost.text);
        return;
    }
    if (o->sim.code == 0 && o->sim_unfinished > 0) {
        o->feasible = 0;
        snprintf (v, vs, "simulation: %zu of %zu jobs never finish on %lld "
                         "GPUs under the '%s' policy",
                  o->sim_unfinished, o->sim_jobs, o->gpus, c->s->policy);
        return;
    }
    if (k->budget_usd > 0 && o->cost.code == 0
        && o->tco_usd > k->budget_usd) {
        o->feasible = 0;
        char u1[32], u2[32];
        snprintf (v, vs, "TCO %s exceeds constraints.budget %s",
                  gp_fmt_usd (o->tco_usd, u1, sizeof u1),
                  gp_fmt_usd (k->budget_usd, u2, sizeof u2));
    }
}

static void quotas_for (struct ctx *c, struct gp_plan_option *o)
{
    struct gp_plan_spec *s = c->s;
    double total = 0;
    int use_share = 0;
    for (size_t i = 0; i < s->n_teams; i++)
        if (s->teams[i].quota_share > 0)
            use_share = 1;
    for (size_t i = 0; i < s->n_teams; i++)
        total += use_share ? s->teams[i].quota_share : s->teams[i].weight;
    o->n_quotas = 0;
    /* A quota below a team's largest job would starve that job: raise it
     * to the job (from the planners), taking the GPUs from teams above
     * their own largest job, in proportion to their surplus.
     */
    const struct plan_sizing *z = sizing (c, o->spec_index, o->n_periods);
    long long need[GP_PLAN_MAX_TEAMS] = {0}, held[GP_PLAN_MAX_TEAMS] = {0};
    for (size_t w = 0; z && z->code == 0 && w < s->n_workloads; w++)
        for (size_t i = 0; i < s->n_teams; i++) {
            if (strcmp (s->workloads[w].team, s->teams[i].name))
                continue;
            if (s->workloads[w].kind == GP_WL_INFERENCE)
                held[i] += (long long)z->job_gpus[w];
            else if ((long long)z->job_gpus[w] > need[i])
                need[i] = (long long)z->job_gpus[w];
        }
    for (size_t i = 0; i < s->n_teams; i++)
        need[i] += held[i]; /* services run beside the team's largest job */
    long long sum = 0;
    for (size_t i = 0; i < s->n_teams && total > 0; i++) {
        struct gp_plan_quota *q = &o->quotas[o->n_quotas++];
        snprintf (q->team, sizeof q->team, "%s", s->teams[i].name);
        q->wished_share = (use_share ? s->teams[i].quota_share
                                     : s->teams[i].weight)
                          / total;
        q->gpus = (long long)floor (q->wished_share * (double)o->gpus
                                    + 1e-9);
        if (need[i] > q->gpus && need[i] <= o->gpus)
            q->gpus = need[i];
        sum += q->gpus;
    }
    long long over = sum - o->gpus;
    if (over > 0) {
        long long surplus = 0;
        for (size_t i = 0; i < o->n_quotas; i++)
            if (o->quotas[i].gpus > need[i])
                surplus += o->quotas[i].gpus - need[i];
        for (size_t i = 0; i < o->n_quotas && surplus > 0; i++) {
            long long sp = o->quotas[i].gpus - need[i];
            if (sp <= 0)
                continue;
            long long cut = (long long)ceil ((double)over * (double)sp
                                             / (double)surplus);
            if (cut > sp)
                cut = sp;
            o->quotas[i].gpus -= cut;
        }
    }
    /* When the teams' largest jobs together need more than the fleet, the
     * lowest-priority team (the largest quota among equals) gives up the
     * rest: the quotas add up to at most the fleet, and that team's
     * largest job runs only by borrowing idle quota (Kueue cohort
     * borrowing, unlimited here), so it may wait while the others run.
     */
    sum = 0;
    long long needs = 0;
    for (size_t i = 0; i < o->n_quotas; i++) {
        sum += o->quotas[i].gpus;
        needs += need[i];
    }
    over = sum - o->gpus;
    while (over > 0) {
        int low = -1;
        for (size_t i = 0; i < o->n_quotas; i++) {
            if (o->quotas[i].gpus <= 0)
                continue;
            if (low < 0 || s->teams[i].priority < s->teams[low].priority
                || (s->teams[i].priority == s->teams[low].priority
                    && o->quotas[i].gpus > o->quotas[low].gpus))
                low = (int)i;
        }
        if (low < 0)
            break;
        long long cut = over < o->quotas[low].gpus ? over
                                                   : o->quotas[low].gpus;
        o->quotas[low].gpus -= cut;
        over -= cut;
    }
    o->quota_note[0] = 0;
    for (size_t i = 0; i < o->n_quotas; i++) {
        struct gp_plan_quota *q = &o->quotas[i];
        q->share = o->gpus > 0 ? (double)q->gpus / (double)o->gpus : 0;
        if (need[i] > q->gpus && !o->quota_note[0] && needs > o->gpus)
            snprintf (o->quota_note, sizeof o->quota_note,
                      "the teams' largest jobs need %lld GPUs together, "
                      "more than the %lld-GPU fleet: %.60s's quota is %lld "
                      "GPUs, its largest job (%lld GPUs) runs only by "
                      "borrowing idle quota",
                      needs, o->gpus, q->team, q->gpus, need[i]);
    }
}

/* The queueing check on the simulated waits (infrastructure.md,
 * Multi-tenancy): the first team over a limit sets o->queue_flag.
 */
static void queue_check (struct ctx *c, struct gp_plan_option *o)
{
    o->queue_flag[0] = 0;
    if (o->sim.code != 0)
        return;
    double p95_h = A (c, "queue_p95_wait_limit_h");
    double max_h = A (c, "queue_max_wait_limit_h");
    for (size_t i = 0; i < o->n_quotas; i++) {
        const struct gp_plan_quota *q = &o->quotas[i];
        if (p95_h > 0 && q->wait_p95_s > p95_h * 3600) {
            snprintf (o->queue_flag, sizeof o->queue_flag,
                      "queueing: team %.60s's p95 wait %.1f h exceeds "
                      "queue_p95_wait_limit_h %.4g h",
                      q->team, q->wait_p95_s / 3600, p95_h);
            return;
        }
        if (max_h > 0 && q->wait_max_s > max_h * 3600) {
            snprintf (o->queue_flag, sizeof o->queue_flag,
                      "queueing: team %.60s waits up to %.1f h, over "
                      "queue_max_wait_limit_h %.4g h",
                      q->team, q->wait_max_s / 3600, max_h);
            return;
        }
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
static int availability_spares (struct ctx *c,
                                const struct gp_plan_option_spec *os,
                                const struct plan_sizing *z,
                                struct gp_plan_option *o)
{
    double a = c->s->cons.min_availability;
    int gpn = o->gpus_per_node;
    if (os->gpus > 0 && !(z && z->code == 0))
        return 0; /* a given fleet without a demand: nothing to check */
    double lam = A (c, "fail_per_gpu_hour") * gpn * c->pt.failure;
    double lr = lam * A (c, "node_repair_h");
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
            status_set (&o->compute, GP_EINFEASIBLE,
                        "constraints.min_availability %.4g needs %lld spare "
                        "nodes over the %lld the demand needs (node down "
                        "%.3g%% of the time); options[%d].gpus gives %lld",
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

static void eval_option (struct ctx *c, int spec_index, enum gp_pricing pr,
                         struct gp_plan_option *o)
{
    struct gp_plan_spec *s = c->s;
    const struct gp_plan_option_spec *os = &s->options[spec_index];
    memset (o, 0, sizeof *o);
    o->spec_index = spec_index;
    o->kind = os->kind;
    o->pricing = pr;
    if (os->kind == GP_OPT_CLOUD)
        snprintf (o->name, sizeof o->name, "%s/%s", os->name,
                  gp_pricing_str (pr));
    else
        snprintf (o->name, sizeof o->name, "%s", os->name);
    snprintf (o->accel_id, sizeof o->accel_id, "%s", os->accel_id);
    if (os->inst) {
        snprintf (o->instance, sizeof o->instance, "%s", os->inst->id);
        snprintf (o->region, sizeof o->region, "%s", os->inst->region);
        snprintf (o->cloud, sizeof o->cloud, "%s", os->inst->cloud);
        snprintf (o->price_date, sizeof o->price_date, "%s",
                  os->inst->price_date);
    }
    o->gpus_per_node = os->gpus_per_node;
    o->scale_up_domain = os->accel->scale_up_domain > 0
                             ? os->accel->scale_up_domain
                             : 1;
    o->n_periods = (size_t)lround (s->horizon_years * 12);
    if (o->n_periods < 1)
        o->n_periods = 1;

    /* compute: from the planners (cached per option spec) */
    const struct plan_sizing *z = sizing (c, spec_index, o->n_periods);
    if (!z) {
        status_set (&o->compute, GP_ENOMEM, "out of memory");
    } else if (z->code) {
        status_set (&o->compute, z->code, "%s", z->text);
    } else {
        o->need_bw_known = 1;
        o->need_bw_per_gpu = z->need_bw_max;
        o->given_bw_per_gpu = z->scale_out_bw;
        o->comm_slowdown = z->slowdown_max;
        if (z->need_bw_max > 0)
            snprintf (o->need_bw_workload, sizeof o->need_bw_workload, "%s",
                      s->workloads[z->need_bw_workload].name);
        for (size_t t = 0; t < o->n_periods; t++)
            o->demand_gpus[t] = z->demand[t] * c->pt.demand;
        double peak = (double)z->peak_gpus * c->pt.demand;
        o->gpus = (long long)ceil (peak / o->gpus_per_node - 1e-9)
                  * o->gpus_per_node;
        snprintf (o->compute_basis, sizeof o->compute_basis, "%s",
                  z->basis);
    }
    if (os->gpus > 0) {
        /* Demand sensitivity scales the planners' demand; a fleet given
         * without sizing stands in for the demand, so it scales instead.
         */
        double gscale = o->compute.code == GP_ENOTSUP ? c->pt.demand : 1;
        double g = ceil ((double)os->gpus * gscale - 1e-9);
        long long nodes = (long long)ceil (g / o->gpus_per_node - 1e-9);
        long long fleet = nodes * o->gpus_per_node;
        if (o->compute.code == 0 && o->gpus > fleet) {
            status_set (&o->compute, GP_EINFEASIBLE,
                        "the portfolio needs %lld GPUs, options[%d].gpus "
                        "gives %lld",
                        o->gpus, spec_index, fleet);
        } else if (o->compute.code == GP_ENOTSUP) {
            char why[GP_PLAN_TEXT];
            snprintf (why, sizeof why, "%s", o->compute.text);
            o->compute.code = 0;
            o->compute.text[0] = 0;
            snprintf (o->compute_basis, sizeof o->compute_basis,
                      "fleet size given in the plan (options[%d].gpus); "
                      "sizing from the workloads: %.160s",
                      spec_index, why);
            for (size_t t = 0; t < o->n_periods; t++)
                o->demand_gpus[t] = (double)fleet;
        } else if (o->compute.code == 0) {
            snprintf (o->compute_basis, sizeof o->compute_basis,
                      "fleet size given in the plan (options[%d].gpus), "
                      "checked against the planners' demand of %lld GPUs",
                      spec_index, o->gpus);
        }
        if (o->compute.code == 0)
            o->gpus = fleet;
    }
    if (o->compute.code != 0) {
        const char *why = o->compute.text;
        status_set (&o->network, o->compute.code, "needs the GPU count");
        status_set (&o->storage, o->compute.code, "needs the GPU count");
        status_set (&o->power, o->compute.code, "needs the GPU count");
        status_set (&o->cost, o->compute.code, "needs the GPU count");
        status_set (&o->unit_costs, o->compute.code, "needs the GPU count");
        status_set (&o->sim, o->compute.code, "needs the GPU count");
        (void)why;
        check_constraints (c, o);
        return;
    }
    if (os->kind == GP_OPT_ONPREM && s->cons.min_availability > 0
        && availability_spares (c, os, z, o) != 0) {
        check_constraints (c, o);
        return;
    }
    o->nodes = o->gpus / o->gpus_per_node;
    o->scale_up_domains = (o->gpus + o->scale_up_domain - 1)
                          / o->scale_up_domain;
    stack_for (o);
    eval_storage (c, o);
    if (os->kind == GP_OPT_ONPREM)
        eval_onprem (c, os, o);
    else
        eval_cloud (c, o);
    if (os->kind == GP_OPT_CLOUD)
        o->power.code = 0;
    /* The bandwidth the planners were given; the fabric's when no
     * training job asked (traces and services only).
     */
    if (!(o->given_bw_per_gpu > 0))
        o->given_bw_per_gpu = o->fabric.per_gpu_bw;
    o->bw_short = o->need_bw_known
                  && o->need_bw_per_gpu > o->given_bw_per_gpu * (1 + 1e-9);
    double used = 0;
    for (size_t t = 0; t < o->n_periods; t++)
        used += o->demand_gpus[t] * HOURS_PER_MONTH;
    if (os->gpus > 0 && !strncmp (o->compute_basis, "fleet size given", 16)
        && strstr (o->compute_basis, "sizing from"))
        used *= A (c, "utilization");
    o->demand_gpu_hours = used;
    if (o->cost.code == 0 && used > 0)
        o->usd_per_used_gpu_hour = o->tco_usd / used;
    int sized = z && z->code == 0;
    if (sized && o->usd_per_used_gpu_hour > 0) {
        o->usd_per_run = z->run_gpu_hours * o->usd_per_used_gpu_hour;
        o->usd_per_mtok = z->mtok_gpu_hours * o->usd_per_used_gpu_hour;
    }
    if (o->unit_costs.code == 0 && !sized)
        status_set (&o->unit_costs, GP_ENOTSUP,
                    "per-run and per-1M-token costs need the training and "
                    "inference planners' sizing");
    quotas_for (c, o);
    if (c->r) {
        plan_simulate (s, os, sized ? z : NULL, o);
        queue_check (c, o);
    } else
        o->sim = (struct gp_part_status){GP_ENOTSUP, "not run in the "
                                                     "sensitivity analysis"};
    o->complete = o->compute.code == 0 && o->network.code == 0
                  && o->storage.code == 0 && o->power.code == 0
                  && o->cost.code == 0;
    check_constraints (c, o);
}

/* Options of one run: one per on-prem spec, one per pricing model of a
 * cloud spec (reserved terms limited by constraints.reservation_terms).
 */
static size_t eval_all (struct ctx *c, struct gp_plan_option *out,
                        size_t max)
{
    struct gp_plan_spec *s = c->s;
    size_t n = 0;
    for (size_t i = 0; i < s->n_options && n < max; i++) {
        const struct gp_plan_option_spec *os = &s->options[i];
        if (os->kind == GP_OPT_ONPREM) {
            eval_option (c, (int)i, GP_PRICE_ON_DEMAND, &out[n++]);
            continue;
        }
        for (int p = 0; p < GP_N_PRICING && n < max; p++) {
            if (!(os->pricing & (1u << p)))
                continue;
            if (p == GP_PRICE_RESERVED_1Y && !(s->cons.terms & 1))
                continue;
            if (p == GP_PRICE_RESERVED_3Y && !(s->cons.terms & 2))
                continue;
            eval_option (c, (int)i, (enum gp_pricing)p, &out[n++]);
        }
    }
    return n;
}

/* The cheapest feasible, fully costed option; options flagged by the
 * queueing check rank after every unflagged one.
 */
static int pick (const struct gp_plan_option *o, size_t n)
{
    int best = -1;
    for (size_t i = 0; i < n; i++) {
        if (!o[i].feasible || !o[i].complete)
            continue;
        if (best < 0) {
            best = (int)i;
            continue;
        }
        int fi = o[i].queue_flag[0] != 0, fb = o[best].queue_flag[0] != 0;
        if (fi < fb || (fi == fb && o[i].tco_usd < o[best].tco_usd))
            best = (int)i;
    }
    return best;
}

static void logf_ (struct gp_plan_result *r, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
static void logf_ (struct gp_plan_result *r, const char *fmt, ...)
{
    if (r->n_log >= GP_PLAN_MAX_LOG)
        return;
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (r->log[r->n_log++], GP_PLAN_TEXT, fmt, ap);
    va_end (ap);
}

/* The date a catalog price_date text points at, in years (2025.75), or
 * 0 when it names no year: the mean over the years it names, each at its
 * middle, or at the middle of the half ("2025-H2") or month ("2025-06")
 * that follows it.  "~2023-2024" gives 2024.0, ">=2025-H2" 2025.75.
 */
static double price_year (const char *d)
{
    double sum = 0;
    int n = 0;
    for (const char *p = d; p && *p; p++) {
        if (!(p[0] == '2' && p[1] == '0' && p[2] >= '0' && p[2] <= '9'
              && p[3] >= '0' && p[3] <= '9')
            || (p > d && p[-1] >= '0' && p[-1] <= '9')
            || (p[4] >= '0' && p[4] <= '9'))
            continue;
        double y = 2000 + (p[2] - '0') * 10 + (p[3] - '0');
        if (p[4] == '-' && p[5] == 'H' && (p[6] == '1' || p[6] == '2'))
            y += p[6] == '1' ? 0.25 : 0.75;
        else if (p[4] == '-' && p[5] >= '0' && p[5] <= '1' && p[6] >= '0'
                 && p[6] <= '9' && !(p[7] >= '0' && p[7] <= '9')) {
            int m = (p[5] - '0') * 10 + (p[6] - '0');
            y += m >= 1 && m <= 12 ? (m - 0.5) / 12 : 0.5;
        } else
            y += 0.5;
        sum += y;
        n++;
        p += 3;
    }
    return n ? sum / n : 0;
}

static void decide (struct gp_plan_result *r)
{
    r->recommended = pick (r->options, r->n_options);
    int b = r->recommended;
    if (b >= 0) {
        const struct gp_plan_option *w = &r->options[b];
        int second = -1;
        size_t n_ok = 0;
        for (size_t i = 0; i < r->n_options; i++)
            n_ok += r->options[i].feasible && r->options[i].complete;
        for (size_t i = 0; i < r->n_options; i++)
            if ((int)i != b && r->options[i].feasible
                && r->options[i].complete
                && (second < 0
                    || r->options[i].tco_usd < r->options[second].tco_usd))
                second = (int)i;
        char u1[32], u2[32];
        size_t n_flag = 0;
        for (size_t i = 0; i < r->n_options; i++)
            n_flag += r->options[i].feasible && r->options[i].complete
                      && r->options[i].queue_flag[0];
        if (second >= 0 && w->tco_usd <= r->options[second].tco_usd)
            snprintf (r->reason, sizeof r->reason,
                      "lowest TCO over %.3g years among %zu feasible "
                      "options: %s, %.1f%% below the runner-up %s (%s)",
                      r->horizon_years, n_ok,
                      gp_fmt_usd (w->tco_usd, u1, sizeof u1),
                      100 * (1 - w->tco_usd / r->options[second].tco_usd),
                      r->options[second].name,
                      gp_fmt_usd (r->options[second].tco_usd, u2,
                                  sizeof u2));
        else if (second >= 0)
            snprintf (r->reason, sizeof r->reason,
                      "lowest TCO over %.3g years among the %zu feasible "
                      "options that pass the queueing check: %s",
                      r->horizon_years, n_ok - n_flag,
                      gp_fmt_usd (w->tco_usd, u1, sizeof u1));
        else
            snprintf (r->reason, sizeof r->reason,
                      "the only feasible, fully costed option: TCO %s "
                      "over %.3g years",
                      gp_fmt_usd (w->tco_usd, u1, sizeof u1),
                      r->horizon_years);
        size_t rl = strlen (r->reason);
        if (w->queue_flag[0])
            snprintf (r->reason + rl, sizeof r->reason - rl,
                      "; meets every checked constraint but FAILS the "
                      "queueing check (%s)%s",
                      w->queue_flag,
                      n_flag == n_ok ? ", as does every feasible option"
                                     : "");
        else
            snprintf (r->reason + rl, sizeof r->reason - rl,
                      "; meets every checked constraint%s",
                      w->sim.code == 0 ? ", simulated queueing included"
                                       : " (queueing not simulated)");
        if (strstr (w->compute_basis, "sizing from")) {
            size_t len = strlen (r->reason);
            snprintf (r->reason + len, sizeof r->reason - len,
                      "; fleet sizes are as given in the plan, so the "
                      "ranking assumes they deliver the same capacity");
        }
        logf_ (r, "chosen: %s (%s)", w->name, r->reason);
    }
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if ((int)i == b)
            continue;
        if (o->compute.code == GP_ENOTSUP)
            logf_ (r, "not ranked: %s (compute sizing not yet supported: "
                      "%.120s)",
                   o->name, o->compute.text);
        else if (!o->feasible)
            logf_ (r, "rejected: %s (%s)", o->name, o->violation);
        else if (!o->complete)
            logf_ (r, "not ranked: %s (%s)", o->name,
                   o->cost.code ? o->cost.text
                   : o->power.code ? o->power.text
                   : o->network.code ? o->network.text
                                     : o->storage.text);
        else if (b >= 0) {
            char u1[32];
            logf_ (r, "lost: %s (TCO %s, %+.1f%% vs %s%s)", o->name,
                   gp_fmt_usd (o->tco_usd, u1, sizeof u1),
                   100 * (o->tco_usd / r->options[b].tco_usd - 1),
                   r->options[b].name,
                   o->queue_flag[0] ? "; flagged, see below" : "");
        }
    }
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->feasible && o->complete && o->queue_flag[0])
            logf_ (r, "flagged: %s (%.200s)", o->name, o->queue_flag);
        if (o->quota_note[0] && o->compute.code == 0)
            logf_ (r, "quotas: %s (%.200s)", o->name, o->quota_note);
    }
    /* Catalog prices of different dates compare list prices from before
     * and after price cuts: say so when an option's price date is more
     * than 6 months from the recommended option's.
     */
    double yb = b >= 0 ? price_year (r->options[b].price_date) : 0;
    for (size_t i = 0; yb > 0 && i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        double yo = price_year (o->price_date);
        if ((int)i == b || !(yo > 0) || fabs (yo - yb) <= 0.5)
            continue;
        logf_ (r, "price dates: %s's catalog prices (dated ~%.1f) are ~%.0f "
                  "months %s the recommended %s's (~%.1f): list prices "
                  "from before and after price cuts may not compare",
               o->name, yo, 12 * fabs (yo - yb),
               yo < yb ? "older than" : "newer than", r->options[b].name,
               yb);
    }
}

/* ------------------------------ sensitivity ---------------------------- */

static void sensitivity (struct ctx *c, struct gp_plan_result *r)
{
    struct {
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
    struct gp_plan_option *tmp = calloc (GP_PLAN_MAX_OPTIONS, sizeof *tmp);
    if (!tmp)
        return;
    struct gp_plan_result *saved = c->r;
    c->r = NULL;
    int b = r->recommended;
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        struct gp_sens_row *row = &r->sens[r->n_sens++];
        double x = A (c, rows[k].key);
        double lo = rows[k].mult ? 1 / x : 1 - x;
        double hi = rows[k].mult ? x : 1 + x;
        snprintf (row->param, sizeof row->param, "%s", rows[k].name);
        row->low_delta = lo;
        row->high_delta = hi;
        for (int side = 0; side < 2; side++) {
            struct plan_perturb pt = {1, 1, 1, 1, 0};
            double f = side ? hi : lo;
            if (rows[k].field == 0)
                pt.price = f;
            else if (rows[k].field == 1)
                pt.demand = f;
            else if (rows[k].field == 2)
                pt.failure = f;
            else
                pt.power_price = f;
            c->pt = pt;
            size_t n = eval_all (c, tmp, GP_PLAN_MAX_OPTIONS);
            int nb = pick (tmp, n);
            double tco = b >= 0 && (size_t)b < n ? tmp[b].tco_usd : 0;
            snprintf (side ? row->rec_high : row->rec_low, 96, "%s",
                      nb >= 0 ? tmp[nb].name : "(none)");
            if (side)
                row->tco_high = tco;
            else
                row->tco_low = tco;
        }
    }
    /* MFU moves the GPU count through the training planner. */
    struct gp_sens_row *row = &r->sens[r->n_sens++];
    double xm = A (c, "sensitivity_mfu");
    snprintf (row->param, sizeof row->param, "MFU (training efficiency)");
    row->low_delta = 1 - xm;
    row->high_delta = 1 + xm;
    int any_sized = 0;
    for (size_t i = 0; i < r->n_options; i++)
        if (r->options[i].compute.code == 0
            && !strstr (r->options[i].compute_basis, "sizing from"))
            any_sized = 1;
    if (!any_sized) {
        status_set (&row->status, GP_ENOTSUP,
                    "MFU moves GPU counts only for options the training "
                    "planner sizes");
    } else {
        for (int side = 0; side < 2; side++) {
            struct plan_perturb pt = {1, 1, 1, 1, side ? 2 : 1};
            c->pt = pt;
            size_t n = eval_all (c, tmp, GP_PLAN_MAX_OPTIONS);
            int nb = pick (tmp, n);
            double tco = b >= 0 && (size_t)b < n ? tmp[b].tco_usd : 0;
            snprintf (side ? row->rec_high : row->rec_low, 96, "%s",
                      nb >= 0 ? tmp[nb].name : "(none)");
            if (side)
                row->tco_high = tco;
            else
                row->tco_low = tco;
        }
    }
    struct plan_perturb none = {1, 1, 1, 1, 0};
    c->pt = none;
    c->r = saved;
    free (tmp);
}

/* --------------------------------- run --------------------------------- */

static int validate (struct ctx *c, gp_error_t *err)
{
    struct gp_plan_spec *s = c->s;
    for (size_t i = 0; i < s->n_options; i++) {
        const struct gp_plan_option_spec *os = &s->options[i];
        if (os->kind != GP_OPT_ONPREM)
            continue;
        double v;
        if (node_power_w (c, os, &v) != 0)
            return gp_errprintf (err, GP_EINVAL,
                                 "%s:%d:%d: options[%zu].node_power: the "
                                 "catalog has no system power for %d x %s; "
                                 "give node_power",
                                 s->file, os->line, os->col, i,
                                 os->gpus_per_node, os->accel_id);
        if (node_capex_usd (c, os, &v) != 0)
            return gp_errprintf (err, GP_EINVAL,
                                 "%s:%d:%d: options[%zu].node_capex: the "
                                 "catalog has no capex estimate for %d x "
                                 "%s; give node_capex",
                                 s->file, os->line, os->col, i,
                                 os->gpus_per_node, os->accel_id);
    }
    return 0;
}

struct gp_plan_result *gp_plan_run (struct gp_plan_spec *spec,
                                    const struct gp_catalog *cat,
                                    gp_error_t *err)
{
    if (!spec || !cat) {
        gp_errprintf (err, GP_EINVAL, "plan: missing spec or catalog");
        return NULL;
    }
    struct gp_plan_result *r = calloc (1, sizeof *r);
    if (!r) {
        gp_errprintf (err, GP_ENOMEM, "plan: out of memory");
        return NULL;
    }
    struct ctx c;
    memset (&c, 0, sizeof c);
    c.s = spec;
    c.cat = cat;
    c.r = r;
    c.pt = (struct plan_perturb){1, 1, 1, 1, 0};
    if (validate (&c, err) != 0) {
        free (r);
        return NULL;
    }
    c.zoo = gp_zoo_load (NULL, err);
    if (!c.zoo) {
        free (r);
        return NULL;
    }
    snprintf (r->name, sizeof r->name, "%s", spec->name);
    r->horizon_years = spec->horizon_years;
    r->n_periods = (size_t)lround (spec->horizon_years * 12);
    r->n_options = eval_all (&c, r->options, GP_PLAN_MAX_OPTIONS);
    decide (r);
    sensitivity (&c, r);
    memcpy (r->teams, spec->teams, sizeof r->teams);
    r->n_teams = spec->n_teams;
    for (size_t i = 0; i < spec->n_assume; i++)
        if (spec->assume[i].used || spec->assume[i].overridden)
            r->assume[r->n_assume++] = spec->assume[i];
    for (size_t i = 0; i < GP_PLAN_MAX_OPTION_SPECS; i++)
        for (size_t k = 0; k < 3; k++)
            free (c.sz[i][k]);
    gp_zoo_destroy (c.zoo);
    return r;
}

void gp_plan_result_destroy (struct gp_plan_result *r)
{
    free (r);
}

int gp_plan_status (const struct gp_plan_result *r, gp_error_t *err)
{
    if (!r)
        return gp_errprintf (err, GP_EINVAL, "plan: no result");
    if (r->recommended >= 0)
        return 0;
    int notsup = 0;
    for (size_t i = 0; i < r->n_options; i++)
        if (r->options[i].compute.code == GP_ENOTSUP)
            notsup++;
    if (notsup && notsup == (int)r->n_options)
        return gp_errprintf (err, GP_ENOTSUP,
                             "plan %s: no option could be sized: %s", r->name,
                             r->options[0].compute.text);
    for (size_t i = 0; i < r->n_options; i++)
        if (r->options[i].feasible && !r->options[i].complete)
            return gp_errprintf (
                err, GP_ENOTSUP,
                "plan %s: no option could be fully costed (%s: %s)",
                r->name, r->options[i].name,
                r->options[i].cost.text[0] ? r->options[i].cost.text
                                           : "incomplete");
    return gp_errprintf (err, GP_EINFEASIBLE,
                         "plan %s: no option meets the constraints (%s: %s)",
                         r->name, r->n_options ? r->options[0].name : "-",
                         r->n_options ? r->options[0].violation : "none");
}
