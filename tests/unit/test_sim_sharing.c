/* test_sim_sharing.c - per-pool quotas and GPU sharing in the simulator:
 * the cluster spec keys (gpu_sharing, mig, quota maps and their limits),
 * the GPU-seconds balance with fractional GPUs, and bad configurations.
 * Expected values are worked out by hand in the comments; full schedules
 * live in tests/scenarios/ (fair-share-pool-*, gpu-sharing, mig-slices).
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

#include "gpuplan/catalog.h"
#include "gpuplan/cluster.h"
#include "gpuplan/policy.h"
#include "gpuplan/sim.h"
#include "gpuplan/spec.h"
#include "gpuplan/trace.h"

static struct gp_catalog *cat;

static int setup (void **state)
{
    gp_error_t err = {0};
    (void)state;
    cat = gp_catalog_load (NULL, &err);
    return cat ? 0 : -1;
}

static int teardown (void **state)
{
    (void)state;
    gp_catalog_destroy (cat);
    return 0;
}

/* Load a spec from text; NULL with 'err' on failure. */
static struct gp_cluster *spec (const char *text, gp_error_t *err)
{
    struct gp_doc *d = gp_doc_parse (text, strlen (text), "c.yaml", err);
    if (!d)
        return NULL;
    struct gp_cluster *c = gp_cluster_from_doc (d, cat, err);
    gp_doc_destroy (d);
    return c;
}

static void spec_fails (const char *text, const char *want)
{
    gp_error_t err = {0};
    struct gp_cluster *c = spec (text, &err);
    if (c) {
        gp_cluster_destroy (c);
        fail_msg ("spec accepted, expected '%s'", want);
    }
    if (!strstr (err.text, want))
        fail_msg ("error '%s' lacks '%s'", err.text, want);
}

static void test_spec_keys (void **state)
{
    gp_error_t err = {0};
    (void)state;
    /* MIG profiles resolve against the catalog and sort by slices. */
    struct gp_cluster *c = spec (
        "name: m\npools:\n"
        "  - {name: p, accelerator: A100-SXM-80GB, gpus_per_node: 8,\n"
        "     nodes: 1, mig: [3g.40gb, 1g.10gb, 2g.20gb]}\n"
        "  - {name: s, accelerator: L40S, gpus_per_node: 4, nodes: 1,\n"
        "     gpu_sharing: true}\n",
        &err);
    if (!c)
        fail_msg ("%s", err.text);
    assert_int_equal (c->pools[0].n_mig, 3);
    assert_string_equal (c->pools[0].mig[0], "1g.10gb");
    assert_string_equal (c->pools[0].mig[1], "2g.20gb");
    assert_string_equal (c->pools[0].mig[2], "3g.40gb");
    assert_int_equal (c->pools[0].mig_slices[0], 1);
    assert_int_equal (c->pools[0].mig_slices[2], 3);
    assert_int_equal (c->pools[0].gpu_sharing, 0);
    assert_int_equal (c->pools[1].gpu_sharing, 1);
    assert_int_equal (c->pools[1].n_mig, 0);
    gp_cluster_destroy (c);

    spec_fails ("name: m\npools:\n"
                "  - {name: p, accelerator: A100-SXM-80GB, gpus_per_node: 8,"
                " nodes: 1, mig: [5g.40gb]}\n",
                "c.yaml:3:");
    spec_fails ("name: m\npools:\n"
                "  - {name: p, accelerator: A100-SXM-80GB, gpus_per_node: 8,"
                " nodes: 1, mig: [5g.40gb]}\n",
                "known: 1g.10gb");
    spec_fails ("name: m\npools:\n"
                "  - {name: p, accelerator: L40S, gpus_per_node: 8,"
                " nodes: 1, mig: [1g.10gb]}\n",
                "no MIG profiles");
    spec_fails ("name: m\npools:\n"
                "  - {name: p, accelerator: H100-SXM, gpus_per_node: 8,"
                " nodes: 1, gpu_sharing: true, mig: [1g.10gb]}\n",
                "not both");
    spec_fails ("name: m\npools:\n"
                "  - {name: p, accelerator: H100-SXM, gpus_per_node: 8,"
                " nodes: 1, mig: []}\n",
                "expected a list");
    spec_fails ("name: m\npools:\n"
                "  - {name: p, accelerator: H100-SXM, gpus_per_node: 8,"
                " nodes: 1, mig: [1g.10gb, 1g.10gb]}\n",
                "listed twice");
    spec_fails ("name: m\npools:\n"
                "  - {name: p, accelerator: H100-SXM, gpus_per_node: 8,"
                " nodes: 1, mig: [7]}\n",
                "not a string");
    spec_fails ("name: m\npools:\n"
                "  - {name: p, accelerator: H100-SXM, gpus_per_node: 8,"
                " nodes: 1, gpu_sharing: 3}\n",
                "gpu_sharing");
}

