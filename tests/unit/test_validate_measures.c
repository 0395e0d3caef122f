/* test_validate_measures.c - the measures of a training validation row,
 * rows planned by the training planner, and the per-family fitting record
 * (docs/model/training.md, "Measures", "Validation" and "Honest fitting").
 *
 * Expected values are hand calculations: the conversion formulas on round
 * numbers, and the FLOPs per token of a small model counted by hand
 * (4 layers, hidden 1024, 8 heads of 128, MLP 4096 GELU, vocabulary
 * 32,000, sequence 2,048):
 *   attention 4 h^2 = 4,194,304 and MLP 2 h f = 8,388,608 per layer,
 *   x 4 layers = 50,331,648, + LM head V h = 32,768,000:
 *   N = 83,099,648, 6N = 498,597,888 FLOPs per token;
 *   attention term 12 L s H d = 12 x 4 x 2048 x 1024 = 100,663,296,
 *   6N + attn = 599,261,184.
 * The planner rows are tied to gp_train_plan (the call of 'gpuplan train
 * --gpus N') on the same model, accelerator, count and tokens.
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

#include "gpuplan/train.h"
#include "gpuplan/validate.h"

static struct gp_catalog *cat;

#define HEADER                                                             \
    "id,kind,model,zoo,params_b,layers,hidden,ffn_hidden,heads,kv_heads,"  \
    "vocab,mlp,moe_experts,moe_topk,moe_ffn_hidden,moe_shared_experts,"    \
    "seq_len,gpu,num_gpus,gpus_per_node,tp,pp,dp,cp,ep,vpp,sharding,"      \
    "recompute,micro_batch,global_batch,precision,tokens,"                 \
    "measured_tokens_per_s_per_gpu,measured_gpu_hours,source_metric,"      \
    "source_value,source,notes,measure,measured_value,flop_convention\n"

/* The small model on 8 H100, batch 64 x 2048, layout searched. */
#define SMALL(id, kind) id "," kind ",m,,,4,1024,4096,8,8,32000,gelu,,,,,"  \
    "2048,H100-SXM,8,8,,,,,,,,,,64,bf16,"

static char path[64];

static struct gp_validation *run_text (const char *csv, int loso)
{
    snprintf (path, sizeof path, "/tmp/gp-test-valmeas-XXXXXX");
    int fd = mkstemp (path);
    assert_true (fd >= 0);
    FILE *f = fdopen (fd, "w");
    assert_non_null (f);
    fputs (csv, f);
    fclose (f);
    struct gp_validate_request rq = {.path = path, .loso = loso};
    struct gp_validation *v = NULL;
    gp_error_t err = {0};
    int rc = gp_validate_training (cat, &rq, &v, &err);
    unlink (path);
    if (rc)
        fprintf (stderr, "%s\n", err.text);
    assert_int_equal (rc, 0);
    return v;
}

static const struct gp_val_row *row (const struct gp_validation *v,
                                     const char *id)
{
    for (size_t i = 0; i < v->n_rows; i++)
        if (!strcmp (v->rows[i].id, id))
            return &v->rows[i];
    fail_msg ("row %s missing", id);
    return NULL;
}

static void near (double got, double want, double rel)
{
    if (fabs (got - want) > rel * fabs (want))
        fail_msg ("got %.10g, want %.10g", got, want);
}

