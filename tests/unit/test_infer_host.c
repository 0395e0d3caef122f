/* test_infer_host.c - host work per engine step, its overlap with the GPU,
 * the front end of rate and closed-loop rows, and bad rate rows.
 *
 * Hand-computed references (docs/model/inference.md, "Host work and front
 * end"):
 *   vLLM on an NVIDIA part: host time per step = t_iter + t_seq * n with
 *     t_iter = 2.0 ms (gp_engine_defaults) + 1.1 ms (engines.csv vllm,cuda
 *     iter_extra_s) and t_seq = 6 us, so 4 decoding sequences cost
 *     3.1e-3 + 4 * 6e-6 = 3.124 ms of host time per step.
 *   Llama 3.2 1B decoding 4 sequences on an H100 needs well under 1 ms of
 *     GPU time (2.5 GB of BF16 weights at ~2.7 TB/s, ~0.9 ms, plus the
 *     16-layer floor; the test checks the GPU time is below the host time),
 *     so with the host work overlapped (vLLM >= 0.14 async scheduling)
 *     the step lasts exactly the host time: 3.124 ms.
 *   Llama 3.1 70B prefilling 8,192 tokens on one H100 in FP8 does
 *     2 * 70e9 * 8192 = 1.15e15 FLOPs: over half a second, far above the
 *     host time (3.1 ms + 6 us), which the overlap then hides: the step is
 *     the serial step minus the host time.
 *   Front end of a vLLM closed-loop row: tokenization 10 us per prompt
 *     token + the per-request latency 7 ms (engines.csv frontend_s): a
 *     128-token prompt adds 1.28 + 7 = 8.28 ms to TTFT.
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

#include "zoo_cat_fixture.h"

static void prepare_on (struct gp_serve_model *m, const char *model,
                        const char *gpu, enum gp_dtype dt, int overlap,
                        enum gp_engine e)
{
    struct gp_serve_cfg c;
    memset (&c, 0, sizeof c);
    c.arch = gp_zoo_find (zoo, model, NULL);
    c.accel = gp_catalog_find_accel (cat, gpu, NULL);
    assert_non_null (c.arch);
    assert_non_null (c.accel);
    c.tp = 1;
    c.pp = 1;
    c.weight_dtype = dt;
    c.kv_dtype = dt;
    gp_engine_defaults (e, &c.eng);
    assert_int_equal (gp_infer_prepare (&c, 0, m, NULL), 0);
    m->cfg.eng.host_overlap = overlap; /* the run's scheduler */
}

static void prepare (struct gp_serve_model *m, const char *model,
                     const char *gpu, enum gp_dtype dt, int overlap)
{
    prepare_on (m, model, gpu, dt, overlap, GP_ENGINE_VLLM);
}

/* A small model: the host work binds, overlapped or not. */
static void test_host_binds (void **state)
{
    (void)state;
    struct gp_serve_model ser, ovl;
    prepare (&ser, "llama3.2-1b", "H100-SXM", GP_DT_BF16, 0);
    prepare (&ovl, "llama3.2-1b", "H100-SXM", GP_DT_BF16, 1);
    const double host = 3.124e-3; /* 2.0 + 1.1 ms + 4 x 6 us */
    struct gp_iter_load D = {4, 4 * 600.0, 0, 0, 4};
    double ts = gp_infer_iter_time (&ser, &D, NULL);
    double to = gp_infer_iter_time (&ovl, &D, NULL);
    double gpu = ts - host;
    assert_true (gpu > 0 && gpu < host);
    assert_true (fabs (to - host) < 1e-12);
    /* serial: GPU + host, so more than the host alone */
    assert_true (ts > to);
}

