/* test_plan_existing.c - a plan that starts from today's cluster:
 * 'existing: {cluster, usage}' takes the owned fleet from a cluster
 * spec's pools and the baseline from observed usage, worked out by hand
 * below (docs/formats/plan.md, "Today's cluster from files").
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

#include "gpuplan/plan.h"

static int near (double a, double b)
{
    return fabs (a - b) <= 1e-9 * fabs (b) + 1e-6;
}
#define NEAR(a, b) assert_true (near ((a), (b)))

#include "plan_fixture.h"

/* The spec of test_plan_burst.c (one year, storage and checkpoint bursts
 * off, a trace of two 8-GPU jobs all year: 16 GPUs), with 'existing'
 * as given and one burst option.
 */
static char *spec_of (const char *existing)
{
    static char buf[4096];
    snprintf (buf, sizeof buf,
              "name: today\n"
              "horizon: 1y\n"
              "teams:\n"
              "  - {name: a}\n"
              "workloads:\n"
              "  - {name: ft, kind: recurring, team: a, model: llama3-8b,\n"
              "     trace: cli/specs/plan-flat16.csv}\n"
              "assumptions:\n"
              "  storage_usd_per_tb: 0\n"
              "  object_usd_per_tb: 0\n"
              "  checkpoint_write_s: 0\n"
              "existing: {%s}\n"
              "options:\n"
              "  - {name: burst, kind: burst, instance: p5.48xlarge,\n"
              "     region: us-east-1, pricing: [on_demand]}\n",
              existing);
    return buf;
}

/* tests/usage/plan-cluster.yaml: pools h100 (2 x 8 H100-SXM) and a100
 * (1 x 8); existing.accelerator H100-SXM keeps the h100 pool: 16 owned.
 * tests/usage/plan-usage.txt over 2026-01-01 .. 2026-01-11 = 240 h:
 *   a  4 GPUs x 240 h on h100                       = 960 -> 4 GPUs
 *   b  4 GPUs x 120 h on h100                       = 480 -> 2 GPUs
 *      8 GPUs x 240 h on a100: not the fleet          (left out)
 *   c  3 GPUs, running from 2026-01-06 to existing.until 2026-01-11,
 *      no partition (assumed on the fleet)          = 360 -> 1.5 GPUs
 * 1,800 GPU-hours on the fleet, 7.5 GPUs on average, rounded up to one
 * 8-GPU node: baseline 8.  So the plan is test_plan_burst.c's
 * 'gpus: 16, age_years: 1, baseline: 8': owned servers charged 67,500,
 * the 8 GPUs above the 8 free ones rented: 8 x 6.88 x 8760 = 482,150.40.
 */
