/* html.c - the capacity plan as one self-contained HTML page: inline CSS,
 * inline SVG charts (cost over the horizon, cost breakdown, demand against
 * capacity, sensitivity tornado) and tables; no external resources.
 *
 * Every chart is an <svg data-chart="..."> whose marks carry the class
 * 'mark', and a figure caption that names the formula, the assumptions and
 * the catalog sources behind it.  A short inline script records, after
 * layout, how many marks each chart drew, its size, its visible x and
 * y tick labels, its legend entries and their distinct colours in the
 * body's data-render-check attribute, and the first section's heading in
 * data-first-section; the browser test reads them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_private.h"

/* Twenty distinct colours (Tableau 10 and its light variants, light
 * ones second): one per series up to twenty; past that a series is
 * also dashed (series_dash).
 */
static const char *const palette[] = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
    "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5",
    "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5",
};
#define N_PALETTE 20

static const char *series_dash (int k)
{
    return k < N_PALETTE ? "none" : "6 3";
}

static int costed (const struct gp_plan_option *o)
{
    return o->compute.code == 0 && o->cost.code == 0;
}

/* A "nice" axis maximum: 1, 2 or 5 times a power of ten above v. */
static double nice_max (double v)
{
    if (!(v > 0))
        return 1;
    double p = pow (10, floor (log10 (v)));
    double m = v / p;
    double n = m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10;
    return n * p;
}

#define W 720
#define H 300
#define L 80   /* left margin */
#define R 170  /* right margin (legend) */
#define T 20
#define B 40

/* A tick label of 'v' ('money': USD; else a number). */
static void tick_text (double v, int money, double vmax, char *u, size_t n)
{
    if (money)
        gp_fmt_usd (v, u, n);
    else if (vmax >= 10)
        snprintf (u, n, "%.0f", v);
    else
        snprintf (u, n, "%.3g", v);
}

/* Axes of a chart in the box [L, W - R] x [T, H - B]: y from 0 to
 * 'ymax' with 5 labelled ticks and grid lines, x from 0 to 'xmax' with 5
 * labelled ticks ('xmax' <= 0: no x ticks, the caller labels x), and
 * the axis titles with their units.
 */
static void axes (struct rbuf *b, double ymax, const char *ylabel,
                  double xmax, const char *xlabel, int money)
{
    char u[32];
    gp_rb_printf (b, "<g class=\"axes\"><line x1=\"%d\" y1=\"%d\" "
                     "x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>",
                  L, H - B, W - R, H - B);
    gp_rb_printf (b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
                     "stroke=\"#333\"/>",
                  L, T, L, H - B);
    for (int i = 0; i <= 4; i++) {
        double v = ymax * i / 4;
        double y = H - B - (H - B - T) * i / 4.0;
        tick_text (v, money, ymax, u, sizeof u);
        gp_rb_printf (b, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
                         "class=\"tick ytick\">%s</text>",
                      L - 6, y + 4, u);
        gp_rb_printf (b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
                         "stroke=\"#ddd\"/>",
                      L, y, W - R, y);
    }
    for (int i = 0; xmax > 0 && i <= 4; i++) {
        double v = xmax * i / 4;
        double x = L + (W - R - L) * i / 4.0;
        tick_text (v, 0, xmax, u, sizeof u);
        gp_rb_printf (b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
                         "y2=\"%d\" stroke=\"#333\"/><text x=\"%.1f\" "
                         "y=\"%d\" text-anchor=\"middle\" "
                         "class=\"tick xtick\">%s</text>",
                      x, H - B, x, H - B + 4, x, H - B + 16, u);
    }
    gp_rb_printf (b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
                     "class=\"axis\">%s</text>",
                  (L + W - R) / 2, H - 4, xlabel);
    gp_rb_printf (b, "<text x=\"14\" y=\"%d\" class=\"axis\" "
                     "transform=\"rotate(-90 14 %d)\" "
                     "text-anchor=\"middle\">%s</text></g>",
                  (T + H - B) / 2, (T + H - B) / 2, ylabel);
}

