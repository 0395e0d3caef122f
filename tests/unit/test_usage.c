/* test_usage.c - gp_usage_read() on the hand-written fixtures of
 * tests/usage/ (kubectl pod list, sacct, Prometheus DCGM series), with
 * every expected GPU-hour worked out by hand below from the fixture's
 * text and the rules of docs/formats/usage.md; bad inputs name the file
 * and line or JSON path.  Also the sacct trace reader's fixes (array
 * task ids, Partition/Priority on request, '-' as standard input).
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
#include "gpuplan/spec.h"
#include "gpuplan/trace.h"
#include "gpuplan/usage.h"

#define U GP_SOURCE_DIR "/tests/usage/"
#define EPS 1e-9

static struct gp_usage *rd (const char *path, const char *until,
                            double rate, const char *nodes, gp_error_t *err)
{
    struct gp_usage_request rq = {.trace_path = path, .until = until,
                                  .rate_usd = rate, .nodes_path = nodes};
    return gp_usage_read (&rq, err);
}

static const struct gp_usage_team *team (const struct gp_usage *u,
                                         const char *name)
{
    for (size_t i = 0; i < u->n_teams; i++)
        if (strcmp (u->teams[i].team, name) == 0)
            return &u->teams[i];
    fail_msg ("no team %s", name);
    return NULL;
}

static double pool_h (const struct gp_usage_team *t, const char *pool)
{
    for (size_t i = 0; i < t->n_pools; i++)
        if (strcmp (t->pools[i].pool, pool) == 0)
            return t->pools[i].gpu_hours;
    return -1;
}

/* tests/usage/pods.json, by pod:
 *   nlp/train-a-0    8 GPUs, 00:00 -> 10:00 (Succeeded)       = 80 h100
 *   nlp/train-b-0    init 1, app 4 + 0 -> max(1, 4) = 4 GPUs (limits
 *                    only), 12:00 -> latest finishedAt 15:00
 *                    (log-shipper, after trainer's 14:30)      = 12 on
 *                    node gpu-h100-02 (h100 with the nodes file, else
 *                    unassigned)
 *   nlp/serve        2 GPUs, Running from 2026-01-06T00:00 to --until
 *                    2026-01-07T00:00 = 24 h                   = 48 a100
 *   vision/prep-x2   init 4, app 1 + 1 -> max(4, 2) = 4 GPUs,
 *                    06:00 -> 08:00                            =  8 a100
 *   vision/big-train Pending                                   =  0
 *   vision/mig-infer 2 x nvidia.com/mig-3g.40gb = 2 x 3/7 GPU,
 *                    00:00 -> 07:00: 6/7 x 7                   =  6 a100
 *   infra/web        CPU only, Running                          =  0
 *   infra/amd-bench  2 amd.com/gpu, 20:00 -> 21:15              = 2.5 on
 *                    mi300-01 (mi300 with nodes, else unassigned)
 * nlp 140, vision 14, infra 2.5: 156.5 GPU-hours over 2026-01-05T00:00
 * .. 2026-01-07T00:00 = 48 h; nlp averages 140 / 48 GPUs.
 */
