/* test_train_moe_mem.c - the memory-bound time of a MoE layer counts the
 * top_k dispatched copies once: in the explicit permute/unpermute
 * traffic, not again under the three passes over stored activations
 * (train_moe.c gp__moe_copies_pass_s; docs/model/training.md, "MoE:
 * dispatched copies counted once").
 *
 * Expected values are hand calculations from the formulas written out in
 * docs/model/training.md ("Step time" memory-bound work, "MoE: dispatched
 * copies counted once"); GEMM times come from gp__train_gemm_s and the
 * stored activations from gp_train_act_layer_bytes, which test_train.c
 * checks.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "gpuplan/arch.h"
#include "gpuplan/catalog.h"
#include "gpuplan/train.h"
#include "model/train_private.h"

#include "h100_fixture.h"

static void near (double got, double want, double rel)
{
    if (fabs (got - want) > rel * fabs (want)) {
        print_error ("got %.9g want %.9g (tolerance %.2g %%)\n", got, want,
                     rel * 100);
        fail ();
    }
}

/* 2 layers, h 1024, 8 heads, 16 SwiGLU experts of width 512, top-4 */
static void model16 (struct gp_train_model *m)
{
    struct gp_arch x;
    memset (&x, 0, sizeof x);
    snprintf (x.id, sizeof x.id, "moe-mem-test");
    x.layers = 2;
    x.hidden = 1024;
    x.heads = 8;
    x.kv_heads = 8;
    x.head_dim = 128;
    x.vocab = 32000;
    x.mlp = GP_MLP_SWIGLU;
    x.attention = GP_ATTN_MHA;
    x.moe_experts = 16;
    x.moe_topk = 4;
    x.moe_ffn_hidden = 512;
    assert_int_equal (gp_train_prep (&x, m, NULL), 0);
}

/* H100 (3.35 TB/s x 0.80 = 2.68e12 B/s): 1,000 routed tokens, top-4,
 * h 1024: the copies are 2 * 4 * 1000 * 1024 = 8,192,000 B; three passes
 * = 24,576,000 B / 2.68e12 = 9.170149 us.  A dense model: 0.
 */
static void test_copies_pass (void **state)
{
    (void)state;
    struct gp_train_model m;
    model16 (&m);
    struct gp_train_hw hw;
    hw_h100_prec (&hw, GP_PREC_BF16);
    near (gp__moe_copies_pass_s (&m, &hw, 1000), 24576000.0 / 2.68e12,
          1e-12);
    struct gp_train_model d = m;
    d.moe_experts = 0;
    assert_true (gp__moe_copies_pass_s (&d, &hw, 1000) == 0);
}

/* End to end, TP 1, PP 1, EP 8, micro-batch 1 of 1,024 tokens, one
 * micro-batch (global batch 8 on DP 8), flash attention (no score
 * traffic): per layer forward
 *   mem_f = 3 * act / 2.68e12 + 10 tau        (every layer)
 *         + 2*2 * T * k * h * 2 / 2.68e12 + 20 tau   (permute, router)
 *         - 3 * 2 * k * T * h / 2.68e12       (the copies, once)
 * with act = gp_train_act_layer_bytes, tau the hopper kernel time; the
 * step's memory-bound time is 2 layers x (1 + 2) x mem_f plus the
 * logits, 3 * (GEMM (T, V, h) + 3 * T * V * 4 / 2.68e12).
 */
static void test_mem_step (void **state)
{
    (void)state;
    struct gp_train_model m;
    model16 (&m);
    struct gp_train_job j;
    gp_train_job_default (&j);
    j.seq_len = 1024;
    j.global_batch = 8;
    j.cuda_graphs = 1;
    struct gp_train_hw hw;
    hw_h100_prec (&hw, GP_PREC_BF16);
    struct gp_layout l = {.tp = 1, .pp = 1, .dp = 8, .cp = 1, .ep = 8,
                          .vpp = 1, .micro_batch = 1};
    struct gp_train_result r;
    gp_error_t err = {0};
    assert_int_equal (gp_train_eval (&m, &j, &hw, &l, &r, &err), 0);
    double bw = 2.68e12, tau = hw.eff.kernel_s, T = 1024, h = 1024, k = 4;
    double act = gp_train_act_layer_bytes (&m, &l, 1024, 1);
    double mem_f = 3 * act / bw + 10 * tau + 2 * 2 * T * k * h * 2 / bw
                   + 20 * tau - 3 * 2 * k * T * h / bw;
    double logit = 3 * (gp__train_gemm_s (&hw, T, 32000, h)
                        + 3 * T * 32000 * 4 / bw);
    near (r.time.mem_s, 2 * 3 * mem_f + logit, 1e-9);
}

/* The NCCL all-to-all dispatcher's local sort by expert and its inverse
 * (Megatron-LM GB200 study, Sec. 2.1.1): 1,000 routed tokens, top-4,
 * h 1024, EP 8 (2 local experts): read + write of 4,000 16-bit rows,
 * twice: 2 * 2 * 4000 * 1024 * 2 = 32,768,000 B / 2.68e12 = 12.2269 us.
 * DeepEP/HybridEP (flex) or one local expert (EP 16): 0.
 */
static void test_nccl_sort (void **state)
{
    (void)state;
    struct gp_train_model m;
    model16 (&m);
    struct gp_train_hw hw;
    hw_h100_prec (&hw, GP_PREC_BF16);
    struct gp_train_job j;
    gp_train_job_default (&j);
    assert_true (gp__moe_sort_s (&m, &j, &hw, 1000, 8) == 0);
    j.moe_a2a_nccl = 1;
    near (gp__moe_sort_s (&m, &j, &hw, 1000, 8), 32768000.0 / 2.68e12,
          1e-12);
    assert_true (gp__moe_sort_s (&m, &j, &hw, 1000, 16) == 0);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_copies_pass),
        cmocka_unit_test (test_nccl_sort),
        cmocka_unit_test (test_mem_step),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
