/* test_infer_prune.c - the serving search's bound (docs/model/inference.md,
 * "Serving search"): a layout whose lower bound on nodes at the peak
 * (the replicas at 0.98 x its saturation rate) exceeds the nodes of a
 * feasible layout is not sized further, and the layouts are sized in
 * bound order.  The chosen option must be the one the full search
 * chooses, bit for bit.
 *
 * The reference is the same search with every layout sized in full
 * (gp__infer_choose_prune with prune 0).  Cases: the plan's ranking by
 * whole GPUs and by 8-GPU nodes, MIG slices, FP8 and TensorRT-LLM, a MoE
 * model (two expert layouts per tp), a model that needs pipelines of
 * full nodes (the second pass), a PCIe part with in-node pipelines, an
 * AMD part, a peak one replica carries (equal bounds: ties), no headroom,
 * and SLOs nothing meets.  The tolerance is zero.  A last check: the
 * bound never exceeds the replicas the sizing finds.
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

#include "gpuplan/infer.h"
#include "infer/infer_private.h"

#include "zoo_cat_fixture.h"

struct prune_case {
    const char *model, *gpu;
    enum gp_dtype w;
    enum gp_engine eng;
    double in, out;
    double ttft_p99, tpot_p95; /* seconds, 0 = none */
    double peak, trough, headroom;
    int per_node, mig;
};

static void cfg_for (const struct prune_case *k, struct gp_serve_cfg *c)
{
    memset (c, 0, sizeof *c);
    c->arch = gp_zoo_find (zoo, k->model, NULL);
    c->accel = gp_catalog_find_accel (cat, k->gpu, NULL);
    assert_non_null (c->arch);
    assert_non_null (c->accel);
    c->weight_dtype = k->w;
    c->kv_dtype = k->w == GP_DT_FP8 ? GP_DT_FP8 : GP_DT_BF16;
    gp_engine_defaults (k->eng, &c->eng);
}

static void same_bits (double a, double b, const char *what)
{
    if (memcmp (&a, &b, sizeof a) != 0)
        fail_msg ("%s: %.17g (pruned) != %.17g (full)", what, a, b);
}

static void same_sim (const struct gp_sim_result *a,
                      const struct gp_sim_result *b)
{
    assert_int_equal (a->n_done, b->n_done);
    same_bits (a->makespan_s, b->makespan_s, "at_peak.makespan_s");
    same_bits (a->out_tok_s, b->out_tok_s, "at_peak.out_tok_s");
    same_bits (a->req_s, b->req_s, "at_peak.req_s");
    same_bits (a->ttft_mean_s, b->ttft_mean_s, "at_peak.ttft_mean_s");
    same_bits (a->ttft_p95_s, b->ttft_p95_s, "at_peak.ttft_p95_s");
    same_bits (a->ttft_p99_s, b->ttft_p99_s, "at_peak.ttft_p99_s");
    same_bits (a->tpot_p95_s, b->tpot_p95_s, "at_peak.tpot_p95_s");
    same_bits (a->e2e_p95_s, b->e2e_p95_s, "at_peak.e2e_p95_s");
    same_bits (a->mean_batch, b->mean_batch, "at_peak.mean_batch");
    same_bits (a->kv_peak_frac, b->kv_peak_frac, "at_peak.kv_peak_frac");
    assert_int_equal (a->max_batch_seen, b->max_batch_seen);
    assert_int_equal (a->n_preempted, b->n_preempted);
    assert_int_equal (a->unstable, b->unstable);
}

static void same_option (const struct gp_infer_option *a,
                         const struct gp_infer_option *b)
{
    assert_int_equal (a->feasible, b->feasible);
    assert_string_equal (a->reason, b->reason);
    assert_int_equal (a->limit, b->limit);
    assert_string_equal (a->slice, b->slice);
    assert_int_equal (a->slices_per_gpu, b->slices_per_gpu);
    assert_int_equal (a->tp, b->tp);
    assert_int_equal (a->pp, b->pp);
    assert_int_equal (a->ep, b->ep);
    assert_int_equal (a->gpus_per_replica, b->gpus_per_replica);
    assert_int_equal (a->gpus_whole, b->gpus_whole);
    assert_int_equal (a->layouts_tried, b->layouts_tried);
    same_bits (a->gpus, b->gpus, "gpus");
    same_bits (a->gpu_share, b->gpu_share, "gpu_share");
    assert_int_equal (a->size.feasible, b->size.feasible);
    assert_int_equal (a->size.replicas, b->size.replicas);
    assert_int_equal (a->size.replicas_min, b->size.replicas_min);
    assert_int_equal (a->size.limit_kind, b->size.limit_kind);
    assert_int_equal (a->size.light_load_miss, b->size.light_load_miss);
    assert_string_equal (a->size.limit, b->size.limit);
    same_bits (a->size.rate_per_replica, b->size.rate_per_replica,
               "rate_per_replica");
    same_bits (a->size.max_rate_per_replica, b->size.max_rate_per_replica,
               "max_rate_per_replica");
    same_bits (a->model.kv_capacity_tokens, b->model.kv_capacity_tokens,
               "kv_capacity_tokens");
    same_sim (&a->size.at_peak, &b->size.at_peak);
}