/* A large prefill: the GPU binds and the overlap hides the host work. */
static void test_host_hidden (void **state)
{
    (void)state;
    struct gp_serve_model ser, ovl;
    prepare (&ser, "llama3.1-70b", "H100-SXM", GP_DT_FP8, 0);
    prepare (&ovl, "llama3.1-70b", "H100-SXM", GP_DT_FP8, 1);
    const double host = 3.1e-3 + 6.0e-6; /* one sequence's logits */
    struct gp_iter_load P = {0, 0, 8192, 8192 * 4096.5, 1};
    double ts = gp_infer_iter_time (&ser, &P, NULL);
    double to = gp_infer_iter_time (&ovl, &P, NULL);
    assert_true (ts - host > 0.5); /* > 1.15e15 FLOP at <= 2 PFLOP/s */
    assert_true (fabs (to - (ts - host)) < 1e-12 * ts + 1e-15);
}

/* Rate mode: percentiles ordered above the mean (TTFT, TPOT, E2E). */
static void test_rate_percentiles (void **state)
{
    (void)state;
    struct gp_serve_model m;
    prepare (&m, "llama3.1-8b", "H100-SXM", GP_DT_BF16, 1);
    struct gp_workload w;
    memset (&w, 0, sizeof w);
    w.arrivals = GP_ARR_POISSON;
    w.rate = 8;
    w.in_len = 1000;
    w.out_len = 200;
    w.in_dist = GP_LEN_EXPONENTIAL;
    w.out_dist = GP_LEN_EXPONENTIAL;
    w.seed = 7;
    w.n_requests = 400;
    struct gp_sim_result r;
    assert_int_equal (gp_infer_simulate (&m, &w, &r, NULL), 0);
    assert_int_equal (r.n_done, 400);
    assert_true (r.ttft_mean_s > 0);
    assert_true (r.ttft_p99_s >= r.ttft_p90_s);
    assert_true (r.ttft_p90_s >= r.ttft_mean_s);
    assert_true (r.tpot_p99_s >= r.tpot_p90_s);
    assert_true (r.e2e_p99_s >= r.e2e_p90_s);
    assert_true (r.e2e_p90_s >= r.e2e_mean_s);
}

static const char *HDR =
    "id,zoo,layers,hidden,ffn_hidden,heads,kv_heads,head_dim,vocab,"
    "attention,moe_experts,moe_topk,moe_ffn_hidden,gpu,num_gpus,tp,pp,"
    "weight_precision,kv_precision,engine,mode,concurrency,input_len,"
    "output_len,measured_output_tok_s,measured_ttft_ms,measured_tpot_ms,"
    "notes,request_rate,num_prompts,async_scheduling\n";

