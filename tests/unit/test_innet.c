/* test_innet.c - in-network reduction in the training model: NVLink SHARP
 * (NVLS) inside NVSwitch nodes and InfiniBand SHARP across nodes
 * (docs/model/training.md, "In-network reduction").
 *
 * Expected values are hand calculations from the published figures:
 * 8 x H100 all-reduce bus bandwidth about 370 GB/s on the ring and about
 * 480 GB/s with NVLS (NVIDIA/nccl-tests #212, NVIDIA/nccl #1455), NCCL
 * choosing NVLS from 2 MiB (nccl-tests #309), ~20 GB/s SHARP algorithm
 * bandwidth per 25 GB/s NIC (NVIDIA/nccl #320).
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

#define MIB 1048576.0

static struct gp_catalog *cat;

static int setup (void **state)
{
    (void)state;
    cat = gp_catalog_load (NULL, NULL);
    return cat ? 0 : -1;
}

static int teardown (void **state)
{
    (void)state;
    gp_catalog_destroy (cat);
    return 0;
}

static void hw_of (const char *id, struct gp_train_hw *hw)
{
    const struct gp_accel *a = gp_catalog_find_accel (cat, id, NULL);
    assert_non_null (a);
    gp_train_hw_from_accel (a, GP_PREC_BF16, hw);
}

/* Bus bandwidth as nccl-tests reports it: 2(n-1)/n x bytes / time. */
static double busbw (double bytes, int n, double s)
{
    return 2.0 * (n - 1) / n * bytes / s;
}

/* 8 x H100, 8 GiB all-reduce: ring about 370 GB/s (the model: 450 GB/s
 * NVLink x 0.80 = 360, within 3 %); NVLS/ring = 480/370 = 1.297 (the
 * model: 0.74 x 2 x 7/8 = 1.295), within 2 %.
 */
static void test_nvls_busbw_h100 (void **state)
{
    (void)state;
    struct gp_train_hw hw, off;
    hw_of ("H100-SXM", &hw);
    assert_true (hw.nvls_share > 0);
    off = hw;
    off.nvls_share = 0;
    double S = 8192 * MIB;
    double ring = busbw (S, 8, gp_train_allreduce_up_s (&off, S, 8));
    double nvls = busbw (S, 8, gp_train_allreduce_up_s (&hw, S, 8));
    assert_true (fabs (ring / 370e9 - 1) < 0.03);
    assert_true (fabs (nvls / 480e9 - 1) < 0.03);
    assert_true (fabs ((nvls / ring) / (480.0 / 370.0) - 1) < 0.02);
    /* H200 and B200 have it; PCIe / NVLink-bridge cards and A100 not */
    hw_of ("H200-SXM", &hw);
    assert_true (hw.nvls_share > 0);
    hw_of ("B200", &hw);
    assert_true (hw.nvls_share > 0);
    hw_of ("H100-PCIE", &hw);
    assert_true (hw.nvls_share == 0);
    hw_of ("H100-NVL", &hw);
    assert_true (hw.nvls_share == 0);
    hw_of ("A100-SXM-80GB", &hw);
    assert_true (hw.nvls_share == 0);
    hw_of ("MI300X", &hw);
    assert_true (hw.nvls_share == 0);
}

/* The message-size and rank range: ring below 2 MiB (NCCL picks RING/LL
 * up to 1 MiB on one node) and at 2-4 GPUs (ring-like bus bandwidth).
 */
static void test_nvls_range (void **state)
{
    (void)state;
    struct gp_train_hw hw, off;
    hw_of ("H100-SXM", &hw);
    off = hw;
    off.nvls_share = 0;
    double small = 1 * MIB, big = 2 * MIB;
    assert_true (gp_train_allreduce_up_s (&hw, small, 8)
                 == gp_train_allreduce_up_s (&off, small, 8));
    assert_true (gp_train_allreduce_up_s (&hw, big, 8)
                 < gp_train_allreduce_up_s (&off, big, 8));
    double S = 1024 * MIB;
    assert_true (gp_train_allreduce_up_s (&hw, S, 4)
                 == gp_train_allreduce_up_s (&off, S, 4));
    assert_true (gp_train_allreduce_up_s (&hw, S, 5)
                 < gp_train_allreduce_up_s (&off, S, 5));
}

/* IB SHARP by hand, H100 (400 Gb/s = 50 GB/s NIC, hopper scale_out 0.9,
 * 5 us per hop), 1 GB over 8 nodes, one rank each:
 *   ring  = 2*7/8 * 1e9 / (50e9*0.9) + min(2*7, 2*3)*5e-6 = 0.0389189 s
 *   SHARP = 1e9 / (50e9*0.8) + 2*3*5e-6                   = 0.0250300 s
 * with 8 ranks per node over 4 nodes NVLink caps SHARP (8 x 50e9 x 0.8
 * = 320e9 B/s of NICs): with NVLS at its algorithm bandwidth 0.74 x
 * 450e9 x 0.8 = 266.4e9 B/s:
 *   SHARP = 1e9 / 266.4e9 + 2*2*5e-6 = 0.0037738 s;
 * without NVLS at half the scale-up bus bandwidth, 180e9 B/s:
 *   SHARP = 1e9 / 180e9 + 2*2*5e-6 = 0.0055756 s,
 * slower than the ring over 8 NICs (bus bandwidth min(8*50e9*0.9,
 * 450e9*0.8) = 360e9):
 *   ring  = 2*31/32 * 1e9 / 360e9 + min(2*31, 2*5)*5e-6 = 0.0054319 s,
 * so the ring stays (NVLink, not the NIC, is the limit: NVIDIA/nccl #320).
 */
