/* test_infer_plan.c - the inference plan (gp_infer_plan) called directly.
 *
 * Hand-computed references (data/catalog/instances.csv):
 *   H100-SXM is priced from p5.48xlarge: $55.04 per node-hour for 8 GPUs,
 *     so $55.04 / 8 = $6.88 per GPU-hour (p5.4xlarge ties at $6.88 for
 *     one GPU; ties keep the first row).  The cheaper a3-highgpu-8g
 *     us-central1 row ($43.06615 / 8 = $5.38) carries the price flag
 *     suspect_flex_start and is skipped.
 *   A replica of tp x pp GPUs: GPUs = replicas x tp x pp; replicas of at
 *     most 8 GPUs pack onto 8-GPU nodes: nodes = ceil(GPUs / 8); the
 *     hourly cost at the peak is nodes x $55.04.
 *   Cost per 1M output tokens at the peak = $/h / (rps x output tokens x
 *     3600 s) x 1e6.
 *   The day without a profile is 12 h at the peak and 12 h at the trough:
 *     $/day = 12 h x $55.04 x (nodes at peak + nodes at trough).
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

#include <jansson.h>

#include "gpuplan/infer.h"
#include "gpuplan/price.h"

static struct gp_catalog *cat;

static int setup (void **state)
{
    (void)state;
    gp_error_t err = {0};
    cat = gp_catalog_load (NULL, &err);
    return cat ? 0 : -1;
}

static int teardown (void **state)
{
    (void)state;
    gp_catalog_destroy (cat);
    return 0;
}

/* Llama 3.1 8B, 3 req/s, 800 in / 200 out tokens, no MIG. */
static void small_request (struct gp_infer_request *rq, const char *gpus)
{
    gp_error_t err = {0};
    gp_infer_request_defaults (rq);
    snprintf (rq->model, sizeof rq->model, "llama3.1-8b");
    assert_int_equal (gp_infer_request_set_accels (rq, gpus, &err), 0);
    rq->rps_peak = 3;
    rq->prompt = 800;
    rq->output = 200;
    rq->no_mig = 1;
    rq->slo.ttft_p95_s = 1.0;
}

static int ceil_div (int a, int b)
{
    return (a + b - 1) / b;
}

static void test_h100_priced_by_hand (void **state)
{
    (void)state;
    struct gp_infer_request rq;
    small_request (&rq, "H100-SXM");
    rq.tp = 2;
    struct gp_infer_plan_result *r = NULL;
    gp_error_t err = {0};
    assert_int_equal (gp_infer_plan (cat, &rq, &r, &err), 0);
    assert_non_null (r);
    assert_int_equal (r->n_options, 1);
    const struct gp_infer_plan_option *x = &r->options[0];
    assert_true (x->opt.feasible);
    assert_int_equal (x->price_status, GP_INFER_PRICED);
    assert_non_null (x->price.inst);
    assert_string_equal (x->price.inst->id, "p5.48xlarge");
    assert_false (x->price.flagged);
    assert_float_equal (x->price.usd_per_gpu_hour, 55.04 / 8, 1e-12);
    assert_float_equal (x->price.usd_per_gpu_hour, 6.88, 1e-12);
    assert_int_equal (x->gpus_per_node, 8);
    assert_int_equal (x->opt.tp, 2);
    assert_int_equal (x->opt.pp, 1);
    int gpus = x->opt.size.replicas * 2;
    assert_int_equal (x->opt.gpus_whole, gpus);
    assert_int_equal (x->nodes, ceil_div (gpus, 8));
    assert_float_equal (x->usd_per_hour, x->nodes * 55.04, 1e-9);
    assert_float_equal (x->usd_per_1m_output_tokens,
                        x->nodes * 55.04 / (3.0 * 200 * 3600) * 1e6, 1e-9);
    /* no profile and no trough: two 12 h periods at the peak */
    assert_int_equal (x->fleet.n_periods, 2);
    assert_float_equal (x->fleet.usd_per_day,
                        12 * 55.04 * 2 * ceil_div (x->fleet_replicas[0] * 2,
                                                   8), 1e-9);
    assert_float_equal (x->fleet.output_tokens_per_day,
                        3.0 * 200 * 86400, 1e-3);
    assert_int_equal (r->recommended, 0);
    assert_int_equal (r->choice, GP_INFER_CHOICE_CHEAPEST_PRICED);
    /* the one pricing rule gives the same GPU-hour */
    struct gp_gpu_price p;
    assert_int_equal (gp_price_gpu_hour (cat, x->opt.accel, NULL, &p, &err),
                      0);
    assert_float_equal (p.usd_per_gpu_hour, x->price.usd_per_gpu_hour, 0);
    gp_infer_plan_destroy (r);
}