static void legend (struct rbuf *b, int i, const char *name, const char *col)
{
    int y = T + 14 * i;
    gp_rb_printf (b, "<g class=\"legend\"><rect x=\"%d\" y=\"%d\" "
                     "width=\"10\" height=\"10\" fill=\"%s\"/><text "
                     "x=\"%d\" y=\"%d\" class=\"tick\">",
                  W - R + 10, y, col, W - R + 24, y + 9);
    gp_rb_esc (b, name);
    gp_rb_printf (b, "</text></g>");
}

static void chart_cost_time (struct rbuf *b, const struct gp_plan_result *r)
{
    double ymax = 0;
    size_t T_ = r->n_periods;
    for (size_t i = 0; i < r->n_options; i++)
        if (costed (&r->options[i]) && T_ > 0)
            ymax = fmax (ymax, r->options[i].cum_cost[T_ - 1]);
    ymax = nice_max (ymax);
    gp_rb_printf (b, "<figure><svg data-chart=\"cost-over-time\" width=\"%d\" "
                     "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">",
                  W, H, W, H);
    axes (b, ymax, "cumulative cost (USD)", (double)T_,
          "month of the horizon (months)", 1);
    int k = 0;
    for (size_t i = 0; i < r->n_options && T_ > 0; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (!costed (o))
            continue;
        const char *col = palette[k % N_PALETTE];
        gp_rb_printf (b, "<path class=\"mark\" fill=\"none\" stroke=\"%s\" "
                         "stroke-dasharray=\"%s\" stroke-width=\"%d\" d=\"",
                      col, series_dash (k), (int)i == r->recommended ? 3 : 2);
        for (size_t t = 0; t < T_; t++) {
            double x = L + (W - R - L) * (double)(t + 1) / (double)T_;
            double y = H - B - (H - B - T) * o->cum_cost[t] / ymax;
            gp_rb_printf (b, "%s%.1f %.1f ", t ? "L" : "M", x, y);
        }
        gp_rb_printf (b, "\"><title>");
        gp_rb_esc (b, o->name);
        gp_rb_printf (b, "</title></path>");
        legend (b, k, o->name, col);
        k++;
    }
    gp_rb_printf (b, "</svg><figcaption>Cumulative cost per option over the "
                     "horizon. On-prem: capex charged straight-line over "
                     "<code>depreciation_years</code> plus opex (power at the "
                     "catalog PUE and electricity price, support, space, "
                     "staff). Cloud: the pricing model's LP solution (GLPK) "
                     "month by month plus managed-Lustre storage; commitments "
                     "running past the horizon are paid in full in the last "
                     "month. Assumptions and catalog sources: tables "
                     "below.</figcaption></figure>\n");
}

