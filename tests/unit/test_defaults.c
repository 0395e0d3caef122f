/* test_defaults.c - one test per shared default: overriding a registry row
 * changes the result of every model that reads it (the training model's
 * reliability block, the plan, the simulator, the inference model's KV
 * dtype), by the amount worked out by hand below.
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
#include "gpuplan/defaults.h"
#include "gpuplan/infer.h"
#include "gpuplan/plan.h"
#include "gpuplan/policy.h"
#include "gpuplan/sim.h"
#include "gpuplan/trace.h"
#include "gpuplan/train.h"

static int near (double a, double b)
{
    return fabs (a - b) <= 1e-9 * fabs (b) + 1e-12;
}
#define NEAR(a, b) assert_true (near ((a), (b)))

/* The Llama 3 rate, 419 interruptions in 54 days on 16,384 GPUs. */
static const double llama3_rate = 419.0 / (54.0 * 24.0 * 16384.0);

/* ------------------------------ train ---------------------------------- */

/* The reliability block of llama3-8b on 'n' GPUs with 'd'. */
static void train_rel (const struct gp_defaults *d, double n,
                       struct gp_reliability *r)
{
    gp_error_t err = {0};
    struct gp_zoo *zoo = gp_zoo_load (NULL, &err);
    assert_non_null (zoo);
    const struct gp_arch *a = gp_zoo_find (zoo, "llama3-8b", &err);
    assert_non_null (a);
    struct gp_train_model m;
    assert_int_equal (gp_train_prep (a, &m, &err), 0);
    struct gp_train_job j;
    gp_train_job_default (&j);
    j.defaults = d;
    gp_train_reliability (&m, &j, n, 8, r);
    gp_zoo_destroy (zoo);
}

/* ------------------------------- plan ---------------------------------- */

/* One year, two 8-GPU trace jobs (16 GPUs all year, as in test_plan.c),
 * one p5 spot fleet and one on-prem H100 build under min_availability;
 * storage and checkpoint bursts priced at 0.  'extra' adds assumptions.
 */
static struct gp_plan_result *plan_with (const char *extra,
                                         struct gp_catalog **cat)
{
    char text[2048];
    snprintf (text, sizeof text,
              "name: t\n"
              "horizon: 1y\n"
              "teams:\n"
              "  - {name: a, quota_share: 1}\n"
              "workloads:\n"
              "  - {name: ft, kind: recurring, team: a, model: llama3-8b,\n"
              "     trace: cli/specs/plan-flat16.csv}\n"
              "constraints: {min_availability: 0.9}\n"
              "assumptions:\n"
              "  storage_usd_per_tb: 0\n"
              "  object_usd_per_tb: 0\n"
              "  checkpoint_write_s: 0\n"
              "%s"
              "options:\n"
              "  - {name: h100, kind: onprem, accelerator: H100-SXM}\n"
              "  - {name: p5, kind: cloud, instance: p5.48xlarge,\n"
              "     region: us-east-1, gpus: 16, pricing: [spot]}\n",
              extra);
    gp_error_t err = {0};
    *cat = gp_catalog_load (NULL, &err);
    assert_non_null (*cat);
    struct gp_doc *doc = gp_doc_parse (text, strlen (text), "plan.yaml",
                                       &err);
    if (!doc)
        fail_msg ("%s", err.text);
    struct gp_plan_spec *spec = gp_plan_spec_from_doc (doc, *cat, &err);
    if (!spec)
        fail_msg ("%s", err.text);
    struct gp_plan_result *r = gp_plan_run (spec, *cat, &err);
    if (!r)
        fail_msg ("%s", err.text);
    gp_plan_spec_destroy (spec);
    gp_doc_destroy (doc);
    return r;
}

static const struct gp_plan_option *opt (const struct gp_plan_result *r,
                                         const char *name)
{
    for (size_t i = 0; i < r->n_options; i++)
        if (strcmp (r->options[i].name, name) == 0)
            return &r->options[i];
    fail_msg ("no option %s", name);
    return NULL;
}

