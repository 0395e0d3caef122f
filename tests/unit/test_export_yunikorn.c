/* test_export_yunikorn.c - the yunikorn export target: the ConfigMap
 * around queues.yaml, the queue hierarchy and its resources, the
 * properties each simulated policy maps to, placement rules, and the
 * names and policies YuniKorn cannot take.
 *
 * Expected values are worked out by hand from the spec below
 * (docs/formats/export-yunikorn.md): one pool of 4 nodes x 8 H100 with 96
 * CPUs and 1 TiB per node, so one GPU brings 12 vcore and 128 GiB; alpha
 * (quota 16) and beta (quota 8, borrowing limit 4) share cohort research,
 * ops (quota 8) has none.
 *   alpha: guaranteed 16 GPUs, 192 vcore, 2Ti; max 16 + 8 (beta's quota,
 *          no borrowing limit) = 24 GPUs, 288 vcore, 3Ti
 *   beta:  guaranteed 8 GPUs, 96 vcore, 1Ti; max 8 + min(4, 16) = 12 GPUs,
 *          144 vcore, 1536Gi
 *   ops:   guaranteed = max = 8 GPUs, 96 vcore, 1Ti
 *   research: guaranteed = max = 24 GPUs, 288 vcore, 3Ti (what its
 *          members hold)
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

static const char *SPEC =
    "name: lab\n"
    "pools:\n"
    "  - {name: h100, accelerator: H100-SXM, gpus_per_node: 8, nodes: 4,\n"
    "     cpus_per_node: 96, host_memory: 1TiB}\n"
    "teams:\n"
    "  - {name: alpha, quota: 16, cohort: research, priority: 5}\n"
    "  - {name: beta, quota: 8, cohort: research, borrowing_limit: 4,\n"
    "     priority: -2}\n"
    "  - {name: ops, quota: 8}\n";

/* Whether renders get the catalog (host sizes of pools without them). */
static int use_catalog = 1;

/* Render 'spec' with the plan policy 'policy' (NULL = from a cluster
 * spec); NULL with 'err' set on failure. */
static struct gp_export *render_err (const char *spec, const char *policy,
                                     gp_error_t *err)
{
    struct gp_cluster *c = fx_cluster (spec, "yk.yaml", err);
    if (!c)
        return NULL;
    struct gp_plan_spec *ps = calloc (1, sizeof *ps);
    assert_non_null (ps);
    struct gp_export_plan plan = {.spec = ps};
    struct gp_export_opts o = {.catalog = use_catalog ? cat : NULL};
    if (policy) {
        snprintf (ps->policy, sizeof ps->policy, "%s", policy);
        o.plan = &plan;
    }
    struct gp_export *x = gp_export_render_opts (c, GP_EXPORT_YUNIKORN, &o,
                                                 err);
    free (ps);
    gp_cluster_destroy (c);
    return x;
}

static struct gp_export *render (const char *spec, const char *policy)
{
    gp_error_t err = {0};
    struct gp_export *x = render_err (spec, policy, &err);
    if (!x)
        fail_msg ("%s", err.text);
    assert_int_equal (x->n_files, 1);
    assert_string_equal (x->files[0].name, "yunikorn-configs.yaml");
    return x;
}

/* The value of key 'key' of mapping 'node', or NULL. */
static yaml_node_t *get (yaml_document_t *d, yaml_node_t *node,
                         const char *key)
{
    if (!node || node->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = node->data.mapping.pairs.start;
         p < node->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node (d, p->key);
        if (k && k->type == YAML_SCALAR_NODE
            && !strcmp ((char *)k->data.scalar.value, key))
            return yaml_document_get_node (d, p->value);
    }
    return NULL;
}

/* The ConfigMap's data["queues.yaml"], read back with libyaml (so it is
 * one string), after checking the ConfigMap's identity; the caller frees
 * it. */