static void chart_breakdown (struct rbuf *b, const struct gp_plan_result *r)
{
    static const char *const parts[] = {
        "servers (charged)", "network (charged)", "storage", "power",
        "support + staff", "space", "cloud committed", "cloud on-demand",
        "cloud spot",
    };
    size_t n = 0;
    double vmax = 0;
    for (size_t i = 0; i < r->n_options; i++)
        if (costed (&r->options[i])) {
            n++;
            vmax = fmax (vmax, r->options[i].tco_usd);
        }
    vmax = nice_max (vmax);
    int row_h = 22;
    int h = T + B + (int)(n ? n : 1) * row_h + 24;
    int left = 200;
    gp_rb_printf (b, "<figure><svg data-chart=\"cost-breakdown\" width=\"%d\" "
                     "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">",
                  W, h, W, h);
    for (int k = 0; k < 9; k++)
        legend (b, k, parts[k], palette[k]);
    size_t row = 0;
    char u[32];
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (!costed (o))
            continue;
        double H_ = r->horizon_years;
        double v[9] = {0};
        if (o->kind == GP_OPT_ONPREM) {
            double f = o->onprem.capex > 0
                           ? o->onprem.capex_charged / o->onprem.capex
                           : 0;
            v[0] = o->capex_servers * f;
            v[1] = o->capex_network * f;
            v[2] = o->capex_storage * f;
            /* opex at what the horizon charges (present value, from
             * delivery): 1 undiscounted and delivered at the start
             */
            double cash = o->onprem.opex_year * H_;
            double g = cash > 0 ? o->onprem.opex_charged / cash : 1;
            v[3] = o->onprem.power_year * H_ * g;
            v[4] = (o->onprem.support_year + o->onprem.staff_year) * H_ * g;
            v[5] = o->onprem.space_year * H_ * g;
            v[7] = o->onprem.burst_usd; /* rented until delivery */
        } else {
            v[2] = o->cloud_storage_usd;
            v[6] = o->commit_usd;
            v[7] = o->on_demand_usd;
            v[8] = o->spot_usd;
        }
        double y = T + (double)row * row_h;
        gp_rb_printf (b, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
                         "class=\"tick\">",
                      left - 6, y + 15);
        gp_rb_esc (b, o->name);
        gp_rb_printf (b, "</text>");
        double x = left;
        for (int k = 0; k < 9; k++) {
            double w = (W - R - left) * v[k] / vmax;
            if (w <= 0)
                continue;
            gp_rb_printf (b, "<rect class=\"mark\" x=\"%.1f\" y=\"%.1f\" "
                             "width=\"%.1f\" height=\"%d\" fill=\"%s\">"
                             "<title>%s: %s</title></rect>",
                          x, y + 3, w, row_h - 6, palette[k], parts[k],
                          gp_fmt_usd (v[k], u, sizeof u));
            x += w;
        }
        row++;
    }
    double y0 = T + (double)(n ? n : 1) * row_h + 2;
    gp_rb_printf (b, "<g class=\"axes\"><line x1=\"%d\" y1=\"%.1f\" "
                     "x2=\"%d\" y2=\"%.1f\" stroke=\"#333\"/>",
                  left, y0, W - R, y0);
    for (int i = 0; i <= 4; i++) {
        double x = left + (W - R - left) * i / 4.0;
        gp_rb_printf (b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                         "y2=\"%.1f\" stroke=\"#333\"/><text x=\"%.1f\" "
                         "y=\"%.1f\" text-anchor=\"middle\" "
                         "class=\"tick xtick\">%s</text>",
                      x, y0, x, y0 + 4, x, y0 + 16,
                      gp_fmt_usd (vmax * i / 4, u, sizeof u));
    }
    gp_rb_printf (b, "</g><text x=\"%d\" y=\"%d\" class=\"axis\">TCO over "
                     "the horizon (USD); full bar = %s</text>",
                  left, h - 8, gp_fmt_usd (vmax, u, sizeof u));
    gp_rb_printf (b, "</svg><figcaption>TCO by component. Network capex: "
                     "switches, NICs, transceivers and cables from the "
                     "fat-tree sizing times the <code>switch_usd</code>, "
                     "<code>nic_usd</code>, <code>transceiver_usd</code>, "
                     "<code>cable_usd</code> assumptions; storage at "
                     "<code>storage_usd_per_tb</code> (on-prem) or the catalog "
                     "FSx for Lustre price (cloud).</figcaption></figure>\n");
}

