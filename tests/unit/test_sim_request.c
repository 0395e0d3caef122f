/* test_sim_request.c - the one-call simulation request (gp_sim_run_request)
 * and its renderers.  Expected values are worked out by hand in the
 * comments.
 */
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpuplan/policy.h"
#include "gpuplan/sim.h"
#include "gpuplan/trace.h"

static struct gp_pool pool1;
static struct gp_cluster clus;

/* One pool "p" of 'nodes' nodes with 4 GPUs each. */
static void mkcluster (int nodes)
{
    memset (&pool1, 0, sizeof pool1);
    memset (&clus, 0, sizeof clus);
    snprintf (pool1.name, sizeof pool1.name, "p");
    pool1.gpus_per_node = 4;
    pool1.nodes = nodes;
    pool1.scale_up_domain = 4;
    pool1.nodes_per_rack = 1;
    snprintf (clus.name, sizeof clus.name, "c");
    clus.pools = &pool1;
    clus.n_pools = 1;
    clus.spine_oversub = 1;
}

static void add (struct gp_jobset *js, double submit, double dur, int gpus)
{
    struct gp_job j;
    memset (&j, 0, sizeof j);
    j.id = (int64_t)js->n_jobs + 1;
    j.submit_s = submit;
    j.duration_s = dur;
    j.n_gpus = gpus;
    j.gpu_milli = 1000;
    j.pool = -1;
    j.team = gp_jobset_team (js, "a");
    assert_int_equal (gp_jobset_add (js, &j), 0);
}

static struct gp_sim_request request (const struct gp_jobset *js)
{
    struct gp_sim_request rq;
    gp_sim_request_init (&rq);
    rq.cluster = &clus;
    rq.jobs = js;
    rq.cfg.policy = &gp_policy_fifo;
    rq.cfg.restart_cost_s = 0;
    return rq;
}

/* Two 4-GPU jobs on one 4-GPU node under FIFO: job 1 runs [0, 10), job 2
 * (submitted at 1) waits for it and runs [10, 15).  Makespan 15 s, waits
 * 0 and 9 s, 4 x 15 = 60 GPU-s allocated.
 */
static void two_jobs_fifo (void **state)
{
    (void)state;
    mkcluster (1);
    struct gp_jobset *js = gp_jobset_create ();
    add (js, 0, 10, 4);
    add (js, 1, 5, 4);
    struct gp_sim_request rq = request (js);
    rq.flags = GP_SIMRQ_SCHEDULE;
    struct gp_sim_report *r = NULL;
    gp_error_t err = {0};
    assert_int_equal (gp_sim_run_request (&rq, &r, &err), 0);
    assert_non_null (r);
    assert_true (fabs (r->metrics->makespan_s - 15) < 1e-9);
    assert_true (fabs (r->metrics->wait.max_s - 9) < 1e-9);
    assert_true (fabs (r->metrics->alloc_gpu_s - 60) < 1e-9);
    assert_int_equal (r->n_results, 2);
    assert_true (fabs (r->results[1].first_start_s - 10) < 1e-9);
    assert_int_equal (gp_sim_report_status (r, &err), 0);
    assert_string_equal (r->policy, "fifo");
    json_t *j = gp_report_sim_json (r);
    assert_non_null (j);
    assert_true (fabs (json_real_value (json_object_get (j, "makespan_s"))
                       - 15)
                 < 1e-9);
    json_t *sch = json_object_get (j, "schedule");
    assert_int_equal (json_array_size (sch), 2);
    assert_true (fabs (json_real_value (json_object_get (
                           json_array_get (sch, 1), "end"))
                       - 15)
                 < 1e-9);
    json_decref (j);
    char *text = gp_report_sim_text (r, &err);
    assert_non_null (text);
    assert_non_null (strstr (text, "makespan 15 s"));
    free (text);
    gp_sim_report_destroy (r);
    gp_jobset_destroy (js);
}

/* An 8-GPU job can never fit 4 GPUs: reported unfit, and a trace of only
 * unfit jobs is infeasible.
 */
