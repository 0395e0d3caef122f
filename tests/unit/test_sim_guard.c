/* test_sim_guard.c - a simulation always ends: fine series intervals are
 * coarsened to at most GP_SIM_SERIES_MAX points, node failures that leave
 * a job no progress are refused, absurd durations are out of range, and
 * the event cap ends a run with an error naming the cause.  Each test
 * arms alarm(): a regression that loops fails instead of hanging.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "gpuplan/policy.h"
#include "gpuplan/sim.h"
#include "gpuplan/trace.h"

#define GUARD_S 120 /* generous for sanitizer builds; runs take < 1 s */

static struct gp_pool pool1;
static struct gp_cluster clus;

static void mkcluster (int gpn, int nodes)
{
    memset (&pool1, 0, sizeof pool1);
    memset (&clus, 0, sizeof clus);
    snprintf (pool1.name, sizeof pool1.name, "p");
    pool1.gpus_per_node = gpn;
    pool1.nodes = nodes;
    pool1.scale_up_domain = gpn;
    snprintf (clus.name, sizeof clus.name, "t");
    clus.pools = &pool1;
    clus.n_pools = 1;
    clus.spine_oversub = 1;
}

static void add (struct gp_jobset *js, double submit, double dur, int gpus)
{
    struct gp_job j;
    memset (&j, 0, sizeof j);
    j.id = (int64_t)js->n_jobs;
    j.line = (unsigned)js->n_jobs + 2;
    j.submit_s = submit;
    j.duration_s = dur;
    j.n_gpus = gpus;
    j.gpu_milli = 1000;
    j.pool = -1;
    j.team = gp_jobset_team (js, "t");
    assert_int_equal (gp_jobset_add (js, &j), 0);
}

/* One 4-GPU job of 10^6 s sampled every 0.1 s: 10^7 buckets would be
 * needed; the series is coarsened by 2^7 to 12.8 s (78,125 points, the
 * first power of two under 100,000), and it still integrates to the
 * 4 x 10^6 GPU-s the job held.  Before, a 0.1 s interval never ended.
 */
static void test_fine_interval_coarsened (void **state)
{
    (void)state;
    alarm (GUARD_S);
    mkcluster (8, 1);
    struct gp_jobset *js = gp_jobset_create ();
    add (js, 0, 1e6, 4);
    add (js, 0.3, 0.7, 1); /* boundaries at rounded multiples of 0.1 */
    struct gp_sim_config cfg;
    gp_sim_config_init (&cfg);
    cfg.cluster = &clus;
    cfg.policy = &gp_policy_fifo;
    cfg.sample_interval_s = 0.1;
    gp_error_t err = {0};
    struct gp_sim *s = gp_sim_create (&cfg, js, &err);
    assert_non_null (s);
    assert_int_equal (gp_sim_run (s, &err), 0);
    size_t n = 0;
    const struct gp_sim_sample *x = gp_sim_get_series (s, &n);
    double iv = gp_sim_series_interval (s);
    assert_true (fabs (iv - 12.8) < 1e-9);
    assert_int_equal (n, 78125);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i].alloc_gpus * iv;
    assert_true (fabs (sum - (4e6 + 0.7)) < 1e-3);
    assert_true (fabs (x[1].t_s - 12.8) < 1e-9);
    gp_sim_destroy (s);
    gp_jobset_destroy (js);
    alarm (0);
}

/* Node MTBF 60 s, restart cost 600 s, checkpoints every hour: a 1-GPU
 * job needs 4,200 s without a failure, e^70 attempts on average.  Before,
 * the run never ended; now it is refused naming the job.
 */