/* A profile of 4 periods of 6 h: peak 4, trough 0.5, mean 1.875. */
static void test_profile_resolves_rates (void **state)
{
    (void)state;
    struct gp_infer_request rq;
    small_request (&rq, "H100-SXM");
    rq.rps_peak = 0;
    gp_error_t err = {0};
    assert_int_equal (gp_infer_request_set_profile (&rq, "1,2,4,0.5", &err),
                      0);
    struct gp_infer_plan_result *r = NULL;
    assert_int_equal (gp_infer_plan (cat, &rq, &r, &err), 0);
    assert_float_equal (r->request.rps_peak, 4, 0);
    assert_float_equal (r->request.rps_trough, 0.5, 0);
    assert_float_equal (r->request.rps_mean, 1.875, 1e-12);
    const struct gp_infer_plan_option *x = &r->options[0];
    assert_int_equal (x->fleet.n_periods, 4);
    assert_float_equal (x->fleet.hours_per_period, 6, 0);
    /* (1 + 2 + 4 + 0.5) req/s x 6 h x 3600 s x 200 tokens */
    assert_float_equal (x->fleet.output_tokens_per_day,
                        7.5 * 6 * 3600 * 200, 1e-3);
    double day = 0;
    int gpr = x->opt.gpus_per_replica;
    for (size_t i = 0; i < 4; i++)
        day += ceil_div (x->fleet_replicas[i] * gpr, 8) * 55.04 * 6;
    assert_float_equal (x->fleet.usd_per_day, day, 1e-9);
    gp_infer_plan_destroy (r);
}

static void expect_error (struct gp_infer_request *rq, int code,
                          const char *needle)
{
    struct gp_infer_plan_result *r = (void *)1;
    gp_error_t err = {0};
    assert_int_equal (gp_infer_plan (cat, rq, &r, &err), code);
    assert_null (r);
    assert_non_null (strstr (err.text, needle));
}

static void test_bad_input (void **state)
{
    (void)state;
    struct gp_infer_request rq;
    small_request (&rq, "H100-SXM");
    snprintf (rq.model, sizeof rq.model, "llama-99b");
    expect_error (&rq, GP_ENOTFOUND, "llama-99b");
    small_request (&rq, "H100");
    expect_error (&rq, GP_ENOTFOUND, "H100");
    small_request (&rq, "H100-SXM");
    snprintf (rq.instance, sizeof rq.instance, "p9.huge");
    snprintf (rq.instance_origin, sizeof rq.instance_origin, "--instance");
    expect_error (&rq, GP_ENOTFOUND, "--instance: unknown instance "
                                     "'p9.huge'");
    small_request (&rq, "H100-SXM");
    rq.rps_peak = 0;
    expect_error (&rq, GP_EINVAL, "request rate");
    small_request (&rq, "H100-SXM");
    rq.output = 0;
    expect_error (&rq, GP_EINVAL, ">= 1 token");
    gp_error_t err = {0};
    assert_int_equal (gp_infer_request_set_accels (&rq, "", &err),
                      GP_EINVAL);
    assert_int_equal (gp_infer_request_set_precisions (&rq, "fp7", &err),
                      GP_EINVAL);
    assert_int_equal (gp_infer_request_set_profile (&rq, "1,-2", &err),
                      GP_EINVAL);
}

/* An SLO no replica meets even at light load: planned, infeasible, with
 * the SLO as the typed reason and no recommendation.
 */
static void test_impossible_slo (void **state)
{
    (void)state;
    struct gp_infer_request rq;
    small_request (&rq, "H100-SXM");
    rq.slo.tpot_p95_s = 1e-4;
    struct gp_infer_plan_result *r = NULL;
    gp_error_t err = {0};
    assert_int_equal (gp_infer_plan (cat, &rq, &r, &err), 0);
    assert_false (r->options[0].opt.feasible);
    assert_int_equal (r->options[0].opt.limit, GP_INFER_LIMIT_TPOT_P95);
    assert_int_equal (r->recommended, -1);
    assert_int_equal (r->choice, GP_INFER_CHOICE_NONE);
    gp_infer_plan_destroy (r);
}

/* Llama 3.1 405B in BF16 (~810 GB) on one 24 GB L4: memory. */
static void test_fits_nowhere (void **state)
{
    (void)state;
    struct gp_infer_request rq;
    small_request (&rq, "L4");
    snprintf (rq.model, sizeof rq.model, "llama3.1-405b");
    rq.tp = rq.pp = 1;
    struct gp_infer_plan_result *r = NULL;
    gp_error_t err = {0};
    assert_int_equal (gp_infer_plan (cat, &rq, &r, &err), 0);
    assert_false (r->options[0].opt.feasible);
    assert_int_equal (r->options[0].opt.limit, GP_INFER_LIMIT_MEMORY);
    assert_int_equal (r->choice, GP_INFER_CHOICE_NONE);
    gp_infer_plan_destroy (r);
}

/* MI300X has no priced instance; a named instance with another
 * accelerator leaves an option unpriced; the choice is then the fewest
 * GPUs, and a priced option always beats an unpriced one.
 */
