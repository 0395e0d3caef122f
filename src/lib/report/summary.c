/* summary.c - the plan report's executive summary (first in every
 * format) and the main training run's GPUs-vs-days table, from the
 * result's typed summary (struct gp_plan_summary, struct gp_plan_curve,
 * filled by gp_plan_summarize in the plan library) and, when the plan was
 * sampled, its ranges.  The risk and decision sentences are written once
 * here and shared by the text, Markdown, HTML and JSON reports
 * (docs/formats/plan.md, "summary").
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_private.h"

#define fmt_usd gp_fmt_usd

/* The plan's assumption 'key'; 0 when the result does not list it. */
static double assumed (const struct gp_plan_result *r, const char *key)
{
    for (size_t i = 0; i < r->n_assume; i++)
        if (r->assume[i].key && !strcmp (r->assume[i].key, key))
            return r->assume[i].value;
    return 0;
}

/* The sampled range of the recommended option, or NULL. */
static const struct gp_plan_option_range *
sampled (const struct gp_plan_result *r)
{
    const struct gp_plan_summary *s = &r->summary;
    if (!r->ranges || !r->ranges->options || s->recommended < 0
        || (size_t)s->recommended >= r->n_options)
        return NULL;
    const struct gp_plan_option_range *x =
        &r->ranges->options[s->recommended];
    return x->n_ok ? x : NULL;
}

const char *gp__summary_risk_kind (enum gp_plan_risk_kind k)
{
    static const char *const n[] = {"shortfall", "price", "capacity",
                                    "capacity", "queueing", "quota",
                                    "sensitivity"};
    return (unsigned)k < sizeof n / sizeof *n ? n[k] : "?";
}

const char *gp__summary_decision_kind (enum gp_plan_decision_kind k)
{
    static const char *const n[] = {"commitment", "purchase", "fabric",
                                    "confirm_price", "confirm_capacity",
                                    "quotas", "shortfall"};
    return (unsigned)k < sizeof n / sizeof *n ? n[k] : "?";
}

void gp__summary_risk_text (const struct gp_plan_result *r,
                            const struct gp_plan_risk *x, char *buf,
                            size_t n)
{
    const struct gp_plan_option *o = &r->options[x->option];
    char a[48], b[48];
    switch (x->kind) {
    case GP_RISK_SHORTFALL:
        if (x->shortfall == GP_SHORT_NETWORK) {
            gp_format_quantity (o->need_bw_per_gpu, GP_Q_BANDWIDTH,
                                GP_FMT_BITS, a, sizeof a);
            gp_format_quantity (o->given_bw_per_gpu, GP_Q_BANDWIDTH,
                                GP_FMT_BITS, b, sizeof b);
            snprintf (buf, n, "network shortfall on %s: %s needs %s of "
                              "scale-out bandwidth per GPU, the fabric "
                              "gives %s (%.1f%% slower steps)",
                      o->name, o->need_bw_workload, a, b,
                      100 * o->comm_slowdown);
        } else {
            gp_report_fmt_q (o->stor.write_bw > o->stor.read_bw
                                 ? o->stor.write_bw
                                 : o->stor.read_bw,
                             GP_Q_BANDWIDTH, a, sizeof a);
            gp_report_fmt_q (o->storage_given_bw, GP_Q_BANDWIDTH, b,
                             sizeof b);
            snprintf (buf, n, "storage shortfall on %s: %s needed, the fast "
                              "tier gives %s",
                      o->name, a, b);
        }
        return;
    case GP_RISK_PRICE:
        snprintf (buf, n, "prices of %s: %s", o->name, o->price_warning);
        return;
    case GP_RISK_CAPACITY_UNCAPPED:
        snprintf (buf, n, "obtainable capacity: %lld GPUs of %s in %s have "
                          "no published obtainable-capacity figure, so the "
                          "plan applies no cap (set options[].max_gpus)",
                  o->gpus, o->instance, o->region);
        return;
    case GP_RISK_CAPACITY_CAPPED:
        snprintf (buf, n, "obtainable capacity: %s is capped at %lld GPUs "
                          "(max_gpus)",
                  o->name, o->max_gpus);
        return;
    case GP_RISK_QUEUE:
        snprintf (buf, n, "queueing on %s: %s", o->name, o->queue_flag);
        return;
    case GP_RISK_QUOTA:
        snprintf (buf, n, "quotas on %s: %s", o->name, o->quota_note);
        return;
    case GP_RISK_SENS_FLIP: {
        const struct gp_sens_row *s = &r->sens[x->sens];
        snprintf (buf, n, "sensitivity: %s at x%.2f picks %s instead",
                  s->param, x->high ? s->high_delta : s->low_delta,
                  x->high ? s->rec_high : s->rec_low);
        return;
    }
    }
    snprintf (buf, n, "?");
}

