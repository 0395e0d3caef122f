/* test_infer_engines.c - engine x vendor-stack efficiency: the compiled
 * table equals data/catalog/engines.csv row by row; CUDA rows leave the
 * model unchanged; the ROCm vLLM row slows compute-bound MI300X steps and
 * not memory-bound ones; the MI300X validation rows meet their target.
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

#include "gpuplan/csv.h"
#include "gpuplan/infer.h"
#include "gpuplan/validate.h"

struct cmp {
    int col[9];
    size_t n;
};

static int on_row (const struct gp_csv_row *r, void *arg, gp_error_t *err)
{
    (void)err;
    struct cmp *c = arg;
    static const char *names[9] = {"engine",   "stack",        "gemm_mult",
                                   "attn_mult", "hbm_mult",     "iter_extra_s",
                                   "seq_extra_s", "frontend_s",
                                   "host_overlap"};
    if (r->index == 0) {
        for (int i = 0; i < 9; i++) {
            c->col[i] = gp_csv_col (r, names[i]);
            assert_true (c->col[i] >= 0);
        }
        return 0;
    }
    const struct gp_engine_stack *s = gp_engine_stack_row (c->n++);
    assert_non_null (s);
    assert_string_equal (r->fields[c->col[0]], s->engine);
    assert_string_equal (r->fields[c->col[1]], s->stack);
    double v[7] = {s->gemm_mult, s->attn_mult, s->hbm_mult, s->iter_extra_s,
                   s->seq_extra_s, s->frontend_s, s->host_overlap};
    for (int i = 0; i < 7; i++)
        assert_true (fabs (strtod (r->fields[c->col[2 + i]], NULL) - v[i])
                     < 1e-15);
    return 0;
}

static void test_table_is_the_csv (void **state)
{
    (void)state;
    struct cmp c = {{0}, 0};
    gp_error_t err = {0};
    assert_int_equal (gp_csv_parse_file (GP_SOURCE_DIR
                                         "/data/catalog/engines.csv",
                                         ',', on_row, &c, &err),
                      0);
    assert_int_equal (c.n, gp_engine_stack_count ());
    assert_null (gp_engine_stack_row (c.n));
}

static void test_lookup (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (NULL, &err);
    assert_non_null (cat);
    const struct gp_accel *mi = gp_catalog_find_accel (cat, "MI300X", &err);
    const struct gp_accel *h = gp_catalog_find_accel (cat, "H100-SXM", &err);
    assert_non_null (mi);
    assert_non_null (h);
    assert_string_equal (gp_engine_stack_name (mi), "rocm");
    assert_string_equal (gp_engine_stack_name (h), "cuda");
    assert_string_equal (gp_engine_stack_name (NULL), "cuda");
    const struct gp_engine_stack *s = gp_engine_stack_for (GP_ENGINE_VLLM, mi);
    assert_string_equal (s->stack, "rocm");
    assert_true (s->gemm_mult < 1);
    /* every CUDA row has neutral kernel factors: NVIDIA predictions are
     * those of the generation factors alone; only vLLM adds host time
     * (its batch-1 rows, docs/model/inference.md, "Host work and front
     * end") */
    for (size_t i = 0; i < gp_engine_stack_count (); i++) {
        const struct gp_engine_stack *r = gp_engine_stack_row (i);
        if (strcmp (r->stack, "cuda"))
            continue;
        assert_true (r->gemm_mult == 1 && r->attn_mult == 1
                     && r->hbm_mult == 1
                     && (r->iter_extra_s == 0 || !strcmp (r->engine, "vllm"))
                     && r->seq_extra_s == 0);
    }
    /* NIM has its own CUDA row (TensorRT-LLM's values) */
    s = gp_engine_stack_for (GP_ENGINE_NIM, h);
    assert_string_equal (s->engine, "nim");
    assert_string_equal (s->stack, "cuda");
    /* TensorRT-LLM has no ROCm row: neutral */
    s = gp_engine_stack_for (GP_ENGINE_TRTLLM, mi);
    assert_true (s->gemm_mult == 1 && s->iter_extra_s == 0);
    gp_catalog_destroy (cat);
}

