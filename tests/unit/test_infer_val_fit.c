/* test_infer_val_fit.c - the serving model's honest-fitting record
 * (src/lib/validate/infer_fit.c): families, fitted constants per family
 * and the leave-one-source-out error with one throughput scale per engine
 * stack, on rows whose errors are worked out by hand; and the pooled
 * reading of several validation files.
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

#include "gpuplan/catalog.h"
#include "gpuplan/validate.h"
#include "validate/validate_private.h"

static void row (struct gp_infer_val_row *r, const char *id, int ok,
                 double pred, double meas, const char *stack,
                 const char *gen)
{
    memset (r, 0, sizeof *r);
    snprintf (r->id, sizeof r->id, "%s", id);
    r->ok = ok;
    r->predicted = pred;
    r->measured = meas;
    r->rel_err = ok ? pred / meas - 1 : 0;
    snprintf (r->stack, sizeof r->stack, "%s", stack);
    snprintf (r->generation, sizeof r->generation, "%s", gen);
}

static const struct gp_val_summary *fam (const struct gp_infer_validation *v,
                                         const char *name, size_t *idx)
{
    for (size_t f = 0; f < v->n_families; f++)
        if (!strcmp (v->by_family[f].name, name)) {
            *idx = f;
            return &v->by_family[f];
        }
    fail_msg ("family %s missing", name);
    return NULL;
}

/* Family a (vLLM on CUDA): +10 %, +20 %.  Family b (same stack): -10 %,
 * 0, -20 %.  Family c (TensorRT-LLM, alone on its stack): +5 %.  Family
 * d: one unsupported row.
 * LOSO of a: scale = median of measured/predicted over b in logs =
 * 100/90, so 110/90 - 1 = 0.2222 and 120/90 - 1 = 0.3333: median
 * 0.27778 against 0.15 in-sample (gap 0.12778, flagged).
 * LOSO of b: scale = exp(mean(log(100/110), log(100/120))) =
 * sqrt(0.90909 x 0.83333) = 0.870388; errors -0.21665, -0.12961,
 * -0.30369: median |err| 0.216651 against 0.10.
 * c: nothing to refit on: its own 0.05, not refit.
 * All six held-out errors sorted: 0.05, 0.12961, 0.21665, 0.22222,
 * 0.30369, 0.33333: median 0.219436.
 */
static void test_hand_worked (void **state)
{
    (void)state;
    struct gp_infer_validation *v = calloc (1, sizeof *v);
    assert_non_null (v);
    v->val.n_rows = 7;
    v->val.rows = calloc (7, sizeof *v->val.rows);
    assert_non_null (v->val.rows);
    struct gp_infer_val_row *r = v->val.rows;
    row (&r[0], "a-1", 1, 110, 100, "vllm/cuda", "hopper");
    row (&r[1], "b-1", 1, 90, 100, "vllm/cuda", "hopper");
    row (&r[2], "a-2", 1, 120, 100, "vllm/cuda", "hopper");
    row (&r[3], "b-2", 1, 100, 100, "vllm/cuda", "hopper");
    row (&r[4], "b-3", 1, 80, 100, "vllm/cuda", "ampere");
    row (&r[5], "c-1", 1, 105, 100, "trtllm/cuda", "blackwell");
    row (&r[6], "d-1", 0, 0, 100, "", "");
    assert_int_equal (gp__infer_val_fit (v), 0);
    assert_int_equal (v->n_families, 4);
    size_t ia = 0, ib = 0, ic = 0, id = 0;
    const struct gp_val_summary *a = fam (v, "a", &ia);
    const struct gp_val_summary *b = fam (v, "b", &ib);
    const struct gp_val_summary *c = fam (v, "c", &ic);
    const struct gp_val_summary *d = fam (v, "d", &id);
    assert_float_equal (a->median_abs_rel_err, 0.15, 1e-12);
    assert_float_equal (v->fit[ia].loso.median_abs_rel_err, 0.277778, 1e-6);
    assert_float_equal (v->fit[ia].gap, 0.127778, 1e-6);
    assert_true (v->fit[ia].gap_flag);
    assert_int_equal (v->fit[ia].loso_refit, 2);
    assert_float_equal (b->median_abs_rel_err, 0.10, 1e-12);
    assert_float_equal (v->fit[ib].loso.median_abs_rel_err, 0.216651, 1e-6);
    assert_int_equal (v->fit[ib].loso_refit, 3);
    assert_float_equal (c->median_abs_rel_err, 0.05, 1e-12);
    assert_float_equal (v->fit[ic].loso.median_abs_rel_err, 0.05, 1e-12);
    assert_int_equal (v->fit[ic].loso_refit, 0);
    assert_false (v->fit[ic].gap_flag);
    assert_int_equal (d->n, 1);
    assert_int_equal (d->n_ok, 0);
    assert_false (v->fit[id].have_loso);
    assert_float_equal (v->loso_all.median_abs_rel_err, 0.219436, 1e-6);
    /* factors: one stack (7) and one or two generations (8 each);
     * fitted: the three vLLM-on-CUDA constants of fit.c for a and b, the
     * Blackwell expert-streaming one for c
     */
    assert_int_equal (v->fit[ia].factors, 15);
    assert_int_equal (v->fit[ib].factors, 23);
    assert_int_equal (v->fit[ia].fitted, 3);
    assert_int_equal (v->fit[ic].fitted, 1);
    assert_int_equal (v->fit[id].factors, 0);
    /* the text report carries the same figures (gp_infer_validation_text) */
    gp_error_t err = {0};
    char *txt = gp_infer_validation_text (v, &err);
    assert_non_null (txt);
    assert_non_null (strstr (txt, "fitting per source family"));
    assert_non_null (strstr (txt, "15.0 %   27.8 %  +12.8  gap > 3 points"));
    assert_non_null (strstr (txt, "(alone on its engine stack: not held "
                                  "out)"));
    free (txt);
    gp_infer_validation_destroy (v);
}

