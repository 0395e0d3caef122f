/* evaluate.c - one design option from start to end: its GPU count (the
 * planners' sizing or the spec's fleet, recorded as a typed basis),
 * storage, the on-prem or cloud figures, demand GPU-hours and unit costs,
 * quotas, the simulated multi-tenant behaviour and the constraints; and
 * the list of options of a spec (one per on-prem build, one per pricing
 * model of a cloud fleet).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plan_private.h"

/* A (c, key): an assumption; P (c, id, key): a catalog part value,
 * recorded as a source (run.c).
 */
#define A gp_plan_assumption
#define P gp_plan_part

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

/* ------------------------------- storage ------------------------------- */

/* Nodes of workload i's job on option 'o' (the planners' job size); the
 * option's nodes when the planners did not size it.
 */
static double job_nodes (const struct plan_sizing *z, size_t i,
                         const struct gp_plan_option *o)
{
    double g = z && z->code == 0 ? z->job_gpus[i] : 0;
    if (!(g > 0))
        return (double)o->nodes;
    return ceil (g / o->gpus_per_node - 1e-9);
}

/* Per-node rates the spec sets (docs/model/cost.md, Checkpoint and data
 * bandwidth): 0 when not set.  Read without marking unless set, so that
 * plans that do not use them list them not.
 */
static double node_rate (struct plan_ctx *c, const char *key)
{
    const struct gp_assumption *a = gp_plan_assume_find (c->s, key);
    if (!a || !a->overridden || !(a->value > 0))
        return 0;
    return A (c, key);
}

static void eval_storage (struct plan_ctx *c, const struct plan_sizing *z,
                          struct gp_plan_option *o)
{
    const struct gp_plan_spec *s = c->s;
    struct gp_storage_in in = {0};
    double ckpt_bpp = P (c, "full-resumable-checkpoint", "bytes_per_param");
    double weights_bpp = P (c, "weights-only-bf16", "bytes_per_param");
    double bpt = A (c, "bytes_per_token");
    double ckpt_node = node_rate (c, "ckpt_write_bw_per_node");
    double data_node = node_rate (c, "data_read_bw_per_node");
    double ckpt_nodes = (double)o->nodes;
    for (size_t i = 0; i < s->n_workloads; i++) {
        const struct gp_plan_workload *w = &s->workloads[i];
        in.dataset_bytes += w->dataset_bytes;
        in.artifact_bytes += w->params * weights_bpp;
        if (w->kind != GP_WL_INFERENCE && w->params * ckpt_bpp
                                              > in.checkpoint_bytes) {
            in.checkpoint_bytes = w->params * ckpt_bpp;
            ckpt_nodes = job_nodes (z, i, o);
        }
        double rd = 0;
        if (w->kind == GP_WL_TRAINING)
            rd = w->tokens / w->deadline_s * bpt;
        else if (w->kind == GP_WL_RECURRING)
            rd = w->tokens * w->runs_per_month
                 / (HOURS_PER_MONTH * 3600) * bpt;
        if (data_node > 0 && w->kind != GP_WL_INFERENCE && !w->trace_jobs)
            rd = fmax (rd, job_nodes (z, i, o) * data_node);
        in.read_bw += rd;
    }
    in.n_gpus = o->gpus;
    in.checkpoints_kept = (int)A (c, "checkpoints_kept");
    /* the checkpoint writes at the rate the training model assumed */
    if (ckpt_node > 0 && in.checkpoint_bytes > 0)
        in.ckpt_write_s = in.checkpoint_bytes / (ckpt_nodes * ckpt_node);
    else
        in.ckpt_write_s = A (c, "checkpoint_write_s");
    in.headroom = A (c, "storage_headroom");
    in.object_copies = A (c, "object_copies");
    double mbs_tib;
    if (o->kind == GP_OPT_CLOUD)
        mbs_tib = P (c, gp_plan_cloud_fs_row (o->cloud),
                     "throughput_mbs_per_tib");
    else
        mbs_tib = A (c, "storage_tput_mbs_per_tib");
    in.tput_per_byte = mbs_tib * 1e6 / 1099511627776.0;
    gp_error_t err = {0};
    if (gp_storage_size (&in, &o->stor, &err) != 0) {
        gp_plan_status_set (&o->storage, err.code, "%s", err.text);
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
                  gp_plan_cloud_fs_row (o->cloud));
    else
        snprintf (o->storage_stack, sizeof o->storage_stack, "%s",
                  o->stor.tier == GP_TIER_LOCAL_NVME ? "local NVMe"
                  : o->stor.tier == GP_TIER_NFS      ? "NFS or Longhorn"
                  : o->stor.tier == GP_TIER_CEPH
                      ? "Ceph or BeeGFS + object store"
                      : "Lustre/GPFS/WekaFS + object store");
}

