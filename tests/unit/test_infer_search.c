/* test_infer_search.c - the serving search of gp_infer_plan: the layout
 * (TP 1/2/4/8, MIG slices) is the cheapest per 1M output tokens, peak and
 * trough are priced on one basis, and the free search is never dearer
 * than the best layout a user forces with --tp.
 *
 * Hand-computed references (data/catalog/instances.csv, mig_profiles.csv):
 *   B200 is priced from aws p6-b200.48xlarge: $113.9328 per node-hour for
 *     8 GPUs (the only B200 instance with an on-demand price).
 *   A replica of tp GPUs (tp <= 8): GPUs = replicas x tp, packed onto
 *     8-GPU nodes: nodes = ceil(GPUs / 8); $/h = nodes x $113.9328.
 *   Cost per 1M output tokens at the peak = $/h / (rps x output tokens x
 *     3600 s) x 1e6.
 *   Replicas at a rate R: ceil(R / ((1 - headroom) x rate per replica)).
 *   A MIG slice with n instances per GPU: k replicas occupy ceil(k / n)
 *     whole GPUs, at the peak and at the trough alike.
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

static struct gp_catalog *cat;

static int setup (void **state)
{
    (void)state;
    gp_error_t err = {0};
    cat = gp_catalog_load (NULL, &err);
    return cat ? 0 : -1;
}

static int teardown (void **state)
{
    (void)state;
    gp_catalog_destroy (cat);
    return 0;
}

static int ceil_div (int a, int b)
{
    return (a + b - 1) / b;
}

/* Llama 3.1 70B chat: 40 req/s at the peak, 6 at the trough, 2000 in /
 * 400 out tokens, TTFT p95 1 s, TPOT p95 50 ms, headroom 20 %, MIG
 * allowed (the request of the finding: a 70B on B200 went to MIG slices).
 */
static void chat_request (struct gp_infer_request *rq, const char *gpu,
                          const char *precisions)
{
    gp_error_t err = {0};
    gp_infer_request_defaults (rq);
    snprintf (rq->model, sizeof rq->model, "llama3.1-70b");
    assert_int_equal (gp_infer_request_set_accels (rq, gpu, &err), 0);
    assert_int_equal (gp_infer_request_set_precisions (rq, precisions, &err),
                      0);
    rq->rps_peak = 40;
    rq->rps_trough = 6;
    rq->prompt = 2000;
    rq->output = 400;
    rq->slo.ttft_p95_s = 1.0;
    rq->slo.tpot_p95_s = 0.050;
}

/* $ per 1M output tokens at the peak of the recommended option; -1 when
 * nothing is feasible.
 */
static double plan_cost (const struct gp_infer_request *rq,
                         struct gp_infer_plan_option *rec)
{
    struct gp_infer_plan_result *r = NULL;
    gp_error_t err = {0};
    assert_int_equal (gp_infer_plan (cat, rq, &r, &err), 0);
    double c = -1;
    if (r->recommended >= 0) {
        const struct gp_infer_plan_option *x = &r->options[r->recommended];
        assert_int_equal (r->choice, GP_INFER_CHOICE_CHEAPEST_PRICED);
        c = x->usd_per_1m_output_tokens;
        if (rec) {
            *rec = *x;
            rec->fleet_replicas = NULL;
        }
    }
    gp_infer_plan_destroy (r);
    return c;
}

/* For each GPU and precision list: the free search is within 2 % of the
 * best of --tp 1, 2, 4, 8 forced (it searches a superset of those
 * layouts, so it should equal the best).
 */
static void free_vs_forced (const char *gpu, const char *precisions)
{
    struct gp_infer_request rq;
    chat_request (&rq, gpu, precisions);
    struct gp_infer_plan_option rec;
    double free_cost = plan_cost (&rq, &rec);
    assert_true (free_cost > 0);
    double best = 1e300;
    static const int tps[] = {1, 2, 4, 8};
    for (size_t i = 0; i < 4; i++) {
        chat_request (&rq, gpu, precisions);
        rq.tp = tps[i];
        double c = plan_cost (&rq, NULL);
        if (c > 0 && c < best)
            best = c;
    }
    assert_true (best < 1e300);
    if (!(free_cost <= 1.02 * best))
        fail_msg ("%s %s: free search $%.3f/1M > 1.02 x best forced $%.3f",
                  gpu, precisions, free_cost, best);
}

