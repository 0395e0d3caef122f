/* test_catalog.c - every catalog row loads and is physically sane; spot
 * checks against vendor datasheets; lookups, suggestions and overrides.
 *
 * Datasheet values (dense, i.e. half the 2:4-sparsity headline):
 *   H100 SXM5: 989.4 TFLOP/s BF16, 1978.9 FP8, 80 GB HBM3, 3.35 TB/s, 700 W
 *   A100 SXM4 80GB: 312 TFLOP/s BF16, 2.039 TB/s, 400 W
 *   H200 SXM: 141 GB, 4.8 TB/s, compute as H100 SXM
 *   MI300X: 1307.4 TFLOP/s BF16 dense, 192 GB, 5.3 TB/s, 750 W
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <jansson.h>

#include "gpuplan/catalog.h"

static struct gp_catalog *cat;

static int setup (void **state)
{
    (void)state;
    gp_error_t err = {0};
    cat = gp_catalog_load (NULL, &err);
    if (!cat)
        fprintf (stderr, "catalog: %s\n", err.text);
    return cat ? 0 : -1;
}

static int teardown (void **state)
{
    (void)state;
    gp_catalog_destroy (cat);
    return 0;
}

static void near (double got, double want, const char *what)
{
    if (fabs (got - want) > 1e-9 * fabs (want))
        fail_msg ("%s: got %.10g want %.10g", what, got, want);
}

static void test_sizes (void **state)
{
    (void)state;
    assert_true (gp_catalog_n_accels (cat) >= 28);
    assert_true (gp_catalog_n_instances (cat) >= 27);
    assert_true (gp_catalog_n_mig (cat) >= 29);
    assert_true (gp_catalog_n_parts (cat) >= 99);
}

static void test_accel_sanity (void **state)
{
    (void)state;
    for (size_t i = 0; i < gp_catalog_n_accels (cat); i++) {
        const struct gp_accel *a = gp_catalog_accel (cat, i);
        if (!*a->source || !*a->source_date)
            fail_msg ("%s: no source or date", a->id);
        if (a->mem_bytes < 8e9 || a->mem_bytes > 400e9)
            fail_msg ("%s: memory %g B", a->id, a->mem_bytes);
        /* Unknown (0) is allowed; a known value must be plausible. */
        if (a->mem_bw && (a->mem_bw < 0.1e12 || a->mem_bw > 20e12))
            fail_msg ("%s: bandwidth %g B/s", a->id, a->mem_bw);
        double bf16 = gp_accel_peak_flops (a, "bf16");
        if (bf16 && (bf16 < 10e12 || bf16 > 10000e12))
            fail_msg ("%s: bf16 %g", a->id, bf16);
        if (a->bf16_flops && a->bf16_sparse_flops
            && a->bf16_flops > a->bf16_sparse_flops * (1 + 1e-9))
            fail_msg ("%s: dense bf16 above the sparse figure", a->id);
        if (a->bf16_flops && a->bf16_sparse_flops
            && a->bf16_sparse_flops > 2.0 * a->bf16_flops * 1.02)
            fail_msg ("%s: sparse more than 2x dense", a->id);
        if (a->fp8_flops && a->bf16_flops
            && a->fp8_flops < a->bf16_flops * (1 - 1e-9))
            fail_msg ("%s: fp8 below bf16", a->id);
        if (a->tf32_flops && a->bf16_flops && a->tf32_flops > a->bf16_flops)
            fail_msg ("%s: tf32 above bf16", a->id);
        if (a->tdp_w && (a->tdp_w < 50 || a->tdp_w > 2000))
            fail_msg ("%s: tdp %g W", a->id, a->tdp_w);
        if (a->scale_up_domain < 0 || a->scale_up_domain > 100000)
            fail_msg ("%s: scale-up domain %d", a->id, a->scale_up_domain);
        /* Arithmetic intensity at the ridge point is a sanity check on
         * FLOP/s vs bandwidth: tens to hundreds of FLOP per byte. */
        if (bf16 && a->mem_bw) {
            double ridge = bf16 / a->mem_bw;
            if (ridge < 20 || ridge > 1000)
                fail_msg ("%s: ridge point %g FLOP/B", a->id, ridge);
        }
    }
}

