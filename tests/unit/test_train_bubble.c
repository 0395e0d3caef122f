/* test_train_bubble.c - the pipeline bubble is made of the stages without
 * the output layer.
 *
 * Narayanan et al. 2021 ("Efficient Large-Scale Language Model Training
 * on GPU Clusters Using Megatron-LM", Sec. 2.2.1): the 1F1B bubble is
 * (p - 1)(t_f + t_b), the warm-up forwards and cool-down backwards of the
 * first p - 1 stages, which hold no output layer; the last stage (with
 * the logits) sets the steady state.  Expected values are the documented
 * formulas (docs/model/training.md, "Pipeline bubble", "Logits") worked by
 * hand from the catalog's ampere factors.
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
    snprintf (a.id, sizeof a.id, "gpt-bubble");
    a.layers = 48, a.hidden = 8192, a.ffn_hidden = 4 * 8192;
    a.heads = a.kv_heads = 64, a.head_dim = 128, a.vocab = 51200;
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

/* Logits per micro-batch on the last stage (docs "Logits"): forward
 * GEMM (T, V/t, h) at the shape efficiency plus 3 fp32 passes over the
 * T x V/t logits, times 3 (forward + backward).
 */
static double logits_by_hand (const struct gp_train_hw *hw, double T,
                              double Vt, double h)
{
    const struct gp_train_eff *e = &hw->eff;
    double d = e->gemm_dim_half;
    double eff = e->gemm_max / (1 + d / T + d / Vt + d / h);
    if (hw->prec_gemm_eff > 0)
        eff *= hw->prec_gemm_eff;
    double tc = 2 * T * Vt * h / (hw->peak_flops * eff);
    double tm = 2 * (T * h + h * Vt + T * Vt) / (hw->mem_bw * e->hbm);
    double g = (tc > tm ? tc : tm) + e->kernel_s;
    return 3 * (g + 3 * T * Vt * 4 / (hw->mem_bw * e->hbm));
}

/* tp 8, pp 4, mb 1, 64 micro-batches: the last stage runs 64 x S, the
 * bubble is 3 x (S - logits); with 2 virtual stages half of that.
 */
static void test_bubble_without_logits (void **state)
{
    (void)state;
    struct gp_train_model m;
    struct gp_train_job j;
    struct gp_train_hw hw;
    setup (&m, &j, &hw);
    struct gp_layout l = {.tp = 8, .pp = 4, .dp = 1, .cp = 1, .ep = 1,
                          .vpp = 1, .micro_batch = 1, .seq_par = 1,
                          .recompute = GP_RECOMP_FULL};
    struct gp_train_time t1, t2;
    gp_train_time (&m, &j, &hw, &l, &t1);
    l.vpp = 2;
    gp_train_time (&m, &j, &hw, &l, &t2);
    double busy = t1.step_s - t1.pp_bubble_s - t1.pp_p2p_s - t1.optim_s
                  - t1.dp_comm_s;
    double S = busy / 64;
    double lg = logits_by_hand (&hw, 2048, 51200 / 8.0, 8192);
    /* the logits are a visible part of the stage (about 4 %) */
    assert_true (lg > 0.02 * S && lg < 0.1 * S);
    near (t1.pp_bubble_s, 3 * (S - lg), 1e-9);
    near (t2.pp_bubble_s, 1.5 * (S - lg), 1e-9);
    /* no pipeline: no bubble */
    l.pp = 1, l.vpp = 1;
    struct gp_train_time t0;
    gp_train_time (&m, &j, &hw, &l, &t0);
    assert_true (t0.pp_bubble_s == 0);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_bubble_without_logits),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
