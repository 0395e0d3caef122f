/* test_infer_frontend.c - the online server's front end in the serving
 * simulator (docs/model/inference.md, "Front-end throughput"): one
 * process, in order of arrival, 'fe_req' seconds per request before the
 * engine sees it and 'fe_tok' per output token.  Expected values are hand
 * calculations from those two numbers; the engine itself is not checked
 * here (test_infer_sim_runs.c does).
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
#include "gpuplan/validate.h"
#include "infer/infer_private.h"

/* the columns every row file has before the GPU (blank: the zoo's) */
#define ARCH                                                             \
    "id,zoo,layers,hidden,ffn_hidden,heads,kv_heads,head_dim,vocab,"     \
    "attention,moe_experts,moe_topk,moe_ffn_hidden,"

#include "zoo_cat_fixture.h"

/* Qwen3-0.6B on one H100 with vLLM: an engine much faster than a front
 * end of 10 ms per request. */
static void small_model (struct gp_serve_model *m)
{
    struct gp_serve_cfg c;
    memset (&c, 0, sizeof c);
    c.arch = gp_zoo_find (zoo, "qwen3-0.6b", NULL);
    c.accel = gp_catalog_find_accel (cat, "H100-SXM", NULL);
    assert_non_null (c.arch);
    assert_non_null (c.accel);
    c.tp = c.pp = 1;
    c.weight_dtype = c.kv_dtype = GP_DT_BF16;
    gp_engine_defaults (GP_ENGINE_VLLM, &c.eng);
    gp_error_t e = {0};
    assert_int_equal (gp_infer_prepare (&c, 0, m, &e), 0);
}

static struct gp_workload rate_load (double rate, int n)
{
    struct gp_workload w;
    memset (&w, 0, sizeof w);
    w.arrivals = GP_ARR_POISSON;
    w.rate = rate;
    w.n_requests = n;
    w.in_len = 512;
    w.out_len = 128;
    w.seed = 7;
    return w;
}

/* Without a front end the queue is gp__infer_simulate_steps exactly. */
static void test_no_front_end_is_unchanged (void **state)
{
    (void)state;
    struct gp_serve_model m;
    small_model (&m);
    struct gp_workload w = rate_load (16, 300);
    struct gp_sim_result a, b;
    gp_error_t e = {0};
    assert_int_equal (gp__infer_simulate_steps (&m, &w, 1, &a, &e), 0);
    assert_int_equal (gp__infer_simulate_fe (&m, &w, 1, 0, 0, &b, &e), 0);
    assert_memory_equal (&a, &b, sizeof a);
}

/* All requests at once (an infinite rate): the front end lets one in per
 * 10 ms + 128 x 50 us = 16.4 ms, so 500 requests take at least
 * 499 x 16.4 ms + 10 ms to enter, and the output rate is at most
 * 128 / 16.4 ms = 7,805 tokens/s; the engine (a 0.6B model on an H100)
 * keeps up, so the rate is within 5 % of that bound. */
static void test_front_end_caps_the_rate (void **state)
{
    (void)state;
    struct gp_serve_model m;
    small_model (&m);
    struct gp_workload w = rate_load (INFINITY, 500);
    struct gp_sim_result s;
    gp_error_t e = {0};
    assert_int_equal (gp__infer_simulate_fe (&m, &w, 1, 0.010, 50e-6, &s,
                                             &e),
                      0);
    double cap = 128.0 / (0.010 + 128 * 50e-6);
    assert_true (s.out_tok_s <= cap * (1 + 1e-9));
    assert_true (s.out_tok_s > 0.95 * cap);
    assert_true (s.makespan_s >= 499 * 0.0164 + 0.010 - 1e-9);
    /* the mean request waits for half the others: about 250 x 16.4 ms */
    assert_true (s.ttft_mean_s > 3.5 && s.ttft_mean_s < 4.6);
}

/* One request alone: its TTFT and E2E grow by exactly the front end's
 * per-request time, and its TPOT not at all. */
