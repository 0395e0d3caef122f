/* test_train_moe_host.c - the MoE terms of train_moe.c: routing
 * imbalance on the all-to-all and the expert GEMM rows, 128-row tile
 * padding of the grouped GEMM, the all-to-all hidden under the shared
 * experts, and the host time of eager MoE layers with and without CUDA
 * graphs.
 *
 * Expected values are hand calculations from the formulas written out in
 * docs/model/training.md ("MoE: routing imbalance, overlap, expert GEMMs
 * and host overhead"); GEMM times come from the GEMM model itself
 * (gp__train_gemm_s), which test_train.c checks.
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
#include "gpuplan/validate.h"
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

/* Every layer MoE: E experts top-k, SwiGLU experts of width fm. */
static struct gp_arch moe (int L, int h, int a, int E, int k, int fm)
{
    struct gp_arch x;
    memset (&x, 0, sizeof x);
    snprintf (x.id, sizeof x.id, "moe-host-test");
    x.layers = L;
    x.hidden = h;
    x.heads = a;
    x.kv_heads = a;
    x.head_dim = h / a;
    x.vocab = 32000;
    x.mlp = GP_MLP_SWIGLU;
    x.attention = GP_ATTN_MHA;
    x.moe_experts = E;
    x.moe_topk = k;
    x.moe_ffn_hidden = fm;
    return x;
}

static void eval_ok (const struct gp_train_model *m,
                     const struct gp_train_job *j,
                     const struct gp_train_hw *hw,
                     const struct gp_layout *l, struct gp_train_result *r)
{
    gp_error_t err = {0};
    int rc = gp_train_eval (m, j, hw, l, r, &err);
    if (rc)
        print_error ("%s\n", err.text);
    assert_int_equal (rc, 0);
}

/* The busiest rank carries 1.5x the mean: its transfer takes 1.5x (the
 * latency does not).  EP 8 in one 8-GPU domain, as test_train_moe.c's
 * a2a volume: T*k copies, 7/8 leave the GPU, 2h bytes each, at 450e9 *
 * 0.8 B/s, plus 2 us * log2 8; dispatch + combine, forward + backward.
 */
static void test_imbalance_a2a (void **state)
{
    (void)state;
    struct gp_arch a = moe (2, 1024, 8, 16, 2, 512);
    struct gp_train_model m;
    assert_int_equal (gp_train_prep (&a, &m, NULL), 0);
    struct gp_train_job j;
    gp_train_job_default (&j);
    j.seq_len = 1024;
    j.global_batch = 16;
    j.moe_imbalance = 1.5;
    j.cuda_graphs = 1;
    j.moe_a2a_nccl = 1; /* one copy per token and expert */
    struct gp_train_hw hw;
    hw_h100_prec (&hw, GP_PREC_BF16);
    struct gp_layout l = {.tp = 1, .pp = 1, .dp = 8, .cp = 1, .ep = 8,
                          .vpp = 1, .micro_batch = 1};
    struct gp_train_result r;
    eval_ok (&m, &j, &hw, &l, &r);
    double T = 1024, row = 2048, nmb = 2, L = 2;
    double one = 1.5 * T * 2 * row * 7.0 / 8 / (450e9 * 0.8) + 2e-6 * 3;
    near (r.time.ep_comm_s, nmb * L * 4 * one, 1e-9);
}

/* DeepEP/HybridEP dispatch (the default): one copy per token and
 * destination GPU.  16 experts on EP 8 (2 per GPU), top-2: a GPU hosts
 * one of a token's experts with probability 1 - (14/16)(13/15) = 58/240,
 * so a token goes to 7 * 58/240 = 1.69 other GPUs instead of 2 * 7/8 =
 * 1.75 copies.
 */
