/* test_plan_tenancy.c - the plan's multi-tenancy: quotas as the teams ask
 * them (trimmed in proportion only when the asks over-subscribe the
 * fleet), and the queueing check simulating the load the plan costs
 * (services at their grown size, recurring work at its cadence), worked
 * out by hand or against the planners' own demand GPU-hours.
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

#include <jansson.h>

#include "gpuplan/plan.h"
#include "gpuplan/report.h"
#include "plan/plan_private.h"

static int near (double a, double b, double rel)
{
    return fabs (a - b) <= rel * fabs (b) + 1e-6;
}
#define NEAR(a, b) assert_true (near ((a), (b), 1e-9))

struct fx {
    struct gp_catalog *cat;
    struct gp_doc *doc;
    struct gp_plan_spec *spec;
    struct gp_plan_result *res;
};

static void load_doc (struct fx *f, struct gp_doc *doc, gp_error_t *err)
{
    f->doc = doc;
    if (!f->doc)
        fail_msg ("%s", err->text);
    f->spec = gp_plan_spec_from_doc (f->doc, f->cat, err);
    if (!f->spec)
        fail_msg ("%s", err->text);
}

static void load_text (struct fx *f, const char *text, int run)
{
    gp_error_t err = {0};
    memset (f, 0, sizeof *f);
    f->cat = gp_catalog_load (NULL, &err);
    assert_non_null (f->cat);
    load_doc (f, gp_doc_parse (text, strlen (text), "plan.yaml", &err), &err);
    if (run && !(f->res = gp_plan_run (f->spec, f->cat, &err)))
        fail_msg ("%s", err.text);
}

static void load_file (struct fx *f, const char *path)
{
    gp_error_t err = {0};
    memset (f, 0, sizeof *f);
    f->cat = gp_catalog_load (NULL, &err);
    assert_non_null (f->cat);
    load_doc (f, gp_doc_load (path, &err), &err);
    if (!(f->res = gp_plan_run (f->spec, f->cat, &err)))
        fail_msg ("%s", err.text);
}

static void unload (struct fx *f)
{
    gp_plan_result_destroy (f->res);
    gp_plan_spec_destroy (f->spec);
    gp_doc_destroy (f->doc);
    gp_catalog_destroy (f->cat);
}

/* One service of one 8-GPU replica growing to two (8 -> 16 GPUs) on a
 * 32-GPU fleet over one year, sized by hand: a replica carries 1.5
 * requests/s at the planned headroom, traffic starts at 1 request/s and
 * grows 20 % a quarter, so month t has 1.2^(t/3) requests/s and needs
 * ceil(1.2^(t/3) / 1.5) replicas: 1 while t/3 <= ln 1.5 / ln 1.2 = 2.224
 * (months 0-6), 2 after (months 7-11; 1.2^(11/3) = 1.95 < 3).
 * Demand: (7 x 8 + 5 x 16) GPU-months = 136 x 730 h = 99,280 GPU-hours;
 * the fleet: 32 x 12 x 730 = 280,320 GPU-hours; ratio 0.3542.  The
 * simulation holds replica 1 all year and replica 2 from month 7:
 * 8 x 12 + 8 x 5 = 136 GPU-months of 32 x 12: utilization 136 / 384 =
 * 0.3542, at least 80 % of the ratio (a service held at its first
 * month's size gives 96 / 384 = 0.25 < 0.8 x 0.3542 = 0.283).
 */
