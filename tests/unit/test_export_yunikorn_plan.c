/* test_export_yunikorn_plan.c - the yunikorn export of a plan ties to the
 * plan: for examples/enterprise-plan.yaml's recommended on-prem option,
 * each team's leaf queue guarantees exactly the plan's quota in GPUs
 * (gp_plan_option.quotas), the teams sit in one cohort named after the
 * plan whose guarantee is their sum, and the properties follow the plan's
 * policy (fair-share).  The export is rendered as gp_export_render_plan
 * documents it for a cluster-level target: the option's cluster
 * (gp_plan_option_cluster) with the plan in the options.
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

/* The value of key 'key' of mapping 'n' in 'd', or NULL. */
static yaml_node_t *get (yaml_document_t *d, yaml_node_t *n, const char *key)
{
    if (!n || n->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
         p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node (d, p->key);
        if (k->type == YAML_SCALAR_NODE
            && !strcmp ((char *)k->data.scalar.value, key))
            return yaml_document_get_node (d, p->value);
    }
    return NULL;
}

static yaml_node_t *item (yaml_document_t *d, yaml_node_t *seq, size_t i)
{
    assert_non_null (seq);
    assert_int_equal (seq->type, YAML_SEQUENCE_NODE);
    assert_true (seq->data.sequence.items.start + i
                 < seq->data.sequence.items.top);
    return yaml_document_get_node (d, seq->data.sequence.items.start[i]);
}

static size_t n_items (yaml_node_t *seq)
{
    return (size_t)(seq->data.sequence.items.top
                    - seq->data.sequence.items.start);
}

static const char *str (yaml_node_t *n)
{
    assert_non_null (n);
    assert_int_equal (n->type, YAML_SCALAR_NODE);
    return (const char *)n->data.scalar.value;
}

static void load (yaml_document_t *d, const char *text)
{
    yaml_parser_t p;
    assert_true (yaml_parser_initialize (&p));
    yaml_parser_set_input_string (&p, (const unsigned char *)text,
                                  strlen (text));
    assert_true (yaml_parser_load (&p, d));
    yaml_parser_delete (&p);
}

/* Guaranteed nvidia.com/gpu of queue 'q' (0 when it guarantees none). */
static long long gpus (yaml_document_t *d, yaml_node_t *q)
{
    yaml_node_t *g = get (d, get (d, q, "resources"), "guaranteed");
    yaml_node_t *v = get (d, g, "nvidia.com/gpu");
    return v ? strtoll (str (v), NULL, 10) : 0;
}

static void test_enterprise_quotas (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (NULL, &err);
    assert_non_null (cat);
    struct gp_doc *doc =
        gp_doc_load (GP_SOURCE_DIR "/examples/enterprise-plan.yaml", &err);
    assert_non_null (doc);
    struct gp_plan_spec *s = gp_plan_spec_from_doc (doc, cat, &err);
    assert_non_null (s);
    struct gp_plan_result *r = gp_plan_run (s, cat, &err);
    if (!r)
        fail_msg ("%s", err.text);
    int oi = gp_plan_option_index (r, NULL, &err);
    if (oi < 0)
        fail_msg ("%s", err.text);
    const struct gp_plan_option *o = &r->options[oi];
    assert_int_equal (o->kind, GP_OPT_ONPREM);
    assert_true (o->n_quotas == s->n_teams && o->n_quotas == 3);

    struct gp_cluster *c = gp_plan_option_cluster (s, r, oi, cat, &err);
    if (!c)
        fail_msg ("%s", err.text);
    struct gp_export_plan plan = {.spec = s, .result = r, .option = oi};
    struct gp_export_opts opts = {.catalog = cat, .plan = &plan};
    struct gp_export *x = gp_export_render_opts (c, GP_EXPORT_YUNIKORN,
                                                 &opts, &err);
    if (!x)
        fail_msg ("%s", err.text);
    assert_non_null (strstr (x->files[0].text, "policy fair-share\n# (as "
                                               "the plan simulated)"));

    yaml_document_t outer, inner;
    load (&outer, x->files[0].text);
    yaml_node_t *cm = yaml_document_get_root_node (&outer);
    load (&inner, str (get (&outer, get (&outer, cm, "data"), "queues.yaml")));
    yaml_node_t *part = item (&inner, get (&inner,
                                           yaml_document_get_root_node (&inner),
                                           "partitions"), 0);
    yaml_node_t *root = item (&inner, get (&inner, part, "queues"), 0);
    assert_string_equal (str (get (&inner, root, "name")), "root");
    assert_null (get (&inner, root, "resources"));
    assert_string_equal (str (get (&inner, get (&inner, root, "properties"),
                                   "application.sort.priority")),
                         "disabled");
    yaml_node_t *kids = get (&inner, root, "queues");
    assert_int_equal (n_items (kids), 1);
    yaml_node_t *co = item (&inner, kids, 0);
    assert_string_equal (str (get (&inner, co, "name")), r->name);

    /* Each team's guarantee is its planned quota, in the plan's order. */
    yaml_node_t *leaves = get (&inner, co, "queues");
    assert_int_equal (n_items (leaves), o->n_quotas);
    long long sum = 0;
    for (size_t q = 0; q < o->n_quotas; q++) {
        yaml_node_t *leaf = item (&inner, leaves, q);
        assert_string_equal (str (get (&inner, leaf, "name")),
                             o->quotas[q].team);
        assert_int_equal (gpus (&inner, leaf), o->quotas[q].gpus);
        assert_true (o->quotas[q].gpus > 0);
        sum += o->quotas[q].gpus;
    }
    assert_int_equal (gpus (&inner, co), sum);
    assert_true (sum <= o->gpus);

    yaml_document_delete (&inner);
    yaml_document_delete (&outer);
    gp_export_destroy (x);
    gp_cluster_destroy (c);
    gp_plan_result_destroy (r);
    gp_plan_spec_destroy (s);
    gp_doc_destroy (doc);
    gp_catalog_destroy (cat);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_enterprise_quotas),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
