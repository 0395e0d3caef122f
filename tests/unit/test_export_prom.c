/* test_export_prom.c - per-team GPU caps (gp__pool_cap) with hand-worked
 * numbers, the Prometheus rules' pool selection by the node label and
 * per-pool team alerts, the Grafana dashboard's structure, and hostile
 * names refused (docs/formats/export-prometheus.md,
 * docs/formats/export-grafana.md).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "export/export_private.h"
#include "export/quote.h"
#include "gpuplan/gpuplan.h"
#include "export_fixture.h"

static void caps (const struct gp_cluster *c, size_t team, long long *out)
{
    struct limits l;
    assert_int_equal (gp__limits_alloc (&l, c->n_pools), 0);
    gp__team_limits (c, &c->teams[team], l.nom, l.bor, l.len);
    for (size_t i = 0; i < c->n_pools; i++)
        out[i] = gp__pool_cap (c, &c->teams[team], &l, i);
    gp__limits_free (&l);
}

/* The cohort of tests/export/prom/mixed.yaml plus a third pool nobody has
 * a quota in.  Pools: h100 16, mi300x 8, a100 8 GPUs.
 */
static const char mixed[] =
    "name: mixed\npools:\n"
    "  - {name: h100, accelerator: H100-SXM, gpus_per_node: 8, nodes: 2}\n"
    "  - {name: mi300x, accelerator: MI300X, gpus_per_node: 8, nodes: 1}\n"
    "  - {name: a100, accelerator: A100-SXM-80GB, gpus_per_node: 8, nodes: "
    "1}\n"
    "teams:\n"
    "  - {name: a, quota: {h100: 4, mi300x: 4}, cohort: c, "
    "borrowing_limit: 4}\n"
    "  - {name: b, quota: {h100: 8}, cohort: c, lending_limit: 6}\n"
    "  - {name: d, quota: {h100: 4}}\n"
    "  - {name: e, quota: {h100: 2}, cohort: c, borrowing_limit: 100}\n";

static void test_caps (void **state)
{
    (void)state;
    struct gp_cluster *c = fx_cluster_ok (mixed, "c.yaml");
    long long k[3];
    /* a: quota 4/4/0, borrowing 4 split by its quota -> 2/2/0.
     *   h100: 4 + min(2, b lends min(8, 6) = 6, e lends 2) = 6
     *   mi300x: 4 + min(2, nobody else has mi300x quota) = 4
     *   a100: 0 + min(0, 0) = 0 */
    caps (c, 0, k);
    assert_int_equal (k[0], 6);
    assert_int_equal (k[1], 4);
    assert_int_equal (k[2], 0);
    /* b: no borrowing limit: 8 + a 4 + e 2 = 14 on h100; a's 4 on mi300x;
     * nothing on a100 (no member has quota there, so the pool's 8 GPUs are
     * nobody's to lend; before the fix: 16, 8 and 8). */
    caps (c, 1, k);
    assert_int_equal (k[0], 14);
    assert_int_equal (k[1], 4);
    assert_int_equal (k[2], 0);
    /* d: outside a cohort, its quota alone. */
    caps (c, 2, k);
    assert_int_equal (k[0], 4);
    assert_int_equal (k[1], 0);
    assert_int_equal (k[2], 0);
    /* e: borrowing limit 100, split by its quota: all on h100, so
     * 2 + min(100, a 4 + b 6) = 12 there and 0 + min(0, 4) = 0 on mi300x. */
    caps (c, 3, k);
    assert_int_equal (k[0], 12);
    assert_int_equal (k[1], 0);
    assert_int_equal (k[2], 0);
    gp_cluster_destroy (c);
}

/* A cohort whose members together hold more than the pool: capped. */
static void test_cap_pool (void **state)
{
    (void)state;
    static const char spec[] =
        "name: x\npools:\n"
        "  - {name: h100, accelerator: H100-SXM, gpus_per_node: 8, nodes: "
        "1}\n"
        "teams:\n"
        "  - {name: a, quota: 6, cohort: c}\n"
        "  - {name: b, quota: 6, cohort: c}\n";
    struct gp_cluster *c = fx_cluster_ok (spec, "c.yaml");
    long long k[1];
    caps (c, 0, k); /* 6 + 6 = 12 -> the pool's 8 */
    assert_int_equal (k[0], 8);
    gp_cluster_destroy (c);
}

static char *render (const char *spec, enum gp_export_target t)
{
    struct gp_cluster *c = fx_cluster_ok (spec, "c.yaml");
    gp_error_t err = {0};
    struct gp_export *x = gp_export_render (c, t, &err);
    if (!x)
        fail_msg ("%s", err.text);
    char *text = strdup (x->files[0].text);
    gp_export_destroy (x);
    gp_cluster_destroy (c);
    return text;
}

/* One alert per team and DCGM pool with that pool's cap; no alert for
 * the AMD pool; pools selected by the node label only.
 */
