/* test_train_moe_route.c - group-limited routing (DeepSeek-V3 node-limited
 * routing; Megatron-Core --moe-router-num-groups / --moe-router-group-topk)
 * in the DeepEP/HybridEP all-to-all volume of train_moe.c, and its check.
 *
 * Expected values are hand calculations from the formulas of
 * docs/model/training.md ("MoE: group-limited routing").
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "gpuplan/catalog.h"
#include "gpuplan/validate.h"

#include "gpuplan/arch.h"
#include "gpuplan/train.h"
#include "model/train_private.h"

static void near (double got, double want, double rel)
{
    if (fabs (got - want) > rel * fabs (want)) {
        print_error ("got %.9g want %.9g (tolerance %.2g %%)\n", got, want,
                     rel * 100);
        fail ();
    }
}

/* 16 experts top-4, h 1024 (2,048 bytes per token copy), every layer MoE */
static void model16 (struct gp_train_model *m)
{
    struct gp_arch x;
    memset (&x, 0, sizeof x);
    snprintf (x.id, sizeof x.id, "moe-route-test");
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

/* EP 8 (2 experts per rank) over two 4-GPU domains (8 experts each),
 * 1,000 tokens routed per GPU.
 * Without groups (flex dispatch): a rank is reached with 1 - C(14,4)/C(16,4)
 * = 1 - 1001/1820 = 0.45; a remote domain with 1 - (1/2)^4 = 0.9375:
 *   nv = 1000 * 2048 * 0.45 * (3 + 4) = 6,451,200 B,
 *   ib = 1000 * 2048 * 1 * 0.9375 = 1,920,000 B.
 * With 4 groups of 4 experts, 2 picked, 2 experts in each: a rank (2
 * experts, inside one group) with (2/4) * (1 - C(2,2)/C(4,2)) = 0.5 * 5/6
 * = 0.416667; a domain (8 experts = 2 whole groups) with 1 - C(2,2)/C(4,2)
 * = 5/6:
 *   nv = 1000 * 2048 * 0.416667 * 7 = 5,973,333.3 B,
 *   ib = 1000 * 2048 * 0.833333 = 1,706,666.7 B.
 * The NCCL all-to-all sends one copy per token and expert either way.
 */
static void test_route_bytes (void **state)
{
    (void)state;
    struct gp_train_model m;
    model16 (&m);
    struct gp_train_job j;
    gp_train_job_default (&j);
    double nv, ib;
    gp__moe_a2a_bytes (&m, &j, 1000, 8, 4, 2, &nv, &ib);
    near (nv, 6451200.0, 1e-12);
    near (ib, 1920000.0, 1e-12);
    j.moe_groups = 4;
    j.moe_group_topk = 2;
    gp__moe_a2a_bytes (&m, &j, 1000, 8, 4, 2, &nv, &ib);
    near (nv, 1000 * 2048 * (5.0 / 12) * 7, 1e-12);
    near (ib, 1000 * 2048 * (5.0 / 6), 1e-12);
    /* one rank = one group (EP 4: 4 experts per rank), one domain: a rank
     * is reached exactly when its group is picked, 2/4
     */
    gp__moe_a2a_bytes (&m, &j, 1000, 4, 4, 1, &nv, &ib);
    near (nv, 1000 * 2048 * 0.5 * 3, 1e-12);
    assert_true (ib == 0);
    double nv2, ib2;
    j.moe_a2a_nccl = 1;
    gp__moe_a2a_bytes (&m, &j, 1000, 8, 4, 2, &nv, &ib);
    j.moe_groups = j.moe_group_topk = 0;
    gp__moe_a2a_bytes (&m, &j, 1000, 8, 4, 2, &nv2, &ib2);
    assert_true (nv == nv2 && ib == ib2);
}

/* DeepSeek-V3 on 64 EP ranks over 8 nodes (Megatron-Bridge H100 recipe):
 * 8 groups of 32 experts = one node each, 4 picked: 3.5 remote nodes per
 * token (4 * 7/8) instead of 7 * (1 - (7/8)^8) = 4.594 without groups;
 * the per-rank reach is unchanged to 3 digits (1/2 * (1 - C(28,2)/C(32,2))
 * = 0.1190 against 1 - C(252,8)/C(256,8) = 0.1197).
 */
static void test_route_dsv3 (void **state)
{
    (void)state;
    struct gp_arch x;
    memset (&x, 0, sizeof x);
    snprintf (x.id, sizeof x.id, "dsv3-route");
    x.layers = 2;
    x.hidden = 7168;
    x.heads = 8;
    x.kv_heads = 8;
    x.head_dim = 128;
    x.vocab = 32000;
    x.mlp = GP_MLP_SWIGLU;
    x.attention = GP_ATTN_MHA;
    x.moe_experts = 256;
    x.moe_topk = 8;
    x.moe_ffn_hidden = 2048;
    struct gp_train_model m;
    assert_int_equal (gp_train_prep (&x, &m, NULL), 0);
    struct gp_train_job j;
    gp_train_job_default (&j);
    double row = 2.0 * 7168, nv, ib;
    gp__moe_a2a_bytes (&m, &j, 1, 64, 8, 8, &nv, &ib);
    near (ib / row, 7 * (1 - pow (7.0 / 8, 8)), 1e-12);
    j.moe_groups = 8;
    j.moe_group_topk = 4;
    gp__moe_a2a_bytes (&m, &j, 1, 64, 8, 8, &nv, &ib);
    near (ib / row, 3.5, 1e-12);
    near (nv / row, 0.5 * (1 - 378.0 / 496) * 63, 1e-12);
}

static void test_route_check (void **state)
{
    (void)state;
    struct gp_train_model m;
    model16 (&m);
    struct gp_train_job j;
    gp_train_job_default (&j);
    gp_error_t err = {0};
    assert_int_equal (gp__moe_route_check (&m, &j, &err), 0);
    j.moe_groups = 4;
    j.moe_group_topk = 2;
    assert_int_equal (gp__moe_route_check (&m, &j, &err), 0);
    j.moe_groups = 3; /* does not divide 16 experts */
    assert_int_equal (gp__moe_route_check (&m, &j, &err), GP_EINVAL);
    assert_non_null (strstr (err.text, "moe_groups 3"));
    j.moe_groups = 4;
    j.moe_group_topk = 3; /* does not divide top-4 */
    assert_int_equal (gp__moe_route_check (&m, &j, &err), GP_EINVAL);
    j.moe_group_topk = 5; /* more than the groups */
    assert_int_equal (gp__moe_route_check (&m, &j, &err), GP_EINVAL);
    j.moe_group_topk = 0; /* one without the other */
    assert_int_equal (gp__moe_route_check (&m, &j, &err), GP_EINVAL);
    /* gp_train_check refuses it too */
    struct gp_layout l = {.tp = 1, .pp = 1, .dp = 8, .cp = 1, .ep = 8,
                          .vpp = 1, .micro_batch = 1};
    assert_int_equal (gp_train_check (&m, &j, &l, &err), GP_EINVAL);
}

/* The validation CSV columns moe_groups / moe_group_topk: a row whose
 * groups fit its model is modelled, one whose groups do not divide its
 * experts, or that gives one column without the other, is unsupported
 * with the reason.
 */
static void test_route_columns (void **state)
{
    (void)state;
    char path[] = "/tmp/gp_route_XXXXXX";
    int fd = mkstemp (path);
    assert_true (fd >= 0);
    FILE *f = fdopen (fd, "w");
    assert_non_null (f);
    static const char *const hdr
        = "id,kind,layers,hidden,ffn_hidden,heads,kv_heads,vocab,mlp,"
          "moe_experts,moe_topk,moe_ffn_hidden,moe_shared_experts,seq_len,"
          "gpu,num_gpus,gpus_per_node,tp,pp,dp,cp,ep,vpp,sharding,"
          "recompute,micro_batch,global_batch,precision,tokens,"
          "measured_tokens_per_s_per_gpu,measured_gpu_hours,moe_groups,"
          "moe_group_topk\n";
    static const char *const body
        = ",throughput,8,1024,,8,8,32000,swiglu,16,4,512,0,2048,H100-SXM,"
          "8,8,1,1,8,1,8,1,,none,1,64,bf16,,1000,,";
    fputs (hdr, f);
    fprintf (f, "r-ok%s4,2\n", body);
    fprintf (f, "r-bad%s3,2\n", body);
    fprintf (f, "r-half%s4,\n", body);
    fclose (f);
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (NULL, &err);
    assert_non_null (cat);
    struct gp_validate_request rq = {.path = path};
    struct gp_validation *v = NULL;
    assert_int_equal (gp_validate_training (cat, &rq, &v, &err), 0);
    unlink (path);
    assert_int_equal (v->n_rows, 3);
    assert_int_equal (v->rows[0].ok, 1);
    assert_int_equal (v->rows[1].ok, 0);
    assert_non_null (strstr (v->rows[1].reason, "moe_groups 3"));
    assert_int_equal (v->rows[2].ok, 0);
    assert_non_null (strstr (v->rows[2].reason, "go together"));
    gp_validation_destroy (v);
    gp_catalog_destroy (cat);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_route_bytes),
        cmocka_unit_test (test_route_dsv3),
        cmocka_unit_test (test_route_check),
        cmocka_unit_test (test_route_columns),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
