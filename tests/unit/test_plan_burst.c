/* test_plan_burst.c - the cloud burst option and existing.baseline on
 * small specs whose figures are worked out by hand below
 * (docs/model/cost.md, "Cloud burst" and "An existing fleet").
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/arch.h"
#include "gpuplan/plan.h"

static int near (double a, double b)
{
    return fabs (a - b) <= 1e-9 * fabs (b) + 1e-6;
}
#define NEAR(a, b) assert_true (near ((a), (b)))

#include "plan_fixture.h"

/* One year; storage priced at 0 and checkpoint bursts off, as in
 * test_plan.c, so that only the cost arithmetic is under test.  The
 * workload is a trace of three 8-GPU jobs for 8760 h
 * (tests/cli/specs/plan-flat24.csv): 24 GPUs every month.
 */
static char *spec_of (const char *trace, const char *existing,
                      const char *assume, const char *options)
{
    static char buf[4096];
    snprintf (buf, sizeof buf,
              "name: burst\n"
              "horizon: 1y\n"
              "teams:\n"
              "  - {name: a}\n"
              "workloads:\n"
              "  - {name: ft, kind: recurring, team: a, model: llama3-8b,\n"
              "     trace: cli/specs/%s}\n"
              "assumptions:\n"
              "  storage_usd_per_tb: 0\n"
              "  object_usd_per_tb: 0\n"
              "  checkpoint_write_s: 0\n"
              "%s"
              "existing: {%s}\n"
              "options:\n"
              "%s",
              trace, assume, existing, options);
    return buf;
}

static const char burst_opt[] =
    "  - {name: burst, kind: burst, instance: p5.48xlarge,\n"
    "     region: us-east-1, pricing: [on_demand]}\n";

/* 16 owned H100 (2 DGX, $540,000 new) one year old; demand 24 GPUs for
 * 12 months.  The owned fleet is the test_plan.c build: network $77,000
 * bought, charged 77,000 / 4 = 19,250 for the year; the owned servers'
 * book value falls from 540,000 x (1 - 1/4) = 405,000 to 540,000 x (1 -
 * 2/4) = 270,000: 135,000 charged; opex as for a new 16-GPU build,
 * 148,605.05 (support and staff on all 617,000 of hardware).  Owned part
 * 19,250 + 135,000 + 148,605.05 = 302,855.05.  The 8 GPUs above the
 * owned 16 are one p5.48xlarge rented on demand every month at $55.04 /
 * 8 = $6.88 per GPU-hour: 8 x 6.88 x 730 x 12 = 482,150.40.  TCO
 * 785,005.45 over 16 x 8760 + 8 x 8760 = 210,240 provisioned GPU-hours.
 */
static void test_burst_by_hand (void **state)
{
    (void)state;
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, spec_of ("plan-flat24.csv",
                           "accelerator: H100-SXM, gpus: 16, age_years: 1",
                           "", burst_opt),
              &err)
        != 0)
        fail_msg ("%s", err.text);
    const struct gp_plan_option *o = find (f.res, "burst/on_demand");
    assert_int_equal (o->kind, GP_OPT_BURST);
    assert_int_equal (o->cost.code, 0);
    assert_int_equal (o->gpus, 24);
    assert_int_equal (o->nodes, 3);
    NEAR (o->onprem.owned_charged, 135000);
    NEAR (o->onprem.burst_usd, 482150.40);
    NEAR (o->onprem.burst_gpu_hours, 8 * 8760.0);
    NEAR (o->on_demand_usd, 482150.40);
    NEAR (o->cloud_storage_usd, 0);
    assert_true (fabs (o->tco_usd - 785005.45) < 0.01);
    NEAR (o->provisioned_gpu_hours, 210240);
    NEAR (o->cum_cost[o->n_periods - 1], o->tco_usd);
    assert_true (o->feasible);
    unload (&f);

    /* At 8 %/yr the rent of month t is discounted from mid-month. */
    if (load (&f, spec_of ("plan-flat24.csv",
                           "accelerator: H100-SXM, gpus: 16, age_years: 1",
                           "  discount_rate: 0.08\n", burst_opt),
              &err)
        != 0)
        fail_msg ("%s", err.text);
    o = find (f.res, "burst/on_demand");
    double pv = 0;
    for (int t = 0; t < 12; t++)
        pv += 8 * 6.88 * 730 * pow (1.08, -(t + 0.5) / 12);
    NEAR (o->onprem.burst_usd, pv);
    /* owned servers at 8 %: 405,000 - 270,000 / 1.08 */
    assert_true (fabs (o->onprem.owned_charged - (405000 - 270000 / 1.08))
                 < 0.01);
    unload (&f);
}

/* existing.baseline: half of 16 owned GPUs (one node) serve work outside
 * the portfolio, so the portfolio has 8 owned and rents the 8 above them
 * for its 16-GPU demand (tests/cli/specs/plan-flat16.csv): the same
 * figures as 8 owned GPUs without a baseline (a second method), the
 * rent 8 x 6.88 x 8760 = 482,150.40 and the owned servers 270,000 x
 * (0.75 - 0.5) = 67,500.  The baseline as a count (8) is the same.
 */
