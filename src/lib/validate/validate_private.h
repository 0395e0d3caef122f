/* validate_private.h - the error accumulator shared by the training and
 * inference validations.
 */
#ifndef GPUPLAN_VALIDATE_PRIVATE_H
#define GPUPLAN_VALIDATE_PRIVATE_H

#include <stddef.h>

#include "gpuplan/validate.h"

/* Absolute relative errors of the modelled rows of one set. */
struct val_acc {
    double *errs;
    size_t n_ok, n_all;
};

/* Room for 'cap' rows; 0 or -1 on allocation failure. */
int gp__val_acc_init (struct val_acc *a, size_t cap);
void gp__val_acc_free (struct val_acc *a);

/* Count one row; its error 'rel_err' enters the statistics when 'ok'. */
void gp__val_acc_add (struct val_acc *a, int ok, double rel_err);

/* Median and shares within 10/20/30 % of 'a' (sorts 'a->errs') into 's',
 * named 'name'.
 */
void gp__val_acc_summary (struct val_acc *a, const char *name,
                          struct gp_val_summary *s);

/* The source family of a row id: the text before the first '-'. */
void gp__val_family_of (const char *id, char *out, size_t n);

/* Index of the family of row id 'id' in the '*n' summaries '*by' (room
 * for '*cap'), appended zeroed with its name when new; -1 on allocation
 * failure.
 */
long gp__val_family_add (struct gp_val_summary **by, size_t *n, size_t *cap,
                         const char *id);

/* Fill v->fit[f] (factors, fitted) for every family of 'v' from its
 * modelled rows (fit.c, docs/model/training.md "Honest fitting").
 * Returns 0, or -1 on allocation failure.
 */
int gp__val_fit_counts (struct gp_validation *v);

/* The GEMM-ceiling grid of the leave-one-source-out refit. */
#define GP__VAL_GRID_N 36
double gp__val_grid (size_t g); /* 0.55 + 0.01 g */

/* Leave-one-source-out from the rows predicted at every grid value:
 * 'err[g * n + i]' and 'ok[g * n + i]' are row i's relative error and
 * status with the GEMM ceiling of every generation at gp__val_grid(g).
 * Sets v->fit[f].loso, gap, gap_flag, have_loso and v->loso_all.
 * Returns 0, or -1 on allocation failure.
 */
int gp__val_loso (struct gp_validation *v, const double *err,
                  const unsigned char *ok);

/* Constants of the serving model set on validation rows (fit.c, scope
 * "serving:...") that act on rows of engine stack 'stack' ("vllm/rocm")
 * or generation 'generation' (either may be "").
 */
int gp__val_serving_fitted (const char *stack, const char *generation);

/* The inference validation's families, their fitting records and
 * leave-one-source-out errors (infer_fit.c): fills v->by_family,
 * v->n_families, v->fit and v->loso_all from v->val.  0, or -1 on
 * allocation failure.
 */
int gp__infer_val_fit (struct gp_infer_validation *v);

#endif
