/* report.c - JSON, plain-text and Markdown renderers of a capacity plan.
 *
 * The JSON document is the contract (docs/formats/plan.md): SI units unless
 * a key names another (_usd, _kw, _kwh), null where a figure is unknown or
 * not yet supported, with a status and reason beside it.  Text and Markdown
 * share one writer that differs only in table syntax.
 */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpuplan/report.h"
#include "report_private.h"

static const char *const fmt_names[] = {"text", "md", "html", "json"};

const char *gp_report_format_str (enum gp_report_format f)
{
    return (unsigned)f < 4 ? fmt_names[f] : "?";
}

int gp_report_format_parse (const char *s, enum gp_report_format *out,
                            gp_error_t *err)
{
    for (int i = 0; s && i < 4; i++)
        if (strcasecmp (s, fmt_names[i]) == 0) {
            *out = (enum gp_report_format)i;
            return 0;
        }
    if (s && strcasecmp (s, "markdown") == 0) {
        *out = GP_REPORT_MD;
        return 0;
    }
    return gp_errprintf (err, GP_EINVAL,
                         "unknown report format '%s' (text, md, html, json)",
                         s ? s : "");
}

/* ------------------------------ buffer ------------------------------ */

int rb_printf (struct rbuf *b, const char *fmt, ...)
{
    if (b->failed)
        return -1;
    va_list ap;
    va_start (ap, fmt);
    va_list ap2;
    va_copy (ap2, ap);
    int n = vsnprintf (NULL, 0, fmt, ap);
    va_end (ap);
    if (n < 0) {
        va_end (ap2);
        b->failed = 1;
        return -1;
    }
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (b->len + (size_t)n + 1 > cap)
            cap *= 2;
        char *p = realloc (b->buf, cap);
        if (!p) {
            va_end (ap2);
            b->failed = 1;
            return -1;
        }
        b->buf = p;
        b->cap = cap;
    }
    vsnprintf (b->buf + b->len, b->cap - b->len, fmt, ap2);
    va_end (ap2);
    b->len += (size_t)n;
    return 0;
}

char *rb_take (struct rbuf *b, gp_error_t *err)
{
    if (b->failed || !b->buf) {
        free (b->buf);
        if (!b->failed) {
            char *e = calloc (1, 1);
            if (e)
                return e;
        }
        gp_errprintf (err, GP_ENOMEM, "report: out of memory");
        return NULL;
    }
    return b->buf;
}

/* ------------------------------ formats ------------------------------ */

const char *fmt_usd (double v, char *buf, size_t n)
{
    return gp_fmt_usd (v, buf, n);
}

const char *fmt_q (double v, enum gp_quantity q, char *buf, size_t n)
{
    return gp_format_quantity (v, q, 0, buf, n);
}

const char *option_status (const struct gp_plan_option *o)
{
    if (o->compute.code == GP_ENOTSUP)
        return "not yet supported";
    if (!o->feasible)
        return "infeasible";
    if (!o->complete)
        return "incomplete";
    return "ok";
}

/* -------------------------------- JSON -------------------------------- */

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

static void part_status (json_t *o, const struct gp_part_status *s)
{
    set (o, "status", status_json (s));
    set (o, "reason", s->code ? json_string (s->text) : json_null ());
}