/* Spot overhead of 2 nodes: 2 x 0.2 / 730 interruptions per hour, each
 * losing half a checkpoint interval plus the restart.
 */
static double spot_f (double interval_s, double restart_s)
{
    return 2 * 0.2 / 730 * ((interval_s / 2 + restart_s) / 3600);
}

/* Share of time one 8-GPU node is down: l r / (1 + l r). */
static double down_u (double rate, double repair_h)
{
    double lr = rate * 8 * repair_h;
    return lr / (1 + lr);
}

/* The plan's figures with 'extra' assumptions. */
struct plan_fig {
    double spot_overhead, node_down_share;
    int overridden; /* number of overridden assumptions reported */
};

static struct plan_fig plan_fig (const char *extra)
{
    struct gp_catalog *cat = NULL;
    struct gp_plan_result *r = plan_with (extra, &cat);
    struct plan_fig f;
    f.spot_overhead = opt (r, "p5/spot")->spot_overhead;
    f.node_down_share = opt (r, "h100")->node_down_share;
    f.overridden = 0;
    for (size_t i = 0; i < r->n_assume; i++)
        f.overridden += r->assume[i].overridden;
    gp_plan_result_destroy (r);
    gp_catalog_destroy (cat);
    return f;
}

/* ------------------------------ simulate ------------------------------- */

/* 1 node x 4 GPUs, policy priority: job 1 (0 s, 4 GPUs, 10 s, class 0,
 * checkpoint interval from the config), job 2 (3 s, 2 GPUs, 2 s, class
 * 5).  At 3 s job 2 preempts job 1, which keeps floor(3 / C) C s of work,
 * loses the rest on 4 GPUs and pays the restart R once on 4 GPUs.
 */
static void sim_run (const struct gp_defaults *d, double *restart_gpu_s,
                     double *lost_gpu_s)
{
    static struct gp_pool pool;
    static struct gp_cluster cl;
    memset (&pool, 0, sizeof pool);
    memset (&cl, 0, sizeof cl);
    snprintf (pool.name, sizeof pool.name, "p");
    pool.gpus_per_node = 4;
    pool.nodes = 1;
    pool.scale_up_domain = 4;
    pool.nodes_per_rack = 1;
    snprintf (cl.name, sizeof cl.name, "t");
    cl.pools = &pool;
    cl.n_pools = 1;
    cl.spine_oversub = 1;
    gp_error_t err = {0};
    struct gp_jobset *js = gp_jobset_create ();
    assert_non_null (js);
    const double sub[2] = {0, 3}, dur[2] = {10, 2};
    const int gpus[2] = {4, 2}, prio[2] = {0, 5};
    for (int i = 0; i < 2; i++) {
        struct gp_job j;
        memset (&j, 0, sizeof j);
        j.id = i + 1;
        j.submit_s = sub[i];
        j.duration_s = dur[i];
        j.n_gpus = gpus[i];
        j.gpu_milli = 1000;
        j.pool = -1;
        j.priority = prio[i];
        j.team = gp_jobset_team (js, "t");
        assert_int_equal (gp_jobset_add (js, &j), 0);
    }
    struct gp_sim_config cfg;
    gp_sim_config_init_defaults (&cfg, d);
    cfg.cluster = &cl;
    cfg.policy = gp_policy_find ("priority", &err);
    assert_non_null (cfg.policy);
    struct gp_sim *s = gp_sim_create (&cfg, js, &err);
    if (!s || gp_sim_run (s, &err))
        fail_msg ("%s", err.text);
    const struct gp_sim_metrics *m = gp_sim_get_metrics (s);
    *restart_gpu_s = m->restart_gpu_s;
    *lost_gpu_s = m->lost_gpu_s;
    gp_sim_destroy (s);
    gp_jobset_destroy (js);
}

/* ------------------------------- tests --------------------------------- */