static void test_ib_sharp_by_hand (void **state)
{
    (void)state;
    struct gp_train_hw hw;
    hw_of ("H100-SXM", &hw);
    assert_true (hw.sharp_share == 0); /* the fabric is not known */
    assert_true (fabs (gp_train_allreduce_out_s (&hw, 1e9, 8, 1) - 0.0389189)
                 < 1e-6);
    hw.sharp_share = 0.8;
    assert_true (fabs (gp_train_allreduce_out_s (&hw, 1e9, 8, 1) - 0.0250300)
                 < 1e-6);
    assert_true (fabs (gp_train_allreduce_out_s (&hw, 1e9, 4, 8) - 0.0037738)
                 < 1e-6);
    struct gp_train_hw nv = hw;
    nv.nvls_share = 0;
    assert_true (fabs (gp_train_allreduce_out_s (&nv, 1e9, 4, 8) - 0.0054319)
                 < 1e-6);
    /* 2 ranks per node: SHARP 1e9 / (2*50e9*0.8) + 2*3*5e-6 = 0.01253 s
     * against the ring 2*15/16 * 1e9 / (2*50e9*0.9) + 2*4*5e-6 = 0.0208733
     */
    assert_true (fabs (gp_train_allreduce_out_s (&hw, 1e9, 8, 2) - 0.01253)
                 < 1e-6);
    /* one node: nothing crosses the switch, SHARP takes no part */
    struct gp_train_hw no = hw;
    no.sharp_share = 0;
    assert_true (gp_train_allreduce_out_s (&hw, 1e9, 1, 8)
                 == gp_train_allreduce_out_s (&no, 1e9, 1, 8));
}

/* A 70B layout on H100 with DP over InfiniBand (tp8 pp4 dp8, gradients
 * all-reduced, one DP rank per node): SHARP lowers the step, by the DP
 * term only.
 */
static void test_train_70b_dp_over_ib (void **state)
{
    (void)state;
    struct gp_arch a;
    memset (&a, 0, sizeof a);
    snprintf (a.id, sizeof a.id, "llama-70b-like");
    a.layers = 80, a.hidden = 8192, a.ffn_hidden = 28672, a.heads = 64;
    a.kv_heads = 8, a.head_dim = 128, a.vocab = 128256;
    a.mlp = GP_MLP_SWIGLU, a.attention = GP_ATTN_GQA;
    struct gp_train_model m;
    assert_int_equal (gp_train_prep (&a, &m, NULL), 0);
    struct gp_train_job job;
    gp_train_job_default (&job);
    job.global_batch = 64;
    struct gp_layout l = {8, 4, 8, 1, 1, 1, 1, 1, GP_RECOMP_SELECTIVE,
                          GP_SHARD_NONE, GP_SCHED_1F1B, 0, 0};
    struct gp_train_hw hw, ib;
    hw_of ("H100-SXM", &hw);
    ib = hw;
    ib.sharp_share = 0.8;
    struct gp_train_time t0, t1;
    gp_train_time (&m, &job, &hw, &l, &t0);
    gp_train_time (&m, &job, &ib, &l, &t1);
    assert_true (t1.step_s < t0.step_s);
    assert_true (t1.dp_comm_s < t0.dp_comm_s);
    assert_true (fabs ((t0.step_s - t1.step_s)
                       - (t0.dp_comm_s - t1.dp_comm_s)) < 1e-9);
    assert_true (t1.gemm_s == t0.gemm_s && t1.tp_comm_s == t0.tp_comm_s);
    /* a distributed optimizer reduce-scatters: no gain */
    l.sharding = GP_SHARD_ZERO1;
    gp_train_time (&m, &job, &hw, &l, &t0);
    gp_train_time (&m, &job, &ib, &l, &t1);
    assert_true (t1.step_s == t0.step_s);
}

/* The request: IB SHARP on a Quantum switch, never on Ethernet (RoCE);
 * sharp off turns both off; an unknown switch is an error.
 */
static void test_request_fabric (void **state)
{
    (void)state;
    struct gp_train_request rq;
    gp_train_request_init (&rq);
    rq.model = "llama3-8b";
    rq.gpus = 64;
    struct gp_train_plan_result *r = NULL;
    rq.ib_switch = "qm9700";
    assert_int_equal (gp_train_plan (cat, &rq, &r, NULL), 0);
    assert_true (r->accels[0].hw.sharp_share == 0.8);
    assert_true (r->accels[0].innet_sharp && r->accels[0].innet_nvls);
    gp_train_plan_result_destroy (r);
    rq.ib_switch = "spectrum4";
    assert_int_equal (gp_train_plan (cat, &rq, &r, NULL), 0);
    assert_true (r->accels[0].hw.sharp_share == 0);
    assert_false (r->accels[0].innet_sharp);
    gp_train_plan_result_destroy (r);
    rq.ib_switch = "qm9700";
    rq.sharp = 0;
    assert_int_equal (gp_train_plan (cat, &rq, &r, NULL), 0);
    assert_true (r->accels[0].hw.sharp_share == 0
                 && r->accels[0].hw.nvls_share == 0);
    assert_true (r->sharp_off);
    assert_true (r->accels[0].step_s_without
                 == r->accels[0].top[0].time.step_s);
    gp_train_plan_result_destroy (r);
    rq.sharp = -1;
    rq.ib_switch = "no-such-switch";
    gp_error_t err = {0};
    assert_int_equal (gp_train_plan (cat, &rq, &r, &err), GP_ENOTFOUND);
    assert_non_null (strstr (err.text, "no-such-switch"));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_nvls_busbw_h100),
        cmocka_unit_test (test_nvls_range),
        cmocka_unit_test (test_ib_sharp_by_hand),
        cmocka_unit_test (test_train_70b_dp_over_ib),
        cmocka_unit_test (test_request_fabric),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
