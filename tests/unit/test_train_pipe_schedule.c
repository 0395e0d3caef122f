/* test_train_pipe_schedule.c - the step of a 1F1B pipeline is the
 * makespan of the schedule the pipeline engine runs.
 *
 * The schedule is DeepSpeed's TrainSchedule as its documentation and
 * deepspeed/runtime/pipe/schedule.py describe it (the engine of the
 * Megatron-DeepSpeed runs in validation/training/vtrain-ground-truth):
 * 2(m + p - 1) lock-step slots; stage s runs forwards in the slots of its
 * own parity and backwards in the others; micro-batch of a slot k:
 *   forward,  k and s even:  k/2 - s/2;   k and s odd: (k-1)/2 - s/2
 *   backward, k even, s odd: k/2 - p + (s+1)/2;
 *             k odd, s even: (k-1)/2 - p + 1 + s/2
 * (ids outside 0..m-1 are idle); a forward slot receives the activation
 * from s-1 and then sends the gradient of the previous slot's micro-batch
 * to s-1; a backward slot sends the previous slot's activation to s+1 and
 * then receives the gradient from s+1.  Every send and receive blocks
 * until its partner is posted.  The event simulation below plays those
 * command lists out with a forward F, a backward-with-recompute B per
 * stage and a last stage heavier by the logits; its makespan is compared
 * with gp_train_time's m·T_stage + bubble (docs/model/training.md,
 * "Pipeline bubble", "Re-examined: the schedule itself ...").
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

#include "gpuplan/catalog.h"
#include "gpuplan/train.h"

enum op { RECV_A, SEND_G, SEND_A, RECV_G, FWD, BWD };

struct cmd {
    enum op op;
    int mb;
};

/* The command list of stage 's' of 'p' for 'm' micro-batches; returns
 * its length ('out' holds at most 8(m + p) commands).
 */
static int schedule (int s, int p, int m, struct cmd *out)
{
    int n = 0, prev = -1, slots = 2 * (m + p - 1);
    for (int k = 0; k < slots; k++) {
        int fwd, mb;
        if (k % 2 == 0 && s % 2 == 0)
            fwd = 1, mb = k / 2 - s / 2;
        else if (k % 2 == 1 && s % 2 == 1)
            fwd = 1, mb = (k - 1) / 2 - s / 2;
        else if (k % 2 == 0)
            fwd = 0, mb = k / 2 - p + (s + 1) / 2;
        else
            fwd = 0, mb = (k - 1) / 2 - p + 1 + s / 2;
        int v = mb >= 0 && mb < m, vp = prev >= 0 && prev < m;
        if (fwd) {
            if (v && s > 0)
                out[n++] = (struct cmd){RECV_A, mb};
            if (vp && s > 0)
                out[n++] = (struct cmd){SEND_G, prev};
        } else {
            if (vp && s < p - 1)
                out[n++] = (struct cmd){SEND_A, prev};
            if (v && s < p - 1)
                out[n++] = (struct cmd){RECV_G, mb};
        }
        if (v)
            out[n++] = (struct cmd){fwd ? FWD : BWD, mb};
        prev = mb;
    }
    return n;
}

/* Makespan of the schedule: F and B per stage, the last stage's forward
 * and backward longer by dF and dB, transfers instantaneous.  Returns -1
 * on a deadlock (a wrong schedule).
 */
static double makespan (int p, int m, double F, double B, double dF,
                        double dB)
{
    struct cmd **c = calloc ((size_t)p, sizeof *c);
    int *len = calloc ((size_t)p, sizeof *len);
    int *pc = calloc ((size_t)p, sizeof *pc);
    double *t = calloc ((size_t)p, sizeof *t);
    /* posted[(kind * p + link) * m + mb]: time the first side arrived,
     * or -1; kind 0 = activation s -> s+1, 1 = gradient s+1 -> s, link =
     * the lower stage
     */
    size_t np = (size_t)2 * p * m;
    double *posted = malloc (np * sizeof *posted);
    int *poster = malloc (np * sizeof *poster);
    assert_non_null (c), assert_non_null (len), assert_non_null (pc);
    assert_non_null (t), assert_non_null (posted), assert_non_null (poster);
    for (size_t i = 0; i < np; i++)
        posted[i] = -1;
    for (int s = 0; s < p; s++) {
        c[s] = calloc ((size_t)8 * (m + p), sizeof **c);
        assert_non_null (c[s]);
        len[s] = schedule (s, p, m, c[s]);
    }
    double end = -1;
    for (;;) {
        int moved = 0, left = 0;
        for (int s = 0; s < p; s++) {
            while (pc[s] < len[s]) {
                struct cmd x = c[s][pc[s]];
                if (x.op == FWD || x.op == BWD) {
                    double d = x.op == FWD ? F : B;
                    if (s == p - 1)
                        d += x.op == FWD ? dF : dB;
                    t[s] += d;
                    pc[s]++;
                    moved = 1;
                    continue;
                }
                int kind = x.op == SEND_A || x.op == RECV_A ? 0 : 1;
                int link = x.op == SEND_A || x.op == RECV_G ? s : s - 1;
                size_t i = ((size_t)kind * p + link) * m + x.mb;
                if (posted[i] >= 0 && poster[i] != s) {
                    double tt = posted[i] > t[s] ? posted[i] : t[s];
                    int o = poster[i];
                    t[s] = t[o] = tt;
                    pc[s]++, pc[o]++;
                    posted[i] = -1;
                    moved = 1;
                    continue;
                }
                if (posted[i] < 0)
                    posted[i] = t[s], poster[i] = s;
                break;
            }
            left += pc[s] < len[s];
        }
        if (!left) {
            end = 0;
            for (int s = 0; s < p; s++)
                end = t[s] > end ? t[s] : end;
            break;
        }
        if (!moved)
            break;
    }
    for (int s = 0; s < p; s++)
        free (c[s]);
    free (c), free (len), free (pc), free (t), free (posted), free (poster);
    return end;
}

