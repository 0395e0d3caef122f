/* plan_json.c - the capacity plan as JSON: the document of
 * docs/formats/plan.md, one object per option with one member per part
 * (compute, network, storage, power, cost, unit costs, infrastructure,
 * tenancy), each with its status and reason.
 *
 * SI units unless a key names another (_usd, _kw, _kwh); null where a
 * figure is unknown or not yet supported, with a status and reason beside
 * it.
 */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "gpuplan/report.h"
#include "report_private.h"
#include "whatif_report.h"

static json_t *num_or_null (int ok, double v)
{
    return ok && isfinite (v) ? json_real (v) : json_null ();
}

static json_t *status_json (const struct gp_part_status *s)
{
    if (s->code == 0)
        return json_string ("ok");
    if (s->code == GP_ENOTSUP)
        return json_string ("not yet supported");
    if (s->code == GP_EINFEASIBLE)
        return json_string ("infeasible");
    return json_string ("error");
}

static void set (json_t *o, const char *k, json_t *v)
{
    json_object_set_new (o, k, v ? v : json_null ());
}

/* The option's price warnings (" | "-separated in price_warning). */
static json_t *price_warnings_json (const struct gp_plan_option *o)
{
    json_t *a = json_array ();
    const char *p = o->price_warning;
    while (a && *p) {
        const char *e = strstr (p, " | ");
        size_t n = e ? (size_t)(e - p) : strlen (p);
        json_array_append_new (a, json_stringn (p, n));
        p += n + (e ? 3 : 0);
    }
    return a;
}

static void part_status (json_t *o, const struct gp_part_status *s)
{
    set (o, "status", status_json (s));
    set (o, "reason", s->code ? json_string (s->text) : json_null ());
}

static json_t *compute_json (const struct gp_plan_option *o)
{
    int ok_c = o->compute.code == 0;
    json_t *c = json_object ();
    part_status (c, &o->compute);
    set (c, "basis", o->compute_basis[0] ? json_string (o->compute_basis)
                                         : json_null ());
    json_t *dem = json_array ();
    for (size_t t = 0; ok_c && t < o->n_periods; t++)
        json_array_append_new (dem, json_real (o->demand_gpus[t]));
    set (c, "demand_gpus_per_month", dem);
    return c;
}

static json_t *network_json (const struct gp_plan_option *o)
{
    int ok_c = o->compute.code == 0;
    json_t *n = json_object ();
    part_status (n, &o->network);
    int ok_n = o->network.code == 0 && ok_c;
    set (n, "design", json_string (o->fabric_name));
    set (n, "per_gpu_bytes_per_s", num_or_null (ok_n, o->fabric.per_gpu_bw));
    /* need: 0 when the traffic stays in the scale-up domain; null when
     * the planners did not size the option */
    set (n, "need_per_gpu_bytes_per_s",
         num_or_null (o->need_bw_known, o->need_bw_per_gpu));
    set (n, "need_set_by", o->need_bw_workload[0]
                               ? json_string (o->need_bw_workload)
                               : json_null ());
    set (n, "given_per_gpu_bytes_per_s",
         num_or_null (o->need_bw_known, o->given_bw_per_gpu));
    set (n, "comm_slowdown_at_given",
         num_or_null (o->need_bw_known, o->comm_slowdown));
    set (n, "bandwidth_shortfall", o->need_bw_known
                                       ? json_boolean (o->bw_short)
                                       : json_null ());
    if (o->kind == GP_OPT_ONPREM && o->sharp_note[0]) {
        /* the fabric choice: InfiniBand SHARP (docs/formats/plan.md) */
        json_t *sh = json_object ();
        int k = o->sharp_known;
        set (sh, "evaluated", json_boolean (k));
        set (sh, "step_gain", num_or_null (k, o->sharp_step_gain));
        set (sh, "set_by", k && o->sharp_gain_workload[0]
                               ? json_string (o->sharp_gain_workload)
                               : json_null ());
        set (sh, "gpu_hours_saved", num_or_null (k, o->sharp_gpu_hours_saved));
        set (sh, "usd_saved", num_or_null (k, o->sharp_usd_saved));
        set (sh, "breakeven_usd_per_switch",
             num_or_null (k, o->sharp_breakeven_usd_per_switch));
        set (sh, "note", json_string (o->sharp_note));
        set (n, "sharp", sh);
    }
    if (o->kind != GP_OPT_CLOUD && ok_n) {
        const struct gp_fabric *f = &o->fabric;
        set (n, "tiers", json_integer (f->tiers));
        set (n, "rails", json_integer (f->rails));
        set (n, "leaf_switches", json_integer (f->leaves));
        set (n, "spine_switches", json_integer (f->spines));
        set (n, "core_switches", json_integer (f->cores));
        set (n, "switches", json_integer (f->switches));
        set (n, "leaf_down_ports", json_integer (f->down_ports));
        set (n, "leaf_up_ports", json_integer (f->up_ports));
        set (n, "nics", json_integer (f->nics));
        set (n, "cables", json_integer (f->cables));
        set (n, "transceivers", json_integer (f->transceivers));
        set (n, "oversubscription", json_real (f->oversub));
        set (n, "bisection_bytes_per_s", json_real (f->bisection_bw));
    }
    return n;
}