static void test_free_within_2pct_b200 (void **state)
{
    (void)state;
    free_vs_forced ("B200", "bf16");
    free_vs_forced ("B200", "fp8,bf16");
}

static void test_free_within_2pct_h100 (void **state)
{
    (void)state;
    free_vs_forced ("H100-SXM", "bf16");
    free_vs_forced ("H100-SXM", "fp8,bf16");
}

/* The B200 case by hand: whole GPUs (a MIG slice of a 70B model costs
 * more nodes), the cost from the replicas, the nodes and the node price,
 * and the trough on the same basis.
 */
static void test_b200_by_hand (void **state)
{
    (void)state;
    struct gp_infer_request rq;
    chat_request (&rq, "B200", "fp8");
    struct gp_infer_plan_result *r = NULL;
    gp_error_t err = {0};
    assert_int_equal (gp_infer_plan (cat, &rq, &r, &err), 0);
    assert_int_equal (r->recommended, 0);
    const struct gp_infer_plan_option *x = &r->options[0];
    const struct gp_infer_option *o = &x->opt;
    assert_true (o->feasible);
    assert_int_equal (x->layout_rule, GP_INFER_LAYOUT_CHEAPEST);
    assert_string_equal (o->slice, "");
    assert_int_equal (o->pp, 1);
    assert_true (o->tp >= 1 && o->tp <= 8);
    assert_int_equal (x->gpus_per_node, 8);
    double node = 113.9328;
    assert_true (fabs (x->price.usd_per_node_hour - node) < 1e-9);
    /* replicas from the replica's rate with 20 % headroom */
    double usable = 0.8 * o->size.rate_per_replica;
    int reps = (int)ceil (40.0 / usable - 1e-9);
    int reps_min = (int)ceil (6.0 / usable - 1e-9);
    assert_int_equal (o->size.replicas, reps);
    assert_int_equal (o->size.replicas_min, reps_min);
    int nodes = ceil_div (reps * o->tp, 8);
    int nodes_min = ceil_div (reps_min * o->tp, 8);
    assert_int_equal (x->nodes, nodes);
    assert_int_equal (x->nodes_trough, nodes_min);
    assert_true (fabs (x->usd_per_hour - nodes * node) < 1e-6);
    assert_true (fabs (x->usd_per_hour_trough - nodes_min * node) < 1e-6);
    double per_1m = nodes * node / (40.0 * 400 * 3600) * 1e6;
    assert_true (fabs (x->usd_per_1m_output_tokens - per_1m) < 1e-9);
    /* Every forced TP costs at least as many nodes at the peak: the
     * best of them is 2 nodes (tp1/tp2/tp4 fit 16 GPUs), $3.956 per 1M.
     */
    assert_int_equal (nodes, 2);
    assert_true (fabs (per_1m - 2 * 113.9328 / 57.6) < 1e-9);
    /* the day: 12 h at the peak, 12 h at the trough, whole nodes */
    assert_int_equal (x->fleet.n_periods, 2);
    double day = 12 * node * (nodes + nodes_min);
    assert_true (fabs (x->fleet.usd_per_day - day) < 1e-6);
    assert_true (fabs (x->fleet.gpu_hours_per_day
                       - 12.0 * o->tp * (reps + reps_min)) < 1e-9);
    gp_infer_plan_destroy (r);
}

/* A MIG slice is charged as the whole GPUs its replicas occupy, at the
 * peak, at the trough and over the day: Llama 3.2 1B at 2 req/s on
 * A100-SXM-80GB.
 */
