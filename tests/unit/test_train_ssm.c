/* test_train_ssm.c - hybrid Mamba-2/attention models: parameter counts,
 * model FLOPs, activation memory, step-time pieces and layout checks on a
 * tiny hand-computed hybrid, and the Nemotron-H zoo rows.
 *
 * Independent references:
 *   Nemotron-H-8B-Base-8K holds 8,100,852,736 parameters (the released
 *     Hugging Face checkpoint); the zoo's count leaves out the conv
 *     biases (biases are never counted) and must agree to 0.01 %.
 *   Nemotron-H-56B: 54 Mamba-2, 54 MLP and 10 self-attention layers
 *     (the Nemotron-H research page).
 *
 * The tiny model, pattern "M*-M-" (2 Mamba-2, 1 attention, 2 MLP layers):
 * h 64, 4 heads of 16 with 2 KV heads, MLP 128 (2 matrices), vocab 100
 * untied; Mamba-2 H 8 heads of P 16 (d_in 128), N 8, G 2, conv 4, Q 16.
 * By hand (elements):
 *   embedding 2*100*64 = 12,800; attention 64*64 + 2*64*32 + 64*64 =
 *   12,288; MLP 2*64*128 = 16,384; Mamba-2 in_proj 64*(2*128 + 2*2*8 +
 *   8) = 18,944, conv (128 + 32)*4 = 640, A/D/dt 24, gated norm 128,
 *   out_proj 128*64 = 8,192: 27,928; norms 64*5 + 64 = 384.
 *   total = 12,800 + 12,288 + 2*16,384 + 2*27,928 + 384 = 114,096.
 *   GEMM parameters (model FLOPs) 12,288 + 2*27,928 + 2*16,384 + 100*64
 *   = 107,312.
 *   SSD scan per token (Dao & Gu 2024 Sec. 6, chunk Q): 2*Q*N*G +
 *   H*(2*Q*P + 4*N*P) = 512 + 8*(512 + 512) = 8,704 FLOPs forward.
 *   Model FLOPs/token at s = 32: 6*107,312 + 12*1*32*4*16 + 3*2*8,704 =
 *   720,672.
 *   KV cache per token: only the one attention layer, 2*2*16 = 64.
 *   SSM state per sequence: 2*(128*8 + (128 + 32)*3) = 3,008.
 *   Activations (t 1, no SP, flash, s 32, b 1; units of s*b*h = 2,048
 *   bytes): attention 2 + 2 + 1 + (2 + 2 + 2) = 11, MLP 5 + 4*2 = 13,
 *   Mamba-2 4 + 2*296/64 + 2*160/64 + 3*2*128/64 = 30.25; average over
 *   the pattern (11 + 2*13 + 2*30.25)/5 = 19.5 -> 39,936 bytes.
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

static void near (double got, double want, double rel)
{
    if (fabs (got - want) > rel * fabs (want)) {
        print_error ("got %.9g want %.9g (tolerance %.3f %%)\n", got, want,
                     rel * 100);
        fail ();
    }
}

static struct gp_arch tiny (void)
{
    struct gp_arch a;
    memset (&a, 0, sizeof a);
    strcpy (a.id, "tiny-hybrid");
    a.layers = 5;
    a.hidden = 64;
    a.ffn_hidden = 128;
    a.heads = 4;
    a.kv_heads = 2;
    a.head_dim = 16;
    a.vocab = 100;
    a.mlp = GP_MLP_GELU;
    a.attention = GP_ATTN_GQA;
    strcpy (a.layer_pattern, "M*-M-");
    a.ssm_state = 8;
    a.ssm_heads = 8;
    a.ssm_head_dim = 16;
    a.ssm_groups = 2;
    a.ssm_conv = 4;
    a.ssm_chunk = 16;
    gp_error_t err = {0};
    assert_int_equal (gp_arch_pattern_count (&a, &err), 0);
    return a;
}

static void test_params_and_state (void **state)
{
    (void)state;
    struct gp_arch a = tiny ();
    gp_error_t err = {0};
    assert_int_equal (gp_arch_check (&a, &err), 0);
    assert_int_equal (a.n_ssm_layers, 2);
    assert_int_equal (a.n_attn_layers, 1);
    assert_int_equal (a.n_mlp_layers, 2);
    struct gp_param_count pc;
    gp_arch_params (&a, &pc);
    assert_true (pc.ssm_per_layer == 27928);
    assert_true (pc.total == 114096);
    assert_true (gp_arch_kv_elems_per_token (&a) == 64);
    assert_true (gp_arch_ssm_state_elems (&a) == 3008);

    struct gp_train_model m;
    assert_int_equal (gp_train_prep (&a, &m, &err), 0);
    assert_true (m.matmul_active == 107312);
    assert_true (m.total_params == 114096);
    assert_true (gp_train_model_flops_per_token (&m, 32) == 720672);
}

static void test_checks (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_arch a = tiny ();
    strcpy (a.layer_pattern, "M*-E-");
    assert_int_equal (gp_arch_pattern_count (&a, &err), GP_EINVAL);
    assert_non_null (strstr (err.text, "'E' at position 4"));
    a = tiny ();
    strcpy (a.layer_pattern, "M*-M");
    assert_int_equal (gp_arch_check (&a, &err), GP_EINVAL);
    assert_non_null (strstr (err.text, "layer_pattern has 4 layers"));
    a = tiny ();
    a.ssm_chunk = 0;
    assert_int_equal (gp_arch_check (&a, &err), GP_EINVAL);

    a = tiny ();
    struct gp_train_model m;
    a.layers = 6; /* an explicit --layers that contradicts the pattern */
    assert_int_equal (gp_train_prep (&a, &m, &err), GP_EINVAL);
    assert_non_null (strstr (err.text, "layer_pattern has 5"));
    a = tiny ();
    assert_int_equal (gp_train_prep (&a, &m, &err), 0);
    struct gp_train_job j;
    gp_train_job_default (&j);
    j.seq_len = 32;
    j.global_batch = 4;
    struct gp_layout l = {.tp = 2, .pp = 1, .dp = 1, .cp = 1, .ep = 1,
                          .vpp = 1, .micro_batch = 1};
    assert_int_equal (gp_train_check (&m, &j, &l, &err), 0);
    l.tp = 4; /* 2 groups */
    assert_int_equal (gp_train_check (&m, &j, &l, &err), GP_EINVAL);
    assert_non_null (strstr (err.text, "Mamba heads"));
    l.tp = 1;
    l.cp = 2;
    assert_int_equal (gp_train_check (&m, &j, &l, &err), GP_EINVAL);
    assert_non_null (strstr (err.text, "not yet supported"));
}

