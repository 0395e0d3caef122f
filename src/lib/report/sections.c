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
    const char *h[] = {"OPTION", "SPARE NODES", "NODE DOWN", "P(ALL UP)"};
    gp_rout_table (out, h, 4);
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (!(o->availability > 0))
            continue;
        char x[3][32];
        snprintf (x[0], 32, "N + %lld", o->spare_nodes);
        snprintf (x[1], 32, "%.3f%%", 100 * o->node_down_share);
        snprintf (x[2], 32, "%.5f", o->availability);
        const char *row[] = {o->name, x[0], x[1], x[2]};
        gp_rout_row (out, row);
    }
    gp_rout_table_end (out);
    gp_rout_note (out, "SPARE NODES: added for N + k (included in the GPU "
                       "and node counts); NODE DOWN: share of the time one "
                       "node is down; P(ALL UP): probability that every "
                       "node the demand needs is up.");
}

/* "a/b/c" of three counts, or "-" off-prem. */
static void triple (char *buf, size_t n, int op, long long a, long long b,
                    long long c)
{
    if (op)
        snprintf (buf, n, "%lld/%lld/%lld", a, b, c);
    else
        snprintf (buf, n, "-");
}

/* The network table's row of 'o': the fabric and its scale-out
 * bandwidth against what the planned layouts need.
 */
static void network_row (struct rout *out, const struct gp_plan_option *o)
{
    const struct gp_fabric *f = &o->fabric;
    int op = o->kind == GP_OPT_ONPREM;
    char c[4][32], x[5][48];
    snprintf (c[0], 32, op ? "%d" : "-", f->tiers);
    triple (c[1], 32, op, f->leaves, f->spines, f->cores);
    snprintf (c[2], 32, op ? "%lld" : "-", f->nics);
    if (op)
        snprintf (c[3], 32, "%lld/%lld", f->cables, f->transceivers);
    else
        snprintf (c[3], 32, "-");
    snprintf (x[0], 48, op ? "%.2f:1" : "-", f->oversub);
    gp_format_quantity (f->per_gpu_bw, GP_Q_BANDWIDTH, GP_FMT_BITS, x[1], 48);
    int nb = o->need_bw_known;
    if (nb && o->need_bw_per_gpu > 0)
        gp_format_quantity (o->need_bw_per_gpu, GP_Q_BANDWIDTH, GP_FMT_BITS,
                            x[2], 48);
    else
        snprintf (x[2], 48, nb ? "none" : "-");
    if (nb)
        gp_format_quantity (o->given_bw_per_gpu, GP_Q_BANDWIDTH, GP_FMT_BITS,
                            x[3], 48);
    else
        snprintf (x[3], 48, "-");
    snprintf (x[4], 48, nb ? "%.1f%%" : "-", 100 * o->comm_slowdown);
    const char *row[] = {o->name, o->fabric_name, c[0], c[1], c[2], c[3],
                         x[0], x[1], x[2], x[3], x[4],
                         !nb           ? "-"
                         : o->bw_short ? "SHORT"
                                       : "ok"};
    gp_rout_row (out, row);
}

/* Who sets the scale-out need: each workload once, with its options. */
static void network_need_note (struct rout *out,
                               const struct gp_plan_result *r)
{
    struct rbuf line = {0};
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->compute.code || !o->need_bw_known || !o->need_bw_workload[0])
            continue;
        size_t k = 0;
        while (k < i
               && (r->options[k].compute.code || !r->options[k].need_bw_known
                   || strcmp (r->options[k].need_bw_workload,
                              o->need_bw_workload)))
            k++;
        if (k < i)
            continue; /* listed with an earlier option */
        gp_rb_printf (&line, "%s%s on", line.len ? "; " : "",
                      o->need_bw_workload);
        for (k = i; k < r->n_options; k++)
            if (!r->options[k].compute.code && r->options[k].need_bw_known
                && !strcmp (r->options[k].need_bw_workload,
                            o->need_bw_workload))
                gp_rb_printf (&line, " %s", r->options[k].name);
    }
    gp_rout_note (out, "SCALE-OUT NEED: per GPU, one direction, of the most "
                       "demanding planned layout, set by %s. SLOWDOWN = "
                       "step on the given fabric / step on an unlimited "
                       "one - 1; CHECK is SHORT when the need is above what "
                       "is given.",
                  line.failed || !line.buf ? "(none)" : line.buf);
    if (line.failed)
        out->b->failed = 1;
    free (line.buf);
}