static void test_datasheets (void **state)
{
    (void)state;
    const struct gp_accel *h = gp_catalog_find_accel (cat, "H100-SXM", NULL);
    assert_non_null (h);
    near (h->bf16_flops, 989.4e12, "H100 bf16");
    near (h->fp8_flops, 1978.9e12, "H100 fp8");
    near (h->mem_bytes, 80e9, "H100 memory");
    near (h->mem_bw, 3.35e12, "H100 bandwidth");
    near (h->tdp_w, 700, "H100 TDP");
    near (h->scale_up_bw, 900e9, "H100 NVLink");
    assert_int_equal (h->scale_up_domain, 8);
    const struct gp_accel *a =
        gp_catalog_find_accel (cat, "A100-SXM-80GB", NULL);
    assert_non_null (a);
    near (a->bf16_flops, 312e12, "A100 bf16");
    near (a->mem_bw, 2.039e12, "A100 bandwidth");
    assert_true (a->fp8_flops == 0); /* Ampere has no FP8 */
    const struct gp_accel *h2 = gp_catalog_find_accel (cat, "H200-SXM", NULL);
    near (h2->mem_bytes, 141e9, "H200 memory");
    near (h2->mem_bw, 4.8e12, "H200 bandwidth");
    near (h2->bf16_flops, h->bf16_flops, "H200 = H100 compute");
    const struct gp_accel *m = gp_catalog_find_accel (cat, "MI300X", NULL);
    near (m->bf16_flops, 1307.4e12, "MI300X bf16");
    near (m->mem_bytes, 192e9, "MI300X memory");
    near (m->mem_bw, 5.3e12, "MI300X bandwidth");
    /* Rows from the validation notes. */
    assert_non_null (gp_catalog_find_accel (cat, "H800", NULL));
    assert_non_null (gp_catalog_find_accel (cat, "GB300", NULL));
    assert_non_null (gp_catalog_find_accel (cat, "TPU-V3", NULL));
    const struct gp_accel *v = gp_catalog_find_accel (cat, "V100-SXM-32GB",
                                                      NULL);
    assert_non_null (v);
    assert_true (v->bf16_flops == 0);             /* Volta: no BF16 */
    near (gp_accel_peak_flops (v, "bf16"), 125e12, "V100 falls back to fp16");
    /* Case-insensitive ids. */
    assert_ptr_equal (gp_catalog_find_accel (cat, "h100-sxm", NULL), h);
}

static void test_instances (void **state)
{
    (void)state;
    for (size_t i = 0; i < gp_catalog_n_instances (cat); i++) {
        const struct gp_instance *in = gp_catalog_instance (cat, i);
        assert_non_null (in->accel);
        assert_true (in->n_accels >= 1);
        if (in->spot_usd_hr && in->on_demand_usd_hr
            && in->spot_usd_hr > in->on_demand_usd_hr)
            fail_msg ("%s %s: spot above on-demand", in->id, in->region);
        if ((in->on_demand_usd_hr || in->spot_usd_hr) && !*in->price_date)
            fail_msg ("%s: price without a date", in->id);
    }
    const struct gp_instance *p5 =
        gp_catalog_find_instance (cat, "p5.48xlarge", NULL, NULL);
    assert_non_null (p5);
    assert_int_equal (p5->n_accels, 8);
    near (p5->on_demand_usd_hr, 55.04, "p5 on-demand");
    near (p5->net_bw, 3200e9 / 8, "p5 EFA");
    /* Known anomaly fixed: the price list gave this VM 12 GPUs. */
    const struct gp_instance *nd =
        gp_catalog_find_instance (cat, "Standard_ND96isr_H100_v5", NULL, NULL);
    assert_non_null (nd);
    assert_int_equal (nd->n_accels, 8);
    assert_true (nd->spot_usd_hr == 0); /* spot == on-demand was dropped */
}

static void test_mig (void **state)
{
    (void)state;
    for (size_t i = 0; i < gp_catalog_n_mig (cat); i++) {
        const struct gp_mig_profile *m = gp_catalog_mig (cat, i);
        const struct gp_accel *a =
            gp_catalog_find_accel (cat, m->accel_id, NULL);
        assert_non_null (a);
        if (m->compute_slices * m->max_instances > 7)
            fail_msg ("%s %s: %d slices x %d instances > 7", m->accel_id,
                      m->profile, m->compute_slices, m->max_instances);
        if (m->mem_bytes > a->mem_bytes * 1.01)
            fail_msg ("%s %s: slice larger than the GPU", m->accel_id,
                      m->profile);
    }
}

