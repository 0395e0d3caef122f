/* infer_fit.c - honest fitting of the serving model: output tokens/s per
 * source family, how many efficiency values each family's rows read and
 * how many constants were set on validation rows, and the
 * leave-one-source-out error (docs/model/inference.md, "Honest fitting").
 *
 * The serving model's fitted values are efficiency factors of an engine
 * and software stack (engines.csv) and of a generation (generations.csv
 * infer_*).  Output tokens/s scales with them, so the refit that can be
 * re-run per family is one throughput scale per engine stack: fitted
 * without the family, as the median of measured / predicted over the
 * other families' modelled rows of the same stack, then applied to the
 * family's rows.  A family alone on its stack has nothing to refit on:
 * its LOSO error is its in-sample one and the record says so.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "validate_private.h"

/* Values of an engine stack and of a generation a row reads. */
#define FACTORS_PER_STACK 7
#define FACTORS_PER_GENERATION 8
#define NSEEN 16

/* Index of 's' in 'seen', added when new ('*added' set); -1 for "" or
 * when NSEEN distinct values are already there.
 */
static int seen_slot (const char **seen, int *n, const char *s, int *added)
{
    *added = 0;
    if (!s[0])
        return -1;
    for (int i = 0; i < *n; i++)
        if (!strcmp (seen[i], s))
            return i;
    if (*n >= NSEEN)
        return -1;
    seen[*n] = s;
    *added = 1;
    return (*n)++;
}

static int cmp_double (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* log(measured / predicted) of every modelled row of 'stack' outside
 * family 'skip' into 'buf'; their median's exp, or NAN when none.
 */
static double stack_scale (const struct gp_infer_validation *v,
                           const long *fam, long skip, const char *stack,
                           double *buf)
{
    size_t k = 0;
    for (size_t j = 0; j < v->val.n_rows; j++) {
        const struct gp_infer_val_row *r = &v->val.rows[j];
        if (fam[j] == skip || !r->ok || strcmp (r->stack, stack)
            || !(r->predicted > 0) || !(r->measured > 0))
            continue;
        buf[k++] = log (r->measured / r->predicted);
    }
    if (!k)
        return NAN;
    qsort (buf, k, sizeof *buf, cmp_double);
    double med = k % 2 ? buf[k / 2] : 0.5 * (buf[k / 2 - 1] + buf[k / 2]);
    return exp (med);
}

int gp__infer_val_fit (struct gp_infer_validation *v)
{
    size_t n = v->val.n_rows;
    long *fam = calloc (n ? n : 1, sizeof *fam);
    double *buf = calloc (n ? n : 1, sizeof *buf);
    struct val_acc one, loso1, loso_all;
    int rc = -1;
    int a = gp__val_acc_init (&one, n), c = gp__val_acc_init (&loso1, n),
        d = gp__val_acc_init (&loso_all, n);
    if (!fam || !buf || a || c || d)
        goto done;
    size_t cap = 0;
    for (size_t i = 0; i < n; i++)
        if ((fam[i] = gp__val_family_add (&v->by_family, &v->n_families,
                                          &cap, v->val.rows[i].id))
            < 0)
            goto done;
    v->fit = calloc (v->n_families ? v->n_families : 1, sizeof *v->fit);
    if (!v->fit)
        goto done;
    for (size_t f = 0; f < v->n_families; f++) {
        struct gp_val_family_fit *ff = &v->fit[f];
        const char *stacks[NSEEN], *gens[NSEEN];
        double scale[NSEEN];    /* per stack of the family, refitted once */
        int ns = 0, ng = 0, added;
        one.n_ok = one.n_all = loso1.n_ok = loso1.n_all = 0;
        for (size_t i = 0; i < n; i++) {
            const struct gp_infer_val_row *r = &v->val.rows[i];
            if (fam[i] != (long)f)
                continue;
            gp__val_acc_add (&one, r->ok, r->rel_err);
            if (!r->ok) {
                gp__val_acc_add (&loso1, 0, 0);
                gp__val_acc_add (&loso_all, 0, 0);
                continue;
            }
            int si = seen_slot (stacks, &ns, r->stack, &added);
            if (added) {
                ff->fitted += gp__val_serving_fitted (r->stack, "");
                scale[si] = stack_scale (v, fam, (long)f, r->stack, buf);
            }
            (void)seen_slot (gens, &ng, r->generation, &added);
            if (added)
                ff->fitted += gp__val_serving_fitted ("", r->generation);
            double k = si >= 0 ? scale[si]
                               : stack_scale (v, fam, (long)f, r->stack, buf);
            double e = r->rel_err;
            if (!isnan (k)) {
                e = k * r->predicted / r->measured - 1;
                ff->loso_refit++;
            }
            gp__val_acc_add (&loso1, 1, e);
            gp__val_acc_add (&loso_all, 1, e);
        }
        ff->factors = FACTORS_PER_STACK * ns + FACTORS_PER_GENERATION * ng;
        char name[sizeof v->by_family[f].name];
        memcpy (name, v->by_family[f].name, sizeof name);
        gp__val_acc_summary (&one, name, &v->by_family[f]);
        gp__val_acc_summary (&loso1, name, &ff->loso);
        ff->have_loso = ff->loso.n_ok && v->by_family[f].n_ok;
        if (ff->have_loso) {
            ff->gap = ff->loso.median_abs_rel_err
                      - v->by_family[f].median_abs_rel_err;
            ff->gap_flag = ff->gap > GP_VAL_GAP_FLAG;
        }
    }
    gp__val_acc_summary (&loso_all, "all", &v->loso_all);
    rc = 0;
done:
    gp__val_acc_free (&one);
    gp__val_acc_free (&loso1);
    gp__val_acc_free (&loso_all);
    free (fam);
    free (buf);
    return rc;
}
