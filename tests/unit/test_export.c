/* test_export.c - orchestrator configuration from a cluster spec.
 * Expected lines are worked out by hand from the mapping rules in
 * docs/formats/export.md (quota splits by largest remainder, hostlists,
 * Slurm units).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "gpuplan/gpuplan.h"
#include "export_fixture.h"

static const char spec[] =
    "name: lab\n"
    "pools:\n"
    "  - {name: h100, accelerator: H100-SXM, gpus_per_node: 8, nodes: 10,\n"
    "     nodes_per_rack: 4, host_memory: 1TiB, cpus_per_node: 96}\n"
    "  - {name: mi300x, accelerator: MI300X, gpus_per_node: 8, nodes: 5}\n"
    "teams:\n"
    "  - {name: a, quota: 60, cohort: c, borrowing_limit: 9, weight: 1.5}\n"
    "  - {name: b, quota: {mi300x: 40}, cohort: c, lending_limit: 10,\n"
    "     priority: 5}\n";

static struct gp_export *render (enum gp_export_target t)
{
    gp_error_t err = {0};
    struct gp_cluster *c = fx_cluster_ok (spec, "lab.yaml");
    struct gp_export *x = gp_export_render (c, t, &err);
    if (!x)
        fail_msg ("%s", err.text);
    gp_cluster_destroy (c);
    return x;
}

static void test_kueue (void **state)
{
    (void)state;
    struct gp_export *x = render (GP_EXPORT_KUEUE);
    /* mi300x has no host size and no catalog is given: cpu and memory are
     * left to the Kueue Configuration fragment (second file). */
    assert_int_equal (x->n_files, 2);
    assert_string_equal (x->files[1].name, "kueue-config.yaml");
    has (x->files[1].text, "excludeResourcePrefixes: [cpu, memory]\n");
    const char *t = x->files[0].text;
    /* Team a: scalar quota 60 over 80 + 40 GPUs -> 40 + 20; borrowing 9 in
     * proportion to 40:20 -> 6 + 3. */
    has (t, "      - name: nvidia.com/gpu\n"
            "        nominalQuota: 40\n"
            "        borrowingLimit: 6\n");
    has (t, "      - name: amd.com/gpu\n"
            "        nominalQuota: 20\n"
            "        borrowingLimit: 3\n");
    has (t, "  cohortName: c\n");
    has (t, "    weight: \"1.5\"\n");
    /* Team b: per-pool quota, lending 10 all on mi300x. */
    has (t, "      - name: amd.com/gpu\n"
            "        nominalQuota: 40\n"
            "        lendingLimit: 10\n");
    /* One resource group; vendors map to their device plugins' resources. */
    has (t, "coveredResources: [nvidia.com/gpu, amd.com/gpu]");
    has (t, "kind: WorkloadPriorityClass\nmetadata:\n  name: priority-5\n"
            "value: 5\n");
    has (t, "kind: LocalQueue\nmetadata:\n  name: b\n  namespace: b\n"
            "spec:\n  clusterQueue: b\n");
    gp_export_destroy (x);
}

static void test_volcano (void **state)
{
    (void)state;
    struct gp_export *x = render (GP_EXPORT_VOLCANO);
    const char *t = x->files[0].text;
    /* Non-integral weight 1.5 -> all weights x100 (150 and 100). */
    has (t, "  name: a\nspec:\n  weight: 150\n");
    has (t, "  name: b\nspec:\n  weight: 100\n");
    /* a: deserved 40/20; capability quota + borrowing = 46/23, but cohort c
     * holds only 40 h100 (a's own) and 60 mi300x. */
    has (t, "  deserved:\n    nvidia.com/gpu: 40\n    amd.com/gpu: 20\n"
            "  capability:\n    nvidia.com/gpu: 40\n    amd.com/gpu: 23\n");
    /* b: no borrowing limit -> what the cohort holds; it keeps 40 - 10. */
    has (t, "  capability:\n    nvidia.com/gpu: 40\n    amd.com/gpu: 40\n"
            "  guarantee:\n    resource:\n      nvidia.com/gpu: 0\n"
            "      amd.com/gpu: 30\n");
    has (t, "  parent: c\n");
    /* The cohort's parent queue: deserved = capability = sum of quotas. */
    has (t, "  name: c\nspec:\n  weight: 1\n  reclaimable: true\n"
            "  deserved:\n    nvidia.com/gpu: 40\n    amd.com/gpu: 60\n"
            "  capability:\n    nvidia.com/gpu: 40\n    amd.com/gpu: 60\n");
    gp_export_destroy (x);
}

