/* test_infer_sglang.c - SGLang's KV pool rule and the length spread of
 * random benchmarks in `validate inference` rows.
 *
 * Hand-computed references (docs/model/inference.md, "SGLang memory and
 * scheduler defaults", "Length spread of random benchmarks"):
 *   Llama 3.3 70B: embeddings 2 x 128256 x 8192 = 2.101e9 (untied); per
 *     layer q and o 2 x 8192^2, k and v 2 x 8192 x 1024, SwiGLU MLP
 *     3 x 8192 x 28672: 855.6e6, x 80 layers = 68.45e9; 70.55e9 in all.
 *     BF16 over tp 4: 35.27e9 bytes per GPU.  SGLang's mem_fraction_static
 *     at tp 4 is 0.85 of the driver's total (an H200's 141 GB read as GiB:
 *     151.40e9 bytes): 128.69e9 less the weights and 0.5e9 of CUDA
 *     context = 92.91e9 bytes of KV pool.  A token's KV per GPU: 80 layers
 *     x K and V x 2 KV heads x 128 x 2 bytes = 81,920 bytes: 1.1342e6
 *     tokens.
 *   Llama 3.1 405B: embeddings 2 x 128256 x 16384 = 4.203e9, per layer
 *     2 x 16384^2 + 2 x 16384 x 1024 + 3 x 16384 x 53248 = 3187.7e6, x 126
 *     = 401.6e9; 405.85e9 in all; BF16 over tp 8: 101.46e9 bytes per GPU.
 *     mem_fraction_static 0.81 at tp 8: 122.63e9 - 101.46e9 - 0.5e9 =
 *     20.67e9 bytes; 126 x 2 x 1 x 128 x 2 = 64,512 bytes per token:
 *     3.204e5 tokens.
 *   SGLang's request pool without --max-running-requests: KV tokens /
 *     context length (131,072 for both Llama models) x 512, clamped to
 *     2,048-4,096: 70B at tp 4, 1.1342e6 / 131072 x 512 = 4,430 -> 4,096;
 *     405B at tp 8, 3.204e5 / 131072 x 512 = 1,251 -> 2,048.
 *   random_range_ratio r: lengths uniform on [r N, N], coefficient of
 *     variation (1 - r) / ((1 + r) sqrt 3): r = 0.5 gives 0.19245.
 *   A finite closed-loop run (benchmark_serving --max-concurrency C
 *     --num-prompts N): every request counts and the output rate is all
 *     N x output tokens over the time from the first send (t = 0) to the
 *     last completion; with fixed lengths and C dividing N the run is
 *     N / C waves of C requests, so every request's E2E is the same and
 *     the rate is N x out / (N / C x E2E) = C x out / E2E.
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

static void prepare (struct gp_serve_model *m, const char *model, int tp,
                     enum gp_engine e, double mem_fraction)
{
    struct gp_serve_cfg c;
    memset (&c, 0, sizeof c);
    c.arch = gp_zoo_find (zoo, model, NULL);
    c.accel = gp_catalog_find_accel (cat, "H200-SXM", NULL);
    assert_non_null (c.arch);
    assert_non_null (c.accel);
    c.tp = tp;
    c.pp = 1;
    c.weight_dtype = GP_DT_BF16;
    c.kv_dtype = GP_DT_BF16;
    gp_engine_defaults (e, &c.eng);
    if (mem_fraction >= 0) {
        c.eng.mem_fraction = mem_fraction;
        c.eng.max_batch = 1024; /* the workspace reads the batch limit */
    }
    assert_int_equal (gp_infer_prepare (&c, 0, m, NULL), 0);
}

