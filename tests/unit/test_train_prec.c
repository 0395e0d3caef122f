/* test_train_prec.c - training precision and CPU activation offload
 * (docs/model/training.md, "Precision", "CPU activation offload", "TP
 * communication overlap"): the compiled tables equal
 * data/catalog/precisions.csv and host_links.csv; MXFP8 and NVFP4 take
 * their datasheet peaks and exist only on Blackwell; the cast bytes of a
 * precision change the GEMM time by the hand-computed amount; offloading
 * n layers frees n - 2 layers of activations and its exposed copy time
 * follows the link; the search offloads only where Megatron-Core allows
 * it; overlapped TP traffic hides under the GEMMs.
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

#include "gpuplan/arch.h"
#include "gpuplan/catalog.h"
#include "gpuplan/csv.h"
#include "gpuplan/train.h"
#include "model/train_private.h"

static struct gp_catalog *cat;
static struct gp_zoo *zoo;

static int setup (void **state)
{
    (void)state;
    cat = gp_catalog_load (NULL, NULL);
    zoo = gp_zoo_load (NULL, NULL);
    return cat && zoo ? 0 : -1;
}

static int teardown (void **state)
{
    (void)state;
    gp_catalog_destroy (cat);
    gp_zoo_destroy (zoo);
    return 0;
}

/* ------------------------- tables equal the CSVs ----------------------- */

struct cmp {
    int col[6];
    size_t n;
    int links;
};

static int on_row (const struct gp_csv_row *r, void *arg, gp_error_t *err)
{
    (void)err;
    struct cmp *c = arg;
    static const char *pn[6] = {"precision",  "generation",      "peak",
                                "cast_bytes", "saved_act_bytes", "gemm_eff"};
    static const char *ln[4] = {"accelerator_id", "link",
                                "bw_gbs_per_direction",
                                "host_mem_gb_per_gpu"};
    int nc = c->links ? 4 : 6;
    if (r->index == 0) {
        for (int i = 0; i < nc; i++) {
            c->col[i] = gp_csv_col (r, c->links ? ln[i] : pn[i]);
            assert_true (c->col[i] >= 0);
        }
        return 0;
    }
    size_t n;
    if (c->links) {
        const struct gp_host_link *k = gp_host_link_rows (&n);
        assert_true (c->n < n);
        k += c->n++;
        assert_string_equal (r->fields[c->col[0]], k->accel_id);
        assert_string_equal (r->fields[c->col[1]], k->link);
        assert_true (strtod (r->fields[c->col[2]], NULL) == k->bw_gbs);
        assert_true (strtod (r->fields[c->col[3]], NULL) == k->host_mem_gb);
        return 0;
    }
    const struct gp_train_prec *p = gp_train_prec_rows (&n);
    assert_true (c->n < n);
    p += c->n++;
    assert_string_equal (r->fields[c->col[0]], p->precision);
    assert_string_equal (r->fields[c->col[1]], p->generation);
    assert_string_equal (r->fields[c->col[2]], p->peak);
    assert_true (strtod (r->fields[c->col[3]], NULL) == p->cast_bytes);
    assert_true (strtod (r->fields[c->col[4]], NULL) == p->saved_act_bytes);
    assert_true (strtod (r->fields[c->col[5]], NULL) == p->gemm_eff);
    return 0;
}

static void test_tables_are_the_csvs (void **state)
{
    (void)state;
    gp_error_t err = {0};
    size_t n;
    struct cmp c = {{0}, 0, 0};
    assert_int_equal (gp_csv_parse_file (GP_SOURCE_DIR
                                         "/data/catalog/precisions.csv",
                                         ',', on_row, &c, &err),
                      0);
    gp_train_prec_rows (&n);
    assert_int_equal (c.n, n);
    struct cmp k = {{0}, 0, 1};
    assert_int_equal (gp_csv_parse_file (GP_SOURCE_DIR
                                         "/data/catalog/host_links.csv",
                                         ',', on_row, &k, &err),
                      0);
    gp_host_link_rows (&n);
    assert_int_equal (k.n, n);
}

/* ------------------------------ precisions ----------------------------- */

static void hw_of (const char *gpu, enum gp_precision p,
                   struct gp_train_hw *hw)
{
    const struct gp_accel *a = gp_catalog_find_accel (cat, gpu, NULL);
    assert_non_null (a);
    gp_train_hw_from_accel (a, p, hw);
}

