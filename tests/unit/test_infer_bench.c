/* test_infer_bench.c - the limits trtllm-bench picks for its run and the
 * CUDA graph padding of decode-only iterations (docs/model/inference.md,
 * "trtllm-bench settings and CUDA graph padding").
 *
 * Hand-computed references (tensorrt_llm/bench/build/tuning.py,
 * calc_engine_setting and finetune_setting): a 126-layer model with 8 KV
 * heads of 128 dims, an FP8 KV cache, 400e9 parameters in NVFP4 (0.5 B
 * each) on tp 4 GPUs of 180e9 B, KV fraction 0.90:
 *   memory 4 x 180e9 = 720e9, engine 400e9 x 0.5 = 200e9, cache
 *   0.9 x 520e9 = 468e9 B; per token 2 x 126 x max(4, 8) x 128 x 1 =
 *   258,048 B.
 *   128/4096: 468e9 / (258,048 x 4,224) = 429.36 requests -> batch
 *     128 x ceil(3.354) = 512; tokens 429.36 x (1 + 128/4096) = 442.8
 *     -> 256 x ceil(1.73) = 512, raised to the floor of 2,048.
 *   2048/128: 468e9 / (258,048 x 2,176) = 833.46 -> 128 x ceil(6.51) =
 *     896; tokens 833.46 x 17 = 14,168.8 -> 1024 x ceil(13.84) = 14,336.
 *   20000/2000: 468e9 / (258,048 x 22,000) = 82.44 -> 32 x ceil(2.58) =
 *     96; tokens 82.44 x 11 = 906.8 -> 2,048.
 *   a model of 2 layers: 468e9 / (2 x 2 x 8 x 128 x 1 x 256) = 446,289
 *     requests, capped at 4,096 -> 4,096; tokens 4,096 x 2 = 8,192 ->
 *     8,192.
 *   with attention data parallelism the limit is per rank: 4 x 512.
 * Padding to the recipe's graph sizes 1, 2, 4, ..., 256, 384, 512, 1024,
 * 2048, 4096, 8192, only up to the engine's max_batch; per rank with
 * attention data parallelism.
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

#include "gpuplan/infer.h"
#include "infer/infer_private.h"

#include "zoo_cat_fixture.h"

static struct gp_arch arch126 (void)
{
    struct gp_arch a;
    memset (&a, 0, sizeof a);
    a.layers = 126;
    a.kv_heads = 8;
    a.heads = 128;
    a.head_dim = 128;
    a.attention = GP_ATTN_GQA;
    return a;
}

static void model126 (struct gp_serve_model *m, const struct gp_arch *a)
{
    memset (m, 0, sizeof *m);
    m->cfg.arch = a;
    m->cfg.tp = 4;
    m->cfg.pp = 1;
    m->cfg.weight_dtype = GP_DT_FP4;
    m->cfg.kv_dtype = GP_DT_FP8;
    gp_engine_defaults (GP_ENGINE_TRTLLM, &m->cfg.eng);
    m->mem_bytes = 180e9;
    m->pc.total = 400e9;
}

static void test_bench_limits (void **state)
{
    (void)state;
    struct gp_arch a = arch126 ();
    struct gp_serve_model m;
    model126 (&m, &a);
    struct gp_engine_params e;
    assert_int_equal (gp__trtllm_bench_settings (&m, 128, 4096, &e), 1);
    assert_int_equal (e.max_batch, 512);
    assert_int_equal (e.max_num_tokens, 2048);
    assert_int_equal (e.graph_pad, 1);
    assert_int_equal (e.reserve_full, 1); /* the rest: the engine's */
    assert_int_equal (e.chunked_prefill, 1);
    assert_int_equal (gp__trtllm_bench_settings (&m, 2048, 128, &e), 1);
    assert_int_equal (e.max_batch, 896);
    assert_int_equal (e.max_num_tokens, 14336);
    assert_int_equal (gp__trtllm_bench_settings (&m, 20000, 2000, &e), 1);
    assert_int_equal (e.max_batch, 96);
    assert_int_equal (e.max_num_tokens, 2048);
    /* attention data parallelism: the same estimate (the harness does not
     * know it), max_batch_size per rank: 4 x 512 for the replica */
    m.cfg.attn_dp = 1;
    assert_int_equal (gp__trtllm_bench_settings (&m, 128, 4096, &e), 1);
    assert_int_equal (e.max_batch, 2048);
    assert_int_equal (e.max_num_tokens, 2048);
    m.cfg.attn_dp = 0;
    /* the device memory the driver reports where the catalog has it
     * (NVML's total in the harness): 190e9 B per GPU, cache 0.9 x (760e9
     * - 200e9) = 504e9; 2048/128: 504e9 / 561,512,448 = 897.6 requests ->
     * 1,024; tokens 897.6 x 17 = 15,259 -> 15,360 */
    struct gp_accel acc;
    memset (&acc, 0, sizeof acc);
    acc.cuda_mem_bytes = 190e9;
    m.cfg.accel = &acc;
    assert_int_equal (gp__trtllm_bench_settings (&m, 2048, 128, &e), 1);
    assert_int_equal (e.max_batch, 1024);
    assert_int_equal (e.max_num_tokens, 15360);
    m.cfg.accel = NULL;
    a.layers = 2;
    assert_int_equal (gp__trtllm_bench_settings (&m, 128, 128, &e), 1);
    assert_int_equal (e.max_batch, 4096);
    assert_int_equal (e.max_num_tokens, 8192);
}

