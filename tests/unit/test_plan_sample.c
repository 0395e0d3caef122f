/* test_plan_sample.c - ranges from sampled assumptions (gp_plan_sample,
 * docs/model/uncertainty.md): determinism for a seed, seeds that differ,
 * ordered percentiles, percentiles checked against the distribution's
 * quantiles by hand on a plan whose TCO is linear in one factor, the
 * win share of a dominating option, bad arguments; and the
 * distribution table of the defaults registry.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpuplan/defaults.h"
#include "plan_fixture.h"

#define N_SAMPLES 20   /* tests use at most 20 (docs/model/uncertainty.md) */

/* A cloud fleet of fixed size under on-demand pricing only, every
 * uncertain row but plan.cloud_price_scale overridden (so taken as
 * known): TCO = a + b x the cloud price factor.  'scale' is "" or an
 * extra assumption line.
 */
static char *linear_spec (const char *scale)
{
    static char buf[2048];
    snprintf (buf, sizeof buf,
              "name: lin\n"
              "horizon: 1y\n"
              "workloads:\n"
              "  - name: ft\n"
              "    kind: recurring\n"
              "    model: llama3-8b\n"
              "    tokens: 1B\n"
              "    runs_per_month: 2\n"
              "options:\n"
              "  - name: aws\n"
              "    kind: cloud\n"
              "    instance: p5.48xlarge\n"
              "    pricing: [on_demand]\n"
              "    gpus: 64\n"
              "assumptions:\n"
              "  train_efficiency_scale: 1\n"
              "  capex_scale: 1\n"
              "  power_price_scale: 1\n"
              "  demand_scale: 1\n"
              "  traffic_scale: 1\n"
              "  growth_scale: 1\n"
              "  reserved_1y_discount: 0.3\n"
              "  reserved_3y_discount: 0.5\n"
              "  spot_interruptions_per_node_month: 0.2\n"
              "  fail_per_gpu_hour: 2e-5\n"
              "  restart_s: 600\n"
              "  node_repair_h: 48\n"
              "  delivery_lead_time_months: 0\n"
              "%s",
              scale);
    return buf;
}

/* Two on-prem builds that differ only in node capex: the cheaper one wins
 * every sample (every factor moves both alike).
 */
static const char dominated[] =
    "name: dom\n"
    "horizon: 1y\n"
    "workloads:\n"
    "  - name: ft\n"
    "    kind: recurring\n"
    "    model: llama3-8b\n"
    "    tokens: 1B\n"
    "    runs_per_month: 2\n"
    "options:\n"
    "  - name: cheap\n"
    "    kind: onprem\n"
    "    accelerator: H100-SXM\n"
    "    gpus: 64\n"
    "    node_capex: 300000\n"
    "  - name: dear\n"
    "    kind: onprem\n"
    "    accelerator: H100-SXM\n"
    "    gpus: 64\n"
    "    node_capex: 600000\n";

static double tco_with (const char *scale_line)
{
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, linear_spec (scale_line), &err) != 0)
        fail_msg ("%s", err.text);
    assert_int_equal (f.res->recommended, 0);
    double t = f.res->options[0].tco_usd;
    unload (&f);
    return t;
}

/* P10/P50/P90 of a + b x exp(0.23 z), the registry's lognormal for
 * plan.cloud_price_scale, from 20 samples of a centred Latin hypercube:
 * the sorted draws sit at probabilities (k + 0.5) / 20, and Hazen's
 * percentile at q is midway between the 2q*10-th and the next: P10
 * between probabilities 0.075 and 0.125, P50 between 0.475 and 0.525,
 * P90 between 0.875 and 0.925.  z from a normal table:
 * z(0.075) = -1.439531, z(0.125) = -1.150349, z(0.475) = -0.062707.
 */
