/* sim_chart.c - a self-contained SVG of a simulation's time series: two
 * panels over time, GPU utilization (%) and mean queue length, one point
 * per time-series bucket.
 */
#include <stdio.h>

#include "gpuplan/sim.h"
#include "report_private.h"

static void panel (struct rbuf *f, const struct gp_sim_report *r, int queue,
                   double qmax, double tmax)
{
    const double W = 800, H = 200, L = 60, T = 30, G = 40;
    double y0 = T + queue * (H + G);
    double vmax = queue ? qmax : 100;
    gp_rb_printf (f,
             "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" "
             "fill=\"none\" stroke=\"#888\"/>\n"
             "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%.4g</text>\n"
             "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">0</text>\n"
             "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n",
             L, y0, W, H, L - 4, y0 + 10, vmax, L - 4, y0 + H, L + 4,
             y0 + 14,
             queue ? "mean queue length (jobs)" : "GPU utilization (%)");
    gp_rb_printf (f, "<polyline fill=\"none\" stroke=\"%s\" points=\"",
             queue ? "#c0392b" : "#2471a3");
    for (size_t i = 0; i < r->n_series; i++) {
        const struct gp_sim_sample *x = &r->series[i];
        double v = queue ? x->queue_len : 100 * x->util;
        gp_rb_printf (f, "%.1f,%.1f ", L + W * x->t_s / tmax,
                 y0 + H - H * v / vmax);
    }
    gp_rb_printf (f, "\"/>\n");
}

char *gp_report_sim_chart_svg (const struct gp_sim_report *r,
                               gp_error_t *err)
{
    const double W = 800, H = 200, L = 60, T = 30, G = 40;
    const struct gp_sim_sample *x = r->series;
    size_t n = r->n_series;
    char title[200];
    snprintf (title, sizeof title, "%s: %s, %s placement", r->cluster,
              r->policy, gp_placement_str (r->placement));
    struct rbuf sb = {0}, *f = &sb;
    double qmax = 1, tmax = n ? x[n - 1].t_s : 1;
    for (size_t i = 0; i < n; i++)
        if (x[i].queue_len > qmax)
            qmax = x[i].queue_len;
    if (tmax <= 0)
        tmax = 1;
    gp_rb_printf (f,
             "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
             "height=\"%.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
             "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
             "<text x=\"%.0f\" y=\"18\" font-size=\"14\">",
             W + L + 20, 2 * H + T + 2 * G, L);
    for (const char *c = title; *c; c++) {
        if (*c == '<')
            gp_rb_printf (f, "%s", "&lt;");
        else if (*c == '&')
            gp_rb_printf (f, "%s", "&amp;");
        else
            gp_rb_printf (f, "%c", *c);
    }
    gp_rb_printf (f, "</text>\n");
    panel (f, r, 0, qmax, tmax);
    panel (f, r, 1, qmax, tmax);
    gp_rb_printf (f,
             "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%.4g days</text>\n"
             "</svg>\n",
             L + W, 2 * H + T + G + 16, tmax / 86400);
    return gp_rb_take (f, err);
}