static void chart_utilization (struct rbuf *b, const struct gp_plan_result *r)
{
    int k = r->recommended;
    if (k < 0) {
        for (size_t i = 0; i < r->n_options; i++)
            if (costed (&r->options[i])) {
                k = (int)i;
                break;
            }
    }
    gp_rb_printf (b, "<figure><svg data-chart=\"utilization\" width=\"%d\" "
                     "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">",
                  W, H, W, H);
    const struct gp_plan_option *o = k >= 0 ? &r->options[k] : NULL;
    if (o) {
        size_t T_ = o->n_periods;
        double ymax = (double)o->gpus;
        for (size_t t = 0; t < T_; t++)
            ymax = fmax (ymax, o->demand_gpus[t]);
        ymax = nice_max (ymax);
        axes (b, ymax, "GPUs", (double)T_, "month of the horizon (months)",
              0);
        double bw = (W - R - L) / (double)(T_ ? T_ : 1);
        for (size_t t = 0; t < T_; t++) {
            double hgt = (H - B - T) * o->demand_gpus[t] / ymax;
            gp_rb_printf (b, "<rect class=\"mark\" x=\"%.1f\" y=\"%.1f\" "
                             "width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>",
                          L + bw * (double)t + 1, H - B - hgt, fmax (bw - 2, 1),
                          hgt, palette[0]);
        }
        double yc = H - B - (H - B - T) * (double)o->gpus / ymax;
        gp_rb_printf (b, "<line class=\"mark\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
                         "y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\" "
                         "stroke-dasharray=\"6 3\"/>",
                      L, yc, W - R, yc, palette[3]);
        legend (b, 0, "GPUs in use (demand)", palette[0]);
        legend (b, 1, "GPUs provisioned", palette[3]);
    }
    gp_rb_printf (b, "</svg><figcaption>Demand against capacity per month for "
                     "%s",
                  o ? "" : "(no costed option)");
    if (o)
        gp_rb_esc (b, o->name);
    if (o && o->basis == GP_BASIS_FLEET_UNSIZED)
        gp_rb_printf (b, ". Demand is the fleet given in the plan (the "
                         "planners could not size it)");
    else
        gp_rb_printf (b, ". Demand: GPUs busy per month from the training "
                         "planner (runs at their GPU count until done), "
                         "recurring runs (GPU-hours per month / 730) and the "
                         "inference planner (replicas for the SLOs at each "
                         "month's traffic)");
    if (o && o->sim.code == 0)
        gp_rb_printf (b, ". Simulated with the plan's policy: utilization "
                         "%.1f%%, p95 wait %.1f h, longest wait of a large job "
                         "%.1f h (per team: details below)",
                      100 * o->utilization, o->wait_p95_s / 3600,
                      o->starve_max_wait_s / 3600);
    else if (o)
        gp_rb_printf (b, ". Queueing: %s", o->sim.text);
    gp_rb_printf (b, ".</figcaption></figure>\n");
}

static void chart_tornado (struct rbuf *b, const struct gp_plan_result *r)
{
    int k = r->recommended;
    double base = k >= 0 ? r->options[k].tco_usd : 0;
    double span = 0;
    for (size_t i = 0; i < r->n_sens; i++) {
        const struct gp_sens_row *s = &r->sens[i];
        if (s->status.code || !(base > 0))
            continue;
        span = fmax (span, fabs (s->tco_low - base));
        span = fmax (span, fabs (s->tco_high - base));
    }
    span = nice_max (span);
    int row_h = 26;
    int ya = T + (int)r->n_sens * row_h;   /* the value axis */
    int h = ya + 60;
    int left = 250, mid = (left + W - R) / 2; /* room for long row names */
    gp_rb_printf (b, "<figure><svg data-chart=\"sensitivity\" width=\"%d\" "
                     "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">",
                  W, h, W, h);
    gp_rb_printf (b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
                     "stroke=\"#333\"/>",
                  mid, T - 5, mid, ya + 5);
    char u[32], u2[32];
    double half = (W - R - left) / 2.0;
    for (size_t i = 0; i < r->n_sens; i++) {
        const struct gp_sens_row *s = &r->sens[i];
        double y = T + (double)i * row_h;
        gp_rb_printf (b, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
                         "class=\"tick\">",
                      left - 6, y + 16);
        gp_rb_esc (b, s->param);
        gp_rb_printf (b, "</text>");
        if (s->status.code || !(base > 0)) {
            gp_rb_printf (b, "<text x=\"%d\" y=\"%.1f\" class=\"tick\">not yet "
                             "supported</text>",
                          mid + 6, y + 16);
            continue;
        }
        double lo = (s->tco_low - base) / span * half;
        double hi = (s->tco_high - base) / span * half;
        double a = fmin (lo, hi), z = fmax (lo, hi);
        if (a < 0)
            gp_rb_printf (b, "<rect class=\"mark\" x=\"%.1f\" y=\"%.1f\" "
                             "width=\"%.1f\" height=\"%d\" fill=\"%s\"/>",
                          mid + a, y + 4, fmin (-a, half), row_h - 8,
                          palette[2]);
        if (z > 0)
            gp_rb_printf (b, "<rect class=\"mark\" x=\"%d\" y=\"%.1f\" "
                             "width=\"%.1f\" height=\"%d\" fill=\"%s\"/>",
                          mid, y + 4, fmin (z, half), row_h - 8, palette[3]);
        gp_rb_printf (b, "<text x=\"%d\" y=\"%.1f\" class=\"tick\">%s .. "
                         "%s</text>",
                      W - R + 8, y + 16, gp_fmt_usd (s->tco_low, u, sizeof u),
                      gp_fmt_usd (s->tco_high, u2, sizeof u2));
    }
    gp_rb_printf (b, "<g class=\"axes\"><line x1=\"%d\" y1=\"%d\" "
                     "x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>",
                  left, ya, W - R, ya);
    for (int i = -2; i <= 2; i++) {
        double x = mid + half * i / 2.0;
        gp_fmt_usd (fabs (span * i / 2.0), u, sizeof u);
        gp_rb_printf (b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
                         "y2=\"%d\" stroke=\"#333\"/><text x=\"%.1f\" "
                         "y=\"%d\" text-anchor=\"middle\" "
                         "class=\"tick xtick\">%s%s</text>",
                      x, ya, x, ya + 4, x, ya + 16,
                      i < 0 ? "-" : i > 0 ? "+" : "", u);
    }
    gp_rb_printf (b, "</g><text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
                     "class=\"axis\">change of the recommendation's TCO "
                     "(USD) from %s (centre)</text>",
                  mid, ya + 32, gp_fmt_usd (base, u, sizeof u));
    gp_rb_printf (b, "<g class=\"legend\"><rect x=\"%d\" y=\"%d\" "
                     "width=\"10\" height=\"10\" fill=\"%s\"/><text "
                     "x=\"%d\" y=\"%d\" class=\"tick\">TCO below the "
                     "base</text><rect x=\"%d\" y=\"%d\" width=\"10\" "
                     "height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"%d\" "
                     "class=\"tick\">TCO above the base</text></g>",
                  left, ya + 42, palette[2], left + 14, ya + 51,
                  mid + 10, ya + 42, palette[3], mid + 24, ya + 51);
    gp_rb_printf (b, "</svg><figcaption>How the recommended option's TCO moves "
                     "when one input moves (low / high factor in the table). "
                     "Ranges: <code>sensitivity_price</code>, "
                     "<code>sensitivity_demand</code>, "
                     "<code>sensitivity_failure</code>. The table says whether "
                     "the recommendation itself changes.</figcaption></figure>"
                     "\n");
}