/* The conversion on round numbers. */
static void test_conversion (void **state)
{
    (void)state;
    struct gp_val_native x = {.tokens_per_s_per_gpu = 1000,
                              .flops_per_token = 6 * 7e9,
                              .goodput = 0.9, .tokens = 1e12,
                              .n_gpus = 1024};
    near (gp_val_measure_of (GP_MEAS_TOKENS_PER_S_PER_GPU, &x), 1000, 1e-12);
    /* 1000 x 4.2e10 / 1e12 = 42 TFLOP/s */
    near (gp_val_measure_of (GP_MEAS_TFLOPS_PER_GPU, &x), 42, 1e-12);
    /* 1e12 / (1000 x 0.9) / 3600 = 308,641.975... GPU-hours */
    near (gp_val_measure_of (GP_MEAS_GPU_HOURS, &x), 308641.9753086420,
          1e-12);
    /* 1e12 / (1000 x 0.9 x 1024) / 86400 = 12.5587... days */
    near (gp_val_measure_of (GP_MEAS_DAYS, &x), 12.558674125514404, 1e-12);
    /* 1e12 / (1000 x 1024) / 60 = 16,276.04... minutes, no goodput */
    near (gp_val_measure_of (GP_MEAS_TIME_TO_TRAIN_MIN, &x),
          16276.041666666666, 1e-12);
    x.tokens = 0;
    assert_true (isnan (gp_val_measure_of (GP_MEAS_GPU_HOURS, &x)));
    assert_true (isnan (gp_val_measure_of (GP_MEAS_TIME_TO_TRAIN_MIN, &x)));
    x.flops_per_token = 0;
    assert_true (isnan (gp_val_measure_of (GP_MEAS_TFLOPS_PER_GPU, &x)));
    x.tokens_per_s_per_gpu = 0;
    assert_true (isnan (gp_val_measure_of (GP_MEAS_TOKENS_PER_S_PER_GPU,
                                           &x)));
    assert_true (isnan (gp_val_measure_of (GP_MEAS_N, &x)));

    enum gp_val_measure m;
    assert_int_equal (gp_val_measure_parse ("TFLOPS_per_gpu", &m), 0);
    assert_int_equal (m, GP_MEAS_TFLOPS_PER_GPU);
    assert_int_equal (gp_val_measure_parse ("tokens", &m), -1);
    assert_string_equal (gp_val_measure_str (GP_MEAS_DAYS), "days");
    assert_int_equal (gp_val_measure_kind (GP_MEAS_DAYS), GP_VAL_CAMPAIGN);
    enum gp_flop_convention c;
    assert_int_equal (gp_flop_convention_parse ("6n+ATTN", &c), 0);
    assert_int_equal (c, GP_FLOPS_6N_ATTN);
    assert_int_equal (gp_flop_convention_parse ("6ND", &c), -1);
}

/* One prediction, five measures: each follows from the tokens/s row by
 * the hand-counted FLOPs and the campaign formulas.
 */
static void test_row_measures (void **state)
{
    (void)state;
    struct gp_validation *v = run_text (
        HEADER
        SMALL ("a-tps", "throughput") ",1000,,,,,,,,\n"
        SMALL ("a-6n", "throughput") ",,,,,,,tflops_per_gpu,100,6N\n"
        SMALL ("a-6na", "throughput") ",,,,,,,tflops_per_gpu,100,6N+attn\n"
        SMALL ("a-gpuh", "campaign") "1e10,,,,,,,gpu_hours,100,\n"
        SMALL ("a-days", "campaign") "1e10,,,,,,,days,1,\n"
        SMALL ("a-ttt", "campaign") "1e10,,,,,,,time_to_train_min,100,\n"
        SMALL ("b-noconv", "throughput") ",,,,,,,tflops_per_gpu,100,\n"
        SMALL ("b-unknown", "throughput") ",,,,,,,furlongs,100,\n"
        SMALL ("b-kind", "throughput") ",,,,,,,gpu_hours,100,\n",
        0);
    const struct gp_val_row *t = row (v, "a-tps");
    assert_true (t->ok);
    assert_int_equal (t->measure, GP_MEAS_TOKENS_PER_S_PER_GPU);
    double r = t->predicted;
    const struct gp_val_row *f6 = row (v, "a-6n"), *fa = row (v, "a-6na");
    assert_true (f6->ok && fa->ok);
    assert_int_equal (f6->measure, GP_MEAS_TFLOPS_PER_GPU);
    near (f6->predicted, r * 498597888.0 / 1e12, 1e-12);
    near (fa->predicted, r * 599261184.0 / 1e12, 1e-12);
    near (f6->rel_err, f6->predicted / 100 - 1, 1e-12);
    /* campaign measures: GPU-hours = days x 8 GPUs x 24 h; the timed run
     * has no goodput, so it is at most the days x 1440 minutes
     */
    const struct gp_val_row *gh = row (v, "a-gpuh"), *d = row (v, "a-days"),
                            *tt = row (v, "a-ttt");
    assert_true (gh->ok && d->ok && tt->ok);
    assert_int_equal (gh->kind, GP_VAL_CAMPAIGN);
    near (gh->predicted, d->predicted * 8 * 24, 1e-12);
    near (tt->predicted, 1e10 / (r * 8) / 60, 1e-12);
    assert_true (tt->predicted <= d->predicted * 1440);
    assert_true (tt->predicted > 0.9 * d->predicted * 1440);
    /* rows that cannot be compared say why */
    assert_false (row (v, "b-noconv")->ok);
    assert_non_null (strstr (row (v, "b-noconv")->reason, "flop_convention"));
    assert_false (row (v, "b-unknown")->ok);
    assert_non_null (strstr (row (v, "b-unknown")->reason, "furlongs"));
    assert_false (row (v, "b-kind")->ok);
    assert_non_null (strstr (row (v, "b-kind")->reason, "contradicts"));
    gp_validation_destroy (v);
}