static void all_unfit_is_infeasible (void **state)
{
    (void)state;
    mkcluster (1);
    struct gp_jobset *js = gp_jobset_create ();
    add (js, 0, 10, 8);
    struct gp_sim_request rq = request (js);
    struct gp_sim_report *r = NULL;
    gp_error_t err = {0};
    assert_int_equal (gp_sim_run_request (&rq, &r, &err), 0);
    assert_int_equal (r->metrics->n_unfit, 1);
    assert_int_equal (r->unfit_max_gpus, 8);
    assert_int_equal (r->largest_pool_gpus, 4);
    assert_string_equal (r->largest_pool, "p");
    assert_int_equal (gp_sim_report_status (r, &err), GP_EINFEASIBLE);
    gp_sim_report_destroy (r);
    gp_jobset_destroy (js);
}

/* Node sweep, two 4-GPU jobs of 10 s at time 0, no wait allowed: one node
 * makes the second wait 10 s, two nodes run both at once.  The search
 * over [1, 8] evaluates 4 (ok), 2 (ok), 1 (over): answer 2 nodes.  The
 * caller's cluster is left as it was.
 */
static void sweep_nodes (void **state)
{
    (void)state;
    mkcluster (1);
    struct gp_jobset *js = gp_jobset_create ();
    add (js, 0, 10, 4);
    add (js, 0, 10, 4);
    struct gp_sim_request rq = request (js);
    rq.sweep = GP_SIM_SWEEP_NODES;
    rq.max_p95_wait_s = 0;
    rq.max_starvation_s = 0;
    struct gp_sim_report *r = NULL;
    gp_error_t err = {0};
    assert_int_equal (gp_sim_run_request (&rq, &r, &err), 0);
    assert_true (fabs (r->answer - 2) < 1e-9);
    assert_int_equal (r->n_points, 3);
    assert_true (fabs (r->points[0].x - 4) < 1e-9 && r->points[0].ok);
    assert_true (fabs (r->points[1].x - 2) < 1e-9 && r->points[1].ok);
    assert_true (fabs (r->points[2].x - 1) < 1e-9 && !r->points[2].ok);
    assert_true (fabs (r->points[2].wait_p95_s - 10) < 1e-9);
    assert_int_equal (pool1.nodes, 1);
    assert_int_equal (gp_sim_report_status (r, &err), 0);
    gp_sim_report_destroy (r);
    gp_jobset_destroy (js);
}

/* Load sweep: the caller's submit times are not touched. */
static void sweep_load_keeps_jobs (void **state)
{
    (void)state;
    mkcluster (1);
    struct gp_jobset *js = gp_jobset_create ();
    add (js, 0, 10, 4);
    add (js, 100, 10, 4);
    struct gp_sim_request rq = request (js);
    rq.sweep = GP_SIM_SWEEP_LOAD;
    struct gp_sim_report *r = NULL;
    gp_error_t err = {0};
    assert_int_equal (gp_sim_run_request (&rq, &r, &err), 0);
    assert_true (r->n_points > 0);
    assert_true (fabs (js->jobs[1].submit_s - 100) < 1e-12);
    gp_sim_report_destroy (r);
    gp_jobset_destroy (js);
}

/* LAS threshold as a policy parameter.  One 4-GPU node; job 1 (4 GPUs,
 * 100 s) at 0, job 2 (4 GPUs, 10 s) at 1.  With threshold 4 GPU-s job 1
 * reaches 4 GPU-s at t = 1 and drops to the second queue, so job 2 (first
 * queue) preempts it and starts at 1.  With the default 3600 GPU-s job 1
 * would need 900 s to cross it and ends first: job 2 starts at 100.
 */