static void test_activations (void **state)
{
    (void)state;
    struct gp_arch a = tiny ();
    gp_error_t err = {0};
    struct gp_train_model m;
    assert_int_equal (gp_train_prep (&a, &m, &err), 0);
    struct gp_layout l = {.tp = 1, .pp = 1, .dp = 1, .cp = 1, .ep = 1,
                          .vpp = 1, .micro_batch = 1};
    near (gp_train_act_layer_bytes (&m, &l, 32, 1), 39936, 1e-12);
    /* trained without dropout (Nemotron-H): no mask byte in the attention
     * and MLP layers, 10 and 12: (10 + 2*12 + 2*30.25)/5 = 18.9 units
     */
    m.no_dropout = 1;
    near (gp_train_act_layer_bytes (&m, &l, 32, 1), 18.9 * 2048, 1e-12);
    m.no_dropout = 0;
    l.recompute = GP_RECOMP_FULL;
    near (gp_train_act_layer_bytes (&m, &l, 32, 1), 2.0 * 2048, 1e-12);
}

/* Ideal hardware (no generation: efficiency 1, no kernel overhead) and a
 * memory bandwidth so high that every kernel is compute-bound: per
 * micro-batch of T = 32 tokens the GEMM time is 3 (forward + backward)
 * x 2T x the GEMM parameters of the layers (attention 12,288, MLP
 * 16,384 twice, Mamba-2 in_proj + out_proj 27,136 twice: 99,328) / peak,
 * and the attention-core time the flash attention of the one attention
 * layer (0.5 x 4 x 32 x 32 x 64 FLOPs, x 3.5 forward + backward) plus
 * the SSD scan of the two Mamba layers (32 x 8,704 FLOPs, x 3.5).
 */
static void test_step_pieces (void **state)
{
    (void)state;
    struct gp_arch a = tiny ();
    gp_error_t err = {0};
    struct gp_train_model m;
    assert_int_equal (gp_train_prep (&a, &m, &err), 0);
    struct gp_accel acc;
    memset (&acc, 0, sizeof acc);
    acc.id = "ideal";
    acc.mem_bytes = 80e9;
    acc.mem_bw = 1e21;
    acc.bf16_flops = acc.fp16_flops = 1e15;
    acc.scale_up_bw = 1e12;
    acc.scale_up_domain = 8;
    acc.tdp_w = 700;
    struct gp_train_hw hw;
    gp_train_hw_from_accel (&acc, GP_PREC_BF16, &hw);
    struct gp_train_job j;
    gp_train_job_default (&j);
    j.seq_len = 32;
    j.global_batch = 1;
    struct gp_layout l = {.tp = 1, .pp = 1, .dp = 1, .cp = 1, .ep = 1,
                          .vpp = 1, .micro_batch = 1};
    struct gp_train_time t;
    gp_train_time (&m, &j, &hw, &l, &t);
    near (t.gemm_s, 3.0 * 2 * 32 * 99328 / 1e15, 1e-9);
    near (t.attn_s,
          3.5 * (0.5 * 4 * 32 * 32 * 64 + 2.0 * 32 * 8704) / 1e15, 1e-9);
}

static void test_zoo_rows (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_zoo *z = gp_zoo_load (NULL, &err);
    assert_non_null (z);
    const struct gp_arch *a = gp_zoo_find (z, "nemotron-h-8b", &err);
    assert_non_null (a);
    struct gp_param_count pc;
    gp_arch_params (a, &pc);
    near (pc.total, 8100852736.0, 1e-4);
    a = gp_zoo_find (z, "nemotron-h-56b", &err);
    assert_non_null (a);
    assert_int_equal (a->n_ssm_layers, 54);
    assert_int_equal (a->n_mlp_layers, 54);
    assert_int_equal (a->n_attn_layers, 10);
    assert_int_equal (a->layers, 118);
    gp_zoo_destroy (z);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_params_and_state),
        cmocka_unit_test (test_checks),
        cmocka_unit_test (test_activations),
        cmocka_unit_test (test_step_pieces),
        cmocka_unit_test (test_zoo_rows),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
