/* test_export_gpu_operator.c - the gpu-operator export: the MIG strategy
 * and its tie to the resource names the Kueue export writes, mig-parted
 * layouts worked by hand from mig-parted's config-default.yaml (v0.15.0:
 * A100-80GB all-1g.10gb = 7, all-3g.40gb = 2, all-1g.10gb.me = 1),
 * GPUDirect RDMA from a cluster spec and from a plan option,
 * time-slicing for sharing pools, the counters CSV against the fields
 * the Prometheus rules read, and the errors
 * (docs/formats/export-gpu-operator.md).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "export/dcgm_fields.h"
#include "export/k8s.h"
#include "gpuplan/gpuplan.h"
#include "gpuplan/plan.h"
#include "export_fixture.h"

/* The text of file 'name' of export 'x', or NULL. */
static const char *file_of (const struct gp_export *x, const char *name)
{
    for (size_t i = 0; i < x->n_files; i++)
        if (!strcmp (x->files[i].name, name))
            return x->files[i].text;
    return NULL;
}

static struct gp_export *render (const struct gp_cluster *c,
                                 enum gp_export_target t,
                                 const struct gp_export_opts *o)
{
    gp_error_t err = {0};
    struct gp_export *x = gp_export_render_opts (c, t, o, &err);
    if (!x)
        fail_msg ("%s", err.text);
    return x;
}

#define POOL(name, acc, extra)                                                \
    "  - {name: " name ", accelerator: " acc ", gpus_per_node: 8, nodes: "   \
    "2" extra "}\n"

/* The strategy of a spec's pools, and what the Kueue export of the same
 * cluster names: single -> nvidia.com/gpu for MIG devices, mixed ->
 * nvidia.com/mig-<profile>.
 */
static void strategy_is (const char *pools, const char *want,
                         const char *kueue_has, const char *kueue_lacks)
{
    char spec[1024];
    snprintf (spec, sizeof spec,
              "name: s\npools:\n%steams:\n  - {name: t, quota: 8}\n", pools);
    struct gp_cluster *c = fx_cluster_ok (spec, "s.yaml");
    assert_string_equal (gp__mig_strategy (c), want);
    struct gp_export *x = render (c, GP_EXPORT_GPU_OPERATOR, NULL);
    char line[64];
    snprintf (line, sizeof line, "    strategy: %s\n", want);
    has (file_of (x, "clusterpolicy.yaml"), line);
    struct gp_export *k = render (c, GP_EXPORT_KUEUE, NULL);
    has (k->files[0].text, kueue_has);
    if (kueue_lacks)
        lacks (k->files[0].text, kueue_lacks);
    gp_export_destroy (k);
    gp_export_destroy (x);
    gp_cluster_destroy (c);
}

static void test_strategy (void **state)
{
    (void)state;
    /* No MIG: single (both strategies name nvidia.com/gpu). */
    strategy_is (POOL ("h", "H100-SXM", ""), "single",
                 "name: nvidia.com/gpu", "mig-");
    /* One profile in every MIG pool, no whole-GPU NVIDIA pool: single;
     * the MIG devices are nvidia.com/gpu, 8 x 7 per node, 112 in all. */
    strategy_is (POOL ("a", "A100-SXM-80GB", ", mig: [1g.10gb]")
                     POOL ("b", "A100-SXM-80GB", ", mig: [1g.10gb]"),
                 "single", "name: nvidia.com/gpu", "mig-");
    /* Another vendor beside it changes nothing. */
    strategy_is (POOL ("a", "A100-SXM-80GB", ", mig: [1g.10gb]")
                     POOL ("m", "MI300X", ""),
                 "single", "name: nvidia.com/gpu", "mig-");
    /* Two profiles in a pool, pools with different profiles, MIG beside
     * whole GPUs: mixed. */
    strategy_is (POOL ("a", "A100-SXM-80GB", ", mig: [1g.10gb, 3g.40gb]"),
                 "mixed", "name: nvidia.com/mig-3g.40gb", NULL);
    strategy_is (POOL ("a", "A100-SXM-80GB", ", mig: [1g.10gb]")
                     POOL ("b", "A100-SXM-80GB", ", mig: [3g.40gb]"),
                 "mixed", "name: nvidia.com/mig-1g.10gb", NULL);
    strategy_is (POOL ("a", "A100-SXM-80GB", ", mig: [1g.10gb]")
                     POOL ("h", "H100-SXM", ""),
                 "mixed", "name: nvidia.com/mig-1g.10gb", NULL);
}