static char *queues_yaml (const char *text)
{
    yaml_parser_t p;
    yaml_document_t d;
    assert_true (yaml_parser_initialize (&p));
    yaml_parser_set_input_string (&p, (const unsigned char *)text,
                                  strlen (text));
    assert_true (yaml_parser_load (&p, &d));
    yaml_node_t *root = yaml_document_get_root_node (&d);
    yaml_node_t *md = get (&d, root, "metadata");
    assert_string_equal ((char *)get (&d, root, "apiVersion")->data.scalar.value,
                         "v1");
    assert_string_equal ((char *)get (&d, root, "kind")->data.scalar.value,
                         "ConfigMap");
    assert_string_equal ((char *)get (&d, md, "name")->data.scalar.value,
                         "yunikorn-configs");
    assert_string_equal ((char *)get (&d, md, "namespace")->data.scalar.value,
                         "yunikorn");
    yaml_node_t *q = get (&d, get (&d, root, "data"), "queues.yaml");
    assert_non_null (q);
    assert_int_equal (q->type, YAML_SCALAR_NODE);
    assert_int_equal (q->data.scalar.style, YAML_LITERAL_SCALAR_STYLE);
    char *s = strdup ((char *)q->data.scalar.value);
    yaml_document_delete (&d);
    yaml_parser_delete (&p);
    return s;
}

static void test_hierarchy (void **state)
{
    (void)state;
    use_catalog = 1;
    struct gp_export *x = render (SPEC, NULL);
    char *q = queues_yaml (x->files[0].text);
    has (q, "partitions:\n- name: default\n");
    /* root: no resources; the cohort a parent queue; ops under root. */
    has (q, "  queues:\n  - name: root\n    submitacl: \"*\"\n"
            "    properties:\n      application.sort.priority: disabled\n"
            "    queues:\n    - name: research\n      parent: true\n");
    has (q, "      resources:\n        guaranteed:\n          vcore: 288\n"
            "          memory: \"3Ti\"\n          nvidia.com/gpu: 24\n"
            "        max:\n          vcore: 288\n          memory: \"3Ti\"\n"
            "          nvidia.com/gpu: 24\n      queues:\n"
            "      - name: alpha\n");
    has (q, "      - name: alpha\n        properties:\n"
            "          application.sort.policy: fifo\n"
            "        resources:\n          guaranteed:\n"
            "            vcore: 192\n            memory: \"2Ti\"\n"
            "            nvidia.com/gpu: 16\n          max:\n"
            "            vcore: 288\n            memory: \"3Ti\"\n"
            "            nvidia.com/gpu: 24\n");
    has (q, "      - name: beta\n        properties:\n"
            "          application.sort.policy: fifo\n"
            "        resources:\n          guaranteed:\n"
            "            vcore: 96\n            memory: \"1Ti\"\n"
            "            nvidia.com/gpu: 8\n          max:\n"
            "            vcore: 144\n            memory: \"1536Gi\"\n"
            "            nvidia.com/gpu: 12\n");
    has (q, "    - name: ops\n      properties:\n"
            "        application.sort.policy: fifo\n"
            "      resources:\n        guaranteed:\n"
            "          vcore: 96\n          memory: \"1Ti\"\n"
            "          nvidia.com/gpu: 8\n        max:\n"
            "          vcore: 96\n          memory: \"1Ti\"\n"
            "          nvidia.com/gpu: 8\n");
    lacks (q, "cpu");
    lacks (q, "log.level");
    free (q);
    gp_export_destroy (x);
}

static void test_placement (void **state)
{
    (void)state;
    struct gp_export *x = render (SPEC, NULL);
    char *q = queues_yaml (x->files[0].text);
    /* provided, then the namespace's queue under the cohort, then under
     * root; never created. */
    has (q, "  placementrules:\n  - name: provided\n    create: false\n"
            "  - name: tag\n    value: namespace\n    create: false\n"
            "    parent:\n      name: fixed\n      value: root.research\n"
            "  - name: tag\n    value: namespace\n    create: false\n"
            "  preemption:\n");
    free (q);
    gp_export_destroy (x);
}

/* fair-share (a cluster spec's default): preemption on, priority not in
 * the sort, cohorts fenced, no offsets. */
