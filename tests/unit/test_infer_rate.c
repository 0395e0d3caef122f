/* test_infer_rate.c - validate's rate mode: Poisson rows read their rate,
 * batch limits and measured percentiles; a rate row without a rate is
 * unsupported with the reason; the simulator's p90/p99 are ordered.
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

static const char head[] =
    "id,zoo,layers,hidden,ffn_hidden,heads,kv_heads,head_dim,vocab,"
    "attention,moe_experts,moe_topk,moe_ffn_hidden,gpu,num_gpus,tp,pp,"
    "weight_precision,kv_precision,engine,mode,concurrency,input_len,"
    "output_len,measured_output_tok_s,measured_ttft_ms,measured_tpot_ms,"
    "notes,request_rate,max_num_seqs,max_num_batched_tokens,num_prompts,"
    "measured_ttft_p90_ms,measured_ttft_p99_ms,measured_tpot_p90_ms,"
    "measured_tpot_p99_ms,measured_e2e_ms,measured_e2e_p90_ms,"
    "measured_e2e_p99_ms\n";

static void test_rate_rows (void **state)
{
    (void)state;
    char path[] = "/tmp/gp_rate_XXXXXX";
    int fd = mkstemp (path);
    assert_true (fd >= 0);
    FILE *f = fdopen (fd, "w");
    fputs (head, f);
    /* 8B on one H100, 4 req/s, measured values made up for the parse */
    fputs ("r1,llama3.1-8b,,,,,,,,,,,,H100-SXM,1,1,1,bf16,,vllm,rate,,"
           "1000,200,800,50,20,,4,64,2048,400,60,70,21,22,4000,4500,5000\n",
           f);
    fputs ("r2,llama3.1-8b,,,,,,,,,,,,H100-SXM,1,1,1,bf16,,vllm,rate,,"
           "1000,200,800,,,,,,,,,,,,,,\n",
           f);
    /* the same load with one sequence at a time: decode cannot batch */
    fputs ("r3,llama3.1-8b,,,,,,,,,,,,H100-SXM,1,1,1,bf16,,vllm,rate,,"
           "1000,200,800,,,,0.5,1,,400,,,,,,,\n",
           f);
    fclose (f);
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (NULL, &err);
    struct gp_zoo *zoo = gp_zoo_load (NULL, &err);
    struct gp_infer_val v;
    int rc = gp_infer_validate (path, cat, zoo, &v, &err);
    unlink (path);
    if (rc)
        fprintf (stderr, "%s\n", err.text);
    assert_int_equal (rc, 0);
    assert_int_equal (v.n_rows, 3);
    const struct gp_infer_val_row *r = &v.rows[0];
    assert_int_equal (r->ok, 1);
    assert_int_equal (r->rate_mode, 1);
    /* measured columns, ms -> s, in GP_INFER_LAT order */
    const double m[9] = {0.050, 0.060, 0.070, 0.020, 0.021,
                         0.022, 4.0,   4.5,   5.0};
    for (int i = 0; i < 9; i++)
        assert_true (fabs (r->lat_meas_s[i] - m[i]) < 1e-12);
    for (int q = 0; q < 3; q++) {
        double mean = r->lat_pred_s[GP_INFER_LAT (q, 0)];
        double p90 = r->lat_pred_s[GP_INFER_LAT (q, 1)];
        double p99 = r->lat_pred_s[GP_INFER_LAT (q, 2)];
        assert_true (mean > 0 && p90 > 0 && p90 <= p99);
    }
    /* at 4 req/s an 8B replica is far from saturation: the output rate
     * is the offered rate times 200 tokens (Poisson sample: within 15 %) */
    assert_true (fabs (r->predicted / 800.0 - 1) < 0.15);
    /* E2E is TTFT plus 199 inter-token gaps (per request, so only the
     * means compose): mean E2E = mean TTFT + 199 x mean TPOT */
    assert_true (fabs (r->lat_pred_s[GP_INFER_LAT (2, 0)]
                       - (r->lat_pred_s[0] + 199 * r->lat_pred_s[3]))
                 < 1e-6 * r->lat_pred_s[GP_INFER_LAT (2, 0)]);
    assert_int_equal (v.rows[1].ok, 0);
    assert_non_null (strstr (v.rows[1].reason, "request_rate"));
    /* max_num_seqs 1 at 0.5 req/s: one request at a time.  By hand
     * (H100 SXM, 8B bf16): decode step ~ 16 GB / (3.35 TB/s x 0.8) +
     * 32 x 12 us layers = 6.4 ms on the GPU; vLLM's 3.1 ms of host work
     * per step runs behind it (async scheduling, engines.csv), so the step
     * is 6.4 ms; prefill of 1000 tokens ~30 ms, so a request holds the
     * engine S = 1.3 s; load 0.65; an M/D/1 queue waits
     * rho S / (2 (1 - rho)) = 1.2 s on average.  So TPOT is one
     * sequence's step (no prefill shares it) and TTFT is queueing, far
     * above the batched row's. */
    if (!v.rows[2].ok)
        fprintf (stderr, "r3: %s\n", v.rows[2].reason);
    assert_int_equal (v.rows[2].ok, 1);
    double tpot1 = v.rows[2].lat_pred_s[GP_INFER_LAT (1, 0)];
    fprintf (stderr, "r3: TPOT %.2f ms, TTFT %.2f s; r1: TTFT %.3f s\n",
             tpot1 * 1e3, v.rows[2].lat_pred_s[0], r->lat_pred_s[0]);
    assert_true (tpot1 > 5e-3 && tpot1 < 8e-3);
    assert_true (v.rows[2].lat_pred_s[0] > 0.5);
    assert_true (r->lat_pred_s[0] < 1.0);
    gp_infer_val_free (&v);
    gp_zoo_destroy (zoo);
    gp_catalog_destroy (cat);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_rate_rows),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
