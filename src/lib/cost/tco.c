/* tco.c - on-prem capex/opex and TCO, cloud pricing models, the spot
 * interruption overhead, cost per GPU-hour and build-vs-buy break-even.
 *
 * On-prem capex is charged as what the horizon consumes of it: the
 * purchases (the first buy and the refreshes every depreciation life) less
 * the straight-line book value left at the horizon's end, both at present
 * value under the discount rate; opex flows evenly and is discounted the
 * same way.  Undiscounted, a horizon shorter than the life carries the
 * depreciated share and a longer one pays for refreshes pro rata.  Support
 * and staff are documented shares of hardware capex per year; space is
 * charged per kW of IT per month.
 * Formulas and sources: docs/model/cost.md.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gpuplan/cost.h"

static const char *const pricing_names[GP_N_PRICING] = {
    "on_demand", "reserved_1y", "reserved_3y", "spot", "mix", "capacity_block",
};

const char *gp_pricing_str (enum gp_pricing p)
{
    if ((unsigned)p < GP_N_PRICING)
        return pricing_names[p];
    return "?";
}

int gp_pricing_parse (const char *s, enum gp_pricing *out, gp_error_t *err)
{
    for (int i = 0; s && i < GP_N_PRICING; i++) {
        if (strcasecmp (s, pricing_names[i]) == 0) {
            *out = (enum gp_pricing)i;
            return 0;
        }
    }
    return gp_errprintf (err, GP_EINVAL,
                         "unknown pricing model '%s' (on_demand, reserved_1y, "
                         "reserved_3y, spot, mix, capacity_block)",
                         s ? s : "");
}

static int bad (double v)
{
    return !(v >= 0) || !isfinite (v);
}

/* Capex charged, residual value and opex charged over the horizon into
 * 'c' (c->capex and c->opex_year set).  Undiscounted, the closed forms
 * capex x H / D and opex x H are used as they are.
 */
/* Present value of 1 USD a year flowing evenly from year a to year b. */
static double flow_pv (double a, double b, double r)
{
    if (!(b > a))
        return 0;
    if (!(r > 0))
        return b - a;
    return (pow (1 + r, -a) - pow (1 + r, -b)) / log1p (r);
}

static void onprem_horizon (const struct gp_onprem_in *in,
                            struct gp_onprem_cost *c)
{
    double H = in->horizon_years, D = in->depreciation_years;
    double r = in->discount_rate, s0 = in->delivery_years;
    double life = H - s0;       /* the bought hardware's time in service */
    c->discount_rate = r;
    c->delivery_years = s0;
    if (!(life > 0)) {
        /* nothing bought arrives within the horizon */
        c->purchases = 0;
        c->residual_usd = c->residual_pv = c->capex_charged = 0;
        c->opex_charged = c->opex_year * in->owned_gpu_share
                          * flow_pv (0, H, r);
        return;
    }
    int n = (int)ceil (life / D - 1e-9);
    if (n < 1)
        n = 1;
    /* book value of the last purchase (made at s0 + (n-1) D) at H */
    double age = life - (n - 1) * D;
    c->residual_usd = age < D ? c->capex * (1 - age / D) : 0;
    c->purchases = n;
    if (!(r > 0) && !(s0 > 0)) {
        c->residual_pv = c->residual_usd;
        c->capex_charged = c->capex * H / D;
        c->opex_charged = c->opex_year * H;
        return;
    }
    double buys = 0;
    for (int k = 0; k < n; k++)
        buys += c->capex * pow (1 + r, -(s0 + k * D));
    c->residual_pv = c->residual_usd * pow (1 + r, -H);
    c->capex_charged = buys - c->residual_pv;
    double own = in->owned_gpu_share;
    c->opex_charged = c->opex_year * (own * flow_pv (0, H, r)
                                      + (1 - own) * flow_pv (s0, H, r));
}

/* Straight-line book value left of 1 USD of hardware at 'age' years. */
static double book_share (double age, double life)
{
    return age < life ? 1 - age / life : 0;
}

/* Owned servers: the book value the horizon consumes, added to
 * c->capex_charged.
 */
static void onprem_owned (const struct gp_onprem_in *in,
                          struct gp_onprem_cost *c)
{
    double v = in->owned_servers_usd, D = in->depreciation_years;
    if (!(v > 0))
        return;
    double a = in->owned_age_years, H = in->horizon_years;
    double disc = in->discount_rate > 0 ? pow (1 + in->discount_rate, -H)
                                        : 1;
    c->owned_book_usd = v * book_share (a, D);
    c->owned_charged = c->owned_book_usd - v * book_share (a + H, D) * disc;
    c->capex_charged += c->owned_charged;
}