static void test_kubectl (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_usage *u = rd (U "pods.json", "2026-01-07T00:00:00Z", 0, NULL,
                             &err);
    assert_non_null (u);
    assert_int_equal (u->format, GP_USAGE_KUBECTL);
    assert_int_equal (u->n_teams, 3);
    assert_string_equal (u->teams[0].team, "infra"); /* sorted */
    assert_true (fabs (u->gpu_hours - 156.5) < EPS);
    const struct gp_usage_team *nlp = team (u, "nlp");
    assert_true (fabs (nlp->gpu_hours - 140) < EPS);
    assert_true (fabs (pool_h (nlp, "h100") - 80) < EPS);
    assert_true (fabs (pool_h (nlp, "a100") - 48) < EPS);
    assert_true (fabs (pool_h (nlp, "unassigned") - 12) < EPS);
    const struct gp_usage_team *vis = team (u, "vision");
    assert_true (fabs (vis->gpu_hours - 14) < EPS);
    assert_true (fabs (pool_h (vis, "a100") - 14) < EPS);
    assert_true (fabs (team (u, "infra")->gpu_hours - 2.5) < EPS);
    assert_true (fabs (u->end_s - u->start_s - 48 * 3600) < EPS);
    assert_true (fabs (gp_usage_team_mean_gpus (u, 1) - 140.0 / 48) < EPS);
    assert_int_equal (u->n_counted, 6);
    assert_int_equal (u->n_running, 1);
    assert_int_equal (u->n_pending, 1);
    assert_int_equal (u->n_no_gpu, 1);
    assert_true (nlp->cost_usd < 0); /* no rate: unknown, not 0 */
    assert_true (nlp->utilization < 0);
    gp_usage_destroy (u);

    /* the nodes file maps gpu-h100-02 to h100 and mi300-01 to mi300;
     * --rate 2.5 prices every pool: 140 x 2.5 = 350, 14 x 2.5 = 35,
     * 2.5 x 2.5 = 6.25; in all 391.25.
     */
    u = rd (U "pods.json", "2026-01-07T00:00:00", 2.5, U "nodes.json", &err);
    assert_non_null (u);
    nlp = team (u, "nlp");
    assert_true (fabs (pool_h (nlp, "h100") - 92) < EPS);
    assert_true (pool_h (nlp, "unassigned") < 0);
    assert_true (fabs (pool_h (team (u, "infra"), "mi300") - 2.5) < EPS);
    assert_true (fabs (nlp->cost_usd - 350) < EPS);
    assert_true (fabs (u->cost_usd - 391.25) < EPS);
    assert_string_equal (u->rates[0].basis, "flag");
    gp_usage_destroy (u);
}

static void test_kubectl_running_needs_until (void **state)
{
    (void)state;
    gp_error_t err = {0};
    assert_null (rd (U "pods.json", NULL, 0, NULL, &err));
    assert_int_equal (err.code, GP_EINVAL);
    assert_non_null (strstr (err.text, "items[2]: pod nlp/serve-7d9f-abcde "
                                       "is Running: give --until"));
    assert_null (rd (U "pods.json", "2026-01-07", 0, NULL, &err));
    assert_int_equal (err.code, GP_EINVAL);
    /* --until before the running pod's start */
    assert_null (rd (U "pods.json", "2026-01-05T00:00:00Z", 0, NULL, &err));
    assert_non_null (strstr (err.text, "ends before its status.startTime"));
}

/* tests/usage/sacct.txt, by job (steps .batch/.extern skipped):
 *   2001      nlp    h100 normal  gres/gpu=1 x 7200 s      =   2
 *   2002      vision a100 high    gres/gpu=8 beside gres/gpu:a100=8
 *                                 (untyped taken, not 16) x 86400 s
 *                                                          = 192
 *   2003      nlp    h100 normal  gres/gpu:h100=2 only (typed) x 5400 s
 *                                                          =   3
 *   2010_1/2  nlp    a100 normal  2 array tasks x 1 GPU x 1800 s
 *                                                          =   1
 *   2020_[3-5%2] pending array, 2050 Start None            =   0 (2 pending)
 *   2030      vision h100 high    RUNNING, End Unknown: 4 GPUs from
 *                                 2026-01-06T12:00 to --until
 *                                 2026-01-07T00:00 = 12 h  =  48
 *   2040      infra  cpu          no GPU                   =   0
 * nlp 6 (h100 5, a100 1), vision 240 (a100 192, h100 48): 246.  Period
 * 2026-01-05T08:00:10 .. 2026-01-07T00:00:00 = 143990 s.
 */
