/* stats.c - error summaries of a validation: the median absolute relative
 * error and the share of modelled rows within 10, 20 and 30 %.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate_private.h"

int gp__val_acc_init (struct val_acc *a, size_t cap)
{
    memset (a, 0, sizeof *a);
    a->errs = calloc (cap ? cap : 1, sizeof *a->errs);
    return a->errs ? 0 : -1;
}

void gp__val_acc_free (struct val_acc *a)
{
    free (a->errs);
    a->errs = NULL;
}

void gp__val_acc_add (struct val_acc *a, int ok, double rel_err)
{
    a->n_all++;
    if (ok)
        a->errs[a->n_ok++] = fabs (rel_err);
}

static int cmp_d (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void gp__val_acc_summary (struct val_acc *a, const char *name,
                          struct gp_val_summary *s)
{
    memset (s, 0, sizeof *s);
    snprintf (s->name, sizeof s->name, "%s", name);
    s->n = a->n_all;
    s->n_ok = a->n_ok;
    size_t n = a->n_ok;
    if (!n)
        return;
    qsort (a->errs, n, sizeof *a->errs, cmp_d);
    s->median_abs_rel_err = n % 2 ? a->errs[n / 2]
                                  : 0.5 * (a->errs[n / 2 - 1]
                                           + a->errs[n / 2]);
    for (size_t i = 0; i < n; i++) {
        s->within_10 += a->errs[i] <= 0.10;
        s->within_20 += a->errs[i] <= 0.20;
        s->within_30 += a->errs[i] <= 0.30;
    }
    s->within_10 /= n;
    s->within_20 /= n;
    s->within_30 /= n;
}
