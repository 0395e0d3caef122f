/* sections.c - the sections of the plan report, each a function over the
 * plan result that writes through the report writer (emit.c), so the
 * text, Markdown and HTML reports show the same content from one place.
 * Sections compute nothing: every number comes from the result, every
 * verdict from its typed fields.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_private.h"

/* Money and quantities as every report shows them. */
#define fmt_usd gp_fmt_usd
#define fmt_q gp_report_fmt_q

/* The options table's row of 'o'. */
static void options_row (struct rout *out, const struct gp_plan_option *o)
{
    char x[7][48];
    int okc = o->compute.code == 0;
    int okk = okc && o->cost.code == 0;
    int okp = okc && o->kind == GP_OPT_ONPREM && o->power.code == 0;
    snprintf (x[0], 48, okc ? "%lld" : "-", o->gpus);
    snprintf (x[1], 48, okc ? "%lld" : "-", o->nodes);
    if (okk)
        fmt_usd (o->tco_usd, x[2], 48);
    else
        snprintf (x[2], 48, "-");
    if (okk)
        snprintf (x[3], 48, "%.2f", o->usd_per_gpu_hour);
    else
        snprintf (x[3], 48, "-");
    if (okk && o->usd_per_used_gpu_hour > 0)
        snprintf (x[4], 48, "%.2f", o->usd_per_used_gpu_hour);
    else
        snprintf (x[4], 48, "-");
    if (okp)
        fmt_q (o->pow.it_w, GP_Q_POWER, x[5], 48);
    else
        snprintf (x[5], 48, o->kind == GP_OPT_CLOUD ? "in price" : "-");
    snprintf (x[6], 48, okp ? "%lld" : "-", o->pow.racks);
    const char *row[] = {o->name, gp_report_option_kind (o),
                         x[0], x[1], x[2], x[3], x[4], x[5], x[6],
                         gp_report_option_status (o)};
    gp_rout_row (out, row);
}

void gp_report_options (struct rout *out, const struct gp_plan_result *r)
{
    gp_rout_heading (out, "Options");
    const char *h[] = {"OPTION", "KIND", "GPUS", "NODES", "TCO",
                       "$/PROV GPU-H", "$/DEMAND GPU-H", "IT POWER", "RACKS",
                       "STATUS"};
    gp_rout_table (out, h, 10);
    for (size_t i = 0; i < r->n_options; i++)
        options_row (out, &r->options[i]);
    gp_rout_table_end (out);
    gp_rout_note (out, "$/PROV GPU-H = TCO / GPU-hours paid for, used or "
                       "not (on-prem: GPUs x horizon; cloud: committed "
                       "terms in full + on-demand and spot hours rented); "
                       "$/DEMAND GPU-H = TCO / GPU-hours of the planners' "
                       "demand");
}

void gp_report_availability (struct rout *out,
                             const struct gp_plan_result *r)
{
    int any_av = 0;
    for (size_t i = 0; i < r->n_options; i++)
        any_av |= r->options[i].availability > 0;
    if (!any_av)
        return;
    gp_rout_heading (out, "Availability (constraints.min_availability)");
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (!(o->availability > 0))
            continue;
        gp_rout_item (out, 0, "%s: %lld spare nodes (N + %lld); a node is "
                              "down %.3f%% of the time; P(every node the "
                              "demand needs is up) = %.5f",
                      o->name, o->spare_nodes, o->spare_nodes,
                      100 * o->node_down_share, o->availability);
    }
}