static const struct prune_case cases[] = {
    /* the enterprise example's service, ranked as the plan ranks it */
    {"llama3.1-70b", "H100-SXM", GP_DT_BF16, GP_ENGINE_VLLM, 2000, 400, 0.8,
     0.06, 840, 100, 0.2, 0, 0},
    {"llama3.1-70b", "H100-SXM", GP_DT_BF16, GP_ENGINE_VLLM, 2000, 400, 0.8,
     0.06, 840, 100, 0.2, 8, 0},
    {"llama3.1-70b", "B200", GP_DT_FP8, GP_ENGINE_TRTLLM, 2000, 400, 0.8,
     0.06, 840, 100, 0.2, 0, 0},
    {"llama3.1-8b", "A100-SXM-80GB", GP_DT_BF16, GP_ENGINE_VLLM, 1000, 200,
     1.0, 0.05, 30, 5, 0.2, 8, 1},
    {"llama3.1-8b", "H100-SXM", GP_DT_FP8, GP_ENGINE_TRTLLM, 500, 200, 0.5,
     0.03, 200, 20, 0.1, 0, 1},
    {"mixtral-8x7b", "H100-SXM", GP_DT_BF16, GP_ENGINE_VLLM, 1000, 200, 1.0,
     0.05, 60, 10, 0.2, 8, 0},
    {"llama3.1-405b", "H100-SXM", GP_DT_BF16, GP_ENGINE_VLLM, 1000, 100, 3.0,
     0.2, 4, 1, 0.2, 8, 0},
    {"llama3.1-8b", "L4", GP_DT_BF16, GP_ENGINE_VLLM, 500, 100, 2.0, 0.1, 20,
     2, 0.2, 8, 0},
    {"llama3.1-70b", "MI300X", GP_DT_BF16, GP_ENGINE_VLLM, 1000, 200, 1.0,
     0.08, 100, 10, 0.2, 8, 0},
    /* one replica carries the peak on every layout: equal bounds, ties */
    {"llama3.1-8b", "H100-SXM", GP_DT_BF16, GP_ENGINE_VLLM, 500, 100, 1.0,
     0.05, 0.05, 0.01, 0.2, 0, 0},
    {"llama3.1-70b", "H200-SXM", GP_DT_BF16, GP_ENGINE_VLLM, 2000, 400, 0.8,
     0.06, 300, 50, 0.0, 0, 0},
    /* SLOs no layout meets */
    {"llama3.1-70b", "H100-SXM", GP_DT_BF16, GP_ENGINE_VLLM, 2000, 400, 0.01,
     0.001, 100, 10, 0.2, 0, 0},
};

static void test_pruned_equals_full (void **state)
{
    (void)state;
    int pruned_total = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct prune_case *k = &cases[i];
        struct gp_serve_cfg c;
        cfg_for (k, &c);
        struct gp_workload w;
        memset (&w, 0, sizeof w);
        w.in_len = k->in;
        w.out_len = k->out;
        w.seed = 1;
        struct gp_slo slo = {0};
        slo.ttft_p99_s = k->ttft_p99;
        slo.tpot_p95_s = k->tpot_p95;
        struct gp_infer_option a, b;
        gp_error_t e = {0};
        int n_pruned = -1, n_full = -1;
        print_message ("case %zu: %s on %s\n", i, k->model, k->gpu);
        assert_int_equal (gp__infer_choose_prune (&c, cat, k->mig, &w, &slo,
                                                  k->peak, k->trough,
                                                  k->headroom, k->per_node,
                                                  1, &n_pruned, &a, &e),
                          0);
        assert_int_equal (gp__infer_choose_prune (&c, cat, k->mig, &w, &slo,
                                                  k->peak, k->trough,
                                                  k->headroom, k->per_node,
                                                  0, &n_full, &b, &e),
                          0);
        assert_int_equal (n_full, 0);
        same_option (&a, &b);
        pruned_total += n_pruned;
        print_message ("  %s tp%d pp%d ep%d %s, %d of %d layouts pruned\n",
                       a.feasible ? "feasible" : "infeasible", a.tp, a.pp,
                       a.ep, a.slice, n_pruned, a.layouts_tried);
        /* the public call is the pruned search */
        struct gp_infer_option p;
        assert_int_equal (gp_infer_choose_on (&c, cat, k->mig, &w, &slo,
                                              k->peak, k->trough, k->headroom,
                                              k->per_node, &p, &e),
                          0);
        same_option (&p, &a);
    }
    /* the cases exercise the bound (the plan's case prunes two of its
     * three layouts on H100) */
    assert_true (pruned_total >= 5);
}

/* The bound is below the replicas the sizing finds, on every layout. */
static void test_bound_below_replicas (void **state)
{
    (void)state;
    static const int tps[] = {1, 2, 4, 8};
    static const double peaks[] = {0.05, 3, 840};
    for (size_t t = 0; t < 4; t++) {
        struct prune_case k = cases[0];
        struct gp_serve_cfg c;
        k.model = "llama3.1-8b";
        cfg_for (&k, &c);
        c.tp = tps[t];
        c.pp = 1;
        struct gp_serve_model m;
        gp_error_t e = {0};
        assert_int_equal (gp_infer_prepare (&c, 2400, &m, &e), 0);
        struct gp_workload w;
        memset (&w, 0, sizeof w);
        w.in_len = 2000;
        w.out_len = 400;
        w.seed = 1;
        for (size_t p = 0; p < 3; p++) {
            struct gp_slo slo = {0};
            slo.ttft_p99_s = 0.8;
            slo.tpot_p95_s = 0.03;
            struct gp_size_result r;
            assert_int_equal (gp_infer_size (&m, &w, &slo, peaks[p], 1, 0.2,
                                             &r, &e),
                              0);
            if (!r.feasible)
                continue;
            int lb = gp__infer_replicas_bound (&r, peaks[p], 0.2);
            assert_true (lb >= 1);
            assert_true (lb <= r.replicas);
        }
    }
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_pruned_equals_full),
        cmocka_unit_test (test_bound_below_replicas),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
