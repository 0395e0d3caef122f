/* test_validate_fabric.c - the training validation CSV's fabric columns
 * (docs/formats/train.md, "Validation CSV"): 'oversubscription' and
 * 'nic_gbps' reach the model, and bad cells are bad input naming the
 * file, the line and the column.
 *
 * The row: Llama 3.2 3B (the zoo entry llama3.2-3b, from Meta's
 * config.json: 28 layers, hidden 3072, FFN 8192, 24 heads, 8 KV heads of
 * 128, vocabulary 128256, tied embeddings) on 16 B200 (8 per node), tp 1,
 * pp 1, dp 16, ZeRO-1, no recompute, micro-batch 1, sequence 1024, global
 * batch 16, BF16.  The DP group spans two nodes, so its traffic crosses
 * the fabric.
 *
 * Hand calculation of the exposed DP traffic (docs/model/training.md,
 * "Data parallelism"): ZeRO-1 reduce-scatters the BF16 gradients and
 * all-gathers the BF16 parameters, each (n-1)/n x bytes / B over n = 16
 * ranks, B = 8 NICs x 50 GB/s (400 Gb/s, the B200 generation's NIC) x
 * 0.90 (blackwell train_scale_out, data/catalog/generations.csv) /
 * oversubscription = 360 GB/s at 1.0 (under NVLink's 900 x 0.80 = 720
 * GB/s, so not capped).  P = 28 x (3072 x (3072 + 2 x 8 x 128) + 3072^2 +
 * 3 x 3072 x 8192) + 128256 x 3072 = 3.2126e9 parameters (Meta: 3.21 B).
 * Bandwidth part at 1.0: 15/16 x (2 + 2) x 3.2126e9 / 360e9 = 0.033463 s.
 * The backward window of one micro-batch (28 layers of about 4 x 101 M x
 * 1024 FLOP at 2250 TFLOP/s x 0.68: ~8 ms) is shorter than the traffic
 * at every oversubscription below, so the exposed part is traffic - 0.9 x
 * window and the step grows by exactly the bandwidth part's growth:
 * 0.033463 x (o - 1) s (the latency part does not change).  Hence
 * step(2) - step(1) = 0.0335 s, step(3) - step(1) = 2 x that, and
 * nic_gbps 200 at oversubscription 1 equals oversubscription 2.
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

#include "gpuplan/validate.h"

/* |a - b| <= tol (cmocka's float compare is single precision) */
#define assert_near(a, b, tol)                                               \
    do {                                                                     \
        double a_ = (a), b_ = (b);                                           \
        if (!(fabs (a_ - b_) <= (tol)))                                      \
            fail_msg ("%s = %.9g, expected %.9g", #a, a_, b_);               \
    } while (0)

#define HEAD                                                                 \
    "id,kind,zoo,layers,hidden,ffn_hidden,heads,kv_heads,vocab,mlp,"         \
    "moe_experts,moe_topk,moe_ffn_hidden,moe_shared_experts,seq_len,gpu,num_gpus,"       \
    "gpus_per_node,tp,pp,dp,cp,ep,vpp,sharding,recompute,micro_batch,"       \
    "global_batch,precision,tokens,measured_tokens_per_s_per_gpu,"           \
    "measured_gpu_hours,oversubscription,nic_gbps\n"
#define ROW(id, ov, nic)                                                     \
    id ",throughput,llama3.2-3b,28,3072,8192,24,8,128256,swiglu,,,,,1024,"   \
       "B200,16,8,1,1,16,1,,,zero1,none,1,16,bf16,,1000,," ov "," nic "\n"

/* Write 'text' to a temporary CSV; the path goes to 'path'. */
static void write_csv (char *path, size_t n, const char *text)
{
    const char *dir = getenv ("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    assert_true ((size_t)snprintf (path, n, "%s/gp_fabricXXXXXX", dir) < n);
    int fd = mkstemp (path);
    assert_true (fd >= 0);
    FILE *f = fdopen (fd, "w");
    assert_non_null (f);
    fputs (text, f);
    fclose (f);
}

static int run (const char *text, struct gp_validation **v, gp_error_t *err,
                char *path, size_t n)
{
    struct gp_catalog *cat = gp_catalog_load (NULL, err);
    assert_non_null (cat);
    write_csv (path, n, text);
    struct gp_validate_request rq = {.path = path};
    int rc = gp_validate_training (cat, &rq, v, err);
    gp_catalog_destroy (cat);
    return rc;
}

static void test_oversubscription_reaches_model (void **state)
{
    (void)state;
    char path[4096];
    gp_error_t err = {0};
    struct gp_validation *v = NULL;
    int rc = run (HEAD ROW ("o1", "", "") ROW ("o1x", "1", "400")
                      ROW ("o2", "2", "") ROW ("o3", "3", "")
                          ROW ("nic200", "", "200"),
                  &v, &err, path, sizeof path);
    unlink (path);
    assert_int_equal (rc, 0);
    assert_int_equal (v->n_rows, 5);
    for (size_t i = 0; i < 5; i++) {
        if (!v->rows[i].ok)
            fail_msg ("%s: %s", v->rows[i].id, v->rows[i].reason);
        assert_true (v->rows[i].step_s > 0);
    }
    double s1 = v->rows[0].step_s, s1x = v->rows[1].step_s;
    double s2 = v->rows[2].step_s, s3 = v->rows[3].step_s;
    double sn = v->rows[4].step_s;
    print_message ("step s: o1 %.5f, o2 %.5f, o3 %.5f, nic200 %.5f\n", s1,
                   s2, s3, sn);
    /* blank = the catalog's 400 Gb/s, non-blocking */
    assert_near (s1x, s1, 1e-9 * s1);
    /* hand: 15/16 x 4 B x 3.2126e9 / 360e9 = 0.033463 s per unit of o - 1
     * (P from the dims, norms ignored: 1 % tolerance)
     */
    double b1 = 15.0 / 16 * 4 * 3.2126e9 / 360e9;
    assert_near (s2 - s1, b1, 0.01 * b1);
    assert_near (s3 - s1, 2 * b1, 0.02 * b1);
    /* the ratio does not depend on P: exactly 2 */
    assert_near ((s3 - s1) / (s2 - s1), 2.0, 1e-6);
    /* half the NIC bandwidth = twice the oversubscription */
    assert_near (sn, s2, 1e-9 * s2);
    gp_validation_destroy (v);
}

/* A bad cell is bad input: GP_EPARSE naming file, line and column. */
static void expect_bad (const char *text, const char *line_tag,
                        const char *col)
{
    char path[4096];
    gp_error_t err = {0};
    struct gp_validation *v = NULL;
    int rc = run (text, &v, &err, path, sizeof path);
    unlink (path);
    assert_int_equal (rc, GP_EPARSE);
    assert_null (v);
    print_message ("%s\n", err.text);
    assert_non_null (strstr (err.text, path));
    assert_non_null (strstr (err.text, line_tag));
    assert_non_null (strstr (err.text, col));
}

static void test_bad_cells (void **state)
{
    (void)state;
    expect_bad (HEAD ROW ("a", "", "") ROW ("b", "0.5", ""), ":3:",
                "column 'oversubscription'");
    expect_bad (HEAD ROW ("a", "2x", ""), ":2:", "column 'oversubscription'");
    expect_bad (HEAD ROW ("a", "65", ""), ":2:", "column 'oversubscription'");
    expect_bad (HEAD ROW ("a", "", "fast"), ":2:", "column 'nic_gbps'");
    expect_bad (HEAD ROW ("a", "", "0"), ":2:", "column 'nic_gbps'");
    expect_bad (HEAD ROW ("a", "", "-400"), ":2:", "column 'nic_gbps'");
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_oversubscription_reaches_model),
        cmocka_unit_test (test_bad_cells),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
