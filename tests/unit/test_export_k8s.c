/* test_export_k8s.c - Kubernetes resources of a pool (MIG strategies) and
 * the Kueue and Volcano exports built on them: cpu and memory per flavor,
 * quota-less teams, Topology, the v1beta1/v1beta2 switch, hostile names.
 *
 * Expected values are worked out by hand: MIG instance counts from
 * mig-parted's config-default.yaml (v0.15.0, the all-<profile> layouts),
 * host sizes from the spec or the catalog's instance rows, quotas as
 * GPUs x per-node amount / GPUs per node (docs/formats/export-kueue.md).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <yaml.h>

#include "gpuplan/gpuplan.h"
#include "export_fixture.h"

static struct gp_cluster *cluster (const char *spec, gp_error_t *err)
{
    return fx_cluster (spec, "k8s.yaml", err);
}

/* Render 'spec' for 't' with 'api' (0 = default) and the catalog; fails
 * the test on error. */
static struct gp_export *render (const char *spec, enum gp_export_target t,
                                 int api)
{
    gp_error_t err = {0};
    struct gp_cluster *c = cluster (spec, &err);
    if (!c)
        fail_msg ("%s", err.text);
    struct gp_export_opts o = {.kueue_api = api, .catalog = cat};
    struct gp_export *x = gp_export_render_opts (c, t, &o, &err);
    gp_cluster_destroy (c);
    if (!x)
        fail_msg ("%s", err.text);
    return x;
}

/* The error of rendering 'spec' for 't' (the render must fail). */
static gp_error_t render_err (const char *spec, enum gp_export_target t)
{
    gp_error_t err = {0};
    struct gp_cluster *c = cluster (spec, &err);
    if (!c)
        return err;
    struct gp_export_opts o = {.catalog = cat};
    struct gp_export *x = gp_export_render_opts (c, t, &o, &err);
    gp_cluster_destroy (c);
    if (x) {
        gp_export_destroy (x);
        fail_msg ("rendered, expected an error");
    }
    return err;
}

/* ====================== gp_pool_k8s_resources ========================== */

static struct gp_pool pool_of (const char *accel, int gpus)
{
    struct gp_pool p;
    memset (&p, 0, sizeof p);
    snprintf (p.name, sizeof p.name, "p");
    p.accel = gp_catalog_find_accel (cat, accel, NULL);
    assert_non_null (p.accel);
    p.gpus_per_node = gpus;
    p.nodes = 1;
    return p;
}

static void add_mig (struct gp_pool *p, const char *profile, int slices)
{
    snprintf (p->mig[p->n_mig], sizeof p->mig[0], "%s", profile);
    p->mig_slices[p->n_mig++] = slices;
}

static void test_resources_plain (void **state)
{
    (void)state;
    char names[4][64];
    long long counts[4];
    static const struct {
        const char *accel, *res;
    } want[] = {
        {"H100-SXM", "nvidia.com/gpu"}, {"MI300X", "amd.com/gpu"},
        {"GAUDI3", "habana.ai/gaudi"},  {"TRN2", "aws.amazon.com/neuron"},
        {"TPU-V5P", "google.com/tpu"},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        struct gp_pool p = pool_of (want[i].accel, 8);
        for (int s = 0; s < 2; s++) {
            int n = gp_pool_k8s_resources (&p, s ? "mixed" : "single", names,
                                           counts, 4, NULL);
            assert_int_equal (n, 1);
            assert_string_equal (names[0], want[i].res);
            assert_int_equal (counts[0], 8);
        }
    }
}