static void test_linear_percentiles (void **state)
{
    (void)state;
    double t1 = tco_with (""), t2 = tco_with ("  cloud_price_scale: 2\n");
    double t3 = tco_with ("  cloud_price_scale: 3\n");
    double b = t2 - t1, a = t1 - b;
    assert_true (b > 0);
    assert_true (fabs ((t3 - t2) - b) < 1e-6 * t3);    /* linear */
    const double s = 0.23;
    double f10 = (exp (s * -1.439531) + exp (s * -1.150349)) / 2;
    double f50 = (exp (s * -0.062707) + exp (s * 0.062707)) / 2;
    double f90 = (exp (s * 1.150349) + exp (s * 1.439531)) / 2;
    struct fx f;
    gp_error_t err = {0};
    assert_int_equal (load (&f, linear_spec (""), &err), 0);
    assert_int_equal (gp_plan_sample (f.spec, f.cat, f.res, N_SAMPLES, 3,
                                      &err), 0);
    const struct gp_plan_option_range *x = &f.res->ranges->options[0];
    assert_int_equal (x->n_ok, N_SAMPLES);
    assert_true (fabs (x->tco_usd.p10 - (a + b * f10)) < 1e-6 * t1);
    assert_true (fabs (x->tco_usd.p50 - (a + b * f50)) < 1e-6 * t1);
    assert_true (fabs (x->tco_usd.p90 - (a + b * f90)) < 1e-6 * t1);
    assert_true (x->gpus.p10 == 64 && x->gpus.p90 == 64);
    /* one option: it is the cheapest in every sample */
    assert_true (f.res->ranges->win_share == 1.0);
    assert_int_equal (f.res->ranges->n_flips, 0);
    /* the tornado: one row, the cloud price at its P10 and P90 */
    assert_int_equal (f.res->n_sens, 1);
    assert_string_equal (f.res->sens[0].param, "plan.cloud_price_scale");
    assert_true (fabs (f.res->sens[0].high_delta - exp (s * 1.281552))
                 < 1e-6);
    assert_true (fabs (f.res->sens[0].tco_high - (a + b * exp (s * 1.281552)))
                 < 1e-6 * t1);
    unload (&f);
}

static void sample_dom (unsigned long long seed, struct gp_plan_ranges *out,
                        struct gp_plan_option_range opts[2])
{
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, dominated, &err) != 0)
        fail_msg ("%s", err.text);
    assert_int_equal (f.res->n_options, 2);
    assert_string_equal (f.res->options[f.res->recommended].name, "cheap");
    if (gp_plan_sample (f.spec, f.cat, f.res, N_SAMPLES, seed, &err) != 0)
        fail_msg ("%s", err.text);
    *out = *f.res->ranges;
    memcpy (opts, f.res->ranges->options, 2 * sizeof *opts);
    out->options = NULL;
    unload (&f);
}

static void test_dominated_win_share (void **state)
{
    (void)state;
    struct gp_plan_ranges r;
    struct gp_plan_option_range o[2];
    sample_dom (1, &r, o);
    assert_true (r.win_share == 1.0);
    assert_int_equal (r.n_flips, 0);
    assert_int_equal (o[0].n_cheapest, N_SAMPLES);
    assert_int_equal (o[1].n_cheapest, 0);
    for (int i = 0; i < 2; i++) {
        assert_int_equal (o[i].n_ok, N_SAMPLES);
        assert_true (o[i].tco_usd.p10 <= o[i].tco_usd.p50);
        assert_true (o[i].tco_usd.p50 <= o[i].tco_usd.p90);
        assert_true (o[i].tco_usd.p10 < o[i].tco_usd.p90);  /* a spread */
        assert_true (o[i].usd_per_gpu_hour.p10 <= o[i].usd_per_gpu_hour.p90);
    }
    assert_true (o[0].tco_usd.p90 < o[1].tco_usd.p90);
}

