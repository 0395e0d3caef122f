/* ranges.c - the ranges of a sampled plan (gp_plan_result.ranges, filled
 * by gp_plan_sample; docs/model/uncertainty.md) in every format: the JSON
 * fields (docs/formats/plan.md, "Ranges") and the "Ranges" section of the
 * text, Markdown and HTML reports.  Renders only: every number comes from
 * the result.  Nothing is written for a plan that was not sampled.
 */
#include <jansson.h>
#include <stdio.h>

#include "report_private.h"

/* Footnote of the sampled tornado (replaces SENS_NOTE in JSON). */
#define RANGES_SENS_NOTE                                                   \
    "sampled plan: each row is one uncertain assumption of the registry "  \
    "alone at the P10 and the P90 of its distribution, the others as in "  \
    "force (docs/model/uncertainty.md); GPU counts are whole nodes, so "   \
    "a factor that moves no run to another node count leaves the TCO "    \
    "unchanged"

/* ------------------------------- JSON ---------------------------------- */

static json_t *pct_json (const struct gp_plan_pct *p, size_t n_ok)
{
    if (n_ok == 0)
        return json_null ();
    json_t *o = json_object ();
    json_object_set_new (o, "p10", json_real (p->p10));
    json_object_set_new (o, "p50", json_real (p->p50));
    json_object_set_new (o, "p90", json_real (p->p90));
    return o;
}

static json_t *option_range_json (const struct gp_plan_option_range *x,
                                  size_t n)
{
    json_t *o = json_object ();
    json_object_set_new (o, "samples_ok", json_integer ((json_int_t)x->n_ok));
    json_object_set_new (o, "samples_cheapest",
                         json_integer ((json_int_t)x->n_cheapest));
    json_object_set_new (o, "cheapest_share",
                         json_real (n ? (double)x->n_cheapest / (double)n
                                      : 0));
    json_object_set_new (o, "tco_usd", pct_json (&x->tco_usd, x->n_ok));
    json_object_set_new (o, "gpus", pct_json (&x->gpus, x->n_ok));
    json_object_set_new (o, "usd_per_gpu_hour",
                         pct_json (&x->usd_per_gpu_hour, x->n_ok));
    json_object_set_new (o, "train_days",
                         x->train_days.p90 > 0
                             ? pct_json (&x->train_days, x->n_ok)
                             : json_null ());
    return o;
}

void gp__report_ranges_json (json_t *root, const struct gp_plan_result *r)
{
    const struct gp_plan_ranges *rg = r ? r->ranges : NULL;
    if (!root || !rg)
        return;
    json_t *samp = json_object ();
    json_object_set_new (samp, "n", json_integer ((json_int_t)rg->n_samples));
    json_object_set_new (samp, "seed", json_integer ((json_int_t)rg->seed));
    json_object_set_new (samp, "method",
                         json_string ("centred Latin hypercube over the "
                                      "registry's distributions"));
    json_object_set_new (root, "sampling", samp);
    json_t *opts = json_object_get (root, "options");
    for (size_t i = 0; i < r->n_options; i++) {
        json_t *o = json_array_get (opts, i);
        if (o)
            json_object_set_new (o, "ranges", option_range_json (
                                                  &rg->options[i],
                                                  rg->n_samples));
    }
    json_t *rec = json_object_get (root, "recommendation");
    if (json_is_object (rec)) {
        json_object_set_new (rec, "win_share", json_real (rg->win_share));
        json_t *fl = json_array ();
        for (size_t i = 0; i < rg->n_flips; i++) {
            json_t *f = json_object ();
            json_object_set_new (f, "key", json_string (rg->flips[i].key));
            json_object_set_new (f, "count",
                                 json_integer ((json_int_t)rg->flips[i]
                                                   .count));
            json_object_set_new (f, "share", json_real (rg->flips[i].share));
            json_array_append_new (fl, f);
        }
        json_object_set_new (rec, "flipped_by", fl);
    }
    json_object_set_new (root, "sensitivity_note",
                         json_string (RANGES_SENS_NOTE));
}

/* ------------------------------- report -------------------------------- */

static void pct_cell (char *buf, size_t n, const struct gp_plan_pct *p,
                      size_t n_ok, enum gp_quantity q, int days)
{
    if (n_ok == 0 || (days && !(p->p90 > 0))) {
        snprintf (buf, n, "-");
        return;
    }
    char a[32], b[32], c[32];
    if (days)
        snprintf (buf, n, "%.0f / %.0f / %.0f", p->p10, p->p50, p->p90);
    else if (q == GP_Q_COUNT)
        snprintf (buf, n, "%.0f / %.0f / %.0f", p->p10, p->p50, p->p90);
    else
        snprintf (buf, n, "%s / %s / %s", gp_report_fmt_q (p->p10, q, a, 32),
                  gp_report_fmt_q (p->p50, q, b, 32),
                  gp_report_fmt_q (p->p90, q, c, 32));
}

void gp_report_ranges (struct rout *out, const struct gp_plan_result *r)
{
    const struct gp_plan_ranges *rg = r->ranges;
    if (!rg)
        return;
    char title[96];
    snprintf (title, sizeof title, "Ranges (%zu sampled plans, seed %llu)",
              rg->n_samples, rg->seed);
    gp_rout_heading (out, title);
    const char *hz[] = {"OPTION", "OK", "TCO P10 / P50 / P90",
                        "GPUS P10 / P50 / P90", "$/GPU-H P10 / P50 / P90",
                        "TRAIN DAYS P10 / P50 / P90", "CHEAPEST"};
    gp_rout_table (out, hz, 7);
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option_range *x = &rg->options[i];
        char ok[32], t[112], g[64], u[112], d[64], ch[32];
        snprintf (ok, sizeof ok, "%zu/%zu", x->n_ok, rg->n_samples);
        pct_cell (t, sizeof t, &x->tco_usd, x->n_ok, GP_Q_MONEY, 0);
        pct_cell (g, sizeof g, &x->gpus, x->n_ok, GP_Q_COUNT, 0);
        pct_cell (u, sizeof u, &x->usd_per_gpu_hour, x->n_ok,
                  GP_Q_MONEY_RATE, 0);
        pct_cell (d, sizeof d, &x->train_days, x->n_ok, GP_Q_COUNT, 1);
        snprintf (ch, sizeof ch, "%.0f%%",
                  rg->n_samples ? 100.0 * (double)x->n_cheapest
                                      / (double)rg->n_samples
                                : 0);
        const char *row[] = {r->options[i].name, ok, t, g, u, d, ch};
        gp_rout_row (out, row);
    }
    gp_rout_table_end (out);
    if (r->recommended >= 0)
        gp_rout_item (out, 0, "win share: %s is the cheapest feasible "
                      "option in %zu of %zu samples (%.1f%%)",
                      r->options[r->recommended].name,
                      rg->options[r->recommended].n_cheapest,
                      rg->n_samples, 100 * rg->win_share);
    for (size_t i = 0; i < rg->n_flips; i++)
        gp_rout_item (out, 1, "flipped by %s in %zu of %zu samples (%.1f%%)",
                      rg->flips[i].key, rg->flips[i].count, rg->n_samples,
                      100 * rg->flips[i].share);
    gp_rout_note (out, "P10/P50/P90 over the samples in which the option "
                  "is feasible and fully costed (OK); the uncertain "
                  "assumptions, their distributions and sources, the "
                  "reuse rules and how a flip is attributed: "
                  "docs/model/uncertainty.md.  The sensitivity table "
                  "above shows each assumption alone at its P10 and P90.");
}