void gp_report_network (struct rout *out, const struct gp_plan_result *r)
{
    gp_rout_heading (out, "Network");
    const char *hn[] = {"OPTION", "DESIGN", "TIERS", "LEAF", "SPINE", "CORE",
                        "NICS", "CABLES", "XCVRS", "OVERSUB", "PER GPU"};
    gp_rout_table (out, hn, 11);
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->compute.code || o->network.code)
            continue;
        const struct gp_fabric *f = &o->fabric;
        int op = o->kind == GP_OPT_ONPREM;
        char c[7][24], x[2][48];
        snprintf (c[0], 24, op ? "%d" : "-", f->tiers);
        snprintf (c[1], 24, op ? "%lld" : "-", f->leaves);
        snprintf (c[2], 24, op ? "%lld" : "-", f->spines);
        snprintf (c[3], 24, op ? "%lld" : "-", f->cores);
        snprintf (c[4], 24, op ? "%lld" : "-", f->nics);
        snprintf (c[5], 24, op ? "%lld" : "-", f->cables);
        snprintf (c[6], 24, op ? "%lld" : "-", f->transceivers);
        snprintf (x[0], 48, op ? "%.2f:1" : "-", f->oversub);
        gp_format_quantity (f->per_gpu_bw, GP_Q_BANDWIDTH, GP_FMT_BITS, x[1],
                            48);
        const char *row[] = {o->name, o->fabric_name, c[0], c[1], c[2], c[3],
                             c[4], c[5], c[6], x[0], x[1]};
        gp_rout_row (out, row);
    }
    gp_rout_table_end (out);
}

/* The shortfalls of 'o' in words: "SHORT: network, storage", "ok". */
static void shortfall_text (const struct gp_plan_option *o, int storage_ok,
                            char *buf, size_t n)
{
    int net = o->bw_short, sto = storage_ok && o->storage_short;
    if (net && sto)
        snprintf (buf, n, "SHORT: network, storage");
    else if (net)
        snprintf (buf, n, "SHORT: network");
    else if (sto)
        snprintf (buf, n, "SHORT: storage");
    else
        snprintf (buf, n, "ok");
}

void gp_report_bandwidth (struct rout *out, const struct gp_plan_result *r)
{
    gp_rout_heading (out, "Bandwidth: needed vs given");
    const char *hb[] = {"OPTION", "SCALE-OUT NEED", "GIVEN", "SLOWDOWN",
                        "SET BY", "STORAGE NEED", "STORAGE GIVEN", "CHECK"};
    gp_rout_table (out, hb, 8);
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->compute.code || !o->need_bw_known)
            continue;
        char c[3][48], x[3][48];
        if (o->need_bw_per_gpu > 0)
            gp_format_quantity (o->need_bw_per_gpu, GP_Q_BANDWIDTH,
                                GP_FMT_BITS, x[0], 48);
        else
            snprintf (x[0], 48, "none");
        gp_format_quantity (o->given_bw_per_gpu, GP_Q_BANDWIDTH,
                            GP_FMT_BITS, x[1], 48);
        snprintf (x[2], 48, "%.1f%%", 100 * o->comm_slowdown);
        int ok_s = o->storage.code == 0;
        if (ok_s) {
            fmt_q (fmax (o->stor.read_bw, o->stor.write_bw), GP_Q_BANDWIDTH,
                   c[0], 48);
            fmt_q (o->storage_given_bw, GP_Q_BANDWIDTH, c[1], 48);
        } else {
            snprintf (c[0], 48, "-");
            snprintf (c[1], 48, "-");
        }
        shortfall_text (o, ok_s, c[2], 48);
        const char *row[] = {o->name, x[0], x[1], x[2],
                             o->need_bw_workload[0] ? o->need_bw_workload
                                                    : "-",
                             c[0], c[1], c[2]};
        gp_rout_row (out, row);
    }
    gp_rout_table_end (out);
}

