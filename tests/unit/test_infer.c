/* test_infer.c - the inference planner against hand calculations.
 *
 * Hand-computed references:
 *   Llama 3.1 70B (80 layers, 8 KV heads of 128): KV per token in BF16 =
 *     2 * 80 * 8 * 128 * 2 B = 327,680 B on one GPU; TP2 holds half
 *     (163,840 B); at TP8 in FP8 each GPU holds one KV head: 2*80*1*128 =
 *     20,480 B.
 *   Qwen3-235B-A22B (94 layers, 4 KV heads of 128) at TP8: KV heads are
 *     replicated (one per GPU), 2 * 94 * 1 * 128 * 2 B = 48,128 B per GPU.
 *   DeepSeek-V3 MLA at TP8: the 512 + 64 latent is replicated on every
 *     GPU: 61 * 576 * 2 B = 70,272 B.
 *   NVFP4: 4 bits + one FP8 scale per 16 values = 4.5 bits = 0.5625 B.
 *   Llama 3.1 405B in BF16 (~810 GB) does not fit one L4 (24 GB).
 *   A static batch of one request emits its first token after the prefill
 *     and one more per decode step, so the makespan is
 *     TTFT + (out - 1) * TPOT exactly.
 *   Closed loop: Little's law, throughput = concurrency * out / E2E.
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

static void cfg_for (struct gp_serve_cfg *c, const char *model,
                     const char *gpu, int tp, enum gp_dtype w,
                     enum gp_dtype kv)
{
    memset (c, 0, sizeof *c);
    c->arch = gp_zoo_find (zoo, model, NULL);
    c->accel = gp_catalog_find_accel (cat, gpu, NULL);
    assert_non_null (c->arch);
    assert_non_null (c->accel);
    c->tp = tp;
    c->pp = 1;
    c->weight_dtype = w;
    c->kv_dtype = kv;
    gp_engine_defaults (GP_ENGINE_TRTLLM, &c->eng);
}

static void test_dtype (void **state)
{
    (void)state;
    assert_true (gp_dtype_bytes (GP_DT_BF16) == 2.0);
    assert_true (gp_dtype_bytes (GP_DT_FP8) == 1.0);
    assert_true (gp_dtype_bytes (GP_DT_FP4) == 0.5625);
    assert_true (gp_dtype_bytes (GP_DT_INT4) == 0.515625);
    enum gp_dtype d;
    assert_int_equal (gp_dtype_parse ("nvfp4", &d, NULL), 0);
    assert_int_equal (d, GP_DT_FP4);
    /* AWQ and GPTQ checkpoints are int4 weights (W4A16); Hugging Face
     * torch_dtype names map to the same formats
     */
    assert_int_equal (gp_dtype_parse ("AWQ", &d, NULL), 0);
    assert_int_equal (d, GP_DT_INT4);
    assert_int_equal (gp_dtype_parse ("gptq", &d, NULL), 0);
    assert_int_equal (d, GP_DT_INT4);
    assert_int_equal (gp_dtype_parse ("bfloat16", &d, NULL), 0);
    assert_int_equal (d, GP_DT_BF16);
    gp_error_t e = {0};
    assert_int_equal (gp_dtype_parse ("fp7", &d, &e), GP_EINVAL);
    assert_non_null (strstr (e.text, "fp7"));
    enum gp_engine g;
    assert_int_equal (gp_engine_parse ("nim", &g, NULL), 0);
    assert_int_equal (g, GP_ENGINE_NIM);
    assert_string_equal (gp_engine_str (g), "nim");
    /* NIM runs TensorRT-LLM engines: the same scheduler and overheads */
    struct gp_engine_params pn, pt;
    gp_engine_defaults (GP_ENGINE_NIM, &pn);
    gp_engine_defaults (GP_ENGINE_TRTLLM, &pt);
    pn.engine = pt.engine;
    assert_memory_equal (&pn, &pt, sizeof pn);
    assert_int_equal (gp_engine_parse ("tgi?", &g, &e), GP_EINVAL);
}

