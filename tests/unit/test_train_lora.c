/* test_train_lora.c - LoRA fine-tuning in the training model
 * (docs/model/training.md, "LoRA fine-tuning"): adapter parameters, FLOPs
 * per token, memory, GEMM time, data-parallel traffic, checkpoint and the
 * input checks.
 *
 * Expected values are hand calculations.  The model is Llama 2 7B (HF
 * meta-llama/Llama-2-7b-hf config.json: 32 layers, hidden 4,096, 32 heads
 * of 128 (MHA), SwiGLU MLP of 11,008, vocabulary 32,000, untied).  The
 * adapter counts agree with what Hugging Face PEFT prints for this model
 * at r = 16 (print_trainable_parameters): 16,777,216 on q, k, v, o and
 * 39,976,960 on every linear layer.
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

/* library-private (train_time.c): one GEMM's time as the model takes it */
double gp__train_gemm_s (const struct gp_train_hw *hw, double M, double N,
                         double K);

static void near (double got, double want, double rel)
{
    if (fabs (got - want) > rel * fabs (want)) {
        print_error ("got %.12g want %.12g (tolerance %.2g %%)\n", got, want,
                     rel * 100);
        fail ();
    }
}

static void llama2_7b (struct gp_train_model *m)
{
    struct gp_arch x;
    memset (&x, 0, sizeof x);
    snprintf (x.id, sizeof x.id, "llama2-7b-test");
    x.layers = 32;
    x.hidden = 4096;
    x.heads = 32;
    x.kv_heads = 32;
    x.head_dim = 128;
    x.ffn_hidden = 11008;
    x.vocab = 32000;
    x.mlp = GP_MLP_SWIGLU;
    x.attention = GP_ATTN_MHA;
    assert_int_equal (gp_train_prep (&x, m, NULL), 0);
}

#include "h100_fixture.h"

static void lora_job (struct gp_train_job *j, int targets)
{
    gp_train_job_default (j);
    j->seq_len = 4096;
    j->global_batch = 8;
    j->finetune = GP_FT_LORA;
    j->lora_rank = 16;
    j->lora_targets = targets;
    j->base_bytes = 2;
}

static void eval (const struct gp_train_model *m,
                  const struct gp_train_job *j, const struct gp_layout *l,
                  struct gp_train_result *r)
{
    struct gp_train_hw hw;
    hw_h100_prec (&hw, GP_PREC_BF16);
    gp_error_t err = {0};
    int rc = gp_train_eval (m, j, &hw, l, r, &err);
    if (rc)
        print_error ("%s\n", err.text);
    assert_int_equal (rc, 0);
}

/* r (d_in + d_out) per adapted layer, summed over 32 layers:
 * q, k, v, o: 4 x 16 x (4096 + 4096) = 524,288 per layer -> 16,777,216;
 * gate, up, down: 3 x 16 x (4096 + 11008) = 724,992 -> 23,199,744.
 */
static void test_adapter_params (void **state)
{
    (void)state;
    struct gp_train_model m;
    llama2_7b (&m);
    near (gp_train_lora_params (&m, 16, GP_LORA_ATTN), 16777216.0, 1e-15);
    near (gp_train_lora_params (&m, 16, GP_LORA_MLP), 23199744.0, 1e-15);
    near (gp_train_lora_params (&m, 16, GP_LORA_ALL), 39976960.0, 1e-15);
    near (gp_train_lora_params (&m, 8, GP_LORA_ATTN), 8388608.0, 1e-15);
    assert_true (gp_train_lora_params (&m, 0, GP_LORA_ATTN) == 0);
    assert_true (gp_train_lora_params (&m, 16, 7) == 0);
}

/* FLOPs per token at s = 4,096: N (GEMM parameters) = 32 x (4 x 4096^2 +
 * 3 x 4096 x 11008) + 32000 x 4096 = 6,607,077,376; attention
 * 12 x 32 x 4096 x 4096 = 6,442,450,944.  LoRA: 4N + 6 x 16,777,216 +
 * attention = 32,971,423,744 (full training: 6N + attention =
 * 46,084,915,200).  The step reports the LoRA count as model FLOPs, and
 * full recomputation adds one forward: 2N + 2 x adapters + attention/3;
 * partial recomputation the recomputed share of it.
 */