static json_t *storage_json (const struct gp_plan_option *o)
{
    int ok_c = o->compute.code == 0;
    json_t *s = json_object ();
    part_status (s, &o->storage);
    int ok_s = o->storage.code == 0 && ok_c;
    if (ok_s) {
        set (s, "tier", json_string (gp_storage_tier_str (o->stor.tier)));
        set (s, "stack", json_string (o->storage_stack));
        set (s, "capacity_bytes", json_real (o->stor.capacity_bytes));
        set (s, "provisioned_bytes", json_real (o->stor.fast_bytes));
        set (s, "object_store_bytes", json_real (o->stor.object_bytes));
        set (s, "read_bytes_per_s", json_real (o->stor.read_bw));
        set (s, "checkpoint_write_bytes_per_s", json_real (o->stor.write_bw));
        set (s, "bandwidth_bound", json_boolean (o->stor.bw_bound));
        set (s, "given_bytes_per_s", json_real (o->storage_given_bw));
        set (s, "throughput_shortfall", json_boolean (o->storage_short));
    }
    return s;
}

static json_t *power_json (const struct gp_plan_option *o)
{
    int ok_c = o->compute.code == 0;
    int onprem_pow = o->kind != GP_OPT_CLOUD && o->power.code == 0
                     && ok_c;
    json_t *p = json_object ();
    part_status (p, &o->power);
    if (o->kind == GP_OPT_CLOUD) {
        set (p, "included_in_price", json_true ());
    } else if (onprem_pow) {
        set (p, "node_kw", json_real (o->node_w / 1e3));
        set (p, "it_kw", json_real (o->pow.it_w / 1e3));
        set (p, "facility_kw", json_real (o->pow.facility_w / 1e3));
        set (p, "nodes_per_rack", json_integer (o->pow.nodes_per_rack));
        set (p, "racks", json_integer (o->pow.racks));
        set (p, "energy_kwh_per_year", json_real (o->pow.energy_kwh_year));
        set (p, "energy_usd_per_year", json_real (o->pow.energy_usd_year));
    }
    return p;
}