static void test_kv_per_token (void **state)
{
    (void)state;
    struct gp_serve_cfg c;
    struct gp_serve_model m;
    cfg_for (&c, "llama3.1-70b", "H200-SXM", 1, GP_DT_FP8, GP_DT_BF16);
    assert_int_equal (gp_infer_prepare (&c, 0, &m, NULL), 0);
    assert_true (m.kv_bytes_per_token == 327680.0);
    cfg_for (&c, "llama3.1-70b", "H100-SXM", 2, GP_DT_FP8, GP_DT_BF16);
    assert_int_equal (gp_infer_prepare (&c, 0, &m, NULL), 0);
    assert_true (m.kv_bytes_per_token == 163840.0);
    cfg_for (&c, "llama3.1-70b", "H100-SXM", 8, GP_DT_FP8, GP_DT_FP8);
    assert_int_equal (gp_infer_prepare (&c, 0, &m, NULL), 0);
    assert_true (m.kv_bytes_per_token == 20480.0);
    cfg_for (&c, "qwen3-235b-a22b", "H200-SXM", 8, GP_DT_FP8, GP_DT_BF16);
    assert_int_equal (gp_infer_prepare (&c, 0, &m, NULL), 0);
    assert_true (m.kv_bytes_per_token == 48128.0);
    cfg_for (&c, "deepseek-v3", "H200-SXM", 8, GP_DT_FP8, GP_DT_BF16);
    assert_int_equal (gp_infer_prepare (&c, 0, &m, NULL), 0);
    assert_true (m.kv_bytes_per_token == 70272.0);
    /* capacity is the KV budget over the per-token cost */
    assert_true (fabs (m.kv_capacity_tokens
                       - floor (m.kv_bytes_avail / 70272.0))
                 < 1.0);
}

static void test_memory (void **state)
{
    (void)state;
    struct gp_serve_cfg c;
    struct gp_serve_model m;
    /* Llama 3.1 70B ~70.6e9 parameters: 70.6 GB in FP8 on one GPU, half
     * per GPU at TP2 */
    cfg_for (&c, "llama3.1-70b", "H200-SXM", 1, GP_DT_FP8, GP_DT_FP8);
    assert_int_equal (gp_infer_prepare (&c, 0, &m, NULL), 0);
    assert_true (fabs (m.weight_bytes - 70.6e9) < 0.01 * 70.6e9);
    double one = m.weight_bytes;
    cfg_for (&c, "llama3.1-70b", "H200-SXM", 2, GP_DT_FP8, GP_DT_FP8);
    assert_int_equal (gp_infer_prepare (&c, 0, &m, NULL), 0);
    assert_true (fabs (m.weight_bytes - one / 2) < 1.0);
    /* budget adds up */
    assert_true (m.kv_bytes_avail > 0);
    assert_true (m.weight_bytes + m.act_bytes + m.runtime_bytes
                     + m.kv_bytes_avail
                 <= m.mem_bytes);
    /* 405B bf16 on one L4: infeasible with a message naming the sizes */
    gp_error_t e = {0};
    cfg_for (&c, "llama3.1-405b", "L4", 1, GP_DT_BF16, GP_DT_BF16);
    assert_int_equal (gp_infer_prepare (&c, 0, &m, &e), GP_EINFEASIBLE);
    assert_non_null (strstr (e.text, "exceed"));
    /* tp must divide the heads */
    cfg_for (&c, "llama3.1-70b", "H100-SXM", 3, GP_DT_FP8, GP_DT_FP8);
    assert_int_equal (gp_infer_prepare (&c, 0, &m, &e), GP_EINVAL);
    /* a request longer than the KV cache */
    cfg_for (&c, "llama3.1-70b", "H100-SXM", 1, GP_DT_FP8, GP_DT_BF16);
    assert_int_equal (gp_infer_prepare (&c, 1e9, &m, &e), GP_EINFEASIBLE);
    assert_int_equal (gp_infer_prepare (NULL, 0, &m, &e), GP_EINVAL);
}