void gp_report_storage (struct rout *out, const struct gp_plan_result *r)
{
    gp_rout_heading (out, "Storage");
    const char *hs[] = {"OPTION", "TIER", "NEEDED", "PROVISIONED", "OBJECT",
                        "READ", "CKPT WRITE", "BOUND BY"};
    gp_rout_table (out, hs, 8);
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->compute.code || o->storage.code)
            continue;
        char x[5][48];
        fmt_q (o->stor.capacity_bytes, GP_Q_BYTES, x[0], 48);
        fmt_q (o->stor.fast_bytes, GP_Q_BYTES, x[1], 48);
        fmt_q (o->stor.object_bytes, GP_Q_BYTES, x[2], 48);
        fmt_q (o->stor.read_bw, GP_Q_BANDWIDTH, x[3], 48);
        fmt_q (o->stor.write_bw, GP_Q_BANDWIDTH, x[4], 48);
        const char *row[] = {o->name, gp_storage_tier_str (o->stor.tier),
                             x[0], x[1], x[2], x[3], x[4],
                             o->stor.bw_bound ? "bandwidth" : "capacity"};
        gp_rout_row (out, row);
    }
    gp_rout_table_end (out);
}

void gp_report_power (struct rout *out, const struct gp_plan_result *r)
{
    gp_rout_heading (out, "Power and cooling (on-prem)");
    const char *hp[] = {"OPTION", "NODE", "IT", "FACILITY", "NODES/RACK",
                        "RACKS", "MWH/YEAR", "ENERGY/YEAR"};
    gp_rout_table (out, hp, 8);
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->kind != GP_OPT_ONPREM || o->compute.code || o->power.code)
            continue;
        char x[7][48];
        fmt_q (o->node_w, GP_Q_POWER, x[0], 48);
        fmt_q (o->pow.it_w, GP_Q_POWER, x[1], 48);
        fmt_q (o->pow.facility_w, GP_Q_POWER, x[2], 48);
        snprintf (x[3], 48, "%d", o->pow.nodes_per_rack);
        snprintf (x[4], 48, "%lld", o->pow.racks);
        snprintf (x[5], 48, "%.0f", o->pow.energy_kwh_year / 1e3);
        fmt_usd (o->pow.energy_usd_year, x[6], 48);
        const char *row[] = {o->name, x[0], x[1], x[2], x[3], x[4], x[5],
                             x[6]};
        gp_rout_row (out, row);
    }
    gp_rout_table_end (out);
}

static void cost_row (struct rout *out, const struct gp_plan_option *o)
{
    int op = o->kind == GP_OPT_ONPREM;
    char d[9][24];
    fmt_usd (op ? o->onprem.capex_charged : 0, d[8], 24);
    fmt_usd (op ? o->onprem.capex : 0, d[0], 24);
    fmt_usd (op ? o->onprem.opex_year : 0, d[1], 24);
    fmt_usd (o->commit_usd, d[2], 24);
    fmt_usd (o->on_demand_usd, d[3], 24);
    fmt_usd (o->spot_usd, d[4], 24);
    if (op)
        snprintf (d[5], 24, "in capex");
    else
        fmt_usd (o->cloud_storage_usd, d[5], 24);
    fmt_usd (o->tco_usd, d[6], 24);
    if (op && o->breakeven_util > 0)
        snprintf (d[7], 24, "%.0f%% use", 100 * o->breakeven_util);
    else
        snprintf (d[7], 24, "-");
    const char *row[] = {o->name, op ? d[0] : "-", op ? d[8] : "-",
                         op ? d[1] : "-", op ? "-" : d[2],
                         op ? "-" : d[3], op ? "-" : d[4], d[5], d[6],
                         d[7]};
    gp_rout_row (out, row);
}

/* The plan's assumption 'key' (e.g. "discount_rate"); 0 when the
 * result does not list it.
 */
static double assumed (const struct gp_plan_result *r, const char *key)
{
    for (size_t i = 0; i < r->n_assume; i++)
        if (r->assume[i].key && !strcmp (r->assume[i].key, key))
            return r->assume[i].value;
    return 0;
}