static void test_names_and_peaks (void **state)
{
    (void)state;
    assert_int_equal (gp_precision_parse ("mxfp8"), GP_PREC_MXFP8);
    assert_int_equal (gp_precision_parse ("NVFP4"), GP_PREC_NVFP4);
    assert_int_equal (gp_precision_parse ("fp8-cs"), GP_PREC_FP8);
    assert_int_equal (gp_precision_parse ("fp8-delayed"),
                      GP_PREC_FP8_DELAYED);
    assert_int_equal (gp_precision_parse ("fp6"), -1);
    struct gp_train_hw hw;
    /* B200 datasheet: 4.5 PFLOP/s dense FP8, FP4 twice that (9 PFLOP/s;
     * generations.csv fp4_per_fp8 = 2); MXFP8 runs at the FP8 rate
     */
    hw_of ("B200", GP_PREC_MXFP8, &hw);
    assert_true (hw.fp8);
    assert_true (fabs (hw.peak_flops - 4500e12) < 1e6);
    assert_true (fabs (hw.cast_bytes - (2 + 2 * (1 + 1.0 / 32))) < 1e-12);
    hw_of ("B200", GP_PREC_NVFP4, &hw);
    assert_true (fabs (hw.peak_flops - 9000e12) < 1e6);
    assert_true (fabs (hw.saved_act_bytes - 0.5625) < 1e-12);
    /* GB300 gives its own dense FP4 figure: 14.7 PFLOP/s */
    hw_of ("GB300", GP_PREC_NVFP4, &hw);
    assert_true (fabs (hw.peak_flops - 14700e12) < 1e6);
    /* Hopper has no MX or NVFP4 tensor cores: no row, not low precision */
    hw_of ("H100-SXM", GP_PREC_MXFP8, &hw);
    assert_false (hw.fp8);
    assert_null (gp_train_prec_for (GP_PREC_NVFP4, "hopper"));
    /* FP8 current scaling keeps the train_time.c defaults */
    hw_of ("H100-SXM", GP_PREC_FP8, &hw);
    assert_true (hw.fp8 && hw.cast_bytes == 5 && hw.saved_act_bytes == 1);
    /* host links at 80 %: PCIe Gen5 x16 (64 GB/s) shared by two GPUs;
     * NVLink-C2C 225 GB/s per GPU
     */
    assert_true (fabs (hw.host_bw - 0.8 * 32e9) < 1);
    hw_of ("GB200", GP_PREC_BF16, &hw);
    assert_true (fabs (hw.host_bw - 0.8 * 225e9) < 1);
}

static void model_of (const char *id, struct gp_train_model *m)
{
    const struct gp_arch *a = gp_zoo_find (zoo, id, NULL);
    assert_non_null (a);
    assert_int_equal (gp_train_prep (a, m, NULL), 0);
}

/* The cast is charged per GEMM on its activation input: M x K elements
 * of QKV (T x h), projection (T x a*d), MLP up (T x h), MLP down (T x f)
 * at TP 1, forward and twice in backward, per layer and micro-batch.
 */
static void test_cast_bytes (void **state)
{
    (void)state;
    struct gp_train_model m;
    model_of ("llama3-8b", &m);
    struct gp_train_job job;
    gp_train_job_default (&job);
    job.seq_len = 8192;
    job.global_batch = 16;
    job.precision = GP_PREC_MXFP8;
    struct gp_train_hw hw;
    hw_of ("B200", GP_PREC_MXFP8, &hw);
    struct gp_layout l = {.tp = 1, .pp = 1, .dp = 8, .cp = 1, .ep = 1,
                          .vpp = 1, .micro_batch = 1};
    struct gp_train_time a, b;
    gp_train_time (&m, &job, &hw, &l, &a);
    hw.cast_bytes += 1;
    gp_train_time (&m, &job, &hw, &l, &b);
    double T = 8192, h = 4096, qd = 32 * 128, f = 14336;
    double nmb = 16.0 / 8, per = T * (2 * h + qd + f)
                                 / (hw.mem_bw * hw.eff.hbm);
    double want = nmb * 32 * 3 * per;
    assert_true (fabs ((b.gemm_s - a.gemm_s) - want) < 1e-9 * want);
}

/* ------------------------------ offload -------------------------------- */

static void test_offload_memory_and_time (void **state)
{
    (void)state;
    struct gp_train_model m;
    model_of ("llama3-70b", &m);
    struct gp_train_job job;
    gp_train_job_default (&job);
    job.seq_len = 8192;
    job.global_batch = 256;
    job.precision = GP_PREC_FP8;
    struct gp_train_hw hw;
    hw_of ("GB200", GP_PREC_FP8, &hw);
    struct gp_layout l = {.tp = 1, .pp = 1, .dp = 64, .cp = 1, .ep = 1,
                          .vpp = 1, .micro_batch = 2,
                          .sharding = GP_SHARD_FSDP};
    struct gp_train_mem m0, m1;
    gp_train_memory (&m, &job, &hw, &l, &m0);
    assert_false (m0.fits);
    l.offload_layers = 40;
    gp_train_memory (&m, &job, &hw, &l, &m1);
    /* 40 layers go to the host; two stay as copy buffers */
    double a_layer = m1.offload_host / 40;
    assert_true (a_layer > 0);
    assert_true (fabs ((m0.activations - m1.activations) - 38 * a_layer)
                 < 1e-6 * m0.activations);
    assert_true (m0.total - m1.total > 38 * a_layer);
    /* a link 1e6 x slower: the copies dominate, 2 x 40 x bytes / bw per
     * micro-batch (out in forward, back in backward), 2 micro-batches
     */
    struct gp_train_time t;
    hw.host_bw /= 1e6;
    gp_train_time (&m, &job, &hw, &l, &t);
    double want = 2 * 2 * 40 * a_layer / hw.host_bw;
    assert_true (t.offload_s < want && t.offload_s > 0.999 * want);
    /* an infinitely fast link hides every copy */
    hw.host_bw = 1e30;
    gp_train_time (&m, &job, &hw, &l, &t);
    assert_true (t.offload_s == 0);
}

