/* usage_text.c - the chargeback table of 'gpuplan usage': one row per
 * team (GPU-hours, mean GPUs, hours by pool, utilization, cost), the
 * rates and their sources, and what was counted.  Renderers never
 * compute: every figure comes from struct gp_usage.
 */
#include <stdio.h>
#include <string.h>

#include "gpuplan/cost.h"
#include "gpuplan/usage.h"
#include "report_private.h"

static const char *pools_cell (const struct gp_usage_team *t, char *b,
                               size_t n)
{
    size_t k = 0;
    b[0] = '\0';
    for (size_t i = 0; i < t->n_pools && k < n; i++)
        k += (size_t)snprintf (b + k, n - k, "%s%s %.2f", i ? ", " : "",
                               t->pools[i].pool, t->pools[i].gpu_hours);
    return b;
}

char *gp_report_usage_text (const struct gp_usage *u, gp_error_t *err)
{
    if (!u) {
        gp_errprintf (err, GP_EINVAL, "usage report: no result");
        return NULL;
    }
    struct rbuf b = {0};
    gp_rb_printf (&b, "GPU usage from %s (%s), %.1f hours\n\n", u->input,
                  gp_usage_format_str (u->format),
                  (u->end_s - u->start_s) / 3600);
    const char *h[] = {"TEAM", "GPU-HOURS", "MEAN GPUS", "UTIL",
                       "COST (USD)", "BY POOL"};
    struct gp__ttab *t = gp__ttab_create (6, h);
    for (size_t i = 0; i < u->n_teams; i++) {
        const struct gp_usage_team *tm = &u->teams[i];
        char c[5][48], pools[512];
        snprintf (c[0], 48, "%.2f", tm->gpu_hours);
        snprintf (c[1], 48, "%.2f", gp_usage_team_mean_gpus (u, i));
        if (tm->utilization >= 0)
            snprintf (c[2], 48, "%.0f%%", 100 * tm->utilization);
        else
            snprintf (c[2], 48, "-");
        if (tm->cost_usd >= 0)
            gp_fmt_usd (tm->cost_usd, c[3], 48);
        else
            snprintf (c[3], 48, "-");
        const char *row[] = {tm->team, c[0], c[1], c[2], c[3],
                             pools_cell (tm, pools, sizeof pools)};
        gp__ttab_add (t, row);
    }
    char tot[2][48];
    snprintf (tot[0], 48, "%.2f", u->gpu_hours);
    if (u->cost_usd >= 0)
        gp_fmt_usd (u->cost_usd, tot[1], 48);
    else
        snprintf (tot[1], 48, "-");
    const char *row[] = {"total", tot[0], "", "", tot[1], ""};
    gp__ttab_add (t, row);
    if (gp__ttab_write (t, &b) != 0)
        b.failed = 1;
    gp_rb_printf (&b, "\nRates per GPU-hour:\n");
    for (size_t i = 0; i < u->n_rates; i++) {
        const struct gp_usage_rate *r = &u->rates[i];
        if (r->usd_per_gpu_hour >= 0)
            gp_rb_printf (&b, "  %s: $%.4g (%s: %s)\n", r->pool,
                          r->usd_per_gpu_hour, r->basis, r->source);
        else
            gp_rb_printf (&b, "  %s: none (%s); its cost is unknown\n",
                          r->pool, r->source);
    }
    gp_rb_printf (&b, "\nCounted %zu (%zu ended at --until); 0 GPU-hours: "
                  "%zu never started, %zu without GPUs.\n",
                  u->n_counted, u->n_running, u->n_pending, u->n_no_gpu);
    if (u->format == GP_USAGE_PROMETHEUS)
        gp_rb_printf (&b, "Step %.0f s; idle GPUs (no team label): %.1f "
                      "GPU-hours.\n",
                      u->step_s, u->idle_gpu_hours);
    return gp_rb_take (&b, err);
}
