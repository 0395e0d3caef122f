/* test_infer_dep.c - one decode step of a DEP MoE replica (attention data
 * parallel + expert parallel, the TensorRT-LLM 'enable_attention_dp'
 * layout of the DeepSeek-R1 rows of validation/inference/
 * serving-heldout-2026.csv) against a hand calculation
 * (docs/model/inference.md, "Expert parallelism" and "Attention data
 * parallelism").
 *
 * DeepSeek-V3 (zoo: hidden 7168, 61 layers of which 3 dense -> 58 MoE
 * layers, 256 routed experts top-8 of moe_ffn 2048, SwiGLU: 3 matrices)
 * on 4 x B200, tp 4 with attention DP (ep defaults to tp = 4), NVFP4
 * weights (0.5 + 1/16 byte per weight), FP8 KV.  Decode of 4096 tokens:
 *
 * Expert bytes.  One expert of one layer: 3 * 7168 * 2048 * 0.5625 =
 *   24,772,608 B.  Token-slots 4096 * 8 = 32768 over 256 experts: all
 *   touched (1 - (1 - 8/256)^4096 = 1 - 2e-57); the busiest rank holds
 *   256/4 = 64 experts and reads them all (the imbalance cannot exceed
 *   the rank's experts): 64 * 4 * 24,772,608 * 58 / 4 GPUs
 *   = 91,955,920,896 B per GPU.
 *
 * Dispatch + combine.  imb = 1 + sqrt(2 ln 4 * (1 - 1/4) / mu), mu =
 *   32768 / 4 = 8192 -> 1.0159323.  Each rank's 1024 tokens of 7168 bf16
 *   values (14,680,064 B) go to min(8 * tp/ep, tp) = 4 ranks' worth of
 *   copies, 3/4 of them elsewhere: 14,680,064 * 4 * 0.75 * 1.0159323 =
 *   44,741,853 B on the busiest rank.  B200 NVLink 5: 1800 GB/s both
 *   ways -> 900 GB/s per direction x infer_link 0.70 = 630 GB/s; 4 GPUs
 *   within the 8-GPU domain (nothing crosses the network).  Two
 *   collectives (dispatch, combine) per MoE layer, each with 2 latencies
 *   of 10 us (infer_allreduce_lat_s, blackwell):
 *   2 * 58 * (2e-5 + 44,741,853 / 630e9) = 10.558183 ms.
 *
 * MLA attention FLOPs (docs/model/inference.md, "MLA").  Decode, absorbed
 *   (latent MQA over 512 + 64, PV over 512): 2 * 128 * (2*512 + 64) * 61 =
 *   16,990,208 per context token; prefill, materialised MHA (QK over
 *   128 + 64, PV over 128): 2 * 128 * (128 + 64 + 128) * 61 = 4,997,120.
 *   A 1024-token prompt: 1024 * 1025 / 2 = 524,800 (query, key) pairs
 *   -> 4,997,120 * 524,800 / 4 GPUs = 655,622,144,000 FLOPs per GPU; B200
 *   BF16 2250 TFLOP/s x infer_attn 0.40 = 900 TFLOP/s -> 0.72846905 ms
 *   (no decode context: nothing streamed).  With 1000 decoders at 2048
 *   tokens of context on top: (16,990,208 * 2,048,000 + 4,997,120 *
 *   524,800) / 4 / 900e12 = 10.3940096 ms, above the latent stream
 *   2,048,000 * 61 * 576 / 4 B / (8 TB/s x 0.65) = 3.46 ms.
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

static void near (double got, double want, double rel)
{
    if (!(fabs (got - want) <= rel * fabs (want))) {
        fprintf (stderr, "got %.12g want %.12g\n", got, want);
        fail ();
    }
}

static void cfg_dep (struct gp_serve_cfg *c, int tp, int ep)
{
    memset (c, 0, sizeof *c);
    c->arch = gp_zoo_find (zoo, "deepseek-v3", NULL);
    c->accel = gp_catalog_find_accel (cat, "B200", NULL);
    assert_non_null (c->arch);
    assert_non_null (c->accel);
    c->tp = tp;
    c->pp = 1;
    c->ep = ep;
    c->attn_dp = 1;
    c->weight_dtype = GP_DT_FP4;
    c->kv_dtype = GP_DT_FP8;
    gp_engine_defaults (GP_ENGINE_TRTLLM, &c->eng);
}

static void test_dep4_decode_step (void **state)
{
    (void)state;
    struct gp_serve_cfg c;
    struct gp_serve_model m;
    gp_error_t e = {0};
    cfg_dep (&c, 4, 0);
    assert_int_equal (gp_infer_prepare (&c, 2048, &m, &e), 0);
    assert_int_equal (m.cfg.ep, 4);
    assert_int_equal (m.cfg.attn_dp, 1);
    near (m.expert_bytes_layer, 24772608.0, 1e-12);
    /* MLA latent cache: 61 layers x (512 + 64) FP8 bytes per token,
     * each sequence's cache on its own attention rank: / 4 on average */
    near (m.kv_bytes_per_token, 61.0 * 576.0 / 4.0, 1e-12);

    struct gp_iter_load dec = {4096, 0, 0, 0, 4096};
    struct gp_iter_time t;
    gp_infer_iter_time (&m, &dec, &t);
    near (t.weight_bytes - m.nonexpert_bytes, 91955920896.0, 1e-9);
    near (t.comm_s, 0.010558183, 1e-6);
}

static void test_mla_prefill_decode_flops (void **state)
{
    (void)state;
    struct gp_serve_cfg c;
    struct gp_serve_model m;
    gp_error_t e = {0};
    cfg_dep (&c, 4, 0);
    assert_int_equal (gp_infer_prepare (&c, 2048, &m, &e), 0);
    struct gp_iter_time t;
    struct gp_iter_load pre = {0, 0, 1024, 524800, 1};
    gp_infer_iter_time (&m, &pre, &t);
    near (t.attn_s, 0.00072846905, 1e-7);
    struct gp_iter_load mix = {1000, 2048000, 1024, 524800, 1001};
    gp_infer_iter_time (&m, &mix, &t);
    near (t.attn_s, 0.0103940096, 1e-7);
}

/* Bad layouts of the DEP fields: ep must divide tp and the experts. */
static void test_dep_bad_layouts (void **state)
{
    (void)state;
    struct gp_serve_cfg c;
    struct gp_serve_model m;
    gp_error_t e = {0};
    cfg_dep (&c, 4, 8); /* more expert ranks than GPUs */
    assert_int_equal (gp_infer_prepare (&c, 2048, &m, &e), GP_EINVAL);
    assert_non_null (strstr (e.text, "ep 8 must divide tp 4"));
    cfg_dep (&c, 8, 3);
    assert_int_equal (gp_infer_prepare (&c, 2048, &m, &e), GP_EINVAL);
    assert_non_null (strstr (e.text, "ep 3"));
    cfg_dep (&c, 3, 0); /* 128 heads over 3 ranks */
    assert_int_equal (gp_infer_prepare (&c, 2048, &m, &e), GP_EINVAL);
    assert_non_null (strstr (e.text, "tp 3 does not divide 128"));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_dep4_decode_step),
        cmocka_unit_test (test_mla_prefill_decode_flops),
        cmocka_unit_test (test_dep_bad_layouts),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