/* The scopes of fit.c: a stack or a generation, never a training scope. */
static void test_serving_fitted (void **state)
{
    (void)state;
    assert_int_equal (gp__val_serving_fitted ("vllm/rocm", ""), 1);
    assert_int_equal (gp__val_serving_fitted ("vllm/cuda", ""), 3);
    assert_int_equal (gp__val_serving_fitted ("", "blackwell"), 1);
    assert_int_equal (gp__val_serving_fitted ("sglang/cuda", "hopper"), 0);
    assert_int_equal (gp__val_serving_fitted ("", ""), 0);
}

static const char header[] =
    "id,zoo,layers,hidden,ffn_hidden,heads,kv_heads,head_dim,vocab,"
    "attention,moe_experts,moe_topk,moe_ffn_hidden,gpu,num_gpus,tp,pp,ep,"
    "weight_precision,kv_precision,engine,mode,concurrency,input_len,"
    "output_len,measured_output_tok_s,measured_ttft_ms,measured_tpot_ms,"
    "notes\n";

static char *write_csv (const char *name, const char *body)
{
    static char paths[2][64];
    static int k;
    char *p = paths[k++ % 2];
    snprintf (p, 64, "%s", name);
    FILE *f = fopen (p, "w");
    assert_non_null (f);
    fputs (header, f);
    fputs (body, f);
    fclose (f);
    return p;
}

/* Two files read as one set: rows in file order; a bad second file is
 * an error naming it.
 */
static void test_pooled_files (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (NULL, &err);
    assert_non_null (cat);
    const char *row1 = "x-1,llama3.1-8b,,,,,,,,,,,,H100-SXM,1,1,1,,bf16,"
                       "bf16,vllm,concurrency,8,1000,200,1000,,,\n";
    const char *row2 = "y-1,llama3.1-8b,,,,,,,,,,,,H100-SXM,1,1,1,,bf16,"
                       "bf16,trtllm,concurrency,8,1000,200,1200,,,\n";
    const char *paths[2] = {write_csv ("tivf-a.csv", row1),
                            write_csv ("tivf-b.csv", row2)};
    struct gp_validate_request rq = {.paths = paths, .n_paths = 2};
    struct gp_infer_validation *v = NULL;
    int rc = gp_validate_inference (cat, &rq, &v, &err);
    if (rc)
        fail_msg ("%s", err.text);
    assert_int_equal (v->val.n_rows, 2);
    assert_string_equal (v->val.rows[0].id, "x-1");
    assert_string_equal (v->val.rows[1].id, "y-1");
    assert_string_equal (v->val.rows[0].stack, "vllm/cuda");
    assert_string_equal (v->val.rows[1].stack, "trtllm/cuda");
    assert_string_equal (v->val.rows[0].generation, "hopper");
    assert_int_equal (v->n_families, 2);
    gp_infer_validation_destroy (v);
    FILE *f = fopen ("tivf-b.csv", "w");
    assert_non_null (f);
    fputs ("id,model\ny-1,L\n", f);
    fclose (f);
    v = NULL;
    assert_true (gp_validate_inference (cat, &rq, &v, &err) != 0);
    assert_null (v);
    assert_non_null (strstr (err.text, "tivf-b.csv"));
    remove ("tivf-a.csv");
    remove ("tivf-b.csv");
    gp_catalog_destroy (cat);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_hand_worked),
        cmocka_unit_test (test_serving_fitted),
        cmocka_unit_test (test_pooled_files),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