static void test_mig_same_basis (void **state)
{
    (void)state;
    struct gp_infer_request rq;
    gp_error_t err = {0};
    gp_infer_request_defaults (&rq);
    snprintf (rq.model, sizeof rq.model, "llama3.2-1b");
    assert_int_equal (gp_infer_request_set_accels (&rq, "A100-SXM-80GB",
                                                   &err), 0);
    rq.rps_peak = 20;
    rq.rps_trough = 2;
    rq.prompt = 500;
    rq.output = 150;
    rq.slo.ttft_p95_s = 0.5;
    rq.slo.tpot_p95_s = 0.040;
    struct gp_infer_plan_result *r = NULL;
    assert_int_equal (gp_infer_plan (cat, &rq, &r, &err), 0);
    const struct gp_infer_plan_option *x = &r->options[0];
    const struct gp_infer_option *o = &x->opt;
    assert_true (o->feasible);
    int per_gpu = o->slice[0] ? o->slices_per_gpu : 0;
    int gpus = per_gpu ? ceil_div (o->size.replicas, per_gpu)
                       : o->size.replicas * o->gpus_per_replica;
    int gpus_min = per_gpu ? ceil_div (o->size.replicas_min, per_gpu)
                           : o->size.replicas_min * o->gpus_per_replica;
    assert_int_equal (o->gpus_whole, gpus);
    assert_int_equal (gp_infer_option_gpus (o, o->size.replicas), gpus);
    int gpn = x->gpus_per_node;
    assert_int_equal (x->nodes, ceil_div (gpus, gpn));
    assert_int_equal (x->nodes_trough, ceil_div (gpus_min, gpn));
    if (x->price.inst)
        assert_true (fabs (x->usd_per_hour_trough
                           - x->nodes_trough * x->price.usd_per_node_hour)
                     < 1e-6);
    assert_true (fabs (x->fleet.gpu_hours_per_day - 12.0 * (gpus + gpus_min))
                 < 1e-9);
    /* the helpers by hand: 9 slices of a 7-per-GPU profile take 2 GPUs */
    struct gp_infer_option s;
    memset (&s, 0, sizeof s);
    snprintf (s.slice, sizeof s.slice, "1g.10gb");
    s.slices_per_gpu = 7;
    assert_int_equal (gp_infer_option_gpus (&s, 9), 2);
    assert_int_equal (gp_infer_option_nodes (&s, 9, 8), 1);
    assert_int_equal (gp_infer_option_nodes (&s, 57, 8), 2);
    struct gp_infer_option t;
    memset (&t, 0, sizeof t);
    t.gpus_per_replica = 16;
    assert_int_equal (gp_infer_option_gpus (&t, 3), 48);
    assert_int_equal (gp_infer_option_nodes (&t, 3, 8), 6);
    assert_int_equal (gp_infer_option_nodes (&t, 3, 0), 48);
    gp_infer_plan_destroy (r);
}

/* An unpriced accelerator: the layout is the fewest whole GPUs, and the
 * plan says so.
 */
static void test_unpriced_fewest_gpus (void **state)
{
    (void)state;
    struct gp_infer_request rq;
    chat_request (&rq, "MI300X", "fp8");
    struct gp_infer_plan_result *r = NULL;
    gp_error_t err = {0};
    assert_int_equal (gp_infer_plan (cat, &rq, &r, &err), 0);
    const struct gp_infer_plan_option *x = &r->options[0];
    assert_int_equal (x->price_status, GP_INFER_UNPRICED);
    assert_int_equal (x->layout_rule, GP_INFER_LAYOUT_FEWEST_GPUS);
    assert_string_equal (gp_infer_layout_rule_str (x->layout_rule),
                         "fewest_gpus");
    assert_int_equal (r->choice, GP_INFER_CHOICE_FEWEST_GPUS);
    int whole = x->opt.gpus_whole;
    gp_infer_plan_destroy (r);
    static const int tps[] = {1, 2, 4, 8};
    for (size_t i = 0; i < 4; i++) {
        chat_request (&rq, "MI300X", "fp8");
        rq.tp = tps[i];
        assert_int_equal (gp_infer_plan (cat, &rq, &r, &err), 0);
        if (r->options[0].opt.feasible)
            assert_true (whole <= r->options[0].opt.gpus_whole);
        gp_infer_plan_destroy (r);
    }
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_b200_by_hand),
        cmocka_unit_test (test_mig_same_basis),
        cmocka_unit_test (test_unpriced_fewest_gpus),
        cmocka_unit_test (test_free_within_2pct_b200),
        cmocka_unit_test (test_free_within_2pct_h100),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
