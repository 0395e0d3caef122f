/* test_train_recompute.c - dropout masks and partial (block)
 * recomputation in the training memory and time model.
 *
 * Expected values are hand calculations (docs/model/training.md,
 * "Dropout masks" and "Partial (block) recomputation"): per layer
 * s*b*h bytes times the coefficients of Korthikanti et al. 2022, Sec. 4,
 * without the 2 bytes of residual dropout masks when the model trains
 * with dropout 0; a recomputed layer keeps only its 2-byte input.
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
#include "model/train_private.h"

/* A Llama-style layer: h 4096, 32 heads of 128, 8 KV heads, SwiGLU
 * 14336 (Llama 3.1 8B's shape), 'fam' its zoo family.
 */
static struct gp_arch llama (const char *fam, int L, int h, int ffn)
{
    struct gp_arch x;
    memset (&x, 0, sizeof x);
    snprintf (x.id, sizeof x.id, "test-%s", fam);
    snprintf (x.family, sizeof x.family, "%s", fam);
    x.layers = L;
    x.hidden = h;
    x.ffn_hidden = ffn;
    x.heads = h / 128;
    x.kv_heads = h / 512;
    x.head_dim = 128;
    x.vocab = 32000;
    x.mlp = GP_MLP_SWIGLU;
    x.attention = GP_ATTN_GQA;
    return x;
}

static void near (double got, double want, double rel)
{
    if (fabs (got - want) > rel * fabs (want)) {
        print_error ("got %.9g want %.9g\n", got, want);
        fail ();
    }
}

static void hw_h100 (struct gp_train_hw *hw)
{
    static struct gp_catalog *cat;
    if (!cat)
        cat = gp_catalog_load (NULL, NULL);
    const struct gp_accel *a = gp_catalog_find_accel (cat, "H100-SXM", NULL);
    assert_non_null (a);
    gp_train_hw_from_accel (a, GP_PREC_BF16, hw);
}

/* Per layer, tp 1, no SP: LN inputs 4 + QKV input 2 + MLP input 2 = 8,
 * Q 2 + K,V 4 x 0.25 + projection input 2 = 5, SwiGLU 6 x 14336/4096 =
 * 21: 34 + 2 bytes of masks with dropout.  Without fused attention the
 * scores add 5as/h (softmax 2, mask 1, dropout output 2) with dropout and
 * 2as/h (the softmax output) without.
 */
static void test_llama_masks (void **state)
{
    (void)state;
    struct gp_arch a = llama ("llama3.1", 32, 4096, 14336);
    struct gp_train_model m;
    assert_int_equal (gp_train_prep (&a, &m, NULL), 0);
    assert_int_equal (m.no_dropout, 1);
    struct gp_layout l = {.tp = 1, .pp = 1, .dp = 1, .cp = 1, .ep = 1,
                          .vpp = 1, .micro_batch = 1};
    double sbh = 4096.0 * 4096;
    near (gp_train_act_layer_bytes (&m, &l, 4096, 1), 34 * sbh, 1e-12);
    near (gp_train_act_layer_bytes (&m, &l, 4096, 0),
          (34 + 2.0 * 32) * sbh, 1e-12);
    /* the same shape from a family trained with dropout (GPT-3) */
    struct gp_arch g = llama ("gpt3", 32, 4096, 14336);
    assert_int_equal (gp_train_prep (&g, &m, NULL), 0);
    assert_int_equal (m.no_dropout, 0);
    near (gp_train_act_layer_bytes (&m, &l, 4096, 1), 36 * sbh, 1e-12);
    near (gp_train_act_layer_bytes (&m, &l, 4096, 0),
          (36 + 5.0 * 32) * sbh, 1e-12);
}

/* 8 of 32 layers recomputed (pp 1, one chunk): f = 1/4.  Stored: 3/4 x
 * 34 sbh + 1/4 x 2 sbh = 26 sbh per layer, x 32 layers, plus one layer's
 * working set (34 sbh) for the backward of a recomputed layer: 866 sbh.
 * Time: the GEMMs run forward, backward (2x) and 1/4 of the forward
 * again, 3.25 forwards against 3 (none) and 4 (full).
 */