static void test_policy_fair_share (void **state)
{
    (void)state;
    for (int from_plan = 0; from_plan < 2; from_plan++) {
        struct gp_export *x = render (SPEC, from_plan ? "fair-share" : NULL);
        char *q = queues_yaml (x->files[0].text);
        has (x->files[0].text, from_plan ? "policy fair-share\n# (as the "
                                           "plan simulated)"
                                         : "policy fair-share\n# (gpuplan's "
                                           "default)");
        has (q, "  preemption:\n    enabled: true\n");
        has (q, "application.sort.priority: disabled\n");
        has (q, "      parent: true\n      properties:\n"
                "        preemption.policy: fence\n");
        lacks (q, "priority.offset");
        lacks (q, "application.sort.policy: fair");
        free (q);
        gp_export_destroy (x);
    }
}

/* priority: preemption on, priority in the sort, a team's priority as its
 * queue's offset (ops has priority 0: no offset), no fence. */
static void test_policy_priority (void **state)
{
    (void)state;
    struct gp_export *x = render (SPEC, "priority");
    char *q = queues_yaml (x->files[0].text);
    has (q, "  preemption:\n    enabled: true\n");
    has (q, "application.sort.priority: enabled\n");
    has (q, "      - name: alpha\n        properties:\n"
            "          application.sort.policy: fifo\n"
            "          priority.offset: \"5\"\n");
    has (q, "      - name: beta\n        properties:\n"
            "          application.sort.policy: fifo\n"
            "          priority.offset: \"-2\"\n");
    has (q, "    - name: ops\n      properties:\n"
            "        application.sort.policy: fifo\n      resources:\n");
    lacks (q, "fence");
    free (q);
    gp_export_destroy (x);
}

/* fifo and fifo-backfill: no preemption, priorities ignored. */
static void test_policy_fifo (void **state)
{
    (void)state;
    static const char *const pol[] = {"fifo", "fifo-backfill"};
    for (size_t i = 0; i < 2; i++) {
        struct gp_export *x = render (SPEC, pol[i]);
        char *q = queues_yaml (x->files[0].text);
        has (q, "  preemption:\n    enabled: false\n");
        has (q, "application.sort.priority: disabled\n");
        lacks (q, "priority.offset");
        lacks (q, "fence");
        free (q);
        gp_export_destroy (x);
    }
}

/* las and srtf order by attained / remaining service: not expressible,
 * so the target does not apply (no file, the reason said). */
static void test_policy_unsupported (void **state)
{
    (void)state;
    static const char *const pol[] = {"las", "srtf"};
    for (size_t i = 0; i < 2; i++) {
        gp_error_t err = {0};
        struct gp_export *x = render_err (SPEC, pol[i], &err);
        if (!x)
            fail_msg ("%s", err.text);
        assert_int_equal (x->n_files, 0);
        has (x->not_applicable, pol[i]);
        has (x->not_applicable, "no YuniKorn equivalent");
        has (x->not_applicable, "fair-share");
        gp_export_destroy (x);
    }
}