static void las_threshold_param (void **state)
{
    (void)state;
    mkcluster (1);
    struct gp_jobset *js = gp_jobset_create ();
    add (js, 0, 100, 4);
    add (js, 1, 10, 4);
    struct gp_sim_request rq = request (js);
    rq.cfg.policy = &gp_policy_las;
    struct gp_sim_report *r = NULL;
    gp_error_t err = {0};
    assert_int_equal (gp_sim_run_request (&rq, &r, &err), 0);
    assert_true (fabs (r->results[1].first_start_s - 100) < 1e-9);
    gp_sim_report_destroy (r);
    struct gp_policy_setting t = {"threshold_gpu_s", 4};
    rq.cfg.policy_params = &t;
    rq.cfg.n_policy_params = 1;
    assert_int_equal (gp_sim_run_request (&rq, &r, &err), 0);
    assert_true (fabs (r->results[1].first_start_s - 1) < 1e-9);
    assert_int_equal (r->metrics->n_preemptions, 1);
    gp_sim_report_destroy (r);
    struct gp_policy_setting bad = {"threshold", 4};
    rq.cfg.policy_params = &bad;
    assert_int_equal (gp_sim_run_request (&rq, &r, &err), GP_ENOTFOUND);
    assert_non_null (strstr (err.text, "threshold_gpu_s"));
    bad.key = "threshold_gpu_s";
    bad.value = 0;
    assert_int_equal (gp_sim_run_request (&rq, &r, &err), GP_EINVAL);
    /* FIFO has no parameters */
    rq.cfg.policy = &gp_policy_fifo;
    bad.value = 4;
    assert_int_equal (gp_sim_run_request (&rq, &r, &err), GP_ENOTFOUND);
    gp_jobset_destroy (js);
}

static void warn_count (const char *msg, void *arg)
{
    (void)msg;
    (*(int *)arg)++;
}

/* The spec declares team "a"; the trace also has team "b" with two jobs:
 * one undeclared team, warned once before the run; with strict teams an
 * input error naming it.
 */
static void undeclared_teams (void **state)
{
    (void)state;
    mkcluster (1);
    struct gp_team team;
    memset (&team, 0, sizeof team);
    snprintf (team.name, sizeof team.name, "a");
    team.weight = 1;
    team.quota_gpus = team.borrowing_limit = team.lending_limit = -1;
    clus.teams = &team;
    clus.n_teams = 1;
    struct gp_jobset *js = gp_jobset_create ();
    add (js, 0, 10, 1);
    add (js, 0, 10, 1);
    add (js, 0, 10, 1);
    js->jobs[1].team = js->jobs[2].team = gp_jobset_team (js, "b");
    struct gp_sim_request rq = request (js);
    int n_warn = 0;
    rq.warn = warn_count;
    rq.warn_arg = &n_warn;
    rq.cluster_source = "spec.yaml";
    struct gp_sim_report *r = NULL;
    gp_error_t err = {0};
    assert_int_equal (gp_sim_run_request (&rq, &r, &err), 0);
    assert_int_equal (n_warn, 1);
    assert_int_equal (r->n_undeclared, 1);
    assert_string_equal (r->undeclared[0].name, "b");
    assert_int_equal (r->undeclared[0].n_jobs, 2);
    assert_string_equal (r->undeclared_list, "b (2 jobs)");
    gp_sim_report_destroy (r);
    rq.flags = GP_SIMRQ_STRICT_TEAMS;
    assert_int_equal (gp_sim_run_request (&rq, &r, &err), GP_EINVAL);
    assert_null (r);
    assert_non_null (strstr (err.text, "spec.yaml 'teams:': b (2 jobs)"));
    clus.teams = NULL;
    clus.n_teams = 0;
    gp_jobset_destroy (js);
}

static void bad_requests (void **state)
{
    (void)state;
    struct gp_sim_request rq;
    gp_sim_request_init (&rq);
    struct gp_sim_report *r = (void *)&rq;
    gp_error_t err = {0};
    assert_int_equal (gp_sim_run_request (&rq, &r, &err), GP_EINVAL);
    assert_null (r);
    mkcluster (1);
    rq.cluster = &clus;
    assert_int_equal (gp_sim_run_request (&rq, &r, &err), GP_EINVAL);
    assert_null (r);
    enum gp_sim_sweep sw;
    assert_int_equal (gp_sim_sweep_parse ("load", &sw, &err), 0);
    assert_int_equal (sw, GP_SIM_SWEEP_LOAD);
    assert_int_equal (gp_sim_sweep_parse ("racks", &sw, &err), GP_EINVAL);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (two_jobs_fifo),
        cmocka_unit_test (all_unfit_is_infeasible),
        cmocka_unit_test (sweep_nodes),
        cmocka_unit_test (sweep_load_keeps_jobs),
        cmocka_unit_test (las_threshold_param),
        cmocka_unit_test (undeclared_teams),
        cmocka_unit_test (bad_requests),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
