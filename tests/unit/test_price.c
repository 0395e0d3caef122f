/* test_price.c - the one pricing rule (gpuplan/price.h) and the defaults
 * registry (gpuplan/defaults.h).
 *
 * Expected prices are worked by hand from data/catalog/instances.csv:
 *   H100-SXM on-demand: p5.48xlarge 55.04 / 8 = 6.88 and p5.4xlarge
 *     6.88 / 1 tie (first row wins); a3-highgpu-8g 43.06615 / 8 = 5.383 is
 *     flagged suspect_flex_start and skipped; the unflagged a3-highgpu-8g
 *     is 87.83247 / 8 = 10.979.
 *   H100-SXM spot: p5.48xlarge 23.45325 / 8 = 2.9317, a3-highgpu-8g
 *     (unflagged) 15.80912 / 8 = 1.97614, a3-megagpu-8g 21.20827 / 8 =
 *     2.6510 -> a3-highgpu-8g at 1.97614.
 *   A100-SXM-80GB on-demand: p4de 27.44705 / 8 = 3.43088; a2-ultragpu-8g
 *     23.56656 / 8 = 2.9458 is flagged and skipped.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "gpuplan/defaults.h"
#include "gpuplan/price.h"

static struct gp_catalog *cat;

static const struct gp_accel *acc (const char *id)
{
    const struct gp_accel *a = gp_catalog_find_accel (cat, id, NULL);
    assert_non_null (a);
    return a;
}

static void near (double got, double want)
{
    assert_true (fabs (got - want) <= 1e-4 * fabs (want));
}

static void test_on_demand (void **state)
{
    (void)state;
    struct gp_gpu_price p;
    gp_error_t err = {0};
    assert_int_equal (gp_price_gpu_hour (cat, acc ("H100-SXM"), NULL, &p,
                                         &err), 0);
    assert_string_equal (p.inst->id, "p5.48xlarge");
    near (p.usd_per_gpu_hour, 6.88);
    near (p.usd_per_node_hour, 55.04);
    assert_int_equal (p.flagged, 0);
    assert_int_equal (p.undated, 0);

    assert_int_equal (gp_price_gpu_hour (cat, acc ("A100-SXM-80GB"), NULL,
                                         &p, &err), 0);
    assert_string_equal (p.inst->id, "p4de.24xlarge");
    near (p.usd_per_gpu_hour, 27.44705 / 8);
}

static void test_spot_and_cloud (void **state)
{
    (void)state;
    struct gp_gpu_price p;
    gp_error_t err = {0};
    struct gp_price_query q = {GP_PRICE_SPOT, NULL, NULL, NULL};
    assert_int_equal (gp_price_gpu_hour (cat, acc ("H100-SXM"), &q, &p,
                                         &err), 0);
    /* a3-highgpu-8g us-east4 ($15.81/node-h, 82 % under its on-demand)
     * carries spot_outlier and is skipped: the cheapest unflagged spot
     * row is a3-megagpu-8g ($21.21 < p5's $23.45).
     */
    assert_string_equal (p.inst->id, "a3-megagpu-8g");
    near (p.usd_per_gpu_hour, 21.20827 / 8);
    assert_int_equal (p.flagged, 0);

    q.pricing = GP_PRICE_ON_DEMAND;
    q.cloud = "gcp";
    assert_int_equal (gp_price_gpu_hour (cat, acc ("H100-SXM"), &q, &p,
                                         &err), 0);
    near (p.usd_per_gpu_hour, 87.83247 / 8);
    assert_int_equal (p.flagged, 0);

    /* A named instance is priced as it is. */
    q.cloud = NULL;
    q.instance = "p5.4xlarge";
    assert_int_equal (gp_price_gpu_hour (cat, acc ("H100-SXM"), &q, &p,
                                         &err), 0);
    assert_string_equal (p.inst->id, "p5.4xlarge");
    near (p.usd_per_gpu_hour, 6.88);
}

