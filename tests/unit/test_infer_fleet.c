/* test_infer_fleet.c - expert parallelism and the fleet cost over a day,
 * against hand calculations.
 *
 * Expert-parallel imbalance (docs/model/inference.md, "Expert
 * parallelism"): imb = skew + sqrt(2 ln(ep) (1 - 1/ep) / mu), mu = slots/ep,
 * capped at ep * min(k, E/ep) / k.
 *   64 slots over 8 ranks (k 8, E 128): mu = 8,
 *     sqrt(2 * 2.0794415 * 0.875 / 8) = sqrt(0.454878) = 0.674446 -> 1.674446.
 *   1 slot over 8 ranks (k 1, E 16): mu = 0.125,
 *     sqrt(2 * 2.079442 * 0.875 / 0.125) = 5.395571 -> 6.395571.
 *   1 token, k 8, E 16, ep 8 (2 experts per rank): at most 2 of the 8
 *     slots on one rank, mean 1 -> cap 2 (the formula gives 2.91).
 *   ep 1: 1.  Skew 1.2 adds 0.2 to the uncapped value.
 *
 * Fleet: 5 req/s per replica, headroom 0.2 -> 4 req/s usable; a day of 4
 * periods of 6 h at 2, 4, 10, 0 req/s -> 1, 1, 3, 1 replicas (at least one)
 * = 36 replica-h; 2 GPUs each -> 72 GPU-h; at $3/GPU-h $216/day,
 * $216 * 365 / 12 = $6570/month; tokens = (2+4+10+0) req/s * 21600 s * 500
 * = 172.8 M -> $216 / 172.8 = $1.25 per 1M output tokens.
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

#include "gpuplan/infer.h"

#include "zoo_cat_fixture.h"

static void near (double got, double want, double tol)
{
    if (fabs (got - want) > tol) {
        fprintf (stderr, "got %.9g want %.9g\n", got, want);
        fail ();
    }
}

static void test_ep_imbalance (void **state)
{
    (void)state;
    near (gp_infer_ep_imbalance (64, 8, 8, 128, 1.0), 1.674446, 1e-5);
    near (gp_infer_ep_imbalance (1, 8, 1, 16, 1.0), 6.395571, 1e-5);
    near (gp_infer_ep_imbalance (8, 8, 8, 16, 1.0), 2.0, 1e-12);
    near (gp_infer_ep_imbalance (64, 1, 8, 128, 1.0), 1.0, 0);
    near (gp_infer_ep_imbalance (64, 8, 8, 128, 1.2), 1.874446, 1e-5);
    near (gp_infer_ep_imbalance (64, 8, 8, 128, 0.0), 1.674446, 1e-5);
    /* large batches: the sampling term vanishes */
    near (gp_infer_ep_imbalance (1e9, 8, 8, 128, 1.0), 1.0, 1e-3);
}

static void cfg_moe (struct gp_serve_cfg *c, int tp, int ep, int attn_dp)
{
    memset (c, 0, sizeof *c);
    c->arch = gp_zoo_find (zoo, "qwen3-235b-a22b", NULL);
    c->accel = gp_catalog_find_accel (cat, "H200-SXM", NULL);
    assert_non_null (c->arch);
    assert_non_null (c->accel);
    c->tp = tp;
    c->pp = 1;
    c->ep = ep;
    c->attn_dp = attn_dp;
    c->weight_dtype = GP_DT_FP8;
    c->kv_dtype = GP_DT_FP8;
    gp_engine_defaults (GP_ENGINE_TRTLLM, &c->eng);
}