static void test_deterministic_seed (void **state)
{
    (void)state;
    struct gp_plan_ranges a, b, c;
    struct gp_plan_option_range oa[2], ob[2], oc[2];
    sample_dom (42, &a, oa);
    sample_dom (42, &b, ob);
    sample_dom (43, &c, oc);
    assert_memory_equal (oa, ob, sizeof oa);
    assert_true (a.win_share == b.win_share && a.seed == 42);
    /* another seed pairs the draws differently: the TCO quantiles move */
    assert_true (oa[0].tco_usd.p10 != oc[0].tco_usd.p10
                 || oa[0].tco_usd.p50 != oc[0].tco_usd.p50
                 || oa[0].tco_usd.p90 != oc[0].tco_usd.p90);
}

static void test_bad_arguments (void **state)
{
    (void)state;
    struct fx f;
    gp_error_t err = {0};
    assert_int_equal (load (&f, dominated, &err), 0);
    assert_int_equal (gp_plan_sample (f.spec, f.cat, f.res, 0, 1, &err),
                      GP_EINVAL);
    assert_non_null (strstr (err.text, "0 samples outside [1, 10000]"));
    assert_int_equal (gp_plan_sample (f.spec, f.cat, f.res,
                                      GP_PLAN_MAX_SAMPLES + 1, 1, &err),
                      GP_EINVAL);
    assert_int_equal (gp_plan_sample (NULL, f.cat, f.res, 5, 1, &err),
                      GP_EINVAL);
    assert_int_equal (gp_plan_sample (f.spec, f.cat, NULL, 5, 1, &err),
                      GP_EINVAL);
    assert_null (f.res->ranges);            /* unchanged on failure */
    /* a result of another spec */
    struct fx g;
    assert_int_equal (load (&g, linear_spec (""), &err), 0);
    assert_int_equal (gp_plan_sample (f.spec, f.cat, g.res, 5, 1, &err),
                      GP_EINVAL);
    assert_null (g.res->ranges);
    unload (&g);
    unload (&f);
}

/* Every distribution names a registry row, and the quantile functions
 * give the textbook values: standard normal z(0.975) = 1.959964,
 * triangular medians and ends, uniform.
 */
static void test_distribution_table (void **state)
{
    (void)state;
    gp_error_t err = {0};
    assert_true (gp_default_dists_count () >= 8);
    for (size_t i = 0; i < gp_default_dists_count (); i++) {
        const struct gp_default_dist *d = gp_default_dist_at (i);
        int id = gp_default_lookup (d->key, &err);
        assert_true (id >= 0);
        assert_ptr_equal (gp_default_dist ((enum gp_default_id)id), d);
        assert_true (strlen (d->source) > 20);
        double lo = gp_default_dist_quantile (d, 0.01);
        double hi = gp_default_dist_quantile (d, 0.99);
        assert_true (lo > 0 && lo < hi);
    }
    assert_null (gp_default_dist_at (gp_default_dists_count ()));
    struct gp_default_dist n = {"x", GP_DIST_NORMAL, 0.1, 0, 0, "t"};
    assert_true (fabs (gp_default_dist_quantile (&n, 0.975) - 1.1959964)
                 < 1e-6);
    struct gp_default_dist l = {"x", GP_DIST_LOGNORMAL, 0.5, 0, 0, "t"};
    assert_true (fabs (gp_default_dist_quantile (&l, 0.5) - 1) < 1e-12);
    assert_true (fabs (gp_default_dist_quantile (&l, 0.005)
                       - exp (-0.5 * 2.575829)) < 1e-6);
    /* triangular 0/1/2: CDF at the mode is 1/2; P(x < 0.5) = 1/8 */
    struct gp_default_dist t = {"x", GP_DIST_TRIANGULAR, 0, 1, 2, "t"};
    assert_true (fabs (gp_default_dist_quantile (&t, 0.5) - 1) < 1e-12);
    assert_true (fabs (gp_default_dist_quantile (&t, 0.125) - 0.5) < 1e-12);
    assert_true (fabs (gp_default_dist_quantile (&t, 0.875) - 1.5) < 1e-12);
    struct gp_default_dist u = {"x", GP_DIST_UNIFORM, 0.5, 2, 0, "t"};
    assert_true (fabs (gp_default_dist_quantile (&u, 0.5) - 1.25) < 1e-12);
    assert_true (isnan (gp_default_dist_quantile (&u, 0)));
    assert_true (isnan (gp_default_dist_quantile (NULL, 0.5)));
    char buf[64];
    assert_string_equal (gp_default_dist_str (&t, buf, sizeof buf),
                         "triangular 0/1/2");
    assert_null (gp_default_dist (GP_DEF_TRAIN_BATCH_TOKENS));
}

