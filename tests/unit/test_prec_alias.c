/* test_prec_alias.c - current hardware and precision names
 * (docs/model/training.md, "Precision"; data/catalog/README.md):
 * the CDNA4 rows (MI350X, MI355X) against their datasheet figures typed
 * here independently, the cdna4 generation carrying the CDNA3 factors,
 * TPU v5p's INT8 peak; the alias "fp4" resolved per vendor (NVFP4 on
 * NVIDIA, MXFP4 on AMD) and refused with a message naming the precision
 * and the accelerator where the generation has no 4-bit row; INT8
 * quantized training only where the catalog gives an INT8 peak.
 *
 * Datasheet figures (AMD product pages; AMD at Hot Chips 2025 and ISSCC
 * 2026; Google Cloud TPU v5p documentation; B300 below):
 *   MI355X: 288 GB HBM3E, 8 TB/s, 2400 MHz, 1024 matrix cores of 512 BF16
 *           FMA per clock (AMD: "2.5 PFLOPS" BF16, "5 PFLOPS" FP8, "10.1
 *           PFLOPS" MXFP4 dense), 1400 W, 7 Infinity Fabric links of
 *           153.6 GB/s, 8 GPUs per platform
 *   MI350X: the same at 2200 MHz and 1000 W
 *   TPU v5p: 459 TFLOPS BF16, 918 TOPS INT8
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpuplan/catalog.h"
#include "gpuplan/train.h"

static struct gp_catalog *cat;

static int setup (void **state)
{
    (void)state;
    cat = gp_catalog_load (NULL, NULL);
    return cat ? 0 : -1;
}

static int teardown (void **state)
{
    (void)state;
    gp_catalog_destroy (cat);
    return 0;
}

/* Equal to 1 part in 10^4: the catalog keeps one decimal of TFLOP/s. */
static void near (double got, double want, const char *what)
{
    if (fabs (got - want) > 1e-4 * fabs (want))
        fail_msg ("%s: got %.10g want %.10g", what, got, want);
}

static const struct gp_accel *accel (const char *id)
{
    const struct gp_accel *a = gp_catalog_find_accel (cat, id, NULL);
    assert_non_null (a);
    return a;
}

static void check_cdna4 (const char *id, double mhz, double tdp)
{
    const struct gp_accel *a = accel (id);
    double bf16 = mhz * 1e6 * 1024 * 512 * 2; /* FLOP/s */
    near (a->bf16_flops, bf16, "bf16");
    near (a->fp16_flops, bf16, "fp16 = bf16");
    near (a->fp8_flops, 2 * bf16, "fp8");
    near (a->fp4_flops, 4 * bf16, "mxfp4");
    near (a->bf16_sparse_flops, 2 * bf16, "sparse bf16");
    assert_true (a->tf32_flops == 0); /* CDNA4: no TF32 matrix rate */
    near (a->mem_bytes, 288e9, "memory");
    near (a->mem_bw, 8e12, "bandwidth");
    near (a->tdp_w, tdp, "TBP");
    near (a->scale_up_bw, 7 * 153.6e9, "Infinity Fabric");
    assert_int_equal (a->scale_up_domain, 8);
    assert_string_equal (a->vendor, "AMD");
    assert_non_null (a->gen);
    assert_string_equal (a->gen->id, "cdna4");
}

static void test_cdna4_rows (void **state)
{
    (void)state;
    check_cdna4 ("MI355X", 2400, 1400);
    check_cdna4 ("MI350X", 2200, 1000);
    /* AMD's rounded headline figures */
    assert_true (fabs (accel ("MI355X")->bf16_flops / 1e15 - 2.5) < 0.05);
    assert_true (fabs (accel ("MI355X")->fp4_flops / 1e15 - 10.1) < 0.05);
    assert_true (fabs (accel ("MI350X")->fp4_flops / 1e15 - 9.2) < 0.05);
}

/* HGX B300 (glennklockwood.com B300 table; NVIDIA: 279 GB per Blackwell
 * Ultra GPU): BF16 2.25 PF dense, FP8 4.5 PF, FP4 13.125 PF, 8 TB/s,
 * NVLink 5 2 x 900 GB/s in an 8-GPU domain; the Blackwell factors.
 */