/* A sampled plan's ranges (r->ranges): one row per option, the P10-P90
 * of its TCO as a bar and the P50 as a dot on a common USD axis, the
 * recommended option's bar in its own colour; an option feasible in no
 * sample is named so.
 */
static void chart_ranges (struct rbuf *b, const struct gp_plan_result *r)
{
    const struct gp_plan_ranges *rg = r->ranges;
    double xmax = 0;
    for (size_t i = 0; i < r->n_options; i++)
        if (rg->options[i].n_ok)
            xmax = fmax (xmax, rg->options[i].tco_usd.p90);
    xmax = nice_max (xmax);
    int row_h = 22, left = 200, right = W - R;
    int ya = T + (int)r->n_options * row_h; /* the value axis */
    int h = ya + 44;
    double span = right - left;
    char u[32], v[32], w[32];
    gp_rb_printf (b, "<figure><svg data-chart=\"ranges\" width=\"%d\" "
                     "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">",
                  W, h, W, h);
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option_range *x = &rg->options[i];
        double y = T + (double)i * row_h;
        gp_rb_printf (b, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
                         "class=\"tick\">",
                      left - 6, y + 15);
        gp_rb_esc (b, r->options[i].name);
        gp_rb_printf (b, "</text>");
        if (!x->n_ok) {
            gp_rb_printf (b, "<text x=\"%d\" y=\"%.1f\" class=\"tick\">"
                             "feasible in no sample</text>",
                          left + 6, y + 15);
            continue;
        }
        double x10 = left + span * x->tco_usd.p10 / xmax;
        double x50 = left + span * x->tco_usd.p50 / xmax;
        double x90 = left + span * x->tco_usd.p90 / xmax;
        gp_rb_printf (b, "<rect class=\"mark\" x=\"%.1f\" y=\"%.1f\" "
                         "width=\"%.1f\" height=\"%d\" fill=\"%s\">"
                         "<title>",
                      x10, y + 5, fmax (x90 - x10, 1.0), row_h - 10,
                      (int)i == r->recommended ? palette[2] : palette[0]);
        gp_rb_esc (b, r->options[i].name);
        gp_rb_printf (b, ": TCO P10 %s, P50 %s, P90 %s (%zu of %zu samples "
                         "feasible)</title></rect>",
                      gp_fmt_usd (x->tco_usd.p10, u, sizeof u),
                      gp_fmt_usd (x->tco_usd.p50, v, sizeof v),
                      gp_fmt_usd (x->tco_usd.p90, w, sizeof w), x->n_ok,
                      rg->n_samples);
        gp_rb_printf (b, "<circle class=\"mark\" cx=\"%.1f\" cy=\"%.1f\" "
                         "r=\"4\" fill=\"%s\"/>",
                      x50, y + row_h / 2.0, palette[3]);
    }
    gp_rb_printf (b, "<g class=\"axes\"><line x1=\"%d\" y1=\"%d\" "
                     "x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>",
                  left, ya, right, ya);
    for (int i = 0; i <= 4; i++) {
        double x = left + span * i / 4.0;
        gp_rb_printf (b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
                         "y2=\"%d\" stroke=\"#ddd\"/><text x=\"%.1f\" "
                         "y=\"%d\" text-anchor=\"middle\" "
                         "class=\"tick xtick\">%s</text>",
                      x, T - 4, x, ya + 4, x, ya + 16,
                      gp_fmt_usd (xmax * i / 4, u, sizeof u));
    }
    gp_rb_printf (b, "</g><text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
                     "class=\"axis\">TCO over the horizon (USD), %zu "
                     "sampled plans</text>",
                  (left + right) / 2, ya + 34, rg->n_samples);
    legend (b, 0, "P10 to P90 of TCO", palette[0]);
    legend (b, 1, "recommended option", palette[2]);
    legend (b, 2, "P50 of TCO", palette[3]);
    gp_rb_printf (b, "</svg><figcaption>The TCO of each option over the "
                     "samples in which it is feasible and fully costed: the "
                     "bar spans P10 to P90, the dot is the P50 (table "
                     "\"Ranges\" below; distributions and sources in "
                     "docs/model/uncertainty.md).</figcaption></figure>\n");
}