static void test_resources_mig (void **state)
{
    (void)state;
    char names[8][64];
    long long counts[8];
    gp_error_t err = {0};
    /* A100-80GB, mixed, [1g.10gb, 3g.40gb]: GPUs 0,2,4,6 take 1g.10gb
     * (all-1g.10gb: 7 per GPU -> 28), GPUs 1,3,5,7 take 3g.40gb
     * (all-3g.40gb: 2 per GPU -> 8). */
    struct gp_pool p = pool_of ("A100-SXM-80GB", 8);
    add_mig (&p, "1g.10gb", 1);
    add_mig (&p, "3g.40gb", 3);
    assert_int_equal (gp_pool_k8s_resources (&p, "mixed", names, counts, 8,
                                             &err), 2);
    assert_string_equal (names[0], "nvidia.com/mig-1g.10gb");
    assert_int_equal (counts[0], 28);
    assert_string_equal (names[1], "nvidia.com/mig-3g.40gb");
    assert_int_equal (counts[1], 8);
    /* Two profiles under the single strategy: refused. */
    assert_int_equal (gp_pool_k8s_resources (&p, "single", names, counts, 8,
                                             &err), GP_EINVAL);
    assert_non_null (strstr (err.text, "single MIG strategy"));
    /* No room for two. */
    assert_int_equal (gp_pool_k8s_resources (&p, "mixed", names, counts, 1,
                                             &err), GP_ERANGE);
    assert_int_equal (gp_pool_k8s_resources (&p, "MIXED", names, counts, 8,
                                             &err), GP_EINVAL);
    /* Three profiles on 8 GPUs: 3, 3 and 2 GPUs; all-2g.20gb has 3 per
     * GPU -> 1g.10gb 21, 2g.20gb 9, 3g.40gb 4. */
    struct gp_pool q = pool_of ("H100-SXM", 8);
    add_mig (&q, "1g.10gb", 1);
    add_mig (&q, "2g.20gb", 2);
    add_mig (&q, "3g.40gb", 3);
    assert_int_equal (gp_pool_k8s_resources (&q, "mixed", names, counts, 8,
                                             &err), 3);
    assert_int_equal (counts[0], 21);
    assert_int_equal (counts[1], 9);
    assert_int_equal (counts[2], 4);
    /* A100-40GB, single, 1g.10gb: the A100-40GB entry of all-1g.10gb has
     * 4 per GPU -> nvidia.com/gpu 32 on 8 GPUs; 1g.5gb has 7 -> 56. */
    struct gp_pool r = pool_of ("A100-SXM-40GB", 8);
    add_mig (&r, "1g.10gb", 1);
    assert_int_equal (gp_pool_k8s_resources (&r, "single", names, counts, 8,
                                             &err), 1);
    assert_string_equal (names[0], "nvidia.com/gpu");
    assert_int_equal (counts[0], 32);
    snprintf (r.mig[0], sizeof r.mig[0], "1g.5gb");
    assert_int_equal (gp_pool_k8s_resources (&r, "single", names, counts, 8,
                                             &err), 1);
    assert_int_equal (counts[0], 56);
    /* H200 (all-1g.18gb: 7; all-3g.71gb: 2), H100 NVL (all-1g.12gb: 7),
     * a media-extension profile (all-1g.10gb.me: 1). */
    static const struct {
        const char *accel, *profile;
        long long per_gpu;
    } one[] = {
        {"H200-SXM", "1g.18gb", 7}, {"H200-SXM", "3g.71gb", 2},
        {"H100-NVL", "1g.12gb", 7}, {"H100-SXM", "1g.10gb+me", 1},
        {"H100-SXM", "1g.20gb", 4}, {"H100-SXM", "7g.80gb", 1},
    };
    for (size_t i = 0; i < sizeof one / sizeof *one; i++) {
        struct gp_pool s = pool_of (one[i].accel, 4);
        add_mig (&s, one[i].profile, 1);
        assert_int_equal (gp_pool_k8s_resources (&s, "mixed", names, counts,
                                                 8, &err), 1);
        assert_int_equal (counts[0], 4 * one[i].per_gpu);
    }
    /* Bad arguments. */
    assert_int_equal (gp_pool_k8s_resources (NULL, "mixed", names, counts, 8,
                                             &err), GP_EINVAL);
}

