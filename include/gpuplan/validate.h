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
    GP_EFF_ATTN_CUDNN,
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
    const char *const *paths;  /* inference: several CSVs read in turn and
                                  reported as one set (families across
                                  files share their engine stacks); when
                                  n_paths > 0 'path' is not read */
    size_t n_paths;
    int loso;                  /* training: 1 = also the
                                  leave-one-source-out refit (the GEMM
                                  ceiling grid of "Honest fitting", 36
                                  extra passes over the rows) */
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

/* The quantity a training validation row publishes (its 'measure' column;
 * docs/model/training.md, "Measures").  Throughput measures compare a
 * steady-state speed, campaign measures a whole run of 'tokens' tokens.
 */
enum gp_val_measure {
    GP_MEAS_TOKENS_PER_S_PER_GPU, /* throughput: tokens/s per GPU */
    GP_MEAS_TFLOPS_PER_GPU,       /* throughput: model TFLOP/s per GPU under
                                     the row's FLOP convention */
    GP_MEAS_GPU_HOURS,            /* campaign: GPU-hours */
    GP_MEAS_DAYS,                 /* campaign: wall-clock days */
    GP_MEAS_TIME_TO_TRAIN_MIN,    /* campaign: minutes from start to the
                                     target (MLPerf), no failures */
    GP_MEAS_N
};

/* How a row counts model FLOPs per token for a TFLOP/s measure. */
enum gp_flop_convention {
    GP_FLOPS_6N,      /* 6 x N, N = parameters in a token's GEMMs */
    GP_FLOPS_6N_ATTN, /* 6 x N + 12 x layers x seq x heads x head_dim */
};

/* What the model predicts for a row, before conversion to its measure. */
struct gp_val_native {
    double tokens_per_s_per_gpu; /* steady state, > 0 */
    double flops_per_token;      /* under the row's convention (TFLOP/s) */
    double goodput;              /* (0, 1], the reliability model's */
    double tokens;               /* of the run (campaign measures) */
    int n_gpus;                  /* of the run (days, time-to-train) */
    double eval_tokens;          /* forward-only tokens evaluated inside
                                    the timed run (time-to-train; 0 =
                                    none) */
};

/* The one conversion of a prediction into a row's measure:
 *   tokens/s/GPU       = r
 *   TFLOP/s/GPU        = r x F / 1e12
 *   GPU-hours          = T / (r x g) / 3600
 *   days               = T / (r x g x n) / 86400
 *   time-to-train, min = (T + E / 3) / (r x n) / 60   (no goodput: a
 *                        timed run; an evaluated token is a forward pass,
 *                        2N of a training token's 6N FLOPs)
 * with r tokens/s per GPU, F FLOPs per token, g goodput, T tokens, E
 * evaluated tokens and n GPUs of 'x'.  Returns the value, or NAN when an
 * input it needs is
 * missing (<= 0) or 'm' is out of range.  No errors, no allocation.
 */
double gp_val_measure_of (enum gp_val_measure m,
                          const struct gp_val_native *x);

/* Names of the measures as the CSV 'measure' column spells them
 * ("tokens_per_s_per_gpu", "tflops_per_gpu", "gpu_hours", "days",
 * "time_to_train_min"); "?" out of range.  Static strings.
 */
const char *gp_val_measure_str (enum gp_val_measure m);

/* Parse a measure name (case-insensitive) into '*m'.  Returns 0, or -1
 * ('*m' untouched) for an unknown name.
 */
int gp_val_measure_parse (const char *s, enum gp_val_measure *m);

/* The kind a measure belongs to (throughput or campaign). */
enum gp_val_kind gp_val_measure_kind (enum gp_val_measure m);

/* Parse a FLOP convention ("6N", "6N+attn", case-insensitive) into '*c'.
 * Returns 0, or -1 ('*c' untouched).
 */
int gp_flop_convention_parse (const char *s, enum gp_flop_convention *c);

struct gp_train_model;

/* Model FLOPs per token of 'm' at 'seq_len' tokens per sequence under
 * convention 'c': 6 x m->matmul_active, plus for GP_FLOPS_6N_ATTN the
 * attention term of gp_train_model_flops_per_token.  No errors.
 */