/* The shipped fixture: the strategy written and the resource names of
 * every pool, each in the Kueue export of the same spec.
 */
static void test_fixture_tie (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_cluster *c = gp_cluster_load (
        GP_SOURCE_DIR "/tests/export/specs/stack-mig-sharing.yaml", cat,
        &err);
    if (!c)
        fail_msg ("%s", err.text);
    struct gp_export *x = render (c, GP_EXPORT_GPU_OPERATOR, NULL);
    struct gp_export *k = render (c, GP_EXPORT_KUEUE, NULL);
    const char *strategy = gp__mig_strategy (c);
    assert_string_equal (strategy, "mixed");
    has (file_of (x, "clusterpolicy.yaml"), "    strategy: mixed\n");
    const char *labels = file_of (x, "node-labels.sh");
    for (size_t i = 0; i < c->n_pools; i++) {
        char names[GP_MIG_MAX + 1][64], want[128];
        long long counts[GP_MIG_MAX + 1];
        int n = gp_pool_k8s_resources (&c->pools[i], strategy, names, counts,
                                       GP_MIG_MAX + 1, &err);
        assert_true (n >= 1);
        for (int r = 0; r < n; r++) {
            snprintf (want, sizeof want, "name: %s\n", names[r]);
            has (k->files[0].text, want);
            snprintf (want, sizeof want, "%s: %lld", names[r], counts[r]);
            has (labels, want);
        }
    }
    /* Hand-worked: a100-mixed, 4 GPUs x 7 1g.10gb and 4 x 2 3g.40gb. */
    has (labels, "# pool a100-mixed: each node exposes "
                 "nvidia.com/mig-1g.10gb: 28, nvidia.com/mig-3g.40gb: 8\n");
    has (labels, "'gpuplan.io/pool=l40s-shared' "
                 "'nvidia.com/device-plugin.config=time-sliced'\n");
    has (file_of (x, "clusterpolicy.yaml"),
         "    rdma:\n      enabled: true\n");
    gp_export_destroy (k);
    gp_export_destroy (x);
    gp_cluster_destroy (c);
}

static void test_mig_layouts (void **state)
{
    (void)state;
    struct gp_cluster *c = fx_cluster_ok (
        "name: m\npools:\n"
        "  - {name: a, accelerator: A100-SXM-80GB, gpus_per_node: 8, nodes: "
        "2, mig: [1g.10gb, 3g.40gb]}\n"
        "  - {name: b, accelerator: A100-SXM-80GB, gpus_per_node: 4, nodes: "
        "1, mig: [1g.10gb, 3g.40gb]}\n"
        "  - {name: e, accelerator: A100-SXM-80GB, gpus_per_node: 4, nodes: "
        "1, mig: [1g.10gb+me]}\n"
        "  - {name: f, accelerator: A100-SXM-80GB, gpus_per_node: 4, nodes: "
        "1, mig: [1g.10gb+me]}\n",
        "m.yaml");
    struct gp_export *x = render (c, GP_EXPORT_GPU_OPERATOR, NULL);
    const char *m = file_of (x, "mig-parted-config.yaml");
    assert_non_null (m);
    has (m, "  config.yaml: |\n    version: v1\n    mig-configs:\n"
            "      all-disabled:\n      - devices: all\n"
            "        mig-enabled: false\n");
    has (m, "      mixed-1g.10gb-3g.40gb:\n"
            "      - devices: [0, 2, 4, 6]\n        mig-enabled: true\n"
            "        mig-devices:\n          \"1g.10gb\": 7\n"
            "      - devices: [1, 3, 5, 7]\n        mig-enabled: true\n"
            "        mig-devices:\n          \"3g.40gb\": 2\n");
    /* The same profiles over 4 GPUs: a layout of its own. */
    has (m, "      mixed-1g.10gb-3g.40gb-4gpu:\n"
            "      - devices: [0, 2]\n");
    /* Media extensions: once per GPU; '+' is no label character; pools
     * with the same layout share it. */
    has (m, "      all-1g.10gb.me:\n      - devices: all\n"
            "        mig-enabled: true\n        mig-devices:\n"
            "          \"1g.10gb+me\": 1\n");
    const char *once = strstr (m, "all-1g.10gb.me:");
    assert_null (strstr (once + 1, "all-1g.10gb.me:"));
    has (file_of (x, "node-labels.sh"),
         "-l 'gpuplan.io/pool=f' 'nvidia.com/mig.config=all-1g.10gb.me'\n");
    has (file_of (x, "clusterpolicy.yaml"),
         "  migManager:\n    enabled: true\n    config:\n"
         "      name: gpuplan-mig-parted-config\n"
         "      default: all-disabled\n");
    gp_export_destroy (x);
    gp_cluster_destroy (c);
}