static void test_flops (void **state)
{
    (void)state;
    struct gp_train_model m;
    llama2_7b (&m);
    near (m.matmul_active, 6607077376.0, 1e-15);
    struct gp_train_job j;
    lora_job (&j, GP_LORA_ATTN);
    near (gp_train_lora_flops_per_token (&m, &j, 4096), 32971423744.0,
          1e-15);
    near (gp_train_model_flops_per_token (&m, 4096), 46084915200.0, 1e-15);
    struct gp_layout l = {.tp = 1, .pp = 1, .dp = 1, .cp = 1, .ep = 1,
                          .vpp = 1, .micro_batch = 1};
    struct gp_train_result r;
    eval (&m, &j, &l, &r);
    near (r.time.model_flops_per_token, 32971423744.0, 1e-15);
    near (r.time.hw_flops_per_token, 32971423744.0, 1e-15);
    l.recompute = GP_RECOMP_FULL;
    eval (&m, &j, &l, &r);
    near (r.time.hw_flops_per_token,
          32971423744.0 + 2 * 6607077376.0 + 2 * 16777216.0
              + 6442450944.0 / 3,
          1e-15);
    /* partial (block) recomputation of 8 of the 32 layers (one stage,
     * one chunk): a quarter of that extra forward
     */
    l.recompute_layers = 8;
    eval (&m, &j, &l, &r);
    near (r.time.hw_flops_per_token,
          32971423744.0
              + 0.25 * (2 * 6607077376.0 + 2 * 16777216.0
                        + 6442450944.0 / 3),
          1e-15);
}

/* Memory on one GPU (tp 1, pp 1): the frozen weights are the full
 * training weights (2 B each, P = 32 x 202,375,168 + 2 x 131,072,000 =
 * 6,738,149,376), plus the adapters at 2 B; gradients 4 B and Adam 12 B
 * per adapter parameter only.  With fp8 frozen weights 1 B each.  ZeRO-1
 * over 8 shards the adapter optimizer states; FSDP over 8 shards the
 * frozen weights and keeps no 16-bit adapter copy.  TP 2 splits B of
 * q, k, v and A of o: 16 x (3 x 4096 + 3 x 4096 / 2) + 16 x (4096 / 2 +
 * 4096) = 393,216 per layer, 12,582,912 per GPU.
 */
static void test_memory (void **state)
{
    (void)state;
    struct gp_train_model m;
    llama2_7b (&m);
    const double P = 6738149376.0, A = 16777216.0;
    struct gp_train_job j;
    lora_job (&j, GP_LORA_ATTN);
    struct gp_layout l = {.tp = 1, .pp = 1, .dp = 1, .cp = 1, .ep = 1,
                          .vpp = 1, .micro_batch = 1};
    struct gp_train_result r, f;
    eval (&m, &j, &l, &r);
    near (r.mem.weights, 2 * P + 2 * A, 1e-12);
    near (r.mem.grads, 4 * A, 1e-15);
    near (r.mem.optim, 12 * A, 1e-15);
    /* activations as in full training */
    struct gp_train_job full;
    gp_train_job_default (&full);
    full.seq_len = 4096;
    full.global_batch = 8;
    eval (&m, &full, &l, &f);
    near (r.mem.activations, f.mem.activations, 1e-15);
    near (f.mem.weights, 2 * P, 1e-12);
    /* fp8 frozen weights */
    j.base_bytes = 1;
    eval (&m, &j, &l, &r);
    near (r.mem.weights, P + 2 * A, 1e-12);
    j.base_bytes = 2;
    /* ZeRO-1 and FSDP over 8 */
    l.dp = 8;
    l.sharding = GP_SHARD_ZERO1;
    eval (&m, &j, &l, &r);
    near (r.mem.optim, 12 * A / 8, 1e-15);
    near (r.mem.weights, 2 * P + 2 * A, 1e-12);
    l.sharding = GP_SHARD_FSDP;
    eval (&m, &j, &l, &r);
    near (r.mem.weights, 2 * P / 8, 1e-12);
    near (r.mem.grads, 4 * A / 8, 1e-15);
    /* TP 2 */
    l.dp = 4;
    l.tp = 2;
    l.sharding = GP_SHARD_NONE;
    eval (&m, &j, &l, &r);
    near (r.mem.grads, 4 * 12582912.0, 1e-15);
}

