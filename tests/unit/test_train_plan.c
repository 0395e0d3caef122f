/* test_train_plan.c - the training plan as one library call
 * (gp_train_plan): bad requests, the default batch, the pricing rule,
 * typed neighbours and infeasibility, the JSON document, and the same
 * answer from the plan (gp_plan_run) and from gp_train_plan.
 *
 * Expected values are hand calculations (batch = 4,194,304 tokens /
 * sequence length; $55.04 per p5.48xlarge node-hour / 8 GPUs) or come
 * from an independent method (the exhaustive layout search at one node
 * fewer than the sizing chose).
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

#include "gpuplan/catalog.h"
#include "gpuplan/plan.h"
#include "gpuplan/spec.h"
#include "gpuplan/train.h"

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

/* Plan 'rq'; returns the status, the message in 'err'. */
static int plan (const struct gp_train_request *rq,
                 struct gp_train_plan_result **out, gp_error_t *err)
{
    *out = (struct gp_train_plan_result *)1; /* must be reset to NULL */
    int rc = gp_train_plan (cat, rq, out, err);
    if (rc)
        assert_null (*out);
    return rc;
}

static void test_bad_requests (void **state)
{
    (void)state;
    struct gp_train_request rq;
    struct gp_train_plan_result *r;
    gp_error_t err = {0};

    gp_train_request_init (&rq); /* no model at all */
    rq.gpus = 8;
    assert_int_equal (plan (&rq, &r, &err), GP_EINVAL);
    assert_non_null (strstr (err.text, "no model"));

    rq.model = "llama3-8c"; /* unknown: the closest id is named */
    assert_int_equal (plan (&rq, &r, &err), GP_ENOTFOUND);
    assert_non_null (strstr (err.text, "llama3-8b"));

    rq.model = "llama3-8b";
    rq.accels = "H100"; /* unknown accelerator */
    assert_int_equal (plan (&rq, &r, &err), GP_ENOTFOUND);
    assert_non_null (strstr (err.text, "H100-SXM"));

    rq.accels = "H100-SXM,NOPE-9000"; /* the second one is unknown */
    assert_int_equal (plan (&rq, &r, &err), GP_ENOTFOUND);
    assert_non_null (strstr (err.text, "NOPE-9000"));

    rq.accels = NULL;
    rq.instance = "p9.nonexistent";
    assert_int_equal (plan (&rq, &r, &err), GP_ENOTFOUND);

    rq.instance = NULL;
    rq.gpus = 0; /* neither a count nor a deadline */
    assert_int_equal (plan (&rq, &r, &err), GP_EINVAL);
    assert_non_null (strstr (err.text, "--gpus N or --days D"));

    rq.days = 30; /* a deadline and zero tokens */
    rq.tokens = 0;
    assert_int_equal (plan (&rq, &r, &err), GP_EINVAL);
    assert_non_null (strstr (err.text, "--days needs --tokens"));

    rq.days = 0;
    rq.gpus = 8;
    rq.tokens = -1; /* negative */
    assert_int_equal (plan (&rq, &r, &err), GP_EINVAL);
}

/* The default global batch is the registry's 4M tokens: 4,194,304 /
 * 4,096 = 1,024 sequences, / 8,192 = 512; 16,777,216 / 8,192 = 2,048.
 * Rounding is to the nearest power of two on a log scale, the midpoint
 * of 512 and 1,024 being sqrt(512 x 1,024) = 724.1: 3,000,000 / 4,096 =
 * 732.4 sequences -> 1,024; 2,867,200 / 4,096 = 700 -> 512.
 */
static void test_default_batch (void **state)
{
    (void)state;
    struct gp_train_job job;
    gp_train_job_default (&job);
    assert_true (job.seq_len == 4096);
    assert_true (job.global_batch == 1024);
    assert_true (gp_train_batch_sequences (0, 8192) == 512);
    assert_true (gp_train_batch_sequences (16777216, 8192) == 2048);
    assert_true (gp_train_batch_sequences (3e6, 4096) == 1024);
    assert_true (gp_train_batch_sequences (2867200, 4096) == 512);
    assert_true (gp_train_batch_sequences (100, 8192) == 1);

    struct gp_train_request rq;
    struct gp_train_plan_result *r;
    gp_error_t err = {0};
    gp_train_request_init (&rq);
    rq.model = "llama3-8b";
    rq.gpus = 8;
    rq.seq_len = 8192;
    assert_int_equal (plan (&rq, &r, &err), 0);
    assert_true (r->job.global_batch == 512);
    gp_train_plan_result_destroy (r);
    /* an override of the registry's key: 2M tokens / 8,192 = 256 */
    struct gp_defaults d;
    gp_defaults_init (&d);
    assert_int_equal (gp_defaults_set (&d, "train.batch_tokens", 2097152,
                                       &err),
                      0);
    rq.defaults = &d;
    assert_int_equal (plan (&rq, &r, &err), 0);
    assert_true (r->job.global_batch == 256);
    gp_train_plan_result_destroy (r);
    rq.defaults = NULL;
    rq.global_batch = 96; /* given in sequences: kept */
    assert_int_equal (plan (&rq, &r, &err), 0);
    assert_true (r->job.global_batch == 96);
    gp_train_plan_result_destroy (r);
}