static json_t *cost_json (const struct gp_plan_option *o)
{
    int ok_c = o->compute.code == 0;
    int ok_cost = o->cost.code == 0 && ok_c;
    json_t *k = json_object ();
    part_status (k, &o->cost);
    if (ok_cost) {
        if (o->kind != GP_OPT_CLOUD) {
            const struct gp_onprem_cost *oc = &o->onprem;
            set (k, "capex_usd", json_real (oc->capex));
            set (k, "capex_servers_usd", json_real (o->capex_servers));
            set (k, "capex_network_usd", json_real (o->capex_network));
            set (k, "capex_storage_usd", json_real (o->capex_storage));
            set (k, "capex_charged_usd", json_real (oc->capex_charged));
            set (k, "depreciation_usd_per_year",
                 json_real (oc->depreciation_year));
            set (k, "opex_usd_per_year", json_real (oc->opex_year));
            set (k, "power_usd_per_year", json_real (oc->power_year));
            set (k, "support_usd_per_year", json_real (oc->support_year));
            set (k, "space_usd_per_year", json_real (oc->space_year));
            set (k, "staff_usd_per_year", json_real (oc->staff_year));
            set (k, "breakeven_utilization",
                 num_or_null (o->breakeven_util > 0, o->breakeven_util));
            set (k, "opex_charged_usd", json_real (oc->opex_charged));
            set (k, "residual_value_usd", json_real (oc->residual_usd));
            set (k, "residual_value_pv_usd", json_real (oc->residual_pv));
            set (k, "discount_rate", json_real (oc->discount_rate));
            set (k, "owned_book_value_usd", json_real (oc->owned_book_usd));
            set (k, "owned_charged_usd", json_real (oc->owned_charged));
            set (k, "delivery_years", json_real (oc->delivery_years));
            set (k, "burst_usd", json_real (oc->burst_usd));
            set (k, "burst_gpu_hours", json_real (oc->burst_gpu_hours));
        }
        if (o->kind != GP_OPT_ONPREM) {
            set (k, "compute_usd", json_real (o->cloud_compute_usd));
            set (k, "storage_usd", json_real (o->cloud_storage_usd));
            set (k, "committed_usd", json_real (o->commit_usd));
            set (k, "on_demand_usd", json_real (o->on_demand_usd));
            set (k, "spot_usd", json_real (o->spot_usd));
            set (k, "spot_overhead", json_real (o->spot_overhead));
            set (k, "spot_tolerant_share", json_real (o->spot_tolerant_share));
            set (k, "max_gpus", o->max_gpus > 0 ? json_integer (o->max_gpus)
                                                : json_null ());
        }
        json_t *cum = json_array ();
        for (size_t t = 0; t < o->n_periods; t++)
            json_array_append_new (cum, json_real (o->cum_cost[t]));
        set (k, "cumulative_usd_per_month", cum);
    }
    return k;
}

static json_t *unit_costs_json (const struct gp_plan_option *o)
{
    json_t *u = json_object ();
    part_status (u, &o->unit_costs);
    set (u, "usd_per_training_run",
         num_or_null (o->usd_per_run > 0, o->usd_per_run));
    set (u, "usd_per_1m_tokens",
         num_or_null (o->usd_per_mtok > 0, o->usd_per_mtok));
    return u;
}

static json_t *infrastructure_json (const struct gp_plan_option *o)
{
    int ok_c = o->compute.code == 0;
    json_t *inf = json_object ();
    if (ok_c) {
        set (inf, "head_nodes", json_integer (o->head_nodes));
        set (inf, "management_nodes", json_integer (o->mgmt_nodes));
        set (inf, "cpu_nodes", json_integer (o->cpu_nodes));
        set (inf, "nodes_costed", json_false ());
        set (inf, "nodes_note", json_string (NODES_NOTE));
        set (inf, "scale_tier", json_string (o->scale_tier));
        set (inf, "stack", json_string (o->stack));
        set (inf, "why", json_string (o->stack_why));
    }
    return inf;
}

static json_t *tenancy_json (const struct gp_plan_option *o)
{
    json_t *t = json_object ();
    json_t *qs = json_array ();
    for (size_t i = 0; i < o->n_quotas; i++) {
        json_t *q = json_object ();
        set (q, "team", json_string (o->quotas[i].team));
        set (q, "gpus", json_integer (o->quotas[i].gpus));
        set (q, "share", json_real (o->quotas[i].share));
        set (q, "wished_share", json_real (o->quotas[i].wished_share));
        int sim_ok = o->sim.code == 0;
        set (q, "jobs", sim_ok ? json_integer ((json_int_t)o->quotas[i].jobs)
                               : json_null ());
        set (q, "wait_mean_s", num_or_null (sim_ok,
                                            o->quotas[i].wait_mean_s));
        set (q, "wait_p95_s", num_or_null (sim_ok, o->quotas[i].wait_p95_s));
        set (q, "wait_max_s", num_or_null (sim_ok, o->quotas[i].wait_max_s));
        set (q, "gpu_share_received",
             num_or_null (sim_ok, o->quotas[i].used_share));
        json_array_append_new (qs, q);
    }
    set (t, "quotas", qs);
    set (t, "quota_note", o->quota_short ? json_string (o->quota_note)
                                           : json_null ());
    set (t, "queue_flag", o->queue != GP_QUEUE_OK
                              ? json_string (o->queue_flag)
                              : json_null ());
    json_t *sim = json_object ();
    part_status (sim, &o->sim);
    set (sim, "utilization", num_or_null (o->sim.code == 0,
                                          o->utilization));
    set (sim, "jobs", o->sim.code == 0 ? json_integer ((json_int_t)o->sim_jobs)
                                       : json_null ());
    set (sim, "wait_p95_s", num_or_null (o->sim.code == 0, o->wait_p95_s));
    set (sim, "large_job_max_wait_s",
         num_or_null (o->sim.code == 0, o->starve_max_wait_s));
    set (sim, "jain_fairness", num_or_null (o->sim.code == 0
                                                && o->jain_index >= 0,
                                            o->jain_index));
    set (sim, "window_start_month",
         num_or_null (o->sim.code == 0, o->sim_window_start));
    set (sim, "window_months",
         num_or_null (o->sim.code == 0, o->sim_window_months));
    set (sim, "demand_gpu_hours",
         num_or_null (o->sim.code == 0, o->sim_demand_gpu_hours));
    set (sim, "provisioned_gpu_hours",
         num_or_null (o->sim.code == 0, o->sim_provisioned_gpu_hours));
    set (t, "simulation", sim);
    set (t, "quota_asked_total", json_real (o->quota_asked_total));
    set (t, "quota_trim", json_string (o->quota_trim
                                               == GP_QUOTA_TRIM_OVERSUBSCRIBED
                                           ? "oversubscribed"
                                           : "as_asked"));
    set (t, "quota_trim_reason",
         o->quota_trim_why[0] ? json_string (o->quota_trim_why)
                              : json_null ());
    return t;
}