/* ------------------------------- compute ------------------------------- */

/* compute_basis: the option's basis in words. */
static void basis_render (struct gp_plan_option *o, const char *planners)
{
    char *b = o->compute_basis;
    size_t n = sizeof o->compute_basis;
    switch (o->basis) {
    case GP_BASIS_NONE:
        b[0] = 0;
        break;
    case GP_BASIS_PLANNERS:
        snprintf (b, n, "%s", planners);
        break;
    case GP_BASIS_FLEET_CHECKED:
        snprintf (b, n, "fleet size given in the plan (options[%d].gpus), "
                        "checked against the planners' demand of %lld GPUs",
                  o->spec_index, o->sized_gpus);
        break;
    case GP_BASIS_FLEET_UNSIZED:
        snprintf (b, n, "fleet size given in the plan (options[%d].gpus); "
                        "sizing from the workloads: %.160s",
                  o->spec_index, o->basis_why);
        break;
    }
}

static void option_init (struct plan_ctx *c, int spec_index,
                         enum gp_pricing pr, struct gp_plan_option *o)
{
    const struct gp_plan_option_spec *os = &c->s->options[spec_index];
    memset (o, 0, sizeof *o);
    o->spec_index = spec_index;
    o->kind = os->kind;
    o->pricing = pr;
    if (os->kind != GP_OPT_ONPREM)
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
    o->n_periods = (size_t)lround (c->s->horizon_years * 12);
    if (o->n_periods < 1)
        o->n_periods = 1;
}

/* The planners' sizing 'z' into the option. */
static void option_sized (struct plan_ctx *c, const struct plan_sizing *z,
                          struct gp_plan_option *o)
{
    o->need_bw_known = 1;
    o->need_bw_per_gpu = z->need_bw_max;
    o->given_bw_per_gpu = z->scale_out_bw;
    o->comm_slowdown = z->slowdown_max;
    if (z->need_bw_max > 0)
        snprintf (o->need_bw_workload, sizeof o->need_bw_workload, "%s",
                  c->s->workloads[z->need_bw_workload].name);
    for (size_t t = 0; t < o->n_periods; t++)
        o->demand_gpus[t] = z->demand[t] * c->pt.demand;
    double peak = (double)z->peak_gpus * c->pt.demand;
    o->gpus = (long long)ceil (peak / o->gpus_per_node - 1e-9)
              * o->gpus_per_node;
    o->basis = GP_BASIS_PLANNERS;
    o->sized_gpus = o->gpus;
    /* the planners' layout per workload, for the exporters */
    memcpy (o->wl, z->wl, sizeof o->wl);
}

/* A fleet size given in the spec: checked against the planners' demand,
 * or standing in for it when the planners could not size the workloads.
 */