/* The five scale rows are read by the unsampled plan too: overriding
 * one changes what it scales (docs/model/uncertainty.md).
 */
static const char sized_fmt[] =
    "name: sized\n"
    "horizon: 1y\n"
    "workloads:\n"
    "  - name: pre\n"
    "    kind: training\n"
    "    model: llama3-8b\n"
    "    tokens: 1T\n"
    "    deadline: 30d\n"
    "options:\n"
    "  - name: onprem\n"
    "    kind: onprem\n"
    "    accelerator: H100-SXM\n"
    "  - name: aws\n"
    "    kind: cloud\n"
    "    instance: p5.48xlarge\n"
    "    pricing: [on_demand]\n"
    "%s";

static void sized_run (const char *assume, struct gp_plan_option out[2])
{
    char text[1024];
    snprintf (text, sizeof text, sized_fmt, assume);
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, text, &err) != 0)
        fail_msg ("%s", err.text);
    assert_int_equal (f.res->n_options, 2);
    memcpy (out, f.res->options, 2 * sizeof *out);
    unload (&f);
}

static void test_scale_rows_in_force (void **state)
{
    (void)state;
    static struct gp_plan_option base[2], x[2];
    sized_run ("", base);
    assert_true (base[0].gpus > 0 && base[0].complete);
    sized_run ("assumptions:\n  capex_scale: 1.5\n", x);
    assert_true (fabs (x[0].capex_servers - 1.5 * base[0].capex_servers)
                 < 1e-6 * base[0].capex_servers);
    assert_true (x[1].tco_usd == base[1].tco_usd);      /* cloud: no capex */
    sized_run ("assumptions:\n  cloud_price_scale: 2\n", x);
    assert_true (x[0].capex_servers == base[0].capex_servers);
    assert_true (x[1].cloud_compute_usd > 1.9 * base[1].cloud_compute_usd);
    sized_run ("assumptions:\n  power_price_scale: 2\n", x);
    assert_true (x[0].tco_usd > base[0].tco_usd);
    assert_true (x[1].tco_usd == base[1].tco_usd);
    sized_run ("assumptions:\n  demand_scale: 2\n", x);
    assert_true (x[0].gpus > base[0].gpus);
    sized_run ("assumptions:\n  train_efficiency_scale: 0.5\n", x);
    assert_true (x[0].gpus > base[0].gpus);
}

/* A portfolio whose only demand is one inference service (growth 20 %
 * a quarter) on one cloud option; 'assume' is "" or an assumptions:
 * block.
 */
static const char one_service_fmt[] =
    "name: svc\n"
    "horizon: 1y\n"
    "workloads:\n"
    "  - name: chat\n"
    "    kind: inference\n"
    "    model: llama3-8b\n"
    "    requests_per_s: 40\n"
    "    input_tokens: 1000\n"
    "    output_tokens: 200\n"
    "    growth_per_quarter: 0.2\n"
    "    ttft: 1s\n"
    "    tpot: 80ms\n"
    "options:\n"
    "  - name: aws\n"
    "    kind: cloud\n"
    "    instance: p5.48xlarge\n"
    "    pricing: [on_demand]\n"
    "%s";