static void test_pool_limits (void **state)
{
    gp_error_t err = {0};
    long long nom[3], bor[3], len[3];
    (void)state;
    struct gp_cluster *c = spec (
        "name: q\npools:\n"
        "  - {name: a, accelerator: H100-SXM, gpus_per_node: 8, nodes: 4}\n"
        "  - {name: b, accelerator: A100-SXM-80GB, gpus_per_node: 8,"
        " nodes: 4}\n"
        "  - {name: c, accelerator: L40S, gpus_per_node: 4, nodes: 2}\n"
        "teams:\n"
        "  - {name: x, quota: {a: 16, b: 8}, borrowing_limit: 5,"
        " lending_limit: 7}\n"
        "  - {name: y, quota: 12}\n"
        "  - {name: z, quota: {a: 0}, borrowing_limit: 6}\n",
        &err);
    if (!c)
        fail_msg ("%s", err.text);
    /* x: nominal 16, 8, 0 (c not named).  Borrowing 5 in proportion
     * 16:8:0 = 3.33, 1.67, 0 -> floors 3, 1, 0, the remaining 1 to the
     * largest remainder (b, .67): 3, 2, 0.  Lending 7: 4.67, 2.33, 0 ->
     * 4, 2, 0 + 1 to a (.67): 5, 2, 0, within the nominal quotas.
     */
    assert_int_equal (gp_cluster_team_pool_limits (c, 0, nom, bor, len), 1);
    assert_int_equal (nom[0], 16);
    assert_int_equal (nom[1], 8);
    assert_int_equal (nom[2], 0);
    assert_int_equal (bor[0], 3);
    assert_int_equal (bor[1], 2);
    assert_int_equal (bor[2], 0);
    assert_int_equal (len[0], 5);
    assert_int_equal (len[1], 2);
    assert_int_equal (len[2], 0);
    /* y: a total quota, no per-pool view. */
    assert_int_equal (gp_cluster_team_pool_limits (c, 1, nom, bor, len), 0);
    /* z: nominal all 0, so borrowing splits by pool size 32:32:8 of 72:
     * 2.67, 2.67, 0.67 -> 2, 2, 0 + 2 by largest remainder (a, then b;
     * ties go to the first pool): 3, 3, 0.  No lending limit.
     */
    assert_int_equal (gp_cluster_team_pool_limits (c, 2, nom, bor, len), 1);
    assert_int_equal (nom[0], 0);
    assert_int_equal (bor[0], 3);
    assert_int_equal (bor[1], 3);
    assert_int_equal (bor[2], 0);
    assert_int_equal (len[0], -1);
    gp_cluster_destroy (c);
}

static struct gp_sim *simulate (const char *cluster_text,
                                const char *policy,
                                struct gp_jobset *js,
                                struct gp_cluster **cl, gp_error_t *err)
{
    *cl = spec (cluster_text, err);
    if (!*cl)
        fail_msg ("%s", err->text);
    struct gp_sim_config cfg;
    gp_sim_config_init (&cfg);
    cfg.cluster = *cl;
    cfg.policy = gp_policy_find (policy, err);
    cfg.restart_cost_s = 0;
    cfg.ckpt_interval_s = 0;
    return gp_sim_create (&cfg, js, err);
}

static void add (struct gp_jobset *js, double submit, double dur, int gpus,
                 int milli, const char *team)
{
    struct gp_job j;
    memset (&j, 0, sizeof j);
    j.id = (int64_t)js->n_jobs + 1;
    j.submit_s = submit;
    j.duration_s = dur;
    j.n_gpus = gpus;
    j.gpu_milli = milli;
    j.pool = -1;
    j.team = gp_jobset_team (js, team);
    assert_int_equal (gp_jobset_add (js, &j), 0);
}

/* Shares add up exactly: 1 node x 2 GPUs shared; 1/3 GPU-share jobs
 * (333 milli) three to a GPU.  Six jobs of 333 milli, 10 s each, at 0:
 * all run at once on the two GPUs (3 x 333 = 999 <= 1000 each);
 * allocated = 6 x 0.333 x 10 = 19.98 GPU-s, utilization 19.98 / 20.
 * A 7th job waits for a share to end: 10-20, adding 3.33 GPU-s.
 */
