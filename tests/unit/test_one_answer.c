/* test_one_answer.c - the same question gets the same answer from every
 * command: one pricing rule, one registry of defaults.
 *
 * Expected values, by hand from data/catalog/instances.csv: an H100-SXM
 * GPU-hour on demand is p5.48xlarge's 55.04 / 8 = $6.88 (the cheaper
 * a3-highgpu-8g row, 43.06615 / 8 = $5.38, is a flagged flex-start
 * price).  `train` reports it as results[0].cost_hook.
 * cheapest_on_demand_usd_per_gpu_hour and `infer` as options[].cost.
 * usd_per_gpu_hour (docs/formats/train.md, infer.md).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "gpuplan/gpuplan.h"

static struct gp_catalog *cat;

static double train_price (void)
{
    struct gp_train_request rq;
    gp_train_request_init (&rq);
    rq.model = "llama3.1-70b";
    rq.accels = "H100-SXM";
    rq.tokens = 2e12;
    rq.days = 40;
    rq.seq_len = 8192;
    struct gp_train_plan_result *r = NULL;
    gp_error_t err = {0};
    assert_int_equal (gp_train_plan (cat, &rq, &r, &err), 0);
    json_t *j = gp_report_train_json (r);
    json_t *v = json_object_get (
        json_object_get (json_array_get (json_object_get (j, "results"), 0),
                         "cost_hook"),
        "cheapest_on_demand_usd_per_gpu_hour");
    assert_true (json_is_number (v));
    double usd = json_number_value (v);
    json_decref (j);
    gp_train_plan_result_destroy (r);
    return usd;
}

static double infer_price (const struct gp_defaults *d, const char **kv)
{
    struct gp_infer_request q;
    gp_error_t err = {0};
    gp_infer_request_defaults (&q);
    snprintf (q.model, sizeof q.model, "%s", "llama3.1-70b");
    assert_int_equal (gp_infer_request_set_accels (&q, "H100-SXM", &err), 0);
    q.rps_peak = 2;
    q.prompt = 1000;
    q.output = 200;
    q.defaults = d;
    struct gp_infer_plan_result *r = NULL;
    assert_int_equal (gp_infer_plan (cat, &q, &r, &err), 0);
    json_t *j = gp_report_infer_json (r);
    json_t *o = json_array_get (json_object_get (j, "options"), 0);
    double usd = json_number_value (
        json_object_get (json_object_get (o, "cost"), "usd_per_gpu_hour"));
    static char kvbuf[16];
    snprintf (kvbuf, sizeof kvbuf, "%s",
              json_string_value (json_object_get (o, "kv_precision")));
    *kv = kvbuf;
    json_decref (j);
    gp_infer_plan_destroy (r);
    return usd;
}

/* train and infer price an H100-SXM GPU-hour alike, at the hand value. */
static void test_same_price (void **state)
{
    (void)state;
    const char *kv = NULL;
    double t = train_price (), i = infer_price (NULL, &kv);
    assert_true (fabs (t - 55.04 / 8) < 1e-9);
    assert_true (fabs (i - t) <= 0.01 * t);
}

/* One registry value reaches every model that reads it: overriding
 * reliability.restart_s moves the training model's goodput and the
 * simulator's restart cost; infer.kv_dtype moves infer's KV cache.
 */
static void test_overrides_reach_models (void **state)
{
    (void)state;
    struct gp_defaults d;
    gp_error_t err = {0};
    gp_defaults_init (&d);
    assert_int_equal (gp_defaults_set_str (&d, "reliability.restart_s=3600",
                                           &err), 0);
    /* simulator */
    struct gp_sim_request sq;
    gp_sim_request_init_defaults (&sq, &d);
    assert_true (sq.cfg.restart_cost_s == 3600);
    gp_sim_request_init (&sq);
    assert_true (sq.cfg.restart_cost_s
                 == gp_default (NULL, GP_DEF_RELIABILITY_RESTART_S));
    /* training: the lost fraction grows by lambda x (3600 - 600) s, lambda
     * = n x fail_per_gpu_hour / 3600 (Young/Daly model, docs/model/
     * training.md); with a fixed GPU count the goodput must fall.
     */
    struct gp_train_request rq;
    gp_train_request_init (&rq);
    rq.model = "llama3.1-70b";
    rq.accels = "H100-SXM";
    rq.tokens = 2e12;
    rq.gpus = 768;
    rq.seq_len = 8192;
    struct gp_train_plan_result *a = NULL, *b = NULL;
    assert_int_equal (gp_train_plan (cat, &rq, &a, &err), 0);
    rq.defaults = &d;
    assert_int_equal (gp_train_plan (cat, &rq, &b, &err), 0);
    double ga = a->accels[0].rel.goodput, gb = b->accels[0].rel.goodput;
    double lam = 768 * gp_default (NULL, GP_DEF_RELIABILITY_FAIL_PER_GPU_HOUR)
                 / 3600.0;
    /* Only the restart term changes (the Young/Daly interval does not
     * depend on the restart time).
     */
    assert_true (fabs ((ga - gb) - lam * (3600 - 600)) < 1e-6);
    gp_train_plan_result_destroy (a);
    gp_train_plan_result_destroy (b);
    /* inference */
    const char *kv = NULL;
    infer_price (NULL, &kv);
    assert_string_equal (kv, "bf16");
    assert_int_equal (gp_defaults_set_str (&d, "infer.kv_dtype=fp8", &err),
                      0);
    infer_price (&d, &kv);
    assert_string_equal (kv, "fp8");
    /* An override that names no dtype is an error, not a silent bf16. */
    assert_int_equal (gp_defaults_set_str (&d, "infer.kv_dtype=banana",
                                           &err), 0);
    struct gp_infer_request q;
    gp_infer_request_defaults (&q);
    snprintf (q.model, sizeof q.model, "%s", "llama3.1-70b");
    assert_int_equal (gp_infer_request_set_accels (&q, "H100-SXM", &err), 0);
    q.rps_peak = 2, q.prompt = 1000, q.output = 200, q.defaults = &d;
    struct gp_infer_plan_result *r = NULL;
    assert_true (gp_infer_plan (cat, &q, &r, &err) < 0);
    assert_non_null (strstr (err.text, "infer.kv_dtype"));
    assert_null (r);
}

int main (void)
{
    gp_error_t err = {0};
    cat = gp_catalog_load (NULL, &err);
    if (!cat)
        return 1;
    const struct CMUnitTest t[] = {
        cmocka_unit_test (test_same_price),
        cmocka_unit_test (test_overrides_reach_models),
    };
    int rc = cmocka_run_group_tests (t, NULL, NULL);
    gp_catalog_destroy (cat);
    return rc;
}