static void test_not_priced (void **state)
{
    (void)state;
    struct gp_gpu_price p;
    gp_error_t err = {0};
    /* MI300X's only instance has no published price. */
    assert_int_equal (gp_price_gpu_hour (cat, acc ("MI300X"), NULL, &p,
                                         &err), GP_ENOTFOUND);
    assert_null (p.inst);
    assert_non_null (strstr (err.text, "MI300X"));
    struct gp_price_query q = {GP_PRICE_ON_DEMAND, "nope.xlarge", NULL, NULL};
    assert_int_equal (gp_price_gpu_hour (cat, acc ("H100-SXM"), &q, &p,
                                         &err), GP_ENOTFOUND);
    assert_non_null (strstr (err.text, "unknown instance 'nope.xlarge'"));
    /* A real instance that carries another accelerator. */
    q.instance = "p4d.24xlarge";
    assert_int_equal (gp_price_gpu_hour (cat, acc ("H100-SXM"), &q, &p,
                                         &err), GP_ENOTFOUND);
    /* No reserved prices are published in the catalog. */
    q.instance = NULL;
    q.pricing = GP_PRICE_RESERVED_3Y;
    assert_int_equal (gp_price_gpu_hour (cat, acc ("H100-SXM"), &q, &p,
                                         &err), GP_ENOTFOUND);
}

static void test_registry (void **state)
{
    (void)state;
    struct gp_defaults d;
    gp_error_t err = {0};
    gp_defaults_init (&d);
    assert_int_equal ((int)gp_defaults_count (), GP_DEF__COUNT);
    for (size_t i = 0; i < gp_defaults_count (); i++) {
        const struct gp_default_info *r = gp_default_info (i);
        assert_int_equal ((int)r->id, (int)i);
        assert_true (r->key && *r->key && r->unit && *r->unit);
        assert_true (r->source && strlen (r->source) > 20);
        assert_true (r->users && *r->users);
        assert_int_equal (gp_default_lookup (r->key, &err), (int)i);
        assert_true (gp_default (&d, r->id) == r->value);
        /* Every key is unique. */
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal (gp_default_info (j)->key, r->key);
    }
    assert_null (gp_default_info (gp_defaults_count ()));
    assert_int_equal (gp_defaults_set (&d, "train.batch_tokens", 8e6, &err),
                      0);
    assert_true (gp_default (&d, GP_DEF_TRAIN_BATCH_TOKENS) == 8e6);
    assert_true (d.overridden[GP_DEF_TRAIN_BATCH_TOKENS]);
    assert_true (gp_default (NULL, GP_DEF_TRAIN_BATCH_TOKENS) == 4194304.0);
    assert_int_equal (gp_defaults_set (&d, "batch_tokens", 1, &err),
                      GP_ENOTFOUND);
    assert_non_null (strstr (err.text, "did you mean train.batch_tokens"));
    assert_int_equal (gp_defaults_set (&d, "train.batch_tokens", NAN, &err),
                      GP_ERANGE);
    assert_int_equal (gp_defaults_set (&d, "train.batch_tokens", -1, &err),
                      GP_ERANGE);
    assert_true (gp_default (&d, GP_DEF_TRAIN_BATCH_TOKENS) == 8e6);
    assert_true (isnan (gp_default (&d, GP_DEF__COUNT)));
}

int main (void)
{
    gp_error_t err = {0};
    cat = gp_catalog_load (NULL, &err);
    if (!cat)
        return 1;
    const struct CMUnitTest t[] = {
        cmocka_unit_test (test_on_demand),
        cmocka_unit_test (test_spot_and_cloud),
        cmocka_unit_test (test_not_priced),
        cmocka_unit_test (test_registry),
    };
    int rc = cmocka_run_group_tests (t, NULL, NULL);
    gp_catalog_destroy (cat);
    return rc;
}