void gp_report_cost (struct rout *out, const struct gp_plan_result *r)
{
    gp_rout_heading (out, "Cost");
    const char *hc[] = {"OPTION", "CAPEX", "CAPEX CHARGED", "OPEX/YEAR",
                        "COMMITTED", "ON-DEMAND", "SPOT", "STORAGE", "TCO",
                        "BREAK-EVEN"};
    gp_rout_table (out, hc, 10);
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->compute.code || o->cost.code)
            continue;
        cost_row (out, o);
    }
    gp_rout_table_end (out);
    double dr = assumed (r, "discount_rate");
    double lead = assumed (r, "delivery_lead_time_months");
    if (dr > 0 || lead > 0) {
        gp_rout_note (out, "Present values at a discount rate of %.3g %% a "
                           "year over %.3g years. On-prem: TCO = CAPEX "
                           "CHARGED + PV(OPEX/YEAR flowing evenly from "
                           "delivery) + PV(on-demand rental until delivery); "
                           "CAPEX CHARGED = CAPEX (and any refresh, at its "
                           "present value) - PV(straight-line book value "
                           "left at the horizon's end), plus the book value "
                           "owned GPUs lose. Bought GPUs arrive %.3g months "
                           "in. Cloud: TCO = COMMITTED + ON-DEMAND + SPOT + "
                           "STORAGE, the monthly spend at present value.",
                      100 * dr, r->horizon_years, lead);
        return;
    }
    gp_rout_note (out, "On-prem: TCO = CAPEX CHARGED + OPEX/YEAR x %.3g "
                       "years; CAPEX (servers, network and storage, storage "
                       "not counted again) is charged for the horizon's "
                       "share of its depreciation: CAPEX CHARGED = CAPEX x "
                       "%.3g / depreciation years. Cloud: TCO = COMMITTED + "
                       "ON-DEMAND + SPOT + STORAGE.",
                  r->horizon_years, r->horizon_years);
}

void gp_report_unit_costs (struct rout *out, const struct gp_plan_result *r)
{
    gp_rout_heading (out, "Unit costs (at the demand's GPU-hours)");
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->compute.code || o->cost.code)
            continue;
        if (o->unit_costs.code) {
            gp_rout_item (out, 0, "%s: %s", o->name, o->unit_costs.text);
            continue;
        }
        char u1[32], u2[32];
        if (o->usd_per_mtok > 0)
            snprintf (u2, sizeof u2, "$%.3f", o->usd_per_mtok);
        else
            snprintf (u2, sizeof u2, "-");
        gp_rout_item (out, 0, "%s: %s per training run, %s per 1M output "
                              "tokens, $%.2f per GPU-hour of demand served",
                      o->name,
                      o->usd_per_run > 0 ? fmt_usd (o->usd_per_run, u1, 32)
                                         : "-",
                      u2, o->usd_per_used_gpu_hour);
    }
    int onprem_mtok = 0;
    for (size_t i = 0; i < r->n_options; i++)
        onprem_mtok |= r->options[i].kind == GP_OPT_ONPREM
                       && r->options[i].usd_per_mtok > 0;
    if (onprem_mtok)
        gp_rout_note (out, "On-prem, output tokens are charged for the GPUs "
                           "that serve them: serving GPU-hours at the "
                           "fleet's cost per provisioned GPU-hour, not the "
                           "idle hours of the rest of the fleet.");
}

/* Flagged or undated catalog prices an option uses (cost.md, "The
 * pricing rule"); no section when there are none.
 */
void gp_report_price_warnings (struct rout *out,
                               const struct gp_plan_result *r)
{
    int any = 0;
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (!o->price_warning[0])
            continue;
        if (!any++)
            gp_rout_heading (out, "Price warnings");
        gp_rout_item (out, 0, "WARNING %s: %s", o->name, o->price_warning);
    }
}

void gp_report_infra (struct rout *out, const struct gp_plan_result *r)
{
    gp_rout_heading (out, "Supporting infrastructure and stack");
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->compute.code)
            continue;
        gp_rout_item (out, 0, "%s: %s; %d head, %d management, %d CPU nodes "
                              "(not costed); %s (%s)",
                      o->name, o->scale_tier, o->head_nodes, o->mgmt_nodes,
                      o->cpu_nodes, o->stack, o->stack_why);
    }
    gp_rout_note (out, "Note: %s.", NODES_NOTE);
}

