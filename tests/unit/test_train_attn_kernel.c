/* test_train_attn_kernel.c - the attention kernel of a training job
 * (docs/model/training.md, "Attention kernel"): auto (what Transformer
 * Engine selects: cuDNN fused attention on Hopper), fa2 (the flash-attn
 * package, PyTorch SDPA) and cudnn; the validation column attn_kernel.
 *
 * Expected values are hand calculations: the attention core of one
 * micro-batch is forward + backward = 3.5 x the causal half of
 * 4 b s^2 (a d) FLOPs at peak x efficiency, plus one 5 us kernel per
 * pass; the efficiencies are the catalog's (generations.csv: hopper
 * train_attn 0.35, train_attn_cudnn 0.53 = 3.5 / (1/529 + 2.5/518) /
 * 989 from the FlashAttention-3 paper's cuDNN figures; ampere 0.50 and
 * no cuDNN figure).
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

#include "gpuplan/catalog.h"
#include "gpuplan/train.h"
#include "gpuplan/validate.h"

static void near (double got, double want, double rel)
{
    if (fabs (got - want) > rel * fabs (want)) {
        print_error ("got %.9g want %.9g (tolerance %.2g %%)\n", got, want,
                     rel * 100);
        fail ();
    }
}

/* Dense GELU model: 4 layers of 1024, 8 heads (MHA), MLP 4h. */
static void model (struct gp_train_model *m)
{
    struct gp_arch x;
    memset (&x, 0, sizeof x);
    snprintf (x.id, sizeof x.id, "attn-test");
    x.layers = 4;
    x.hidden = 1024;
    x.heads = 8;
    x.kv_heads = 8;
    x.head_dim = 128;
    x.ffn_hidden = 4096;
    x.vocab = 32000;
    x.mlp = GP_MLP_GELU;
    x.attention = GP_ATTN_MHA;
    assert_int_equal (gp_train_prep (&x, m, NULL), 0);
}

#include "h100_fixture.h"

static struct gp_catalog *cat;

#include "val_csv_fixture.h"

/* The attention time of one BF16 step: 8 micro-batches of 2,048 tokens
 * on one GPU, with 'kernel'.
 */
static double attn_s (const struct gp_train_hw *hw, int kernel)
{
    struct gp_train_model m;
    model (&m);
    struct gp_train_job j;
    gp_train_job_default (&j);
    j.seq_len = 2048;
    j.global_batch = 8;
    j.attn_kernel = kernel;
    struct gp_layout l = {.tp = 1, .pp = 1, .dp = 1, .cp = 1, .ep = 1,
                          .vpp = 1, .micro_batch = 1};
    struct gp_train_result r;
    gp_error_t err = {0};
    int rc = gp_train_eval (&m, &j, hw, &l, &r, &err);
    if (rc)
        print_error ("%s\n", err.text);
    assert_int_equal (rc, 0);
    return r.time.attn_s;
}

/* 8 micro-batches x 4 layers x 3.5 x (0.5 x 4 x 2048^2 x 1024 FLOPs at
 * 'peak' x 'eff' + 5 us)
 */
static double hand (double peak, double eff)
{
    return 8 * 4 * 3.5
           * (0.5 * 4.0 * 2048.0 * 2048.0 * 1024.0 / (peak * eff) + 5e-6);
}

static void test_hopper_kernels (void **state)
{
    (void)state;
    struct gp_train_hw hw;
    hw_h100_prec (&hw, GP_PREC_BF16);
    near (hw.eff.attn, 0.35, 1e-12);
    near (hw.eff.attn_cudnn, 0.53, 1e-12);
    near (attn_s (&hw, GP_ATTN_FA2), hand (989.4e12, 0.35), 1e-9);
    near (attn_s (&hw, GP_ATTN_CUDNN), hand (989.4e12, 0.53), 1e-9);
    /* auto: Transformer Engine's choice on Hopper is cuDNN */
    near (attn_s (&hw, GP_ATTN_AUTO), hand (989.4e12, 0.53), 1e-9);
    near (gp_train_attn_eff (&hw.eff, GP_ATTN_AUTO), 0.53, 1e-12);
}