/* The main training run's GPUs-vs-days curve on the recommended option
 * (r->curve): days against GPUs, the planned count marked, the deadline
 * dashed.
 */
static void chart_curve (struct rbuf *b, const struct gp_plan_result *r)
{
    const struct gp_plan_curve *c = &r->curve;
    double xmax = 0, ymax = c->deadline_days;
    for (size_t i = 0; i < c->n; i++) {
        xmax = fmax (xmax, (double)c->pt[i].gpus);
        ymax = fmax (ymax, c->pt[i].days);
    }
    xmax = nice_max (xmax);
    ymax = nice_max (ymax);
    gp_rb_printf (b, "<figure><svg data-chart=\"gpus-vs-days\" width=\"%d\" "
                     "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">",
                  W, H, W, H);
    axes (b, ymax, "days to train (days)", xmax, "GPUs (count)", 0);
    gp_rb_printf (b, "<path class=\"mark\" fill=\"none\" stroke=\"%s\" "
                     "stroke-width=\"2\" d=\"",
                  palette[0]);
    for (size_t i = 0; i < c->n; i++)
        gp_rb_printf (b, "%s%.1f %.1f ", i ? "L" : "M",
                      L + (W - R - L) * (double)c->pt[i].gpus / xmax,
                      H - B - (H - B - T) * c->pt[i].days / ymax);
    gp_rb_printf (b, "\"/>");
    for (size_t i = 0; i < c->n; i++) {
        int planned = c->pt[i].gpus == c->planned_gpus;
        gp_rb_printf (b, "<circle class=\"mark\" cx=\"%.1f\" cy=\"%.1f\" "
                         "r=\"%d\" fill=\"%s\"><title>%lld GPUs: %.1f days, "
                         "MFU %.1f%%</title></circle>",
                      L + (W - R - L) * (double)c->pt[i].gpus / xmax,
                      H - B - (H - B - T) * c->pt[i].days / ymax,
                      planned ? 6 : 3, planned ? palette[3] : palette[0],
                      c->pt[i].gpus, c->pt[i].days, 100 * c->pt[i].mfu);
    }
    if (c->deadline_days > 0) {
        double yd = H - B - (H - B - T) * c->deadline_days / ymax;
        gp_rb_printf (b, "<line class=\"mark\" x1=\"%d\" y1=\"%.1f\" "
                         "x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" "
                         "stroke-width=\"2\" stroke-dasharray=\"6 3\"/>",
                      L, yd, W - R, yd, palette[1]);
    }
    legend (b, 0, "days at each GPU count", palette[0]);
    legend (b, 1, "planned GPUs", palette[3]);
    legend (b, 2, "deadline", palette[1]);
    gp_rb_printf (b, "</svg><figcaption>GPUs against days for ");
    gp_rb_esc (b, c->name);
    gp_rb_printf (b, " on ");
    gp_rb_esc (b, r->options[c->option].name);
    gp_rb_printf (b, ": the training planner's deadline sizing (fastest "
                     "batch and layout per whole-node count, goodput "
                     "included); the plan takes the fewest GPUs that meet "
                     "the deadline.</figcaption></figure>\n");
}

