/* test_sim.c - simulator engine, metrics, conservation, failures and fill
 * mode.  Expected metric values are worked out by hand in the comments;
 * scheduler scenarios with full schedules live in test_sim_scenarios.c.
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

static struct gp_pool pool1;
static struct gp_cluster clus;

static void mkcluster (int gpn, int nodes, int per_rack)
{
    memset (&pool1, 0, sizeof pool1);
    memset (&clus, 0, sizeof clus);
    snprintf (pool1.name, sizeof pool1.name, "p");
    pool1.gpus_per_node = gpn;
    pool1.nodes = nodes;
    pool1.scale_up_domain = gpn;
    pool1.nodes_per_rack = per_rack;
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
    j.submit_s = submit;
    j.duration_s = dur;
    j.n_gpus = gpus;
    j.gpu_milli = 1000;
    j.pool = -1;
    j.team = gp_jobset_team (js, "t");
    assert_int_equal (gp_jobset_add (js, &j), 0);
}

static struct gp_sim *run (struct gp_jobset *js, const char *policy,
                           struct gp_sim_config *cfg)
{
    gp_error_t err = {0};
    cfg->cluster = &clus;
    cfg->policy = gp_policy_find (policy, &err);
    assert_non_null (cfg->policy);
    struct gp_sim *s = gp_sim_create (cfg, js, &err);
    if (!s)
        fail_msg ("%s", err.text);
    if (gp_sim_run (s, &err))
        fail_msg ("%s", err.text);
    return s;
}

/* Two 4-GPU jobs of 10 s on one 4-GPU node, FIFO: waits 0 and 10 s;
 * nearest-rank p50 = 0, p95 = 10; makespan 20 s; utilization 80 / 80 = 1;
 * JCT 10 and 20 s; slowdown 1 and 2.
 */
static void test_metrics_by_hand (void **state)
{
    (void)state;
    mkcluster (4, 1, 0);
    struct gp_jobset *js = gp_jobset_create ();
    add (js, 0, 10, 4);
    add (js, 0, 10, 4);
    struct gp_sim_config cfg;
    gp_sim_config_init (&cfg);
    struct gp_sim *s = run (js, "fifo", &cfg);
    const struct gp_sim_metrics *m = gp_sim_get_metrics (s);
    assert_int_equal (m->n_done, 2);
    assert_true (m->wait.p50_s == 0);
    assert_true (m->wait.p95_s == 10);
    assert_true (m->wait.max_s == 10);
    assert_true (m->wait.mean_s == 5);
    assert_true (m->makespan_s == 20);
    assert_true (fabs (m->utilization - 1) < 1e-12);
    assert_true (m->jct_mean_s == 15);
    assert_true (m->slowdown_p95 == 2);
    assert_true (m->goodput == 1);
    assert_true (m->frag_pct == 0);
    assert_int_equal (m->wait_by_size[0].n, 0);
    assert_int_equal (m->wait_by_size[1].n, 2);
    assert_true (m->conservation_ok);
    gp_sim_destroy (s);
    gp_jobset_destroy (js);
}

/* Two 4-GPU nodes; two 3-GPU jobs (0-10 s) leave one GPU free on each
 * node, so a 2-GPU job waits 10 s while 2 GPUs idle: fragmented 2 x 10 =
 * 20 GPU-s of 8 x 20 = 160, i.e. 12.5 %; idle while waiting also 12.5 %.
 */
static void test_fragmentation_by_hand (void **state)
{
    (void)state;
    mkcluster (4, 2, 0);
    struct gp_jobset *js = gp_jobset_create ();
    add (js, 0, 10, 3);
    add (js, 0, 10, 3);
    add (js, 0, 10, 2);
    struct gp_sim_config cfg;
    gp_sim_config_init (&cfg);
    struct gp_sim *s = run (js, "fifo-backfill", &cfg);
    const struct gp_sim_metrics *m = gp_sim_get_metrics (s);
    const struct gp_job_result *r = gp_sim_get_results (s, NULL);
    assert_true (r[2].first_start_s == 10);
    assert_true (m->makespan_s == 20);
    assert_true (fabs (m->frag_pct - 12.5) < 1e-9);
    assert_true (fabs (m->idle_waiting_pct - 12.5) < 1e-9);
    gp_sim_destroy (s);
    gp_jobset_destroy (js);
}