/* Ampere: Transformer Engine selects FlashAttention-2 and the catalog has
 * no cuDNN figure, so every kernel runs at train_attn (0.50).
 */
static void test_ampere_one_figure (void **state)
{
    (void)state;
    const struct gp_accel *a = gp_catalog_find_accel (cat, "A100-SXM-80GB",
                                                      NULL);
    assert_non_null (a);
    struct gp_train_hw hw;
    gp_train_hw_from_accel (a, GP_PREC_BF16, &hw);
    near (hw.eff.attn, 0.50, 1e-12);
    near (hw.eff.attn_cudnn, 0, 0);
    double peak = hw.peak_bf16_flops;
    near (peak, 312e12, 1e-3);
    for (int k = GP_ATTN_AUTO; k <= GP_ATTN_CUDNN; k++)
        near (attn_s (&hw, k), hand (peak, 0.50), 1e-9);
}

static void test_names (void **state)
{
    (void)state;
    assert_string_equal (gp_attn_kernel_str (GP_ATTN_AUTO), "auto");
    assert_string_equal (gp_attn_kernel_str (GP_ATTN_FA2), "fa2");
    assert_string_equal (gp_attn_kernel_str (GP_ATTN_CUDNN), "cudnn");
    assert_null (gp_attn_kernel_str (7));
    assert_null (gp_attn_kernel_str (-1));
}

#define HEADER VAL_CSV_HEADER "attn_kernel\n"
/* one H100 row on one GPU, layout fixed, attention kernel K */
#define ROW(id, k)                                                         \
    id ",throughput,m,,,4,1024,4096,8,8,32000,gelu,,,,,2048,H100-SXM,1,8," \
       "1,1,1,1,,1,none,none,1,8,bf16,,10000,,,,test row,," k "\n"

/* The column: blank = auto, fa2 and cudnn as stated.  The three rows
 * differ only in their attention time: tokens per step / step, so
 * 1/tokens_per_s differs by the attention difference over the tokens of
 * a step (8 x 2,048).
 */
static void test_validation_column (void **state)
{
    (void)state;
    struct gp_validation *v = NULL;
    gp_error_t err = {0};
    int rc = val_run_csv (cat,
                          HEADER ROW ("r-auto", "") ROW ("r-fa2", "fa2")
                              ROW ("r-cudnn", "cudnn"),
                          &v, &err);
    if (rc)
        print_error ("%s\n", err.text);
    assert_int_equal (rc, 0);
    assert_int_equal (v->n_rows, 3);
    for (int i = 0; i < 3; i++)
        assert_true (v->rows[i].ok);
    double tok = 8 * 2048.0;
    double s_auto = tok / v->rows[0].predicted;
    double s_fa2 = tok / v->rows[1].predicted;
    double s_cudnn = tok / v->rows[2].predicted;
    near (s_auto, s_cudnn, 1e-12);
    near (s_fa2 - s_cudnn, hand (989.4e12, 0.35) - hand (989.4e12, 0.53),
          1e-6);
    gp_validation_destroy (v);
}

/* A value outside fa2/cudnn is bad input: file, line and column named. */
static void test_validation_bad_value (void **state)
{
    (void)state;
    struct gp_validation *v = NULL;
    gp_error_t err = {0};
    int rc = val_run_csv (cat, HEADER ROW ("r-ok", "") ROW ("r-bad", "fa3"),
                          &v, &err);
    assert_int_not_equal (rc, 0);
    assert_null (v);
    assert_non_null (strstr (err.text, ":3:"));
    assert_non_null (strstr (err.text, "attn_kernel"));
    assert_non_null (strstr (err.text, "fa3"));
}

int main (void)
{
    gp_error_t err = {0};
    cat = gp_catalog_load (NULL, &err);
    if (!cat) {
        fprintf (stderr, "%s\n", err.text);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_hopper_kernels),
        cmocka_unit_test (test_ampere_one_figure),
        cmocka_unit_test (test_names),
        cmocka_unit_test (test_validation_column),
        cmocka_unit_test (test_validation_bad_value),
    };
    int rc = cmocka_run_group_tests (tests, NULL, NULL);
    gp_catalog_destroy (cat);
    return rc;
}
