/* h100_fixture.h - H100 SXM training hardware for the model tests
 * (test_train_fp8.c, test_train_moe.c): the datasheet figures (989.4
 * TFLOP/s dense BF16/FP16, 1,978.9 FP8, 80 GB at 3.35 TB/s, 900 GB/s
 * NVLink in 8-GPU domains, 700 W; NVIDIA H100 datasheet) with the
 * catalog's hopper efficiency row and NIC.  The including file brings
 * cmocka and the gpuplan headers.
 */
#ifndef GP_TEST_H100_FIXTURE_H
#define GP_TEST_H100_FIXTURE_H

static void hw_h100_prec (struct gp_train_hw *hw, enum gp_precision p)
{
    struct gp_accel a;
    memset (&a, 0, sizeof a);
    a.id = "H100-SXM";
    a.mem_bytes = 80e9;
    a.mem_bw = 3.35e12;
    a.bf16_flops = a.fp16_flops = 989.4e12;
    a.fp8_flops = 1978.9e12;
    a.scale_up_bw = 900e9;
    a.scale_up_domain = 8;
    a.tdp_w = 700;
    static struct gp_catalog *cat;
    if (!cat)
        cat = gp_catalog_load (NULL, NULL);
    a.gen = gp_catalog_find_generation (cat, "hopper", NULL);
    assert_non_null (a.gen);
    gp_train_hw_from_accel (&a, p, hw);
}

#endif