static void test_unfit_and_bad_config (void **state)
{
    (void)state;
    mkcluster (8, 2, 0);
    struct gp_jobset *js = gp_jobset_create ();
    add (js, 0, 10, 8);
    add (js, 1, 10, 17); /* more than the 16 GPUs of the cluster */
    struct gp_sim_config cfg;
    gp_sim_config_init (&cfg);
    struct gp_sim *s = run (js, "fifo", &cfg);
    const struct gp_sim_metrics *m = gp_sim_get_metrics (s);
    assert_int_equal (m->n_done, 1);
    assert_int_equal (m->n_unfit, 1);
    assert_int_equal (gp_sim_get_results (s, NULL)[1].state, GP_JOB_UNFIT);
    assert_true (m->conservation_ok);
    gp_error_t err;
    assert_int_equal (gp_sim_run (s, &err), GP_EINVAL); /* already run */
    gp_sim_destroy (s);

    cfg.restart_cost_s = -1;
    assert_null (gp_sim_create (&cfg, js, &err));
    assert_int_equal (err.code, GP_EINVAL);
    gp_sim_config_init (&cfg);
    assert_null (gp_sim_create (&cfg, js, &err)); /* no cluster */
    assert_null (gp_sim_create (NULL, js, &err));
    assert_int_equal (gp_sim_run (NULL, &err), GP_EINVAL);
    gp_sim_destroy (NULL);
    /* A job requiring an unknown pool. */
    cfg.cluster = &clus;
    js->jobs[0].pool = gp_jobset_pool (js, "h100");
    assert_null (gp_sim_create (&cfg, js, &err));
    assert_int_equal (err.code, GP_ENOTFOUND);
    assert_non_null (strstr (err.text, "h100"));
    gp_jobset_destroy (js);
    assert_null (gp_policy_find ("round-robin", &err));
    assert_non_null (strstr (err.text, "fair-share"));
    enum gp_placement pl;
    assert_int_equal (gp_placement_parse ("worst", &pl, &err), GP_ENOTFOUND);
}

/* Every policy and placement on a loaded synthetic trace with failures:
 * all jobs finish, GPU-seconds balance, runs are deterministic.
 */
static void test_all_policies_conserve (void **state)
{
    (void)state;
    mkcluster (8, 16, 4);
    gp_error_t err = {0};
    struct gp_synth_params p = {0};
    p.n_jobs = 3000;
    p.seed = 3;
    p.arrival_rate_per_s = 1.0 / 60;
    p.duration_median_s = 1800;
    p.duration_sigma = 1.2;
    p.n_teams = 3;
    struct gp_jobset *js = gp_trace_synth (&p, &err);
    assert_non_null (js);
    for (size_t k = 0; gp_policies[k]; k++)
        for (int pl = 0; pl < GP_PLACE_N; pl++) {
            struct gp_sim_config cfg;
            gp_sim_config_init (&cfg);
            cfg.placement = (enum gp_placement)pl;
            cfg.node_mtbf_s = 30 * 86400;
            cfg.node_repair_s = 3600;
            cfg.seed = 11;
            cfg.sample_interval_s = 3600;
            struct gp_sim *a = run (js, gp_policies[k]->name, &cfg);
            struct gp_sim *b = run (js, gp_policies[k]->name, &cfg);
            const struct gp_sim_metrics *m = gp_sim_get_metrics (a);
            assert_true (m->conservation_ok);
            assert_int_equal (m->n_done, js->n_jobs);
            assert_true (m->n_failures > 0);
            size_t n;
            const struct gp_job_result *ra = gp_sim_get_results (a, &n);
            const struct gp_job_result *rb = gp_sim_get_results (b, NULL);
            assert_memory_equal (ra, rb, n * sizeof *ra);
            size_t ns;
            const struct gp_sim_sample *x = gp_sim_get_series (a, &ns);
            assert_true (ns > 0);
            double alloc = 0;
            for (size_t i = 0; i < ns; i++)
                alloc += x[i].alloc_gpus * 3600;
            /* The series integrates to the allocated GPU-seconds. */
            assert_true (fabs (alloc - m->alloc_gpu_s) / m->alloc_gpu_s
                         < 1e-9);
            gp_sim_destroy (a);
            gp_sim_destroy (b);
        }
    gp_jobset_destroy (js);
}

/* Every shipped trace under every policy and placement, on 16 nodes of 8
 * GPUs with failures: all jobs accounted for, GPU-seconds balance.
 */