static void option_fleet (struct plan_ctx *c,
                          const struct gp_plan_option_spec *os,
                          struct gp_plan_option *o)
{
    /* Demand sensitivity scales the planners' demand; a fleet given
     * without sizing stands in for the demand, so it scales instead.
     */
    double gscale = o->compute.code == GP_ENOTSUP ? c->pt.demand : 1;
    double g = ceil ((double)os->gpus * gscale - 1e-9);
    long long nodes = (long long)ceil (g / o->gpus_per_node - 1e-9);
    long long fleet = nodes * o->gpus_per_node;
    if (o->compute.code == 0 && o->gpus > fleet) {
        gp_plan_status_set (&o->compute, GP_EINFEASIBLE,
                            "the portfolio needs %lld GPUs, options[%d].gpus "
                            "gives %lld",
                            o->gpus, o->spec_index, fleet);
    } else if (o->compute.code == GP_ENOTSUP) {
        snprintf (o->basis_why, sizeof o->basis_why, "%s", o->compute.text);
        o->compute.code = 0;
        o->compute.text[0] = 0;
        o->basis = GP_BASIS_FLEET_UNSIZED;
        for (size_t t = 0; t < o->n_periods; t++)
            o->demand_gpus[t] = (double)fleet;
    } else if (o->compute.code == 0) {
        o->basis = GP_BASIS_FLEET_CHECKED;
    }
    if (o->compute.code == 0)
        o->gpus = fleet;
}

static void needs_gpus (struct gp_plan_option *o);

/* The GPU count; 0, or -1 when the option cannot be sized (every other
 * part then says it needs the GPU count).
 */
static int option_compute (struct plan_ctx *c,
                           const struct gp_plan_option_spec *os,
                           const struct plan_sizing *z,
                           struct gp_plan_option *o)
{
    if (!z)
        gp_plan_status_set (&o->compute, GP_ENOMEM, "out of memory");
    else if (z->code)
        gp_plan_status_set (&o->compute, z->code, "%s", z->text);
    else
        option_sized (c, z, o);
    if (os->gpus > 0)
        option_fleet (c, os, o);
    basis_render (o, z ? z->basis : "");
    if (o->compute.code == 0)
        return 0;
    needs_gpus (o);
    return -1;
}

/* Every part after the GPU count says it needs it. */
static void needs_gpus (struct gp_plan_option *o)
{
    int code = o->compute.code;
    gp_plan_status_set (&o->network, code, "needs the GPU count");
    gp_plan_status_set (&o->storage, code, "needs the GPU count");
    gp_plan_status_set (&o->power, code, "needs the GPU count");
    gp_plan_status_set (&o->cost, code, "needs the GPU count");
    gp_plan_status_set (&o->unit_costs, code, "needs the GPU count");
    gp_plan_status_set (&o->sim, code, "needs the GPU count");
}

/* Demand GPU-hours and the unit costs at them. */
static void option_demand (struct plan_ctx *c, const struct plan_sizing *z,
                           struct gp_plan_option *o)
{
    double used = 0;
    for (size_t t = 0; t < o->n_periods; t++)
        used += o->demand_gpus[t] * HOURS_PER_MONTH;
    if (o->basis == GP_BASIS_FLEET_UNSIZED)
        used *= A (c, "utilization");
    o->demand_gpu_hours = used;
    if (o->cost.code == 0 && used > 0)
        o->usd_per_used_gpu_hour = o->tco_usd / used;
    int sized = z && z->code == 0;
    if (sized && o->usd_per_used_gpu_hour > 0) {
        o->usd_per_run = z->run_gpu_hours * o->usd_per_used_gpu_hour;
        /* Serving GPUs are provisioned for the service alone: on-prem
         * they carry their share of the fleet's cost (the cost of a
         * provisioned GPU-hour), not the idle hours of the rest of the
         * fleet (docs/model/cost.md, Cost attribution).
         */
        double gh = o->kind == GP_OPT_ONPREM && o->usd_per_gpu_hour > 0
                        ? o->usd_per_gpu_hour
                        : o->usd_per_used_gpu_hour;
        o->usd_per_mtok = z->mtok_gpu_hours * gh;
    }
    if (o->unit_costs.code == 0 && !sized)
        gp_plan_status_set (&o->unit_costs, GP_ENOTSUP,
                            "per-run and per-1M-token costs need the training "
                            "and inference planners' sizing");
}

