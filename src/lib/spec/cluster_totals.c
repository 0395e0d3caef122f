/* cluster_totals.c - the aggregate figures of one pool of a cluster. */
#include <string.h>

#include "gpuplan/cluster.h"

int gp_cluster_pool_totals (const struct gp_cluster *c, size_t i,
                            struct gp_cluster_totals *t, gp_error_t *err)
{
    if (!c || !t)
        return gp_errprintf (err, GP_EINVAL, "pool totals: NULL argument");
    memset (t, 0, sizeof *t);
    if (i >= c->n_pools)
        return gp_errprintf (err, GP_ERANGE,
                             "pool %zu of cluster '%s' (%zu pools)", i,
                             c->name, c->n_pools);
    /* a one-pool view of the cluster, read only */
    struct gp_cluster one;
    memset (&one, 0, sizeof one);
    one.n_pools = 1;
    one.pools = &c->pools[i];
    gp_cluster_totals (&one, t);
    return 0;
}