static void rdma_is (const char *spec, const struct gp_export_opts *o,
                     int want)
{
    struct gp_cluster *c = fx_cluster_ok (spec, "r.yaml");
    struct gp_export *x = render (c, GP_EXPORT_GPU_OPERATOR, o);
    has (file_of (x, "clusterpolicy.yaml"),
         want ? "    rdma:\n      enabled: true\n"
              : "    rdma:\n      enabled: false\n");
    gp_export_destroy (x);
    gp_cluster_destroy (c);
}

static void test_rdma (void **state)
{
    (void)state;
    static const char net[] =
        "name: r\npools:\n  - {name: h, accelerator: H100-SXM, "
        "gpus_per_node: 8, nodes: 4, network_per_gpu: 400Gbps}\n";
    static const char single_node[] =
        "name: r\npools:\n  - {name: h, accelerator: H100-SXM, "
        "gpus_per_node: 8, nodes: 1, network_per_gpu: 400Gbps}\n";
    static const char no_net[] =
        "name: r\npools:\n  - {name: h, accelerator: H100-SXM, "
        "gpus_per_node: 8, nodes: 4}\n";
    rdma_is (net, NULL, 1);
    rdma_is (single_node, NULL, 0);
    rdma_is (no_net, NULL, 0);
    /* From a plan: the option decides, not the cluster's pools. */
    static struct gp_plan_option op;
    static struct gp_plan_result res;
    memset (&op, 0, sizeof op);
    memset (&res, 0, sizeof res);
    res.options = &op;
    res.n_options = 1;
    struct gp_export_plan plan = {NULL, &res, 0};
    struct gp_export_opts o = {0};
    o.plan = &plan;
    op.kind = GP_OPT_ONPREM;
    op.nodes = 4;
    rdma_is (no_net, &o, 1);
    op.nodes = 1;
    rdma_is (net, &o, 0);
    op.nodes = 4;
    op.cloud_fabric = 1;
    rdma_is (net, &o, 0);
    op.cloud_fabric = 0;
    op.kind = GP_OPT_CLOUD;
    rdma_is (net, &o, 0);
}

static void test_sharing (void **state)
{
    (void)state;
    struct gp_cluster *c = fx_cluster_ok (
        "name: s\npools:\n"
        "  - {name: l, accelerator: L40S, gpus_per_node: 4, nodes: 2, "
        "gpu_sharing: true}\n"
        "  - {name: h, accelerator: H100-SXM, gpus_per_node: 8, nodes: 1}\n",
        "s.yaml");
    struct gp_export *x = render (c, GP_EXPORT_GPU_OPERATOR, NULL);
    const char *p = file_of (x, "device-plugin-config.yaml");
    assert_non_null (p);
    has (p, "  default: |\n    version: v1\n");
    has (p, "  time-sliced: |\n    version: v1\n    sharing:\n"
            "      timeSlicing:\n        renameByDefault: false\n"
            "        failRequestsGreaterThanOne: true\n"
            "        resources:\n        - name: nvidia.com/gpu\n"
            "          replicas: 4\n");
    has (file_of (x, "clusterpolicy.yaml"),
         "  devicePlugin:\n    enabled: true\n    config:\n"
         "      name: gpuplan-device-plugin-config\n      default: default\n");
    has (file_of (x, "node-labels.sh"),
         "-l 'gpuplan.io/pool=h' 'nvidia.com/device-plugin.config=default'");
    /* No MIG pool: the MIG manager is off and has no config. */
    assert_null (file_of (x, "mig-parted-config.yaml"));
    has (file_of (x, "clusterpolicy.yaml"),
         "  migManager:\n    enabled: false\n");
    gp_export_destroy (x);
    gp_cluster_destroy (c);
    /* Without a sharing pool: no device-plugin config at all. */
    c = fx_cluster_ok ("name: s\npools:\n  - {name: h, accelerator: "
                       "H100-SXM, gpus_per_node: 8, nodes: 1}\n",
                       "s.yaml");
    x = render (c, GP_EXPORT_GPU_OPERATOR, NULL);
    assert_null (file_of (x, "device-plugin-config.yaml"));
    lacks (file_of (x, "clusterpolicy.yaml"), "gpuplan-device-plugin-config");
    lacks (file_of (x, "node-labels.sh"), "device-plugin.config");
    gp_export_destroy (x);
    gp_cluster_destroy (c);
}