static void test_flex_dedup (void **state)
{
    (void)state;
    struct gp_arch a = moe (2, 1024, 8, 16, 2, 512);
    struct gp_train_model m;
    assert_int_equal (gp_train_prep (&a, &m, NULL), 0);
    struct gp_train_job j;
    gp_train_job_default (&j);
    j.seq_len = 1024;
    j.global_batch = 16;
    struct gp_train_hw hw;
    hw_h100_prec (&hw, GP_PREC_BF16);
    struct gp_layout l = {.tp = 1, .pp = 1, .dp = 8, .cp = 1, .ep = 8,
                          .vpp = 1, .micro_batch = 1};
    struct gp_train_result r;
    eval_ok (&m, &j, &hw, &l, &r);
    double T = 1024, row = 2048, nmb = 2, L = 2, p = 58.0 / 240;
    double one = T * row * p * 7 / (450e9 * 0.8) + 2e-6 * 3;
    near (r.time.ep_comm_s, nmb * L * 4 * one, 1e-9);
    /* the NCCL all-to-all over two nodes: every remote copy on the NIC */
    l.dp = 16;
    l.ep = 16;
    j.global_batch = 32;
    j.moe_a2a_nccl = 1;
    eval_ok (&m, &j, &hw, &l, &r);
    double nv = T * 2 * row * 7.0 / 16 / (450e9 * 0.8);
    double ib = T * 2 * row * 8.0 / 16 / (50e9 * 0.9);
    one = (nv > ib ? nv : ib) + 2e-6 * 3 + 5e-6;
    near (r.time.ep_comm_s, 2 * L * 4 * one, 1e-9);
}

/* Rows of one expert's grouped-GEMM problem: the mean count times the
 * imbalance, in whole 128-row tiles.
 */
static void test_expert_rows (void **state)
{
    (void)state;
    struct gp_train_job j;
    gp_train_job_default (&j);
    assert_true (gp__moe_expert_rows (&j, 100) == 128);
    assert_true (gp__moe_expert_rows (&j, 256) == 256);
    assert_true (gp__moe_expert_rows (&j, 0.2) == 128);
    j.moe_imbalance = 1.5;
    assert_true (gp__moe_expert_rows (&j, 200) == 384); /* 300 -> 3 tiles */
    j.moe_imbalance = 0.5; /* below 1 means balanced */
    assert_true (gp__moe_expert_rows (&j, 256) == 256);
}

/* Shared-expert overlap: the exposed all-to-all shrinks by the shared
 * experts' GEMMs (forward + 2x backward), never below 0; exposed +
 * hidden stay the 1F1B all-to-all, and the step shrinks by what is
 * hidden.  One shared expert of width 512 on T = 8192 tokens: fc1
 * (T, 1024, h) + fc2 (T, h, 512) (long enough that the layer is not
 * host-bound at 31 us per operator: a host-bound step would not shrink).
 */
static void test_shared_overlap (void **state)
{
    (void)state;
    struct gp_arch a = moe (2, 1024, 8, 16, 2, 512);
    a.moe_shared_experts = 1;
    struct gp_train_model m;
    assert_int_equal (gp_train_prep (&a, &m, NULL), 0);
    struct gp_train_job j;
    gp_train_job_default (&j);
    j.seq_len = 8192;
    j.global_batch = 16;
    j.cuda_graphs = 1;
    struct gp_train_hw hw;
    hw_h100_prec (&hw, GP_PREC_BF16);
    /* EP 16 over two nodes: the NIC makes the all-to-all long */
    struct gp_layout l = {.tp = 1, .pp = 1, .dp = 16, .cp = 1, .ep = 16,
                          .vpp = 1, .micro_batch = 1};
    struct gp_train_result r0, r1;
    eval_ok (&m, &j, &hw, &l, &r0);
    j.moe_shared_overlap = 1;
    eval_ok (&m, &j, &hw, &l, &r1);
    double T = 8192, h = 1024, nmb = 1, L = 2;
    double win = 3 * (gp__train_gemm_s (&hw, T, 1024, h)
                      + gp__train_gemm_s (&hw, T, h, 512));
    double E = r0.time.ep_comm_s;
    double hid = nmb * L * win < E ? nmb * L * win : E;
    assert_true (hid > 0);
    near (r1.time.ep_hidden_s, hid, 1e-9);
    near (r1.time.ep_comm_s + r1.time.ep_hidden_s, E, 1e-9);
    /* less the 20/112 the hidden part costs in SMs (DeepSeek-V3 Sec.
     * 3.5.1: 20 of 132 SMs for communication)
     */
    near (r0.time.step_s - r1.time.step_s, hid * (1 - 20.0 / 112), 1e-6);
}