static void test_sacct (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_usage *u = rd (U "sacct.txt", "2026-01-07T00:00:00", 0, NULL,
                             &err);
    assert_non_null (u);
    assert_int_equal (u->format, GP_USAGE_SACCT);
    assert_int_equal (u->n_teams, 2);
    const struct gp_usage_team *nlp = team (u, "nlp");
    const struct gp_usage_team *vis = team (u, "vision");
    assert_true (fabs (nlp->gpu_hours - 6) < EPS);
    assert_true (fabs (pool_h (nlp, "h100") - 5) < EPS);
    assert_true (fabs (pool_h (nlp, "a100") - 1) < EPS);
    assert_true (fabs (vis->gpu_hours - 240) < EPS);
    assert_true (fabs (pool_h (vis, "a100") - 192) < EPS);
    assert_true (fabs (pool_h (vis, "h100") - 48) < EPS);
    assert_int_equal (vis->n_qos, 1);
    assert_string_equal (vis->qos[0].pool, "high");
    assert_true (fabs (vis->qos[0].gpu_hours - 240) < EPS);
    assert_true (fabs (u->gpu_hours - 246) < EPS);
    assert_true (fabs (u->end_s - u->start_s - 143990) < EPS);
    assert_int_equal (u->n_counted, 6);
    assert_int_equal (nlp->n_items, 4);
    assert_int_equal (u->n_running, 1);
    assert_int_equal (u->n_pending, 2);
    assert_int_equal (u->n_no_gpu, 1);
    gp_usage_destroy (u);
    assert_null (rd (U "sacct.txt", NULL, 0, NULL, &err));
    assert_non_null (strstr (err.text, "sacct.txt:10: job 2030 is running"));
}

/* tests/usage/dcgm.json, DCGM_FI_DEV_GPU_UTIL every 60 s:
 *   [0] GPU-...0001 nlp    4 samples (80 90 100 70) = 240 s
 *   [1] GPU-...0002 nlp    4 samples (50 x 4)       = 240 s
 *   [2] MIG 3g.40gb vision 2 samples (30 40): 3/7 x 120 s = 360/7 s
 *   [3] GPU-...0009 no namespace: idle, 4 samples   = 240 s idle
 *   [4] GPU-...0001 vision at t0+180 (already [0]'s: counted once, for
 *       [0]) and t0+240 (20)                         = 60 s
 *   [5] GPU-...0010 label team=infra (before namespace), pool h100,
 *       2 samples (100 100)                          = 120 s
 * nlp 480 s = 0.13333 h, utilization (340 + 200) / 8 = 67.5 %;
 * vision (360/7 + 60) s = 780/25200 h, utilization weighted by GPUs x
 * samples: (6/7 x 0.35 + 1 x 0.20) / (6/7 + 1) = 0.5 x 7/13;
 * infra 120 s, 100 %; idle 240 s.  Period t0 .. t0+240+60 = 300 s.
 */
static void test_prometheus (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_usage *u = rd (U "dcgm.json", NULL, 0, U "nodes.json", &err);
    assert_non_null (u);
    assert_int_equal (u->format, GP_USAGE_PROMETHEUS);
    assert_true (fabs (u->step_s - 60) < EPS);
    const struct gp_usage_team *nlp = team (u, "nlp");
    assert_true (fabs (nlp->gpu_hours - 480.0 / 3600) < EPS);
    assert_true (fabs (nlp->utilization - 0.675) < EPS);
    /* Hostname h100-001 is in the nodes file's h100 pool */
    assert_true (fabs (pool_h (nlp, "h100") - 480.0 / 3600) < EPS);
    const struct gp_usage_team *vis = team (u, "vision");
    assert_true (fabs (vis->gpu_hours - 780.0 / 25200) < EPS);
    assert_true (fabs (vis->utilization - 3.5 / 13) < EPS);
    const struct gp_usage_team *inf = team (u, "infra");
    assert_true (fabs (inf->gpu_hours - 120.0 / 3600) < EPS);
    assert_true (fabs (pool_h (inf, "h100") - 120.0 / 3600) < EPS);
    assert_true (fabs (inf->utilization - 1) < EPS);
    assert_true (fabs (u->idle_gpu_hours - 240.0 / 3600) < EPS);
    assert_true (fabs (u->end_s - u->start_s - 300) < EPS);
    assert_int_equal (u->n_counted, 5);
    gp_usage_destroy (u);
}

