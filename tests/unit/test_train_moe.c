/* test_train_moe.c - MoE and MLA terms of the training model: expert
 * parallel all-to-all volume (intra- and inter-node), its overlap under
 * the a2a-overlap and DualPipe schedules, the DualPipe bubble, expert
 * parallel folding (ep divides tp*dp*cp), expert memory and MLA FLOPs and
 * activations.
 *
 * Expected values are hand calculations from the formulas written out in
 * docs/model/training.md (DeepSeek-V3 technical report, arXiv 2412.19437,
 * Sec. 3.2 and Table 2; DeepSeek-V2, arXiv 2405.04434, Sec. 2.1).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "gpuplan/train.h"

static void near (double got, double want, double rel)
{
    if (fabs (got - want) > rel * fabs (want)) {
        print_error ("got %.9g want %.9g (tolerance %.2g %%)\n", got, want,
                     rel * 100);
        fail ();
    }
}

/* A MoE model: every layer MoE, E experts top-k, SwiGLU experts. */
static struct gp_arch moe (int L, int h, int a, int E, int k, int fm)
{
    struct gp_arch x;
    memset (&x, 0, sizeof x);
    snprintf (x.id, sizeof x.id, "moe-test");
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

/* H100-like: 450 GB/s NVLink per direction in 8-GPU domains, 400 Gb/s
 * (50 GB/s) NIC per GPU, hopper efficiency row (scale_up 0.80, scale_out
 * 0.90), 5 us per scale-out hop.
 */
#include "h100_fixture.h"

static void hw_h100 (struct gp_train_hw *hw)
{
    hw_h100_prec (hw, GP_PREC_BF16);
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

/* All-to-all of one MoE layer: dispatch + combine forward and backward.
 * EP 8 in one 8-GPU NVLink domain: each of T*k copies leaves the GPU with
 * probability 7/8, 2h bytes each, at 450e9 * 0.8 B/s, plus 2 us * log2 8.
 * EP 16 over two domains: NVLink carries (7 + 8)/16 of the copies (direct
 * and forwarded), the NIC one copy per token and remote domain hit,
 * (N-1)(1-(1-1/N)^k) = 0.75 for N = 2, k = 2, at 50e9 * 0.9 B/s, latency
 * 6 us + 5 us * log2 2.
 */
static void test_a2a_volume (void **state)
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
    hw_h100 (&hw);
    struct gp_layout l = {.tp = 1, .pp = 1, .dp = 8, .cp = 1, .ep = 8,
                          .vpp = 1, .micro_batch = 1};
    struct gp_train_result r;
    j.moe_a2a_nccl = 1; /* one copy per token and expert */
    eval_ok (&m, &j, &hw, &l, &r);
    double T = 1024, row = 2048, nmb = 2, L = 2;
    double one = T * 2 * row * 7.0 / 8 / (450e9 * 0.8) + 2e-6 * 3;
    near (r.time.ep_comm_s, nmb * L * 4 * one, 1e-9);
    assert_true (r.time.ep_hidden_s == 0);

    l.dp = 16;
    l.ep = 16;
    j.global_batch = 32;
    j.moe_a2a_nccl = 0; /* flex: per node over the NIC (1 expert/GPU) */
    eval_ok (&m, &j, &hw, &l, &r);
    double nv = T * 2 * row * 15.0 / 16 / (450e9 * 0.8);
    double ib = T * row * 0.75 / (50e9 * 0.9);
    one = (nv > ib ? nv : ib) + 2e-6 * 3 + 5e-6;
    near (r.time.ep_comm_s, nmb * L * 4 * one, 1e-9);
}

/* a2a-overlap hides min(all-to-all, compute) in the steady state, a
 * share 1 - ((p-1)/v + 1)/m of the micro-batches (7/8 for p = 1, m = 8);
 * DualPipe hides it all.  The exposed and hidden parts add up to the 1F1B
 * all-to-all.  Compute dominates here (h = 4096, f_e = 1024, k = 2).
 */
static void test_a2a_overlap (void **state)
{
    (void)state;
    struct gp_arch a = moe (4, 4096, 32, 8, 2, 1024);
    struct gp_train_model m;
    assert_int_equal (gp_train_prep (&a, &m, NULL), 0);
    struct gp_train_job j;
    gp_train_job_default (&j);
    j.seq_len = 2048;
    j.global_batch = 64;
    struct gp_train_hw hw;
    hw_h100 (&hw);
    struct gp_layout l = {.tp = 1, .pp = 1, .dp = 8, .cp = 1, .ep = 8,
                          .vpp = 1, .micro_batch = 1};
    struct gp_train_result r0, r1, r2;
    eval_ok (&m, &j, &hw, &l, &r0);
    double E = r0.time.ep_comm_s;
    assert_true (E > 0);
    l.schedule = GP_SCHED_A2A_OVERLAP;
    eval_ok (&m, &j, &hw, &l, &r1);
    near (r1.time.ep_hidden_s, 7.0 / 8 * E, 1e-9);
    near (r1.time.ep_comm_s, E / 8, 1e-9);
    /* the computation under the hidden all-to-all runs on 112 of 132
     * SMs (DeepSeek-V3 Sec. 3.5.1: 20 SMs for communication): the
     * hidden part costs 20/112 of itself
     */
    /* and the schedule's own host cost, 1.6 ms per MoE layer and
     * micro-batch (Megatron-Bridge PR #1760, train_moe.c): 64 / 8 = 8
     * micro-batches x 4 layers, no pipeline bubble at pp 1
     */
    double ho = 8 * 4 * 1.6e-3;
    near (r1.time.moe_host_s - r0.time.moe_host_s, ho, 1e-9);
    near (r0.time.step_s - r1.time.step_s,
          7.0 / 8 * E * (1 - 20.0 / 112) - ho, 1e-9);

    /* DualPipe on pp 2 (its bubble (p/2 - 1) * 2/3 stage is 0 there) */
    l.pp = 2;
    l.dp = 4;
    l.ep = 4;
    l.schedule = GP_SCHED_1F1B;
    eval_ok (&m, &j, &hw, &l, &r0);
    l.schedule = GP_SCHED_DUALPIPE;
    eval_ok (&m, &j, &hw, &l, &r2);
    assert_true (r2.time.ep_comm_s == 0);
    near (r2.time.ep_hidden_s, r0.time.ep_comm_s, 1e-9);
    assert_true (r2.time.pp_bubble_s == 0 && r2.time.pp_p2p_s == 0);
    assert_true (r0.time.pp_bubble_s > 0 && r0.time.pp_p2p_s > 0);
}

/* DualPipe bubble (p/2 - 1)(F&B + B - 3W) = (p/2 - 1) * 2/3 (F + B) vs
 * 1F1B's (p - 1)(F + B): 2/9 of it at p = 4 (no MoE: the stage time is
 * the same under both schedules).  Two stages per rank: 2x weights.
 */
static void test_dualpipe_bubble_memory (void **state)
{
    (void)state;
    struct gp_arch a = moe (8, 2048, 16, 8, 2, 1024);
    a.moe_experts = 0;
    a.moe_topk = 0;
    a.moe_ffn_hidden = 0;
    a.ffn_hidden = 8192;
    struct gp_train_model m;
    assert_int_equal (gp_train_prep (&a, &m, NULL), 0);
    struct gp_train_job j;
    gp_train_job_default (&j);
    j.seq_len = 2048;
    j.global_batch = 32;
    struct gp_train_hw hw;
    hw_h100 (&hw);
    struct gp_layout l = {.tp = 1, .pp = 4, .dp = 2, .cp = 1, .ep = 1,
                          .vpp = 1, .micro_batch = 1};
    struct gp_train_result r0, r1;
    eval_ok (&m, &j, &hw, &l, &r0);
    l.schedule = GP_SCHED_DUALPIPE;
    eval_ok (&m, &j, &hw, &l, &r1);
    /* DualPipe: (p/2 - 1) * 2/3 of a whole stage (both ends on every
     * device); the 1F1B stage S from its step, 16 micro-batches
     */
    double S = (r0.time.step_s - r0.time.pp_bubble_s - r0.time.pp_p2p_s
                - r0.time.dp_comm_s - r0.time.optim_s)
               / 16;
    near (r1.time.pp_bubble_s, S * 2.0 / 3.0, 1e-9);
    near (r1.mem.weights, 2 * r0.mem.weights, 1e-12);
    near (r1.mem.grads, 2 * r0.mem.grads, 1e-12);
    /* PP + 1 micro-batches in flight instead of PP (m = 16 >= 5) */
    near (r1.mem.activations, r0.mem.activations * 5.0 / 4.0, 1e-12);
}

/* Folding: ep divides tp*dp*cp and the experts; DualPipe wants an even
 * pp >= 2 without interleaving.
 */
static void test_checks (void **state)
{
    (void)state;
    struct gp_arch a = moe (8, 2048, 16, 8, 2, 1024);
    struct gp_train_model m;
    assert_int_equal (gp_train_prep (&a, &m, NULL), 0);
    struct gp_train_job j;
    gp_train_job_default (&j);
    j.seq_len = 2048;
    j.global_batch = 48;
    gp_error_t err = {0};
    struct gp_layout l = {.tp = 2, .pp = 1, .dp = 4, .cp = 1, .ep = 8,
                          .vpp = 1, .micro_batch = 1};
    assert_int_equal (gp_train_check (&m, &j, &l, &err), 0);
    l.ep = 16;
    assert_int_equal (gp_train_check (&m, &j, &l, &err), GP_EINVAL);
    l.ep = 4;
    l.tp = 1;
    l.dp = 2;
    l.ep = 8;
    assert_int_equal (gp_train_check (&m, &j, &l, &err), GP_EINVAL);
    assert_non_null (strstr (err.text, "tp*dp*cp"));
    l.ep = 2;
    l.pp = 3;
    l.schedule = GP_SCHED_DUALPIPE;
    assert_int_equal (gp_train_check (&m, &j, &l, &err), GP_EINVAL);
    assert_non_null (strstr (err.text, "dualpipe"));
    l.pp = 4;
    l.vpp = 2;
    j.global_batch = 16;
    assert_int_equal (gp_train_check (&m, &j, &l, &err), GP_EINVAL);
    l.vpp = 1;
    assert_int_equal (gp_train_check (&m, &j, &l, &err), 0);
    l.schedule = (enum gp_schedule)7;
    assert_int_equal (gp_train_check (&m, &j, &l, &err), GP_EINVAL);
    assert_string_equal (gp_schedule_str (GP_SCHED_DUALPIPE), "dualpipe");
    assert_string_equal (gp_schedule_str (GP_SCHED_A2A_OVERLAP),
                         "a2a-overlap");
}

/* Expert weights are split over ep only (expert tensor parallel 1), the
 * rest over tp: weights = 2 B * (L * (attn + router)/t + V*h/t * 2
 * (untied, pp = 1) + L * E * 3 h f_e / ep).
 */
static void test_moe_memory (void **state)
{
    (void)state;
    struct gp_arch a = moe (4, 2048, 16, 8, 2, 1024);
    struct gp_train_model m;
    assert_int_equal (gp_train_prep (&a, &m, NULL), 0);
    struct gp_train_job j;
    gp_train_job_default (&j);
    j.seq_len = 2048;
    j.global_batch = 8;
    struct gp_train_hw hw;
    hw_h100 (&hw);
    struct gp_layout l = {.tp = 2, .pp = 1, .dp = 4, .cp = 1, .ep = 8,
                          .vpp = 1, .micro_batch = 1, .seq_par = 1};
    struct gp_train_result r;
    eval_ok (&m, &j, &hw, &l, &r);
    double h = 2048, routed = 8 * 3 * h * 1024;
    double attn = 4 * h * h; /* MHA q, k, v, o */
    double router = m.moe_params - routed;
    near (router, 8 * h, 1e-12);
    double P = (4 * (attn + router) + 2 * 32000 * h) / 2 + 4 * routed / 8;
    near (r.mem.weights, 2 * P, 1e-12);
    /* ZeRO-1: dense optimizer states over dp 4, experts over the
     * tp*dp/ep = 1 expert-data-parallel rank (not sharded)
     */
    l.sharding = GP_SHARD_ZERO1;
    eval_ok (&m, &j, &hw, &l, &r);
    near (r.mem.optim,
          12 * ((4 * (attn + router) + 2 * 32000 * h) / 2 / 4
                + 4 * routed / 8),
          1e-12);
}

/* MLA (DeepSeek-V2 Sec. 2.1): attention FLOPs 6 * L * s * a * (d_qk +
 * d_v) per token (QK^T over d_qk = nope + rope, PV over d_v), and the
 * activations: latents 2 (q_lora + kv_lora + rope)/h, Q and K 2 a d_qk/h
 * each, V and the projection input 2 a d_v/h each; selective recompute of
 * the up-projections keeps only the latents and the projection input.
 */
static void test_mla (void **state)
{
    (void)state;
    struct gp_arch a = moe (2, 1024, 8, 8, 2, 512);
    a.moe_experts = a.moe_topk = a.moe_ffn_hidden = 0;
    a.ffn_hidden = 2048;
    a.attention = GP_ATTN_MLA;
    a.head_dim = 192;
    a.mla_q_lora_rank = 256;
    a.mla_kv_lora_rank = 128;
    a.mla_qk_nope_head_dim = 128;
    a.mla_qk_rope_head_dim = 64;
    a.mla_v_head_dim = 128;
    struct gp_train_model m;
    assert_int_equal (gp_train_prep (&a, &m, NULL), 0);
    assert_int_equal (m.mla, 1);
    double s = 4096;
    near (gp_train_model_flops_per_token (&m, s) - 6 * m.matmul_active,
          6.0 * 2 * s * 8 * (192 + 128), 1e-12);
    struct gp_layout l = {.tp = 1, .pp = 1, .dp = 1, .cp = 1, .ep = 1,
                          .vpp = 1, .micro_batch = 1};
    double sbh = 2048.0 * 1024;
    double lat = 2.0 * (256 + 128 + 64) / 1024;
    double mlp = 6.0 * 2048 / 1024;
    near (gp_train_act_layer_bytes (&m, &l, 2048, 1),
          sbh * (10 + lat + 4 * 1.5 + 4 * 1.0 + mlp), 1e-12);
    l.recompute = GP_RECOMP_SELECTIVE;
    near (gp_train_act_layer_bytes (&m, &l, 2048, 1),
          sbh * (10 + lat + 2 * 1.0 + mlp), 1e-12);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_a2a_volume),
        cmocka_unit_test (test_a2a_overlap),
        cmocka_unit_test (test_dualpipe_bubble_memory),
        cmocka_unit_test (test_checks),
        cmocka_unit_test (test_moe_memory),
        cmocka_unit_test (test_mla),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
