/* test_sim_index.c - the indexed pending sets (rank index for backfill,
 * ordered tree for LAS/SRTF, fair-share's reclaim precheck) give the same
 * schedule as the plain scans (cfg.plain_scan), job by job, for every
 * policy: on deep synthetic queues (with and without node failures, with
 * team quotas for fair-share) and on the Philly sample in the repository.
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

#include "gpuplan/catalog.h"
#include "gpuplan/cluster.h"
#include "gpuplan/policy.h"
#include "gpuplan/sim.h"
#include "gpuplan/spec.h"
#include "gpuplan/trace.h"

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
    pool1.nodes_per_rack = 2;
    snprintf (clus.name, sizeof clus.name, "t");
    clus.pools = &pool1;
    clus.n_pools = 1;
    clus.spine_oversub = 1;
}

/* Run 'js' twice, plain and indexed, and compare every job's outcome. */
static void same_schedule (const struct gp_cluster *cl,
                           const struct gp_jobset *js,
                           const struct gp_policy_ops *pol, double mtbf)
{
    struct gp_sim *s[2];
    gp_error_t err = {0};
    for (int k = 0; k < 2; k++) {
        struct gp_sim_config cfg;
        gp_sim_config_init (&cfg);
        cfg.cluster = cl;
        cfg.policy = pol;
        cfg.seed = 7;
        cfg.node_mtbf_s = mtbf;
        cfg.node_repair_s = 3600;
        cfg.plain_scan = k == 0;
        s[k] = gp_sim_create (&cfg, js, &err);
        if (!s[k] || gp_sim_run (s[k], &err))
            fail_msg ("%s: %s", pol->name, err.text);
    }
    size_t n = 0;
    const struct gp_job_result *a = gp_sim_get_results (s[0], &n);
    const struct gp_job_result *b = gp_sim_get_results (s[1], NULL);
    for (size_t i = 0; i < n; i++)
        if (a[i].first_start_s != b[i].first_start_s
            || a[i].end_s != b[i].end_s || a[i].n_preempt != b[i].n_preempt
            || a[i].n_failed != b[i].n_failed
            || a[i].queued_s != b[i].queued_s)
            fail_msg ("%s: job %zu: plain start %.17g end %.17g preempt %d, "
                      "indexed start %.17g end %.17g preempt %d",
                      pol->name, i, a[i].first_start_s, a[i].end_s,
                      a[i].n_preempt, b[i].first_start_s, b[i].end_s,
                      b[i].n_preempt);
    const struct gp_sim_metrics *ma = gp_sim_get_metrics (s[0]);
    const struct gp_sim_metrics *mb = gp_sim_get_metrics (s[1]);
    assert_int_equal (ma->n_events, mb->n_events);
    assert_int_equal (ma->n_preemptions, mb->n_preemptions);
    assert_int_equal (ma->n_done, n - ma->n_unfit);
    gp_sim_destroy (s[0]);
    gp_sim_destroy (s[1]);
}

/* 'n' jobs, Philly GPU mix, arriving at 'load' x the capacity of 'gpus'. */
static struct gp_jobset *synth (size_t n, double gpus, double load,
                                uint64_t seed)
{
    struct gp_synth_params p = {0};
    p.n_jobs = n;
    p.seed = seed;
    p.duration_median_s = 3600;
    p.duration_sigma = 1.5;
    p.duration_max_s = 7 * 86400;
    p.arrival_rate_per_s = load * gpus / (1.304 * 11090.0);
    p.n_teams = 4;
    gp_error_t err = {0};
    struct gp_jobset *js = gp_trace_synth (&p, &err);
    if (!js)
        fail_msg ("%s", err.text);
    return js;
}

/* 600 jobs at 1.5x the capacity of 32 GPUs: queues hundreds deep. */
static void test_synthetic_deep (void **state)
{
    (void)state;
    mkcluster (8, 4);
    for (uint64_t seed = 1; seed <= 2; seed++) {
        struct gp_jobset *js = synth (600, 32, 1.5, seed);
        for (size_t k = 0; gp_policies[k]; k++) {
            same_schedule (&clus, js, gp_policies[k], 0);
            same_schedule (&clus, js, gp_policies[k], 5 * 86400);
        }
        gp_jobset_destroy (js);
    }
}

/* Fair-share with quotas, borrowing and reclaim (the precheck skips the
 * victim scan for jobs beyond their team's quota).
 */
static void test_fair_share_quotas (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (NULL, &err);
    assert_non_null (cat);
    struct gp_doc *doc =
        gp_doc_load (GP_SOURCE_DIR "/tests/unit/data/sim-index-quota.yaml",
                     &err);
    if (!doc)
        fail_msg ("%s", err.text);
    struct gp_cluster *cl = gp_cluster_from_doc (doc, cat, &err);
    if (!cl)
        fail_msg ("%s", err.text);
    struct gp_jobset *js = synth (500, 32, 1.5, 3);
    same_schedule (cl, js, &gp_policy_fair_share, 0);
    same_schedule (cl, js, &gp_policy_priority, 0);
    gp_jobset_destroy (js);
    gp_cluster_destroy (cl);
    gp_doc_destroy (doc);
    gp_catalog_destroy (cat);
}

/* The Philly sample (2,000 jobs) on 32 GPUs: thousands queue. */
static void test_philly_sample (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_jobset *js = gp_trace_read (
        GP_SOURCE_DIR "/traces/philly/philly-2000.csv", NULL, &err);
    if (!js)
        fail_msg ("%s", err.text);
    mkcluster (8, 4);
    for (size_t k = 0; gp_policies[k]; k++)
        same_schedule (&clus, js, gp_policies[k], 0);
    gp_jobset_destroy (js);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_synthetic_deep),
        cmocka_unit_test (test_fair_share_quotas),
        cmocka_unit_test (test_philly_sample),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