void gp_report_network (struct rout *out, const struct gp_plan_result *r)
{
    gp_rout_heading (out, "Network");
    const char *hn[] = {"OPTION", "DESIGN", "TIERS", "LEAF/SPINE/CORE",
                        "NICS", "CABLES/XCVRS", "OVERSUB", "PER GPU",
                        "SCALE-OUT NEED", "GIVEN", "SLOWDOWN", "CHECK"};
    gp_rout_table (out, hn, 12);
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->compute.code || o->network.code)
            continue;
        network_row (out, o);
    }
    gp_rout_table_end (out);
    network_need_note (out, r);
}

void gp_report_storage (struct rout *out, const struct gp_plan_result *r)
{
    gp_rout_heading (out, "Storage");
    const char *hs[] = {"OPTION", "TIER", "NEEDED", "PROVISIONED", "OBJECT",
                        "READ", "CKPT WRITE", "BOUND BY", "GIVEN BW",
                        "CHECK"};
    gp_rout_table (out, hs, 10);
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->compute.code || o->storage.code)
            continue;
        char x[6][48];
        fmt_q (o->stor.capacity_bytes, GP_Q_BYTES, x[0], 48);
        fmt_q (o->stor.fast_bytes, GP_Q_BYTES, x[1], 48);
        fmt_q (o->stor.object_bytes, GP_Q_BYTES, x[2], 48);
        fmt_q (o->stor.read_bw, GP_Q_BANDWIDTH, x[3], 48);
        fmt_q (o->stor.write_bw, GP_Q_BANDWIDTH, x[4], 48);
        fmt_q (o->storage_given_bw, GP_Q_BANDWIDTH, x[5], 48);
        const char *row[] = {o->name, gp_storage_tier_str (o->stor.tier),
                             x[0], x[1], x[2], x[3], x[4],
                             o->stor.bw_bound ? "bandwidth" : "capacity",
                             x[5], o->storage_short ? "SHORT" : "ok"};
        gp_rout_row (out, row);
    }
    gp_rout_table_end (out);
    gp_rout_note (out, "GIVEN BW = the provisioned fast tier x its "
                       "throughput density (storage_tput_mbs_per_tib); "
                       "CHECK is SHORT when the read rate or the checkpoint "
                       "write burst is above it.");
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
    char d[11][24];
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
    int uc = o->unit_costs.code == 0;
    if (uc && o->usd_per_run > 0)
        fmt_usd (o->usd_per_run, d[9], 24);
    else
        snprintf (d[9], 24, "-");
    if (uc && o->usd_per_mtok > 0)
        snprintf (d[10], 24, "$%.3f", o->usd_per_mtok);
    else
        snprintf (d[10], 24, "-");
    const char *row[] = {o->name, op ? d[0] : "-", op ? d[8] : "-",
                         op ? d[1] : "-", op ? "-" : d[2],
                         op ? "-" : d[3], op ? "-" : d[4], d[5], d[6],
                         d[7], d[9], d[10]};
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

/* The unit-cost columns' notes: why an option has none, and how on-prem
 * tokens are charged.
 */
static void unit_cost_notes (struct rout *out, const struct gp_plan_result *r)
{
    gp_rout_note (out, "PER RUN = the first training workload's cost; PER "
                       "1M TOK = the first inference workload's cost per "
                       "million output tokens; $/DEMAND GPU-H (options "
                       "table) = the cost per GPU-hour of demand served.");
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (!o->compute.code && !o->cost.code && o->unit_costs.code)
            gp_rout_note (out, "%s unit costs: %s", o->name,
                          o->unit_costs.text);
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

void gp_report_cost (struct rout *out, const struct gp_plan_result *r)
{
    gp_rout_heading (out, "Cost");
    const char *hc[] = {"OPTION", "CAPEX", "CAPEX CHARGED", "OPEX/YEAR",
                        "COMMITTED", "ON-DEMAND", "SPOT", "STORAGE", "TCO",
                        "BREAK-EVEN", "PER RUN", "PER 1M TOK"};
    gp_rout_table (out, hc, 12);
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->compute.code || o->cost.code)
            continue;
        cost_row (out, o);
    }
    gp_rout_table_end (out);
    double dr = assumed (r, "discount_rate");
    double lead = assumed (r, "delivery_lead_time_months");
    if (dr > 0 || lead > 0)
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
    else
        gp_rout_note (out, "On-prem: TCO = CAPEX CHARGED + OPEX/YEAR x %.3g "
                           "years; CAPEX (servers, network and storage, "
                           "storage not counted again) is charged for the "
                           "horizon's share of its depreciation: CAPEX "
                           "CHARGED = CAPEX x %.3g / depreciation years. "
                           "Cloud: TCO = COMMITTED + ON-DEMAND + SPOT + "
                           "STORAGE.",
                      r->horizon_years, r->horizon_years);
    unit_cost_notes (out, r);
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

/* Compute and stack: one row per sized option; each distinct stack is
 * written once in a note and named by a letter in the table.
 */