/* Every MIG row of the catalog (whose counts come from the same
 * config-default.yaml) agrees with the per-GPU rule. */
static void test_resources_catalog_rows (void **state)
{
    (void)state;
    char names[2][64];
    long long counts[2];
    size_t n = gp_catalog_n_mig (cat);
    assert_true (n > 40);
    for (size_t i = 0; i < n; i++) {
        const struct gp_mig_profile *m = gp_catalog_mig (cat, i);
        struct gp_pool p = pool_of (m->accel_id, 1);
        add_mig (&p, m->profile, m->compute_slices);
        gp_error_t err = {0};
        if (gp_pool_k8s_resources (&p, "single", names, counts, 2, &err) != 1)
            fail_msg ("%s %s: %s", m->accel_id, m->profile, err.text);
        if (counts[0] != m->max_instances)
            fail_msg ("%s %s: %lld per GPU, the catalog says %d",
                      m->accel_id, m->profile, counts[0], m->max_instances);
    }
}

/* =============================== Kueue ================================= */

static const char spec_host[] =
    "name: lab\n"
    "pools:\n"
    "  - {name: h100, accelerator: H100-SXM, gpus_per_node: 8, nodes: 10,\n"
    "     host_memory: 1TiB, cpus_per_node: 96}\n"
    "  - {name: mi300x, accelerator: MI300X, gpus_per_node: 8, nodes: 5}\n"
    "teams:\n"
    "  - {name: a, quota: {h100: 40, mi300x: 40}, cohort: c}\n"
    "  - {name: b, cohort: c, borrowing_limit: 12}\n";

static void test_kueue_cpu_memory (void **state)
{
    (void)state;
    struct gp_export *x = render (spec_host, GP_EXPORT_KUEUE, 0);
    assert_int_equal (x->n_files, 1); /* every host known: no Configuration */
    const char *t = x->files[0].text;
    has (t, "coveredResources: [cpu, memory, nvidia.com/gpu, amd.com/gpu]");
    /* a, h100: 40 GPUs x 96 cpus / 8 = 480 cpus, x 1 TiB / 8 = 5Ti. */
    has (t, "    - name: h100\n      resources:\n"
            "      - name: cpu\n        nominalQuota: 480\n"
            "      - name: memory\n        nominalQuota: \"5Ti\"\n"
            "      - name: nvidia.com/gpu\n        nominalQuota: 40\n"
            "      - name: amd.com/gpu\n        nominalQuota: 0\n");
    /* a, mi300x: no host in the spec; the catalog's MI300X row (96 vCPUs,
     * 1850 GiB per 8 GPUs) -> 480 cpus, 40 x 1850 / 8 = 9250Gi. */
    has (t, "    - name: mi300x\n      resources:\n"
            "      - name: cpu\n        nominalQuota: 480\n"
            "      - name: memory\n        nominalQuota: \"9250Gi\"\n"
            "      - name: nvidia.com/gpu\n        nominalQuota: 0\n"
            "      - name: amd.com/gpu\n        nominalQuota: 40\n");
    gp_export_destroy (x);
}

/* Bug: a team without a quota got the whole pool as nominal quota.  Now it
 * has nominal 0 and borrows through its cohort. */