/* A campaign row with only model, tokens, hardware and GPU count is
 * planned as 'gpuplan train --model llama3-8b --gpus 64 --tokens 1e11'
 * plans it; without a GPU count it is unsupported with the reason.
 */
static void test_planner_rows (void **state)
{
    (void)state;
    struct gp_validation *v = run_text (
        HEADER
        "p-1,campaign,Llama 3 8B,llama3-8b,,,,,,,,,,,,,,H100-SXM,64,,,,,,,,"
        ",,,,,1e11,,,,,,,gpu_hours,50000,\n"
        "p-2,campaign,Llama 3 8B,llama3-8b,,,,,,,,,,,,,,H100-SXM,,,,,,,,,"
        ",,,,,1e11,,,,,,,gpu_hours,50000,\n",
        0);
    const struct gp_val_row *p = row (v, "p-1");
    assert_true (p->ok);
    assert_true (p->planned && p->seq_chosen && p->batch_chosen);

    struct gp_train_request rq;
    gp_train_request_init (&rq);
    rq.model = "llama3-8b";
    rq.accels = "H100-SXM";
    rq.gpus = 64;
    rq.tokens = 1e11;
    struct gp_train_plan_result *plan = NULL;
    gp_error_t err = {0};
    assert_int_equal (gp_train_plan (cat, &rq, &plan, &err), 0);
    assert_true (plan->accels[0].feasible);
    near (p->predicted, plan->accels[0].gpu_hours, 1e-12);
    near (p->seq_len, plan->job.seq_len, 0);
    near (p->global_batch, plan->accels[0].global_batch, 0);
    near (p->mfu, plan->accels[0].top[0].time.mfu, 1e-12);
    assert_int_equal (p->n_gpus, 64);
    gp_train_plan_result_destroy (plan);

    /* no num_gpus: sized for the default deadline
     * (test_validate_campaign_days.c)
     */
    const struct gp_val_row *q = row (v, "p-2");
    assert_true (q->ok && q->gpus_chosen && q->days_default);
    gp_validation_destroy (v);
}

/* Fitted constants per family (docs/model/training.md, "Honest
 * fitting"): an H100 BF16 family depends on hopper gemm_max, gemm_dim_half,
 * the memory-bound passes, hopper attn and the hopper attention-kernel
 * split (5) and reads the 8 hopper factors; an A100 FP16 family on ampere
 * gemm_max, the two global constants and the unfused-attention rule (4).  Leave-one-source-out
 * with two one-row families: each is predicted at the grid ceiling that
 * fits the other best, recomputed here from 36 runs with the override.
 */
