/* val_csv_fixture.h - run gp_validate_training on a validation CSV held
 * in a string (test_train_attn_kernel.c, test_train_grad_reduce.c): the
 * header's first 38 columns (VAL_CSV_HEADER, then the file's own optional
 * columns and a newline) and a temporary file removed after the run.  The
 * including file brings cmocka, <unistd.h> and the gpuplan headers.
 */
#ifndef GP_TEST_VAL_CSV_FIXTURE_H
#define GP_TEST_VAL_CSV_FIXTURE_H

#define VAL_CSV_HEADER                                                     \
    "id,kind,model,zoo,params_b,layers,hidden,ffn_hidden,heads,kv_heads,"  \
    "vocab,mlp,moe_experts,moe_topk,moe_ffn_hidden,moe_shared_experts,"    \
    "seq_len,gpu,num_gpus,gpus_per_node,tp,pp,dp,cp,ep,vpp,sharding,"      \
    "recompute,micro_batch,global_batch,precision,tokens,"                 \
    "measured_tokens_per_s_per_gpu,measured_gpu_hours,source_metric,"      \
    "source_value,source,notes,"

/* gp_validate_training of 'csv' with catalog 'catalog'; its return code. */
static int val_run_csv (const struct gp_catalog *catalog, const char *csv,
                        struct gp_validation **v, gp_error_t *err)
{
    char path[64];
    snprintf (path, sizeof path, "/tmp/gp-test-valcsv-XXXXXX");
    int fd = mkstemp (path);
    assert_true (fd >= 0);
    FILE *f = fdopen (fd, "w");
    assert_non_null (f);
    fputs (csv, f);
    fclose (f);
    struct gp_validate_request rq = {.path = path};
    int rc = gp_validate_training (catalog, &rq, v, err);
    unlink (path);
    return rc;
}

#endif