static void test_kueue_quota_less (void **state)
{
    (void)state;
    struct gp_export *x = render (spec_host, GP_EXPORT_KUEUE, 0);
    const char *t = x->files[0].text;
    const char *b = strstr (t, "  name: b\n");
    assert_non_null (b);
    /* b borrows at most 12 GPUs split by pool size (80:40 -> 8 + 4);
     * 8 h100 GPUs bring 96 cpus and 1Ti. */
    has (b, "    - name: h100\n      resources:\n"
            "      - name: cpu\n        nominalQuota: 0\n"
            "        borrowingLimit: 96\n"
            "      - name: memory\n        nominalQuota: 0\n"
            "        borrowingLimit: \"1Ti\"\n"
            "      - name: nvidia.com/gpu\n        nominalQuota: 0\n"
            "        borrowingLimit: 8\n");
    has (b, "      - name: amd.com/gpu\n        nominalQuota: 0\n"
            "        borrowingLimit: 4\n");
    lacks (b, "nominalQuota: 80");
    lacks (b, "lendingLimit");
    gp_export_destroy (x);
    /* Without a cohort it could admit nothing: an error naming the team. */
    gp_error_t err = render_err (
        "name: lab\npools:\n"
        "  - {name: h100, accelerator: H100-SXM, gpus_per_node: 8, nodes: 2}\n"
        "teams:\n  - {name: a, quota: 8}\n  - {name: z}\n",
        GP_EXPORT_KUEUE);
    assert_int_equal (err.code, GP_EINVAL);
    assert_non_null (strstr (err.text, "teams[1] 'z': no quota and no cohort"));
}

static void test_kueue_api_versions (void **state)
{
    (void)state;
    struct gp_export *x1 = render (spec_host, GP_EXPORT_KUEUE, 1);
    struct gp_export *x2 = render (spec_host, GP_EXPORT_KUEUE, 2);
    const char *t1 = x1->files[0].text, *t2 = x2->files[0].text;
    has (t1, "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\n");
    has (t1, "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Topology\n");
    has (t1, "spec:\n  cohort: c\n");
    lacks (t1, "v1beta2");
    lacks (t1, "cohortName");
    has (t2, "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n");
    has (t2, "spec:\n  cohortName: c\n");
    lacks (t2, "v1beta1");
    lacks (t2, "  cohort: ");
    /* Topology: block, rack, host; every flavor refers to it. */
    has (t2, "kind: Topology\nmetadata:\n  name: lab-topology\nspec:\n"
             "  levels:\n  - nodeLabel: gpuplan.io/block\n"
             "  - nodeLabel: gpuplan.io/rack\n"
             "  - nodeLabel: kubernetes.io/hostname\n");
    has (t2, "  name: mi300x\nspec:\n  nodeLabels:\n"
             "    gpuplan.io/pool: mi300x\n  topologyName: lab-topology\n");
    gp_export_destroy (x1);
    gp_export_destroy (x2);
}

/* Without a host size anywhere (no spec values, no catalog row), cpu and
 * memory are excluded by a Kueue Configuration of the chosen API. */
static void test_kueue_config (void **state)
{
    (void)state;
    static const char spec[] =
        "name: lab\npools:\n"
        "  - {name: tpu, accelerator: TPU-V5P, gpus_per_node: 4, nodes: 2}\n";
    for (int api = 1; api <= 2; api++) {
        struct gp_export *x = render (spec, GP_EXPORT_KUEUE, api);
        assert_int_equal (x->n_files, 2);
        has (x->files[0].text, "coveredResources: [google.com/tpu]");
        has (x->files[0].text, "# cpu and memory are not under quota: pool "
                               "'tpu' has no host size");
        has (x->files[1].text, api == 1 ? "config.kueue.x-k8s.io/v1beta1\n"
                                        : "config.kueue.x-k8s.io/v1beta2\n");
        has (x->files[1].text, "kind: Configuration\nresources:\n"
                               "  excludeResourcePrefixes: [cpu, memory]\n");
        gp_export_destroy (x);
    }
}