static void test_bad_inputs (void **state)
{
    (void)state;
    static const struct {
        const char *file;
        const char *want;
    } cases[] = {
        {"pods-quantity.json", "pods-quantity.json: items[1].spec."
                               "containers[0].resources.requests.nvidia.com"
                               "/gpu: expected a whole number"},
        {"pods-syntax.json", "pods-syntax.json:3:3: JSON:"},
        {"pods-time.json", "items[0].status.containerStatuses[0].state."
                           "terminated.finishedAt: not an RFC 3339 time"},
        {"sacct-elapsed.txt", "sacct-elapsed.txt:3: column 'ElapsedRaw': "
                              "'12x'"},
        {"sacct-tres.txt", "sacct-tres.txt:2: column 'AllocTRES'"},
        {"sacct-header.txt", "sacct-header.txt:1: header: missing column "
                             "'Account'"},
        {"dcgm-status.json", "status: 'error', not success: invalid "
                             "parameter"},
        {"dcgm-value.json", "data.result[0].values[1][1]: 'high' is not a "
                            "number"},
        {"dcgm-metric.json", "data.result[0].metric.__name__: "
                             "'node_cpu_seconds_total' is not a DCGM"},
        {"unknown.txt", "not a usage input"},
        {"../nodes.json", "nodes.json: items: no Pod"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512];
        gp_error_t err = {0};
        snprintf (path, sizeof path, U "bad/%s", cases[i].file);
        struct gp_usage *u = rd (path, "2026-01-07T00:00:00", 0, NULL, &err);
        if (u || !strstr (err.text, cases[i].want))
            fail_msg ("%s: got '%s'", cases[i].file, err.text);
        assert_int_equal (gp_err_exit_status (err.code), 2);
    }
    gp_error_t err = {0};
    assert_null (rd (U "missing.json", NULL, 0, NULL, &err));
    assert_int_equal (err.code, GP_EIO);
    /* a format that does not match the content */
    struct gp_usage_request rq = {.trace_path = U "sacct.txt",
                                  .format = GP_USAGE_KUBECTL};
    assert_null (gp_usage_read (&rq, &err));
    assert_non_null (strstr (err.text, "expected a JSON object"));
    enum gp_usage_format f;
    assert_int_equal (gp_usage_format_parse ("slurm", &f, &err),
                      GP_ENOTFOUND);
    assert_null (gp_usage_read (NULL, &err));
}

/* Pools priced by the pricing rule from the cluster spec: every priced
 * pool's cost is its GPU-hours x the rate the rule chose; unassigned
 * hours stay unpriced because examples/cluster.yaml has two
 * accelerators.
 */
static void test_cluster_rates (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (NULL, &err);
    assert_non_null (cat);
    struct gp_doc *doc = gp_doc_load (GP_SOURCE_DIR "/examples/cluster.yaml",
                                      &err);
    assert_non_null (doc);
    struct gp_cluster *cl = gp_cluster_from_doc (doc, cat, &err);
    assert_non_null (cl);
    struct gp_usage_request rq = {.trace_path = U "pods.json",
                                  .until = "2026-01-07T00:00:00Z",
                                  .cluster = cl, .catalog = cat};
    struct gp_usage *u = gp_usage_read (&rq, &err);
    assert_non_null (u);
    double rate_a100 = -1;
    for (size_t i = 0; i < u->n_rates; i++) {
        const struct gp_usage_rate *r = &u->rates[i];
        if (strcmp (r->pool, "unassigned") == 0) {
            assert_string_equal (r->basis, "none");
            continue;
        }
        assert_string_equal (r->basis, "catalog");
        assert_true (r->usd_per_gpu_hour > 0);
        if (strcmp (r->pool, "a100") == 0)
            rate_a100 = r->usd_per_gpu_hour;
    }
    const struct gp_usage_team *vis = team (u, "vision");
    assert_true (fabs (vis->cost_usd - 14 * rate_a100) < 1e-6);
    assert_true (team (u, "nlp")->cost_usd < 0); /* 12 h unassigned */
    assert_true (fabs (team (u, "nlp")->unpriced_gpu_hours - 12) < EPS);
    assert_true (u->cost_usd < 0);
    gp_usage_destroy (u);
    gp_cluster_destroy (cl);
    gp_doc_destroy (doc);
    gp_catalog_destroy (cat);
}

