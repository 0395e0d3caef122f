/* test_train_tpu.c - host-offloaded remat checkpoints and the XLA loss
 * phase (docs/model/training.md, "Host-offloaded remat checkpoints" and
 * "Logits under XLA"), the MaxText Trillium recipe mechanisms, against
 * hand-computed values for Llama 3.1 8B (h 4096, 32 heads, 8 KV heads of
 * 128, vocab 128,256, 32 layers) on TPU v6e: 3 sequences of 8,192 tokens
 * per chip (24,576 tokens), FSDP over 8 chips, recompute full.
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

#include "gpuplan/arch.h"
#include "gpuplan/catalog.h"
#include "gpuplan/train.h"
#include "model/train_private.h"

static struct gp_catalog *cat;
static struct gp_zoo *zoo;

static int setup (void **state)
{
    (void)state;
    cat = gp_catalog_load (NULL, NULL);
    zoo = gp_zoo_load (NULL, NULL);
    return cat && zoo ? 0 : -1;
}

static int teardown (void **state)
{
    (void)state;
    gp_catalog_destroy (cat);
    gp_zoo_destroy (zoo);
    return 0;
}

#define TOK 24576.0
/* one layer's input, 16 bit: 24,576 x 4,096 x 2 */
#define INPUT 201326592.0
/* Q (4,096) + K, V (2 x 1,024) + attention output (4,096), 16 bit */
#define PROJ (2.0 * TOK * 10240.0)
#define CKPT (INPUT + PROJ) /* 704,643,072 B */

static void setup_row (struct gp_train_model *m, struct gp_train_job *job,
                       struct gp_train_hw *hw, struct gp_layout *l)
{
    const struct gp_arch *a = gp_zoo_find (zoo, "llama3.1-8b", NULL);
    assert_non_null (a);
    assert_int_equal (gp_train_prep (a, m, NULL), 0);
    gp_train_job_default (job);
    job->seq_len = 8192;
    job->global_batch = 24;
    const struct gp_accel *x = gp_catalog_find_accel (cat, "TPU-V6E", NULL);
    assert_non_null (x);
    gp_train_hw_from_accel (x, GP_PREC_BF16, hw);
    *l = (struct gp_layout){.tp = 1, .pp = 1, .dp = 8, .cp = 1, .ep = 1,
                            .vpp = 1, .micro_batch = 3,
                            .sharding = GP_SHARD_FSDP,
                            .recompute = GP_RECOMP_FULL};
}

/* v6e host link: 32 GB/s per chip (scaling-book) at the offload
 * efficiency 0.8; 1536 GiB per host of 8 chips = 206.2 GB per chip.
 */
static void test_host_link (void **state)
{
    (void)state;
    struct gp_train_model m;
    struct gp_train_job job;
    struct gp_train_hw hw;
    struct gp_layout l;
    setup_row (&m, &job, &hw, &l);
    assert_true (fabs (hw.host_bw - 25.6e9) < 1);
    assert_true (fabs (hw.host_mem_bytes - 206.2e9) < 1e3);
    /* off by default: a GPU job never gets it silently */
    assert_int_equal (job.remat_offload, 0);
    assert_int_equal (job.logits_xla, 0);
}