static void one_service (const char *assume, struct gp_plan_option *out)
{
    char text[1024];
    snprintf (text, sizeof text, one_service_fmt, assume);
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, text, &err) != 0)
        fail_msg ("%s", err.text);
    assert_int_equal (f.res->n_options, 1);
    memcpy (out, f.res->options, sizeof *out);
    unload (&f);
}

/* GPUs of the service in month t by hand: replicas = max(1, ceil(rate /
 * replica rate)), rate = 40 x 1.2^(t/3) x ((1 + 0.2 f_g)/1.2)^(t/3) x f_t.
 */
static double svc_gpus_by_hand (const struct gp_plan_option *o, size_t t,
                                double ft, double fg)
{
    double rate = 40 * pow (1.2, t / 3.0) * pow ((1 + 0.2 * fg) / 1.2,
                                                 t / 3.0) * ft;
    double reps = ceil (rate / o->wl[0].replica_rps - 1e-9);
    if (reps < 1)
        reps = 1;
    return reps * o->wl[0].gpus_per_replica;
}

static void test_traffic_growth_rows (void **state)
{
    (void)state;
    static struct gp_plan_option base, x;
    one_service ("", &base);
    assert_true (base.wl[0].replica_rps > 0);
    assert_true (base.wl[0].gpus_per_replica >= 1);
    for (size_t t = 0; t < base.n_periods; t++)
        assert_true (base.demand_gpus[t] == svc_gpus_by_hand (&base, t, 1, 1));
    /* traffic x2: twice the rate, replicas rounded up from it */
    one_service ("assumptions:\n  traffic_scale: 2\n", &x);
    assert_true (x.wl[0].replica_rps == base.wl[0].replica_rps);
    for (size_t t = 0; t < x.n_periods; t++)
        assert_true (x.demand_gpus[t] == svc_gpus_by_hand (&base, t, 2, 1));
    assert_true (x.demand_gpus[0] > base.demand_gpus[0]);
    /* growth x0: month 0 as before, later months at month 0's rate */
    one_service ("assumptions:\n  growth_scale: 0\n", &x);
    assert_true (x.demand_gpus[0] == base.demand_gpus[0]);
    for (size_t t = 0; t < x.n_periods; t++) {
        assert_true (x.demand_gpus[t] == svc_gpus_by_hand (&base, t, 1, 0));
        assert_true (x.demand_gpus[t] == base.demand_gpus[0]);
    }
    assert_true (base.demand_gpus[11] > base.demand_gpus[0]);
}

/* Both rows are drawn when the spec leaves them alone, and not when it
 * sets them.
 */
static void drawn_gpus (const char *assume, struct gp_plan_pct *out)
{
    char text[1024];
    snprintf (text, sizeof text, one_service_fmt, assume);
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, text, &err) != 0)
        fail_msg ("%s", err.text);
    assert_int_equal (gp_plan_sample (f.spec, f.cat, f.res, N_SAMPLES, 7,
                                      &err), 0);
    assert_non_null (f.res->ranges);
    *out = f.res->ranges->options[0].gpus;
    unload (&f);
}

/* With demand_scale known, the GPUs spread only through the traffic and
 * growth draws; with both set too they do not spread.
 */
static void test_traffic_growth_drawn (void **state)
{
    (void)state;
    struct gp_plan_pct g;
    drawn_gpus ("assumptions:\n  demand_scale: 1\n", &g);
    assert_true (g.p10 < g.p90);
    drawn_gpus ("assumptions:\n  demand_scale: 1\n  traffic_scale: 1\n"
                "  growth_scale: 1\n", &g);
    assert_true (g.p10 == g.p90);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_linear_percentiles),
        cmocka_unit_test (test_dominated_win_share),
        cmocka_unit_test (test_deterministic_seed),
        cmocka_unit_test (test_bad_arguments),
        cmocka_unit_test (test_distribution_table),
        cmocka_unit_test (test_scale_rows_in_force),
        cmocka_unit_test (test_traffic_growth_rows),
        cmocka_unit_test (test_traffic_growth_drawn),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