/* reliability.restart_s: train, plan, sim. */
static void test_restart_s (void **state)
{
    (void)state;
    struct gp_defaults d;
    gp_defaults_init (&d);
    double R0 = gp_default (NULL, GP_DEF_RELIABILITY_RESTART_S);
    assert_true (R0 == 600);
    /* train: the overhead grows by dR / M, M = 3600 / (rate n) s. */
    struct gp_reliability r0, r1;
    train_rel (&d, 64, &r0);
    assert_int_equal (gp_defaults_set (&d, "reliability.restart_s", 3000,
                                       NULL), 0);
    train_rel (&d, 64, &r1);
    double M = 3600 / (llama3_rate * 64);
    NEAR (r0.mtbf_s, M);
    NEAR (r0.goodput - r1.goodput, (3000 - R0) / M);
    /* plan, by the plan's key and by the registry key */
    struct plan_fig p0 = plan_fig ("");
    NEAR (p0.spot_overhead, spot_f (3600, R0));
    struct plan_fig p1 = plan_fig ("  restart_s: 3000\n");
    NEAR (p1.spot_overhead, spot_f (3600, 3000));
    struct plan_fig p2 = plan_fig ("  reliability.restart_s: 3000\n");
    NEAR (p2.spot_overhead, spot_f (3600, 3000));
    assert_int_equal (p2.overridden, p0.overridden + 1);
    /* sim: one restart on 4 GPUs; interval 3600 s keeps nothing of 3 s */
    double rg, lost;
    sim_run (NULL, &rg, &lost);
    NEAR (rg, 4 * R0);
    NEAR (lost, 4 * 3);
    sim_run (&d, &rg, &lost);
    NEAR (rg, 4 * 3000);
}

/* reliability.checkpoint_interval_s: plan, sim. */
static void test_checkpoint_interval_s (void **state)
{
    (void)state;
    struct gp_defaults d;
    gp_defaults_init (&d);
    assert_true (gp_default (NULL, GP_DEF_RELIABILITY_CHECKPOINT_INTERVAL_S)
                 == 3600);
    assert_int_equal (gp_defaults_set (&d,
                                       "reliability.checkpoint_interval_s",
                                       2, NULL), 0);
    /* sim: checkpoints every 2 s keep 2 of the 3 s done: 1 s x 4 lost */
    double rg, lost;
    sim_run (&d, &rg, &lost);
    NEAR (lost, 4 * 1);
    /* plan: the spot overhead's half interval */
    struct plan_fig p = plan_fig ("  checkpoint_interval_s: 7200\n");
    NEAR (p.spot_overhead, spot_f (7200, 600));
}

/* reliability.node_repair_h: plan, sim. */
static void test_node_repair_h (void **state)
{
    (void)state;
    struct gp_defaults d;
    gp_defaults_init (&d);
    struct gp_sim_config cfg;
    gp_sim_config_init (&cfg);
    NEAR (cfg.node_repair_s, 48 * 3600);
    assert_int_equal (gp_defaults_set (&d, "reliability.node_repair_h", 4,
                                       NULL), 0);
    gp_sim_config_init_defaults (&cfg, &d);
    NEAR (cfg.node_repair_s, 4 * 3600);
    struct plan_fig p0 = plan_fig ("");
    NEAR (p0.node_down_share, down_u (llama3_rate, 48));
    struct plan_fig p1 = plan_fig ("  node_repair_h: 4\n");
    NEAR (p1.node_down_share, down_u (llama3_rate, 4));
}

/* reliability.fail_per_gpu_hour: train, plan. */
static void test_fail_per_gpu_hour (void **state)
{
    (void)state;
    struct gp_defaults d;
    gp_defaults_init (&d);
    NEAR (gp_default (NULL, GP_DEF_RELIABILITY_FAIL_PER_GPU_HOUR),
          llama3_rate);
    assert_int_equal (gp_defaults_set (&d, "reliability.fail_per_gpu_hour",
                                       1e-4, NULL), 0);
    struct gp_reliability r;
    train_rel (&d, 64, &r);
    NEAR (r.mtbf_s, 3600 / (1e-4 * 64));
    struct plan_fig p = plan_fig ("  fail_per_gpu_hour: 0.0001\n");
    NEAR (p.node_down_share, down_u (1e-4, 48));
}

