/* test_train_grad_reduce.c - when the data-parallel gradient reduction
 * runs (docs/model/training.md, "Gradient reduction after the
 * backward"): overlapped with the last micro-batch's backward (default:
 * 90 % of it hidden while it fits in that backward) or after the last
 * backward (DeepSpeed's engines, Megatron-LM --DDP-impl local: nothing
 * hidden); the validation column grad_reduce.
 *
 * Expected values are hand relations of the two cases: with the whole
 * reduction c shorter than the last backward, the overlapped job exposes
 * c - 0.9 c = 0.1 c and the other c, and the steps differ by 0.9 c.
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

#include "h100_fixture.h"

static struct gp_catalog *cat;

#include "val_csv_fixture.h"

/* GPT-style 24 x 2048 model, 16 GPUs of dp (two nodes), 8 micro-batches
 * of 2,048 tokens each.
 */
static void step (int after, struct gp_train_result *r)
{
    struct gp_arch x;
    memset (&x, 0, sizeof x);
    snprintf (x.id, sizeof x.id, "grad-test");
    x.layers = 24;
    x.hidden = 2048;
    x.heads = 16;
    x.kv_heads = 16;
    x.head_dim = 128;
    x.ffn_hidden = 8192;
    x.vocab = 32000;
    x.mlp = GP_MLP_GELU;
    x.attention = GP_ATTN_MHA;
    struct gp_train_model m;
    assert_int_equal (gp_train_prep (&x, &m, NULL), 0);
    struct gp_train_hw hw;
    hw_h100_prec (&hw, GP_PREC_BF16);
    struct gp_train_job j;
    gp_train_job_default (&j);
    j.seq_len = 2048;
    j.global_batch = 16 * 8;
    j.grad_reduce_after = after;
    struct gp_layout l = {.tp = 1, .pp = 1, .dp = 16, .cp = 1, .ep = 1,
                          .vpp = 1, .micro_batch = 1,
                          .sharding = GP_SHARD_NONE};
    gp_error_t err = {0};
    int rc = gp_train_eval (&m, &j, &hw, &l, r, &err);
    if (rc)
        print_error ("%s\n", err.text);
    assert_int_equal (rc, 0);
}

static void test_after_exposes_all (void **state)
{
    (void)state;
    struct gp_train_result ov, af;
    step (0, &ov);
    step (1, &af);
    double c = af.time.dp_comm_s;
    assert_true (c > 0);
    /* the reduction fits in the last backward: 10 % of it exposed */
    near (ov.time.dp_comm_s, 0.1 * c, 1e-9);
    near (af.time.step_s - ov.time.step_s, 0.9 * c, 1e-9);
    /* nothing else moves */
    near (af.time.gemm_s, ov.time.gemm_s, 1e-12);
    near (af.time.attn_s, ov.time.attn_s, 1e-12);
}

#define HEADER VAL_CSV_HEADER "grad_reduce\n"
#define ROW(id, g)                                                         \
    id ",throughput,m,,,24,2048,8192,16,16,32000,gelu,,,,,2048,H100-SXM,"  \
       "16,8,1,1,16,1,,1,none,none,1,128,bf16,,10000,,,,test row,," g "\n"

/* The column: blank and 'overlap' are the default, 'after' the DeepSpeed
 * timing; the step times differ by 0.9 c as above (tokens of a step:
 * 128 x 2,048 over 16 GPUs).
 */
static void test_validation_column (void **state)
{
    (void)state;
    struct gp_validation *v = NULL;
    gp_error_t err = {0};
    int rc = val_run_csv (cat,
                          HEADER ROW ("g-blank", "") ROW ("g-ov", "overlap")
                              ROW ("g-after", "after"),
                          &v, &err);
    if (rc)
        print_error ("%s\n", err.text);
    assert_int_equal (rc, 0);
    for (int i = 0; i < 3; i++)
        assert_true (v->rows[i].ok);
    near (v->rows[0].predicted, v->rows[1].predicted, 1e-12);
    struct gp_train_result ov, af;
    step (0, &ov);
    step (1, &af);
    double tok = 128 * 2048.0 / 16;
    near (tok / v->rows[2].predicted - tok / v->rows[1].predicted,
          0.9 * af.time.dp_comm_s, 1e-6);
    gp_validation_destroy (v);
}

static void test_validation_bad_value (void **state)
{
    (void)state;
    struct gp_validation *v = NULL;
    gp_error_t err = {0};
    int rc = val_run_csv (cat, HEADER ROW ("g-bad", "later"), &v, &err);
    assert_int_not_equal (rc, 0);
    assert_null (v);
    assert_non_null (strstr (err.text, ":2:"));
    assert_non_null (strstr (err.text, "grad_reduce"));
    assert_non_null (strstr (err.text, "later"));
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
        cmocka_unit_test (test_after_exposes_all),
        cmocka_unit_test (test_validation_column),
        cmocka_unit_test (test_validation_bad_value),
    };
    int rc = cmocka_run_group_tests (tests, NULL, NULL);
    gp_catalog_destroy (cat);
    return rc;
}