static void near (double got, double want, double rel)
{
    if (fabs (got - want) > rel * fabs (want)) {
        print_error ("got %.9g want %.9g (tolerance %.1g)\n", got, want, rel);
        fail ();
    }
}

/* The schedule alone, worked by hand: a balanced pipeline takes
 * (m + p - 1)(F + B); the last stage's extra dF + dB is paid once per
 * micro-batch (it sets the steady state).
 */
static void test_schedule_by_hand (void **state)
{
    (void)state;
    near (makespan (1, 8, 1, 3, 0, 0), 8 * 4, 1e-12);
    near (makespan (2, 4, 1, 3, 0, 0), (4 + 1) * 4, 1e-12);
    near (makespan (4, 8, 1, 3, 0, 0), (8 + 3) * 4, 1e-12);
    near (makespan (4, 8, 1, 3, 0.1, 0.2), (8 + 3) * 4 + 8 * 0.3, 1e-12);
    near (makespan (16, 32, 1, 3, 0.3, 0.6), (32 + 15) * 4 + 32 * 0.9,
          1e-12);
    /* fewer micro-batches than stages */
    near (makespan (8, 3, 1, 3, 0, 0), (3 + 7) * 4, 1e-12);
}

/* Logits per micro-batch on the last stage (docs "Logits"), as in
 * test_train_bubble.c: forward GEMM (T, V/t, h) at the shape efficiency
 * plus 3 fp32 passes over the T x V/t logits, times 3.
 */
static double logits_by_hand (const struct gp_train_hw *hw, double T,
                              double Vt, double h, double *fwd)
{
    const struct gp_train_eff *e = &hw->eff;
    double d = e->gemm_dim_half;
    double eff = e->gemm_max / (1 + d / T + d / Vt + d / h);
    if (hw->prec_gemm_eff > 0)
        eff *= hw->prec_gemm_eff;
    double tc = 2 * T * Vt * h / (hw->peak_flops * eff);
    double tm = 2 * (T * h + h * Vt + T * Vt) / (hw->mem_bw * e->hbm);
    double g = (tc > tm ? tc : tm) + e->kernel_s;
    *fwd = g + 3 * T * Vt * 4 / (hw->mem_bw * e->hbm);
    return 3 * *fwd;
}

/* gp_train_time on a 48-layer GPT (tp 8, full recomputation, A100 fp16,
 * the vTrain setting) for pp 2 … 16 and 4 … 64 micro-batches: the step
 * without P2P, DP and optimizer equals the schedule's makespan with the
 * model's own stage (F + B = T_stage - T_logits on the first p - 1
 * stages; the backward with recompute three times the forward) and
 * logits.
 */
static void test_model_is_schedule (void **state)
{
    (void)state;
    struct gp_arch a;
    memset (&a, 0, sizeof a);
    snprintf (a.id, sizeof a.id, "gpt-pipe");
    a.layers = 48, a.hidden = 8192, a.ffn_hidden = 4 * 8192;
    a.heads = a.kv_heads = 64, a.head_dim = 128, a.vocab = 51200;
    a.mlp = GP_MLP_GELU, a.attention = GP_ATTN_MHA;
    struct gp_train_model m;
    assert_int_equal (gp_train_prep (&a, &m, NULL), 0);
    struct gp_train_job j;
    gp_train_job_default (&j);
    j.seq_len = 2048;
    j.precision = GP_PREC_FP16;
    j.flash_attn = 0;
    struct gp_catalog *cat = gp_catalog_load (NULL, NULL);
    assert_non_null (cat);
    struct gp_accel x;
    memset (&x, 0, sizeof x);
    x.id = "A100-SXM-80GB";
    x.mem_bytes = 80e9, x.mem_bw = 2.039e12;
    x.bf16_flops = x.fp16_flops = 312e12;
    x.scale_up_bw = 600e9, x.scale_up_domain = 8, x.tdp_w = 400;
    x.gen = gp_catalog_find_generation (cat, "ampere", NULL);
    assert_non_null (x.gen);
    struct gp_train_hw hw;
    gp_train_hw_from_accel (&x, GP_PREC_FP16, &hw);
    static const int pps[] = {2, 4, 8, 16};
    static const int mbs[] = {4, 16, 64};
    for (size_t i = 0; i < sizeof pps / sizeof *pps; i++)
        for (size_t k = 0; k < sizeof mbs / sizeof *mbs; k++) {
            int p = pps[i], nmb = mbs[k];
            j.global_batch = nmb;
            struct gp_layout l = {.tp = 8, .pp = p, .dp = 1, .cp = 1,
                                  .ep = 1, .vpp = 1, .micro_batch = 1,
                                  .seq_par = 1,
                                  .recompute = GP_RECOMP_FULL};
            struct gp_train_time o;
            gp_train_time (&m, &j, &hw, &l, &o);
            double busy = o.step_s - o.pp_bubble_s - o.pp_p2p_s
                          - o.optim_s - o.dp_comm_s;
            double S = busy / nmb, lf;
            double lg = logits_by_hand (&hw, 2048, 51200 / 8.0, 8192, &lf);
            double FB = S - lg;
            double ms = makespan (p, nmb, FB / 4, 3 * FB / 4, lf, lg - lf);
            assert_true (ms > 0);
            near (o.step_s - o.pp_p2p_s - o.optim_s - o.dp_comm_s, ms,
                  1e-9);
        }
    gp_catalog_destroy (cat);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_schedule_by_hand),
        cmocka_unit_test (test_model_is_schedule),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