static void test_parts (void **state)
{
    (void)state;
    for (size_t i = 0; i < gp_catalog_n_parts (cat); i++) {
        const struct gp_part *p = gp_catalog_part (cat, i);
        if (!*p->source || !*p->source_date)
            fail_msg ("%s.%s: no source or date", p->id, p->key);
        assert_true (p->has_value || *p->text);
    }
}

static void test_suggestions (void **state)
{
    (void)state;
    gp_error_t err = {0};
    assert_null (gp_catalog_find_accel (cat, "H100", &err));
    assert_int_equal (err.code, GP_ENOTFOUND);
    assert_non_null (strstr (err.text, "did you mean"));
    assert_non_null (strstr (err.text, "H100-SXM"));
    assert_null (gp_catalog_find_accel (cat, "MI300", &err));
    assert_non_null (strstr (err.text, "MI300X"));
    assert_null (gp_catalog_find_accel (cat, "zzzzzzzzzzzzzz", &err));
    assert_null (strstr (err.text, "did you mean"));
    assert_null (gp_catalog_find_instance (cat, "p5.48xl", NULL, &err));
    assert_non_null (strstr (err.text, "p5.48xlarge"));
    /* bad parameters */
    assert_null (gp_catalog_find_accel (NULL, "H100-SXM", &err));
    assert_int_equal (err.code, GP_EINVAL);
    assert_null (gp_catalog_find_accel (cat, NULL, &err));
    double v;
    assert_int_equal (gp_catalog_part_value (cat, "nope", "nope", &v, &err),
                      GP_ENOTFOUND);
}

static char tmpdir[4096];

static void write_file (const char *name, const char *text)
{
    char path[4200];
    snprintf (path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen (path, "w");
    assert_non_null (f);
    fputs (text, f);
    fclose (f);
}

static const char accel_header[] =
    "id,name,vendor,memory_gb,mem_bw_tbs,bf16_dense_tflops,"
    "bf16_sparse_tflops,fp16_dense_tflops,fp8_dense_tflops,fp4_dense_tflops,"
    "int8_dense_tops,tf32_dense_tflops,fp32_tflops,scale_up_link,"
    "scale_up_bw_gbs_bidir,scale_up_domain_gpus,tdp_w,form_factor,"
    "release_year,source,source_date,notes\n";

static void test_override (void **state)
{
    (void)state;
    const char *dir = getenv ("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    assert_true ((size_t)snprintf (tmpdir, sizeof tmpdir, "%s/gp_catXXXXXX",
                                   dir)
                 < sizeof tmpdir);
    assert_non_null (mkdtemp (tmpdir));
    char text[2048];
    snprintf (text, sizeof text,
              "%sH100-SXM,H100 SXM (derated),NVIDIA,80,3.0,900,,,,,,,,NVLink,"
              "900,8,700,SXM5,2022,site measurement,2026-01,\n"
              "X1,Example,ACME,64,2.0,500,,,,,,,,none,,1,600,PCIe,2026,"
              "vendor sheet,2026-02,\n",
              accel_header);
    write_file ("accelerators.csv", text);
    gp_error_t err = {0};
    struct gp_catalog *c = gp_catalog_load (tmpdir, &err);
    if (!c)
        fail_msg ("override: %s", err.text);
    assert_int_equal (gp_catalog_n_accels (c), gp_catalog_n_accels (cat) + 1);
    const struct gp_accel *h = gp_catalog_find_accel (c, "H100-SXM", NULL);
    near (h->bf16_flops, 900e12, "overridden");
    assert_string_equal (h->source, "site measurement");
    assert_non_null (gp_catalog_find_accel (c, "X1", NULL));
    gp_catalog_destroy (c);

    /* A malformed number names file, line and column. */
    snprintf (text, sizeof text,
              "%sX1,Example,ACME,64,fast,500,,,,,,,,none,,1,600,PCIe,2026,"
              "vendor sheet,2026-02,\n",
              accel_header);
    write_file ("accelerators.csv", text);
    assert_null (gp_catalog_load (tmpdir, &err));
    assert_int_equal (err.code, GP_EPARSE);
    assert_non_null (strstr (err.text, "accelerators.csv:2:"));
    assert_non_null (strstr (err.text, "mem_bw_tbs"));
    /* Missing source. */
    snprintf (text, sizeof text,
              "%sX1,Example,ACME,64,2,500,,,,,,,,none,,1,600,PCIe,2026,,"
              "2026-02,\n",
              accel_header);
    write_file ("accelerators.csv", text);
    assert_null (gp_catalog_load (tmpdir, &err));
    assert_non_null (strstr (err.text, "'source' must not be empty"));
    /* Unknown column. */
    write_file ("accelerators.csv", "id,bogus\nX,1\n");
    assert_null (gp_catalog_load (tmpdir, &err));
    assert_non_null (strstr (err.text, "missing column"));
    /* Unbalanced quote. */
    snprintf (text, sizeof text, "%s\"X1,oops\n", accel_header);
    write_file ("accelerators.csv", text);
    assert_null (gp_catalog_load (tmpdir, &err));
    assert_int_equal (err.code, GP_EPARSE);
    /* Instance naming an unknown accelerator. */
    write_file ("accelerators.csv", accel_header);
    write_file ("instances.csv",
                "cloud,instance,accelerator_id,accelerators_per_node,vcpus,"
                "memory_gib,network_gbps,fabric,interconnect,local_nvme_tb,"
                "region,on_demand_usd_hr,spot_usd_hr,reserved_1y_usd_hr,"
                "reserved_3y_usd_hr,price_date,source,notes\n"
                "aws,x1.big,H100-SXN,8,,,,,,,r1,10,,,,2026,list,\n");
    assert_null (gp_catalog_load (tmpdir, &err));
    assert_int_equal (err.code, GP_ENOTFOUND);
    assert_non_null (strstr (err.text, "H100-SXM"));
    /* Not a directory. */
    assert_null (gp_catalog_load ("/nonexistent-dir", &err));
    assert_int_equal (err.code, GP_EIO);
    char path[128];
    snprintf (path, sizeof path, "%s/accelerators.csv", tmpdir);
    unlink (path);
    snprintf (path, sizeof path, "%s/instances.csv", tmpdir);
    unlink (path);
    rmdir (tmpdir);
}