void gp_report_infra (struct rout *out, const struct gp_plan_result *r)
{
    gp_rout_heading (out, "Compute and stack");
    size_t n = r->n_options;
    int *st = calloc (n + 1, sizeof *st);
    if (!st) {
        out->b->failed = 1;
        return;
    }
    int n_st = 0;
    for (size_t i = 0; i < n; i++) {
        const struct gp_plan_option *o = &r->options[i];
        st[i] = -1;
        if (o->compute.code)
            continue;
        for (size_t k = 0; k < i && st[i] < 0; k++)
            if (st[k] >= 0 && !strcmp (r->options[k].stack, o->stack)
                && !strcmp (r->options[k].stack_why, o->stack_why))
                st[i] = st[k];
        if (st[i] < 0)
            st[i] = n_st++;
    }
    const char *h[] = {"OPTION", "ACCELERATOR", "GPUS/NODE", "SCALE-UP",
                       "SCALE TIER", "HEAD", "MGMT", "CPU NODES", "STACK"};
    gp_rout_table (out, h, 9);
    for (size_t i = 0; i < n; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->compute.code)
            continue;
        char x[5][32];
        snprintf (x[0], 32, "%d", o->gpus_per_node);
        snprintf (x[1], 32, "%d", o->scale_up_domain);
        snprintf (x[2], 32, "%d", o->head_nodes);
        snprintf (x[3], 32, "%d", o->mgmt_nodes);
        snprintf (x[4], 32, "%d", o->cpu_nodes);
        char sl[8];
        snprintf (sl, sizeof sl, "%c", 'A' + st[i] % 26);
        const char *row[] = {o->name, o->accel_id, x[0], x[1], o->scale_tier,
                             x[2], x[3], x[4], sl};
        gp_rout_row (out, row);
    }
    gp_rout_table_end (out);
    for (int q = 0; q < n_st; q++)
        for (size_t i = 0; i < n; i++)
            if (st[i] == q) {
                gp_rout_note (out, "Stack %c: %s (%s)", 'A' + q % 26,
                              r->options[i].stack, r->options[i].stack_why);
                break;
            }
    gp_rout_note (out, "Note: %s.", NODES_NOTE);
    free (st);
}

/* Multi-tenancy: one row per option with its simulated totals and, up to
 * TEN_TEAM_COLS teams, one cell per team (quota against the ask,
 * simulated jobs, waits and share of GPU time); with more teams, one row
 * per option and team.  Flags and trims as notes.
 */
#define TEN_TEAM_COLS 6

/* One team's cell: "436 (50%/50%) 1 job, 0.0/0.0/0.0 h, 25%". */
static void team_cell (const struct gp_plan_option *o,
                       const struct gp_plan_quota *t, int named, char *buf,
                       size_t n)
{
    const char *who = named ? t->team : "";
    const char *sep = named ? " " : "";
    int k = snprintf (buf, n, "%.20s%s%lld GPUs (%.0f%%; asked %.0f%%)", who,
                      sep, t->gpus, 100 * t->share, 100 * t->wished_share);
    if (!o->sim.code && k > 0 && (size_t)k < n)
        snprintf (buf + k, n - (size_t)k, ", %zu jobs, %.1f/%.1f/%.1f h, "
                                          "%.0f%%",
                  t->jobs, t->wait_mean_s / 3600, t->wait_p95_s / 3600,
                  t->wait_max_s / 3600, 100 * t->used_share);
}

static void tenancy_row (struct rout *out, const struct gp_plan_option *o,
                         size_t q0, size_t nq, int named)
{
    int sim = o->sim.code == 0;
    char x[4][32], c[TEN_TEAM_COLS][128];
    snprintf (x[0], 32, sim ? "%zu" : "-", o->sim_jobs);
    snprintf (x[1], 32, sim ? "%.1f%%" : "-", 100 * o->utilization);
    snprintf (x[2], 32, sim ? "%.1f/%.1f" : "-", o->wait_p95_s / 3600,
              o->starve_max_wait_s / 3600);
    if (sim && o->jain_index >= 0)
        snprintf (x[3], 32, "%.2f", o->jain_index);
    else
        snprintf (x[3], 32, sim ? "n/a" : "-");
    const char *flag = !sim                     ? "not simulated"
                       : o->queue != GP_QUEUE_OK ? "FLAGGED"
                       : o->quota_short         ? "quota short"
                                                : "ok";
    const char *row[6 + TEN_TEAM_COLS] = {o->name, x[0], x[1], x[2], x[3],
                                          flag};
    for (size_t q = 0; q < nq && q < TEN_TEAM_COLS; q++) {
        team_cell (o, &o->quotas[q0 + q], named, c[q], sizeof c[q]);
        row[6 + q] = c[q];
    }
    gp_rout_row (out, row);
}

