/* inference.c - the inference validation: gp_infer_validate()'s rows plus
 * the error summaries of output tokens/s, TTFT and TPOT
 * ('gpuplan validate inference FILE.csv').
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/validate.h"
#include "validate_private.h"

static int summarise (struct gp_infer_validation *v)
{
    size_t n = v->val.n_rows;
    struct val_acc thr, ttft, tpot;
    int rc = -1;
    memset (&ttft, 0, sizeof ttft);
    memset (&tpot, 0, sizeof tpot);
    if (gp__val_acc_init (&thr, n) || gp__val_acc_init (&ttft, n)
        || gp__val_acc_init (&tpot, n))
        goto done;
    for (size_t i = 0; i < n; i++) {
        const struct gp_infer_val_row *r = &v->val.rows[i];
        gp__val_acc_add (&thr, r->ok, r->rel_err);
        if (r->ok && r->ttft_meas_s > 0)
            gp__val_acc_add (&ttft, 1, r->ttft_rel_err);
        if (r->ok && r->tpot_meas_s > 0)
            gp__val_acc_add (&tpot, 1, r->tpot_rel_err);
    }
    gp__val_acc_summary (&thr, "output_tokens_per_s", &v->throughput);
    gp__val_acc_summary (&ttft, "ttft", &v->ttft);
    gp__val_acc_summary (&tpot, "tpot", &v->tpot);
    rc = 0;
done:
    gp__val_acc_free (&thr);
    gp__val_acc_free (&ttft);
    gp__val_acc_free (&tpot);
    return rc;
}

/* The rows of every file of 'rq' (rq->paths, else rq->path) into 'val',
 * in order.  0 or the first file's error.
 */
static int read_all (const struct gp_validate_request *rq,
                     const struct gp_catalog *cat, const struct gp_zoo *zoo,
                     struct gp_infer_val *val, gp_error_t *err)
{
    size_t n = rq->n_paths ? rq->n_paths : 1;
    for (size_t f = 0; f < n; f++) {
        const char *path = rq->n_paths ? rq->paths[f] : rq->path;
        if (!path)
            return gp_errprintf (err, GP_EINVAL, "validate inference: no "
                                                 "file");
        struct gp_infer_val one = {0};
        int rc = gp_infer_validate (path, cat, zoo, &one, err);
        if (rc)
            return rc;
        if (!val->n_rows) {
            *val = one;
            continue;
        }
        struct gp_infer_val_row *p =
            realloc (val->rows, (val->n_rows + one.n_rows) * sizeof *p);
        if (!p) {
            gp_infer_val_free (&one);
            return gp_errprintf (err, GP_ENOMEM, "out of memory");
        }
        memcpy (p + val->n_rows, one.rows, one.n_rows * sizeof *p);
        val->rows = p;
        val->n_rows += one.n_rows;
        gp_infer_val_free (&one);
    }
    return 0;
}

void gp_infer_validation_destroy (struct gp_infer_validation *v)
{
    if (!v)
        return;
    gp_infer_val_free (&v->val);
    free (v->by_family);
    free (v->fit);
    free (v);
}

int gp_validate_inference (const struct gp_catalog *cat,
                           const struct gp_validate_request *rq,
                           struct gp_infer_validation **out,
                           gp_error_t *err)
{
    if (!cat || !rq || !out)
        return gp_errprintf (err, GP_EINVAL, "validate inference: NULL "
                                             "argument");
    struct gp_zoo *own_zoo = NULL;
    const struct gp_zoo *zoo = rq->zoo;
    if (!zoo) {
        gp_error_t e = {0};
        own_zoo = gp_zoo_load (NULL, &e);
        if (!own_zoo) {
            if (err)
                *err = e;
            return e.code ? e.code : GP_EINTERNAL;
        }
        zoo = own_zoo;
    }
    struct gp_infer_validation *v = calloc (1, sizeof *v);
    int rc;
    if (!v) {
        rc = gp_errprintf (err, GP_ENOMEM, "out of memory");
        goto done;
    }
    rc = read_all (rq, cat, zoo, &v->val, err);
    if (rc)
        goto done;
    if (summarise (v) || gp__infer_val_fit (v)) {
        rc = gp_errprintf (err, GP_ENOMEM, "out of memory");
        goto done;
    }
    *out = v;
    v = NULL;
done:
    gp_infer_validation_destroy (v);
    gp_zoo_destroy (own_zoo);
    return rc;
}
