/* gpuplan/validate.h - predict published measurements row by row and
 * summarise the error: 'gpuplan validate training|inference FILE.csv'.
 *
 * Each row of a validation CSV is predicted from its own columns plus the
 * catalog and the model zoo (schemas in docs/formats/train.md and
 * docs/formats/infer.md).  Rows that cannot be modelled are kept with a
 * reason, never dropped.  Summaries give the median absolute relative
 * error and the share of modelled rows within 10/20/30 %.
 *
 * Errors and shares are fractions (0.084 = 8.4 %).
 */
#ifndef GPUPLAN_VALIDATE_H
#define GPUPLAN_VALIDATE_H

#include <stddef.h>

#include "gpuplan/arch.h"
#include "gpuplan/catalog.h"
#include "gpuplan/error.h"
#include "gpuplan/infer.h"

#ifdef __cplusplus
extern "C" {
#endif

struct json_t;

/* ============================ requests ================================= */

/* One efficiency factor of a GPU generation that a what-if or calibration
 * run overrides (validation/training/calibrate.py uses them for its
 * leave-one-family-out check).
 */
enum gp_eff_key {
    GP_EFF_GEMM_MAX,
    GP_EFF_GEMM_DIM_HALF,
    GP_EFF_ATTN,
    GP_EFF_HBM,
    GP_EFF_SCALE_UP,
    GP_EFF_SCALE_OUT,
    GP_EFF_KERNEL_S,
};

struct gp_eff_override {
    char generation[16]; /* "ampere", "hopper", ..., or "all" */
    enum gp_eff_key key;
    double value;        /* > 0; kernel_s in seconds, the others fractions */
};

/* Parse "GEN.KEY=VALUE" (GEN ampere|hopper|blackwell|cdna3|other|all, KEY
 * gemm_max|gemm_dim_half|attn|hbm|scale_up|scale_out|kernel_s, VALUE > 0)
 * into '*o'.  Returns 0, or GP_EINVAL with 'err' set and '*o' untouched.
 */
int gp_eff_override_parse (const char *arg,
                           struct gp_eff_override *o,
                           gp_error_t *err);

struct gp_validate_request {
    const char *path;          /* the validation CSV (required) */
    const struct gp_zoo *zoo;  /* model zoo; NULL = the embedded zoo, or
                                  none when it cannot be loaded */
    const struct gp_eff_override *overrides; /* applied in order */
    size_t n_overrides;
};

/* ============================= results ================================= */

/* Error summary over a set of rows. */
struct gp_val_summary {
    char name[32];          /* "all", "throughput", a family, ... */
    size_t n;               /* rows in the set */
    size_t n_ok;            /* rows modelled (the statistics cover these) */
    double median_abs_rel_err; /* meaningful only when n_ok > 0 */
    double within_10, within_20, within_30; /* shares of n_ok; 0 if none */
};

enum gp_val_kind {
    GP_VAL_THROUGHPUT, /* tokens/s per GPU */
    GP_VAL_CAMPAIGN,   /* GPU-hours of a whole training run */
};

/* One training validation row, predicted. */
struct gp_val_row {
    char id[96];
    size_t line;            /* line in the CSV */
    enum gp_val_kind kind;
    int ok;                 /* 0 = unsupported (see 'reason') */
    char reason[200];
    double predicted;       /* 0 when no prediction */
    double measured;        /* NAN when the row has none */
    double rel_err;         /* (predicted - measured) / measured when ok */
    int has_layout;         /* the fields below are set */
    char layout[224];       /* "tp8 pp1 dp4 ..." */
    int n_gpus;
    double mfu;
    double step_s;
    double mem_bytes;       /* modelled memory per GPU */
};

struct gp_validation {
    struct gp_val_row *rows;
    size_t n_rows;
    struct gp_val_summary all;
    struct gp_val_summary by_kind[2];  /* indexed by enum gp_val_kind */
    struct gp_val_summary *by_family;  /* id prefix before the first '-',
                                          in order of first appearance */
    size_t n_families;
};

/* Read the training validation CSV 'rq->path' and predict every row with
 * the catalog 'cat' (the layout search fills blank layout fields, the
 * reliability model gives campaign goodput).  Returns 0 and '*out' (the
 * caller frees it with gp_validation_destroy()), or a negative gp_err with
 * 'err' set: GP_EINVAL for NULL arguments, GP_EIO for an unreadable file,
 * GP_EPARSE for a missing column ("file:line: missing column 'x'"),
 * GP_ENOMEM.  Rows the model cannot handle are results, not errors.
 */
int gp_validate_training (const struct gp_catalog *cat,
                          const struct gp_validate_request *rq,
                          struct gp_validation **out,
                          gp_error_t *err);

/* Free a training validation; NULL is a no-op. */
void gp_validation_destroy (struct gp_validation *v);

/* The inference validation: rows from gp_infer_validate() and summaries of
 * output tokens/s, TTFT and TPOT errors.  'throughput' counts every row in
 * 'n'; 'ttft' and 'tpot' cover the modelled rows that publish the metric
 * (n = n_ok = that count).
 */
struct gp_infer_validation {
    struct gp_infer_val val;
    struct gp_val_summary throughput;
    struct gp_val_summary ttft;
    struct gp_val_summary tpot;
};

/* Read the inference validation CSV 'rq->path' and predict every row with
 * 'cat' and the zoo (overrides are not used).  Returns 0 and '*out' (free
 * with gp_infer_validation_destroy()), or a negative gp_err as
 * gp_infer_validate() does; GP_ENOTFOUND-class zoo load errors are
 * returned when 'rq->zoo' is NULL and the embedded zoo cannot be loaded.
 */
int gp_validate_inference (const struct gp_catalog *cat,
                           const struct gp_validate_request *rq,
                           struct gp_infer_validation **out,
                           gp_error_t *err);

/* Free an inference validation; NULL is a no-op. */
void gp_infer_validation_destroy (struct gp_infer_validation *v);

/* ============================ renderers ================================ */

/* JSON of a training validation: {rows: [...], summary: {n, n_ok,
 * median_abs_rel_err, within_10pct, within_20pct, within_30pct, by_kind,
 * by_family}} (docs/formats/train.md).  A new reference the caller
 * releases with json_decref(); NULL on allocation failure.
 */
struct json_t *gp_validation_json (const struct gp_validation *v);

/* JSON of an inference validation: {rows: [...], summary: {..., ttft_rel_err,
 * tpot_rel_err}} (docs/formats/infer.md).  Caller owns; NULL on allocation
 * failure.
 */
struct json_t *gp_infer_validation_json (const struct gp_infer_validation *v);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_VALIDATE_H */