static void test_service_growth_by_hand (void **state)
{
    (void)state;
    static const char spec[] =
        "name: grow\n"
        "horizon: 1y\n"
        "teams:\n"
        "  - {name: web, quota_share: 1}\n"
        "workloads:\n"
        "  - {name: chat, kind: inference, team: web, model: llama3.1-8b,\n"
        "     requests_per_s: 1, input_tokens: 1000, output_tokens: 200,\n"
        "     growth_per_quarter: 0.2, ttft: 2s, tpot: 100ms}\n"
        "options:\n"
        "  - {name: h100, kind: onprem, accelerator: H100-SXM, gpus: 32}\n";
    struct fx f;
    load_text (&f, spec, 0);
    static struct plan_sizing z;
    memset (&z, 0, sizeof z);
    z.n_periods = 12;
    z.job_gpus[0] = 8;
    z.replica_rps[0] = 1.5;
    static struct gp_plan_option o;
    memset (&o, 0, sizeof o);
    snprintf (o.name, sizeof o.name, "h100");
    o.gpus = 32;
    o.gpus_per_node = 8;
    o.nodes = 4;
    o.scale_up_domain = 8;
    o.n_periods = 12;
    o.n_quotas = 1;
    snprintf (o.quotas[0].team, sizeof o.quotas[0].team, "web");
    o.quotas[0].gpus = 32;
    for (size_t t = 0; t < 12; t++) {
        double g = gp_plan_service_gpus (&f.spec->workloads[0], &z, 0, t);
        assert_true (g == (t <= 6 ? 8.0 : 16.0));
        o.demand_gpus[t] = g;
    }
    gp_plan_simulate (f.spec, &f.spec->options[0], &z, &o);
    assert_int_equal (o.sim.code, 0);
    assert_int_equal (o.sim_jobs, 2); /* one job per replica */
    NEAR (o.sim_window_start, 0);
    NEAR (o.sim_window_months, 12);
    NEAR (o.sim_demand_gpu_hours, 136 * 730.0);
    NEAR (o.sim_provisioned_gpu_hours, 32 * 12 * 730.0);
    assert_true (near (o.utilization, 136.0 / 384, 1e-6));
    assert_true (o.utilization >= 0.8 * 99280.0 / 280320.0);
    unload (&f);
}

/* The shipped examples: on every on-prem option the whole horizon is
 * simulated (window = the horizon, so its demand and fleet GPU-hours are
 * the option's own columns) and the simulated utilization is at least
 * 80 % of demand GPU-hours / provisioned GPU-hours.  The enterprise H100
 * build's demand is 29.8 % of what it provisions (31.3 %, the issue's
 * figure, before cuDNN attention on Hopper: docs/model/training.md,
 * "Attention kernel").
 */
static void check_example (const char *path, int *onprem)
{
    struct fx f;
    load_file (&f, path);
    for (size_t i = 0; i < f.res->n_options; i++) {
        const struct gp_plan_option *o = &f.res->options[i];
        if (o->kind != GP_OPT_ONPREM || o->compute.code != 0)
            continue;
        (*onprem)++;
        assert_int_equal (o->sim.code, 0);
        NEAR (o->sim_window_start, 0);
        NEAR (o->sim_window_months, (double)o->n_periods);
        assert_true (near (o->sim_demand_gpu_hours, o->demand_gpu_hours,
                           1e-9));
        assert_true (near (o->sim_provisioned_gpu_hours,
                           o->provisioned_gpu_hours, 1e-9));
        double ratio = o->demand_gpu_hours / o->provisioned_gpu_hours;
        if (o->utilization < 0.8 * ratio)
            fail_msg ("%s: simulated %.4f < 0.8 x %.4f", o->name,
                      o->utilization, ratio);
        if (!strcmp (o->name, "h100-onprem") && strstr (path, "enterprise"))
            assert_true (ratio > 0.29 && ratio < 0.31);
    }
    unload (&f);
}

/* Under the sanitizers the enterprise example (the slowest plan) is left
 * to the release build: the reduced variant checks the startup example.
 */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

static void test_examples_simulate_the_load (void **state)
{
    (void)state;
    int onprem = 0;
    if (!UNDER_ASAN) {
        check_example ("../examples/enterprise-plan.yaml", &onprem);
        assert_int_equal (onprem, 3);
    }
    check_example ("../examples/startup-plan.yaml", &onprem);
    assert_int_equal (onprem, UNDER_ASAN ? 1 : 4);
}