static void test_rules (void **state)
{
    (void)state;
    char *t = render (mixed, GP_EXPORT_PROMETHEUS);
    has (t, "gpuplan:team_pool_gpus:count{team=\\\"a\\\", "
            "pool=\\\"h100\\\"} > 6\"\n");
    has (t, "gpuplan:team_pool_gpus:count{team=\\\"b\\\", "
            "pool=\\\"a100\\\"} > 0\"\n");
    has (t, "gpuplan:team_pool_gpus:count{team=\\\"b\\\", "
            "pool=\\\"h100\\\"} > 14\"\n");
    assert_null (strstr (t, "pool=\\\"mi300x\\\"}"));
    assert_null (strstr (t, "=~\\\"h100"));
    has (t, "label_gpuplan_io_pool");
    has (t, "# pool mi300x (AMD): no DCGM metrics");
    free (t);
}

static json_t *panel_titled (json_t *d, const char *title)
{
    size_t i;
    json_t *p;
    json_array_foreach (json_object_get (d, "panels"), i, p)
        if (!strcmp (json_string_value (json_object_get (p, "title")), title))
            return p;
    fail_msg ("no panel '%s'", title);
    return NULL;
}

/* The dashboard from the spec: one datasource variable; the pool
 * variable lists the DCGM pools only and "All" is exactly those; each
 * team's panel has its quota and cap over the DCGM pools as thresholds
 * (a: h100 4 + a100 0 = 4, cap 6 + 0 = 6; b: 8, cap 14 + 0 = 14).
 */
static void test_grafana (void **state)
{
    (void)state;
    char *t = render (mixed, GP_EXPORT_GRAFANA);
    json_error_t je;
    json_t *d = json_loads (t, 0, &je);
    assert_non_null (d);
    json_t *vars = json_object_get (json_object_get (d, "templating"), "list");
    size_t i, n_ds = 0;
    json_t *v;
    json_array_foreach (vars, i, v)
    {
        const char *type = json_string_value (json_object_get (v, "type"));
        const char *name = json_string_value (json_object_get (v, "name"));
        if (!strcmp (type, "datasource")) {
            n_ds++;
            assert_string_equal (name, "datasource");
            assert_string_equal (
                json_string_value (json_object_get (v, "query")),
                "prometheus");
        }
        if (!strcmp (name, "pool")) {
            assert_string_equal (
                json_string_value (json_object_get (v, "query")),
                "h100,a100");
            assert_string_equal (
                json_string_value (json_object_get (v, "allValue")),
                "h100|a100");
        }
    }
    assert_int_equal (n_ds, 1);
    static const struct {
        const char *title;
        double quota, cap;
    } want[] = {
        {"Team a: GPUs against quota", 4, 6.5},
        {"Team b: GPUs against quota", 8, 14.5},
        {"Team d: GPUs against quota", 4, 4.5},
    };
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
        json_t *p = panel_titled (d, want[k].title);
        json_t *steps = json_object_get (
            json_object_get (
                json_object_get (json_object_get (p, "fieldConfig"),
                                 "defaults"),
                "thresholds"),
            "steps");
        assert_int_equal (json_array_size (steps), 3);
        assert_true (json_real_value (json_object_get (
                         json_array_get (steps, 1), "value"))
                     == want[k].quota);
        assert_true (json_real_value (json_object_get (
                         json_array_get (steps, 2), "value"))
                     == want[k].cap);
        assert_string_equal (
            json_string_value (json_object_get (
                json_object_get (p, "datasource"), "uid")),
            "${datasource}");
    }
    /* Team names reach PromQL quoted. */
    has (t, "sum(gpuplan:team_pool_gpus:count{team=\\\"a\\\", "
            "pool=~\\\"$pool\\\"})");
    json_decref (d);
    free (t);
}

/* Hostile names: every target that writes PromQL or Grafana JSON refuses
 * them, naming the field, before any text is written.
 */
static void test_hostile (void **state)
{
    (void)state;
    static const char *const bad[] = {
        "a\\\"} or vector(1) #", "a{b}", "a\\nb", "A", "a|b", "{{ $value }}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char spec[512];
        snprintf (spec, sizeof spec,
                  "name: x\npools:\n  - {name: h100, accelerator: H100-SXM, "
                  "gpus_per_node: 8, nodes: 1}\nteams:\n  - {name: \"%s\", "
                  "quota: 4}\n",
                  bad[i]);
        struct gp_cluster *c = fx_cluster_ok (spec, "c.yaml");
        for (int tg = GP_EXPORT_PROMETHEUS; tg <= GP_EXPORT_GRAFANA; tg++) {
            gp_error_t err = {0};
            assert_null (gp_export_render (c, (enum gp_export_target)tg,
                                           &err));
            assert_int_equal (err.code, GP_EINVAL);
            assert_non_null (strstr (err.text, "teams[0].name"));
        }
        gp_cluster_destroy (c);
    }
    /* The quoting the rules use escapes what would end the literal. */
    struct sb b = {0};
    gp__promql_str (&b, "a\"} or vector(1) #\n");
    assert_string_equal (b.s, "\"a\\\"} or vector(1) #\\n\"");
    free (b.s);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_caps),
        cmocka_unit_test (test_cap_pool),
        cmocka_unit_test (test_rules),
        cmocka_unit_test (test_grafana),
        cmocka_unit_test (test_hostile),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
