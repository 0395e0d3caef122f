/* test_train_unfused.c - the batched GEMMs of unfused attention as a
 * roofline (docs/model/training.md, "Unfused attention GEMMs").
 *
 * Q K^T and P V of one head are (s x d) x (d x s) and (s x s) x (s x d):
 * 4 s^2 d FLOPs; they write and read the s x s scores (2 bytes each way)
 * and read or write Q, K, V and the output (4 s d x 2 bytes).  The time
 * is the longer of the FLOPs at the GEMM ceiling and the bytes at the
 * HBM efficiency, plus two kernel launches.  Expected values are worked
 * by hand from those formulas and the catalog's ampere factors.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "gpuplan/catalog.h"
#include "gpuplan/train.h"

static void near (double got, double want, double rel)
{
    if (fabs (got - want) > rel * fabs (want)) {
        print_error ("got %.9g want %.9g (tolerance %.1g)\n", got, want, rel);
        fail ();
    }
}

static void setup (struct gp_train_model *m, struct gp_train_job *j,
                   struct gp_train_hw *hw)
{
    struct gp_arch a;
    memset (&a, 0, sizeof a);
    snprintf (a.id, sizeof a.id, "gpt-unfused");
    a.layers = 30, a.hidden = 3072, a.ffn_hidden = 4 * 3072;
    a.heads = a.kv_heads = 32, a.head_dim = 96, a.vocab = 51200;
    a.mlp = GP_MLP_GELU, a.attention = GP_ATTN_MHA;
    assert_int_equal (gp_train_prep (&a, m, NULL), 0);
    gp_train_job_default (j);
    j->seq_len = 2048;
    j->global_batch = 64;
    j->precision = GP_PREC_FP16;
    j->flash_attn = 0;
    static struct gp_catalog *cat;
    if (!cat)
        cat = gp_catalog_load (NULL, NULL);
    struct gp_accel x;
    memset (&x, 0, sizeof x);
    x.id = "A100-SXM-80GB";
    x.mem_bytes = 80e9, x.mem_bw = 2.039e12;
    x.bf16_flops = x.fp16_flops = 312e12;
    x.scale_up_bw = 600e9, x.scale_up_domain = 8, x.tdp_w = 400;
    x.gen = gp_catalog_find_generation (cat, "ampere", NULL);
    assert_non_null (x.gen);
    gp_train_hw_from_accel (&x, GP_PREC_FP16, hw);
}

/* 3.6B-like GPT (32 heads of 96), tp 2, mb 4, no recomputation: the
 * attention term of the step is nmb * L * 3 * attn_f (backward = 2 x
 * forward when unfused).
 */
static void test_unfused_bmm_roofline (void **state)
{
    (void)state;
    struct gp_train_model m;
    struct gp_train_job j;
    struct gp_train_hw hw;
    setup (&m, &j, &hw);
    struct gp_layout l = {.tp = 2, .pp = 1, .dp = 4, .cp = 1, .ep = 1,
                          .vpp = 1, .micro_batch = 4, .seq_par = 1,
                          .recompute = GP_RECOMP_NONE};
    struct gp_train_time o;
    gp_train_time (&m, &j, &hw, &l, &o);
    const struct gp_train_eff *e = &hw.eff;
    double a = 32 / 2.0, b = 4, s = 2048, d = 96;
    double flops = 4 * b * s * s * (32 * 96) / 2.0;
    double tc = flops / (hw.peak_flops * e->gemm_max);
    double tm = (4 * a * b * s * s + 8 * a * b * s * d)
                / (hw.mem_bw * e->hbm);
    /* at d = 96 the scores' traffic is the longer one */
    assert_true (tm > tc);
    double attn_f = tm + 2 * e->kernel_s;
    double nmb = 64 / (4 * 4.0);
    near (o.attn_s, nmb * 30 * 3 * attn_f, 1e-9);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_unfused_bmm_roofline),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
