/* test_spec.c - YAML documents with positions, strict unpacking, and the
 * cluster spec.  Positions are counted by hand in the literal texts.
 */
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "gpuplan/cluster.h"
#include "gpuplan/spec.h"

static struct gp_doc *parse (const char *text, gp_error_t *err)
{
    return gp_doc_parse (text, strlen (text), "t.yaml", err);
}

static void test_scalars_and_positions (void **state)
{
    (void)state;
    const char *text = "a: 1\n"
                       "b: 2.5\n"
                       "c: \"3\"\n"
                       "d: true\n"
                       "e: ~\n"
                       "f: [x, 'y']\n"
                       "g:\n"
                       "  h: 80GB\n";
    gp_error_t err = {0};
    struct gp_doc *d = parse (text, &err);
    if (!d)
        fail_msg ("%s", err.text);
    json_t *r = gp_doc_root (d);
    assert_true (json_is_integer (json_object_get (r, "a")));
    assert_true (json_is_real (json_object_get (r, "b")));
    assert_true (json_is_string (json_object_get (r, "c"))); /* quoted */
    assert_true (json_is_true (json_object_get (r, "d")));
    assert_true (json_is_null (json_object_get (r, "e")));
    assert_int_equal (json_array_size (json_object_get (r, "f")), 2);
    json_t *h = json_object_get (json_object_get (r, "g"), "h");
    assert_string_equal (json_string_value (h), "80GB");
    int line, col;
    gp_doc_pos (d, h, &line, &col);
    assert_int_equal (line, 8);
    assert_int_equal (col, 6);
    gp_doc_pos (d, json_object_get (r, "b"), &line, &col);
    assert_int_equal (line, 2);
    assert_int_equal (col, 4);
    gp_doc_destroy (d);
}

struct target {
    char name[16];
    int count;
    double size;
    double ratio;
    int flag;
    int kind;
};

static const char *const kinds[] = {"small", "large", NULL};

static const struct gp_field fields[] = {
    {"name", GP_F_STRING, offsetof (struct target, name), 16, GP_F_REQUIRED,
     0, NULL, 0, 0},
    {"count", GP_F_INT, offsetof (struct target, count), 0, GP_F_REQUIRED, 0,
     NULL, 1, 100},
    {"size", GP_F_QUANTITY, offsetof (struct target, size), 0, 0, GP_Q_BYTES,
     NULL, 0, 0},
    {"ratio", GP_F_DOUBLE, offsetof (struct target, ratio), 0, 0, 0, NULL, 0,
     1},
    {"flag", GP_F_BOOL, offsetof (struct target, flag), 0, 0, 0, NULL, 0, 0},
    {"kind", GP_F_ENUM, offsetof (struct target, kind), 0, 0, 0, kinds, 0, 0},
    {NULL, 0, 0, 0, 0, 0, NULL, 0, 0},
};

static void test_unpack_ok (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_doc *d = parse ("name: x\ncount: 3\nsize: 2GiB\nratio: 0.5\n"
                              "flag: false\nkind: large\n",
                              &err);
    assert_non_null (d);
    struct target t = {.flag = 1};
    int rc = gp_doc_unpack (d, gp_doc_root (d), "spec", fields, &t, &err);
    if (rc)
        fail_msg ("%s", err.text);
    assert_string_equal (t.name, "x");
    assert_int_equal (t.count, 3);
    assert_true (t.size == 2.0 * 1073741824.0);
    assert_true (t.ratio == 0.5);
    assert_int_equal (t.flag, 0);
    assert_int_equal (t.kind, 1);
    gp_doc_destroy (d);
}

struct bad {
    const char *text;
    int code;
    const char *msg; /* substring of the message, incl. position */
};