static void test_shipped_traces (void **state)
{
    (void)state;
    static const char *const files[] = {
        "philly/philly-2000.csv", "tiresias/60_job.csv",
        "alibaba2023/pods.csv",   "sacct/example.txt",
        "generic/example.csv",    "gavel/artifact_evaluation.trace",
        "gavel/0e4a51.trace",     "pollux/workload-1.csv",
    };
    mkcluster (8, 16, 4);
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[512];
        snprintf (path, sizeof path, "%s/traces/%s", GP_SOURCE_DIR, files[f]);
        /* Skipping: rows the profiles cannot time (traces.md). */
        struct gp_trace_opts o = {
            .format = GP_TRACE_AUTO,
            .flags = GP_TRACE_SKIP_BAD,
            .gavel_throughputs = GP_SOURCE_DIR "/traces/gavel/throughputs.csv",
            .pollux_profiles = GP_SOURCE_DIR "/traces/pollux/profiles"};
        gp_error_t err = {0};
        struct gp_jobset *js = gp_trace_read (path, &o, &err);
        if (!js)
            fail_msg ("%s", err.text);
        for (size_t k = 0; gp_policies[k]; k++)
            for (int pl = 0; pl < GP_PLACE_N; pl++) {
                struct gp_sim_config cfg;
                gp_sim_config_init (&cfg);
                cfg.placement = (enum gp_placement)pl;
                cfg.node_mtbf_s = 60 * 86400;
                struct gp_sim *s = run (js, gp_policies[k]->name, &cfg);
                const struct gp_sim_metrics *m = gp_sim_get_metrics (s);
                assert_true (m->conservation_ok);
                assert_int_equal (m->n_done + m->n_unfit, js->n_jobs);
                gp_sim_destroy (s);
            }
        gp_jobset_destroy (js);
    }
}

static void add_team (struct gp_jobset *js, double dur, int gpus,
                      const char *team)
{
    struct gp_job j;
    memset (&j, 0, sizeof j);
    j.id = (int64_t)js->n_jobs;
    j.duration_s = dur;
    j.n_gpus = gpus;
    j.gpu_milli = 1000;
    j.pool = -1;
    j.team = gp_jobset_team (js, team);
    assert_int_equal (gp_jobset_add (js, &j), 0);
}

/* Jain's index of share / entitlement.  Teams a and b declared with quota
 * 2 each on one 4-GPU node (entitlements 1/2, 1/2); a runs 2 GPUs x 10 s,
 * b 2 GPUs x 30 s at once: shares 20/80 = 1/4 and 60/80 = 3/4, x = 1/2
 * and 3/2, Jain = (1/2 + 3/2)^2 / (2 (1/4 + 9/4)) = 4 / 5 = 0.8 over two
 * teams.  A trace whose only team 'ghost' is undeclared has no team with
 * an entitlement: the index is undefined (jain_teams = 0), not 1.
 */
static void test_jain_undeclared (void **state)
{
    (void)state;
    mkcluster (4, 1, 0);
    struct gp_team tm[2];
    memset (tm, 0, sizeof tm);
    for (int i = 0; i < 2; i++) {
        snprintf (tm[i].name, sizeof tm[i].name, "%c", 'a' + i);
        tm[i].weight = 1;
        tm[i].quota_gpus = 2;
        tm[i].borrowing_limit = tm[i].lending_limit = -1;
    }
    clus.teams = tm;
    clus.n_teams = 2;
    struct gp_jobset *js = gp_jobset_create ();
    add_team (js, 10, 2, "a");
    add_team (js, 30, 2, "b");
    struct gp_sim_config cfg;
    gp_sim_config_init (&cfg);
    struct gp_sim *s = run (js, "fifo", &cfg);
    const struct gp_sim_metrics *m = gp_sim_get_metrics (s);
    assert_int_equal (m->jain_teams, 2);
    assert_true (fabs (m->jain_index - 0.8) < 1e-12);
    gp_sim_destroy (s);
    gp_jobset_destroy (js);

    js = gp_jobset_create ();
    add_team (js, 10, 4, "ghost");
    add_team (js, 10, 2, "ghost");
    gp_sim_config_init (&cfg);
    s = run (js, "fair-share", &cfg);
    m = gp_sim_get_metrics (s);
    assert_int_equal (m->n_done, 2);
    assert_int_equal (m->jain_teams, 0);
    assert_true (m->conservation_ok);
    gp_sim_destroy (s);
    gp_jobset_destroy (js);
    clus.teams = NULL;
    clus.n_teams = 0;
}

/* Every job larger than the cluster: all unfit, none run, the job count
 * still balances (done + unfit + unfinished = jobs).
 */