static void test_single_request_adds_fe_req (void **state)
{
    (void)state;
    struct gp_serve_model m;
    small_model (&m);
    struct gp_workload w = rate_load (1, 1);
    struct gp_sim_result a, b;
    gp_error_t e = {0};
    assert_int_equal (gp__infer_simulate_fe (&m, &w, 1, 0, 0, &a, &e), 0);
    assert_int_equal (gp__infer_simulate_fe (&m, &w, 1, 0.012, 19e-6, &b,
                                             &e),
                      0);
    assert_true (fabs (b.ttft_mean_s - a.ttft_mean_s - 0.012) < 1e-9);
    assert_true (fabs (b.e2e_mean_s - a.e2e_mean_s - 0.012) < 1e-9);
    assert_true (fabs (b.tpot_mean_s - a.tpot_mean_s) < 1e-12);
}

/* validate: a vLLM rate row with request_rate "inf" (all prompts at once
 * through the server, as `vllm bench serve --request-rate inf`) is read
 * and runs behind vLLM's front end.  Hand bound for 512/128 tokens:
 * 7 ms (engines.csv frontend_s) + 512 x 10 us tokenization + 128 x 19 us
 * (GP_INFER_FE_TOKEN_S) = 14.552 ms a request, so at most
 * 128 / 14.552 ms = 8,796 tokens/s.  Before the front end was modelled the
 * row could only be read as offline, at 29,000 tokens/s (the published
 * run carried 12,149). */
static void test_validate_rate_inf (void **state)
{
    (void)state;
    char path[] = "/tmp/gp_fe_XXXXXX";
    int fd = mkstemp (path);
    assert_true (fd >= 0);
    FILE *f = fdopen (fd, "w");
    fputs (ARCH "gpu,num_gpus,tp,pp,weight_precision,kv_precision,engine,"
           "mode,concurrency,input_len,output_len,measured_output_tok_s,"
           "measured_ttft_ms,measured_tpot_ms,request_rate,num_prompts,"
           "async_scheduling\n",
           f);
    fputs ("inf,qwen3-0.6b,,,,,,,,,,,,H100-SXM,1,1,1,bf16,bf16,vllm,rate,,"
           "512,128,12148.5,2905,5.45,inf,500,1\n",
           f);
    fclose (f);
    gp_error_t err = {0};
    struct gp_infer_val v;
    int rc = gp_infer_validate (path, cat, zoo, &v, &err);
    if (rc)
        fprintf (stderr, "%s\n", err.text);
    assert_int_equal (rc, 0);
    assert_int_equal (v.n_rows, 1);
    const struct gp_infer_val_row *r = &v.rows[0];
    assert_int_equal (r->ok, 1);
    assert_int_equal (r->rate_mode, 1);
    double cap = 128.0 / (0.007 + 512 * 10e-6 + 128 * 19e-6);
    assert_true (fabs (cap - 8796.0) < 1);
    assert_true (r->predicted <= cap * (1 + 1e-9));
    assert_true (r->predicted > 0.85 * cap);
    gp_infer_val_free (&v);

    /* "inf" is a rate only: elsewhere it is not a number */
    f = fopen (path, "w");
    fputs (ARCH "gpu,num_gpus,tp,pp,weight_precision,kv_precision,engine,"
           "mode,concurrency,input_len,output_len,measured_output_tok_s,"
           "measured_ttft_ms,measured_tpot_ms\n"
           "x,qwen3-0.6b,,,,,,,,,,,,H100-SXM,1,1,1,bf16,bf16,vllm,offline,,"
           "inf,128,100,,\n",
           f);
    fclose (f);
    rc = gp_infer_validate (path, cat, zoo, &v, &err);
    unlink (path);
    assert_int_equal (rc, GP_EPARSE);
    assert_non_null (strstr (err.text, "input_len"));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_no_front_end_is_unchanged),
        cmocka_unit_test (test_front_end_caps_the_rate),
        cmocka_unit_test (test_single_request_adds_fe_req),
        cmocka_unit_test (test_validate_rate_inf),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