static void test_baseline (void **state)
{
    (void)state;
    const char *ex[] = {"accelerator: H100-SXM, gpus: 8, age_years: 1",
                        "accelerator: H100-SXM, gpus: 16, age_years: 1, "
                        "baseline: 0.5",
                        "accelerator: H100-SXM, gpus: 16, age_years: 1, "
                        "baseline: 8"};
    double tco[3];
    for (int k = 0; k < 3; k++) {
        struct fx f;
        gp_error_t err = {0};
        if (load (&f, spec_of ("plan-flat16.csv", ex[k], "", burst_opt),
                  &err)
            != 0)
            fail_msg ("%s", err.text);
        const struct gp_plan_option *o = find (f.res, "burst/on_demand");
        assert_int_equal (o->cost.code, 0);
        assert_int_equal (o->gpus, 16);
        NEAR (o->onprem.owned_charged, 67500);
        NEAR (o->onprem.burst_usd, 482150.40);
        assert_int_equal (f.spec->existing.baseline_gpus, k ? 8 : 0);
        tco[k] = o->tco_usd;
        unload (&f);
    }
    NEAR (tco[1], tco[0]);
    NEAR (tco[2], tco[0]);
}

/* The baseline in an expansion: 16 H100 owned 3.5 years, 8 held by other
 * work, and an onprem build of 16: 8 owned, 8 bought.  The figures of
 * test_plan.c's 8 owned GPUs: TCO 86,750 + 33,750 + 148,605.05 =
 * 269,105.05 (bought 347,000 / 4; owned 270,000 x (1 - 3.5/4)).  'expand'
 * is the same option under its own keyword.
 */
static void test_expand_baseline (void **state)
{
    (void)state;
    const char *kinds[] = {"onprem, accelerator: H100-SXM", "expand"};
    for (int k = 0; k < 2; k++) {
        char opt[256];
        snprintf (opt, sizeof opt,
                  "  - {name: h100, kind: %s, gpus: 16}\n", kinds[k]);
        struct fx f;
        gp_error_t err = {0};
        if (load (&f, spec_of ("plan-flat16.csv",
                               "accelerator: H100-SXM, gpus: 16, "
                               "age_years: 3.5, baseline: 0.5",
                               "", opt),
                  &err)
            != 0)
            fail_msg ("%s", err.text);
        const struct gp_plan_option *o = find (f.res, "h100");
        assert_int_equal (o->kind, GP_OPT_ONPREM);
        NEAR (o->capex_servers, 270000);
        NEAR (o->onprem.owned_charged, 33750);
        assert_true (fabs (o->tco_usd - 269105.05) < 0.01);
        unload (&f);
    }
}

static void expect_error (const char *spec, int code, const char *want)
{
    struct fx f;
    gp_error_t err = {0};
    int rc = load (&f, spec, &err);
    unload (&f);
    assert_int_equal (rc, -1);
    if (err.code != code || !strstr (err.text, want))
        fail_msg ("code %d (want %d): %s (want '%s')", err.code, code,
                  err.text, want);
}

/* Obtainable capacity bounds the rented part (max_gpus 4 < 8 rented);
 * spot is refused for deadline work; loader errors.
 */
static void test_burst_limits (void **state)
{
    (void)state;
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, spec_of ("plan-flat24.csv",
                           "accelerator: H100-SXM, gpus: 16",
                           "",
                           "  - {name: burst, kind: burst, instance: "
                           "p5.48xlarge,\n     region: us-east-1, "
                           "max_gpus: 4, pricing: [on_demand]}\n"),
              &err)
        != 0)
        fail_msg ("%s", err.text);
    const struct gp_plan_option *o = find (f.res, "burst/on_demand");
    assert_int_equal (o->cost.code, GP_EINFEASIBLE);
    assert_false (o->feasible);
    unload (&f);
    static const char train[] =
        "name: t\nhorizon: 1y\n"
        "workloads:\n"
        "  - {name: pre, kind: training, model: llama3-8b, tokens: 1T,\n"
        "     deadline: 30d}\n"
        "existing: {accelerator: H100-SXM, gpus: 8}\n"
        "options:\n"
        "  - {name: b, kind: burst, instance: p5.48xlarge,\n"
        "     region: us-east-1, pricing: [spot]}\n";
    if (load (&f, train, &err) != 0)
        fail_msg ("%s", err.text);
    o = find (f.res, "b/spot");
    assert_int_equal (o->cost.code, GP_EINFEASIBLE);
    assert_non_null (strstr (o->cost.text, "tolerates preemption"));
    unload (&f);
    expect_error (spec_of ("plan-flat16.csv",
                           "accelerator: H100-SXM, gpus: 16, baseline: 17",
                           "", burst_opt),
                  GP_EPARSE, "existing.baseline");
    expect_error (spec_of ("plan-flat16.csv",
                           "accelerator: H100-SXM, gpus: 16, baseline: 2.5",
                           "", burst_opt),
                  GP_EPARSE, "existing.baseline");
    expect_error (spec_of ("plan-flat16.csv",
                           "accelerator: A100-SXM-80GB, gpus: 16", "",
                           burst_opt),
                  GP_EPARSE, "existing fleet");
    expect_error (spec_of ("plan-flat16.csv",
                           "accelerator: H100-SXM, gpus: 16", "",
                           "  - {name: b, kind: burst, instance: "
                           "p5.48xlarge, gpus: 8}\n"),
                  GP_EPARSE, "options[0].gpus");
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_burst_by_hand),
        cmocka_unit_test (test_baseline),
        cmocka_unit_test (test_expand_baseline),
        cmocka_unit_test (test_burst_limits),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