static void test_iter_time (void **state)
{
    (void)state;
    struct gp_serve_cfg c;
    struct gp_serve_model m;
    cfg_for (&c, "llama3.1-8b", "H100-SXM", 1, GP_DT_BF16, GP_DT_BF16);
    assert_int_equal (gp_infer_prepare (&c, 0, &m, NULL), 0);
    /* one decode token at empty context: memory bound, weights streamed
     * once; hand composition of the documented terms */
    struct gp_iter_load L = {1, 0, 0, 0, 1};
    struct gp_iter_time o;
    double t = gp_infer_iter_time (&m, &L, &o);
    double bw = 3.35e12 * m.eff.hbm_eff;
    double expect = m.nonexpert_bytes / bw + 32 * m.eff.layer_lat_s
                    + c.eng.iter_overhead_s + c.eng.seq_overhead_s;
    assert_true (fabs (t - expect) < 1e-9 * expect);
    assert_int_equal (o.compute_bound, 0);
    /* streamed bytes ~ the 16 GB of BF16 weights minus the input table */
    assert_true (m.nonexpert_bytes > 14e9 && m.nonexpert_bytes < 16.1e9);
    /* a large prefill is compute bound: 2 * params FLOPs per token */
    struct gp_iter_load P = {0, 0, 8192, 8192.0 * 4096, 1};
    gp_infer_iter_time (&m, &P, &o);
    assert_int_equal (o.compute_bound, 1);
    double body = 2.0 * (m.pc.active - m.pc.embedding) * 8192;
    double lm = 2.0 * 128256.0 * 4096;
    assert_true (fabs (o.flops - (body + lm + 4.0 * 32 * 4096 * 8192.0
                                                 * 4096))
                 < 1e-6 * o.flops);
    /* more decode sequences never make an iteration faster */
    double prev = 0;
    for (int b = 1; b <= 4096; b *= 2) {
        struct gp_iter_load D = {b, b * 1000.0, 0, 0, b};
        double x = gp_infer_iter_time (&m, &D, NULL);
        assert_true (x >= prev);
        prev = x;
    }
}

/* SGLang's overlap scheduler (docs/model/inference.md, "Engines and vendor
 * stacks"): the same GPU time as vLLM, the host work (t_iter + n t_seq)
 * hidden behind it: an iteration is max(GPU, host), vLLM's GPU + host.
 */
static void test_overlap_scheduler (void **state)
{
    (void)state;
    struct gp_serve_cfg cv, cs;
    struct gp_serve_model mv, ms;
    cfg_for (&cv, "llama3.1-8b", "H100-SXM", 1, GP_DT_BF16, GP_DT_BF16);
    cs = cv;
    gp_engine_defaults (GP_ENGINE_VLLM, &cv.eng);
    gp_engine_defaults (GP_ENGINE_SGLANG, &cs.eng);
    assert_int_equal (cv.eng.host_overlap, 0);
    assert_int_equal (cs.eng.host_overlap, 1);
    assert_int_equal (gp_infer_prepare (&cv, 0, &mv, NULL), 0);
    assert_int_equal (gp_infer_prepare (&cs, 0, &ms, NULL), 0);
    /* vLLM >= 0.14 overlaps too (engines.csv): compare with its serial
     * scheduler */
    mv.cfg.eng.host_overlap = 0;
    for (int b = 1; b <= 1024; b *= 4) {
        struct gp_iter_load D = {b, b * 1500.0, 0, 0, b};
        double host = 2.0e-3 + 6.0e-6 * b; /* the vLLM/SGLang constants */
        /* vLLM on CUDA adds its measured host time per step (engines.csv) */
        double extra = gp_engine_stack_for (GP_ENGINE_VLLM, cv.accel)
                           ->iter_extra_s;
        double tv = gp_infer_iter_time (&mv, &D, NULL);
        double gpu = tv - host - extra;
        double ts = gp_infer_iter_time (&ms, &D, NULL);
        double expect = gpu > host ? gpu : host;
        assert_true (fabs (ts - expect) < 1e-12 + 1e-9 * expect);
        assert_true (ts < tv);
    }
}