static void test_slurm (void **state)
{
    (void)state;
    struct gp_export *x = render (GP_EXPORT_SLURM);
    assert_int_equal (x->n_files, 4);
    assert_string_equal (x->files[0].name, "slurm.conf");
    /* 1 TiB = 1048576 MiB, 97 % of it as RealMemory (1017118); 96 CPUs
     * on 2 sockets (docs/formats/export-slurm.md). */
    has (x->files[0].text, "NodeName=h100-[001-010] Gres=gpu:h100-sxm:8 "
                           "CPUs=96 Sockets=2 CoresPerSocket=48 "
                           "ThreadsPerCore=1 RealMemory=1017118 "
                           "State=UNKNOWN\n");
    has (x->files[0].text, "PartitionName=mi300x Nodes=mi300x-[001-005] "
                           "Default=NO");
    has (x->files[1].text, "NodeName=h100-[001-010] Name=gpu Type=h100-sxm "
                           "File=/dev/nvidia[0-7]\n");
    has (x->files[1].text, "File=/dev/dri/renderD[128-135]\n");
    /* 10 nodes, 4 per rack -> leaves of 4, 4, 2; 5 nodes at 32 per leaf. */
    has (x->files[2].text, "SwitchName=h100-leaf03 Nodes=h100-[009-010]\n");
    has (x->files[2].text, "SwitchName=mi300x-leaf01 Nodes=mi300x-[001-005]\n");
    has (x->files[2].text,
         "SwitchName=spine Switches=h100-leaf[01-03],mi300x-leaf01\n");
    /* a: QOS at its quota 60, split 40 h100 + 20 mi300x by pool size;
     * its borrowing limit 9 splits 6 + 3 the same way.  b can lend no
     * h100 (no quota there) and min(40, lending limit 10) = 10 mi300x,
     * so a borrows min(6, 0) + min(3, 10) = 3: the borrowing QOS holds
     * 3 and the account 60 + 3 = 63 GPUs (the cap of every target);
     * Fairshare 1.5 x 100. */
    has (x->files[3].text, "'name=a' set Priority=0 'GrpTRES=gres/gpu=60'");
    has (x->files[3].text, "'name=a-borrow' set Priority=0 "
                           "'GrpTRES=gres/gpu=3'");
    has (x->files[3].text, "set Fairshare=150 'QOS=a,a-borrow' "
                           "'DefaultQOS=a' 'GrpTRES=gres/gpu=63'\n");
    gp_export_destroy (x);
}

static void test_prometheus (void **state)
{
    (void)state;
    struct gp_export *x = render (GP_EXPORT_PROMETHEUS);
    assert_int_equal (x->n_files, 1);
    const char *t = x->files[0].text;
    /* NVIDIA pool: DCGM rules; 10 nodes x 8 = 80 planned GPUs; the pool
     * is selected by the node label gpuplan.io/pool, never by host name. */
    has (t, "kube_node_labels{label_gpuplan_io_pool!=\\\"\\\"}");
    has (t, "gpuplan:pool_gpus_reporting:count{pool=\\\"h100\\\"} < 80\"\n");
    assert_null (strstr (t, "Hostname=~"));
    /* AMD pool: no DCGM metrics, said so instead of a wrong rule. */
    has (t, "# pool mi300x (AMD): no DCGM metrics");
    assert_null (strstr (t, "pool=\\\"mi300x\\\""));
    /* Team caps per DCGM pool, counted in that pool only: a: 40 + min(6,
     * b's h100 quota 0) = 40; b: 0 + a's h100 quota 40 = 40.  (Before,
     * NVIDIA GPUs were compared with all-vendor caps 69 and 120.) */
    has (t, "gpuplan:team_pool_gpus:count{team=\\\"a\\\", "
            "pool=\\\"h100\\\"} > 40\"\n");
    has (t, "gpuplan:team_pool_gpus:count{team=\\\"b\\\", "
            "pool=\\\"h100\\\"} > 40\"\n");
    assert_null (strstr (t, "> 69"));
    assert_null (strstr (t, "> 120"));
    has (t, "DCGM_FI_DEV_XID_ERRORS == 79 or");
    gp_export_destroy (x);
}