static void test_sglang_kv_pool (void **state)
{
    (void)state;
    struct gp_serve_model m;
    prepare (&m, "llama3.3-70b", 4, GP_ENGINE_SGLANG, -1);
    assert_true (fabs (m.kv_bytes_per_token - 81920.0) < 1e-9);
    assert_true (fabs (m.kv_capacity_tokens - 1.1342e6) < 0.002 * 1.1342e6);
    assert_int_equal (m.cfg.eng.max_batch, 4096);
    prepare (&m, "llama3.1-405b", 8, GP_ENGINE_SGLANG, -1);
    assert_true (fabs (m.kv_bytes_per_token - 64512.0) < 1e-9);
    assert_true (fabs (m.kv_capacity_tokens - 3.204e5) < 0.005 * 3.204e5);
    assert_int_equal (m.cfg.eng.max_batch, 2048);
}

/* A fraction (and batch limit) the caller sets is used as for every other
 * engine. */
static void test_sglang_caller_fraction (void **state)
{
    (void)state;
    struct gp_serve_model s, v;
    prepare (&s, "llama3.3-70b", 4, GP_ENGINE_SGLANG, 0.9);
    prepare (&v, "llama3.3-70b", 4, GP_ENGINE_VLLM, 0.9);
    assert_true (s.kv_capacity_tokens == v.kv_capacity_tokens);
    struct gp_serve_model d;
    prepare (&d, "llama3.3-70b", 4, GP_ENGINE_SGLANG, -1);
    assert_true (d.kv_capacity_tokens != s.kv_capacity_tokens);
    /* a limit the caller sets is kept */
    struct gp_serve_cfg c;
    memset (&c, 0, sizeof c);
    c.arch = gp_zoo_find (zoo, "llama3.3-70b", NULL);
    c.accel = gp_catalog_find_accel (cat, "H200-SXM", NULL);
    c.tp = 4;
    c.pp = 1;
    c.weight_dtype = c.kv_dtype = GP_DT_BF16;
    gp_engine_defaults (GP_ENGINE_SGLANG, &c.eng);
    c.eng.max_batch = 512;
    assert_int_equal (gp_infer_prepare (&c, 0, &d, NULL), 0);
    assert_int_equal (d.cfg.eng.max_batch, 512);
}

static const char *HDR =
    "id,zoo,layers,hidden,ffn_hidden,heads,kv_heads,head_dim,vocab,"
    "attention,moe_experts,moe_topk,moe_ffn_hidden,gpu,num_gpus,tp,pp,"
    "weight_precision,kv_precision,engine,mode,concurrency,input_len,"
    "output_len,measured_output_tok_s,measured_ttft_ms,measured_tpot_ms,"
    "notes,request_rate,num_prompts,random_range_ratio\n";

/* Validate a one-row file; returns the error code, the text in 'err'. */
static int validate_row (const char *row, struct gp_infer_val *v,
                         gp_error_t *err)
{
    char path[] = "/tmp/gp_sglang_XXXXXX";
    int fd = mkstemp (path);
    assert_true (fd >= 0);
    FILE *f = fdopen (fd, "w");
    assert_non_null (f);
    fputs (HDR, f);
    fputs (row, f);
    fclose (f);
    memset (v, 0, sizeof *v);
    int rc = gp_infer_validate (path, cat, zoo, v, err);
    unlink (path);
    return rc;
}

/* The row's random_range_ratio gives the simulator's uniform spread;
 * ratio 1 is fixed lengths; outside 0-1 is an error naming the column.
 */