static void test_sim_batch_of_one (void **state)
{
    (void)state;
    struct gp_serve_cfg c;
    struct gp_serve_model m;
    cfg_for (&c, "llama3.1-8b", "A100-SXM-80GB", 1, GP_DT_BF16, GP_DT_BF16);
    gp_engine_defaults (GP_ENGINE_FT, &c.eng);
    assert_int_equal (gp_infer_prepare (&c, 0, &m, NULL), 0);
    struct gp_workload w;
    memset (&w, 0, sizeof w);
    w.arrivals = GP_ARR_BATCH;
    w.concurrency = 1;
    w.in_len = 512;
    w.out_len = 10;
    struct gp_sim_result r;
    assert_int_equal (gp_infer_simulate (&m, &w, &r, NULL), 0);
    assert_int_equal (r.n_done, 1);
    assert_true (fabs (r.makespan_s - (r.ttft_mean_s + 9 * r.tpot_mean_s))
                 < 1e-9);
    /* TTFT is one prefill iteration of 512 tokens */
    struct gp_iter_load P = {0, 0, 512, 512 * 256.5, 1};
    double t = gp_infer_iter_time (&m, &P, NULL);
    assert_true (fabs (r.ttft_mean_s - t) < 1e-12);
}

static void test_sim_closed_and_determinism (void **state)
{
    (void)state;
    struct gp_serve_cfg c;
    struct gp_serve_model m;
    cfg_for (&c, "llama3.3-70b", "H100-SXM", 2, GP_DT_FP8, GP_DT_FP8);
    assert_int_equal (gp_infer_prepare (&c, 0, &m, NULL), 0);
    struct gp_workload w;
    memset (&w, 0, sizeof w);
    w.arrivals = GP_ARR_CLOSED;
    w.concurrency = 5;
    w.in_len = 1000;
    w.out_len = 200;
    w.out_dist = GP_LEN_UNIFORM;
    w.out_cv = 0.3;
    w.seed = 7;
    struct gp_sim_result a, b;
    assert_int_equal (gp_infer_simulate (&m, &w, &a, NULL), 0);
    assert_int_equal (gp_infer_simulate (&m, &w, &b, NULL), 0);
    assert_memory_equal (&a, &b, sizeof a);
    /* Little's law, and a sane ordering of latencies */
    assert_true (a.req_s > 0);
    assert_true (fabs (a.req_s * a.e2e_mean_s - 5.0) < 1e-9);
    assert_true (a.ttft_p50_s <= a.ttft_p95_s);
    assert_true (a.ttft_p95_s <= a.ttft_p99_s);
    assert_true (a.max_batch_seen <= 5);
    /* offline drives the engine harder than 5 clients */
    w.arrivals = GP_ARR_OFFLINE;
    w.n_requests = 400;
    struct gp_sim_result off;
    assert_int_equal (gp_infer_simulate (&m, &w, &off, NULL), 0);
    assert_true (off.out_tok_s > a.out_tok_s);
    assert_true (off.kv_peak_frac <= 1.0 + 1e-12);
    /* bad input */
    gp_error_t e = {0};
    w.in_len = 0;
    assert_int_equal (gp_infer_simulate (&m, &w, &off, &e), GP_EINVAL);
    w.in_len = 1e8;
    assert_int_equal (gp_infer_simulate (&m, &w, &off, &e), GP_EINFEASIBLE);
    w.in_len = 100;
    w.arrivals = GP_ARR_POISSON;
    w.rate = 0;
    assert_int_equal (gp_infer_simulate (&m, &w, &off, &e), GP_EINVAL);
    assert_int_equal (gp_infer_simulate (NULL, &w, &off, &e), GP_EINVAL);
}

static void test_vllm_preemption (void **state)
{
    (void)state;
    /* incremental KV allocation with a cache too small for all admitted
     * sequences to finish: preemptions happen, every request completes */
    struct gp_serve_cfg c;
    struct gp_serve_model m;
    cfg_for (&c, "llama3.1-8b", "L4", 1, GP_DT_FP8, GP_DT_BF16);
    gp_engine_defaults (GP_ENGINE_VLLM, &c.eng);
    assert_int_equal (gp_infer_prepare (&c, 0, &m, NULL), 0);
    struct gp_workload w;
    memset (&w, 0, sizeof w);
    w.arrivals = GP_ARR_OFFLINE;
    w.n_requests = 200;
    w.in_len = 100;
    w.out_len = 4000;
    struct gp_sim_result r;
    assert_int_equal (gp_infer_simulate (&m, &w, &r, NULL), 0);
    assert_int_equal (r.n_done, 200);
    assert_true (r.n_preempted > 0);
    assert_true (r.kv_peak_frac <= 1.0 + 1e-12);
}