void gp_report_tenancy (struct rout *out, const struct gp_plan_result *r)
{
    gp_rout_heading (out, "Multi-tenancy");
    /* teams as columns when every option lists the same teams in the
     * same order (the plan's teams), at most TEN_TEAM_COLS of them
     */
    const struct gp_plan_option *first = NULL;
    int wide = 1;
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->compute.code || o->n_quotas == 0)
            continue;
        if (!first)
            first = o;
        wide &= o->n_quotas == first->n_quotas;
        for (size_t q = 0; wide && q < o->n_quotas; q++)
            wide &= !strcmp (o->quotas[q].team, first->quotas[q].team);
    }
    if (!first)
        return;
    size_t nt = first->n_quotas;
    wide &= nt <= TEN_TEAM_COLS;
    const char *h[6 + TEN_TEAM_COLS] = {"OPTION", "SIM JOBS", "UTILIZATION",
                                        "P95/LARGE WAIT H", "JAIN", "CHECK"};
    char th[TEN_TEAM_COLS][GP_PLAN_NAME + 8];
    size_t ncol = 6 + (wide ? nt : 1);
    for (size_t q = 0; q < (wide ? nt : 1); q++) {
        snprintf (th[q], sizeof th[q], "%s",
                  wide ? first->quotas[q].team : "TEAM");
        h[6 + q] = th[q];
    }
    gp_rout_table (out, h, ncol);
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->compute.code || o->n_quotas == 0)
            continue;
        if (wide)
            tenancy_row (out, o, 0, o->n_quotas, 0);
        else
            for (size_t q = 0; q < o->n_quotas; q++)
                tenancy_row (out, o, q, 1, 1);
    }
    gp_rout_table_end (out);
    gp_rout_note (out, "Per option: simulated jobs, utilization, p95 wait of "
                       "all jobs / longest wait of a large job (hours), Jain "
                       "fairness over teams. Per team: quota GPUs (share of "
                       "the option's GPUs; share asked), simulated jobs, "
                       "wait mean/p95/max (hours), share of GPU time "
                       "received. Quota "
                       "shortfalls are in the decision log (\"quotas:\").");
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->compute.code || o->n_quotas == 0)
            continue;
        if (o->quota_trim != GP_QUOTA_AS_ASKED)
            gp_rout_note (out, "%s quotas trimmed: %s", o->name,
                          o->quota_trim_why);
        if (o->sim.code)
            gp_rout_note (out, "%s simulation: %s", o->name, o->sim.text);
        else if (o->queue != GP_QUEUE_OK)
            gp_rout_note (out, "%s FLAGGED: %s", o->name, o->queue_flag);
    }
}

void gp_report_sensitivity (struct rout *out, const struct gp_plan_result *r)
{
    gp_rout_heading (out, "Sensitivity (TCO of the recommended option)");
    if (r->recommended < 0) {
        gp_rout_item (out, 0, "no option is recommended, so there is no TCO "
                              "to vary%s",
                      r->n_changes ? "; the executive summary names the "
                                     "nearest feasible change"
                                   : "");
        return;
    }
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

/* An assumption's value with its unit: bytes, bandwidth and power with a
 * prefix ("2 GB/s", not "2e+09 B/s"), any other unit as a number and the
 * unit's name.
 */
static const char *assume_value (double v, const char *unit, char *buf,
                                 size_t n)
{
    static const struct {
        const char *unit;
        enum gp_quantity q;
    } prefixed[] = {
        {"B/s", GP_Q_BANDWIDTH}, {"B", GP_Q_BYTES}, {"W", GP_Q_POWER},
    };
    for (size_t i = 0; i < sizeof prefixed / sizeof prefixed[0]; i++)
        if (unit && !strcmp (unit, prefixed[i].unit) && v >= 1000)
            return gp_format_quantity (v, prefixed[i].q, 0, buf, n);
    snprintf (buf, n, "%g %s", v, unit ? unit : "");
    return buf;
}

void gp_report_assumptions (struct rout *out, const struct gp_plan_result *r)
{
    gp_rout_heading (out, "Assumptions (not in the catalog)");
    for (size_t i = 0; i < r->n_assume; i++) {
        const struct gp_assumption *a = &r->assume[i];
        char v[64];
        gp_rout_item (out, 0, "%s = %s%s: %s", a->key,
                      assume_value (a->value, a->unit, v, sizeof v),
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
    gp_report_infra,       gp_report_network,     gp_report_sharp,
    gp_report_storage,
    gp_report_power,       gp_report_cost,
    gp_report_price_warnings,
    gp_report_tenancy,     gp_report_sensitivity, gp_report_ranges,
    gp_report_log,         gp_report_unsupported, NULL,
};