/* GEMM time: the frozen GEMMs run forward and activation gradient (2 of
 * full training's 3 passes); each adapter runs forward (x A^T, then B)
 * and twice that in backward.  gemm_s(LoRA) - 2/3 gemm_s(full) = 3 x
 * micro-batches x layers x the adapters' forward.
 */
static void test_gemm_time (void **state)
{
    (void)state;
    struct gp_train_model m;
    llama2_7b (&m);
    struct gp_train_job j, full;
    lora_job (&j, GP_LORA_ATTN);
    gp_train_job_default (&full);
    full.seq_len = 4096;
    full.global_batch = 8;
    struct gp_layout l = {.tp = 1, .pp = 1, .dp = 1, .cp = 1, .ep = 1,
                          .vpp = 1, .micro_batch = 1};
    struct gp_train_result r, f;
    eval (&m, &j, &l, &r);
    eval (&m, &full, &l, &f);
    struct gp_train_hw hw;
    hw_h100_prec (&hw, GP_PREC_BF16);
    double T = 4096, pair = gp__train_gemm_s (&hw, T, 16, 4096)
                            + gp__train_gemm_s (&hw, T, 4096, 16);
    double ad = 4 * pair; /* q, k, v, o: all 4096 -> 4096 */
    near (r.time.gemm_s - 2.0 / 3.0 * f.time.gemm_s, 3 * 8 * 32 * ad, 1e-9);
    assert_true (r.time.step_s < f.time.step_s);
    assert_true (r.time.step_s > 0.5 * f.time.step_s);
    /* an FP8 job: the frozen GEMMs at FP8, the adapters still in 16 bit
     * (Megatron's adapter is no Transformer Engine module): the same
     * adapter time as above
     */
    struct gp_train_hw h8;
    hw_h100_prec (&h8, GP_PREC_FP8);
    j.precision = full.precision = GP_PREC_FP8;
    gp_error_t err = {0};
    assert_int_equal (gp_train_eval (&m, &j, &h8, &l, &r, &err), 0);
    assert_int_equal (gp_train_eval (&m, &full, &h8, &l, &f, &err), 0);
    near (r.time.gemm_s - 2.0 / 3.0 * f.time.gemm_s, 3 * 8 * 32 * ad, 1e-9);
}

/* Data parallelism reduces the adapter gradients only (16.8 M x 2 B
 * instead of 6.7 G x 2 B), and Adam reads and writes the adapter states
 * only: both fall by orders of magnitude.
 */
static void test_dp_and_optimizer (void **state)
{
    (void)state;
    struct gp_train_model m;
    llama2_7b (&m);
    struct gp_train_job j, full;
    lora_job (&j, GP_LORA_ATTN);
    gp_train_job_default (&full);
    full.seq_len = 4096;
    full.global_batch = 8;
    struct gp_layout l = {.tp = 1, .pp = 1, .dp = 8, .cp = 1, .ep = 1,
                          .vpp = 1, .micro_batch = 1};
    struct gp_train_result r, f;
    eval (&m, &j, &l, &r);
    eval (&m, &full, &l, &f);
    assert_true (f.time.optim_s > 0);
    /* the step time's optimizer pass counts the stage's layers and, with
     * one stage of an untied model, both vocabulary matrices: 32 x
     * 202,375,168 + 2 x 131,072,000 = 6,738,149,376
     */
    near (r.time.optim_s / f.time.optim_s, 16777216.0 / 6738149376.0,
          1e-12);
    assert_true (r.time.dp_comm_s < 0.05 * f.time.dp_comm_s);
}