/* Where the heuristic is not taken: MLA (the harness's KV estimate does
 * not describe a latent cache), no room. */
static void test_bench_not_applied (void **state)
{
    (void)state;
    struct gp_arch a = arch126 ();
    struct gp_serve_model m;
    model126 (&m, &a);
    struct gp_engine_params e;
    memset (&e, 0x5a, sizeof e);
    struct gp_engine_params keep = e;
    a.attention = GP_ATTN_MLA;
    assert_int_equal (gp__trtllm_bench_settings (&m, 128, 128, &e), 0);
    a.attention = GP_ATTN_GQA;
    m.pc.total = 2000e9; /* 1,000e9 B of NVFP4 weights on 720e9 B */
    assert_int_equal (gp__trtllm_bench_settings (&m, 128, 128, &e), 0);
    assert_memory_equal (&e, &keep, sizeof e);
}

static void test_graph_batch (void **state)
{
    (void)state;
    struct gp_serve_model m;
    memset (&m, 0, sizeof m);
    m.cfg.eng.max_batch = 512;
    assert_true (gp__infer_graph_batch (&m, 300) == 300); /* padding off */
    m.cfg.eng.graph_pad = 1;
    assert_true (gp__infer_graph_batch (&m, 1) == 1);
    assert_true (gp__infer_graph_batch (&m, 3) == 4);
    assert_true (gp__infer_graph_batch (&m, 200) == 256);
    assert_true (gp__infer_graph_batch (&m, 300) == 384);
    assert_true (gp__infer_graph_batch (&m, 384) == 384);
    assert_true (gp__infer_graph_batch (&m, 385) == 512);
    /* 1,024 is above max_batch 512: no graph, no padding */
    assert_true (gp__infer_graph_batch (&m, 513) == 513);
    m.cfg.eng.max_batch = 2048;
    assert_true (gp__infer_graph_batch (&m, 600) == 1024);
    assert_true (gp__infer_graph_batch (&m, 9000) == 9000);
    /* attention data parallelism over 4 ranks, 512 per rank: 1,000
     * sequences are 250 per rank -> graphs of 256 -> 1,024; 1,600 -> 400
     * -> 512 -> 2,048; 2,100 -> 525 -> 1,024 per rank, above the limit:
     * not padded; 1,024 -> 256 per rank exactly: 1,024 */
    m.cfg.attn_dp = 1;
    m.cfg.tp = 4;
    assert_true (gp__infer_graph_batch (&m, 1000) == 1024);
    assert_true (gp__infer_graph_batch (&m, 1600) == 2048);
    assert_true (gp__infer_graph_batch (&m, 2100) == 2100);
    assert_true (gp__infer_graph_batch (&m, 1024) == 1024);
}

/* A padded decode step of 300 sequences costs the GEMMs and collectives
 * of 384 and the attention of the 300 real ones (the padding requests
 * attend to no context); the host work is per real sequence.  So it is
 * the unpadded step of 384 sequences at the same context, less 84
 * sequences' host time. */
static void test_padded_step (void **state)
{
    (void)state;
    const struct gp_arch *a = gp_zoo_find (zoo, "llama3.1-70b", NULL);
    assert_non_null (a);
    struct gp_serve_cfg c;
    memset (&c, 0, sizeof c);
    c.arch = a;
    c.accel = gp_catalog_find_accel (cat, "H100-SXM", NULL);
    assert_non_null (c.accel);
    c.tp = 2;
    c.pp = 1;
    c.weight_dtype = GP_DT_FP8;
    c.kv_dtype = GP_DT_FP8;
    gp_engine_defaults (GP_ENGINE_TRTLLM, &c.eng);
    c.eng.max_batch = 512;
    struct gp_serve_model plain, pad;
    assert_int_equal (gp_infer_prepare (&c, 0, &plain, NULL), 0);
    c.eng.graph_pad = 1;
    assert_int_equal (gp_infer_prepare (&c, 0, &pad, NULL), 0);
    double ctx = 300.0 * 2000.0;
    struct gp_iter_load l300 = {300, ctx, 0, 0, 300};
    struct gp_iter_load l384 = {384, ctx, 0, 0, 384};
    struct gp_iter_time tp, t3, t4;
    double padded = gp_infer_iter_time (&pad, &l300, &tp);
    gp_infer_iter_time (&plain, &l300, &t3);
    double big = gp_infer_iter_time (&plain, &l384, &t4);
    assert_true (tp.gemm_s == t4.gemm_s);
    assert_true (tp.comm_s == t4.comm_s);
    assert_true (tp.attn_s == t3.attn_s);
    assert_true (fabs (padded - (big - 84 * c.eng.seq_overhead_s)) < 1e-12);
    assert_true (padded > gp_infer_iter_time (&plain, &l300, NULL));
    /* a step with prompt tokens runs without a graph: no padding */
    struct gp_iter_load mixed = {300, ctx, 100, 5050, 301};
    assert_true (gp_infer_iter_time (&pad, &mixed, NULL)
                 == gp_infer_iter_time (&plain, &mixed, NULL));
    /* the decode-run path gives the same bits as the iteration time */
    struct gp__decode_step d;
    gp__infer_decode_prep (&pad, 300, &d);
    assert_true (gp__infer_decode_time (&d, ctx) == padded);
}