/* Expected failures, each with the position a user would look at. */
static const struct bad bads[] = {
    {"name: x\ncount: 3\ncuont: 4\n", GP_EPARSE,
     "t.yaml:3:1: spec: unknown key 'cuont'; did you mean 'count'?"},
    {"name: x\n", GP_EPARSE, "missing required key 'count'"},
    {"name: x\ncount: three\n", GP_EPARSE,
     "t.yaml:2:8: spec.count: expected an integer, found a string"},
    {"name: x\ncount: 300\n", GP_ERANGE, "t.yaml:2:8: field 'spec.count': 300 outside [1, 100]"},
    {"name: x\ncount: 3\nsize: 80G\n", GP_EPARSE,
     "t.yaml:3:7: spec.size: '80G': not a valid bytes"},
    {"name: x\ncount: 3\nsize: -1\n", GP_ERANGE, "must not be negative"},
    {"name: x\ncount: 3\nflag: yes\n", GP_EPARSE,
     "spec.flag: expected true or false, found a string"},
    {"name: x\ncount: 3\nkind: huge\n", GP_EPARSE,
     "t.yaml:3:7: spec.kind: 'huge' is not one of: small, large"},
    {"name: [1]\ncount: 3\n", GP_EPARSE, "spec.name: expected a string"},
    {"name: abcdefghijklmnopqrstuvwxyz\ncount: 3\n", GP_ERANGE,
     "longer than 15"},
    {"- 1\n- 2\n", GP_EPARSE, "spec: expected a mapping, found a list"},
    /* issue 13: a present zero is out of range, not "unset" */
    {"name: x\ncount: 0\n", GP_ERANGE,
     "t.yaml:2:8: field 'spec.count': 0 outside [1, 100]"},
    {"name: x\ncount: 3\nratio: 1e300\n", GP_ERANGE,
     "t.yaml:3:8: field 'spec.ratio': 1e+300 outside [0, 1]"},
    /* a 231-digit integer: shown as 1.23456789e+230, never in full */
    {"name: x\ncount: 1"
     "2345678901234567890123456789012345678901234567890123456789"
     "0123456789012345678901234567890123456789012345678901234567"
     "8901234567890123456789012345678901234567890123456789012345"
     "67890123456789012345678901234567890123456789012345678901\n",
     GP_ERANGE, "t.yaml:2:8: field 'spec.count': 1.23456789e+230 outside "
                "[1, 100]"},
};

static void test_unpack_bad (void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        gp_error_t err = {0};
        struct gp_doc *d = parse (bads[i].text, &err);
        if (!d)
            fail_msg ("case %zu did not parse: %s", i, err.text);
        struct target t;
        memset (&t, 0, sizeof t);
        int rc = gp_doc_unpack (d, gp_doc_root (d), "spec", fields, &t, &err);
        if (rc != bads[i].code || !strstr (err.text, bads[i].msg))
            fail_msg ("case %zu: rc %d (want %d), message '%s' lacks '%s'", i,
                      rc, bads[i].code, err.text, bads[i].msg);
        gp_doc_destroy (d);
    }
}

static const struct bad parse_bads[] = {
    {"a: 1\na: 2\n", GP_EPARSE, "t.yaml:2:1: duplicate key 'a'"},
    {"a: &x 1\nb: *x\n", GP_EPARSE, "t.yaml:2:4: YAML aliases"},
    {"a: 1\n---\nb: 2\n", GP_EPARSE, "more than one document"},
    {"a: [1, 2\n", GP_EPARSE, "t.yaml:2:"},
    {"a: !!binary aGk=\n", GP_EPARSE, "unsupported YAML tag"},
    {"? [a, b]\n: 1\n", GP_EPARSE, "mapping key must be a plain scalar"},
    {"a:\n\tb: 1\n", GP_EPARSE, "t.yaml:2:"},
    /* issue 13: a number beyond a double was "out of memory" (exit 3) */
    {"a: 1\nb: 1e999\n", GP_ERANGE,
     "t.yaml:2:4: field 'b': 1e999 is beyond the largest number"},
    {"a: [1, -1e999]\n", GP_ERANGE, "t.yaml:1:8: item 1: -1e999"},
    /* issue 13: bad UTF-8 was always reported at 1:1 */
    {"a: 1\nb: \"x\xff\"\n", GP_EPARSE,
     "t.yaml:2:6: invalid leading UTF-8 octet"},
};