/* Host time of one MoE layer and micro-batch.  Tiny model: h 1024, 16
 * experts top-2, EP 8 (2 local experts), T = 1024 tokens: 1024 tokens per
 * expert.  Operators of the forward: 10 memory-bound kernels, the
 * attention core, 3 GEMMs (QKV, projection, router), 2 all-to-alls, 2 per
 * local expert (fc1, fc2) = 20, and 20 router/preprocess operators when
 * eager.  At c = 31 us per operator (train_moe.c HOST_OP_S) and 3 passes
 * (forward, backward 2x):
 * - eager, GPU-bound (10 ms): the operators the forward issues after the
 *   device-to-host sync wait for the host (the backward does not sync):
 *   sync = 8 * (c - 5 us) + 2 * ((c - g1) + (c - g2)), with g1, g2 the
 *   fc1 (1024, 1024, 1024) and fc2 (1024, 1024, 512) GEMM times when
 *   below c, twice with full recomputation;
 * - eager, host-bound (0 s): 3 * 40 * c = 3.72 ms;
 * - partial CUDA graphs (attention, router, EP preprocess captured): the
 *   20 router/preprocess operators leave the host count, 3 * 20 * c =
 *   1.86 ms at 0 s of GPU time; the routed experts stay eager behind the
 *   same device-to-host sync (Megatron-LM deepseek-v3-gb200-optimization
 *   Sec. 2.3 and 3.1), so at 10 ms the wait is the eager 'sync'.
 */
static void test_host (void **state)
{
    (void)state;
    struct gp_arch a = moe (2, 1024, 8, 16, 2, 512);
    struct gp_train_model m;
    assert_int_equal (gp_train_prep (&a, &m, NULL), 0);
    struct gp_train_job j;
    gp_train_job_default (&j);
    j.seq_len = 1024;
    struct gp_train_hw hw;
    hw_h100_prec (&hw, GP_PREC_BF16);
    struct gp_layout l = {.tp = 1, .pp = 1, .dp = 8, .cp = 1, .ep = 8,
                          .vpp = 1, .micro_batch = 1};
    double c = 31e-6, tpe = 1024;
    double g1 = gp__train_gemm_s (&hw, 1024, 1024, 1024);
    double g2 = gp__train_gemm_s (&hw, 1024, 1024, 512);
    assert_true (g1 < c && g2 < c);
    double sync = 8 * (c - 5e-6) + 2 * ((c - g1) + (c - g2));
    assert_true (sync < 3 * 20 * c);
    j.cuda_graphs = 1;
    near (gp__moe_host_s (&m, &j, &hw, &l, tpe, 0), 3 * 20 * c, 1e-12);
    near (gp__moe_host_s (&m, &j, &hw, &l, tpe, 10e-3), sync, 1e-9);
    j.cuda_graphs = 0;
    near (gp__moe_host_s (&m, &j, &hw, &l, tpe, 10e-3), sync, 1e-9);
    near (gp__moe_host_s (&m, &j, &hw, &l, tpe, 0), 3 * 40 * c, 1e-12);
    l.recompute = GP_RECOMP_FULL;
    near (gp__moe_host_s (&m, &j, &hw, &l, tpe, 10e-3), 2 * sync, 1e-9);
    near (gp__moe_host_s (&m, &j, &hw, &l, tpe, 0), 4 * 40 * c, 1e-12);
    l.recompute = GP_RECOMP_NONE;
    /* a dense model has no MoE host term */
    struct gp_arch d = a;
    d.moe_experts = 0, d.moe_topk = 0, d.moe_ffn_hidden = 0;
    d.ffn_hidden = 4096;
    struct gp_train_model md;
    assert_int_equal (gp_train_prep (&d, &md, NULL), 0);
    l.ep = 1;
    assert_true (gp__moe_host_s (&md, &j, &hw, &l, tpe, 0) == 0);
}

/* Expert weight gradients bound by their fp32 main-grad accumulation
 * (docs/model/training.md, "Expert weight gradients"): H100 BF16 (989.4
 * TFLOP/s, 3.35 TB/s x 0.80, GEMM ceiling 0.72, d_half 128), h 4096,
 * SwiGLU experts of width 1024, 64 experts on EP 8 (8 local), 128 rows:
 * - bytes per expert: 8 * 3*4096*1024 + 2 * 128 * (2*4096 + 3*1024)
 *   = 103,546,880; 8 experts at 2.68e12 B/s: 309.095 us;
 * - charged already: fc1 (128, 2048, 4096) is HBM-bound,
 *   2*(128*4096 + 4096*2048 + 128*2048) B / 2.68e12 = 6.8471 us; fc2
 *   (128, 4096, 1024) 2*(128*1024 + 1024*4096 + 128*4096) B / 2.68e12
 *   = 3.6192 us; 8 experts: 83.730 us;
 * - extra: 309.095 - 83.730 = 225.366 us.
 * At 4,096 rows the GEMMs (1.326 ms) outlast the accumulation (0.576
 * ms): 0.  A dense model: 0.
 */