/* Train-only rows: checkpoint write bandwidth per node and overhead
 * target; the inference model's KV dtype.
 */
static void test_single_model_rows (void **state)
{
    (void)state;
    struct gp_defaults d;
    gp_defaults_init (&d);
    struct gp_reliability r0, r1;
    train_rel (&d, 64, &r0);
    assert_int_equal (gp_defaults_set_str (&d,
                                           "train.ckpt_write_bw_per_node=1e9",
                                           NULL), 0);
    assert_int_equal (gp_defaults_set_str (&d,
                                           "train.ckpt_overhead_target=0.1",
                                           NULL), 0);
    train_rel (&d, 64, &r1);
    NEAR (r1.ckpt_write_s, 2 * r0.ckpt_write_s);        /* half the bw */
    NEAR (r1.storage_bw_needed, r0.storage_bw_needed / 4); /* 1/target^2 */

    const struct gp_accel h = {.id = "X", .fp8_flops = 1e15};
    const struct gp_accel a = {.id = "Y"};
    enum gp_dtype kv;
    assert_int_equal (gp_kv_dtype_default (NULL, GP_DT_FP8, &h, &kv, NULL),
                      0);
    assert_int_equal (kv, GP_DT_FP8);
    gp_kv_dtype_default (NULL, GP_DT_FP8, &a, &kv, NULL);
    assert_int_equal (kv, GP_DT_BF16);
    gp_kv_dtype_default (NULL, GP_DT_BF16, &h, &kv, NULL);
    assert_int_equal (kv, GP_DT_BF16);
    gp_error_t err = {0};
    assert_int_equal (gp_defaults_set (&d, "infer.kv_dtype", 1, &err),
                      GP_EINVAL);
    assert_int_equal (gp_defaults_set_str (&d, "infer.kv_dtype=fp8", &err),
                      0);
    gp_kv_dtype_default (&d, GP_DT_BF16, &a, &kv, NULL);
    assert_int_equal (kv, GP_DT_FP8);
    assert_int_equal (gp_defaults_set_text (&d, "infer.kv_dtype", "fp9",
                                            &err), 0);
    assert_int_equal (gp_kv_dtype_default (&d, GP_DT_BF16, &a, &kv, &err),
                      GP_EINVAL);
    assert_int_equal (gp_defaults_set_str (&d, "reliability.restart_s=x",
                                           &err), GP_EINVAL);
    assert_int_equal (gp_defaults_set_str (&d, "restart_s", &err),
                      GP_EINVAL);
}

/* Every registry row names its users among the four models, and every
 * row the plan reads is a plan assumption under its short key.
 */
static void test_rows_and_users (void **state)
{
    (void)state;
    static const char *const models[] = {"train", "infer", "sim", "plan"};
    for (size_t i = 0; i < gp_defaults_count (); i++) {
        const struct gp_default_info *r = gp_default_info (i);
        int n = 0;
        for (size_t k = 0; k < 4; k++)
            n += gp_default_used_by (r, models[k]);
        size_t commas = 0;
        for (const char *p = r->users; *p; p++)
            commas += *p == ',';
        assert_int_equal (n, (int)commas + 1);
        assert_non_null (strchr (r->key, '.'));
    }
    assert_false (gp_default_used_by (gp_default_info (0), "tra"));
    /* The plan keeps every row it reads in a fixed array: all fit. */
    size_t n_plan = 0;
    for (size_t i = 0; i < gp_defaults_count (); i++)
        n_plan += gp_default_used_by (gp_default_info (i), "plan");
    assert_true (n_plan <= GP_PLAN_MAX_ASSUMPTIONS);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_restart_s),
        cmocka_unit_test (test_checkpoint_interval_s),
        cmocka_unit_test (test_node_repair_h),
        cmocka_unit_test (test_fail_per_gpu_hour),
        cmocka_unit_test (test_single_model_rows),
        cmocka_unit_test (test_rows_and_users),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
