/* test_validate_mlperf.c - time-to-train rows with evaluation inside the
 * timed run, the goodput a campaign row reports, the MLPerf validation
 * files and the leave-one-source-out refit of files that hold campaign
 * rows only (docs/model/training.md, "Measures", "Campaign goodput",
 * "MLPerf Training validation", "Honest fitting").
 *
 * Expected values are hand calculations on round numbers:
 *   time-to-train = (T + E / 3) / (r x n) / 60; with r = 1,000 tokens/s
 *   per GPU, n = 8 GPUs, T = 4.8e6 training tokens and E = 1.2e6
 *   evaluated tokens: (4.8e6 + 0.4e6) / 8,000 / 60 = 10.8333... minutes
 *   (10 minutes without the evaluation).
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
    "source_value,source,notes,measure,measured_value,flop_convention,"    \
    "eval_tokens,method\n"

/* A small model (4 layers, hidden 1024) on 8 H100, batch 64 x 2048. */
#define SMALL(id, kind, gpu) id "," kind ",m,,,4,1024,4096,8,8,32000,gelu," \
    ",,,,2048," gpu ",8,8,,,,,,,,,,64,bf16,"

static char path[64];

static struct gp_validation *run_text (const char *csv, int loso)
{
    snprintf (path, sizeof path, "/tmp/gp-test-valmlp-XXXXXX");
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

static struct gp_validation *run_file (const char *rel, int loso)
{
    char p[512];
    snprintf (p, sizeof p, "%s/%s", GP_SOURCE_DIR, rel);
    struct gp_validate_request rq = {.path = p, .loso = loso};
    struct gp_validation *v = NULL;
    gp_error_t err = {0};
    assert_int_equal (gp_validate_training (cat, &rq, &v, &err), 0);
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

static size_t family (const struct gp_validation *v, const char *name)
{
    for (size_t f = 0; f < v->n_families; f++)
        if (!strcmp (v->by_family[f].name, name))
            return f;
    fail_msg ("family %s missing", name);
    return 0;
}

static void near (double got, double want, double rel)
{
    if (fabs (got - want) > rel * fabs (want))
        fail_msg ("got %.10g, want %.10g", got, want);
}

/* The conversion: evaluated tokens cost a third of a training token. */
static void test_eval_conversion (void **state)
{
    (void)state;
    struct gp_val_native x = {.tokens_per_s_per_gpu = 1000, .tokens = 4.8e6,
                              .n_gpus = 8, .eval_tokens = 1.2e6};
    near (gp_val_measure_of (GP_MEAS_TIME_TO_TRAIN_MIN, &x),
          10.833333333333334, 1e-12);
    x.eval_tokens = 0;
    near (gp_val_measure_of (GP_MEAS_TIME_TO_TRAIN_MIN, &x), 10, 1e-12);
    /* evaluation is a time-to-train term only: GPU-hours ignore it */
    x.eval_tokens = 1.2e6;
    x.goodput = 1;
    near (gp_val_measure_of (GP_MEAS_GPU_HOURS, &x), 4.8e6 / 1000 / 3600,
          1e-12);
}

/* The 'eval_tokens' column reaches the prediction: the same time-to-train
 * row with and without it differs by exactly E / 3 tokens of the row's
 * own throughput; a malformed value or one on another measure is
 * reported unsupported with the reason (before, the column was ignored).
 */
static void test_eval_column (void **state)
{
    (void)state;
    struct gp_validation *v = run_text (
        HEADER SMALL ("a-with", "campaign", "H100-SXM")
        "3e9,,,,,,,time_to_train_min,10,,1.5e9\n"
        SMALL ("a-without", "campaign", "H100-SXM")
        "3e9,,,,,,,time_to_train_min,10,,\n"
        SMALL ("a-bad", "campaign", "H100-SXM")
        "3e9,,,,,,,time_to_train_min,10,,lots\n"
        SMALL ("a-gpuh", "campaign", "H100-SXM")
        "3e9,,,,,,,gpu_hours,10,,1e9\n", 0);
    const struct gp_val_row *w = row (v, "a-with"), *o = row (v, "a-without");
    assert_true (w->ok && o->ok);
    near (w->eval_tokens, 1.5e9, 1e-12);
    assert_true (o->eval_tokens == 0);
    /* predicted time scales with (T + E/3) / T = (3e9 + 0.5e9) / 3e9 */
    near (w->predicted / o->predicted, 3.5 / 3.0, 1e-9);
    assert_false (row (v, "a-bad")->ok);
    assert_non_null (strstr (row (v, "a-bad")->reason, "eval_tokens"));
    assert_false (row (v, "a-gpuh")->ok);
    assert_non_null (strstr (row (v, "a-gpuh")->reason,
                             "time_to_train_min"));
    gp_validation_destroy (v);
}

/* The 'method' column: a LoRA run (adapters on frozen weights) is
 * modelled as LoRA fine-tuning (docs/model/training.md, "LoRA
 * fine-tuning"): no weight-gradient GEMMs, so the same tokens train in
 * less time than the pre-training row (before, LoRA rows were reported
 * unsupported); 'pretrain' or blank is modelled; anything else is an
 * unknown method.
 */
static void test_method_column (void **state)
{
    (void)state;
    struct gp_validation *v = run_text (
        HEADER SMALL ("m-lora", "campaign", "H100-SXM")
        "3e9,,,,,,,time_to_train_min,10,,,lora\n"
        SMALL ("m-pre", "campaign", "H100-SXM")
        "3e9,,,,,,,time_to_train_min,10,,,pretrain\n"
        SMALL ("m-odd", "campaign", "H100-SXM")
        "3e9,,,,,,,time_to_train_min,10,,,dpo\n", 0);
    const struct gp_val_row *l = row (v, "m-lora");
    assert_true (l->ok);
    assert_true (row (v, "m-pre")->ok);
    /* the GEMMs drop from 3 to 2 passes (4N + adapters vs 6N per
     * token); attention, memory-bound work and logits stay: between 2/3
     * and all of the pre-training time
     */
    assert_true (l->predicted < row (v, "m-pre")->predicted);
    assert_true (l->predicted > 0.6 * row (v, "m-pre")->predicted);
    assert_false (row (v, "m-odd")->ok);
    assert_non_null (strstr (row (v, "m-odd")->reason, "unknown method"));
    gp_validation_destroy (v);
}

/* Campaign rows in GPU-hours report the goodput their measure used;
 * time-to-train rows (one timed run) and throughput rows report none.
 */
static void test_goodput_reported (void **state)
{
    (void)state;
    struct gp_validation *v = run_text (
        HEADER SMALL ("g-gpuh", "campaign", "H100-SXM")
        "3e9,,,,,,,gpu_hours,10,,\n"
        SMALL ("g-ttt", "campaign", "H100-SXM")
        "3e9,,,,,,,time_to_train_min,10,,\n"
        SMALL ("g-tps", "throughput", "H100-SXM")
        ",1000,,,,,,,,,\n", 0);
    const struct gp_val_row *g = row (v, "g-gpuh");
    assert_true (g->ok && g->goodput > 0.9 && g->goodput < 1);
    assert_true (row (v, "g-ttt")->goodput == 0);
    assert_true (row (v, "g-tps")->goodput == 0);
    gp_validation_destroy (v);
}

/* Leave-one-source-out on a file of campaign rows only: two families on
 * the same generation refit on each other's rows; a family alone on its
 * generation is not held out (loso_refit 0, LOSO = in-sample).  Before,
 * no campaign-only family was ever refitted.
 */
static void test_loso_campaign_only (void **state)
{
    (void)state;
    struct gp_validation *v = run_text (
        HEADER SMALL ("fa-1", "campaign", "H100-SXM")
        "3e9,,,,,,,time_to_train_min,10,,\n"
        SMALL ("fb-1", "campaign", "H100-SXM")
        "3e9,,,,,,,time_to_train_min,12,,\n"
        SMALL ("fc-1", "campaign", "A100-SXM-80GB")
        "3e9,,,,,,,time_to_train_min,30,,\n", 1);
    assert_true (v->have_loso);
    assert_int_equal (v->fit[family (v, "fa")].loso_refit, 1);
    assert_int_equal (v->fit[family (v, "fb")].loso_refit, 1);
    size_t c = family (v, "fc");
    assert_int_equal (v->fit[c].loso_refit, 0);
    near (v->fit[c].loso.median_abs_rel_err,
          v->by_family[c].median_abs_rel_err, 1e-12);
    gp_validation_destroy (v);
}

/* validation/training/mlperf-published.csv: every row reported; the
 * LoRA rows (MI300X, MI325X) are modelled (LoRA fine-tuning); the
 * CDNA4 rows (MI350X, MI355X), the FP4 rows (B200, GB200: NVFP4) and the
 * INT8 TPU v5p row are predicted; all of these are held out (added after
 * the model was set, validation/training/SOURCE.md); the modelled rows
 * carry their evaluation tokens; the GPT-3 family is held out against
 * the Llama 3.1 405B family (both Hopper).
 */
static void test_mlperf_published (void **state)
{
    (void)state;
    struct gp_validation *v =
        run_file ("validation/training/mlperf-published.csv", 1);
    assert_int_equal (v->n_rows, 10);
    for (size_t i = 0; i < v->n_rows; i++)
        assert_int_equal (v->rows[i].measure, GP_MEAS_TIME_TO_TRAIN_MIN);
    assert_true (row (v, "mlpv40tpu-v5p512")->ok);
    /* INT8 (AQT) on TPU v5p: the 'tpu' GEMM ceiling 0.92 times the
     * int8,tpu gemm_eff 0.65 (google/aqt README's 1.3x step-time
     * reduction / 2; docs/model/training.md, "Precision") predicts
     * -5.7 % (-5.9 % with the 'other' factors; -31.8 % with 0.92 and
     * gemm_eff 1)
     */
    assert_true (fabs (row (v, "mlpv40tpu-v5p512")->rel_err) <= 0.07);
    /* LoRA rows (held out: validation/training/SOURCE.md) are modelled,
     * with their evaluations: 5 and 7 x 173 samples x 8,192 tokens
     */
    assert_true (row (v, "mlpv51lora-mi325x")->ok);
    assert_true (row (v, "mlpv51lora-mi300x")->ok);
    near (row (v, "mlpv51lora-mi325x")->eval_tokens, 5.0 * 173 * 8192,
          1e-12);
    near (row (v, "mlpv51lora-mi300x")->eval_tokens, 7.0 * 173 * 8192,
          1e-12);
    assert_true (row (v, "mlpv51l8b-mi355x")->ok);
    assert_true (row (v, "mlpv51l8b-mi350x")->ok);
    assert_true (row (v, "mlpv51l8b-b200fp4")->ok);
    assert_true (row (v, "mlpv51l8b-gb200fp4")->ok);
    const struct gp_val_row *g = row (v, "mlpv40gpt3-n1344");
    assert_true (g->ok);
    near (g->eval_tokens, 22.0 * 11590004, 1e-12);
    assert_int_equal (g->n_gpus, 10752);
    const struct gp_val_row *l = row (v, "mlpv50l405-h100n512");
    assert_true (l->ok);
    assert_non_null (strstr (l->layout, "tp8 pp8 dp4 cp2"));
    assert_int_equal (v->all.n_ok, 10);
    /* docs/model/training.md, "MLPerf Training validation": 9.3 % with
     * the held-out LoRA, CDNA4, FP4 and INT8 rows; 10.0 % since Llama
     * stores no dropout masks: the Llama 3.1 8B rows' planned layouts use
     * the freed memory and are predicted faster (b200fp4 -9.3 -> -10.6 %,
     * gb200fp4 -9.4 -> -11.9 %), which moves the median across 10 %;
     * 10.6 % since the B200 holds CUDA's 178.35 GiB ("Memory capacity"):
     * b200fp4's planned layout takes micro-batch 4, -10.6 -> -11.7 %
     */
    assert_true (v->all.median_abs_rel_err <= 0.107);
    assert_true (v->fit[family (v, "mlpv40gpt3")].loso_refit > 0);
    assert_true (v->fit[family (v, "mlpv50l405")].loso_refit > 0);
    gp_validation_destroy (v);
}

/* The held-out MLPerf rows are modelled (their errors are reported, not
 * bounded: docs/model/training.md, "MLPerf Training validation").
 */
static void test_mlperf_heldout (void **state)
{
    (void)state;
    struct gp_validation *v =
        run_file ("validation/training/mlperf-heldout.csv", 0);
    assert_int_equal (v->n_rows, 3);
    assert_int_equal (v->all.n_ok, 3);
    assert_int_equal (row (v, "mlpv50l405-gb200n256")->n_gpus, 256);
    assert_int_equal (row (v, "mlpv41gpt3-b200n64")->n_gpus, 64);
    gp_validation_destroy (v);
}

/* validation/training/campaigns-published.csv: the GPU-hour rows report
 * the reliability model's goodput at their scale; at 16,384 H100 for
 * Llama 3.1 405B it lies in the Llama 3 paper's "higher than 90 %
 * effective training time" (Sec. 3.3.4) and below the 1,024-GPU Llama 2
 * rows'; the A100 families refit on each other (llama2, bloom,
 * falcon), the Hopper family alone is not held out.
 */
static void test_campaign_goodput (void **state)
{
    (void)state;
    struct gp_validation *v =
        run_file ("validation/training/campaigns-published.csv", 1);
    const struct gp_val_row *l = row (v, "llama31card-405b");
    assert_true (l->ok && l->goodput > 0.90 && l->goodput < 0.96);
    const struct gp_val_row *m = row (v, "llama2-70b");
    assert_true (m->ok && m->goodput > l->goodput && m->goodput < 1);
    assert_true (row (v, "bloom-176b")->ok);
    /* docs/model/training.md, "Campaign validation": with the two
     * model-card rows sized for the default deadline (held out,
     * validation/training/SOURCE.md), 10.3 % in-sample, 9.5 % LOSO;
     * 11.5 % and 9.9 % since the H100 and the A100 40GB hold CUDA's
     * totals (79.11 and 39.50 GiB, "Memory capacity"): the planner's
     * layouts for the 70B and 405B cards and Falcon change (-42.5 -> -44.5, -12.2 -> -14.2, -1.9 -> -4.1 %);
     * 12.0 % and 10.3 % with cuDNN attention on Hopper ("Attention
     * kernel": the three H100 model cards train faster, further under
     * their GPU-hours)
     */
    assert_int_equal (v->all.n_ok, 8);
    assert_true (v->all.median_abs_rel_err <= 0.12);
    assert_true (v->loso_all.median_abs_rel_err <= 0.104);
    assert_int_equal (v->fit[family (v, "falcon")].loso_refit, 1);
    assert_int_equal (v->fit[family (v, "llama31card")].loso_refit, 0);
    assert_int_equal (v->fit[family (v, "llama2")].loso_refit, 3);
    assert_int_equal (v->fit[family (v, "bloom")].loso_refit, 1);
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
        cmocka_unit_test (test_eval_conversion),
        cmocka_unit_test (test_eval_column),
        cmocka_unit_test (test_method_column),
        cmocka_unit_test (test_goodput_reported),
        cmocka_unit_test (test_loso_campaign_only),
        cmocka_unit_test (test_mlperf_published),
        cmocka_unit_test (test_mlperf_heldout),
        cmocka_unit_test (test_campaign_goodput),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