/* The factor multiplies the GEMM efficiency of the prepared replica: a
 * batch-1 decode step of a 405B FP8 model on 8 MI300X is bound by weight
 * streaming and keeps its time; a 256-sequence step is compute-bound and
 * slows.
 */
static void test_effect (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (NULL, &err);
    struct gp_zoo *zoo = gp_zoo_load (NULL, &err);
    const struct gp_arch *a = gp_zoo_find (zoo, "llama3.1-405b", &err);
    assert_non_null (a);
    struct gp_serve_cfg c = {0};
    c.arch = a;
    c.accel = gp_catalog_find_accel (cat, "MI300X", &err);
    c.tp = 8, c.pp = 1;
    c.weight_dtype = GP_DT_FP8, c.kv_dtype = GP_DT_FP8;
    struct gp_serve_model v, t;
    gp_engine_defaults (GP_ENGINE_VLLM, &c.eng);
    assert_int_equal (gp_infer_prepare (&c, 256, &v, &err), 0);
    gp_engine_defaults (GP_ENGINE_TRTLLM, &c.eng);
    c.eng.iter_overhead_s = 2.0e-3, c.eng.seq_overhead_s = 6.0e-6;
    assert_int_equal (gp_infer_prepare (&c, 256, &t, &err), 0);
    double f = gp_engine_stack_for (GP_ENGINE_VLLM, c.accel)->gemm_mult;
    assert_true (fabs (v.eff.gemm_eff - f * t.eff.gemm_eff) < 1e-15);
    assert_true (v.eff.hbm_eff == t.eff.hbm_eff);
    struct gp_iter_load l1 = {0}, l256 = {0};
    l1.n_decode = 1, l1.decode_ctx = 200, l1.n_logits = 1;
    l256.n_decode = 256, l256.decode_ctx = 256 * 200, l256.n_logits = 256;
    double v1 = gp_infer_iter_time (&v, &l1, NULL),
           t1 = gp_infer_iter_time (&t, &l1, NULL);
    double v256 = gp_infer_iter_time (&v, &l256, NULL),
           t256 = gp_infer_iter_time (&t, &l256, NULL);
    assert_true (fabs (v1 / t1 - 1) < 0.01);
    assert_true (v256 / t256 > 1.3);
    gp_zoo_destroy (zoo);
    gp_catalog_destroy (cat);
}

static double median (double *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double x = v[j];
            v[j] = v[j - 1], v[j - 1] = x;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* MI300X rows: in-sample and held out (validation/inference/SOURCE.md). */
static void test_mi300x_rows (void **state)
{
    (void)state;
    static const char *files[] = {"mi300x-published.csv",
                                  "mi300x-heldout.csv",
                                  "mi300x-amd-heldout.csv"};
    static const double target[] = {0.15, 0.20, 0.20};
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (NULL, &err);
    struct gp_zoo *zoo = gp_zoo_load (NULL, &err);
    for (int f = 0; f < 3; f++) {
        char path[512];
        snprintf (path, sizeof path, "%s/validation/inference/%s",
                  GP_SOURCE_DIR, files[f]);
        struct gp_infer_val v;
        assert_int_equal (gp_infer_validate (path, cat, zoo, &v, &err), 0);
        double e[32];
        size_t n = 0;
        for (size_t i = 0; i < v.n_rows && n < 32; i++) {
            assert_int_equal (v.rows[i].ok, 1);
            e[n++] = fabs (v.rows[i].rel_err);
        }
        double m = median (e, n);
        fprintf (stderr, "%s: median |err| %.3f (n=%zu)\n", files[f], m, n);
        assert_true (m <= target[f]);
        gp_infer_val_free (&v);
    }
    gp_zoo_destroy (zoo);
    gp_catalog_destroy (cat);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_table_is_the_csv),
        cmocka_unit_test (test_lookup),
        cmocka_unit_test (test_effect),
        cmocka_unit_test (test_mi300x_rows),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