static void test_kueue_mig (void **state)
{
    (void)state;
    static const char spec[] =
        "name: lab\npools:\n"
        "  - {name: a100mig, accelerator: A100-SXM-80GB, gpus_per_node: 8,\n"
        "     nodes: 4, mig: [3g.40gb, 1g.10gb]}\n"
        "teams:\n  - {name: a, quota: 16}\n";
    struct gp_export *x = render (spec, GP_EXPORT_KUEUE, 0);
    const char *t = x->files[0].text;
    has (t, "coveredResources: [cpu, memory, nvidia.com/mig-1g.10gb, "
            "nvidia.com/mig-3g.40gb]");
    /* Per node 28 x 1g.10gb and 8 x 3g.40gb; 16 of 32 GPUs -> 56 and 16.
     * Host from the catalog's A100-SXM-80GB rows: 96 vCPUs per 8 and the
     * smallest memory, 1152 GiB per 8 -> 16 GPUs: 192 cpus, 2304Gi. */
    has (t, "      - name: cpu\n        nominalQuota: 192\n"
            "      - name: memory\n        nominalQuota: \"2304Gi\"\n"
            "      - name: nvidia.com/mig-1g.10gb\n        nominalQuota: 56\n"
            "      - name: nvidia.com/mig-3g.40gb\n        nominalQuota: 16\n");
    lacks (t, "nvidia.com/gpu");
    gp_export_destroy (x);
}

/* ============================== Volcano ================================ */

/* Bug: the cohort's parent queue had no deserved, which the v1.15 webhook
 * rejects once children carry one. */
static void test_volcano_hierarchy (void **state)
{
    (void)state;
    struct gp_export *x = render (spec_host, GP_EXPORT_VOLCANO, 0);
    const char *t = x->files[0].text;
    /* Parent c = a's quota (b has none): 40 h100 + 40 mi300x -> cpu 480 +
     * 480, memory 5Ti + 9250Gi = 14370Gi. */
    has (t, "  name: c\nspec:\n  weight: 1\n  reclaimable: true\n"
            "  deserved:\n    cpu: 960\n    memory: \"14370Gi\"\n"
            "    nvidia.com/gpu: 40\n    amd.com/gpu: 40\n"
            "  capability:\n    cpu: 960\n    memory: \"14370Gi\"\n"
            "    nvidia.com/gpu: 40\n    amd.com/gpu: 40\n");
    /* b: deserved 0, capability its borrowing (8 h100 + 4 mi300x) within
     * what c holds: cpu 96 + 4 x 96 / 8 = 144, memory 1Ti + 4 x 1850Gi / 8
     * = 1024Gi + 925Gi. */
    has (t, "  name: b\nspec:\n  weight: 1\n  reclaimable: true\n"
            "  parent: c\n  deserved:\n    cpu: 0\n    memory: 0\n"
            "    nvidia.com/gpu: 0\n    amd.com/gpu: 0\n"
            "  capability:\n    cpu: 144\n    memory: \"1949Gi\"\n"
            "    nvidia.com/gpu: 8\n    amd.com/gpu: 4\n");
    /* The parent comes before its children. */
    assert_true (strstr (t, "  name: c\n") < strstr (t, "  name: a\n"));
    gp_export_destroy (x);
    gp_error_t err = render_err (
        "name: lab\npools:\n"
        "  - {name: h100, accelerator: H100-SXM, gpus_per_node: 8, nodes: 2}\n"
        "teams:\n  - {name: a, quota: 8, cohort: root}\n",
        GP_EXPORT_VOLCANO);
    assert_non_null (strstr (err.text, "teams[0].cohort 'root'"));
    err = render_err (
        "name: lab\npools:\n"
        "  - {name: h100, accelerator: H100-SXM, gpus_per_node: 8, nodes: 2}\n"
        "teams:\n  - {name: a, quota: 8, cohort: b}\n  - {name: b, quota: 8}\n",
        GP_EXPORT_VOLCANO);
    assert_non_null (strstr (err.text, "teams[0].cohort 'b' is also a team"));
}

/* ======================== names and free text ========================== */