static void test_partial_by_hand (void **state)
{
    (void)state;
    struct gp_arch a = llama ("llama3", 32, 4096, 14336);
    struct gp_train_model m;
    assert_int_equal (gp_train_prep (&a, &m, NULL), 0);
    struct gp_train_job j;
    gp_train_job_default (&j);
    j.seq_len = 4096;
    j.global_batch = 4;
    struct gp_train_hw hw;
    hw_h100 (&hw);
    struct gp_layout l = {.tp = 1, .pp = 1, .dp = 1, .cp = 1, .ep = 1,
                          .vpp = 1, .micro_batch = 1};
    l.recompute = GP_RECOMP_FULL;
    l.recompute_layers = 8;
    assert_int_equal (gp_train_check (&m, &j, &l, NULL), 0);
    near (gp_train_recomp_frac (&l, m.layers), 0.25, 0);
    double sbh = 4096.0 * 4096;
    struct gp_train_mem mem;
    gp_train_memory (&m, &j, &hw, &l, &mem);
    near (mem.activations, 866 * sbh, 1e-12);
    char b[24];
    assert_string_equal (gp_recompute_fmt (&l, m.layers, b, sizeof b),
                         "full:8/32");
    struct gp_train_time tp, tn, tf;
    gp_train_time (&m, &j, &hw, &l, &tp);
    l.recompute_layers = 0;
    gp_train_time (&m, &j, &hw, &l, &tf);
    l.recompute = GP_RECOMP_NONE;
    gp_train_time (&m, &j, &hw, &l, &tn);
    near (tp.gemm_s, tn.gemm_s * 3.25 / 3, 1e-12);
    near (tp.gemm_s, tf.gemm_s * 3.25 / 4, 1e-12);
    near (tp.tp_comm_s, tn.tp_comm_s, 1e-12); /* tp 1: both 0 */
    near (tp.hw_flops_per_token,
          tp.model_flops_per_token * (1 + 0.25 / 3), 1e-12);
    assert_true (tn.step_s < tp.step_s && tp.step_s < tf.step_s);
    /* the search's lower bound holds for the partial layout */
    l.recompute = GP_RECOMP_FULL;
    l.recompute_layers = 8;
    assert_true (gp__train_step_bound (&m, &j, &hw, &l) <= tp.step_s);
}

/* A layout that does not fit without recomputation but fits with every
 * layer recomputed: the search keeps the fewest recomputed layers per
 * chunk that fit, which is faster than recomputing every layer.
 */
static void test_search_picks_partial (void **state)
{
    (void)state;
    struct gp_arch a = llama ("llama3", 32, 2048, 8192);
    struct gp_train_model m;
    assert_int_equal (gp_train_prep (&a, &m, NULL), 0);
    struct gp_train_job j;
    gp_train_job_default (&j);
    j.seq_len = 8192;
    j.global_batch = 2;
    struct gp_train_hw hw;
    hw_h100 (&hw);
    struct gp_search_fix fix;
    gp_search_fix_free (&fix);
    fix.tp = fix.pp = fix.dp = fix.cp = fix.ep = fix.vpp = 1;
    fix.micro_batch = 2;
    fix.seq_par = 0;
    fix.sharding = GP_SHARD_NONE;
    struct gp_train_result top[3];
    size_t n = gp_search_layouts (&m, &j, &hw, 1, &fix, top, 3, NULL);
    assert_true (n >= 1);
    struct gp_layout l = top[0].layout;
    assert_int_equal (l.recompute, GP_RECOMP_FULL);
    assert_true (l.recompute_layers > 0 && l.recompute_layers < 32);
    /* it fits, one layer fewer does not, none does not */
    struct gp_train_mem mem;
    gp_train_memory (&m, &j, &hw, &l, &mem);
    assert_true (mem.fits);
    struct gp_layout fewer = l;
    fewer.recompute_layers -= 1;
    if (fewer.recompute_layers > 0) {
        gp_train_memory (&m, &j, &hw, &fewer, &mem);
        assert_false (mem.fits);
    }
    fewer.recompute = GP_RECOMP_NONE;
    fewer.recompute_layers = 0;
    gp_train_memory (&m, &j, &hw, &fewer, &mem);
    assert_false (mem.fits);
    /* faster than every layer recomputed */
    struct gp_layout all = l;
    all.recompute_layers = 0;
    struct gp_train_time t;
    gp_train_time (&m, &j, &hw, &all, &t);
    assert_true (top[0].time.step_s < t.step_s);
}

static void test_bad_recompute_layers (void **state)
{
    (void)state;
    struct gp_arch a = llama ("llama3", 32, 4096, 14336);
    struct gp_train_model m;
    assert_int_equal (gp_train_prep (&a, &m, NULL), 0);
    struct gp_train_job j;
    gp_train_job_default (&j);
    j.global_batch = 8;
    /* pp 4, vpp 2: chunks of 4 layers */
    struct gp_layout l = {.tp = 1, .pp = 4, .dp = 2, .cp = 1, .ep = 1,
                          .vpp = 2, .micro_batch = 1};
    l.recompute = GP_RECOMP_FULL;
    gp_error_t err = {0};
    l.recompute_layers = 4;
    assert_int_equal (gp_train_check (&m, &j, &l, &err), 0);
    l.recompute_layers = 5;
    assert_int_equal (gp_train_check (&m, &j, &l, &err), GP_EINVAL);
    assert_non_null (strstr (err.text, "recompute_layers 5"));
    l.recompute_layers = -1;
    assert_int_equal (gp_train_check (&m, &j, &l, &err), GP_EINVAL);
    assert_non_null (strstr (err.text, "recompute_layers -1"));
    l.recompute = GP_RECOMP_NONE;
    l.recompute_layers = 2;
    assert_int_equal (gp_train_check (&m, &j, &l, &err), GP_EINVAL);
    assert_non_null (strstr (err.text, "needs recompute full"));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_llama_masks),
        cmocka_unit_test (test_partial_by_hand),
        cmocka_unit_test (test_search_picks_partial),
        cmocka_unit_test (test_bad_recompute_layers),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