static void test_size (void **state)
{
    (void)state;
    struct gp_serve_cfg c;
    struct gp_serve_model m;
    cfg_for (&c, "llama3.1-8b", "H100-SXM", 1, GP_DT_FP8, GP_DT_FP8);
    gp_engine_defaults (GP_ENGINE_VLLM, &c.eng);
    assert_int_equal (gp_infer_prepare (&c, 0, &m, NULL), 0);
    struct gp_workload w;
    memset (&w, 0, sizeof w);
    w.in_len = 1000;
    w.out_len = 200;
    w.seed = 3;
    struct gp_slo slo = {1.0, 0, 0.05, 0};
    struct gp_size_result r;
    assert_int_equal (gp_infer_size (&m, &w, &slo, 50, 10, 0.2, &r, NULL),
                      0);
    assert_int_equal (r.feasible, 1);
    assert_true (r.rate_per_replica <= r.max_rate_per_replica);
    /* replicas = ceil(peak / (0.8 * rate)) by definition */
    assert_int_equal (r.replicas,
                      (int)ceil (50 / (0.8 * r.rate_per_replica) - 1e-9));
    assert_true (r.replicas_min <= r.replicas);
    assert_true (r.at_peak.ttft_p95_s <= 1.0 + 1e-9);
    /* an SLO below one decode step is unreachable */
    struct gp_slo tight = {0, 0, 1e-4, 0};
    assert_int_equal (gp_infer_size (&m, &w, &tight, 50, 10, 0.2, &r, NULL),
                      0);
    assert_int_equal (r.feasible, 0);
    assert_non_null (strstr (r.limit, "TPOT"));
    gp_error_t e = {0};
    assert_int_equal (gp_infer_size (&m, &w, &slo, 0, 0, 0.2, &r, &e),
                      GP_EINVAL);
}

static void test_choose_mig (void **state)
{
    (void)state;
    /* a 1B model fits a MIG slice; the choice uses a fraction of a GPU */
    struct gp_serve_cfg c;
    cfg_for (&c, "llama3.2-1b", "H100-SXM", 0, GP_DT_BF16, GP_DT_BF16);
    c.tp = 0;
    c.pp = 0;
    gp_engine_defaults (GP_ENGINE_VLLM, &c.eng);
    struct gp_workload w;
    memset (&w, 0, sizeof w);
    w.in_len = 500;
    w.out_len = 100;
    w.seed = 1;
    struct gp_slo slo = {2.0, 0, 0.1, 0};
    struct gp_infer_option o;
    assert_int_equal (gp_infer_choose (&c, cat, 1, &w, &slo, 0.5, 0.5, 0.2,
                                       &o, NULL),
                      0);
    assert_int_equal (o.feasible, 1);
    assert_true (o.slice[0] != 0);
    assert_true (o.gpus < 1.0);
    /* 405B bf16 on L4: fits nowhere within a node, reason given */
    cfg_for (&c, "llama3.1-405b", "L4", 0, GP_DT_BF16, GP_DT_BF16);
    c.tp = c.pp = 0;
    assert_int_equal (gp_infer_choose (&c, cat, 1, &w, &slo, 1, 1, 0.2, &o,
                                       NULL),
                      0);
    assert_int_equal (o.feasible, 0);
    assert_true (o.reason[0] != 0);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_dtype),
        cmocka_unit_test (test_kv_per_token),
        cmocka_unit_test (test_memory),
        cmocka_unit_test (test_iter_time),
        cmocka_unit_test (test_overlap_scheduler),
        cmocka_unit_test (test_sim_batch_of_one),
        cmocka_unit_test (test_sim_closed_and_determinism),
        cmocka_unit_test (test_vllm_preemption),
        cmocka_unit_test (test_size),
        cmocka_unit_test (test_choose_mig),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