/* One option's quotas and simulated queueing: an item, the queueing
 * flag and one item per team under it.
 */
static void tenancy_option (struct rout *out, const struct gp_plan_option *o)
{
    struct rbuf line = {0};
    gp_rb_printf (&line, "%s quotas:", o->name);
    for (size_t q = 0; q < o->n_quotas; q++)
        gp_rb_printf (&line, " %s %lld GPUs (%.0f%% of %lld; asked %.0f%%)%s",
                      o->quotas[q].team, o->quotas[q].gpus,
                      100 * o->quotas[q].share, o->gpus,
                      100 * o->quotas[q].wished_share,
                      q + 1 < o->n_quotas ? "," : "");
    if (o->quota_trim != GP_QUOTA_AS_ASKED)
        gp_rb_printf (&line, "; trimmed: %s", o->quota_trim_why);
    if (o->quota_short)
        gp_rb_printf (&line, "; %s", o->quota_note);
    if (o->sim.code) {
        gp_rb_printf (&line, "; simulation: %s", o->sim.text);
    } else {
        char jain[16];
        if (o->jain_index >= 0)
            snprintf (jain, sizeof jain, "%.2f", o->jain_index);
        else
            snprintf (jain, sizeof jain, "n/a");
        gp_rb_printf (&line, "; simulated %zu jobs: utilization %.1f%%, p95 "
                             "wait %.1f h, longest large-job wait %.1f h, "
                             "Jain %s",
                      o->sim_jobs, 100 * o->utilization,
                      o->wait_p95_s / 3600, o->starve_max_wait_s / 3600,
                      jain);
    }
    if (line.failed)
        out->b->failed = 1;
    else
        gp_rout_item (out, 0, "%s", line.buf);
    free (line.buf);
    if (o->sim.code)
        return;
    if (o->queue != GP_QUEUE_OK)
        gp_rout_item (out, 1, "FLAGGED: %s", o->queue_flag);
    for (size_t q = 0; q < o->n_quotas; q++)
        gp_rout_item (out, 1, "%s: %zu jobs, wait mean %.1f h, p95 %.1f h, "
                              "max %.1f h, %.0f%% of GPU time",
                      o->quotas[q].team, o->quotas[q].jobs,
                      o->quotas[q].wait_mean_s / 3600,
                      o->quotas[q].wait_p95_s / 3600,
                      o->quotas[q].wait_max_s / 3600,
                      100 * o->quotas[q].used_share);
}

void gp_report_tenancy (struct rout *out, const struct gp_plan_result *r)
{
    gp_rout_heading (out, "Multi-tenancy");
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->compute.code || o->n_quotas == 0)
            continue;
        tenancy_option (out, o);
    }
}

void gp_report_sensitivity (struct rout *out, const struct gp_plan_result *r)
{
    gp_rout_heading (out, "Sensitivity (TCO of the recommended option)");
    const char *hz[] = {"PARAMETER", "LOW", "HIGH", "TCO LOW", "TCO HIGH",
                        "PICK LOW", "PICK HIGH"};
    gp_rout_table (out, hz, 7);
    for (size_t i = 0; i < r->n_sens; i++) {
        const struct gp_sens_row *s = &r->sens[i];
        char x[4][48];
        snprintf (x[0], 48, "x%.2f", s->low_delta);
        snprintf (x[1], 48, "x%.2f", s->high_delta);
        int ok = s->status.code == 0 && r->recommended >= 0;
        if (ok) {
            fmt_usd (s->tco_low, x[2], 48);
            fmt_usd (s->tco_high, x[3], 48);
        } else {
            snprintf (x[2], 48, "-");
            snprintf (x[3], 48, "-");
        }
        const char *row[] = {s->param, x[0], x[1], x[2], x[3],
                             ok ? s->rec_low : "not yet supported",
                             ok ? s->rec_high : "-"};
        gp_rout_row (out, row);
    }
    gp_rout_table_end (out);
    gp_rout_note (out, "%s.", SENS_NOTE);
}

