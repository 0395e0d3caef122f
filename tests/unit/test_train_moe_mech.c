/* test_train_moe_mech.c - three MoE mechanisms of train_moe.c: the
 * expert-data-parallel gradient traffic on its own NICs, the multi-stream
 * MXFP8 grouped-GEMM shortfall on Blackwell, and the SMs that hidden
 * all-to-all kernels hold.
 *
 * Expected values are hand calculations from docs/model/training.md
 * ("MoE: routing imbalance, dispatch, expert GEMMs and host overhead"):
 * the sources' figures (Megatron-LM deepseek-v3-gb200-optimization:
 * 2,672 TFLOP/s at K = 7,168, N = 2,048 on GB200; DeepSeek-V3 report Sec.
 * 3.5.1: 20 of 132 SMs) written out here, not read from the code.
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

/* DGX-like nodes of 8 GPUs, 50 GB/s NIC per GPU at eta_out 0.9, NVLink
 * 450 GB/s per direction at eta_up 0.8 (hopper row).  The expert layout
 * folds EP innermost: with EP 8 each node is one EP group and its expert
 * data-parallel peers sit on other nodes, one per node, so each GPU
 * reduces its expert gradients over its own NIC: 45 GB/s, not the
 * 8 x 45 = 360 GB/s of the dense DP group.  EP 4: two EDP peers per
 * node, 90 GB/s.  EP 2 with EDP 8: four per node, 180 GB/s; EDP 2 caps
 * the per-node count at 2.
 */
static void test_edp_bandwidth (void **state)
{
    (void)state;
    struct gp_train_hw hw;
    hw_h100_prec (&hw, GP_PREC_BF16);
    hw.gpus_per_node = 8;
    hw.scale_out_bw = 50e9;
    hw.oversub = 1;
    struct gp_layout l = {.tp = 1, .pp = 1, .dp = 16, .cp = 1, .ep = 8,
                          .vpp = 1, .micro_batch = 1};
    double d;
    near (gp__moe_edp_bw (&hw, &l, 2, &d), 45e9, 1e-12);
    assert_true (d == 1);
    l.ep = 4;
    near (gp__moe_edp_bw (&hw, &l, 4, &d), 90e9, 1e-12);
    assert_true (d == 2);
    l.ep = 2;
    near (gp__moe_edp_bw (&hw, &l, 8, &d), 180e9, 1e-12);
    assert_true (d == 4);
    near (gp__moe_edp_bw (&hw, &l, 2, &d), 90e9, 1e-12);
    assert_true (d == 2);
    /* never above NVLink: 8 per node at 45 GB/s would be 360 = the cap */
    l.ep = 1;
    near (gp__moe_edp_bw (&hw, &l, 16, &d), 360e9, 1e-12);
    hw.scale_out_bw = 100e9;
    near (gp__moe_edp_bw (&hw, &l, 16, &d), 360e9, 1e-12);
}

/* The step of a MoE job whose EDP group leaves the node pays the expert
 * gradients over one NIC: slower than the same job with NICs 8x faster
 * (where the expert traffic costs what the old 8-NIC formula gave), by
 * at least the expert reduce-scatter + all-gather's non-overlapped
 * tenth.
 */