static void table_open (struct rbuf *b, const char *const *heads, size_t n)
{
    gp_rb_printf (b, "<table><thead><tr>");
    for (size_t i = 0; i < n; i++)
        gp_rb_printf (b, "<th>%s</th>", heads[i]);
    gp_rb_printf (b, "</tr></thead><tbody>\n");
}

static void td (struct rbuf *b, const char *s)
{
    gp_rb_printf (b, "<td>");
    gp_rb_esc (b, s);
    gp_rb_printf (b, "</td>");
}

static void page_head (struct rbuf *b, const struct gp_plan_result *r)
{
    gp_rb_printf (b, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
                     "<meta charset=\"utf-8\"><title>Capacity plan: ");
    gp_rb_esc (b, r->name);
    gp_rb_printf (b, "</title><style>"
                     "body{font:14px/1.4 system-ui,sans-serif;margin:24px;"
                     "color:#222;max-width:1100px}"
                     "table{border-collapse:collapse;margin:8px 0 16px}"
                     "td,th{border:1px solid #ccc;padding:3px 6px;"
                     "text-align:left;font-size:13px}"
                     "th{background:#f3f3f3}"
                     "figure{margin:12px 0 24px}figcaption{font-size:12px;"
                     "color:#555;max-width:720px}"
                     ".tick{font-size:11px;fill:#333}.axis{font-size:12px;"
                     "fill:#333}.rec{background:#eef8ee;padding:8px 12px;"
                     "border-left:4px solid #2ca02c}"
                     "code{font-size:12px}</style></head><body>\n");
    gp_rb_printf (b, "<h1>Capacity plan: ");
    gp_rb_esc (b, r->name);
    gp_rb_printf (b, "</h1><p>%zu design options over %.3g years (%zu "
                     "months).</p>\n",
                  r->n_options, r->horizon_years, r->n_periods);
}

/* The detail sections, from the same section functions as the text and
 * Markdown reports.
 */
static void details (struct rbuf *b, const struct gp_plan_result *r)
{
    gp_rb_printf (b, "<h2>Details</h2>\n");
    struct rout out;
    if (gp_rout_init (&out, b, ROUT_HTML) != 0)
        return;
    for (size_t i = 0; gp_report_details[i]; i++)
        gp_report_details[i](&out, r);
    gp_rout_fini (&out);
}