static void test_sharing_balance (void **state)
{
    gp_error_t err = {0};
    struct gp_cluster *cl;
    (void)state;
    struct gp_jobset *js = gp_jobset_create ();
    assert_non_null (js);
    for (int i = 0; i < 7; i++)
        add (js, 0, 10, 1, 333, "t");
    struct gp_sim *s = simulate (
        "name: s\npools:\n"
        "  - {name: p, accelerator: L40S, gpus_per_node: 2, nodes: 1,"
        " gpu_sharing: true}\n",
        "fifo", js, &cl, &err);
    if (!s)
        fail_msg ("%s", err.text);
    assert_int_equal (gp_sim_run (s, &err), 0);
    const struct gp_sim_metrics *m = gp_sim_get_metrics (s);
    const struct gp_job_result *r = gp_sim_get_results (s, NULL);
    for (int i = 0; i < 6; i++)
        assert_true (r[i].first_start_s == 0);
    assert_true (r[6].first_start_s == 10 && r[6].end_s == 20);
    assert_true (fabs (m->alloc_gpu_s - 23.31) < 1e-9);
    assert_true (fabs (m->useful_gpu_s - 23.31) < 1e-9);
    assert_true (fabs (m->utilization - 23.31 / 40) < 1e-12);
    assert_true (m->conservation_ok);
    /* The team held 6 x 0.333 = 1.998 GPUs at its peak. */
    assert_true (fabs (m->teams[0].max_dominant_share - 1.998 / 2) < 1e-12);
    gp_sim_destroy (s);
    gp_cluster_destroy (cl);

    /* Without gpu_sharing every job holds a whole GPU: two at a time,
     * 0-10, 0-10, 10-20, 10-20, 20-30, 20-30, 30-40; 70 GPU-s.
     */
    s = simulate ("name: s\npools:\n"
                  "  - {name: p, accelerator: L40S, gpus_per_node: 2,"
                  " nodes: 1}\n",
                  "fifo", js, &cl, &err);
    if (!s)
        fail_msg ("%s", err.text);
    assert_int_equal (gp_sim_run (s, &err), 0);
    m = gp_sim_get_metrics (s);
    assert_true (fabs (m->alloc_gpu_s - 70) < 1e-9);
    assert_true (gp_sim_get_results (s, NULL)[6].end_s == 40);
    gp_sim_destroy (s);
    gp_cluster_destroy (cl);
    gp_jobset_destroy (js);
}

/* A fractional job charges its share against a per-pool quota: team x
 * has 1 GPU of pool p; four 250-milli jobs fit its quota at once (1.0),
 * a fifth waits (no cohort to borrow from) until one ends at 10.
 */
static void test_fractional_quota (void **state)
{
    gp_error_t err = {0};
    struct gp_cluster *cl;
    (void)state;
    struct gp_jobset *js = gp_jobset_create ();
    assert_non_null (js);
    for (int i = 0; i < 5; i++)
        add (js, 0, 10, 1, 250, "x");
    struct gp_sim *s = simulate (
        "name: s\npools:\n"
        "  - {name: p, accelerator: L40S, gpus_per_node: 4, nodes: 1,"
        " gpu_sharing: true}\n"
        "teams:\n  - {name: x, quota: {p: 1}}\n",
        "fair-share", js, &cl, &err);
    if (!s)
        fail_msg ("%s", err.text);
    assert_int_equal (gp_sim_run (s, &err), 0);
    const struct gp_job_result *r = gp_sim_get_results (s, NULL);
    for (int i = 0; i < 4; i++)
        assert_true (r[i].first_start_s == 0);
    assert_true (r[4].first_start_s == 10);
    assert_true (gp_sim_get_metrics (s)->conservation_ok);
    gp_sim_destroy (s);
    gp_cluster_destroy (cl);
    gp_jobset_destroy (js);
}

/* A cohort that mixes per-pool and total quotas on a multi-pool cluster
 * has no single meaning: the simulator refuses it.
 */
static void test_mixed_cohort (void **state)
{
    gp_error_t err = {0};
    struct gp_cluster *cl;
    (void)state;
    struct gp_jobset *js = gp_jobset_create ();
    assert_non_null (js);
    add (js, 0, 10, 1, 1000, "x");
    struct gp_sim *s = simulate (
        "name: s\npools:\n"
        "  - {name: a, accelerator: L40S, gpus_per_node: 4, nodes: 1}\n"
        "  - {name: b, accelerator: L4, gpus_per_node: 4, nodes: 1}\n"
        "teams:\n  - {name: x, quota: {a: 2}, cohort: c}\n"
        "  - {name: y, quota: 2, cohort: c}\n",
        "fair-share", js, &cl, &err);
    assert_null (s);
    assert_int_equal (err.code, GP_EINVAL);
    assert_non_null (strstr (err.text, "mixes per-pool quotas"));
    gp_cluster_destroy (cl);
    gp_jobset_destroy (js);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_spec_keys),
        cmocka_unit_test (test_pool_limits),
        cmocka_unit_test (test_sharing_balance),
        cmocka_unit_test (test_fractional_quota),
        cmocka_unit_test (test_mixed_cohort),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