static void test_cluster_and_usage (void **state)
{
    (void)state;
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, spec_of ("cluster: usage/plan-cluster.yaml, "
                           "accelerator: H100-SXM, age_years: 1,\n"
                           "  usage: usage/plan-usage.txt, "
                           "until: '2026-01-11T00:00:00'"),
              &err)
        != 0)
        fail_msg ("%s", err.text);
    const struct gp_plan_existing *e = &f.spec->existing;
    assert_string_equal (e->accel_id, "H100-SXM");
    assert_int_equal (e->gpus, 16);
    NEAR (e->usage_hours, 240);
    NEAR (e->usage_gpu_hours, 1800);
    assert_int_equal (e->n_usage_teams, 3);
    assert_string_equal (e->usage_teams[0].team, "a");
    NEAR (e->usage_teams[0].mean_gpus, 4);
    NEAR (e->usage_teams[1].mean_gpus, 2);
    NEAR (e->usage_teams[2].mean_gpus, 1.5);
    NEAR (e->baseline, 7.5);
    assert_int_equal (e->baseline_gpus, 8);
    const struct gp_plan_option *o = find (f.res, "burst/on_demand");
    assert_int_equal (o->cost.code, 0);
    NEAR (o->onprem.owned_charged, 67500);
    NEAR (o->onprem.burst_usd, 482150.40);
    double tco = o->tco_usd;
    unload (&f);
    /* the same plan written by hand */
    if (load (&f, spec_of ("accelerator: H100-SXM, gpus: 16, age_years: 1, "
                           "baseline: 8"),
              &err)
        != 0)
        fail_msg ("%s", err.text);
    NEAR (find (f.res, "burst/on_demand")->tco_usd, tco);
    unload (&f);
    /* usage without a cluster spec: the fleet written by hand (32 H100),
     * every hour of the file counts: a 4, b 2 + 8 (its A100 hours too),
     * c 1.5 = 15.5 GPUs, two nodes: baseline 16.
     */
    if (load (&f, spec_of ("accelerator: H100-SXM, gpus: 32, "
                           "usage: usage/plan-usage.txt, "
                           "until: '2026-01-11T00:00:00'"),
              &err)
        != 0)
        fail_msg ("%s", err.text);
    NEAR (f.spec->existing.usage_gpu_hours, 3720);
    NEAR (f.spec->existing.usage_teams[1].mean_gpus, 10);
    assert_int_equal (f.spec->existing.baseline_gpus, 16);
    unload (&f);
    /* a cluster spec alone: the fleet, no baseline */
    if (load (&f, spec_of ("cluster: usage/plan-cluster.yaml, "
                           "accelerator: H100-SXM, baseline: 0.5"),
              &err)
        != 0)
        fail_msg ("%s", err.text);
    assert_int_equal (f.spec->existing.gpus, 16);
    assert_int_equal (f.spec->existing.baseline_gpus, 8);
    unload (&f);
}

static void expect_error (const char *existing, const char *want)
{
    struct fx f;
    gp_error_t err = {0};
    int rc = load (&f, spec_of (existing), &err);
    unload (&f);
    assert_int_equal (rc, -1);
    if (!strstr (err.text, want))
        fail_msg ("%s (want '%s')", err.text, want);
    assert_int_equal (gp_err_exit_status (err.code), 2);
}

static void test_errors (void **state)
{
    (void)state;
    expect_error ("cluster: usage/plan-cluster.yaml",
                  "existing.cluster: pools of H100-SXM and A100-SXM-80GB");
    expect_error ("cluster: usage/plan-cluster.yaml, accelerator: H100-SXM, "
                  "gpus: 8",
                  "existing.gpus: the fleet comes from existing.cluster");
    expect_error ("cluster: usage/plan-cluster.yaml, accelerator: B200",
                  "existing.accelerator: cluster 'today' has no pool of "
                  "B200");
    expect_error ("usage: usage/plan-usage.txt, until: "
                  "'2026-01-11T00:00:00'",
                  "existing.cluster: give existing.cluster, or accelerator "
                  "and gpus");
    expect_error ("cluster: usage/plan-cluster.yaml, accelerator: H100-SXM, "
                  "usage: usage/plan-usage.txt",
                  "give --until (the end of its usage) (existing.until");
    expect_error ("cluster: usage/plan-cluster.yaml, accelerator: H100-SXM, "
                  "usage: usage/plan-usage.txt, until: "
                  "'2026-01-11T00:00:00', baseline: 0.5",
                  "existing.baseline: the baseline comes from "
                  "existing.usage");
    expect_error ("cluster: usage/missing.yaml, accelerator: H100-SXM",
                  "existing.cluster: usage/missing.yaml");
    /* all of b's usage on a100 only, an A100 fleet of 8: 8 x 240 h on
     * a100 = 8 GPUs on average, b's h100 hours left out; a and c: a on
     * h100 (out), c unassigned (in): 8 + 1.5 = 9.5 > 8 owned.
     */
    expect_error ("cluster: usage/plan-cluster.yaml, "
                  "accelerator: A100-SXM-80GB, usage: usage/plan-usage.txt, "
                  "until: '2026-01-11T00:00:00'",
                  "9.5 GPUs in use on average, more than the 8 owned");
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_cluster_and_usage),
        cmocka_unit_test (test_errors),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