/* A horizon with too many jobs is simulated over its busiest quarter:
 * 1,000 one-hour 8-GPU runs a month for 3 years (36,000 > 20,000 jobs)
 * and a 16-GPU training run in months 10-12 on 32 GPUs.  Months 10-12
 * are the busiest (the only ones with the run): window [10, 13).  By
 * hand: the runs submitted in it are k = 10,000 ... 12,999 of 36,000
 * (every 0.73 h): 3,000 x 8 GPU-h = 24,000; the training run 16 x 3 x
 * 730 = 35,040; demand 59,040 GPU-hours of 32 x 3 x 730 = 70,080
 * (0.8425).  At most two runs overlap (16 GPUs) beside the 16-GPU run,
 * so nothing waits: 3,001 jobs, utilization 59,040 GPU-h over 32 GPUs x
 * (2,190 h + the last run's 0.27 h past the window) = 0.8424.
 */
static void test_busiest_quarter (void **state)
{
    (void)state;
    static const char spec[] =
        "name: busy\n"
        "horizon: 3y\n"
        "teams:\n"
        "  - {name: r, quota_share: 1}\n"
        "workloads:\n"
        "  - {name: ft, kind: recurring, team: r, model: llama3-8b,\n"
        "     tokens: 1B, runs_per_month: 1000}\n"
        "  - {name: pre, kind: training, team: r, model: llama3-8b,\n"
        "     tokens: 1T, deadline: 100d, start_month: 10}\n"
        "options:\n"
        "  - {name: h100, kind: onprem, accelerator: H100-SXM, gpus: 32}\n";
    struct fx f;
    load_text (&f, spec, 0);
    static struct plan_sizing z;
    memset (&z, 0, sizeof z);
    z.n_periods = 36;
    z.job_gpus[0] = 8;
    z.job_s[0] = 3600;
    z.job_gpus[1] = 16;
    z.job_s[1] = 3 * MONTH_S;
    static struct gp_plan_option o;
    memset (&o, 0, sizeof o);
    snprintf (o.name, sizeof o.name, "h100");
    o.gpus = 32;
    o.gpus_per_node = 8;
    o.nodes = 4;
    o.scale_up_domain = 8;
    o.n_periods = 36;
    o.n_quotas = 1;
    snprintf (o.quotas[0].team, sizeof o.quotas[0].team, "r");
    o.quotas[0].gpus = 32;
    for (size_t t = 0; t < 36; t++)
        o.demand_gpus[t] = 8000.0 / 730 + (t >= 10 && t < 13 ? 16 : 0);
    gp_plan_simulate (f.spec, &f.spec->options[0], &z, &o);
    assert_int_equal (o.sim.code, 0);
    NEAR (o.sim_window_start, 10);
    NEAR (o.sim_window_months, 3);
    assert_int_equal (o.sim_jobs, 3001);
    NEAR (o.sim_demand_gpu_hours, 59040);
    NEAR (o.sim_provisioned_gpu_hours, 70080);
    assert_true (near (o.utilization, 59040 / (32 * (2190 + 0.27)), 0.01));
    assert_true (o.utilization >= 0.8 * 59040 / 70080);
    unload (&f);
}

static const char quota_spec[] =
    "name: q\n"
    "horizon: 1y\n"
    "teams:\n"
    "  - {name: a, quota_share: %s}\n"
    "  - {name: b, quota_share: %s}\n"
    "workloads:\n"
    "  - {name: ft, kind: recurring, team: a, model: llama3-8b,\n"
    "     trace: cli/specs/plan-flat16.csv}\n"
    "options:\n"
    "  - {name: h100, kind: onprem, accelerator: H100-SXM, gpus: %d}\n";