/* Every DCGM field the Prometheus rules read is in the counters CSV, and
 * every CSV row is one of the list's fields.
 */
static void test_dcgm_fields (void **state)
{
    (void)state;
    struct gp_cluster *c = fx_cluster_ok (
        "name: d\npools:\n  - {name: h, accelerator: H100-SXM, "
        "gpus_per_node: 8, nodes: 2}\nteams:\n  - {name: t, quota: 8}\n",
        "d.yaml");
    struct gp_export *x = render (c, GP_EXPORT_GPU_OPERATOR, NULL);
    struct gp_export *p = render (c, GP_EXPORT_PROMETHEUS, NULL);
    const char *csv = file_of (x, "dcgm-metrics.yaml");
    const char *rules = p->files[0].text;
    assert_int_equal (gp__dcgm_n_fields, 17);
    for (size_t i = 0; i < gp__dcgm_n_fields; i++) {
        char row[160];
        snprintf (row, sizeof row, "    %s, %s, ", gp__dcgm_fields[i].name,
                  gp__dcgm_fields[i].type);
        has (csv, row);
    }
    for (const char *q = strstr (rules, "DCGM_FI_"); q;
         q = strstr (q + 1, "DCGM_FI_")) {
        size_t n = strspn (q, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
        char name[96];
        snprintf (name, sizeof name, "%.*s", (int)n, q);
        int known = !strcmp (name, GP__DCGM_CLOCK_EVENTS_OLD);
        for (size_t i = 0; i < gp__dcgm_n_fields && !known; i++)
            known = !strcmp (name, gp__dcgm_fields[i].name);
        if (!known)
            fail_msg ("the rules read %s, the counters CSV lacks it", name);
    }
    gp_export_destroy (p);
    gp_export_destroy (x);
    gp_cluster_destroy (c);
}

static void test_errors (void **state)
{
    (void)state;
    gp_error_t err = {0};
    /* No NVIDIA pool: nothing to write, and why. */
    struct gp_cluster *c = fx_cluster_ok (
        "name: a\npools:\n  - {name: m, accelerator: MI300X, "
        "gpus_per_node: 8, nodes: 2}\n",
        "a.yaml");
    struct gp_export *x = render (c, GP_EXPORT_GPU_OPERATOR, NULL);
    assert_int_equal (x->n_files, 0);
    has (x->not_applicable, "no NVIDIA pool");
    gp_export_destroy (x);
    gp_cluster_destroy (c);
    /* A MIG layout whose name cannot be a label value. */
    c = fx_cluster_ok (
        "name: a\npools:\n  - {name: m, accelerator: A100-SXM-80GB, "
        "gpus_per_node: 8, nodes: 1, mig: [1g.10gb, 1g.20gb, 2g.20gb, "
        "3g.40gb, 4g.40gb, 7g.80gb, 1g.10gb+me]}\n",
        "a.yaml");
    assert_null (gp_export_render (c, GP_EXPORT_GPU_OPERATOR, &err));
    assert_int_equal (err.code, GP_EINVAL);
    has (err.text, "pool 'm': MIG config name");
    gp_cluster_destroy (c);
    /* A pool name that is no label value (the gpuplan.io/pool selector). */
    c = fx_cluster_ok ("name: a\npools:\n  - {name: H_100, accelerator: "
                       "H100-SXM, gpus_per_node: 8, nodes: 1}\n",
                       "a.yaml");
    memset (&err, 0, sizeof err);
    assert_null (gp_export_render (c, GP_EXPORT_GPU_OPERATOR, &err));
    assert_int_equal (err.code, GP_EINVAL);
    has (err.text, "H_100");
    gp_cluster_destroy (c);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_strategy),
        cmocka_unit_test (test_fixture_tie),
        cmocka_unit_test (test_mig_layouts),
        cmocka_unit_test (test_rdma),
        cmocka_unit_test (test_sharing),
        cmocka_unit_test (test_dcgm_fields),
        cmocka_unit_test (test_errors),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