static void decision_buy (const struct gp_plan_result *r,
                          const struct gp_plan_option *o, char *buf,
                          size_t n)
{
    char a[32];
    double lead = assumed (r, "delivery_lead_time_months");
    snprintf (buf, n, "purchase: %lld %s GPUs (%lld nodes, capex %s); the "
                      "plan assumes delivery %.3g months in "
                      "(delivery_lead_time_months): get the vendor's "
                      "delivery date and price quote",
              o->gpus, o->accel_id, o->nodes,
              fmt_usd (o->onprem.capex, a, sizeof a), lead);
}

void gp__summary_decision_text (const struct gp_plan_result *r,
                                const struct gp_plan_decision *d, char *buf,
                                size_t n)
{
    const struct gp_plan_option *o = &r->options[d->option];
    char a[32], b[32], c[32];
    switch (d->kind) {
    case GP_DECIDE_COMMIT:
        snprintf (buf, n, "pricing commitment: %s (%s) commits %s, rents %s "
                          "on demand and %s on spot over the horizon; sign "
                          "the committed term only for demand that is firm",
                  o->name, gp_pricing_str (o->pricing),
                  fmt_usd (o->commit_usd, a, sizeof a),
                  fmt_usd (o->on_demand_usd, b, sizeof b),
                  fmt_usd (o->spot_usd, c, sizeof c));
        return;
    case GP_DECIDE_BUY:
        decision_buy (r, o, buf, n);
        return;
    case GP_DECIDE_FABRIC:
        snprintf (buf, n, "fabric: SHARP-capable switches make %s %.2f%% "
                          "faster and save %s over the horizon; buy them "
                          "only at a premium below %s per switch",
                  o->sharp_gain_workload, 100 * o->sharp_step_gain,
                  fmt_usd (o->sharp_usd_saved, a, sizeof a),
                  fmt_usd (o->sharp_breakeven_usd_per_switch, b, sizeof b));
        return;
    case GP_DECIDE_CONFIRM_PRICE:
        snprintf (buf, n, "confirm with the vendor the flagged or undated "
                          "prices %s uses (see the risks)",
                  o->name);
        return;
    case GP_DECIDE_CONFIRM_CAPACITY:
        snprintf (buf, n, "confirm with %s that %lld GPUs (%lld x %s) are "
                          "obtainable in %s, or reserve them",
                  o->cloud, o->gpus, o->nodes, o->instance, o->region);
        return;
    case GP_DECIDE_QUOTAS:
        snprintf (buf, n, "quotas: accept that the largest jobs run on "
                          "borrowed idle quota, or change the teams' "
                          "shares (see the multi-tenancy table)");
        return;
    case GP_DECIDE_SHORTFALL:
        snprintf (buf, n, "accept the shortfalls of %s or take %s, the "
                          "nearest option without any",
                  o->name,
                  r->nearest_ok >= 0 ? r->options[r->nearest_ok].name
                                     : "(none)");
        return;
    }
    snprintf (buf, n, "?");
}

/* "name (kind, N GPUs)" */
static void label (const struct gp_plan_option *o, char *buf, size_t n)
{
    snprintf (buf, n, "%s (%s, %lld GPUs)", o->name,
              gp_report_option_kind (o), o->gpus);
}