static void assumptions_tables (struct rbuf *b,
                                const struct gp_plan_result *r)
{
    char u[64];
    gp_rb_printf (b, "<h2>Assumptions (not in the catalog)</h2>\n");
    const char *ha[] = {"key", "value", "unit", "source", "set by plan"};
    table_open (b, ha, 5);
    for (size_t i = 0; i < r->n_assume; i++) {
        const struct gp_assumption *a = &r->assume[i];
        gp_rb_printf (b, "<tr>");
        td (b, a->key);
        snprintf (u, sizeof u, "%g", a->value);
        td (b, u);
        td (b, a->unit);
        td (b, a->source);
        td (b, a->overridden ? "yes" : "no");
        gp_rb_printf (b, "</tr>\n");
    }
    gp_rb_printf (b, "</tbody></table>\n<h2>Catalog values used</h2>\n");
    const char *hc[] = {"value", "number", "unit", "source", "dated"};
    table_open (b, hc, 5);
    for (size_t i = 0; i < r->n_sources; i++) {
        const struct gp_plan_source *s = &r->sources[i];
        gp_rb_printf (b, "<tr>");
        td (b, s->what);
        snprintf (u, sizeof u, "%g", s->value);
        td (b, u);
        td (b, s->unit);
        td (b, s->source);
        td (b, s->date);
        gp_rb_printf (b, "</tr>\n");
    }
    gp_rb_printf (b, "</tbody></table>\n");
}

/* The script that records, after layout, the marks each chart drew. */
static void render_check (struct rbuf *b)
{
    gp_rb_printf (
        b,
        "<script>\n(function () {\n"
        "  var out = [];\n"
        "  var svgs = document.querySelectorAll('svg[data-chart]');\n"
        "  for (var i = 0; i < svgs.length; i++) {\n"
        "    var s = svgs[i], marks = s.querySelectorAll('.mark');\n"
        "    var drawn = 0;\n"
        "    for (var j = 0; j < marks.length; j++) {\n"
        "      var bb = marks[j].getBBox();\n"
        "      if (bb.width > 0 || bb.height > 0) drawn++;\n"
        "    }\n"
        "    var r = s.getBoundingClientRect();\n"
        "    var shown = function (sel) {\n"
        "      var e = s.querySelectorAll(sel), n = 0;\n"
        "      for (var k = 0; k < e.length; k++)\n"
        "        if (e[k].getBBox().width > 0 && e[k].textContent) n++;\n"
        "      return n;\n"
        "    };\n"
        "    var lg = s.querySelectorAll('g.legend rect'), cols = {};\n"
        "    for (var k = 0; k < lg.length; k++)\n"
        "      cols[lg[k].getAttribute('fill')] = 1;\n"
        "    out.push(s.getAttribute('data-chart') + ':' + drawn + "
        "':' + Math.round(r.width) + 'x' + Math.round(r.height) + "
        "':' + shown('.xtick') + ':' + shown('.ytick') + ':' + lg.length + "
        "':' + Object.keys(cols).length);\n"
        "  }\n"
        "  document.body.setAttribute('data-render-check', "
        "out.join(' '));\n"
        "  var h2 = document.querySelector('h2');\n"
        "  document.body.setAttribute('data-first-section', "
        "h2 ? h2.textContent : '');\n"
        "})();\n</script>\n</body></html>\n");
}

/* The summary, the options and the main run's curve, from the section
 * functions the text and Markdown reports use.
 */
static void overview (struct rbuf *b, const struct gp_plan_result *r)
{
    struct rout out;
    if (gp_rout_init (&out, b, ROUT_HTML) != 0)
        return;
    gp_report_exec_summary (&out, r);
    gp_report_options (&out, r);
    gp_report_availability (&out, r);
    gp_rout_fini (&out);
}

static void curve_section (struct rbuf *b, const struct gp_plan_result *r)
{
    if (!r->curve.n)
        return;
    chart_curve (b, r);
    struct rout out;
    if (gp_rout_init (&out, b, ROUT_HTML) != 0)
        return;
    gp_report_curve (&out, r);
    gp_rout_fini (&out);
}

void gp_report_html (struct rbuf *b, const struct gp_plan_result *r)
{
    page_head (b, r);
    overview (b, r);
    gp_rb_printf (b, "<h2>Charts</h2>\n");
    chart_cost_time (b, r);
    chart_breakdown (b, r);
    chart_utilization (b, r);
    if (r->recommended >= 0)
        chart_tornado (b, r);
    if (r->ranges && r->ranges->options)
        chart_ranges (b, r);
    curve_section (b, r);
    details (b, r);
    assumptions_tables (b, r);
    render_check (b);
}