static void test_unpriced (void **state)
{
    (void)state;
    struct gp_infer_request rq;
    small_request (&rq, "MI300X");
    struct gp_infer_plan_result *r = NULL;
    gp_error_t err = {0};
    assert_int_equal (gp_infer_plan (cat, &rq, &r, &err), 0);
    assert_int_equal (r->options[0].price_status, GP_INFER_UNPRICED);
    assert_null (r->options[0].price.inst);
    assert_float_equal (r->options[0].usd_per_hour, 0, 0);
    assert_int_equal (r->choice, GP_INFER_CHOICE_FEWEST_GPUS);
    gp_infer_plan_destroy (r);

    small_request (&rq, "MI300X,H100-SXM");
    snprintf (rq.instance, sizeof rq.instance, "p5.48xlarge");
    assert_int_equal (gp_infer_plan (cat, &rq, &r, &err), 0);
    assert_int_equal (r->options[0].price_status,
                      GP_INFER_UNPRICED_INSTANCE);
    assert_int_equal (r->options[1].price_status, GP_INFER_PRICED);
    assert_int_equal (r->recommended, 1);
    assert_int_equal (r->choice, GP_INFER_CHOICE_CHEAPEST_PRICED);
    gp_infer_plan_destroy (r);

    small_request (&rq, "A100-SXM-80GB");
    snprintf (rq.instance, sizeof rq.instance, "p5.48xlarge");
    assert_int_equal (gp_infer_plan (cat, &rq, &r, &err), 0);
    assert_int_equal (r->options[0].price_status,
                      GP_INFER_UNPRICED_INSTANCE);
    gp_infer_plan_destroy (r);
}

/* The JSON keeps the documented field names and adds the price's date,
 * flags and source.
 */
static void test_json_fields (void **state)
{
    (void)state;
    struct gp_infer_request rq;
    small_request (&rq, "H100-SXM");
    struct gp_infer_plan_result *r = NULL;
    gp_error_t err = {0};
    assert_int_equal (gp_infer_plan (cat, &rq, &r, &err), 0);
    json_t *j = gp_report_infer_json (r);
    assert_non_null (j);
    json_t *c = json_object_get (json_array_get (json_object_get (j,
                                                                  "options"),
                                                 0),
                                 "cost");
    assert_float_equal (json_real_value (json_object_get (c,
                                                          "usd_per_gpu_hour")),
                        6.88, 1e-12);
    assert_string_equal (json_string_value (json_object_get (c, "instance")),
                         "p5.48xlarge");
    assert_string_equal (json_string_value (json_object_get (c,
                                                             "price_as_of")),
                         "2025-H2");
    assert_int_equal (json_array_size (json_object_get (c, "price_flags")),
                      0);
    assert_non_null (strstr (json_string_value (json_object_get (c,
                                                                 "source")),
                             "SkyPilot"));
    assert_string_equal (json_string_value (json_object_get (
                             j, "recommended_reason")),
                         "cheapest_priced");
    json_decref (j);
    char *text = gp_report_infer_text (r, &err);
    assert_non_null (text);
    assert_non_null (strstr (text, "p5.48xlarge (us-east-1) $6.880/GPU-h, "
                                   "as of 2025-H2"));
    free (text);
    gp_infer_plan_destroy (r);
}

static void test_spec_load (void **state)
{
    (void)state;
    struct gp_infer_request rq;
    gp_infer_request_defaults (&rq);
    gp_error_t err = {0};
    assert_int_equal (gp_infer_spec_load (GP_SOURCE_DIR
                                          "/examples/infer-llama70b-chat.yaml",
                                          &rq, &err),
                      0);
    assert_string_equal (rq.model, "llama3.3-70b");
    assert_int_equal (rq.n_accels, 4);
    assert_string_equal (rq.accels[0], "H100-SXM");
    assert_int_equal (rq.n_precisions, 2);
    assert_int_equal (rq.precisions[0], GP_DT_FP8);
    assert_float_equal (rq.prompt, 2000, 0);
    assert_float_equal (rq.output, 400, 0);
    assert_float_equal (rq.slo.tpot_p95_s, 0.05, 1e-12);
    gp_infer_request_defaults (&rq);
    assert_int_equal (gp_infer_spec_load (GP_SOURCE_DIR
                                          "/tests/cli/specs/infer-bad-key.yaml",
                                          &rq, &err),
                      GP_EPARSE);
    assert_non_null (strstr (err.text, "infer-bad-key.yaml:4:3:"));
    assert_non_null (strstr (err.text, "'outptu'"));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_h100_priced_by_hand),
        cmocka_unit_test (test_profile_resolves_rates),
        cmocka_unit_test (test_bad_input),
        cmocka_unit_test (test_impossible_slo),
        cmocka_unit_test (test_fits_nowhere),
        cmocka_unit_test (test_unpriced),
        cmocka_unit_test (test_json_fields),
        cmocka_unit_test (test_spec_load),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