static void test_range_ratio (void **state)
{
    (void)state;
    struct gp_infer_val v;
    gp_error_t err = {0};
    const char *row = "x,llama3.1-8b,,,,,,,,,,,,H100-SXM,1,1,1,bf16,bf16,"
                      "trtllm,rate,,600,200,1000,,,,4,200,%s\n";
    char buf[256];
    snprintf (buf, sizeof buf, row, "0.5");
    assert_int_equal (validate_row (buf, &v, &err), 0);
    assert_true (v.rows[0].ok);
    double spread = v.rows[0].predicted;
    gp_infer_val_free (&v);
    /* the same run through the simulator: uniform lengths, cv 0.19245
     * (TensorRT-LLM has no measured front end, so the row's throughput
     * is the engine's own) */
    struct gp_serve_model m;
    struct gp_serve_cfg c;
    memset (&c, 0, sizeof c);
    c.arch = gp_zoo_find (zoo, "llama3.1-8b", NULL);
    c.accel = gp_catalog_find_accel (cat, "H100-SXM", NULL);
    c.tp = c.pp = 1;
    c.weight_dtype = c.kv_dtype = GP_DT_BF16;
    gp_engine_defaults (GP_ENGINE_TRTLLM, &c.eng);
    assert_int_equal (gp_infer_prepare (&c, 600 + 200, &m, NULL), 0);
    struct gp_workload w;
    memset (&w, 0, sizeof w);
    w.arrivals = GP_ARR_POISSON;
    w.rate = 4;
    w.n_requests = 200;
    w.in_len = 600;
    w.out_len = 200;
    w.in_dist = w.out_dist = GP_LEN_UNIFORM;
    w.in_cv = w.out_cv = 0.5 / (1.5 * sqrt (3.0));
    w.seed = 1;
    struct gp_sim_result r;
    assert_int_equal (gp_infer_simulate (&m, &w, &r, NULL), 0);
    assert_true (fabs (spread - r.out_tok_s) < 1e-9 * r.out_tok_s);
    snprintf (buf, sizeof buf, row, "1");
    assert_int_equal (validate_row (buf, &v, &err), 0);
    double fixed = v.rows[0].predicted;
    gp_infer_val_free (&v);
    snprintf (buf, sizeof buf, row, "");
    assert_int_equal (validate_row (buf, &v, &err), 0);
    assert_true (v.rows[0].predicted == fixed); /* 1 = blank = fixed */
    gp_infer_val_free (&v);
    assert_true (spread != fixed);
    snprintf (buf, sizeof buf, row, "1.5");
    assert_int_equal (validate_row (buf, &v, &err), GP_EPARSE);
    assert_non_null (strstr (err.text, "'random_range_ratio'"));
    memset (&err, 0, sizeof err);
    snprintf (buf, sizeof buf, row, "-0.1");
    assert_int_equal (validate_row (buf, &v, &err), GP_EPARSE);
}

/* Whole-run statistics of a finite closed loop (the client's figures). */
static void test_closed_whole_run (void **state)
{
    (void)state;
    struct gp_serve_model m;
    prepare (&m, "llama3.3-70b", 4, GP_ENGINE_SGLANG, -1);
    struct gp_workload w;
    memset (&w, 0, sizeof w);
    w.arrivals = GP_ARR_CLOSED;
    w.concurrency = 4;
    w.n_requests = 12;
    w.in_len = 512;
    w.out_len = 64;
    w.seed = 1;
    struct gp_sim_result r;
    assert_int_equal (gp__infer_simulate_run (&m, &w, 1, 0, 0, 1, &r, NULL),
                      0);
    assert_int_equal (r.n_done, 12);
    /* all output over first send to last completion */
    assert_true (fabs (r.out_tok_s - 12 * 64.0 / r.makespan_s)
                 < 1e-9 * r.out_tok_s);
    /* three identical waves: Little's law gives the same rate */
    assert_true (fabs (r.out_tok_s - 4 * 64.0 / r.e2e_mean_s)
                 < 1e-6 * r.out_tok_s);
    /* whole 0 is gp__infer_simulate_fe bit for bit */
    struct gp_sim_result a, b;
    assert_int_equal (gp__infer_simulate_run (&m, &w, 1, 0, 0, 0, &a, NULL),
                      0);
    assert_int_equal (gp__infer_simulate_fe (&m, &w, 1, 0, 0, &b, NULL), 0);
    assert_true (a.out_tok_s == b.out_tok_s && a.ttft_mean_s == b.ttft_mean_s);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_sglang_kv_pool),
        cmocka_unit_test (test_sglang_caller_fraction),
        cmocka_unit_test (test_range_ratio),
        cmocka_unit_test (test_closed_whole_run),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