static void test_parse_bad (void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof parse_bads / sizeof parse_bads[0]; i++) {
        gp_error_t err = {0};
        struct gp_doc *d = parse (parse_bads[i].text, &err);
        if (d || err.code != parse_bads[i].code
            || !strstr (err.text, parse_bads[i].msg))
            fail_msg ("case %zu: '%s' lacks '%s'", i, err.text,
                      parse_bads[i].msg);
    }
    gp_error_t err;
    assert_null (gp_doc_load ("/nonexistent/x.yaml", &err));
    assert_int_equal (err.code, GP_EIO);
    assert_non_null (strstr (err.text, "/nonexistent/x.yaml"));
    assert_null (gp_doc_parse (NULL, 0, "x", &err));
    assert_int_equal (err.code, GP_EINVAL);
    /* An empty document parses to null, which unpacking rejects. */
    struct gp_doc *d = parse ("", &err);
    assert_non_null (d);
    struct target t;
    assert_int_equal (gp_doc_unpack (d, gp_doc_root (d), "spec", fields, &t,
                                     &err),
                      GP_EPARSE);
    gp_doc_destroy (d);
}

static void test_cluster (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (NULL, &err);
    assert_non_null (cat);
    struct gp_doc *d = parse ("name: lab\n"
                              "pools:\n"
                              "  - name: a100\n"
                              "    accelerator: A100-SXM-80GB\n"
                              "    gpus_per_node: 8\n"
                              "    nodes: 250\n"
                              "  - name: l4\n"
                              "    accelerator: L4\n"
                              "    gpus_per_node: 4\n"
                              "    nodes: 10\n",
                              &err);
    assert_non_null (d);
    struct gp_cluster *c = gp_cluster_from_doc (d, cat, &err);
    if (!c)
        fail_msg ("%s", err.text);
    assert_string_equal (c->name, "lab");
    assert_int_equal (c->n_pools, 2);
    assert_int_equal (c->pools[0].scale_up_domain, 8); /* NVSwitch node */
    assert_int_equal (c->pools[1].scale_up_domain, 1); /* PCIe-only L4 */
    struct gp_cluster_totals t;
    gp_cluster_totals (c, &t);
    assert_int_equal (t.gpus, 2040);
    assert_int_equal (t.nodes, 260);
    /* 2000 x 312 TF + 40 x 121 TF (datasheets, dense BF16) */
    assert_true (fabs (t.bf16_flops - (2000 * 312e12 + 40 * 121e12)) < 1e6);
    /* 2000 x 80 GB + 40 x 24 GB */
    assert_true (fabs (t.hbm_bytes - (2000 * 80e9 + 40 * 24e9)) < 1.0);
    /* 2000 x 400 W + 40 x 72 W */
    assert_true (fabs (t.gpu_tdp_w - (2000 * 400.0 + 40 * 72.0)) < 1e-6);
    gp_cluster_destroy (c);
    gp_doc_destroy (d);

    /* Unknown accelerator: positioned at the value, with a suggestion. */
    d = parse ("name: lab\npools:\n  - name: x\n    accelerator: H100\n"
               "    gpus_per_node: 8\n    nodes: 1\n",
               &err);
    assert_null (gp_cluster_from_doc (d, cat, &err));
    assert_int_equal (err.code, GP_ENOTFOUND);
    assert_non_null (strstr (err.text, "t.yaml:4:18: pools[0].accelerator"));
    assert_non_null (strstr (err.text, "did you mean H100-SXM"));
    gp_doc_destroy (d);
    /* Duplicate pool names, empty pools, bad node count. */
    d = parse ("name: lab\npools:\n  - {name: x, accelerator: L4, "
               "gpus_per_node: 1, nodes: 1}\n  - {name: x, accelerator: L4, "
               "gpus_per_node: 1, nodes: 1}\n",
               &err);
    assert_null (gp_cluster_from_doc (d, cat, &err));
    assert_non_null (strstr (err.text, "duplicate pool name"));
    gp_doc_destroy (d);
    d = parse ("name: lab\npools: []\n", &err);
    assert_null (gp_cluster_from_doc (d, cat, &err));
    assert_non_null (strstr (err.text, "t.yaml:2:8: cluster.pools"));
    gp_doc_destroy (d);
    d = parse ("name: lab\npools:\n  - {name: x, accelerator: L4, "
               "gpus_per_node: 1, nodes: 0}\n",
               &err);
    assert_null (gp_cluster_from_doc (d, cat, &err));
    assert_int_equal (err.code, GP_ERANGE);
    gp_doc_destroy (d);
    gp_catalog_destroy (cat);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_scalars_and_positions),
        cmocka_unit_test (test_unpack_ok),
        cmocka_unit_test (test_unpack_bad),
        cmocka_unit_test (test_parse_bad),
        cmocka_unit_test (test_cluster),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