static void test_offload_fit_rules (void **state)
{
    (void)state;
    struct gp_train_model m;
    model_of ("llama3-70b", &m);
    struct gp_train_job job;
    gp_train_job_default (&job);
    job.seq_len = 8192;
    job.global_batch = 256;
    job.precision = GP_PREC_FP8;
    struct gp_train_hw hw;
    hw_of ("GB200", GP_PREC_FP8, &hw);
    struct gp_layout l = {.tp = 1, .pp = 1, .dp = 64, .cp = 1, .ep = 1,
                          .vpp = 1, .micro_batch = 2,
                          .sharding = GP_SHARD_FSDP};
    struct gp_train_mem mem;
    gp_train_memory (&m, &job, &hw, &l, &mem);
    struct gp_layout k = l;
    assert_int_equal (gp__offload_fit (&m, &job, &hw, &k, &mem), 1);
    assert_true (mem.fits && k.offload_layers > 2
                 && k.offload_layers < m.layers);
    /* the fewest: one layer fewer does not fit */
    struct gp_train_mem less;
    k.offload_layers -= 1;
    gp_train_memory (&m, &job, &hw, &k, &less);
    assert_false (less.fits);
    /* Megatron-Core: no offload with pipeline parallelism or with
     * recomputation, none without a host link
     */
    struct gp_layout p = l;
    p.pp = 2, p.dp = 32;
    gp_train_memory (&m, &job, &hw, &p, &mem);
    assert_int_equal (gp__offload_fit (&m, &job, &hw, &p, &mem), 0);
    p = l;
    p.recompute = GP_RECOMP_SELECTIVE;
    gp_train_memory (&m, &job, &hw, &p, &mem);
    assert_int_equal (gp__offload_fit (&m, &job, &hw, &p, &mem), 0);
    /* the same rules in gp_train_check */
    gp_error_t err = {0};
    p = l;
    p.offload_layers = 10;
    assert_int_equal (gp_train_check (&m, &job, &p, &err), 0);
    p.recompute = GP_RECOMP_FULL;
    assert_int_not_equal (gp_train_check (&m, &job, &p, &err), 0);
    p = l;
    hw.host_bw = 0;
    gp_train_memory (&m, &job, &hw, &p, &mem);
    assert_int_equal (gp__offload_fit (&m, &job, &hw, &p, &mem), 0);
}

/* --------------------------- TP overlap, PP ----------------------------- */

static void test_tp_overlap_and_pipeline_split (void **state)
{
    (void)state;
    assert_true (gp__tp_overlap_s (3, 2) == 1);
    assert_true (gp__tp_overlap_s (1, 2) == 0);
    struct gp_train_model m;
    model_of ("llama3.1-405b", &m);
    struct gp_train_job job;
    gp_train_job_default (&job);
    job.seq_len = 8192;
    job.global_batch = 1536;
    job.precision = GP_PREC_NVFP4;
    struct gp_train_hw hw;
    hw_of ("GB200", GP_PREC_NVFP4, &hw);
    /* 126 layers, pp 16 x vpp 8 = 128: the embedding and the loss count
     * as one pipeline layer each; 129 would not
     */
    struct gp_layout l = {.tp = 4, .pp = 16, .dp = 4, .cp = 1, .ep = 1,
                          .vpp = 8, .micro_batch = 1, .seq_par = 1};
    gp_error_t err = {0};
    assert_int_equal (gp_train_check (&m, &job, &l, &err), 0);
    struct gp_train_time a, b;
    gp_train_time (&m, &job, &hw, &l, &a);
    job.tp_comm_overlap = 1;
    gp_train_time (&m, &job, &hw, &l, &b);
    assert_true (a.tp_comm_s > 0);
    /* the TP traffic of a 16,384-wide layer is far below its GEMMs */
    assert_true (b.tp_comm_s == 0);
    assert_true (b.step_s < a.step_s);
    model_of ("llama3-70b", &m);
    l.pp = 16, l.vpp = 6; /* 96 > 80 + 2 */
    assert_int_not_equal (gp_train_check (&m, &job, &l, &err), 0);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_tables_are_the_csvs),
        cmocka_unit_test (test_names_and_peaks),
        cmocka_unit_test (test_cast_bytes),
        cmocka_unit_test (test_offload_memory_and_time),
        cmocka_unit_test (test_offload_fit_rules),
        cmocka_unit_test (test_tp_overlap_and_pipeline_split),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
