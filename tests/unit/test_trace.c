/* test_trace.c - trace readers, format detection, bad rows, synthetic
 * generator.  Expected counts of the real samples under traces/ were
 * obtained independently with Python's csv module (a second reader);
 * the sacct and generic cases are worked out by hand from the text.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "gpuplan/trace.h"

#define TR GP_SOURCE_DIR "/traces"

static struct gp_jobset *parse (const char *text, unsigned flags,
                                gp_error_t *err)
{
    struct gp_trace_opts o = {.format = GP_TRACE_AUTO, .flags = flags};
    return gp_trace_parse (text, strlen (text), "t.csv", &o, err);
}

static void test_detect (void **state)
{
    (void)state;
    static const struct {
        const char *head;
        enum gp_trace_format f;
    } cases[] = {
        {"timestamp,duration,num_gpus,gpu_time,cluster\n", GP_TRACE_PHILLY},
        {"job_id,num_gpu,submit_time,iterations\n", GP_TRACE_TIRESIAS},
        {"name,time,application,num_replicas,batch_size\n", GP_TRACE_POLLUX},
        {"name,cpu_milli,memory_mib,num_gpu,gpu_milli\n",
         GP_TRACE_ALIBABA2023},
        {"JobID|User|Account\n", GP_TRACE_SACCT},
        {"id,submit,duration,gpus\n", GP_TRACE_GENERIC},
        {"ResNet-50\tcmd\t--n\t1\t100\t0\t1\n", GP_TRACE_GAVEL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_int_equal (gp_trace_detect (cases[i].head,
                                           strlen (cases[i].head)),
                          cases[i].f);
    enum gp_trace_format f;
    gp_error_t err;
    assert_int_equal (gp_trace_format_parse ("sacct", &f, &err), 0);
    assert_int_equal (f, GP_TRACE_SACCT);
    assert_int_equal (gp_trace_format_parse ("swf", &f, &err), GP_ENOTFOUND);
    assert_non_null (strstr (err.text, "generic"));
}

static void test_generic_ok (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_jobset *js = gp_trace_read (TR "/generic/example.csv", NULL,
                                          &err);
    assert_non_null (js);
    assert_int_equal (js->n_jobs, 5);
    assert_string_equal (js->format, "generic");
    /* Row 2: "2,10min,45min,1,research,0,," */
    assert_true (js->jobs[1].submit_s == 600);
    assert_true (js->jobs[1].duration_s == 2700);
    assert_int_equal (js->jobs[1].n_gpus, 1);
    assert_true (js->jobs[1].ckpt_interval_s == 0);
    /* Row 3: 64 GPUs, priority 10, checkpoint 1 h, comm share 0.25 */
    assert_int_equal (js->jobs[2].n_gpus, 64);
    assert_int_equal (js->jobs[2].priority, 10);
    assert_true (js->jobs[2].ckpt_interval_s == 3600);
    assert_true (js->jobs[2].comm_share == 0.25);
    assert_true (js->jobs[4].submit_s == 5400);
    assert_int_equal (js->n_teams, 3);
    assert_string_equal (js->teams[js->jobs[2].team], "pretrain");
    gp_jobset_destroy (js);
}

