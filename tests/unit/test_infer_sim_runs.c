/* test_infer_sim_runs.c - the serving simulator's decode-only runs (taken
 * in one go, docs/model/inference.md, "Simulator speed") give the same
 * result, bit for bit, as the general loop taking every step.
 *
 * The reference is the same simulator with runs switched off
 * (gp__infer_simulate_steps with jump 0): every engine (reserved and
 * incremental KV, chunked and whole prefill, static batches), every arrival
 * mode, tensor and pipeline layouts, a MoE model, preemption under KV
 * pressure, a token budget smaller than the batch and prefix hits, three
 * workload seeds each.  The
 * tolerance is zero: the results are compared bytewise.  A last check
 * compares gp__infer_decode_time with gp_infer_iter_time for decode loads.
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
#include "infer/infer_private.h"

#include "zoo_cat_fixture.h"

struct sim_case {
    const char *model, *gpu;
    int tp, pp;
    enum gp_dtype w, kv;
    enum gp_engine eng;
    int max_num_tokens; /* 0: the engine's */
    double prefix_hit;
    enum gp_arrivals arr;
    int conc;
    double rate_frac; /* Poisson: share of the offline throughput */
    int n;
    double in, out;
    enum gp_len_dist dist;
};

static void model_for (const struct sim_case *k, struct gp_serve_model *m)
{
    struct gp_serve_cfg c;
    memset (&c, 0, sizeof c);
    c.arch = gp_zoo_find (zoo, k->model, NULL);
    c.accel = gp_catalog_find_accel (cat, k->gpu, NULL);
    assert_non_null (c.arch);
    assert_non_null (c.accel);
    c.tp = k->tp;
    c.pp = k->pp;
    c.weight_dtype = k->w;
    c.kv_dtype = k->kv;
    gp_engine_defaults (k->eng, &c.eng);
    if (k->max_num_tokens > 0)
        c.eng.max_num_tokens = k->max_num_tokens;
    c.prefix_hit = k->prefix_hit;
    gp_error_t e = {0};
    assert_int_equal (gp_infer_prepare (&c, 0, m, &e), 0);
}

/* Run case 'k' both ways with workload seed 'seed'; 1 when it preempted
 * (coverage).
 */
static int same_both_ways (const struct sim_case *k, unsigned seed)
{
    struct gp_serve_model m;
    model_for (k, &m);
    struct gp_workload w;
    memset (&w, 0, sizeof w);
    w.arrivals = k->arr;
    w.concurrency = k->conc;
    w.n_requests = k->n;
    w.in_len = k->in;
    w.out_len = k->out;
    w.in_dist = w.out_dist = k->dist;
    w.in_cv = w.out_cv = 0.5;
    w.seed = seed;
    gp_error_t e = {0};
    struct gp_sim_result a, b;
    if (k->arr == GP_ARR_POISSON) { /* a rate relative to saturation */
        struct gp_workload off = w;
        off.arrivals = GP_ARR_OFFLINE;
        assert_int_equal (gp__infer_simulate_steps (&m, &off, 0, &a, &e), 0);
        w.rate = k->rate_frac * a.req_s;
    }
    memset (&a, 0, sizeof a);
    memset (&b, 0, sizeof b);
    assert_int_equal (gp__infer_simulate_steps (&m, &w, 0, &a, &e), 0);
    assert_int_equal (gp__infer_simulate_steps (&m, &w, 1, &b, &e), 0);
    if (memcmp (&a, &b, sizeof a) != 0)
        fail_msg ("%s on %d x %s (pp %d): runs differ from steps: batch "
                  "%.17g/%.17g max %d/%d kv %.17g/%.17g preempted %d/%d "
                  "limited %d/%d", k->model, k->tp, k->gpu, k->pp,
                  a.mean_batch, b.mean_batch, a.max_batch_seen,
                  b.max_batch_seen, a.kv_peak_frac, b.kv_peak_frac,
                  a.n_preempted, b.n_preempted, a.kv_limited, b.kv_limited);
    assert_int_equal (a.n_done, w.n_requests > 0 ? w.n_requests : a.n_done);
    return a.n_preempted > 0;
}