/* The case: a team asking 50 % gets 50 %, one asking 33 % gets
 * 33 %, on a fleet that fits both: 200 GPUs -> floor(0.5 x 200) = 100
 * and floor(0.33 x 200) = 66; 34 GPUs nobody asked for stay in the
 * cohort.  No trim, no reason.
 */
static void test_quotas_as_asked (void **state)
{
    (void)state;
    char text[1024];
    snprintf (text, sizeof text, quota_spec, "0.5", "0.33", 200);
    struct fx f;
    load_text (&f, text, 1);
    const struct gp_plan_option *o = &f.res->options[0];
    assert_int_equal (o->gpus, 200);
    assert_int_equal (o->n_quotas, 2);
    assert_int_equal (o->quotas[0].gpus, 100);
    assert_int_equal (o->quotas[1].gpus, 66);
    NEAR (o->quotas[0].share, 0.5);
    NEAR (o->quotas[1].share, 0.33);
    NEAR (o->quotas[0].wished_share, 0.5);
    NEAR (o->quotas[1].wished_share, 0.33);
    NEAR (o->quota_asked_total, 0.83);
    assert_int_equal (o->quota_trim, GP_QUOTA_AS_ASKED);
    assert_string_equal (o->quota_trim_why, "");
    assert_int_equal (o->sim.code, 0);
    /* the two 8-GPU jobs run all year: 16 of 200 GPUs */
    assert_true (near (o->utilization, 16.0 / 200, 1e-6));
    unload (&f);
}

/* Asks over the fleet: 75 % + 50 % = 125 %, each scaled by 1 / 1.25:
 * 60 % and 40 % of 16 -> floor(9.6) = 9 and floor(6.4) = 6; the reason
 * is typed, in the report and in the JSON.
 */
static void test_quotas_oversubscribed (void **state)
{
    (void)state;
    char text[1024];
    snprintf (text, sizeof text, quota_spec, "0.75", "0.5", 16);
    struct fx f;
    load_text (&f, text, 1);
    const struct gp_plan_option *o = &f.res->options[0];
    assert_int_equal (o->quotas[0].gpus, 9);
    assert_int_equal (o->quotas[1].gpus, 6);
    NEAR (o->quotas[0].wished_share, 0.75);
    NEAR (o->quota_asked_total, 1.25);
    assert_int_equal (o->quota_trim, GP_QUOTA_TRIM_OVERSUBSCRIBED);
    assert_non_null (strstr (o->quota_trim_why, "125%"));
    assert_non_null (strstr (o->quota_trim_why, "x 0.800"));
    gp_error_t err = {0};
    char *txt = gp_report_render (f.res, GP_REPORT_TEXT, &err);
    assert_non_null (txt);
    assert_non_null (strstr (txt, "9 GPUs (56%; asked 75%)"));
    assert_non_null (strstr (txt, "trimmed: the teams ask for 125%"));
    free (txt);
    json_t *j = gp_report_json (f.res);
    assert_non_null (j);
    json_t *t = json_object_get (json_array_get (json_object_get (j,
                                                                  "options"),
                                                 0),
                                 "tenancy");
    assert_string_equal (json_string_value (json_object_get (t,
                                                             "quota_trim")),
                         "oversubscribed");
    assert_non_null (json_string_value (json_object_get (t,
                                                         "quota_trim_"
                                                         "reason")));
    json_t *sim = json_object_get (t, "simulation");
    assert_true (json_is_number (json_object_get (sim, "utilization")));
    NEAR (json_number_value (json_object_get (sim, "demand_gpu_hours")),
          16 * 8760.0);
    NEAR (json_number_value (json_object_get (sim, "provisioned_gpu_hours")),
          16 * 8760.0);
    json_decref (j);
    unload (&f);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_service_growth_by_hand),
        cmocka_unit_test (test_busiest_quarter),
        cmocka_unit_test (test_quotas_as_asked),
        cmocka_unit_test (test_quotas_oversubscribed),
        cmocka_unit_test (test_examples_simulate_the_load),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