static void test_generic_bad (void **state)
{
    (void)state;
    gp_error_t err = {0};
    const char *bad = "id,submit,duration,gpus\n"
                      "1,0,10,2\n"
                      "2,5,10,two\n"
                      "3,5,-1,1\n"
                      "4,6,10,1\n";
    assert_null (parse (bad, 0, &err));
    assert_int_equal (err.code, GP_EPARSE);
    assert_non_null (strstr (err.text, "t.csv:3: column 'gpus'"));
    struct gp_jobset *js = parse (bad, GP_TRACE_SKIP_BAD, &err);
    assert_non_null (js);
    assert_int_equal (js->n_jobs, 2);
    assert_int_equal (js->n_skipped, 2);
    assert_non_null (strstr (js->first_skip, "t.csv:3:"));
    gp_jobset_destroy (js);
    /* Missing required column, wrong field count, share on 2 GPUs. */
    assert_null (parse ("id,submit,gpus\n1,0,1\n", 0, &err));
    assert_non_null (strstr (err.text, "missing column 'duration'"));
    assert_null (parse ("submit,duration,gpus\n0,1\n", 0, &err));
    assert_non_null (strstr (err.text, "t.csv:2: 2 fields"));
    assert_null (parse ("submit,duration,gpus,gpu_milli\n0,1,2,500\n", 0,
                        &err));
    assert_non_null (strstr (err.text, "gpu_milli"));
    assert_null (parse ("submit,duration,gpus\n", 0, &err));
    assert_non_null (strstr (err.text, "no jobs"));
    /* 0-GPU and 0-second rows are ignored, not errors. */
    js = parse ("submit,duration,gpus\n0,10,0\n0,0,1\n1,5,1\n", 0, &err);
    assert_non_null (js);
    assert_int_equal (js->n_jobs, 1);
    assert_int_equal (js->n_ignored, 2);
    gp_jobset_destroy (js);
}

static void test_philly (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_jobset *js = gp_trace_read (TR "/philly/philly-2000.csv", NULL,
                                          &err);
    assert_non_null (js);
    assert_string_equal (js->format, "philly");
    assert_int_equal (js->n_jobs, 2000);
    /* First row "2017-10-09 07:01:55,66.0,1,66.0,11cb48"; the earliest
     * submit of the slice is 2,754,245 s earlier.
     */
    assert_true (js->jobs[0].duration_s == 66);
    assert_int_equal (js->jobs[0].n_gpus, 1);
    assert_true (js->jobs[0].submit_s == 2754245);
    assert_string_equal (js->teams[js->jobs[0].team], "11cb48");
    long long gpus = 0;
    double t0 = 1e18;
    for (size_t i = 0; i < js->n_jobs; i++) {
        gpus += js->jobs[i].n_gpus;
        if (js->jobs[i].submit_s < t0)
            t0 = js->jobs[i].submit_s;
    }
    assert_int_equal (gpus, 2319);
    assert_true (t0 == 0);
    gp_jobset_destroy (js);
    /* A malformed timestamp names the line and column. */
    assert_null (parse ("timestamp,duration,num_gpus,gpu_time,cluster\n"
                        "2017-13-01 00:00:00,5,1,5,x\n",
                        0, &err));
    assert_non_null (strstr (err.text, "t.csv:2: column 'timestamp'"));
}

static void test_tiresias (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_jobset *js = gp_trace_read (TR "/tiresias/60_job.csv", NULL,
                                          &err);
    assert_non_null (js);
    assert_int_equal (js->n_jobs, 60);
    /* "1,8,30,133,vgg11,147,23" */
    assert_int_equal (js->jobs[1].id, 1);
    assert_int_equal (js->jobs[1].n_gpus, 8);
    assert_true (js->jobs[1].submit_s == 30);
    assert_true (js->jobs[1].duration_s == 147);
    gp_jobset_destroy (js);
}

static void test_alibaba (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_jobset *js = gp_trace_read (TR "/alibaba2023/pods.csv", NULL,
                                          &err);
    assert_non_null (js);
    assert_string_equal (js->format, "alibaba2023");
    /* 8,152 pods: 1,088 CPU-only and 897 never scheduled are ignored. */
    assert_int_equal (js->n_jobs, 6203);
    assert_int_equal (js->n_ignored, 1949);
    /* openb-pod-0001: 1 GPU at 460 milli, created 427061, scheduled
     * 427061, deleted 12902960.
     */
    assert_int_equal (js->jobs[1].id, 1);
    assert_int_equal (js->jobs[1].gpu_milli, 460);
    assert_true (js->jobs[1].submit_s == 427061);
    assert_true (js->jobs[1].duration_s == 12902960 - 427061);
    gp_jobset_destroy (js);
}

