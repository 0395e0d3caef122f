/* sweep_render.c - a sweep of one key (gp_plan_sweep_run) as a table and
 * the values between which the recommendation changes, in text,
 * Markdown, an HTML fragment or JSON (docs/formats/plan.md, "Overrides and sweeps").
 * Renders only: every number comes from the sweep.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/report.h"
#include "report_private.h"

static const char *reuse_str (enum gp_plan_sweep_reuse r)
{
    return r == GP_SWEEP_REUSE_OPTIONS ? "options" : "spec";
}

/* A sweep value in the key's unit: money as the report's other money
 * ("$982k"), other spec quantities with their prefix ("1.2 MW", "45 d"),
 * counts and shares as plain numbers.
 */
static char *sweep_value (const struct gp_plan_sweep *sw, double v,
                          char *buf, size_t n)
{
    if (sw->has_quantity && sw->quantity == GP_Q_MONEY)
        gp_fmt_usd (v, buf, n);
    else if (sw->has_quantity)
        gp_format_quantity (v, sw->quantity, 0, buf, n);
    else
        snprintf (buf, n, "%.6g", v);
    return buf;
}

static void set (json_t *o, const char *k, json_t *v)
{
    json_object_set_new (o, k, v ? v : json_null ());
}

static json_t *name_or_null (const char *s)
{
    return s[0] ? json_string (s) : json_null ();
}

struct json_t *gp_plan_sweep_json (const struct gp_plan_sweep *sw)
{
    if (!sw)
        return NULL;
    json_t *root = json_object ();
    json_t *j = json_object ();
    set (j, "key", json_string (sw->key));
    set (j, "from", json_real (sw->from));
    set (j, "to", json_real (sw->to));
    set (j, "quantity", sw->has_quantity
                            ? json_string (gp_quantity_str (sw->quantity))
                            : json_null ());
    set (j, "unit", sw->unit[0] ? json_string (sw->unit) : json_null ());
    set (j, "steps", json_integer ((json_int_t)sw->n_points));
    set (j, "reuse", json_string (reuse_str (sw->reuse)));
    json_t *pts = json_array (), *chg = json_array ();
    for (size_t i = 0; i < sw->n_points; i++) {
        const struct gp_plan_sweep_point *p = &sw->points[i];
        json_t *o = json_object ();
        set (o, "value", json_real (p->value));
        set (o, "recommended", name_or_null (p->recommended));
        set (o, "tco_usd", p->recommended[0] ? json_real (p->tco_usd)
                                             : json_null ());
        set (o, "gpus", p->recommended[0] ? json_integer (p->gpus)
                                          : json_null ());
        set (o, "feasible_options",
             json_integer ((json_int_t)p->n_feasible));
        set (o, "status", json_string (p->status == 0 ? "ok"
                                       : p->status == GP_EINFEASIBLE
                                           ? "infeasible"
                                           : gp_strerror (p->status)));
        set (o, "changed", json_boolean (p->changed));
        json_array_append_new (pts, o);
        if (!p->changed)
            continue;
        json_t *c = json_object ();
        json_t *bw = json_array ();
        json_array_append_new (bw, json_real (sw->points[i - 1].value));
        json_array_append_new (bw, json_real (p->value));
        set (c, "between", bw);
        set (c, "from", name_or_null (sw->points[i - 1].recommended));
        set (c, "to", name_or_null (p->recommended));
        json_array_append_new (chg, c);
    }
    set (j, "points", pts);
    set (j, "changes", chg);
    set (root, "sweep", j);
    return root;
}

static char *render_json (const struct gp_plan_sweep *sw, gp_error_t *err)
{
    json_t *j = gp_plan_sweep_json (sw);
    char *s = j ? json_dumps (j, JSON_INDENT (2) | JSON_PRESERVE_ORDER)
                : NULL;
    json_decref (j);
    struct rbuf b = {0};
    if (!s) {
        gp_errprintf (err, GP_ENOMEM, "sweep: out of memory");
        return NULL;
    }
    gp_rb_printf (&b, "%s\n", s);
    free (s);
    return gp_rb_take (&b, err);
}

char *gp_plan_sweep_render (const struct gp_plan_sweep *sw,
                            enum gp_report_format f, gp_error_t *err)
{
    if (!sw) {
        gp_errprintf (err, GP_EINVAL, "sweep: no sweep");
        return NULL;
    }
    if (f == GP_REPORT_JSON)
        return render_json (sw, err);
    struct rbuf b = {0};
    struct rout o;
    enum rout_fmt rf = f == GP_REPORT_MD     ? ROUT_MD
                       : f == GP_REPORT_HTML ? ROUT_HTML
                                             : ROUT_TEXT;
    if (gp_rout_init (&o, &b, rf) != 0)
        return gp_rb_take (&b, err);
    char title[GP_PLAN_TEXT + 160], lo[32], hi[32];
    snprintf (title, sizeof title, "Sweep of %s from %s to %s%s%s%s (%zu "
              "points)", sw->key, sweep_value (sw, sw->from, lo, sizeof lo),
              sweep_value (sw, sw->to, hi, sizeof hi),
              sw->unit[0] ? " (" : "", sw->unit, sw->unit[0] ? ")" : "",
              sw->n_points);
    gp_rout_heading (&o, title);
    static const char *const heads[] = {"value", "recommended", "TCO",
                                        "GPUs", "feasible options",
                                        "change"};
    gp_rout_table (&o, heads, 6);
    for (size_t i = 0; i < sw->n_points; i++) {
        const struct gp_plan_sweep_point *p = &sw->points[i];
        char v[32], t[32] = "-", g[32] = "-", n[32];
        sweep_value (sw, p->value, v, sizeof v);
        if (p->recommended[0]) {
            gp_fmt_usd (p->tco_usd, t, sizeof t);
            snprintf (g, sizeof g, "%lld", p->gpus);
        }
        snprintf (n, sizeof n, "%zu", p->n_feasible);
        const char *cells[] = {v, p->recommended[0] ? p->recommended
                                                    : "(none)",
                               t, g, n, p->changed ? "<- changed" : ""};
        gp_rout_row (&o, cells);
    }
    gp_rout_table_end (&o);
    size_t n_changes = 0;
    for (size_t i = 1; i < sw->n_points; i++) {
        const struct gp_plan_sweep_point *p = &sw->points[i];
        if (!p->changed)
            continue;
        n_changes++;
        char va[32], vb[32];
        gp_rout_item (&o, 0,
                      "between %s and %s the recommendation changes "
                      "from %s to %s",
                      sweep_value (sw, sw->points[i - 1].value, va, sizeof va),
                      sweep_value (sw, p->value, vb, sizeof vb),
                      sw->points[i - 1].recommended[0]
                          ? sw->points[i - 1].recommended
                          : "(none)",
                      p->recommended[0] ? p->recommended : "(none)");
    }
    if (n_changes == 0)
        gp_rout_item (&o, 0, "the recommendation does not change over the "
                             "sweep");
    gp_rout_note (&o, "%s",
                  sw->reuse == GP_SWEEP_REUSE_OPTIONS
                      ? "the key enters only the constraint check: options "
                        "evaluated once, each point checked and picked again"
                      : "each point planned in full with the value set");
    gp_rout_fini (&o);
    return gp_rb_take (&b, err);
}