/* 'catalog show ID': an accelerator with its MIG profiles (H100 SXM has
 * seven: 1g.10gb, 1g.10gb+me, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb
 * in NVIDIA's MIG user guide), an instance type in every region it is
 * listed, unknown ids with the closest ids of all tables.
 */
static void test_show (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_catalog_match *m = NULL;
    assert_int_equal (gp_catalog_show (cat, "h100-sxm", &m, &err), 0);
    assert_non_null (m->accel);
    assert_string_equal (m->accel->id, "H100-SXM");
    assert_int_equal (m->rows[0].kind, GP_CATALOG_ACCEL);
    size_t n_mig = 0;
    for (size_t i = 1; i < m->n_rows; i++) {
        assert_int_equal (m->rows[i].kind, GP_CATALOG_MIG_PROFILE);
        assert_string_equal (m->rows[i].mig->accel_id, "H100-SXM");
        n_mig++;
    }
    assert_int_equal (n_mig, 7);
    json_t *j = gp_catalog_match_json (m);
    assert_non_null (j);
    assert_string_equal (json_string_value (json_object_get (j, "kind")),
                         "accelerator");
    assert_int_equal (json_array_size (json_object_get (j, "mig_profiles")),
                      7);
    /* 80 GB of HBM3 (datasheet) */
    assert_true (fabs (json_real_value (json_object_get (j, "memory_gb"))
                       - 80.0) < 1.0);
    json_decref (j);
    gp_catalog_match_destroy (m);

    /* an instance type: one row per region, counted by a plain scan */
    size_t want = 0;
    for (size_t i = 0; i < gp_catalog_n_instances (cat); i++)
        want += !strcmp (gp_catalog_instance (cat, i)->id, "p5.48xlarge");
    assert_true (want >= 1);
    assert_int_equal (gp_catalog_show (cat, "p5.48xlarge", &m, &err), 0);
    assert_null (m->accel);
    assert_int_equal (m->n_rows, want);
    for (size_t i = 0; i < m->n_rows; i++)
        assert_int_equal (m->rows[i].kind, GP_CATALOG_INSTANCE);
    j = gp_catalog_match_json (m);
    assert_string_equal (json_string_value (json_object_get (j, "id")),
                         "p5.48xlarge");
    assert_int_equal (json_array_size (json_object_get (j, "rows")), want);
    json_decref (j);
    gp_catalog_match_destroy (m);

    m = NULL;
    assert_int_equal (gp_catalog_show (cat, "H100", &m, &err), GP_ENOTFOUND);
    assert_null (m);
    assert_non_null (strstr (err.text, "did you mean"));
    assert_non_null (strstr (err.text, "H100-SXM"));
    assert_int_equal (gp_catalog_show (cat, "zzzzzzzzzzzzzzzzzzzz", &m, &err),
                      GP_ENOTFOUND);
    assert_null (strstr (err.text, "did you mean"));
    assert_int_equal (gp_catalog_show (NULL, "H100-SXM", &m, &err),
                      GP_EINVAL);
    gp_catalog_match_destroy (NULL);
}