static void test_sacct (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_jobset *js = gp_trace_read (TR "/sacct/example.txt", NULL,
                                          &err);
    assert_non_null (js);
    assert_string_equal (js->format, "sacct");
    /* 1001, 1002 (typed gres), 1003; ignored: the .batch step, 1004
     * (never started), 1005 (no GPU).
     */
    assert_int_equal (js->n_jobs, 3);
    assert_int_equal (js->n_ignored, 3);
    assert_int_equal (js->jobs[1].id, 1002);
    assert_int_equal (js->jobs[1].n_gpus, 8);
    assert_true (js->jobs[1].submit_s == 1800);
    assert_true (js->jobs[1].duration_s == 86400);
    assert_int_equal (js->jobs[2].n_gpus, 32);
    assert_true (js->jobs[2].duration_s == 1800);
    assert_string_equal (js->teams[js->jobs[2].team], "nlp");
    gp_jobset_destroy (js);
    const char *bad = "JobID|Account|Submit|Start|Elapsed|AllocTRES\n"
                      "7|a|2024-01-01T00:00:00|2024-01-01T00:00:00|1:xx|"
                      "gres/gpu=1\n";
    assert_null (parse (bad, 0, &err));
    assert_non_null (strstr (err.text, "t.csv:2: column 'Elapsed'"));
}

/* Gavel physical-cluster trace: row 2 is Transformer (batch size 16),
 * 11,005 steps on 2 GPUs; the table gives 14.153819944879553 steps/s on
 * consolidated V100s and 8.874933593416035 spread over servers, so the run
 * time is 11005 / 14.1538... s and the spread slowdown 14.15 / 8.87 - 1.
 */
static void test_gavel (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_trace_opts o = {.format = GP_TRACE_AUTO,
                              .gavel_throughputs =
                                  TR "/gavel/throughputs.csv"};
    struct gp_jobset *js =
        gp_trace_read (TR "/gavel/artifact_evaluation.trace", &o, &err);
    if (!js)
        fail_msg ("%s", err.text);
    assert_string_equal (js->format, "gavel");
    assert_int_equal (js->n_jobs, 15);
    assert_true (fabs (js->jobs[0].duration_s - 2931 / 4.394774823323071)
                 < 1e-9);
    assert_int_equal (js->jobs[1].n_gpus, 2);
    assert_true (fabs (js->jobs[1].duration_s - 11005 / 14.153819944879553)
                 < 1e-9);
    assert_true (fabs (js->jobs[1].comm_share
                       - (14.153819944879553 / 8.874933593416035 - 1))
                 < 1e-12);
    gp_jobset_destroy (js);
    /* msr trace: job types without a multi-GPU throughput are bad rows
     * (file:line), skippable; Python counts 197 of 1,181 such rows.
     */
    assert_null (gp_trace_read (TR "/gavel/0e4a51.trace", &o, &err));
    assert_non_null (strstr (err.text, "0e4a51.trace:42: column 'job_type'"));
    o.flags = GP_TRACE_SKIP_BAD;
    js = gp_trace_read (TR "/gavel/0e4a51.trace", &o, &err);
    assert_non_null (js);
    assert_int_equal (js->n_jobs, 984);
    assert_int_equal (js->n_skipped, 197);
    gp_jobset_destroy (js);
    /* Without a throughput table the format is refused. */
    o.gavel_throughputs = NULL;
    assert_null (gp_trace_read (TR "/gavel/0e4a51.trace", &o, &err));
    assert_non_null (strstr (err.text, "--gavel-throughputs"));
}