/* Names YuniKorn cannot take, each naming the field. */
static void test_names (void **state)
{
    (void)state;
    static const struct {
        const char *spec, *want;
    } bad[] = {
        {"name: lab\npools:\n  - {name: p, accelerator: H100-SXM, "
         "gpus_per_node: 8, nodes: 1}\nteams:\n  - {name: root, quota: 8}\n",
         "teams[0].name 'root'"},
        {"name: lab\npools:\n  - {name: p, accelerator: H100-SXM, "
         "gpus_per_node: 8, nodes: 1}\nteams:\n  - {name: a, quota: 8, "
         "cohort: root}\n",
         "teams[0].cohort 'root'"},
        {"name: lab\npools:\n  - {name: p, accelerator: H100-SXM, "
         "gpus_per_node: 8, nodes: 1}\nteams:\n  - {name: a, quota: 4, "
         "cohort: b}\n  - {name: b, quota: 4}\n",
         "teams[0].cohort 'b' is also a team"},
        {"name: lab\npools:\n  - {name: p, accelerator: H100-SXM, "
         "gpus_per_node: 8, nodes: 1}\nteams:\n  - {name: Big_Team, "
         "quota: 8}\n",
         "teams[0].name"},
        {"name: lab\npools:\n  - {name: p, accelerator: H100-SXM, "
         "gpus_per_node: 8, nodes: 1}\nteams:\n  - {name: a}\n",
         "no quota and no cohort"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        gp_error_t err = {0};
        assert_null (render_err (bad[i].spec, NULL, &err));
        assert_int_equal (err.code, GP_EINVAL);
        has (err.text, bad[i].want);
    }
}

/* MIG pools: mixed-strategy resources (gp_pool_k8s_resources); a pool
 * without host size leaves vcore and memory out, with a note.  A100-80GB
 * x 8, mig [1g.10gb, 3g.40gb]: 4 GPUs x 7 = 28 1g.10gb and 4 x 2 = 8
 * 3g.40gb per node; 2 nodes; team t has the whole pool. */
static void test_mig_no_host (void **state)
{
    (void)state;
    use_catalog = 0;
    struct gp_export *x = render (
        "name: lab\npools:\n  - {name: mig, accelerator: A100-SXM-80GB, "
        "gpus_per_node: 8, nodes: 2, mig: [1g.10gb, 3g.40gb]}\n"
        "teams:\n  - {name: t, quota: 16}\n",
        NULL);
    has (x->files[0].text, "# vcore and memory are left out");
    char *q = queues_yaml (x->files[0].text);
    has (q, "        guaranteed:\n          nvidia.com/mig-1g.10gb: 56\n"
            "          nvidia.com/mig-3g.40gb: 16\n");
    lacks (q, "vcore");
    lacks (q, "nvidia.com/gpu");
    free (q);
    gp_export_destroy (x);
    use_catalog = 1;
}

/* A spec without teams: one leaf 'default' holding the cluster, no
 * placement rule under a cohort.  Host sizes from the catalog's H100-SXM
 * instance rows, the smallest per GPU (docs/formats/export-kueue.md): CPUs
 * 96 / 8 = 12 (Azure ND96isr), memory 1872 GiB / 8 = 234 GiB (GCP a3), so
 * 16 GPUs bring 192 vcore and 3744Gi. */
static void test_no_teams (void **state)
{
    (void)state;
    use_catalog = 1;
    struct gp_export *x = render (
        "name: lab\npools:\n  - {name: p, accelerator: H100-SXM, "
        "gpus_per_node: 8, nodes: 2}\n",
        NULL);
    char *q = queues_yaml (x->files[0].text);
    has (q, "    - name: default\n");
    has (q, "        guaranteed:\n          vcore: 192\n"
            "          memory: \"3744Gi\"\n          nvidia.com/gpu: 16\n"
            "        max:\n          vcore: 192\n"
            "          memory: \"3744Gi\"\n          nvidia.com/gpu: 16\n");
    lacks (q, "name: fixed");
    lacks (q, "parent: true");
    free (q);
    gp_export_destroy (x);
}

/* A cluster name that is not a DNS-1123 label fails naming the field. */
static void test_bad_cluster_name (void **state)
{
    (void)state;
    gp_error_t err = {0};
    assert_null (render_err ("name: \"a\\nb\"\npools:\n  - {name: p, "
                             "accelerator: H100-SXM, gpus_per_node: 8, "
                             "nodes: 1}\n",
                             NULL, &err));
    assert_int_equal (err.code, GP_EINVAL);
    has (err.text, "name");
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_hierarchy),
        cmocka_unit_test (test_placement),
        cmocka_unit_test (test_policy_fair_share),
        cmocka_unit_test (test_policy_priority),
        cmocka_unit_test (test_policy_fifo),
        cmocka_unit_test (test_policy_unsupported),
        cmocka_unit_test (test_names),
        cmocka_unit_test (test_mig_no_host),
        cmocka_unit_test (test_no_teams),
        cmocka_unit_test (test_bad_cluster_name),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
