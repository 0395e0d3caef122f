/* test_cluster_json.c - per-pool totals and the JSON of a cluster spec
 * (examples/cluster.yaml: 64 nodes of 8 H100-SXM, 32 nodes of 8
 * A100-SXM-80GB).
 */
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "gpuplan/cluster.h"
#include "gpuplan/spec.h"

static void test_pool_totals (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (NULL, &err);
    struct gp_doc *doc = gp_doc_load (GP_SOURCE_DIR "/examples/cluster.yaml",
                                      &err);
    assert_non_null (doc);
    struct gp_cluster *c = gp_cluster_from_doc (doc, cat, &err);
    assert_non_null (c);
    assert_int_equal (c->n_pools, 2);
    struct gp_cluster_totals h, a, all;
    assert_int_equal (gp_cluster_pool_totals (c, 0, &h, &err), 0);
    assert_int_equal (gp_cluster_pool_totals (c, 1, &a, &err), 0);
    gp_cluster_totals (c, &all);
    assert_int_equal (h.nodes, 64);
    assert_int_equal (h.gpus, 512);
    assert_int_equal (a.gpus, 256);
    /* 512 x 80 GB and 256 x 80 GB of HBM (datasheets) */
    assert_true (fabs (h.hbm_bytes / 1e9 - 512 * 80.0) < 512);
    assert_true (fabs (a.hbm_bytes / 1e9 - 256 * 80.0) < 256);
    assert_int_equal (all.gpus, h.gpus + a.gpus);
    assert_true (fabs (all.bf16_flops - h.bf16_flops - a.bf16_flops)
                 <= 1e-9 * all.bf16_flops);
    assert_int_equal (gp_cluster_pool_totals (c, 2, &h, &err), GP_ERANGE);
    assert_int_equal (h.gpus, 0);
    assert_int_equal (gp_cluster_pool_totals (NULL, 0, &h, &err), GP_EINVAL);

    json_t *j = gp_cluster_json (c);
    assert_non_null (j);
    assert_string_equal (json_string_value (json_object_get (j, "name")),
                         "research-cluster");
    json_t *pools = json_object_get (j, "pools");
    assert_int_equal (json_array_size (pools), 2);
    assert_int_equal (json_integer_value (json_object_get (
                          json_array_get (pools, 1), "gpus")),
                      256);
    assert_int_equal (json_integer_value (json_object_get (
                          json_object_get (j, "total"), "gpus")),
                      768);
    json_decref (j);
    assert_null (gp_cluster_json (NULL));
    gp_cluster_destroy (c);
    gp_doc_destroy (doc);
    gp_catalog_destroy (cat);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_pool_totals),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