static void test_fit_and_loso (void **state)
{
    (void)state;
    const char *csv =
        HEADER
        SMALL ("h", "throughput") ",1000,,,,,,,,\n"
        "g-1,throughput,m,,,4,1024,4096,8,8,32000,gelu,,,,,2048,H100-SXM,"
        "8,8,,,,,,,,,,64,bf16,,,,,,,,tokens_per_s_per_gpu,60000,\n"
        "a-1,throughput,m,,,4,1024,4096,8,8,32000,gelu,,,,,2048,"
        "A100-SXM-80GB,8,8,,,,,,,,,,64,fp16,,5000,,,,,,,,\n";
    struct gp_validation *v = run_text (csv, 1);
    assert_int_equal (v->n_families, 3);
    assert_true (v->have_loso);
    for (size_t f = 0; f < 3; f++) {
        assert_int_equal (v->fit[f].factors, 8);
        /* families h and g are H100, a is A100 */
        assert_int_equal (v->fit[f].fitted, f < 2 ? 5 : 4);
    }
    /* h and g are hopper: each is held out against the other alone */
    double err_at[36][3];
    for (int g = 0; g < 36; g++) {
        struct gp_eff_override o = {.generation = "all",
                                    .key = GP_EFF_GEMM_MAX,
                                    .value = 0.55 + 0.01 * g};
        snprintf (path, sizeof path, "/tmp/gp-test-valmeas-XXXXXX");
        int fd = mkstemp (path);
        assert_true (fd >= 0);
        FILE *fp = fdopen (fd, "w");
        fputs (csv, fp);
        fclose (fp);
        struct gp_validate_request rq = {.path = path, .overrides = &o,
                                         .n_overrides = 1};
        struct gp_validation *w = NULL;
        gp_error_t err = {0};
        assert_int_equal (gp_validate_training (cat, &rq, &w, &err), 0);
        unlink (path);
        for (int i = 0; i < 3; i++)
            err_at[g][i] = w->rows[i].rel_err;
        gp_validation_destroy (w);
    }
    for (int held = 0; held < 2; held++) {
        int other = 1 - held, best = 0;
        for (int g = 1; g < 36; g++)
            if (fabs (err_at[g][other]) < fabs (err_at[best][other]))
                best = g;
        const struct gp_val_family_fit *ff = &v->fit[held];
        assert_true (ff->have_loso);
        near (ff->loso.median_abs_rel_err, fabs (err_at[best][held]), 1e-12);
        near (ff->gap, ff->loso.median_abs_rel_err
                           - v->by_family[held].median_abs_rel_err, 1e-12);
        assert_int_equal (ff->gap_flag, ff->gap > 0.03);
    }
    /* the only ampere row has no other family to fit on: shipped error */
    near (v->fit[2].loso.median_abs_rel_err,
          v->by_family[2].median_abs_rel_err, 1e-12);
    assert_int_equal (v->fit[2].gap_flag, 0);
    gp_validation_destroy (v);
}

/* validation/training/campaigns-published.csv: every row reported; the
 * model-card rows without a GPU count are sized for the default deadline
 * (train.default_days; test_validate_campaign_days.c); the Llama 3.1 405B
 * campaign (model, tokens, H100, 16,384 GPUs, GPU-hours) is planned and
 * within 20 % of the card's 30.84M GPU-hours (docs/model/training.md,
 * "Validation": -11.6 % today).
 */
static void test_published_campaigns (void **state)
{
    (void)state;
    struct gp_validate_request rq = {
        .path = GP_SOURCE_DIR "/validation/training/campaigns-published.csv"};
    struct gp_validation *v = NULL;
    gp_error_t err = {0};
    assert_int_equal (gp_validate_training (cat, &rq, &v, &err), 0);
    assert_int_equal (v->n_rows, 8);
    for (size_t i = 0; i < v->n_rows; i++)
        assert_int_equal (v->rows[i].kind, GP_VAL_CAMPAIGN);
    assert_true (row (v, "llama31card-8b")->ok
                 && row (v, "llama31card-8b")->gpus_chosen);
    assert_true (row (v, "llama31card-70b")->ok
                 && row (v, "llama31card-70b")->days_default);
    assert_false (row (v, "llama31card-405b")->gpus_chosen);
    const struct gp_val_row *p = row (v, "llama31card-405b");
    assert_true (p->ok && p->planned && p->seq_chosen && p->batch_chosen);
    assert_int_equal (p->n_gpus, 16384);
    assert_true (fabs (p->rel_err) <= 0.20);
    assert_true (row (v, "llama2-70b")->ok);
    assert_false (row (v, "llama2-70b")->planned);
    gp_validation_destroy (v);
}

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

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_conversion),
        cmocka_unit_test (test_row_measures),
        cmocka_unit_test (test_planner_rows),
        cmocka_unit_test (test_fit_and_loso),
        cmocka_unit_test (test_published_campaigns),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