int gp_onprem_cost (const struct gp_onprem_in *in,
                    struct gp_onprem_cost *out,
                    gp_error_t *err)
{
    if (!in || !out)
        return gp_errprintf (err, GP_EINVAL, "on-prem cost: missing argument");
    if (bad (in->capex_servers) || bad (in->capex_network)
        || bad (in->capex_storage) || bad (in->capex_facility)
        || !(in->depreciation_years > 0) || !(in->horizon_years > 0)
        || bad (in->energy_usd_year) || bad (in->support_share)
        || bad (in->space_usd_kw_month) || bad (in->it_kw)
        || bad (in->staff_share) || in->n_gpus < 1
        || bad (in->discount_rate) || !(in->discount_rate < 1)
        || bad (in->owned_servers_usd) || bad (in->owned_age_years)
        || bad (in->delivery_years) || bad (in->owned_gpu_share)
        || in->owned_gpu_share > 1)
        return gp_errprintf (err, GP_EINVAL,
                             "on-prem cost: amounts must be >= 0, "
                             "depreciation and horizon > 0, discount rate "
                             "in [0, 1), GPUs >= 1");
    struct gp_onprem_cost c = {0};
    double bought = in->capex_servers + in->capex_network
                    + in->capex_storage;
    double hw = bought + in->owned_servers_usd;
    c.capex = bought + in->capex_facility;
    c.depreciation_year = c.capex / in->depreciation_years;
    c.power_year = in->energy_usd_year;
    c.support_year = in->support_share * hw;
    c.staff_year = in->staff_share * hw;
    c.space_year = in->space_usd_kw_month * in->it_kw * 12;
    c.opex_year = c.power_year + c.support_year + c.space_year + c.staff_year;
    onprem_horizon (in, &c);
    onprem_owned (in, &c);
    c.tco = c.capex_charged + c.opex_charged;
    c.gpu_hours = (double)in->n_gpus * GP_HOURS_PER_YEAR * in->horizon_years;
    if (in->delivery_years > 0) {
        double late = fmin (in->delivery_years, in->horizon_years);
        c.gpu_hours -= (double)in->n_gpus * (1 - in->owned_gpu_share)
                       * GP_HOURS_PER_YEAR * late;
    }
    c.usd_per_gpu_hour = c.gpu_hours > 0 ? c.tco / c.gpu_hours : 0;
    *out = c;
    return 0;
}

double gp_spot_overhead (double rate_per_node_hour,
                         double nodes,
                         double ckpt_interval_s,
                         double restart_s)
{
    if (!(rate_per_node_hour > 0) || !(nodes > 0))
        return 0;
    double lost_h = (ckpt_interval_s / 2 + restart_s) / 3600;
    return rate_per_node_hour * nodes * lost_h;
}

double gp_effective_price (double price, double overhead)
{
    if (overhead >= 1)
        return INFINITY;
    return price / (1 - overhead);
}

double gp_cost_per_gpu_hour (double cost_year, long long n_gpus, double util)
{
    if (!(cost_year > 0) || n_gpus < 1 || !(util > 0))
        return 0;
    return cost_year / ((double)n_gpus * GP_HOURS_PER_YEAR * util);
}

double gp_breakeven_util (double cost_year,
                          long long n_gpus,
                          double cloud_usd_gpu_hour)
{
    if (!(cost_year > 0) || n_gpus < 1 || !(cloud_usd_gpu_hour > 0))
        return 0;
    return cost_year / ((double)n_gpus * GP_HOURS_PER_YEAR
                        * cloud_usd_gpu_hour);
}

const char *gp_fmt_usd (double v, char *buf, size_t n)
{
    if (!buf || n == 0)
        return buf;
    if (!isfinite (v))
        snprintf (buf, n, "-");
    else if (fabs (v) >= 1e9)
        snprintf (buf, n, "$%.2fB", v / 1e9);
    else if (fabs (v) >= 1e6)
        snprintf (buf, n, "$%.2fM", v / 1e6);
    else if (fabs (v) >= 1e5)
        snprintf (buf, n, "$%.0fk", v / 1e3);
    else if (fabs (v) >= 1e4)
        snprintf (buf, n, "$%.1fk", v / 1e3);
    else if (fabs (v) >= 1e3)
        snprintf (buf, n, "$%.2fk", v / 1e3);
    else
        snprintf (buf, n, "$%.0f", v);
    return buf;
}