double gp_val_flops_per_token (const struct gp_train_model *m,
                               double seq_len,
                               enum gp_flop_convention c);

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
    enum gp_val_measure measure; /* the row's: 'predicted' and 'measured'
                                    are in this unit */
    int planned;            /* 1: the training planner (gp_train_plan, as
                               'gpuplan train --gpus N') chose the
                               sequence length, batch and layout */
    int seq_chosen;         /* 1: the planner chose 'seq_len' */
    int batch_chosen;       /* 1: the planner chose 'global_batch' */
    double seq_len;         /* tokens per sequence used (0 = none) */
    double global_batch;    /* sequences per step used (0 = none) */
    char generation[16];    /* the accelerator's generation ("" = none) */
    int zero3;              /* the layout shards with ZeRO-3 */
    int unfused_attn;       /* modelled without fused attention */
    int fp8;                /* FP8 GEMMs (the row's precision) */
    double goodput;         /* campaign rows: the goodput the measure
                               used (1 - the reliability model's expected
                               lost fraction; 0 = not used) */
    double eval_tokens;     /* time-to-train rows: forward-only tokens
                               evaluated in the timed run (0 = none) */
    int moe;                /* a MoE model (routed experts) */
    int gpus_chosen;        /* 1: a campaign row without num_gpus, sized
                               by the training planner's deadline sizing
                               (as 'gpuplan train --days D') for
                               'target_days' */
    double target_days;     /* the deadline it was sized for: the row's
                               'days' column, or the default deadline */
    int days_default;       /* 1: target_days is train.default_days */
};

/* The fitting record of one source family (docs/model/training.md,
 * "Honest fitting").
 */
struct gp_val_family_fit {
    int factors;            /* efficiency factors its modelled rows read:
                               7 per GPU generation */
    int fitted;             /* constants set after looking at the
                               validation rows that its modelled rows
                               depend on */
    int have_loso;          /* 'loso' and 'gap' are set */
    struct gp_val_summary loso; /* leave-one-source-out: GEMM ceiling
                                   refitted per generation without this
                                   family, then its rows predicted */
    double gap;             /* loso median - in-sample median, fraction */
    int gap_flag;           /* gap > GP_VAL_GAP_FLAG: the fit follows the
                               rows, not the mechanisms */
    int loso_refit;         /* modelled rows of the family predicted at a
                               refitted ceiling (0: no other family has
                               rows of their generation, so 'loso' is the
                               in-sample error, not a held-out one) */
};

#define GP_VAL_GAP_FLAG 0.03

struct gp_validation {
    struct gp_val_row *rows;
    size_t n_rows;
    struct gp_val_summary all;
    struct gp_val_summary by_kind[2];  /* indexed by enum gp_val_kind */
    struct gp_val_summary *by_family;  /* id prefix before the first '-',
                                          in order of first appearance */
    size_t n_families;
    struct gp_val_family_fit *fit;     /* same index as by_family */
    int have_loso;                     /* the request asked for it */
    struct gp_val_summary loso_all;    /* every row, each predicted
                                          without its own family */
};

/* Read the training validation CSV 'rq->path' and predict every row with
 * the catalog 'cat' (the layout search fills blank layout fields, the
 * reliability model gives campaign goodput; a row without seq_len or
 * global_batch is planned by gp_train_plan at its GPU count, and the row
 * records what the planner chose).  Each row is compared in its own
 * measure (gp_val_measure_of).  Every family gets its fitting record
 * ('fit'); with rq->loso its leave-one-source-out error too.  Returns 0 and '*out' (the
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
    /* output tokens/s per source family (id prefix before the first '-',
     * in order of first appearance) and its fitting record: 'factors'
     * are the engine-stack (engines.csv, 7 each) and generation
     * (generations.csv infer_*, 8 each) values its modelled rows read;
     * 'loso' is each row predicted with one throughput scale per engine
     * stack refitted on the other families' rows of that stack
     * (docs/model/inference.md, "Honest fitting") */
    struct gp_val_summary *by_family;
    size_t n_families;
    struct gp_val_family_fit *fit;     /* same index as by_family */
    struct gp_val_summary loso_all;    /* every row, without its family */
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

/* Plain text of a training validation, as 'gpuplan validate training'
 * prints it: the rows (measure, predicted, measured, error, layout or
 * reason), the summaries by kind and source family, and the fitting
 * table per family (in-sample against leave-one-source-out).  Returns a
 * string the caller frees, or NULL with 'err' set (GP_ENOMEM).
 */
char *gp_validation_text (const struct gp_validation *v, gp_error_t *err);

/* Plain text of an inference validation, as 'gpuplan validate inference'
 * prints it: the rows, the rate-mode latency table when there are rate
 * rows, the summaries of output tokens/s, TTFT and TPOT, and the fitting
 * table per family.  Caller frees; NULL with 'err' set on allocation
 * failure.
 */
char *gp_infer_validation_text (const struct gp_infer_validation *v,
                                gp_error_t *err);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_VALIDATE_H */
