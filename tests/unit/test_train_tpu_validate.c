/* test_train_tpu_validate.c - the training validation CSV's memory
 * columns (docs/formats/train.md, "Validation CSV"): 'remat_offload' and
 * 'logits' reach the model, and bad cells are bad input naming the file,
 * the line and the column.
 *
 * The row: Llama 3.1 8B (zoo llama3.1-8b) on 8 TPU v6e chips, FSDP over
 * all 8, micro-batch 3 of 8,192 tokens, global batch 24, BF16, as the
 * tpu-recipes v6e-8 README.  Without the columns no layout fits 32 GB:
 * the fp32 logits and gradient alone are 8 x 24,576 x 128,256 = 25.2 GB
 * next to 16 B x 8.03e9 / 8 = 16.1 GB of FSDP weights, gradients and
 * optimizer states.  With them the layout fits: the loss phase holds
 * 12.0 GB of weights and optimizer (no layer gradients yet) + 12.6 GB of
 * 16-bit logits and gradient, well under 32 GB with the runtime.
 * weight_dtype bf16 keeps parameters and Adam moments in 16 bit.
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

#define HEAD                                                                 \
    "id,kind,zoo,layers,hidden,ffn_hidden,heads,kv_heads,vocab,mlp,"         \
    "moe_experts,moe_topk,moe_ffn_hidden,moe_shared_experts,seq_len,gpu,"    \
    "num_gpus,gpus_per_node,tp,pp,dp,cp,ep,vpp,sharding,recompute,"          \
    "micro_batch,global_batch,precision,tokens,"                             \
    "measured_tokens_per_s_per_gpu,measured_gpu_hours,remat_offload,"        \
    "logits,weight_dtype\n"
#define ROWW(id, rec, ro, lg, wd)                                            \
    id ",throughput,llama3.1-8b,32,4096,14336,32,8,128256,swiglu,,,,,8192,"  \
       "TPU-V6E,8,4,1,1,8,1,,,fsdp," rec ",3,24,bf16,,7138.89,," ro "," lg   \
       "," wd "\n"
#define ROW(id, rec, ro, lg) ROWW (id, rec, ro, lg, "")

static void write_csv (char *path, size_t n, const char *text)
{
    const char *dir = getenv ("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    assert_true ((size_t)snprintf (path, n, "%s/gp_tpuvXXXXXX", dir) < n);
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

static void test_columns_reach_model (void **state)
{
    (void)state;
    char path[4096];
    gp_error_t err = {0};
    struct gp_validation *v = NULL;
    int rc = run (HEAD ROW ("a", "", "", "") ROW ("b", "full", "none", "fp32")
                      ROW ("c", "full", "checkpoints", "xla")
                          ROWW ("d", "full", "checkpoints", "xla", "bf16"),
                  &v, &err, path, sizeof path);
    unlink (path);
    assert_int_equal (rc, 0);
    assert_int_equal (v->n_rows, 4);
    /* searched recompute, fp32 logits in HBM: nothing fits */
    assert_false (v->rows[0].ok);
    print_message ("a: %s\n", v->rows[0].reason);
    assert_non_null (strstr (v->rows[0].reason, "fits in memory"));
    /* the explicit defaults: predicted (fixed layout) but over 32 GB */
    assert_true (v->rows[1].ok);
    assert_true (v->rows[1].mem_bytes > 32e9);
    /* the recipe's policy: fits, and less memory than without it by at
     * least the 12.6 GB of logits saved
     */
    assert_true (v->rows[2].ok);
    print_message ("b %.2f GB, c %.2f GB\n", v->rows[1].mem_bytes / 1e9,
                   v->rows[2].mem_bytes / 1e9);
    assert_true (v->rows[2].mem_bytes < 32e9);
    assert_true (v->rows[1].mem_bytes - v->rows[2].mem_bytes > 12.6e9);
    /* weight_dtype bf16: master weights and Adam moments 12 -> 6 B per
     * parameter, in both phases: 6 B x 8.03e9 / 8 chips = 6.02 GB less
     * (x 1.05 with the allocator share; 1 % tolerance on P)
     */
    assert_true (v->rows[3].ok);
    double d = v->rows[2].mem_bytes - v->rows[3].mem_bytes;
    print_message ("bf16 weights: %.3f GB less\n", d / 1e9);
    assert_true (d > 0.99 * 6.02e9 && d < 1.01 * 6.02e9 * 1.05 + 2 * 8.03e9 / 8);
    gp_validation_destroy (v);
}

static void expect_bad (const char *text, const char *col)
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
    assert_non_null (strstr (err.text, ":2:"));
    assert_non_null (strstr (err.text, col));
}

static void test_bad_cells (void **state)
{
    (void)state;
    expect_bad (HEAD ROW ("x", "full", "host", ""), "'remat_offload'");
    expect_bad (HEAD ROW ("y", "full", "", "bf16"), "'logits'");
    expect_bad (HEAD ROWW ("z", "full", "", "", "fp16"), "'weight_dtype'");
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_columns_reach_model),
        cmocka_unit_test (test_bad_cells),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