static void test_all_unfit (void **state)
{
    (void)state;
    mkcluster (2, 1, 0);
    struct gp_jobset *js = gp_jobset_create ();
    add (js, 0, 10, 4);
    add (js, 5, 10, 8);
    struct gp_sim_config cfg;
    gp_sim_config_init (&cfg);
    struct gp_sim *s = run (js, "fifo-backfill", &cfg);
    const struct gp_sim_metrics *m = gp_sim_get_metrics (s);
    assert_int_equal (m->n_unfit, 2);
    assert_int_equal (m->n_done, 0);
    assert_int_equal (m->jain_teams, 0);
    assert_true (m->conservation_ok);
    size_t n;
    const struct gp_job_result *r = gp_sim_get_results (s, &n);
    assert_int_equal (n, 2);
    assert_int_equal (r[0].state, GP_JOB_UNFIT);
    assert_true (r[1].first_start_s < 0);
    gp_sim_destroy (s);
    gp_jobset_destroy (js);
}

static char *write_tmp (const char *text)
{
    const char *dir = getenv ("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    size_t len = strlen (dir) + sizeof "/gp_fill_XXXXXX";
    char *path = malloc (len);
    assert_non_null (path);
    snprintf (path, len, "%s/gp_fill_XXXXXX", dir);
    int fd = mkstemp (path);
    assert_true (fd >= 0);
    assert_int_equal (write (fd, text, strlen (text)), (ssize_t)strlen (text));
    close (fd);
    return path;
}

/* One node with two GPUs; pods of half a GPU.  Four pods reach 100 %
 * demand and all fit: allocation follows demand exactly.
 */
static void test_fill_by_hand (void **state)
{
    (void)state;
    char *nodes = write_tmp ("sn,cpu_milli,memory_mib,gpu,model\n"
                             "n0,64000,262144,2,T4\n"
                             "n1,32000,65536,0,\n");
    char *pods = write_tmp ("name,cpu_milli,memory_mib,num_gpu,gpu_milli,"
                            "gpu_spec\n"
                            "a,1000,1024,1,500,\n");
    struct gp_fill_input in;
    gp_error_t err = {0};
    assert_int_equal (gp_fill_read (nodes, pods, &in, &err), 0);
    for (int pol = 0; pol < GP_FILL_N; pol++) {
        struct gp_fill_result r;
        assert_int_equal (gp_fill_run (&in, (enum gp_fill_policy)pol, 1, 1.0,
                                       &r, &err),
                          0);
        assert_int_equal (r.total_gpus, 2);
        assert_int_equal (r.n_curve, 100);
        assert_int_equal (r.n_arrived, 4);
        assert_true (r.curve[24].demand_pct == 25);
        assert_true (r.curve[24].alloc_pct == 25);
        assert_true (r.final_alloc_pct == 100);
        gp_fill_result_free (&r);
    }
    gp_fill_input_free (&in);
    char *bad = write_tmp ("name,cpu_milli,memory_mib,num_gpu\na,1,1,1\n");
    assert_int_equal (gp_fill_read (nodes, bad, &in, &err), GP_EPARSE);
    assert_non_null (strstr (err.text, "missing column 'gpu_milli'"));
    char *bad2 = write_tmp ("name,cpu_milli,memory_mib,num_gpu,gpu_milli,"
                            "gpu_spec\na,1,1,2,300,\n");
    assert_int_equal (gp_fill_read (nodes, bad2, &in, &err), GP_EPARSE);
    assert_non_null (strstr (err.text, ":2: column 'gpu_milli'"));
    /* PAI 2020 machine list (no header): 1,897 machines, 6,742 GPUs, as
     * its SOURCE.md states.
     */
    assert_int_equal (gp_fill_read (GP_SOURCE_DIR
                                    "/traces/pai2020/machine_spec.csv",
                                    pods, &in, &err),
                      0);
    assert_int_equal (in.n_nodes, 1897);
    long long g = 0;
    for (size_t i = 0; i < in.n_nodes; i++)
        g += in.nodes[i].n_gpus;
    assert_int_equal (g, 6742);
    gp_fill_input_free (&in);
    enum gp_fill_policy fp;
    assert_int_equal (gp_fill_policy_parse ("dotprod", &fp, &err),
                      GP_ENOTFOUND);
    unlink (nodes);
    unlink (pods);
    unlink (bad);
    unlink (bad2);
    free (nodes);
    free (pods);
    free (bad);
    free (bad2);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_metrics_by_hand),
        cmocka_unit_test (test_fragmentation_by_hand),
        cmocka_unit_test (test_unfit_and_bad_config),
        cmocka_unit_test (test_all_policies_conserve),
        cmocka_unit_test (test_shipped_traces),
        cmocka_unit_test (test_fill_by_hand),
        cmocka_unit_test (test_jain_undeclared),
        cmocka_unit_test (test_all_unfit),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