/* Which rule decided the option's numbers (docs/formats/plan.md,
 * options[].rules): sizing, pricing and verdict, each an object with its
 * rule keyword and the values it used.
 */
static json_t *rules_json (const struct gp_plan_rules *u,
                           const struct gp_plan_option *o)
{
    json_t *j = json_object ();
    json_t *sz = json_object ();
    set (sz, "rule", json_string (gp_plan_sizing_rule_str (u->sizing)));
    set (sz, "training", json_string (gp_plan_train_rule_str (u->train)));
    set (sz, "global_batch_tokens",
         num_or_null (u->train != GP_RULE_TRAIN_NONE,
                      u->train_batch_tokens));
    set (sz, "services", json_string (gp_plan_serve_rule_str (u->serve)));
    set (sz, "serving_precision", u->serve_precision[0]
                                      ? json_string (u->serve_precision)
                                      : json_null ());
    set (j, "sizing", sz);
    json_t *pr = json_object ();
    set (pr, "rule", json_string (gp_plan_pricing_rule_str (u->pricing)));
    set (pr, "model", o->kind == GP_OPT_CLOUD
                          ? json_string (gp_pricing_str (o->pricing))
                          : json_null ());
    set (pr, "spot", json_string (gp_plan_spot_rule_str (u->spot)));
    set (pr, "capacity_cap_gpus",
         u->cap_gpus > 0 ? json_integer (u->cap_gpus) : json_null ());
    set (j, "pricing", pr);
    json_t *v = json_object ();
    set (v, "rule", json_string (gp_plan_verdict_rule_str (u->verdict)));
    set (v, "rejected_by", u->verdict == GP_RULE_VERDICT_REJECTED
                               ? json_string (gp_plan_infeasible_str (
                                     u->rejected_by))
                               : json_null ());
    set (v, "tco_rank", u->rank > 0 ? json_integer (u->rank) : json_null ());
    json_t *sf = json_array ();
    for (int k = 0; k < GP_N_SHORTFALLS; k++)
        if (u->shortfalls & (1u << k))
            json_array_append_new (
                sf, json_string (gp_plan_shortfall_str (
                        (enum gp_plan_shortfall)k)));
    set (v, "shortfalls", sf);
    set (j, "verdict", v);
    return j;
}

/* The planners' layout per workload (gp_plan_option.wl; docs/formats/
 * plan.md, "workloads"): empty when the option was not sized.
 */