static void test_b300_row (void **state)
{
    (void)state;
    const struct gp_accel *a = accel ("B300");
    near (a->bf16_flops, 2250e12, "B300 bf16");
    near (a->fp8_flops, 4500e12, "B300 fp8");
    near (a->fp4_flops, 13125e12, "B300 fp4");
    near (a->mem_bytes, 279e9, "B300 memory");
    near (a->mem_bw, 8e12, "B300 bandwidth");
    near (a->scale_up_bw, 2 * 900e9, "B300 NVLink");
    assert_int_equal (a->scale_up_domain, 8);
    assert_string_equal (a->gen->id, "blackwell");
    struct gp_train_hw hw;
    gp_train_hw_from_accel (a, GP_PREC_FP4, &hw);
    assert_true (hw.fp8);
    near (hw.peak_flops, 13125e12, "B300 fp4 -> nvfp4 peak");
}

/* No CDNA4 calibration: every factor of the cdna4 row is CDNA3's. */
static void test_cdna4_takes_cdna3_factors (void **state)
{
    (void)state;
    const struct gp_generation *g4 =
        gp_catalog_find_generation (cat, "cdna4", NULL);
    const struct gp_generation *g3 =
        gp_catalog_find_generation (cat, "cdna3", NULL);
    assert_non_null (g4);
    assert_non_null (g3);
    assert_true (g4->train_gemm_max == g3->train_gemm_max);
    assert_true (g4->train_gemm_dim_half == g3->train_gemm_dim_half);
    assert_true (g4->train_attn == g3->train_attn);
    assert_true (g4->train_hbm == g3->train_hbm);
    assert_true (g4->train_scale_up == g3->train_scale_up);
    assert_true (g4->train_scale_out == g3->train_scale_out);
    assert_true (g4->train_kernel_s == g3->train_kernel_s);
    assert_true (g4->infer_hbm == g3->infer_hbm);
    assert_true (g4->infer_gemm == g3->infer_gemm);
    assert_true (g4->infer_attn == g3->infer_attn);
    assert_true (g4->infer_link == g3->infer_link);
    assert_true (g4->infer_allreduce_lat_s == g3->infer_allreduce_lat_s);
    assert_true (g4->infer_layer_lat_s == g3->infer_layer_lat_s);
    assert_true (g4->nic_bw == g3->nic_bw);
}

static void test_tpu_int8_peak (void **state)
{
    (void)state;
    const struct gp_accel *t = accel ("TPU-V5P");
    near (t->int8_ops, 918e12, "TPU v5p int8");
    near (t->bf16_flops, 459e12, "TPU v5p bf16");
}

static void test_names (void **state)
{
    (void)state;
    assert_int_equal (gp_precision_parse ("fp4"), GP_PREC_FP4);
    assert_int_equal (gp_precision_parse ("MXFP4"), GP_PREC_MXFP4);
    assert_int_equal (gp_precision_parse ("int8"), GP_PREC_INT8);
    assert_int_equal (gp_precision_parse ("fp5"), -1);
    assert_int_equal (gp_precision_parse ("int4"), -1);
    for (int p = GP_PREC_BF16; p <= GP_PREC_INT8; p++)
        assert_int_equal (gp_precision_parse (
                              gp_precision_str ((enum gp_precision)p)),
                          p);
}

/* "fp4" is the vendor's 4-bit recipe; other names pass through. */
static void test_alias (void **state)
{
    (void)state;
    assert_int_equal (gp_train_prec_resolve (GP_PREC_FP4, accel ("B200")),
                      GP_PREC_NVFP4);
    assert_int_equal (gp_train_prec_resolve (GP_PREC_FP4, accel ("GB200")),
                      GP_PREC_NVFP4);
    assert_int_equal (gp_train_prec_resolve (GP_PREC_FP4, accel ("MI355X")),
                      GP_PREC_MXFP4);
    assert_int_equal (gp_train_prec_resolve (GP_PREC_FP4, accel ("MI350X")),
                      GP_PREC_MXFP4);
    assert_int_equal (gp_train_prec_resolve (GP_PREC_FP4,
                                             accel ("TPU-V5P")),
                      GP_PREC_FP4);
    assert_int_equal (gp_train_prec_resolve (GP_PREC_FP4, NULL),
                      GP_PREC_FP4);
    assert_int_equal (gp_train_prec_resolve (GP_PREC_FP8, accel ("MI355X")),
                      GP_PREC_FP8);
    assert_int_equal (gp_train_prec_resolve (GP_PREC_NVFP4,
                                             accel ("MI355X")),
                      GP_PREC_NVFP4);
    /* only Blackwell and CDNA4 have a 4-bit row */
    assert_non_null (gp_train_prec_for (GP_PREC_NVFP4, "blackwell"));
    assert_non_null (gp_train_prec_for (GP_PREC_MXFP4, "cdna4"));
    assert_null (gp_train_prec_for (GP_PREC_MXFP4, "cdna3"));
    assert_null (gp_train_prec_for (GP_PREC_NVFP4, "cdna4"));
    assert_null (gp_train_prec_for (GP_PREC_FP4, "blackwell"));
}