static void test_mtbf_no_progress (void **state)
{
    (void)state;
    alarm (GUARD_S);
    mkcluster (8, 4);
    struct gp_jobset *js = gp_jobset_create ();
    add (js, 0, 100, 8);
    add (js, 10, 7200, 1);
    struct gp_sim_config cfg;
    gp_sim_config_init (&cfg);
    cfg.cluster = &clus;
    cfg.policy = &gp_policy_fifo_backfill;
    cfg.node_mtbf_s = 60;
    cfg.restart_cost_s = 600;
    cfg.ckpt_interval_s = 3600;
    gp_error_t err = {0};
    struct gp_sim *s = gp_sim_create (&cfg, js, &err);
    assert_non_null (s);
    assert_int_equal (gp_sim_run (s, &err), GP_EINVAL);
    assert_non_null (strstr (err.text, "cannot make progress"));
    /* job 0: 600 + 100 s of work on one node: e^11.7 > 1000 */
    assert_non_null (strstr (err.text, "job 0 (line 2)"));
    assert_non_null (strstr (err.text, "MTBF of 60 s"));
    gp_sim_destroy (s);
    gp_jobset_destroy (js);
    alarm (0);
}

/* Restart cost 1e300 s (and NaN) are out of the documented range. */
static void test_duration_ranges (void **state)
{
    (void)state;
    alarm (GUARD_S);
    mkcluster (8, 1);
    struct gp_jobset *js = gp_jobset_create ();
    add (js, 0, 10, 1);
    struct gp_sim_config cfg;
    gp_sim_config_init (&cfg);
    cfg.cluster = &clus;
    cfg.restart_cost_s = 1e300;
    gp_error_t err = {0};
    assert_null (gp_sim_create (&cfg, js, &err));
    assert_int_equal (err.code, GP_ERANGE);
    assert_non_null (strstr (err.text, "restart_cost_s"));
    gp_sim_config_init (&cfg);
    cfg.cluster = &clus;
    cfg.node_mtbf_s = NAN;
    assert_null (gp_sim_create (&cfg, js, &err));
    assert_non_null (strstr (err.text, "node_mtbf_s"));
    gp_jobset_destroy (js);
    alarm (0);
}

/* One node failing every 600 s on average (repair 1 s), checkpoints every
 * 60 s, no restart cost: progress is fine (e^0.1 attempts) but a job of
 * 10^6 s sees ~1,700 failures and as many repairs.  A cap of 500 events
 * ends the run with GP_ERANGE naming node failures.
 */
static void test_event_cap (void **state)
{
    (void)state;
    alarm (GUARD_S);
    mkcluster (8, 1);
    struct gp_jobset *js = gp_jobset_create ();
    add (js, 0, 1e6, 8);
    struct gp_sim_config cfg;
    gp_sim_config_init (&cfg);
    cfg.cluster = &clus;
    cfg.node_mtbf_s = 600;
    cfg.node_repair_s = 1;
    cfg.restart_cost_s = 0;
    cfg.ckpt_interval_s = 60;
    cfg.max_events = 500;
    gp_error_t err = {0};
    struct gp_sim *s = gp_sim_create (&cfg, js, &err);
    assert_non_null (s);
    assert_int_equal (gp_sim_run (s, &err), GP_ERANGE);
    assert_non_null (strstr (err.text, "event cap (500 events)"));
    assert_non_null (strstr (err.text, "most events were node failures"));
    assert_non_null (strstr (err.text, "1 jobs unfinished"));
    gp_sim_destroy (s);
    /* the same run without a cap ends normally */
    cfg.max_events = 0;
    s = gp_sim_create (&cfg, js, &err);
    assert_non_null (s);
    assert_int_equal (gp_sim_run (s, &err), 0);
    assert_true (gp_sim_get_metrics (s)->n_failures > 1000);
    assert_int_equal (gp_sim_get_metrics (s)->n_done, 1);
    gp_sim_destroy (s);
    gp_jobset_destroy (js);
    alarm (0);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_fine_interval_coarsened),
        cmocka_unit_test (test_mtbf_no_progress),
        cmocka_unit_test (test_duration_ranges),
        cmocka_unit_test (test_event_cap),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