static json_t *option_json (const struct gp_plan_option *o)
{
    json_t *j = json_object ();
    int ok_c = o->compute.code == 0;
    set (j, "name", json_string (o->name));
    set (j, "kind", json_string (o->kind == GP_OPT_ONPREM ? "on-prem"
                                                          : "cloud"));
    set (j, "status", json_string (option_status (o)));
    set (j, "pricing", o->kind == GP_OPT_CLOUD
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
    int onprem_pow = o->kind == GP_OPT_ONPREM && o->power.code == 0 && ok_c;
    set (j, "power_kw", num_or_null (onprem_pow, o->pow.it_w / 1e3));
    set (j, "spare_nodes", o->availability > 0
                               ? json_integer (o->spare_nodes)
                               : json_null ());
    set (j, "availability", num_or_null (o->availability > 0,
                                         o->availability));
    set (j, "feasible", json_boolean (o->feasible));
    set (j, "violation", o->feasible ? json_null ()
                                     : json_string (o->violation));

    json_t *c = json_object ();
    part_status (c, &o->compute);
    set (c, "basis", o->compute_basis[0] ? json_string (o->compute_basis)
                                         : json_null ());
    json_t *dem = json_array ();
    for (size_t t = 0; ok_c && t < o->n_periods; t++)
        json_array_append_new (dem, json_real (o->demand_gpus[t]));
    set (c, "demand_gpus_per_month", dem);
    set (j, "compute", c);

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
    if (o->kind == GP_OPT_ONPREM && ok_n) {
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
    set (j, "network", n);

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
    set (j, "storage", s);

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
    set (j, "power", p);

    json_t *k = json_object ();
    part_status (k, &o->cost);
    if (ok_cost) {
        if (o->kind == GP_OPT_ONPREM) {
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
        } else {
            set (k, "compute_usd", json_real (o->cloud_compute_usd));
            set (k, "storage_usd", json_real (o->cloud_storage_usd));
            set (k, "committed_usd", json_real (o->commit_usd));
            set (k, "on_demand_usd", json_real (o->on_demand_usd));
            set (k, "spot_usd", json_real (o->spot_usd));
            set (k, "spot_overhead", json_real (o->spot_overhead));
        }
        json_t *cum = json_array ();
        for (size_t t = 0; t < o->n_periods; t++)
            json_array_append_new (cum, json_real (o->cum_cost[t]));
        set (k, "cumulative_usd_per_month", cum);
    }
    set (j, "cost", k);

    json_t *u = json_object ();
    part_status (u, &o->unit_costs);
    set (u, "usd_per_training_run",
         num_or_null (o->usd_per_run > 0, o->usd_per_run));
    set (u, "usd_per_1m_tokens",
         num_or_null (o->usd_per_mtok > 0, o->usd_per_mtok));
    set (j, "unit_costs", u);

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
    set (j, "infrastructure", inf);

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
    set (t, "quota_note", o->quota_note[0] ? json_string (o->quota_note)
                                           : json_null ());
    set (t, "queue_flag", o->queue_flag[0] ? json_string (o->queue_flag)
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
    set (t, "simulation", sim);
    set (j, "tenancy", t);
    return j;
}

struct json_t *gp_report_json (const struct gp_plan_result *r)
{
    if (!r)
        return NULL;
    json_t *root = json_object ();
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
    return root;
}

/* ------------------------- text and Markdown ------------------------- */

/* A table: text aligns columns, Markdown uses pipes. */
struct tbl {
    size_t n_cols, n_rows;
    char cell[GP_PLAN_MAX_OPTIONS + 2][12][64];
};

static void tbl_row (struct tbl *t, const char *const *cells)
{
    if (t->n_rows >= GP_PLAN_MAX_OPTIONS + 2)
        return;
    for (size_t i = 0; i < t->n_cols; i++)
        snprintf (t->cell[t->n_rows][i], 64, "%s", cells[i] ? cells[i] : "");
    t->n_rows++;
}

static void tbl_print (struct rbuf *b, const struct tbl *t, int md)
{
    size_t w[12] = {0};
    for (size_t r = 0; r < t->n_rows; r++)
        for (size_t c = 0; c < t->n_cols; c++)
            if (strlen (t->cell[r][c]) > w[c])
                w[c] = strlen (t->cell[r][c]);
    for (size_t r = 0; r < t->n_rows; r++) {
        for (size_t c = 0; c < t->n_cols; c++) {
            if (md)
                rb_printf (b, "| %s ", t->cell[r][c]);
            else
                rb_printf (b, "%s%-*s", c ? "  " : "",
                           c + 1 == t->n_cols ? 0 : (int)w[c],
                           t->cell[r][c]);
        }
        rb_printf (b, md ? "|\n" : "\n");
        if (md && r == 0) {
            for (size_t c = 0; c < t->n_cols; c++)
                rb_printf (b, "|---");
            rb_printf (b, "|\n");
        }
    }
}

static void heading (struct rbuf *b, int md, const char *title)
{
    if (md)
        rb_printf (b, "\n## %s\n\n", title);
    else
        rb_printf (b, "\n%s\n", title);
}

static void render_textual (struct rbuf *b, const struct gp_plan_result *r,
                            int md)
{
    char x[8][48];
    struct tbl *t = calloc (1, sizeof *t);
    if (!t) {
        b->failed = 1;
        return;
    }
    if (md)
        rb_printf (b, "# Capacity plan: %s\n\n", r->name);
    else
        rb_printf (b, "capacity plan %s: %zu options over %.3g years\n",
                   r->name, r->n_options, r->horizon_years);
    if (md)
        rb_printf (b, "%zu options over %.3g years (%zu months).\n",
                   r->n_options, r->horizon_years, r->n_periods);
    heading (b, md, "Recommendation");
    if (r->recommended >= 0)
        rb_printf (b, "%s%s%s: %s\n", md ? "**" : "",
                   r->options[r->recommended].name, md ? "**" : "",
                   r->reason);
    else
        rb_printf (b, "none: no option is both feasible and fully costed "
                      "(see the decision log)\n");

    heading (b, md, "Options");
    const char *h[] = {"OPTION", "KIND", "GPUS", "NODES", "TCO",
                       "$/PROV GPU-H", "$/DEMAND GPU-H", "IT POWER", "RACKS",
                       "STATUS"};
    t->n_cols = 10;
    t->n_rows = 0;
    tbl_row (t, h);
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
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
        const char *row[] = {o->name, o->kind == GP_OPT_ONPREM ? "on-prem"
                                                               : "cloud",
                             x[0], x[1], x[2], x[3], x[4], x[5], x[6],
                             option_status (o)};
        tbl_row (t, row);
    }
    tbl_print (b, t, md);
    rb_printf (b, "%s$/PROV GPU-H = TCO / GPU-hours paid for, used or not "
                  "(on-prem: GPUs x horizon; cloud: committed terms in "
                  "full + on-demand and spot hours rented); $/DEMAND GPU-H "
                  "= TCO / GPU-hours of the planners' demand\n",
               md ? "\n" : "");

    int any_av = 0;
    for (size_t i = 0; i < r->n_options; i++)
        any_av |= r->options[i].availability > 0;
    if (any_av)
        heading (b, md, "Availability (constraints.min_availability)");
    for (size_t i = 0; i < r->n_options && any_av; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (!(o->availability > 0))
            continue;
        rb_printf (b, "%s%s: %lld spare nodes (N + %lld); a node is down "
                      "%.3f%% of the time; P(every node the demand needs "
                      "is up) = %.5f\n",
                   md ? "- " : "  ", o->name, o->spare_nodes,
                   o->spare_nodes, 100 * o->node_down_share,
                   o->availability);
    }

    heading (b, md, "Network");
    const char *hn[] = {"OPTION", "DESIGN", "TIERS", "LEAF", "SPINE", "CORE",
                        "NICS", "CABLES", "XCVRS", "OVERSUB", "PER GPU"};
    t->n_cols = 11;
    t->n_rows = 0;
    tbl_row (t, hn);
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->compute.code || o->network.code)
            continue;
        const struct gp_fabric *f = &o->fabric;
        int op = o->kind == GP_OPT_ONPREM;
        char c[7][24];
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
        tbl_row (t, row);
    }
    tbl_print (b, t, md);

    heading (b, md, "Bandwidth: needed vs given");
    const char *hb[] = {"OPTION", "SCALE-OUT NEED", "GIVEN", "SLOWDOWN",
                        "SET BY", "STORAGE NEED", "STORAGE GIVEN", "CHECK"};
    t->n_cols = 8;
    t->n_rows = 0;
    tbl_row (t, hb);
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->compute.code || !o->need_bw_known)
            continue;
        char c[4][48];
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
        snprintf (c[2], 48, "%s%s%s",
                  o->bw_short ? "SHORT: network" : "",
                  o->bw_short && ok_s && o->storage_short ? ", " : "",
                  ok_s && o->storage_short
                      ? (o->bw_short ? "storage" : "SHORT: storage")
                      : "");
        if (!c[2][0])
            snprintf (c[2], 48, "ok");
        const char *row[] = {o->name, x[0], x[1], x[2],
                             o->need_bw_workload[0] ? o->need_bw_workload
                                                    : "-",
                             c[0], c[1], c[2]};
        tbl_row (t, row);
    }
    tbl_print (b, t, md);

    heading (b, md, "Storage");
    const char *hs[] = {"OPTION", "TIER", "NEEDED", "PROVISIONED", "OBJECT",
                        "READ", "CKPT WRITE", "BOUND BY"};
    t->n_cols = 8;
    t->n_rows = 0;
    tbl_row (t, hs);
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->compute.code || o->storage.code)
            continue;
        fmt_q (o->stor.capacity_bytes, GP_Q_BYTES, x[0], 48);
        fmt_q (o->stor.fast_bytes, GP_Q_BYTES, x[1], 48);
        fmt_q (o->stor.object_bytes, GP_Q_BYTES, x[2], 48);
        fmt_q (o->stor.read_bw, GP_Q_BANDWIDTH, x[3], 48);
        fmt_q (o->stor.write_bw, GP_Q_BANDWIDTH, x[4], 48);
        const char *row[] = {o->name, gp_storage_tier_str (o->stor.tier),
                             x[0], x[1], x[2], x[3], x[4],
                             o->stor.bw_bound ? "bandwidth" : "capacity"};
        tbl_row (t, row);
    }
    tbl_print (b, t, md);

    heading (b, md, "Power and cooling (on-prem)");
    const char *hp[] = {"OPTION", "NODE", "IT", "FACILITY", "NODES/RACK",
                        "RACKS", "MWH/YEAR", "ENERGY/YEAR"};
    t->n_cols = 8;
    t->n_rows = 0;
    tbl_row (t, hp);
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->kind != GP_OPT_ONPREM || o->compute.code || o->power.code)
            continue;
        fmt_q (o->node_w, GP_Q_POWER, x[0], 48);
        fmt_q (o->pow.it_w, GP_Q_POWER, x[1], 48);
        fmt_q (o->pow.facility_w, GP_Q_POWER, x[2], 48);
        snprintf (x[3], 48, "%d", o->pow.nodes_per_rack);
        snprintf (x[4], 48, "%lld", o->pow.racks);
        snprintf (x[5], 48, "%.0f", o->pow.energy_kwh_year / 1e3);
        fmt_usd (o->pow.energy_usd_year, x[6], 48);
        const char *row[] = {o->name, x[0], x[1], x[2], x[3], x[4], x[5],
                             x[6]};
        tbl_row (t, row);
    }
    tbl_print (b, t, md);

    heading (b, md, "Cost");
    const char *hc[] = {"OPTION", "CAPEX", "CAPEX CHARGED", "OPEX/YEAR",
                        "COMMITTED", "ON-DEMAND", "SPOT", "STORAGE", "TCO",
                        "BREAK-EVEN"};
    t->n_cols = 10;
    t->n_rows = 0;
    tbl_row (t, hc);
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->compute.code || o->cost.code)
            continue;
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
        tbl_row (t, row);
    }
    tbl_print (b, t, md);
    rb_printf (b, "%sOn-prem: TCO = CAPEX CHARGED + OPEX/YEAR x %.3g "
                  "years; CAPEX (servers, network and storage, storage "
                  "not counted again) is charged for the horizon's share "
                  "of its depreciation: CAPEX CHARGED = CAPEX x %.3g / "
                  "depreciation years. Cloud: TCO = COMMITTED + ON-DEMAND "
                  "+ SPOT + STORAGE.\n",
               md ? "\n" : "", r->horizon_years, r->horizon_years);

    heading (b, md, "Unit costs (at the demand's GPU-hours)");
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->compute.code || o->cost.code)
            continue;
        if (o->unit_costs.code) {
            rb_printf (b, "%s%s: %s\n", md ? "- " : "  ", o->name,
                       o->unit_costs.text);
            continue;
        }
        char u1[32], u2[32];
        if (o->usd_per_mtok > 0)
            snprintf (u2, sizeof u2, "$%.3f", o->usd_per_mtok);
        else
            snprintf (u2, sizeof u2, "-");
        rb_printf (b, "%s%s: %s per training run, %s per 1M output "
                      "tokens, $%.2f per GPU-hour of demand served\n",
                   md ? "- " : "  ", o->name,
                   o->usd_per_run > 0 ? fmt_usd (o->usd_per_run, u1, 32)
                                      : "-",
                   u2, o->usd_per_used_gpu_hour);
    }

    heading (b, md, "Supporting infrastructure and stack");
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->compute.code)
            continue;
        rb_printf (b, "%s%s: %s; %d head, %d management, %d CPU nodes "
                      "(not costed); %s (%s)\n",
                   md ? "- " : "  ", o->name, o->scale_tier, o->head_nodes,
                   o->mgmt_nodes, o->cpu_nodes, o->stack, o->stack_why);
    }
    rb_printf (b, "%sNote: %s.\n", md ? "\n" : "", NODES_NOTE);

    heading (b, md, "Multi-tenancy");
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->compute.code || o->n_quotas == 0)
            continue;
        rb_printf (b, "%s%s quotas:", md ? "- " : "  ", o->name);
        for (size_t q = 0; q < o->n_quotas; q++)
            rb_printf (b, " %s %lld GPUs (%.0f%% of %lld; asked %.0f%%)%s",
                       o->quotas[q].team, o->quotas[q].gpus,
                       100 * o->quotas[q].share, o->gpus,
                       100 * o->quotas[q].wished_share,
                       q + 1 < o->n_quotas ? "," : "");
        if (o->quota_note[0])
            rb_printf (b, "; %s", o->quota_note);
        if (o->sim.code) {
            rb_printf (b, "; simulation: %s\n", o->sim.text);
            continue;
        }
        char jain[16];
        if (o->jain_index >= 0)
            snprintf (jain, sizeof jain, "%.2f", o->jain_index);
        else
            snprintf (jain, sizeof jain, "n/a");
        rb_printf (b, "; simulated %zu jobs: utilization %.1f%%, p95 wait "
                      "%.1f h, longest large-job wait %.1f h, Jain %s\n",
                   o->sim_jobs, 100 * o->utilization, o->wait_p95_s / 3600,
                   o->starve_max_wait_s / 3600, jain);
        if (o->queue_flag[0])
            rb_printf (b, "%s  FLAGGED: %s\n", md ? "  -" : "   ",
                       o->queue_flag);
        for (size_t q = 0; q < o->n_quotas; q++)
            rb_printf (b, "%s  %s: %zu jobs, wait mean %.1f h, p95 %.1f h, "
                          "max %.1f h, %.0f%% of GPU time\n",
                       md ? "  -" : "   ", o->quotas[q].team,
                       o->quotas[q].jobs, o->quotas[q].wait_mean_s / 3600,
                       o->quotas[q].wait_p95_s / 3600,
                       o->quotas[q].wait_max_s / 3600,
                       100 * o->quotas[q].used_share);
    }

    heading (b, md, "Sensitivity (TCO of the recommended option)");
    const char *hz[] = {"PARAMETER", "LOW", "HIGH", "TCO LOW", "TCO HIGH",
                        "PICK LOW", "PICK HIGH"};
    t->n_cols = 7;
    t->n_rows = 0;
    tbl_row (t, hz);
    for (size_t i = 0; i < r->n_sens; i++) {
        const struct gp_sens_row *s = &r->sens[i];
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
        tbl_row (t, row);
    }
    tbl_print (b, t, md);
    rb_printf (b, "%s%s.\n", md ? "\n" : "", SENS_NOTE);

    heading (b, md, "Decision log");
    for (size_t i = 0; i < r->n_log; i++)
        rb_printf (b, "%s%s\n", md ? "- " : "  ", r->log[i]);

    heading (b, md, "Not yet supported");
    {
        /* Each distinct reason once, with the number of options it hits. */
        const char *seen[3 * GP_PLAN_MAX_OPTIONS + GP_PLAN_MAX_SENS];
        size_t n_seen = 0;
        for (size_t i = 0; i < r->n_options; i++) {
            const struct gp_plan_option *o = &r->options[i];
            const char *txt[4] = {NULL, NULL, NULL, NULL};
            if (o->compute.code == GP_ENOTSUP)
                txt[0] = o->compute.text;
            else if (o->compute.code == 0
                     && strstr (o->compute_basis, "sizing from"))
                txt[0] = o->compute_basis;
            if (o->unit_costs.code == GP_ENOTSUP)
                txt[1] = o->unit_costs.text;
            if (o->sim.code == GP_ENOTSUP)
                txt[2] = o->sim.text;
            for (size_t k = 0; k < 3; k++) {
                if (!txt[k])
                    continue;
                const char *t0 = txt[k];
                if (k == 0 && strstr (t0, "sizing from"))
                    t0 = strstr (t0, "sizing from");
                size_t q;
                for (q = 0; q < n_seen; q++)
                    if (strcmp (seen[q], t0) == 0)
                        break;
                if (q == n_seen)
                    seen[n_seen++] = t0;
            }
        }
        for (size_t i = 0; i < r->n_sens; i++)
            if (r->sens[i].status.code == GP_ENOTSUP)
                seen[n_seen++] = r->sens[i].status.text;
        for (size_t q = 0; q < n_seen; q++) {
            size_t dup;
            for (dup = 0; dup < q; dup++)
                if (strcmp (seen[dup], seen[q]) == 0)
                    break;
            if (dup == q)
                rb_printf (b, "%s%s\n", md ? "- " : "  ", seen[q]);
        }
        if (!n_seen)
            rb_printf (b, "%snothing\n", md ? "- " : "  ");
    }

    heading (b, md, "Assumptions (not in the catalog)");
    for (size_t i = 0; i < r->n_assume; i++) {
        const struct gp_assumption *a = &r->assume[i];
        rb_printf (b, "%s%s = %g %s%s: %s\n", md ? "- " : "  ", a->key,
                   a->value, a->unit, a->overridden ? " (set by the plan)"
                                                    : "",
                   a->source);
    }
    heading (b, md, "Catalog values used");
    for (size_t i = 0; i < r->n_sources; i++) {
        const struct gp_plan_source *s = &r->sources[i];
        rb_printf (b, "%s%s = %g %s: %s (%s)\n", md ? "- " : "  ", s->what,
                   s->value, s->unit, s->source, s->date);
    }
    free (t);
}