static void recommendation (struct rout *out, const struct gp_plan_result *r)
{
    const struct gp_plan_summary *s = &r->summary;
    const struct gp_plan_option *o = &r->options[s->recommended];
    char l[160], a[32], b[32], c[32];
    label (o, l, sizeof l);
    gp_rout_item (out, 0, "Recommendation: %s: %s", o->name, r->reason);
    gp_rout_item (out, 1, "%s, TCO %s over %.3g years", l,
                  fmt_usd (s->tco_usd, a, sizeof a), r->horizon_years);
    const struct gp_plan_option_range *x = sampled (r);
    if (x)
        gp_rout_item (out, 1, "cost range P10 / P50 / P90: %s / %s / %s "
                              "over %zu samples; cheapest in %.0f%% of them",
                      fmt_usd (x->tco_usd.p10, a, sizeof a),
                      fmt_usd (x->tco_usd.p50, b, sizeof b),
                      fmt_usd (x->tco_usd.p90, c, sizeof c),
                      r->ranges->n_samples, 100 * r->ranges->win_share);
    else
        gp_rout_item (out, 1, "cost range %s to %s over the sensitivity "
                              "rows (one input moved at a time; "
                              "plan --samples N gives P10-P90)",
                      fmt_usd (s->tco_low_usd, a, sizeof a),
                      fmt_usd (s->tco_high_usd, b, sizeof b));
    if (r->curve.n)
        gp_rout_item (out, 1, "main training run %s: %lld GPUs, %.1f days "
                              "(deadline %.1f days; GPUs vs days in the report)",
                      r->curve.name, r->curve.planned_gpus,
                      r->curve.planned_days, r->curve.deadline_days);
}

static void runner (struct rout *out, const struct gp_plan_result *r)
{
    const struct gp_plan_summary *s = &r->summary;
    if (s->runner_up < 0) {
        gp_rout_item (out, 0, "Runner-up: none (no other option is "
                              "feasible and fully costed)");
        return;
    }
    const struct gp_plan_option *o = &r->options[s->runner_up];
    char l[160], a[32], b[32];
    label (o, l, sizeof l);
    gp_rout_item (out, 0, "Runner-up: %s, TCO %s, %s more", l,
                  fmt_usd (s->runner_tco_usd, a, sizeof a),
                  fmt_usd (s->runner_gap_usd, b, sizeof b));
    gp_rout_item (out, 1, "it wins if its TCO falls by %.1f%% (%s), e.g. a "
                          "price cut or discount of that size",
                  100 * s->runner_cut_share, b);
    if (s->runner_sens >= 0) {
        const struct gp_sens_row *x = &r->sens[s->runner_sens];
        gp_rout_item (out, 1, "it is picked when %s is x%.2f "
                              "(sensitivity table)",
                      x->param,
                      s->runner_sens_high ? x->high_delta : x->low_delta);
    }
    if (o->shortfalls) {
        char sf[96] = "";
        for (int k = 0; k < GP_N_SHORTFALLS; k++)
            if (o->shortfalls & (1u << k)) {
                size_t m = strlen (sf);
                snprintf (sf + m, sizeof sf - m, "%s%s", m ? ", " : "",
                          gp_plan_shortfall_str ((enum gp_plan_shortfall)k));
            }
        gp_rout_item (out, 1, "it must also fix its shortfalls: %s", sf);
    }
}