/* The cost hook prices with the one rule: the a3-highgpu-8g row at
 * $43.07 per node-hour ($5.38 per GPU-hour) carries suspect_flex_start
 * and is skipped; p5.48xlarge at $55.04 / 8 = $6.88 is the cheapest
 * unflagged on-demand H100-SXM.
 */
static void test_cost_hook (void **state)
{
    (void)state;
    struct gp_train_request rq;
    struct gp_train_plan_result *r;
    gp_error_t err = {0};
    gp_train_request_init (&rq);
    rq.model = "llama3-8b";
    rq.gpus = 8;
    rq.tokens = 1e9;
    assert_int_equal (plan (&rq, &r, &err), 0);
    const struct gp_train_accel_plan *p = &r->accels[0];
    assert_true (p->feasible);
    assert_non_null (p->price.inst);
    assert_string_equal (p->price.inst->id, "p5.48xlarge");
    assert_float_equal (p->price.usd_per_gpu_hour, 55.04 / 8, 1e-9);
    assert_float_equal (p->on_demand_usd, p->gpu_hours * 6.88, 1e-6);

    json_t *j = gp_report_train_json (r);
    json_t *c = json_object_get (
        json_array_get (json_object_get (j, "results"), 0), "cost_hook");
    assert_string_equal (json_string_value (json_object_get (c, "instance")),
                         "p5.48xlarge");
    assert_float_equal (json_number_value (json_object_get (
                            c, "cheapest_on_demand_usd_per_gpu_hour")),
                        6.88, 1e-9);
    assert_string_equal (
        json_string_value (json_object_get (c, "price_as_of")), "2025-H2");
    assert_true (json_is_null (json_object_get (c, "price_flags")));
    assert_non_null (strstr (json_string_value (json_object_get (c,
                                                                 "source")),
                             "SkyPilot"));
    json_decref (j);

    char *text = gp_report_train_text (r);
    assert_non_null (text);
    assert_non_null (strstr (text, "$6.88/GPU-hour (cheapest on-demand: aws "
                                   "p5.48xlarge, us-east-1)"));
    assert_non_null (strstr (text, "price as of 2025-H2; source: SkyPilot"));
    free (text);
    gp_train_plan_result_destroy (r);
}

/* 405B on 8 x 80 GB: weights, fp32 gradients and Adam states alone are
 * 405e9 x 18 B / 8 = 911 GB per GPU even fully sharded: no layout fits,
 * and the reason is typed, with the closest layout over capacity.
 */
static void test_infeasible_typed (void **state)
{
    (void)state;
    struct gp_train_request rq;
    struct gp_train_plan_result *r;
    gp_error_t err = {0};
    gp_train_request_init (&rq);
    rq.model = "llama3.1-405b";
    rq.gpus = 8;
    assert_int_equal (plan (&rq, &r, &err), 0);
    assert_false (r->any_feasible);
    const struct gp_train_accel_plan *p = &r->accels[0];
    assert_int_equal (p->why, GP_TRAIN_OOM_AT_COUNT);
    assert_true (p->oom_bytes > p->capacity_bytes);
    assert_true (p->capacity_bytes == p->hw.mem_bytes);
    char why[320];
    assert_non_null (strstr (gp_train_reason_text (r, p, why, sizeof why),
                             "no layout fits on 8 GPUs"));
    gp_train_plan_result_destroy (r);
}

/* Every neighbour differs from the chosen layout by its one change, and
 * its verdict's fields agree with a fresh evaluation of that layout.
 */
static void test_neighbours_typed (void **state)
{
    (void)state;
    struct gp_train_request rq;
    struct gp_train_plan_result *r;
    gp_error_t err = {0};
    gp_train_request_init (&rq);
    rq.model = "llama3-70b";
    rq.gpus = 64;
    assert_int_equal (plan (&rq, &r, &err), 0);
    const struct gp_train_accel_plan *p = &r->accels[0];
    assert_true (p->feasible);
    assert_true (p->n_alt > 4);
    const struct gp_train_result *best = &p->top[0];
    for (size_t i = 0; i < p->n_alt; i++) {
        const struct gp_train_neighbour *nb = &p->alt[i];
        struct gp_train_result x;
        gp_error_t e2 = {0};
        struct gp_train_job job = r->job;
        job.global_batch = p->global_batch; /* the batch chosen */
        int bad = gp_train_eval (&r->model, &job, &p->hw, &nb->layout, &x,
                                 &e2);
        if (nb->verdict == GP_VERDICT_INVALID) {
            assert_int_not_equal (bad, 0);
            continue;
        }
        assert_int_equal (bad, 0);
        if (nb->verdict == GP_VERDICT_OOM) {
            assert_false (x.mem.fits);
            continue;
        }
        assert_true (x.mem.fits);
        double slow = x.time.step_s / best->time.step_s - 1;
        assert_float_equal (nb->slowdown, slow, 1e-12);
        assert_int_equal (nb->verdict, slow <= 0 ? GP_VERDICT_AS_FAST
                                                 : GP_VERDICT_SLOWER);
        if (nb->change == GP_CHG_MB_X2)
            assert_int_equal (nb->layout.micro_batch,
                              2 * best->layout.micro_batch);
        if (nb->change == GP_CHG_TP_X2)
            assert_int_equal (nb->layout.tp * nb->layout.dp,
                              best->layout.tp * best->layout.dp);
    }
    gp_train_plan_result_destroy (r);
}