char *gp_report_render (const struct gp_plan_result *r,
                        enum gp_report_format f, gp_error_t *err)
{
    if (!r) {
        gp_errprintf (err, GP_EINVAL, "report: no plan result");
        return NULL;
    }
    struct rbuf b = {0};
    switch (f) {
    case GP_REPORT_JSON: {
        json_t *j = gp_report_json (r);
        char *s = j ? json_dumps (j, JSON_INDENT (2) | JSON_PRESERVE_ORDER)
                    : NULL;
        json_decref (j);
        if (!s) {
            gp_errprintf (err, GP_ENOMEM, "report: out of memory");
            return NULL;
        }
        rb_printf (&b, "%s\n", s);
        free (s);
        break;
    }
    case GP_REPORT_TEXT:
        render_textual (&b, r, 0);
        break;
    case GP_REPORT_MD:
        render_textual (&b, r, 1);
        break;
    case GP_REPORT_HTML:
        report_html (&b, r);
        break;
    default:
        gp_errprintf (err, GP_EINVAL, "report: unknown format");
        return NULL;
    }
    return rb_take (&b, err);
}

char *gp_report_summary (const struct gp_plan_result *r, gp_error_t *err)
{
    if (!r) {
        gp_errprintf (err, GP_EINVAL, "report: no plan result");
        return NULL;
    }
    struct rbuf b = {0};
    char u[32];
    rb_printf (&b, "plan %s: %zu options over %.3g years\n", r->name,
               r->n_options, r->horizon_years);
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        int ok = o->compute.code == 0 && o->cost.code == 0;
        rb_printf (&b, "  %-32s %-18s TCO %s%s\n", o->name,
                   option_status (o), ok ? fmt_usd (o->tco_usd, u, sizeof u)
                                         : "-",
                   (int)i == r->recommended ? "  <- recommended" : "");
    }
    if (r->recommended >= 0)
        rb_printf (&b, "recommendation: %s: %s\n",
                   r->options[r->recommended].name, r->reason);
    else
        rb_printf (&b, "recommendation: none\n");
    return rb_take (&b, err);
}