/* The validation rows that get the harness's settings: engine trtllm,
 * mode offline, harness trtllm-bench (the row's source names
 * trtllm-bench and the PyTorch backend), and no limits of the row's own.
 * The same row without the harness, or with the engine defaults given as
 * its own limits (2,048 sequences, 8,192 tokens), is predicted exactly as
 * before the harness was modelled; another harness value is bad input. */
static void test_validate_rows (void **state)
{
    (void)state;
    char path[] = "/tmp/gp_infer_bench_XXXXXX";
    int fd = mkstemp (path);
    assert_true (fd >= 0);
    FILE *f = fdopen (fd, "w");
    assert_non_null (f);
    const char *row = "llama3.1-8b,H100-SXM,1,1,1,fp8,,trtllm,offline,,128,"
                      "4096,14325,";
    fprintf (f, "id,zoo,gpu,num_gpus,tp,pp,weight_precision,kv_precision,"
                "engine,mode,concurrency,input_len,output_len,"
                "measured_output_tok_s,measured_ttft_ms,measured_tpot_ms,"
                "layers,hidden,ffn_hidden,heads,kv_heads,head_dim,vocab,"
                "attention,moe_experts,moe_topk,moe_ffn_hidden,"
                "max_num_seqs,max_num_batched_tokens,source,harness\n");
    fprintf (f, "bench-a,%s,,,,,,,,,,,,,,,\"trtllm-bench throughput, "
                "PyTorch backend\",trtllm-bench\n", row);
    fprintf (f, "other-a,%s,,,,,,,,,,,,,,,\"a serving benchmark\",\n", row);
    fprintf (f, "bench-b,%s,,,,,,,,,,,,,2048,8192,\"trtllm-bench "
                "throughput, PyTorch backend\",trtllm-bench\n", row);
    fclose (f);
    struct gp_infer_val v;
    gp_error_t err = {0};
    int rc = gp_infer_validate (path, cat, zoo, &v, &err);
    unlink (path);
    if (rc)
        print_message ("%s\n", err.text);
    assert_int_equal (rc, 0);
    assert_int_equal (v.n_rows, 3);
    for (size_t i = 0; i < 3; i++)
        assert_int_equal (v.rows[i].ok, 1);
    /* KV-limited batches padded to the next graph: slower */
    assert_true (v.rows[0].predicted < v.rows[1].predicted);
    assert_true (v.rows[2].predicted == v.rows[1].predicted);
    gp_infer_val_free (&v);

    /* a harness the model does not know: file, line and column named */
    fd = mkstemp (strcpy (path, "/tmp/gp_infer_bench_XXXXXX"));
    assert_true (fd >= 0);
    f = fdopen (fd, "w");
    assert_non_null (f);
    fprintf (f, "id,zoo,gpu,num_gpus,tp,pp,weight_precision,kv_precision,"
                "engine,mode,concurrency,input_len,output_len,"
                "measured_output_tok_s,measured_ttft_ms,measured_tpot_ms,"
                "layers,hidden,ffn_hidden,heads,kv_heads,head_dim,vocab,"
                "attention,moe_experts,moe_topk,moe_ffn_hidden,harness\n");
    fprintf (f, "bad-a,%s,,,,,,,,,,,,,genai-perf\n", row);
    fclose (f);
    rc = gp_infer_validate (path, cat, zoo, &v, &err);
    unlink (path);
    assert_int_not_equal (rc, 0);
    assert_non_null (strstr (err.text, ":2:"));
    assert_non_null (strstr (err.text, "'harness'"));
    assert_non_null (strstr (err.text, "genai-perf"));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_bench_limits),
        cmocka_unit_test (test_bench_not_applied),
        cmocka_unit_test (test_graph_batch),
        cmocka_unit_test (test_padded_step),
        cmocka_unit_test (test_validate_rows),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