/* Days at 'n' GPUs by the exhaustive layout search and the reliability
 * model (not the sizing), or INFINITY when nothing fits.
 */
static double days_at (const struct gp_train_plan_result *r,
                       const struct gp_train_accel_plan *p, int n,
                       const struct gp_train_rel_params *rp)
{
    struct gp_search_fix fix;
    gp_search_fix_free (&fix);
    struct gp_train_result top[1];
    /* the batch is free: the fastest batch of the range at this count */
    if (!gp_train_search_batch (&r->model, &r->job, &p->hw, n, &fix, top, 1,
                                NULL, NULL))
        return INFINITY;
    struct gp_reliability rel;
    gp_train_reliability_with (&r->model, &r->job, n, p->gpus_per_node, rp,
                               &rel);
    return r->job.tokens / (top[0].time.tokens_per_s * rel.goodput) / 86400;
}

/* The plan and `train` answer the same question with the same GPU count:
 * Llama-3.1-70B, 2T tokens of 8,192, 40 days, on-prem H100.
 */
static void test_plan_matches_train (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_doc *doc = gp_doc_load ("unit/data/plan-train-70b.yaml", &err);
    assert_non_null (doc);
    struct gp_plan_spec *spec = gp_plan_spec_from_doc (doc, cat, &err);
    assert_non_null (spec);
    /* the plan's reliability assumptions, for the same inputs */
    struct gp_train_rel_params rp;
    gp_train_rel_params_init (&rp);
    rp.restart_s = gp_plan_assume (spec, "restart_s");
    rp.ckpt_write_s = gp_plan_assume (spec, "checkpoint_write_s");
    struct gp_plan_result *pr = gp_plan_run (spec, cat, &err);
    assert_non_null (pr);
    assert_true (pr->n_options >= 1);
    long long plan_gpus = pr->options[0].gpus;

    struct gp_train_request rq;
    struct gp_train_plan_result *r;
    gp_train_request_init (&rq);
    rq.model = "llama3.1-70b";
    rq.tokens = 2e12;
    rq.days = 40;
    rq.accels = "H100-SXM";
    rq.seq_len = 8192;
    rq.rel = &rp;
    assert_int_equal (plan (&rq, &r, &err), 0);
    const struct gp_train_accel_plan *p = &r->accels[0];
    assert_true (p->feasible);
    assert_int_equal (plan_gpus, p->n_gpus);
    /* the deadline holds at the chosen size, and one node fewer misses
     * it (independently: the exhaustive search at that size)
     */
    assert_true (p->days <= 40);
    assert_float_equal (days_at (r, p, p->n_gpus, &rp), p->days, 1e-9);
    assert_true (days_at (r, p, p->n_gpus - p->gpus_per_node, &rp) > 40);
    gp_train_plan_result_destroy (r);

    /* `gpuplan train` with its own defaults checkpoints at the Young/Daly
     * optimum, where the plan takes the hourly planning assumption
     * (docs/model/defaults.md, reliability.checkpoint_interval_s): its
     * goodput is at least the plan's, so its count is at most the plan's
     * (608 against 624 here, the batch being chosen per count)
     */
    rq.rel = NULL;
    assert_int_equal (plan (&rq, &r, &err), 0);
    p = &r->accels[0];
    assert_true (p->n_gpus <= plan_gpus);
    assert_true (p->days <= 40);
    assert_true (days_at (r, p, p->n_gpus - p->gpus_per_node, NULL) > 40);
    /* and no smaller whole-node count meets it either */
    for (int n = p->gpus_per_node; n < p->n_gpus; n += p->gpus_per_node)
        assert_true (days_at (r, p, n, NULL) > 40);
    json_t *j = gp_report_train_json (r);
    assert_int_equal (json_integer_value (json_object_get (
                          json_array_get (json_object_get (j, "results"), 0),
                          "n_gpus")),
                      p->n_gpus);
    json_decref (j);
    gp_train_plan_result_destroy (r);
    gp_plan_result_destroy (pr);
    gp_plan_spec_destroy (spec);
    gp_doc_destroy (doc);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_bad_requests),
        cmocka_unit_test (test_default_batch),
        cmocka_unit_test (test_cost_hook),
        cmocka_unit_test (test_infeasible_typed),
        cmocka_unit_test (test_neighbours_typed),
        cmocka_unit_test (test_plan_matches_train),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