/* Validate a one-row file; returns the error code, the text in 'err'. */
static int validate_row (const char *row, struct gp_infer_val *v,
                         gp_error_t *err)
{
    char path[] = "/tmp/gp_host_XXXXXX";
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

static void test_bad_rate_rows (void **state)
{
    (void)state;
    struct gp_infer_val v;
    gp_error_t err = {0};
    int rc = validate_row ("r1,llama3.1-8b,,,,,,,,,,,,H100-SXM,1,1,1,bf16,"
                           "bf16,vllm,rate,,512,128,1000,,,,-16,100,1\n",
                           &v, &err);
    assert_int_equal (rc, GP_EPARSE);
    assert_non_null (strstr (err.text, ":2: column 'request_rate'"));
    assert_non_null (strstr (err.text, "negative"));
    memset (&err, 0, sizeof err);
    rc = validate_row ("r2,llama3.1-8b,,,,,,,,,,,,H100-SXM,1,1,1,bf16,bf16,"
                       "vllm,rate,8,512,128,1000,,,,16,100,1\n",
                       &v, &err);
    assert_int_equal (rc, GP_EPARSE);
    assert_non_null (strstr (err.text, "'request_rate' and 'concurrency'"));
    memset (&err, 0, sizeof err);
    rc = validate_row ("r3,llama3.1-8b,,,,,,,,,,,,H100-SXM,1,1,1,bf16,bf16,"
                       "vllm,rate,,512,128,1000,,,,0,100,1\n",
                       &v, &err);
    assert_int_equal (rc, GP_EPARSE);
    assert_non_null (strstr (err.text, "rate > 0"));
    memset (&err, 0, sizeof err);
    rc = validate_row ("r4,llama3.1-8b,,,,,,,,,,,,H100-SXM,1,1,1,bf16,bf16,"
                       "vllm,rate,,512,128,1000,,,,16,100,2\n",
                       &v, &err);
    assert_int_equal (rc, GP_EPARSE);
    assert_non_null (strstr (err.text, "'async_scheduling'"));
}

/* A closed-loop vLLM row: its front end (tokenization + frontend_s) is in
 * the predicted TTFT, and a rate row's percentiles stay ordered.
 */
static void test_frontend_in_rows (void **state)
{
    (void)state;
    struct gp_infer_val v, v0;
    gp_error_t err = {0};
    /* vLLM: the simulated engine TTFT + 8.28 ms */
    assert_int_equal (
        validate_row ("c1,llama3.2-1b,,,,,,,,,,,,H100-SXM,1,1,1,bf16,bf16,"
                      "vllm,concurrency,1,128,128,200,10,4,,,,0\n",
                      &v, &err),
        0);
    assert_int_equal ((int)v.n_rows, 1);
    assert_true (v.rows[0].ok);
    struct gp_serve_model m;
    prepare (&m, "llama3.2-1b", "H100-SXM", GP_DT_BF16, 0);
    struct gp_workload w;
    memset (&w, 0, sizeof w);
    w.arrivals = GP_ARR_CLOSED;
    w.concurrency = 1;
    w.in_len = 128;
    w.out_len = 128;
    w.seed = 1;
    struct gp_sim_result r;
    assert_int_equal (gp_infer_simulate (&m, &w, &r, NULL), 0);
    assert_true (fabs (v.rows[0].ttft_pred_s - (r.ttft_mean_s + 8.28e-3))
                 < 1e-9);
    /* Little's law with the front end in each client's cycle */
    double tok = 128.0 / (r.e2e_mean_s + 8.28e-3);
    assert_true (fabs (v.rows[0].predicted - tok) < 1e-6 * tok);
    gp_infer_val_free (&v);
    assert_int_equal (
        validate_row ("c2,llama3.2-1b,,,,,,,,,,,,H100-SXM,1,1,1,bf16,bf16,"
                      "trtllm,concurrency,1,128,128,200,10,4,,,,\n",
                      &v0, &err),
        0);
    assert_true (v0.rows[0].ok);
    /* no front end on an engine without a measured one: the engine's TTFT */
    prepare_on (&m, "llama3.2-1b", "H100-SXM", GP_DT_BF16, 0,
                GP_ENGINE_TRTLLM);
    assert_int_equal (gp_infer_simulate (&m, &w, &r, NULL), 0);
    assert_true (v0.rows[0].ttft_pred_s == r.ttft_mean_s);
    gp_infer_val_free (&v0);
    assert_int_equal (
        validate_row ("r5,llama3.1-8b,,,,,,,,,,,,H100-SXM,1,1,1,bf16,bf16,"
                      "vllm,rate,,1000,200,1000,,,,6,300,1\n",
                      &v, &err),
        0);
    assert_true (v.rows[0].ok && v.rows[0].rate_mode);
    const double *p = v.rows[0].lat_pred_s; /* mean, p90, p99 per quantity */
    for (int q = 0; q < 3; q++)
        assert_true (p[3 * q + 2] >= p[3 * q + 1]);
    assert_true (p[1] >= p[0]); /* TTFT p90 >= mean */
    gp_infer_val_free (&v);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_host_binds),
        cmocka_unit_test (test_host_hidden),
        cmocka_unit_test (test_rate_percentiles),
        cmocka_unit_test (test_bad_rate_rows),
        cmocka_unit_test (test_frontend_in_rows),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