/* The checkpoint holds the adapters and their optimizer states only:
 * its write time scales by adapters / all parameters.
 */
static void test_checkpoint (void **state)
{
    (void)state;
    struct gp_train_model m;
    llama2_7b (&m);
    struct gp_train_job j, full;
    lora_job (&j, GP_LORA_ATTN);
    gp_train_job_default (&full);
    struct gp_reliability a, b;
    gp_train_reliability (&m, &j, 8, 8, &a);
    gp_train_reliability (&m, &full, 8, 8, &b);
    near (a.ckpt_write_s / b.ckpt_write_s, 16777216.0 / m.total_params,
          1e-12);
}

/* Full training ignores the LoRA fields: the same answer as a default
 * job (the byte-identical CLI outputs are bench/same_output.sh's).
 */
static void test_full_unchanged (void **state)
{
    (void)state;
    struct gp_train_model m;
    llama2_7b (&m);
    struct gp_train_job a, b;
    gp_train_job_default (&a);
    gp_train_job_default (&b);
    b.lora_rank = 64;
    b.lora_targets = GP_LORA_ALL;
    struct gp_layout l = {.tp = 2, .pp = 2, .dp = 2, .cp = 1, .ep = 1,
                          .vpp = 1, .micro_batch = 1,
                          .sharding = GP_SHARD_ZERO1};
    struct gp_train_result ra, rb;
    eval (&m, &a, &l, &ra);
    eval (&m, &b, &l, &rb);
    assert_memory_equal (&ra.mem, &rb.mem, sizeof ra.mem);
    assert_memory_equal (&ra.time, &rb.time, sizeof ra.time);
}

static void check_fails (const struct gp_train_model *m,
                         const struct gp_train_job *j, const char *field)
{
    gp_error_t err = {0};
    assert_int_equal (gp_train_lora_check (m, j, &err), GP_EINVAL);
    if (!strstr (err.text, field)) {
        print_error ("'%s' does not name %s\n", err.text, field);
        fail ();
    }
}

/* Bad input: rank 0 or negative, a rank above the hidden size, unknown
 * targets or base bytes; LoRA on a MoE model is not yet supported, and
 * the error names the field.
 */
static void test_bad_input (void **state)
{
    (void)state;
    struct gp_train_model m;
    llama2_7b (&m);
    struct gp_train_job j;
    lora_job (&j, GP_LORA_ATTN);
    assert_int_equal (gp_train_lora_check (&m, &j, NULL), 0);
    j.lora_rank = 0;
    check_fails (&m, &j, "lora_rank");
    j.lora_rank = -4;
    check_fails (&m, &j, "lora_rank");
    j.lora_rank = 8192;
    check_fails (&m, &j, "lora_rank");
    j.lora_rank = 16;
    j.lora_targets = 3;
    check_fails (&m, &j, "lora_targets");
    j.lora_targets = GP_LORA_ATTN;
    j.base_bytes = 4;
    check_fails (&m, &j, "base_precision");
    j.base_bytes = 2;
    struct gp_arch x;
    memset (&x, 0, sizeof x);
    snprintf (x.id, sizeof x.id, "moe-test");
    x.layers = 4;
    x.hidden = 1024;
    x.heads = 8;
    x.ffn_hidden = 4096;
    x.vocab = 32000;
    x.mlp = GP_MLP_SWIGLU;
    x.moe_experts = 8;
    x.moe_topk = 2;
    x.moe_ffn_hidden = 2048;
    struct gp_train_model moe;
    assert_int_equal (gp_train_prep (&x, &moe, NULL), 0);
    check_fails (&moe, &j, "finetune");
    gp_error_t err = {0};
    gp_train_lora_check (&moe, &j, &err);
    assert_non_null (strstr (err.text, "not yet supported"));
    /* the layout check refuses it too: no layout is evaluated */
    struct gp_layout l = {.tp = 1, .pp = 1, .dp = 1, .cp = 1, .ep = 1,
                          .vpp = 1, .micro_batch = 1};
    j.global_batch = 8;
    err.text[0] = 0;
    assert_int_equal (gp_train_check (&moe, &j, &l, &err), GP_EINVAL);
    assert_non_null (strstr (err.text, "finetune"));
}