static json_t *workloads_json (const struct gp_plan_option *o)
{
    json_t *a = json_array ();
    for (size_t i = 0; a && i < GP_PLAN_MAX_WORKLOADS && o->wl[i].workload[0];
         i++) {
        const struct gp_plan_wl_plan *p = &o->wl[i];
        json_t *w = json_object ();
        set (w, "workload", json_string (p->workload));
        set (w, "kind", json_string (gp_wl_kind_str (p->kind)));
        set (w, "sized", json_boolean (p->sized));
        if (p->sized && p->kind == GP_WL_INFERENCE) {
            set (w, "gpus_per_replica", json_integer (p->gpus_per_replica));
            set (w, "replica_nodes", json_integer (p->replica_nodes));
            set (w, "tp", json_integer (p->tp));
            set (w, "pp", json_integer (p->pp));
            set (w, "ep", json_integer (p->ep));
            set (w, "serve_precision", json_string (p->serve_precision));
            set (w, "engine", json_string (p->engine));
            set (w, "replica_rps", json_real (p->replica_rps));
            set (w, "max_num_seqs", json_integer (p->max_num_seqs));
        } else if (p->sized) {
            set (w, "gpus", json_integer (p->gpus));
            set (w, "tp", json_integer (p->tp));
            set (w, "pp", json_integer (p->pp));
            set (w, "dp", json_integer (p->dp));
            set (w, "cp", json_integer (p->cp));
            set (w, "ep", json_integer (p->ep));
            set (w, "vpp", json_integer (p->vpp));
            set (w, "micro_batch", json_integer (p->micro_batch));
            set (w, "grad_accum", json_integer (p->grad_accum));
            set (w, "global_batch", json_integer (p->global_batch));
            set (w, "seq_len", json_real (p->seq_len));
            set (w, "recompute", json_string (p->recompute));
            set (w, "sharding", json_string (p->sharding));
            set (w, "step_s", json_real (p->step_s));
            set (w, "run_days", json_real (p->run_days));
            set (w, "checkpoint_interval_s", json_real (p->ckpt_interval_s));
        }
        json_array_append_new (a, w);
    }
    return a;
}

static json_t *option_json (const struct gp_plan_option *o)
{
    json_t *j = json_object ();
    int ok_c = o->compute.code == 0;
    set (j, "name", json_string (o->name));
    set (j, "kind", json_string (gp_report_option_kind (o)));
    set (j, "status", json_string (gp_report_option_status (o)));
    set (j, "pricing", o->kind != GP_OPT_ONPREM
                           ? json_string (gp_pricing_str (o->pricing))
                           : json_null ());
    set (j, "accelerator", json_string (o->accel_id));
    set (j, "cloud", o->cloud[0] ? json_string (o->cloud) : json_null ());
    set (j, "instance", o->instance[0] ? json_string (o->instance)
                                       : json_null ());
    set (j, "region", o->region[0] ? json_string (o->region) : json_null ());
    set (j, "gpus", ok_c ? json_integer (o->gpus) : json_null ());
    set (j, "nodes", ok_c ? json_integer (o->nodes) : json_null ());
    set (j, "gpus_per_node", json_integer (o->gpus_per_node));
    set (j, "scale_up_domain", json_integer (o->scale_up_domain));
    set (j, "scale_up_domains", ok_c ? json_integer (o->scale_up_domains)
                                     : json_null ());
    int ok_cost = o->cost.code == 0 && ok_c;
    set (j, "tco_usd", num_or_null (ok_cost, o->tco_usd));
    set (j, "provisioned_gpu_hours",
         num_or_null (ok_cost, o->provisioned_gpu_hours));
    set (j, "demand_gpu_hours",
         num_or_null (ok_cost && o->demand_gpu_hours > 0,
                      o->demand_gpu_hours));
    set (j, "cost_per_gpu_hour_usd", num_or_null (ok_cost,
                                                  o->usd_per_gpu_hour));
    set (j, "cost_per_used_gpu_hour_usd",
         num_or_null (ok_cost && o->usd_per_used_gpu_hour > 0,
                      o->usd_per_used_gpu_hour));
    int onprem_pow = o->kind != GP_OPT_CLOUD && o->power.code == 0
                     && ok_c;
    set (j, "power_kw", num_or_null (onprem_pow, o->pow.it_w / 1e3));
    set (j, "spare_nodes", o->availability > 0
                               ? json_integer (o->spare_nodes)
                               : json_null ());
    set (j, "availability", num_or_null (o->availability > 0,
                                         o->availability));
    set (j, "feasible", json_boolean (o->feasible));
    set (j, "violation", o->feasible ? json_null ()
                                     : json_string (o->violation));
    set (j, "infeasible_reason", json_string (gp_plan_infeasible_str (o->infeasible)));
    set (j, "price_warnings", price_warnings_json (o));
    json_t *sf = json_array ();
    for (int k = 0; k < GP_N_SHORTFALLS; k++)
        if (o->shortfalls & (1u << k))
            json_array_append_new (
                sf, json_string (gp_plan_shortfall_str (
                        (enum gp_plan_shortfall)k)));
    set (j, "shortfalls", sf);
    set (j, "compute", compute_json (o));
    set (j, "network", network_json (o));
    set (j, "storage", storage_json (o));
    set (j, "power", power_json (o));
    set (j, "cost", cost_json (o));
    set (j, "unit_costs", unit_costs_json (o));
    set (j, "infrastructure", infrastructure_json (o));
    set (j, "tenancy", tenancy_json (o));
    set (j, "rules", rules_json (&o->rules, o));
    set (j, "workloads", workloads_json (o));
    return j;
}