/* Pollux workload row 1: cifar10 on 6 GPUs at batch 2048.  Iterations to
 * the last epoch: 3178 (validation-2048.csv); consolidated placement "24"
 * at per-GPU batch 2048 / 6 = 341.33, between the measured 257 (0.23076505661010743 s)
 * and 363 (0.27816870212554934 s) rows, interpolated linearly.
 */
static void test_pollux (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_trace_opts o = {.format = GP_TRACE_AUTO,
                              .flags = GP_TRACE_SKIP_BAD,
                              .pollux_profiles = TR "/pollux/profiles"};
    struct gp_jobset *js =
        gp_trace_read (TR "/pollux/workload-1.csv", &o, &err);
    if (!js)
        fail_msg ("%s", err.text);
    assert_string_equal (js->format, "pollux");
    /* 160 jobs; 4 ask more GPUs (24-32) than any measured placement. */
    assert_int_equal (js->n_jobs, 156);
    assert_int_equal (js->n_skipped, 4);
    double f = (2048.0 / 6 - 257) / (363 - 257);
    double st = 0.23076505661010743
                + f * (0.27816870212554934 - 0.23076505661010743);
    assert_true (fabs (js->jobs[0].duration_s - 3178 * st) < 1e-6);
    assert_true (js->jobs[0].submit_s == 107);
    assert_int_equal (js->jobs[0].n_gpus, 6);
    gp_jobset_destroy (js);
    o.flags = 0;
    assert_null (gp_trace_read (TR "/pollux/workload-1.csv", &o, &err));
    assert_non_null (strstr (err.text, "workload-1.csv:13: column "
                                       "'num_replicas'"));
}

static void test_unsupported (void **state)
{
    (void)state;
    gp_error_t err = {0};
    assert_null (parse ("name,time,application,num_replicas,batch_size\n"
                        "j,0,bert,4,64\n",
                        0, &err));
    assert_int_equal (err.code, GP_EINVAL);
    assert_non_null (strstr (err.text, "--pollux-profiles"));
    assert_null (gp_trace_read ("/nonexistent/trace.csv", NULL, &err));
    assert_int_equal (err.code, GP_EIO);
}

static void test_synth (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_synth_params p = {0};
    p.n_jobs = 100000;
    p.seed = 7;
    p.arrival_rate_per_s = 0.5;
    p.duration_median_s = 600;
    p.duration_sigma = 1;
    p.n_teams = 3;
    struct gp_jobset *a = gp_trace_synth (&p, &err);
    struct gp_jobset *b = gp_trace_synth (&p, &err);
    assert_non_null (a);
    assert_non_null (b);
    assert_int_equal (a->n_jobs, 100000);
    assert_memory_equal (a->jobs, b->jobs, a->n_jobs * sizeof *a->jobs);
    /* Mean inter-arrival 1 / rate = 2 s; sample mean within 2 %. */
    double mean = a->jobs[a->n_jobs - 1].submit_s / (double)a->n_jobs;
    assert_true (fabs (mean - 2.0) < 0.04);
    /* Philly mix: 76627 / 82247 = 93.2 % single-GPU jobs. */
    size_t ones = 0;
    for (size_t i = 0; i < a->n_jobs; i++)
        ones += a->jobs[i].n_gpus == 1;
    assert_true (fabs ((double)ones / 1e5 - 0.9317) < 0.005);
    gp_jobset_destroy (a);
    gp_jobset_destroy (b);
    p.n_teams = 0;
    assert_null (gp_trace_synth (&p, &err));
    assert_int_equal (err.code, GP_EINVAL);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_detect),
        cmocka_unit_test (test_generic_ok),
        cmocka_unit_test (test_generic_bad),
        cmocka_unit_test (test_philly),
        cmocka_unit_test (test_tiresias),
        cmocka_unit_test (test_alibaba),
        cmocka_unit_test (test_sacct),
        cmocka_unit_test (test_gavel),
        cmocka_unit_test (test_pollux),
        cmocka_unit_test (test_unsupported),
        cmocka_unit_test (test_synth),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