/* The plan call: LoRA fields without finetune lora, and a negative rank,
 * are input errors naming the field; finetune lora with no rank takes 16
 * on the attention projections with bf16 frozen weights.
 */
static void test_plan_request (void **state)
{
    (void)state;
    struct gp_catalog *cat = gp_catalog_load (NULL, NULL);
    assert_non_null (cat);
    struct gp_train_request rq;
    gp_train_request_init (&rq);
    rq.model = "llama2-7b";
    rq.gpus = 8;
    rq.global_batch = 64;
    rq.lora_rank = 8;
    struct gp_train_plan_result *res = NULL;
    gp_error_t err = {0};
    assert_int_equal (gp_train_plan (cat, &rq, &res, &err), GP_EINVAL);
    assert_non_null (strstr (err.text, "finetune"));
    rq.finetune = GP_FT_LORA;
    rq.lora_rank = -2;
    assert_int_equal (gp_train_plan (cat, &rq, &res, &err), GP_EINVAL);
    assert_non_null (strstr (err.text, "lora_rank"));
    rq.lora_rank = 0;
    assert_int_equal (gp_train_plan (cat, &rq, &res, &err), 0);
    assert_int_equal (res->job.finetune, GP_FT_LORA);
    assert_int_equal (res->job.lora_rank, 16);
    assert_int_equal (res->job.lora_targets, GP_LORA_ATTN);
    near (res->job.base_bytes, 2, 0);
    assert_true (res->any_feasible);
    gp_train_plan_result_destroy (res);
    gp_catalog_destroy (cat);
}

/* The layout search skips a layout whose lower bound on the step time
 * (gp__train_step_bound, proof in train_time.c) exceeds what it keeps:
 * the bound must hold for LoRA jobs too, on every layout tried here
 * (TP, PP, virtual stages, micro-batch, recomputation, sharding).
 */
static void test_search_bound (void **state)
{
    (void)state;
    struct gp_train_model m;
    llama2_7b (&m);
    struct gp_train_hw hw;
    hw_h100_prec (&hw, GP_PREC_BF16);
    struct gp_train_job j;
    lora_job (&j, GP_LORA_ALL);
    j.global_batch = 64;
    int n = 0;
    for (int tp = 1; tp <= 8; tp *= 2)
        for (int pp = 1; pp <= 4; pp *= 2)
            for (int vpp = 1; vpp <= 2; vpp++)
                for (int mb = 1; mb <= 2; mb++)
                    for (int rc = 0; rc < 3; rc++)
                        for (int sh = 0; sh < 5; sh++) {
                            struct gp_layout l = {
                                .tp = tp, .pp = pp, .dp = 64 / (tp * pp),
                                .cp = 1, .ep = 1, .vpp = vpp,
                                .micro_batch = mb, .seq_par = tp > 1,
                                .recompute = rc, .sharding = sh};
                            struct gp_train_result r;
                            if (gp_train_eval (&m, &j, &hw, &l, &r, NULL))
                                continue;
                            double b = gp__train_step_bound (&m, &j, &hw,
                                                             &l);
                            assert_true (b <= r.time.step_s);
                            assert_true (b > 0.3 * r.time.step_s);
                            n++;
                        }
    assert_true (n > 200);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_adapter_params),
        cmocka_unit_test (test_flops),
        cmocka_unit_test (test_memory),
        cmocka_unit_test (test_gemm_time),
        cmocka_unit_test (test_dp_and_optimizer),
        cmocka_unit_test (test_checkpoint),
        cmocka_unit_test (test_full_unchanged),
        cmocka_unit_test (test_bad_input),
        cmocka_unit_test (test_plan_request),
        cmocka_unit_test (test_search_bound),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