static void test_wgrad_acc (void **state)
{
    (void)state;
    struct gp_arch a = moe (2, 4096, 32, 64, 8, 1024);
    struct gp_train_model m;
    assert_int_equal (gp_train_prep (&a, &m, NULL), 0);
    struct gp_train_hw hw;
    hw_h100_prec (&hw, GP_PREC_BF16);
    struct gp_layout l = {.tp = 1, .pp = 1, .dp = 8, .cp = 1, .ep = 8,
                          .vpp = 1, .micro_batch = 1};
    near (gp__moe_wgrad_acc_s (&m, &hw, &l, 128), 225.366e-6, 1e-4);
    assert_true (gp__moe_wgrad_acc_s (&m, &hw, &l, 4096) == 0);
    struct gp_arch d = a;
    d.moe_experts = 0, d.moe_topk = 0, d.moe_ffn_hidden = 0;
    d.ffn_hidden = 4096;
    struct gp_train_model md;
    assert_int_equal (gp_train_prep (&d, &md, NULL), 0);
    l.ep = 1;
    assert_true (gp__moe_wgrad_acc_s (&md, &hw, &l, 128) == 0);
}

/* End to end: eager steps are longer than with CUDA graphs by the host
 * term of every layer and micro-batch, and the step bound of the layout
 * search still holds.
 */
static void test_step_eager_vs_graphs (void **state)
{
    (void)state;
    struct gp_arch a = moe (4, 1024, 8, 64, 8, 256);
    struct gp_train_model m;
    assert_int_equal (gp_train_prep (&a, &m, NULL), 0);
    struct gp_train_job j;
    gp_train_job_default (&j);
    j.seq_len = 1024;
    j.global_batch = 32;
    struct gp_train_hw hw;
    hw_h100_prec (&hw, GP_PREC_FP8);
    struct gp_layout l = {.tp = 1, .pp = 2, .dp = 4, .cp = 1, .ep = 4,
                          .vpp = 1, .micro_batch = 1};
    struct gp_train_result r0, r1;
    eval_ok (&m, &j, &hw, &l, &r0);
    j.cuda_graphs = 1;
    eval_ok (&m, &j, &hw, &l, &r1);
    assert_true (r0.time.step_s > r1.time.step_s);
    /* the step's terms still add up: the host time is its own term */
    const struct gp_train_time *t = &r0.time;
    double sum = t->gemm_s + t->attn_s + t->mem_s + t->tp_comm_s
                 + t->cp_comm_s + t->ep_comm_s + t->moe_host_s
                 + t->pp_bubble_s + t->pp_p2p_s + t->dp_comm_s + t->optim_s;
    assert_true (t->moe_host_s > 0);
    near (sum, t->step_s, 1e-9);
    j.cuda_graphs = 0;
    assert_true (gp__train_step_bound (&m, &j, &hw, &l) <= r0.time.step_s);
}

/* The held-out MoE rows (validation/training/moe-heldout.csv: NeMo
 * AutoModel on H100, BF16) are all modelled, and their family counts the
 * MoE constants among its fitted constants: hopper gemm_max,
 * gemm_dim_half, the memory-bound passes, hopper attn, the hopper
 * attention-kernel split, the MoE host time per operator and the
 * a2a-overlap schedule's host time (scope 'moe': counted for every MoE
 * row) = 7.
 */
static void test_heldout_rows (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (NULL, &err);
    assert_non_null (cat);
    struct gp_validate_request rq = {
        .path = GP_SOURCE_DIR "/validation/training/moe-heldout.csv"};
    struct gp_validation *v = NULL;
    assert_int_equal (gp_validate_training (cat, &rq, &v, &err), 0);
    assert_int_equal (v->n_rows, 3);
    for (size_t i = 0; i < v->n_rows; i++)
        assert_int_equal (v->rows[i].ok, 1);
    assert_int_equal (v->n_families, 1);
    assert_int_equal (v->fit[0].fitted, 7);
    gp_validation_destroy (v);
    gp_catalog_destroy (cat);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_imbalance_a2a),
        cmocka_unit_test (test_flex_dedup),
        cmocka_unit_test (test_expert_rows),
        cmocka_unit_test (test_shared_overlap),
        cmocka_unit_test (test_host),
        cmocka_unit_test (test_wgrad_acc),
        cmocka_unit_test (test_step_eager_vs_graphs),
        cmocka_unit_test (test_heldout_rows),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