void gp_report_log (struct rout *out, const struct gp_plan_result *r)
{
    gp_rout_heading (out, "Decision log");
    for (size_t i = 0; i < r->n_log; i++)
        gp_rout_item (out, 0, "%s", r->log[i]);
}

/* Add 't' to the 'n' distinct texts in 'seen' unless it is there. */
static void add_distinct (const char **seen, size_t *n, const char *t)
{
    for (size_t q = 0; q < *n; q++)
        if (strcmp (seen[q], t) == 0)
            return;
    seen[(*n)++] = t;
}

/* Each distinct reason once: planners not yet supported, fleets the
 * planners could not size, unit costs, simulations and sensitivity rows.
 */
void gp_report_unsupported (struct rout *out, const struct gp_plan_result *r)
{
    gp_rout_heading (out, "Not yet supported");
    size_t n = r->n_options;
    const char **seen = calloc (3 * n + r->n_sens + 1, sizeof *seen);
    char (*unsized)[GP_PLAN_TEXT] = calloc (n + 1, sizeof *unsized);
    if (!seen || !unsized) {
        out->b->failed = 1;
        free (seen);
        free (unsized);
        return;
    }
    size_t n_seen = 0;
    for (size_t i = 0; i < n; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->compute.code == GP_ENOTSUP)
            add_distinct (seen, &n_seen, o->compute.text);
        else if (o->compute.code == 0 && o->basis == GP_BASIS_FLEET_UNSIZED) {
            snprintf (unsized[i], GP_PLAN_TEXT,
                      "sizing from the workloads: %.160s", o->basis_why);
            add_distinct (seen, &n_seen, unsized[i]);
        }
        if (o->unit_costs.code == GP_ENOTSUP)
            add_distinct (seen, &n_seen, o->unit_costs.text);
        if (o->sim.code == GP_ENOTSUP)
            add_distinct (seen, &n_seen, o->sim.text);
    }
    for (size_t i = 0; i < r->n_sens; i++)
        if (r->sens[i].status.code == GP_ENOTSUP)
            add_distinct (seen, &n_seen, r->sens[i].status.text);
    for (size_t q = 0; q < n_seen; q++)
        gp_rout_item (out, 0, "%s", seen[q]);
    if (!n_seen)
        gp_rout_item (out, 0, "nothing");
    free (seen);
    free (unsized);
}

void gp_report_assumptions (struct rout *out, const struct gp_plan_result *r)
{
    gp_rout_heading (out, "Assumptions (not in the catalog)");
    for (size_t i = 0; i < r->n_assume; i++) {
        const struct gp_assumption *a = &r->assume[i];
        gp_rout_item (out, 0, "%s = %g %s%s: %s", a->key, a->value, a->unit,
                      a->overridden ? " (set by the plan)" : "", a->source);
    }
}

void gp_report_sources (struct rout *out, const struct gp_plan_result *r)
{
    gp_rout_heading (out, "Catalog values used");
    for (size_t i = 0; i < r->n_sources; i++) {
        const struct gp_plan_source *s = &r->sources[i];
        gp_rout_item (out, 0, "%s = %g %s: %s (%s)", s->what, s->value,
                      s->unit, s->source, s->date);
    }
}

const gp_report_section_f gp_report_details[] = {
    gp_report_network,     gp_report_bandwidth,   gp_report_sharp,
    gp_report_storage,
    gp_report_power,       gp_report_cost,        gp_report_unit_costs,
    gp_report_price_warnings,
    gp_report_infra,       gp_report_tenancy,     gp_report_sensitivity,
    gp_report_ranges,
    gp_report_log,         gp_report_unsupported, NULL,
};