/* Cloud spend at present value under plan.discount_rate: each month's
 * spend discounted from mid-month, the total's factor applied to its
 * parts (committed, on-demand, spot, storage) so that they still add up.
 * No-op undiscounted.
 */
static void cloud_present_value (struct plan_ctx *c, struct gp_plan_option *o)
{
    double r = A (c, "discount_rate");
    if (!(r > 0) || o->cost.code || !(o->tco_usd > 0))
        return;
    double prev = 0, pv = 0;
    for (size_t t = 0; t < o->n_periods; t++) {
        double spend = o->cum_cost[t] - prev;
        prev = o->cum_cost[t];
        pv += spend * pow (1 + r, -((double)t + 0.5) / 12);
        o->cum_cost[t] = pv;
    }
    double f = pv / o->tco_usd;
    o->commit_usd *= f;
    o->on_demand_usd *= f;
    o->spot_usd *= f;
    o->cloud_storage_usd *= f;
    o->tco_usd = pv;
    o->usd_per_gpu_hour *= f;
}

/* A burst option's owned part: the existing fleet's GPUs free for the
 * portfolio (existing.gpus less the baseline) in place of the planners'
 * peak, which stays in sized_gpus; -1 with the compute part infeasible
 * when the baseline leaves none.
 */
static int burst_fleet (struct plan_ctx *c, struct gp_plan_option *o)
{
    const struct gp_plan_existing *ex = &c->s->existing;
    long long free_gpus = ex->gpus - ex->baseline_gpus;
    if (free_gpus < 1) {
        gp_plan_status_set (&o->compute, GP_EINFEASIBLE,
                            "existing.baseline holds all %lld owned GPUs: "
                            "none is free for the portfolio",
                            ex->gpus);
        needs_gpus (o);
        return -1;
    }
    o->gpus = free_gpus;
    return 0;
}

/* A burst option's cost: the owned fleet's on-prem charge (onprem.c) plus
 * the rented demand above it under the option's pricing model (cloud.c),
 * at present value; the option's GPUs and nodes become the peak, owned
 * plus the most rented in a month (docs/model/cost.md, "Cloud burst").
 */
static void eval_burst (struct plan_ctx *c,
                        const struct gp_plan_option_spec *os,
                        struct gp_plan_option *o)
{
    gp_plan_eval_onprem (c, os, o);
    if (o->cost.code)
        return;
    double own_tco = o->tco_usd, own_h = o->provisioned_gpu_hours;
    double own_cum[GP_PLAN_MAX_PERIODS];
    memcpy (own_cum, o->cum_cost, sizeof own_cum);
    gp_plan_eval_cloud (c, o);
    if (o->cost.code)
        return;
    cloud_present_value (c, o);
    double rent = o->tco_usd, rent_h = o->provisioned_gpu_hours;
    long long peak = gp_plan_rented_peak (c, o);
    o->onprem.burst_usd = rent;
    o->onprem.burst_gpu_hours = rent_h;
    o->onprem.tco = own_tco + rent;
    o->onprem.gpu_hours = own_h + rent_h;
    o->onprem.usd_per_gpu_hour = o->onprem.gpu_hours > 0
                                     ? o->onprem.tco / o->onprem.gpu_hours
                                     : 0;
    o->tco_usd = o->onprem.tco;
    o->provisioned_gpu_hours = o->onprem.gpu_hours;
    o->usd_per_gpu_hour = o->onprem.usd_per_gpu_hour;
    for (size_t t = 0; t < o->n_periods; t++)
        o->cum_cost[t] += own_cum[t];
    if (c->r) {
        char u[32];
        gp_plan_log (c, "%s: the demand above the %lld owned GPUs is rented "
                        "(%s %s, at most %lld GPUs in a month, %.0f "
                        "GPU-hours, %s)",
                     o->name, o->gpus, o->instance,
                     gp_pricing_str (o->pricing), peak, rent_h,
                     gp_fmt_usd (rent, u, sizeof u));
    }
    o->gpus += peak;
    o->nodes += peak / o->gpus_per_node;
    o->scale_up_domains = (o->gpus + o->scale_up_domain - 1)
                          / o->scale_up_domain;
    stack_for (o);      /* the tier of the whole (peak) cluster */
}