static void test_hostile_names (void **state)
{
    (void)state;
    static const struct {
        const char *spec, *field;
    } bad[] = {
        {"name: lab\npools:\n  - {name: \"a\\nb: c\", accelerator: H100-SXM,"
         " gpus_per_node: 8, nodes: 1}\n", "pools[0].name 'a\\x0ab: c'"},
        {"name: \"#x\"\npools:\n  - {name: a, accelerator: H100-SXM,"
         " gpus_per_node: 8, nodes: 1}\n", "name '#x'"},
        {"name: lab\npools:\n  - {name: a, accelerator: H100-SXM,"
         " gpus_per_node: 8, nodes: 1}\nteams:\n  - {name: \"true\","
         " quota: 8, cohort: c}\n", NULL},
        {"name: lab\npools:\n  - {name: a, accelerator: H100-SXM,"
         " gpus_per_node: 8, nodes: 1}\nteams:\n  - {name: t, quota: 8,"
         " cohort: \"x: y\"}\n", "teams[0].cohort 'x: y'"},
        {"name: lab\npools:\n  - {name: a, accelerator: H100-SXM,"
         " gpus_per_node: 8, nodes: 1}\nteams:\n  - {name: \"#x\","
         " quota: 8}\n", "teams[0].name '#x'"},
    };
    for (int t = 0; t < 2; t++) {
        enum gp_export_target tg = t ? GP_EXPORT_VOLCANO : GP_EXPORT_KUEUE;
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
            if (!bad[i].field) {
                /* "true" is a valid DNS-1123 label: written quoted so that
                 * it stays a string. */
                struct gp_export *x = render (bad[i].spec, tg, 0);
                has (x->files[0].text, "name: \"true\"\n");
                lacks (x->files[0].text, "name: true\n");
                gp_export_destroy (x);
                continue;
            }
            gp_error_t err = render_err (bad[i].spec, tg);
            assert_int_equal (err.code, GP_EINVAL);
            if (!strstr (err.text, bad[i].field))
                fail_msg ("'%s' does not name %s", err.text, bad[i].field);
        }
    }
}

/* Every description written reads back, through a YAML parser, as the
 * text meant (negative priorities included). */
static void test_descriptions_round_trip (void **state)
{
    (void)state;
    static const char spec[] =
        "name: lab\npools:\n"
        "  - {name: h100, accelerator: H100-SXM, gpus_per_node: 8, nodes: 2}\n"
        "teams:\n  - {name: a, quota: 8, priority: -5}\n"
        "  - {name: b, quota: 8, priority: 7}\n";
    struct gp_export *x = render (spec, GP_EXPORT_KUEUE, 0);
    const char *t = x->files[0].text;
    yaml_parser_t p;
    assert_true (yaml_parser_initialize (&p));
    yaml_parser_set_input_string (&p, (const unsigned char *)t, strlen (t));
    int found = 0, want_value = 0, done = 0;
    static const char *const want[] = {
        "priority class -5 of the gpuplan spec",
        "priority class 7 of the gpuplan spec",
    };
    while (!done) {
        yaml_event_t ev;
        assert_true (yaml_parser_parse (&p, &ev));
        if (ev.type == YAML_SCALAR_EVENT) {
            const char *v = (const char *)ev.data.scalar.value;
            if (want_value) {
                assert_true (found < 2);
                assert_string_equal (v, want[found]);
                found++;
                want_value = 0;
            } else {
                want_value = !strcmp (v, "description");
            }
        } else {
            want_value = 0;
        }
        done = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete (&ev);
    }
    yaml_parser_delete (&p);
    assert_int_equal (found, 2);
    has (t, "  name: priority-m5\nvalue: -5\n");
    gp_export_destroy (x);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_resources_plain),
        cmocka_unit_test (test_resources_mig),
        cmocka_unit_test (test_resources_catalog_rows),
        cmocka_unit_test (test_kueue_cpu_memory),
        cmocka_unit_test (test_kueue_quota_less),
        cmocka_unit_test (test_kueue_api_versions),
        cmocka_unit_test (test_kueue_config),
        cmocka_unit_test (test_kueue_mig),
        cmocka_unit_test (test_volcano_hierarchy),
        cmocka_unit_test (test_hostile_names),
        cmocka_unit_test (test_descriptions_round_trip),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