static void test_edp_step (void **state)
{
    (void)state;
    struct gp_arch a;
    memset (&a, 0, sizeof a);
    snprintf (a.id, sizeof a.id, "moe-edp-test");
    a.layers = 4;
    a.hidden = 2048;
    a.heads = 16;
    a.kv_heads = 16;
    a.head_dim = 128;
    a.vocab = 32000;
    a.mlp = GP_MLP_SWIGLU;
    a.attention = GP_ATTN_MHA;
    a.moe_experts = 64;
    a.moe_topk = 2;
    a.moe_ffn_hidden = 4096;
    struct gp_train_model m;
    assert_int_equal (gp_train_prep (&a, &m, NULL), 0);
    struct gp_train_job j;
    gp_train_job_default (&j);
    j.seq_len = 2048;
    j.global_batch = 16;
    struct gp_train_hw hw;
    hw_h100_prec (&hw, GP_PREC_BF16);
    hw.gpus_per_node = 8;
    hw.scale_out_bw = 50e9;
    hw.oversub = 1;
    hw.sharp_share = 0;
    struct gp_layout l = {.tp = 1, .pp = 1, .dp = 16, .cp = 1, .ep = 8,
                          .vpp = 1, .micro_batch = 1,
                          .sharding = GP_SHARD_ZERO1};
    struct gp_train_time o;
    gp_train_time (&m, &j, &hw, &l, &o);
    /* expert parameters per GPU: 4 layers x 64/8 experts x 3 x h x fm;
     * bf16 gradients reduce-scattered and bf16 weights gathered over the
     * 2 EDP ranks at 45 GB/s: 2 x (1/2 x 2 B x PX / 45e9)
     */
    double PX = 4.0 * 8 * 3 * 2048 * 4096;
    double cx = 2 * (0.5 * 2 * PX / 45e9);
    assert_true (o.dp_comm_s >= 0.1 * cx);
    double slow = o.step_s;
    hw.scale_out_bw = 400e9; /* 8x: the old formula's expert bandwidth */
    gp_train_time (&m, &j, &hw, &l, &o);
    assert_true (slow - o.step_s >= 0.1 * cx * (1 - 1.0 / 8) * 0.999);
}

/* At the measured shape (M 4,096, N 2,048, K 7,168) the grouped GEMM's
 * compute plus the extra is exactly 2MNK / 2,672 TFLOP/s on a GB200-like
 * GPU (5,000 TFLOP/s FP8, blackwell row: gemm_max 0.68, d_half 128).  At
 * another shape the extra keeps the same ratio to the dense model's
 * compute time.  Not on Hopper, not at BF16.
 */
static void test_grouped_gemm (void **state)
{
    (void)state;
    struct gp_train_hw hw;
    memset (&hw, 0, sizeof hw);
    hw.peak_flops = 5000e12;
    hw.fp8 = 1;
    hw.eff.generation = "blackwell";
    hw.eff.gemm_max = 0.68;
    hw.eff.gemm_dim_half = 128;
    double M = 4096, N = 2048, K = 7168, f = 2 * M * N * K;
    double model = 0.68 / (1 + 128 / M + 128 / N + 128 / K);
    double tc = f / (5000e12 * model);
    double x = gp__moe_grouped_extra_s (&hw, 1, M, N, K);
    near (tc + x, f / 2672e12, 1e-12);
    /* 16 problems of 1,024 x 4,096 x 7,168: each at the same ratio */
    double r = 2672e12 / (5000e12 * model);
    double M2 = 1024, N2 = 4096;
    double tc2 = 2 * M2 * N2 * K
                 / (5000e12 * 0.68 / (1 + 128 / M2 + 128 / N2 + 128 / K));
    near (gp__moe_grouped_extra_s (&hw, 16, M2, N2, K),
          16 * tc2 * (1 / r - 1), 1e-12);
    hw.eff.generation = "hopper";
    assert_true (gp__moe_grouped_extra_s (&hw, 1, M, N, K) == 0);
    hw.eff.generation = "blackwell";
    hw.fp8 = 0;
    assert_true (gp__moe_grouped_extra_s (&hw, 1, M, N, K) == 0);
}

/* 20 of 132 SMs held by the communication kernels: the computation under
 * 1.12 s of hidden all-to-all runs on 112/132 of the GPU and takes
 * 1.12 x 132/112 = 1.32 s, 0.2 s more.
 */
static void test_overlap_sms (void **state)
{
    (void)state;
    near (gp__moe_overlap_sm_s (1.12), 0.2, 1e-12);
    assert_true (gp__moe_overlap_sm_s (0) == 0);
    assert_true (gp__moe_overlap_sm_s (-1) == 0);
    assert_true (gp__moe_overlap_sm_s (NAN) == 0);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_edp_bandwidth),
        cmocka_unit_test (test_edp_step),
        cmocka_unit_test (test_grouped_gemm),
        cmocka_unit_test (test_overlap_sms),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