static void test_runs_match_steps (void **state)
{
    (void)state;
    const struct sim_case cases[] = {
        /* TRT-LLM (reserved KV, chunked prefill), Poisson near and far
         * from saturation */
        {"llama3.1-70b", "H100-SXM", 4, 1, GP_DT_FP8, GP_DT_FP8,
         GP_ENGINE_TRTLLM, 0, 0, GP_ARR_POISSON, 0, 0.9, 400, 2000, 400,
         GP_LEN_FIXED},
        {"llama3.1-70b", "H200-SXM", 2, 1, GP_DT_BF16, GP_DT_BF16,
         GP_ENGINE_TRTLLM, 0, 0, GP_ARR_POISSON, 0, 0.3, 300, 1000, 300,
         GP_LEN_UNIFORM},
        /* vLLM (incremental KV, preemption) offline on a small part */
        {"llama3.1-8b", "L4", 1, 1, GP_DT_FP8, GP_DT_BF16, GP_ENGINE_VLLM,
         0, 0, GP_ARR_OFFLINE, 0, 0, 300, 1500, 1500, GP_LEN_EXPONENTIAL},
        /* vLLM closed loop with prefix hits */
        {"llama3.1-8b", "H100-SXM", 1, 1, GP_DT_BF16, GP_DT_BF16,
         GP_ENGINE_VLLM, 0, 0.5, GP_ARR_CLOSED, 64, 0, 500, 800, 200,
         GP_LEN_UNIFORM},
        /* SGLang, a token budget smaller than the batch */
        {"llama3.1-8b", "H100-SXM", 1, 1, GP_DT_FP8, GP_DT_FP8,
         GP_ENGINE_SGLANG, 64, 0, GP_ARR_OFFLINE, 0, 0, 400, 300, 200,
         GP_LEN_UNIFORM},
        /* FasterTransformer static batch */
        {"llama3.1-8b", "A100-SXM-80GB", 1, 1, GP_DT_BF16, GP_DT_BF16,
         GP_ENGINE_FT, 0, 0, GP_ARR_BATCH, 32, 0, 0, 500, 300,
         GP_LEN_FIXED},
        /* pipeline stages on a PCIe part */
        {"llama3.1-70b", "L40S", 2, 2, GP_DT_FP8, GP_DT_FP8,
         GP_ENGINE_VLLM, 0, 0, GP_ARR_POISSON, 0, 0.7, 300, 1000, 250,
         GP_LEN_EXPONENTIAL},
        /* MoE */
        {"qwen3-235b-a22b", "H200-SXM", 8, 1, GP_DT_FP8, GP_DT_FP8,
         GP_ENGINE_TRTLLM, 0, 0, GP_ARR_POISSON, 0, 0.8, 300, 2000, 400,
         GP_LEN_UNIFORM},
        /* the lazy general step: outputs of one token (finished at the
         * first token, while prompts fill), a small chunk budget */
        {"llama3.1-8b", "L4", 1, 1, GP_DT_FP8, GP_DT_BF16, GP_ENGINE_VLLM,
         512, 0, GP_ARR_POISSON, 0, 0.95, 400, 1500, 3,
         GP_LEN_EXPONENTIAL},
        /* closed loop under KV pressure (preempted decoders) */
        {"llama3.1-8b", "L4", 1, 1, GP_DT_FP8, GP_DT_BF16, GP_ENGINE_VLLM,
         0, 0.3, GP_ARR_CLOSED, 200, 0, 600, 1200, 600,
         GP_LEN_EXPONENTIAL},
        /* a large offline batch: many finished holes in the run list */
        {"llama3.1-8b", "H100-SXM", 1, 1, GP_DT_FP8, GP_DT_FP8,
         GP_ENGINE_TRTLLM, 0, 0, GP_ARR_OFFLINE, 0, 0, 2000, 500, 300,
         GP_LEN_EXPONENTIAL},
    };
    int preempted = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (unsigned seed = 1; seed <= 3; seed++)
            preempted += same_both_ways (&cases[i], seed);
    assert_true (preempted > 0); /* the preemption path was exercised */
}

/* The decode-step time is gp_infer_iter_time of the decode load, bit for
 * bit, for tensor, pipeline and MoE layouts.
 */
static void test_decode_time_is_iter_time (void **state)
{
    (void)state;
    const struct sim_case cases[] = {
        {"llama3.1-70b", "H100-SXM", 4, 1, GP_DT_FP8, GP_DT_FP8,
         GP_ENGINE_TRTLLM, 0, 0, GP_ARR_OFFLINE, 0, 0, 0, 0, 0, 0},
        {"llama3.1-70b", "L40S", 2, 2, GP_DT_FP8, GP_DT_FP8, GP_ENGINE_VLLM,
         0, 0, GP_ARR_OFFLINE, 0, 0, 0, 0, 0, 0},
        {"qwen3-235b-a22b", "H200-SXM", 8, 1, GP_DT_FP8, GP_DT_FP8,
         GP_ENGINE_TRTLLM, 0, 0, GP_ARR_OFFLINE, 0, 0, 0, 0, 0, 0},
        {"deepseek-v3", "H200-SXM", 8, 1, GP_DT_FP8, GP_DT_BF16,
         GP_ENGINE_SGLANG, 0, 0, GP_ARR_OFFLINE, 0, 0, 0, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct gp_serve_model m;
        model_for (&cases[i], &m);
        for (int n = 1; n <= 512; n = n * 3 + 1) {
            struct gp__decode_step d;
            gp__infer_decode_prep (&m, n, &d);
            for (long long ctx = n; ctx < 4000000; ctx = ctx * 7 + 13) {
                struct gp_iter_load L = {n, (double)ctx, 0, 0, n};
                double a = gp_infer_iter_time (&m, &L, NULL);
                double b = gp__infer_decode_time (&d, (double)ctx);
                assert_true (memcmp (&a, &b, sizeof a) == 0);
            }
        }
    }
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_runs_match_steps),
        cmocka_unit_test (test_decode_time_is_iter_time),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