static void test_list (void **state)
{
    (void)state;
    gp_error_t err = {0};
    static const struct {
        const char *name;
        enum gp_catalog_table t;
        size_t (*count) (const struct gp_catalog *);
    } tables[] = {
        {"accelerators", GP_CATALOG_ACCELERATORS, gp_catalog_n_accels},
        {"instances", GP_CATALOG_INSTANCES, gp_catalog_n_instances},
        {"mig", GP_CATALOG_MIG, gp_catalog_n_mig},
        {"parts", GP_CATALOG_PARTS, gp_catalog_n_parts},
    };
    for (size_t i = 0; i < 4; i++) {
        enum gp_catalog_table t;
        assert_int_equal (gp_catalog_table_parse (tables[i].name, &t, &err),
                          0);
        assert_int_equal (t, tables[i].t);
        assert_string_equal (gp_catalog_table_str (t), tables[i].name);
        json_t *j = gp_catalog_list_json (cat, t);
        assert_non_null (j);
        assert_string_equal (json_string_value (json_object_get (j, "table")),
                             tables[i].name);
        assert_int_equal (json_array_size (json_object_get (j, "rows")),
                          tables[i].count (cat));
        json_decref (j);
    }
    enum gp_catalog_table t = GP_CATALOG_MIG;
    assert_int_equal (gp_catalog_table_parse ("gpus", &t, &err),
                      GP_ENOTFOUND);
    assert_int_equal (t, GP_CATALOG_MIG);
    assert_non_null (strstr (err.text, "accelerators, instances, mig or "
                                       "parts"));
    assert_null (gp_catalog_list_json (NULL, GP_CATALOG_PARTS));
    /* out-of-range rows are NULL, never a zeroed row */
    assert_null (gp_catalog_accel (cat, gp_catalog_n_accels (cat)));
    assert_null (gp_catalog_part (NULL, 0));
}

/* Peak lookups report an unknown precision or an unpublished peak instead
 * of a silent 0: H100 SXM dense BF16 989.4 TFLOP/s (datasheet, half the
 * sparse headline 1,979).
 */
static void test_peak_lookup (void **state)
{
    (void)state;
    gp_error_t err = {0};
    const struct gp_accel *h = gp_catalog_find_accel (cat, "H100-SXM", &err);
    assert_non_null (h);
    double f = -1;
    assert_int_equal (gp_accel_peak_flops_lookup (h, "bf16", &f, &err), 0);
    assert_true (fabs (f / 1e12 - 989.4) < 1.0);
    f = -1;
    assert_int_equal (gp_accel_peak_flops_lookup (h, "bf17", &f, &err),
                      GP_ENOTFOUND);
    assert_true (f == -1);
    assert_non_null (strstr (err.text, "bf17"));
    assert_true (gp_accel_peak_flops (h, "bf17") == 0.0);
    /* Hopper has no FP4 tensor path: unpublished, reported */
    assert_int_equal (gp_accel_peak_flops_lookup (h, "fp4", &f, &err),
                      GP_ENOTFOUND);
    assert_int_equal (gp_accel_peak_flops_lookup (NULL, "bf16", &f, &err),
                      GP_EINVAL);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_sizes),     cmocka_unit_test (test_accel_sanity),
        cmocka_unit_test (test_datasheets), cmocka_unit_test (test_instances),
        cmocka_unit_test (test_mig),       cmocka_unit_test (test_parts),
        cmocka_unit_test (test_suggestions), cmocka_unit_test (test_override),
        cmocka_unit_test (test_show),      cmocka_unit_test (test_list),
        cmocka_unit_test (test_peak_lookup),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
