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

#endif