void gp_report_exec_summary (struct rout *out, const struct gp_plan_result *r)
{
    const struct gp_plan_summary *s = &r->summary;
    if (out->fmt == ROUT_HTML)
        gp_rb_printf (out->b, "<section id=\"summary\"><h2>Executive "
                              "summary</h2>\n");
    else
        gp_rout_heading (out, "Executive summary");
    if (s->recommended < 0 || (size_t)s->recommended >= r->n_options) {
        if (r->n_changes > 0)
            gp_rout_item (out, 0, "Recommendation: none: no option is both "
                                  "feasible and fully costed; nearest "
                                  "feasible change: %s",
                          r->changes[0].text);
        else
            gp_rout_item (out, 0, "Recommendation: none: no option is both "
                                  "feasible and fully costed (see the "
                                  "decision log)");
        if (out->fmt == ROUT_HTML) {
            gp_rout_end_list (out);
            gp_rb_printf (out->b, "</section>\n");
        }
        return;
    }
    recommendation (out, r);
    runner (out, r);
    char t[GP_PLAN_TEXT + 160];
    gp_rout_item (out, 0, "Top risks:%s", s->n_risks ? "" : " none found");
    for (size_t i = 0; i < s->n_risks; i++) {
        gp__summary_risk_text (r, &s->risks[i], t, sizeof t);
        gp_rout_item (out, 1, "%s", t);
    }
    if (r->ranges && r->ranges->n_flips)
        gp_rout_item (out, 1, "sampled: %s flips the recommendation most "
                              "often (%.0f%% of samples)",
                      r->ranges->flips[0].key,
                      100 * r->ranges->flips[0].share);
    gp_rout_item (out, 0, "Decisions to take:");
    for (size_t i = 0; i < s->n_decisions; i++) {
        gp__summary_decision_text (r, &s->decisions[i], t, sizeof t);
        gp_rout_item (out, 1, "%s", t);
    }
    if (out->fmt == ROUT_HTML) {
        gp_rout_end_list (out);
        gp_rb_printf (out->b, "</section>\n");
    }
}

void gp_report_curve (struct rout *out, const struct gp_plan_result *r)
{
    const struct gp_plan_curve *c = &r->curve;
    if (!c->n)
        return;
    char h[GP_PLAN_NAME + 120];
    snprintf (h, sizeof h, "GPUs vs days: %s on %s", c->name,
              r->options[c->option].name);
    gp_rout_heading (out, h);
    const char *hd[] = {"GPUS", "DAYS", "MFU", "NOTE"};
    gp_rout_table (out, hd, 4);
    for (size_t i = 0; i < c->n; i++) {
        char x[3][32];
        snprintf (x[0], 32, "%lld", c->pt[i].gpus);
        snprintf (x[1], 32, "%.1f", c->pt[i].days);
        snprintf (x[2], 32, "%.1f%%", 100 * c->pt[i].mfu);
        const char *row[] = {x[0], x[1], x[2],
                             c->pt[i].gpus == c->planned_gpus ? "planned"
                                                              : ""};
        gp_rout_row (out, row);
    }
    gp_rout_table_end (out);
    gp_rout_note (out, "The training planner's deadline sizing: the fastest "
                       "batch and layout at each whole-node count, goodput "
                       "included; sizes not faster than a smaller one are "
                       "left out. The plan takes the fewest GPUs that meet "
                       "the deadline of %.1f days.",
                  c->deadline_days);
}

/* ------------------------------ JSON ------------------------------ */

static void set (json_t *o, const char *k, json_t *v)
{
    json_object_set_new (o, k, v ? v : json_null ());
}

static json_t *name_or_null (const struct gp_plan_result *r, int i)
{
    return i >= 0 && (size_t)i < r->n_options
               ? json_string (r->options[i].name)
               : json_null ();
}

static json_t *range_json (const struct gp_plan_result *r)
{
    const struct gp_plan_summary *s = &r->summary;
    json_t *g = json_object ();
    const struct gp_plan_option_range *x = sampled (r);
    if (x) {
        set (g, "basis", json_string ("samples"));
        set (g, "low_usd", json_real (x->tco_usd.p10));
        set (g, "p50_usd", json_real (x->tco_usd.p50));
        set (g, "high_usd", json_real (x->tco_usd.p90));
        set (g, "n_samples", json_integer ((json_int_t)r->ranges->n_samples));
        set (g, "win_share", json_real (r->ranges->win_share));
    } else {
        set (g, "basis", json_string ("sensitivity"));
        set (g, "low_usd", json_real (s->tco_low_usd));
        set (g, "high_usd", json_real (s->tco_high_usd));
    }
    return g;
}