static void eval_option (struct plan_ctx *c, int spec_index,
                         enum gp_pricing pr, struct gp_plan_option *o)
{
    const struct gp_plan_option_spec *os = &c->s->options[spec_index];
    option_init (c, spec_index, pr, o);
    /* compute: from the planners (cached per option spec) */
    const struct plan_sizing *z = gp_plan_sizing_of (c, spec_index,
                                                     o->n_periods);
    if (option_compute (c, os, z, o) != 0
        || (os->kind == GP_OPT_BURST && burst_fleet (c, o) != 0)
        || (os->kind == GP_OPT_ONPREM && c->s->cons.min_availability > 0
            && gp_plan_availability_spares (c, os, z, o) != 0)) {
        gp_plan_check_constraints (c, o);
        return;
    }
    o->nodes = (o->gpus + o->gpus_per_node - 1) / o->gpus_per_node;
    o->scale_up_domains = (o->gpus + o->scale_up_domain - 1)
                          / o->scale_up_domain;
    stack_for (o);
    eval_storage (c, z, o);
    if (os->kind == GP_OPT_ONPREM)
        gp_plan_eval_onprem (c, os, o);
    else if (os->kind == GP_OPT_BURST)
        eval_burst (c, os, o);
    else {
        gp_plan_eval_cloud (c, o);
        cloud_present_value (c, o);
    }
    if (os->kind == GP_OPT_CLOUD)
        o->power.code = 0;
    /* The bandwidth the planners were given; the fabric's when no
     * training job asked (traces and services only).
     */
    if (!(o->given_bw_per_gpu > 0))
        o->given_bw_per_gpu = o->fabric.per_gpu_bw;
    o->bw_short = o->need_bw_known
                  && o->need_bw_per_gpu > o->given_bw_per_gpu * (1 + 1e-9);
    option_demand (c, z, o);
    gp_plan_quotas (c, o);
    int sized = z && z->code == 0;
    if (c->r) {
        gp_plan_simulate (c->s, os, sized ? z : NULL, o);
        gp_plan_queue_check (c, o);
    } else
        o->sim = (struct gp_part_status){GP_ENOTSUP, "not run in the "
                                                     "sensitivity analysis"};
    o->complete = o->compute.code == 0 && o->network.code == 0
                  && o->storage.code == 0 && o->power.code == 0
                  && o->cost.code == 0;
    gp_plan_check_constraints (c, o);
}

/* Options of one run: one per on-prem spec, one per pricing model of a
 * cloud spec (reserved terms limited by constraints.reservation_terms).
 * With 'out' NULL the options are only counted.
 */
size_t gp_plan_eval_all (struct plan_ctx *c, struct gp_plan_option *out)
{
    const struct gp_plan_spec *s = c->s;
    size_t n = 0;
    for (size_t i = 0; i < s->n_options; i++) {
        const struct gp_plan_option_spec *os = &s->options[i];
        if (os->kind == GP_OPT_ONPREM) {
            if (out)
                eval_option (c, (int)i, GP_PRICE_ON_DEMAND, &out[n]);
            n++;
            continue;
        }
        for (int p = 0; p < GP_N_PRICING; p++) {
            if (!(os->pricing & (1u << p)))
                continue;
            if (p == GP_PRICE_RESERVED_1Y && !(s->cons.terms & 1))
                continue;
            if (p == GP_PRICE_RESERVED_3Y && !(s->cons.terms & 2))
                continue;
            if (out)
                eval_option (c, (int)i, (enum gp_pricing)p, &out[n]);
            n++;
        }
    }
    return n;
}