/* The hardware of "fp4": B200 takes NVFP4's dense FP4 peak (FP8 4.5 PF x
 * 2) and its cast; MI355X takes MXFP4's (4 x 2516.6 TF) and the OCP MX
 * cast: read 2 B, write 2 x (0.5 + 1/32) B; MI300X has no 4-bit row.
 */
static void test_alias_hw (void **state)
{
    (void)state;
    struct gp_train_hw hw;
    gp_train_hw_from_accel (accel ("B200"), GP_PREC_FP4, &hw);
    assert_true (hw.fp8);
    near (hw.peak_flops, 9000e12, "B200 fp4 peak");
    near (hw.saved_act_bytes, 0.5 + 1.0 / 16, "NVFP4 saved bytes");
    gp_train_hw_from_accel (accel ("MI355X"), GP_PREC_FP4, &hw);
    assert_true (hw.fp8);
    near (hw.peak_flops, 4 * 2400e6 * 1024 * 512 * 2, "MI355X fp4 peak");
    near (hw.cast_bytes, 2 + 2 * (0.5 + 1.0 / 32), "MXFP4 cast bytes");
    near (hw.saved_act_bytes, 0.5 + 1.0 / 32, "MXFP4 saved bytes");
    gp_train_hw_from_accel (accel ("MI355X"), GP_PREC_MXFP4, &hw);
    near (hw.peak_flops, 4 * 2400e6 * 1024 * 512 * 2, "MI355X mxfp4");
    gp_train_hw_from_accel (accel ("MI300X"), GP_PREC_FP4, &hw);
    assert_false (hw.fp8);
    /* plain FP8 on CDNA4 needs no row: the datasheet FP8 peak */
    gp_train_hw_from_accel (accel ("MI355X"), GP_PREC_FP8, &hw);
    assert_true (hw.fp8);
    near (hw.peak_flops, 2 * 2400e6 * 1024 * 512 * 2, "MI355X fp8");
}

/* INT8 (TPU AQT): the INT8 peak where the catalog gives one. */
static void test_int8 (void **state)
{
    (void)state;
    struct gp_train_hw hw;
    gp_train_hw_from_accel (accel ("TPU-V5P"), GP_PREC_INT8, &hw);
    assert_true (hw.fp8);
    near (hw.peak_flops, 918e12, "TPU v5p int8 peak");
    near (hw.cast_bytes, 5, "int8 cast bytes");
    gp_train_hw_from_accel (accel ("H100-SXM"), GP_PREC_INT8, &hw);
    assert_false (hw.fp8);
    gp_train_hw_from_accel (accel ("TPU-V3"), GP_PREC_INT8, &hw);
    assert_false (hw.fp8); /* 'tpu' row, but no INT8 peak */
}

/* The planner refuses a 4-bit request on a generation without a 4-bit
 * row, naming the precision and the accelerator; MI355X plans it.
 */
static void plan_fp4 (const char *gpu, int want_rc, const char *want_text)
{
    struct gp_train_request rq;
    gp_train_request_init (&rq);
    rq.model = "llama3.1-8b";
    rq.accels = gpu;
    rq.gpus = 8;
    rq.tokens = 1e12;
    rq.precision = gp_precision_parse ("fp4");
    struct gp_train_plan_result *r = NULL;
    gp_error_t err = {0};
    int rc = gp_train_plan (cat, &rq, &r, &err);
    assert_int_equal (rc, want_rc);
    if (want_text) {
        assert_non_null (strstr (err.text, "fp4"));
        assert_non_null (strstr (err.text, want_text));
    } else {
        assert_non_null (r);
        assert_true (r->any_feasible);
        near (r->accels[0].hw.peak_flops, 10066.3e12, "MI355X plan peak");
    }
    gp_train_plan_result_destroy (r);
}

static void test_plan_errors (void **state)
{
    (void)state;
    plan_fp4 ("MI355X", 0, NULL);
    plan_fp4 ("H100-SXM", GP_EINVAL, "H100-SXM");
    plan_fp4 ("MI300X", GP_EINVAL, "MI300X");
    plan_fp4 ("TPU-V5P", GP_EINVAL, "TPU-V5P");
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_cdna4_rows),
        cmocka_unit_test (test_b300_row),
        cmocka_unit_test (test_cdna4_takes_cdna3_factors),
        cmocka_unit_test (test_tpu_int8_peak),
        cmocka_unit_test (test_names),
        cmocka_unit_test (test_alias),
        cmocka_unit_test (test_alias_hw),
        cmocka_unit_test (test_int8),
        cmocka_unit_test (test_plan_errors),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