/* Issue 12 item 6: array tasks 2010_1 and 2010_2 were both job 2010. */
static void issue_12_sacct_array_ids (void **state)
{
    (void)state;
    gp_error_t err = {0};
    const char *t = "JobID|Account|Submit|Start|Elapsed|AllocTRES\n"
                    "77_1|a|2026-01-01T00:00:00|2026-01-01T00:00:00|"
                    "01:00:00|gres/gpu=1\n"
                    "77_2|a|2026-01-01T00:00:00|2026-01-01T00:00:00|"
                    "01:00:00|gres/gpu=1\n"
                    "77_[3-9]|a|2026-01-01T00:00:00|Unknown|00:00:00|\n";
    struct gp_trace_opts o = {.format = GP_TRACE_SACCT};
    struct gp_jobset *js = gp_trace_parse (t, strlen (t), "s.txt", &o, &err);
    assert_non_null (js);
    assert_int_equal (js->n_jobs, 2);
    assert_true (js->jobs[0].id == 77 * (INT64_C (1) << 32) + 1);
    assert_true (js->jobs[1].id == 77 * (INT64_C (1) << 32) + 2);
    assert_int_equal (js->jobs[0].pool, -1); /* not asked: any pool */
    gp_jobset_destroy (js);
    /* JobIDRaw, Partition and Priority of the fixture, when asked */
    o.flags = GP_TRACE_SACCT_SLURM;
    js = gp_trace_read (U "sacct.txt", &o, &err);
    assert_non_null (js);
    /* 2001 2002 2003 2011 2012 2030 (2030's Elapsed 00:30:00) */
    assert_int_equal (js->n_jobs, 6);
    assert_int_equal (js->jobs[3].id, 2011);
    assert_int_equal (js->jobs[4].id, 2012);
    assert_string_equal (js->pools[js->jobs[1].pool], "a100");
    assert_int_equal (js->jobs[0].priority, 4294901700 / 2);
    gp_jobset_destroy (js);
}

/* Issue 12 item 6: '-' read a file named '-'. */
static void issue_12_stdin (void **state)
{
    (void)state;
    gp_error_t err = {0};
    assert_non_null (freopen (U "sacct.txt", "r", stdin));
    struct gp_jobset *js = gp_trace_read ("-", NULL, &err);
    assert_non_null (js);
    assert_string_equal (js->format, "sacct");
    assert_int_equal (js->n_jobs, 6);
    gp_jobset_destroy (js);
    assert_non_null (freopen (U "dcgm.json", "r", stdin));
    struct gp_usage *u = rd ("-", NULL, 0, NULL, &err);
    assert_non_null (u);
    assert_string_equal (u->input, "<stdin>");
    assert_true (fabs (u->gpu_hours - (480.0 / 3600 + 780.0 / 25200
                                        + 120.0 / 3600))
                 < EPS);
    gp_usage_destroy (u);
}

/* Every fixture cut short at 60 points: a result or a clean input error
 * (GP_EPARSE, or GP_EINVAL for a pod or job left running), never a crash
 * or another code (run under the sanitizers too).
 */
static void test_truncated (void **state)
{
    (void)state;
    static const char *const files[] = {"pods.json", "sacct.txt",
                                        "dcgm.json"};
    char tmp[] = "/tmp/gp-usage-XXXXXX";
    int fd = mkstemp (tmp);
    assert_true (fd >= 0);
    close (fd);
    for (size_t f = 0; f < 3; f++) {
        char path[512];
        snprintf (path, sizeof path, U "%s", files[f]);
        FILE *in = fopen (path, "rb");
        assert_non_null (in);
        static char buf[1 << 16];
        size_t len = fread (buf, 1, sizeof buf, in);
        fclose (in);
        for (size_t k = 0; k < 60; k++) {
            size_t cut = len * k / 60;
            FILE *out = fopen (tmp, "wb");
            assert_non_null (out);
            assert_int_equal (fwrite (buf, 1, cut, out), cut);
            fclose (out);
            struct gp_usage_request rq = {.trace_path = tmp,
                                          .format = (enum gp_usage_format) (
                                              f + 1)};
            gp_error_t err = {0};
            struct gp_usage *u = gp_usage_read (&rq, &err);
            if (!u && err.code != GP_EPARSE && err.code != GP_EINVAL)
                fail_msg ("%s cut at %zu: %s", files[f], cut, err.text);
            gp_usage_destroy (u);
        }
    }
    remove (tmp);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_kubectl),
        cmocka_unit_test (test_kubectl_running_needs_until),
        cmocka_unit_test (test_sacct),
        cmocka_unit_test (test_prometheus),
        cmocka_unit_test (test_bad_inputs),
        cmocka_unit_test (test_cluster_rates),
        cmocka_unit_test (issue_12_sacct_array_ids),
        cmocka_unit_test (issue_12_stdin),
        cmocka_unit_test (test_truncated),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