static void test_bad (void **state)
{
    (void)state;
    gp_error_t err = {0};
    enum gp_export_target t;
    assert_int_equal (gp_export_target_parse ("k8s", &t, &err), GP_ENOTFOUND);
    assert_non_null (strstr (err.text, "grafana, gpu-operator, yunikorn, network, serving or jobs"));
    const char *bad = "name: lab\npools:\n  - {name: H100_Pool, accelerator: "
                      "H100-SXM, gpus_per_node: 8, nodes: 1}\n";
    struct gp_doc *d = gp_doc_parse (bad, strlen (bad), "x.yaml", &err);
    struct gp_cluster *c = gp_cluster_from_doc (d, cat, &err);
    assert_non_null (c);
    assert_null (gp_export_render (c, GP_EXPORT_KUEUE, &err));
    assert_int_equal (err.code, GP_EINVAL);
    assert_non_null (strstr (err.text, "pools[0].name 'H100_Pool'"));
    /* Slurm lowercases account and QOS names, so capitals would not
     * round-trip: refused too, naming the field.
     */
    assert_null (gp_export_render (c, GP_EXPORT_SLURM, &err));
    assert_non_null (strstr (err.text, "pools[0].name 'H100_Pool'"));
    assert_non_null (strstr (err.text, "Slurm"));
    gp_cluster_destroy (c);
    gp_doc_destroy (d);
    /* A cluster name with a newline or '#' is refused by every target
     * (it would end a slurm.conf line or start a comment).
     */
    const char *inj = "name: \"lab\\nInclude /etc/x\"\npools:\n  - {name: h100, "
                      "accelerator: H100-SXM, gpus_per_node: 8, nodes: 1}\n";
    d = gp_doc_parse (inj, strlen (inj), "x.yaml", &err);
    c = gp_cluster_from_doc (d, cat, &err);
    assert_non_null (c);
    for (int tg = GP_EXPORT_KUEUE; tg <= GP_EXPORT_PROMETHEUS; tg++) {
        memset (&err, 0, sizeof err);
        assert_null (gp_export_render (c, (enum gp_export_target)tg, &err));
        assert_int_equal (err.code, GP_EINVAL);
        assert_non_null (strstr (err.text, "name 'lab"));
    }
    gp_cluster_destroy (c);
    gp_doc_destroy (d);
    assert_null (gp_export_render (NULL, GP_EXPORT_SLURM, &err));
}

/* Every target behind the registry: its name parses back to it, it
 * renders its documented files, and the JSON lists them under the
 * target's name.
 */
static void test_targets (void **state)
{
    (void)state;
    static const struct {
        enum gp_export_target t;
        const char *name;
        size_t n_files;
        const char *first;
    } want[] = {
        {GP_EXPORT_KUEUE, "kueue", 2, "kueue.yaml"},
        {GP_EXPORT_VOLCANO, "volcano", 1, "volcano.yaml"},
        {GP_EXPORT_SLURM, "slurm", 4, "slurm.conf"},
        {GP_EXPORT_PROMETHEUS, "prometheus", 1, "gpuplan-rules.yml"},
        {GP_EXPORT_GRAFANA, "grafana", 1, "gpuplan-dashboard.json"},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        enum gp_export_target t;
        assert_int_equal (gp_export_target_parse (want[i].name, &t, NULL), 0);
        assert_int_equal (t, want[i].t);
        assert_string_equal (gp_export_target_str (t), want[i].name);
        struct gp_export *x = render (t);
        assert_int_equal (x->target, want[i].t);
        assert_int_equal (x->n_files, want[i].n_files);
        assert_string_equal (x->files[0].name, want[i].first);
        json_t *j = gp_export_json (x);
        assert_non_null (j);
        assert_string_equal (json_string_value (json_object_get (j, "target")),
                             want[i].name);
        json_t *files = json_object_get (j, "files");
        assert_int_equal (json_array_size (files), want[i].n_files);
        assert_string_equal (json_string_value (json_object_get (
                                 json_array_get (files, 0), "text")),
                             x->files[0].text);
        json_decref (j);
        gp_export_destroy (x);
    }
    assert_string_equal (gp_export_target_str ((enum gp_export_target)99),
                         "unknown");
    assert_null (gp_export_json (NULL));
    gp_export_destroy (NULL);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_kueue),
        cmocka_unit_test (test_volcano),
        cmocka_unit_test (test_slurm),
        cmocka_unit_test (test_prometheus),
        cmocka_unit_test (test_bad),
        cmocka_unit_test (test_targets),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
