/* train_dims.c - consistency of the explicit model dimensions of a
 * training request (train.h): a head count that does not divide the
 * hidden size, or a KV head count that does not divide the heads, would
 * otherwise be rounded silently.
 */
#include "gpuplan/arch.h"
#include "gpuplan/train.h"

int gp_train_dims_check (const struct gp_train_request *rq, gp_error_t *err)
{
    const struct gp_train_dims *d = &rq->dims;
    struct gp_arch a;
    if (!d->heads && !d->kv_heads)
        return 0;
    if (gp_train_resolve_arch (rq, &a, NULL) != 0)
        return 0; /* reported by the plan */
    if (d->heads && a.hidden % a.heads)
        return gp_errprintf (err, GP_EINVAL,
                             "train: heads %d does not divide hidden %d "
                             "(head dimension = hidden / heads)",
                             a.heads, a.hidden);
    if (d->kv_heads && (d->kv_heads > a.heads || a.heads % d->kv_heads))
        return gp_errprintf (err, GP_EINVAL,
                             "train: heads %d is not a multiple of kv_heads "
                             "%d", a.heads, d->kv_heads);
    return 0;
}