static void test_checkpoint_memory (void **state)
{
    (void)state;
    struct gp_train_model m;
    struct gp_train_job job;
    struct gp_train_hw hw;
    struct gp_layout l;
    setup_row (&m, &job, &hw, &l);
    assert_true (fabs (gp__remat_ckpt_bytes (&m, &job, &l, INPUT) - CKPT)
                 < 1);
    struct gp_train_mem m0, m1;
    gp_train_memory (&m, &job, &hw, &l, &m0);
    job.remat_offload = 1;
    gp_train_memory (&m, &job, &hw, &l, &m1);
    /* 32 checkpoints in host memory: 22,548,578,304 B */
    assert_true (fabs (m1.offload_host - 32 * CKPT) < 1);
    /* HBM: the 32 stored inputs leave, two checkpoints stay as transfer
     * buffers: 6,442,450,944 - 1,409,286,144 = 5,033,164,800 B less
     */
    assert_true (fabs ((m0.activations - m1.activations) - 5033164800.0)
                 < 1);
    assert_true (m1.fits || m1.total < m0.total);
    /* a host too small for the checkpoints: does not fit */
    hw.host_mem_bytes = 1e9;
    gp_train_memory (&m, &job, &hw, &l, &m1);
    assert_false (m1.fits);
    /* without full recomputation nothing is offloaded */
    setup_row (&m, &job, &hw, &l);
    job.remat_offload = 1;
    l.recompute = GP_RECOMP_NONE;
    gp_train_memory (&m, &job, &hw, &l, &m1);
    assert_true (m1.offload_host == 0);
}

static void test_checkpoint_rules (void **state)
{
    (void)state;
    struct gp_train_model m;
    struct gp_train_job job;
    struct gp_train_hw hw;
    struct gp_layout l;
    setup_row (&m, &job, &hw, &l);
    job.remat_offload = 1;
    gp_error_t err = {0};
    assert_int_equal (gp_train_check (&m, &job, &l, &err), 0);
    l.recompute_layers = 3; /* partial recomputation: refused */
    assert_int_not_equal (gp_train_check (&m, &job, &l, &err), 0);
    l.recompute_layers = 0;
    l.pp = 2, l.dp = 4;
    assert_int_not_equal (gp_train_check (&m, &job, &l, &err), 0);
}

/* copies: 704,643,072 B per layer each way; over a link 1e6 x slower
 * they dominate: 2 x 32 x CKPT / bw for the one micro-batch
 */
static void test_checkpoint_time (void **state)
{
    (void)state;
    struct gp_train_model m;
    struct gp_train_job job;
    struct gp_train_hw hw;
    struct gp_layout l;
    setup_row (&m, &job, &hw, &l);
    struct gp_train_time t0, t1;
    gp_train_time (&m, &job, &hw, &l, &t0);
    assert_true (t0.offload_s == 0);
    job.remat_offload = 1;
    hw.host_bw = 25.6e3;
    gp_train_time (&m, &job, &hw, &l, &t1);
    double want = 2 * 32 * CKPT / 25.6e3;
    assert_true (t1.offload_s < want && t1.offload_s > 0.999 * want);
    hw.host_bw = 1e30;
    gp_train_time (&m, &job, &hw, &l, &t1);
    assert_true (t1.offload_s == 0);
}

/* loss phase: 2 + 2 B x 24,576 x 128,256 = 12,608,077,824 B, less what
 * only the layer phase holds
 */
static void test_logits_xla (void **state)
{
    (void)state;
    struct gp_train_model m;
    struct gp_train_job job;
    struct gp_train_hw hw;
    struct gp_layout l;
    setup_row (&m, &job, &hw, &l);
    assert_true (fabs (gp__logits_xla (&m, &l, TOK, 1e9) - 11608077824.0)
                 < 1);
    assert_true (gp__logits_xla (&m, &l, TOK, 2e10) == 0);
    l.tp = 2;
    assert_true (fabs (gp__logits_xla (&m, &l, TOK, 0) - 6304038912.0) < 1);
    l.tp = 1;
    /* the default keeps fp32 logits and gradient: 8 B per element */
    struct gp_train_mem a, b;
    gp_train_memory (&m, &job, &hw, &l, &a);
    assert_true (fabs (a.logits - 25216155648.0) < 1);
    job.logits_xla = 1;
    gp_train_memory (&m, &job, &hw, &l, &b);
    assert_true (b.logits < 12608077824.0 && b.logits >= 0);
    assert_true (a.total - b.total > 12608077824.0);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_host_link),
        cmocka_unit_test (test_checkpoint_memory),
        cmocka_unit_test (test_checkpoint_rules),
        cmocka_unit_test (test_checkpoint_time),
        cmocka_unit_test (test_logits_xla),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