struct json_t *gp_report_json (const struct gp_plan_result *r)
{
    if (!r)
        return NULL;
    json_t *root = json_object ();
    set (root, "summary", gp__report_summary_json (r));
    set (root, "plan", json_string (r->name));
    set (root, "horizon_years", json_real (r->horizon_years));
    set (root, "periods_months", json_integer ((json_int_t)r->n_periods));
    json_t *opts = json_array ();
    for (size_t i = 0; i < r->n_options; i++)
        json_array_append_new (opts, option_json (&r->options[i]));
    set (root, "options", opts);
    if (r->recommended >= 0) {
        json_t *rec = json_object ();
        set (rec, "name", json_string (r->options[r->recommended].name));
        json_t *why = json_array ();
        json_array_append_new (why, json_string (r->reason));
        set (rec, "reasons", why);
        const struct gp_plan_option *w = &r->options[r->recommended];
        json_t *sf = json_array ();
        for (int k = 0; k < GP_N_SHORTFALLS; k++)
            if (w->shortfalls & (1u << k))
                json_array_append_new (
                    sf, json_string (gp_plan_shortfall_str (
                            (enum gp_plan_shortfall)k)));
        set (rec, "shortfalls", sf);
        set (rec, "nearest_without_shortfalls",
             r->nearest_ok >= 0 ? json_string (r->options[r->nearest_ok].name)
                                : json_null ());
        set (root, "recommendation", rec);
    } else {
        set (root, "recommendation", json_null ());
    }
    json_t *log = json_array ();
    for (size_t i = 0; i < r->n_log; i++)
        json_array_append_new (log, json_string (r->log[i]));
    set (root, "decision_log", log);
    json_t *sens = json_array ();
    for (size_t i = 0; i < r->n_sens; i++) {
        const struct gp_sens_row *s = &r->sens[i];
        json_t *o = json_object ();
        set (o, "parameter", json_string (s->param));
        set (o, "low_factor", json_real (s->low_delta));
        set (o, "high_factor", json_real (s->high_delta));
        part_status (o, &s->status);
        int ok = s->status.code == 0;
        set (o, "tco_low_usd", num_or_null (ok && s->tco_low > 0,
                                            s->tco_low));
        set (o, "tco_high_usd", num_or_null (ok && s->tco_high > 0,
                                             s->tco_high));
        set (o, "recommended_low", ok ? json_string (s->rec_low)
                                      : json_null ());
        set (o, "recommended_high", ok ? json_string (s->rec_high)
                                       : json_null ());
        json_array_append_new (sens, o);
    }
    set (root, "train_curve", gp__report_curve_json (r));
    set (root, "sensitivity", sens);
    set (root, "sensitivity_note", json_string (SENS_NOTE));
    json_t *as = json_array ();
    for (size_t i = 0; i < r->n_assume; i++) {
        const struct gp_assumption *a = &r->assume[i];
        json_t *o = json_object ();
        set (o, "key", json_string (a->key));
        set (o, "value", json_real (a->value));
        set (o, "unit", json_string (a->unit));
        set (o, "source", json_string (a->source));
        set (o, "overridden", json_boolean (a->overridden));
        json_array_append_new (as, o);
    }
    set (root, "assumptions", as);
    json_t *src = json_array ();
    for (size_t i = 0; i < r->n_sources; i++) {
        const struct gp_plan_source *s = &r->sources[i];
        json_t *o = json_object ();
        set (o, "what", json_string (s->what));
        set (o, "value", json_real (s->value));
        set (o, "unit", json_string (s->unit));
        set (o, "source", json_string (s->source));
        set (o, "date", json_string (s->date));
        json_array_append_new (src, o);
    }
    set (root, "sources", src);
    gp__report_ranges_json (root, r);
    gp__report_whatif_json (root, r);
    return root;
}

