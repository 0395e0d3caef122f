/* test_generations.c - accelerator generations are catalog data: every
 * accelerator resolves to a generations.csv row, both performance models
 * read their factors from that row, and an accelerator is placed by its
 * generation column, never by its name.
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

#include "gpuplan/catalog.h"
#include "gpuplan/infer.h"
#include "gpuplan/train.h"

/* Every accelerator has a generation; train and infer name the same. */
static void test_every_accel_resolves (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (NULL, &err);
    assert_non_null (cat);
    assert_true (gp_catalog_n_generations (cat) >= 2);
    assert_non_null (gp_catalog_find_generation (cat, "other", &err));
    assert_null (gp_catalog_find_generation (cat, "volta9", &err));
    assert_int_equal (err.code, GP_ENOTFOUND);
    assert_non_null (strstr (err.text, "hopper"));
    for (size_t i = 0; i < gp_catalog_n_accels (cat); i++) {
        const struct gp_accel *a = gp_catalog_accel (cat, i);
        assert_non_null (a->gen);
        struct gp_train_hw hw;
        gp_train_hw_from_accel (a, GP_PREC_BF16, &hw);
        struct gp_hw_eff e;
        gp_hw_eff_for (a, &e);
        assert_string_equal (hw.eff.generation, a->gen->id);
        assert_string_equal (e.generation, a->gen->id);
        assert_true (hw.eff.gemm_max == a->gen->train_gemm_max);
        assert_true (e.gemm_eff == a->gen->infer_gemm);
        assert_true (hw.scale_out_bw > 0 && hw.gpus_per_node > 0);
    }
    gp_catalog_destroy (cat);
}

static char dir[64];

static void write_file (const char *name, const char *text)
{
    char path[128];
    snprintf (path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen (path, "w");
    assert_non_null (f);
    fputs (text, f);
    fclose (f);
}

static void cleanup (void)
{
    char path[128];
    snprintf (path, sizeof path, "%s/accelerators.csv", dir);
    unlink (path);
    snprintf (path, sizeof path, "%s/generations.csv", dir);
    unlink (path);
    rmdir (dir);
}

#define ACC_HEAD                                                              \
    "id,name,vendor,memory_gb,mem_bw_tbs,bf16_dense_tflops,"                \
    "bf16_sparse_tflops,fp16_dense_tflops,fp8_dense_tflops,"                \
    "fp4_dense_tflops,int8_dense_tops,tf32_dense_tflops,fp32_tflops,"       \
    "scale_up_link,scale_up_bw_gbs_bidir,scale_up_domain_gpus,tdp_w,"       \
    "form_factor,release_year,generation,host_accelerators,nic_gbps,"       \
    "source,source_date,notes\n"

/* A new part named unlike any NVIDIA id but declared hopper gets the
 * hopper factors; its own NIC and host size override the generation's.
 * An unknown generation is a load error naming the accelerator.
 */
static void test_placed_by_column (void **state)
{
    (void)state;
    snprintf (dir, sizeof dir, "/tmp/gpuplan-gen-XXXXXX");
    assert_non_null (mkdtemp (dir));
    write_file ("accelerators.csv",
                ACC_HEAD "ZZ-1,ZZ 1,Acme,96,4,1000,,1000,2000,,,,,link,900,8,"
                         "700,SXM,2026,hopper,2,1600,test,2026,\n");
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (dir, &err);
    if (!cat)
        fail_msg ("%s", err.text);
    const struct gp_accel *z = gp_catalog_find_accel (cat, "ZZ-1", &err);
    const struct gp_accel *h = gp_catalog_find_accel (cat, "H100-SXM", &err);
    assert_non_null (z);
    assert_non_null (h);
    assert_ptr_equal (z->gen, h->gen);
    struct gp_train_hw hz, hh;
    gp_train_hw_from_accel (z, GP_PREC_BF16, &hz);
    gp_train_hw_from_accel (h, GP_PREC_BF16, &hh);
    assert_memory_equal (&hz.eff, &hh.eff, sizeof hz.eff);
    assert_int_equal (hz.gpus_per_node, 2);
    assert_true (hz.scale_out_bw == 1600e9 / 8); /* 1600 Gb/s */
    assert_true (hh.scale_out_bw == h->gen->nic_bw);
    gp_catalog_destroy (cat);

    write_file ("accelerators.csv",
                ACC_HEAD "ZZ-1,ZZ 1,Acme,96,4,1000,,1000,2000,,,,,link,900,8,"
                         "700,SXM,2026,volta9,,,test,2026,\n");
    cat = gp_catalog_load (dir, &err);
    assert_null (cat);
    assert_int_equal (err.code, GP_ENOTFOUND);
    assert_non_null (strstr (err.text, "ZZ-1"));
    assert_non_null (strstr (err.text, "volta9"));

    /* A generations.csv override changes what both models read. */
    write_file ("accelerators.csv",
                ACC_HEAD "ZZ-1,ZZ 1,Acme,96,4,1000,,1000,2000,,,,,link,900,8,"
                         "700,SXM,2026,,,,test,2026,\n");
    write_file ("generations.csv",
                "id,name,train_gemm_max,train_gemm_dim_half,train_attn,"
                "train_hbm,train_scale_up,train_scale_out,train_kernel_s,"
                "infer_hbm,infer_gemm,infer_attn,infer_link,"
                "infer_allreduce_lat_s,infer_layer_lat_s,infer_moe,"
                "infer_moe_flop,nic_gbps,fp4_per_fp8,source,notes\n"
                "other,generic,0.5,64,0.3,0.7,0.6,0.8,1e-5,0.6,0.45,0.3,0.5,"
                "2e-5,1e-5,0.5,0.25,100,,test,\n");
    cat = gp_catalog_load (dir, &err);
    if (!cat)
        fail_msg ("%s", err.text);
    z = gp_catalog_find_accel (cat, "ZZ-1", &err);
    assert_string_equal (z->gen->id, "other");
    gp_train_hw_from_accel (z, GP_PREC_BF16, &hz);
    struct gp_hw_eff e;
    gp_hw_eff_for (z, &e);
    assert_true (hz.eff.gemm_max == 0.5 && hz.eff.kernel_s == 1e-5);
    assert_true (hz.scale_out_bw == 100e9 / 8);
    assert_true (e.gemm_eff == 0.45 && e.allreduce_lat_s == 2e-5);
    gp_catalog_destroy (cat);
    cleanup ();
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_every_accel_resolves),
        cmocka_unit_test (test_placed_by_column),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