static void test_ep_layouts (void **state)
{
    (void)state;
    struct gp_serve_cfg c;
    struct gp_serve_model m;
    gp_error_t e = {0};
    /* defaults: the whole tp group with attention DP, else expert TP */
    cfg_moe (&c, 8, 0, 1);
    assert_int_equal (gp_infer_prepare (&c, 4096, &m, &e), 0);
    assert_int_equal (m.cfg.ep, 8);
    cfg_moe (&c, 8, 0, 0);
    assert_int_equal (gp_infer_prepare (&c, 4096, &m, &e), 0);
    assert_int_equal (m.cfg.ep, 1);
    cfg_moe (&c, 8, 4, 0);
    assert_int_equal (gp_infer_prepare (&c, 4096, &m, &e), 0);
    assert_int_equal (m.cfg.ep, 4);
    /* ep must divide tp and the experts; dense models have none */
    cfg_moe (&c, 8, 3, 1);
    assert_int_equal (gp_infer_prepare (&c, 4096, &m, &e), GP_EINVAL);
    assert_non_null (strstr (e.text, "ep 3"));
    cfg_moe (&c, 4, 8, 1);
    assert_int_equal (gp_infer_prepare (&c, 4096, &m, &e), GP_EINVAL);
    c.arch = gp_zoo_find (zoo, "llama3.1-8b", NULL);
    c.tp = 2, c.ep = 2;
    assert_int_equal (gp_infer_prepare (&c, 4096, &m, &e), GP_EINVAL);
    assert_non_null (strstr (e.text, "no routed experts"));

    /* one decode token per rank-pair: the busiest EP rank costs more
     * expert time than the balanced expert-TP layout; at large batches
     * (every expert touched, imbalance -> 1) the expert weight bytes
     * agree */
    struct gp_serve_model m1, m8;
    cfg_moe (&c, 8, 1, 0);
    assert_int_equal (gp_infer_prepare (&c, 4096, &m1, &e), 0);
    cfg_moe (&c, 8, 8, 0);
    assert_int_equal (gp_infer_prepare (&c, 4096, &m8, &e), 0);
    struct gp_iter_load small = {4, 4 * 1000, 0, 0, 4};
    struct gp_iter_time t1, t8;
    gp_infer_iter_time (&m1, &small, &t1);
    gp_infer_iter_time (&m8, &small, &t8);
    assert_true (t8.gemm_s > t1.gemm_s);
    assert_true (t8.comm_s == t1.comm_s); /* TP attention: all-reduces */
    struct gp_iter_load big = {2048, 2048 * 1000.0, 0, 0, 2048};
    gp_infer_iter_time (&m1, &big, &t1);
    gp_infer_iter_time (&m8, &big, &t8);
    near (t8.weight_bytes, t1.weight_bytes, 1e-6 * t1.weight_bytes);
}

static void test_fleet (void **state)
{
    (void)state;
    double rates[4] = {2, 4, 10, 0};
    int reps[4];
    struct gp_fleet f;
    gp_error_t e = {0};
    assert_int_equal (gp_infer_fleet (5.0, 0.2, rates, 4, 2.0, 3.0, 500.0,
                                      reps, &f, &e),
                      0);
    assert_int_equal (reps[0], 1);
    assert_int_equal (reps[1], 1);
    assert_int_equal (reps[2], 3);
    assert_int_equal (reps[3], 1);
    assert_int_equal (f.replicas_min, 1);
    assert_int_equal (f.replicas_max, 3);
    near (f.hours_per_period, 6.0, 1e-12);
    near (f.replica_hours_per_day, 36.0, 1e-9);
    near (f.gpu_hours_per_day, 72.0, 1e-9);
    near (f.usd_per_day, 216.0, 1e-9);
    near (f.usd_per_month, 6570.0, 1e-9);
    near (f.output_tokens_per_day, 172.8e6, 1e-3);
    near (f.usd_per_1m_output_tokens, 1.25, 1e-12);
    /* unknown price: costs stay 0, GPU-hours still counted */
    assert_int_equal (gp_infer_fleet (5.0, 0.2, rates, 4, 0.5, 0.0, 500.0,
                                      NULL, &f, &e),
                      0);
    near (f.gpu_hours_per_day, 18.0, 1e-9);
    near (f.usd_per_day, 0.0, 0);
    /* bad input */
    assert_int_equal (gp_infer_fleet (0.0, 0.2, rates, 4, 2.0, 3.0, 500.0,
                                      NULL, &f, &e),
                      GP_EINVAL);
    assert_int_equal (gp_infer_fleet (5.0, 1.0, rates, 4, 2.0, 3.0, 500.0,
                                      NULL, &f, &e),
                      GP_EINVAL);
    assert_int_equal (gp_infer_fleet (5.0, 0.2, rates, 0, 2.0, 3.0, 500.0,
                                      NULL, &f, &e),
                      GP_EINVAL);
    double bad[1] = {-1};
    assert_int_equal (gp_infer_fleet (5.0, 0.2, bad, 1, 2.0, 3.0, 500.0,
                                      NULL, &f, &e),
                      GP_EINVAL);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_ep_imbalance),
        cmocka_unit_test (test_ep_layouts),
        cmocka_unit_test (test_fleet),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