static json_t *runner_json (const struct gp_plan_result *r)
{
    const struct gp_plan_summary *s = &r->summary;
    if (s->runner_up < 0)
        return json_null ();
    json_t *u = json_object ();
    set (u, "name", name_or_null (r, s->runner_up));
    set (u, "tco_usd", json_real (s->runner_tco_usd));
    set (u, "gap_usd", json_real (s->runner_gap_usd));
    set (u, "cut_share", json_real (s->runner_cut_share));
    if (s->runner_sens >= 0) {
        const struct gp_sens_row *x = &r->sens[s->runner_sens];
        json_t *w = json_object ();
        set (w, "parameter", json_string (x->param));
        set (w, "factor", json_real (s->runner_sens_high ? x->high_delta
                                                         : x->low_delta));
        set (u, "picked_under", w);
    } else {
        set (u, "picked_under", json_null ());
    }
    json_t *sf = json_array ();
    unsigned m = r->options[s->runner_up].shortfalls;
    for (int k = 0; k < GP_N_SHORTFALLS; k++)
        if (m & (1u << k))
            json_array_append_new (sf, json_string (gp_plan_shortfall_str (
                                           (enum gp_plan_shortfall)k)));
    set (u, "shortfalls", sf);
    return u;
}

json_t *gp__report_summary_json (const struct gp_plan_result *r)
{
    const struct gp_plan_summary *s = &r->summary;
    json_t *j = json_object ();
    if (!j)
        return NULL;
    int ok = s->recommended >= 0 && (size_t)s->recommended < r->n_options;
    set (j, "recommended", name_or_null (r, ok ? s->recommended : -1));
    if (!ok)
        return j;
    set (j, "tco_usd", json_real (s->tco_usd));
    set (j, "tco_range", range_json (r));
    set (j, "runner_up", runner_json (r));
    char t[GP_PLAN_TEXT + 160];
    json_t *rk = json_array ();
    for (size_t i = 0; i < s->n_risks; i++) {
        json_t *e = json_object ();
        set (e, "kind", json_string (gp__summary_risk_kind (s->risks[i].kind)));
        set (e, "option", name_or_null (r, s->risks[i].option));
        gp__summary_risk_text (r, &s->risks[i], t, sizeof t);
        set (e, "text", json_string (t));
        json_array_append_new (rk, e);
    }
    set (j, "risks", rk);
    json_t *dk = json_array ();
    for (size_t i = 0; i < s->n_decisions; i++) {
        json_t *e = json_object ();
        set (e, "kind", json_string (gp__summary_decision_kind (
                            s->decisions[i].kind)));
        set (e, "option", name_or_null (r, s->decisions[i].option));
        gp__summary_decision_text (r, &s->decisions[i], t, sizeof t);
        set (e, "text", json_string (t));
        json_array_append_new (dk, e);
    }
    set (j, "decisions", dk);
    return j;
}

json_t *gp__report_curve_json (const struct gp_plan_result *r)
{
    const struct gp_plan_curve *c = &r->curve;
    if (!c->n)
        return json_null ();
    json_t *j = json_object ();
    set (j, "option", name_or_null (r, c->option));
    set (j, "workload", json_string (c->name));
    set (j, "planned_gpus", json_integer ((json_int_t)c->planned_gpus));
    set (j, "planned_days", json_real (c->planned_days));
    set (j, "deadline_days", json_real (c->deadline_days));
    json_t *pts = json_array ();
    for (size_t i = 0; i < c->n; i++) {
        json_t *e = json_object ();
        set (e, "gpus", json_integer ((json_int_t)c->pt[i].gpus));
        set (e, "days", json_real (c->pt[i].days));
        set (e, "mfu", json_real (c->pt[i].mfu));
        json_array_append_new (pts, e);
    }
    set (j, "points", pts);
    return j;
}
