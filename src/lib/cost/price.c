/* price.c - the one pricing rule (include/gpuplan/price.h). */
#include <string.h>
#include <strings.h>

#include "gpuplan/price.h"

double gp_instance_price (const struct gp_instance *in, enum gp_pricing p)
{
    switch (p) {
    case GP_PRICE_ON_DEMAND: return in->on_demand_usd_hr;
    case GP_PRICE_SPOT: return in->spot_usd_hr;
    case GP_PRICE_RESERVED_1Y: return in->reserved_1y_usd_hr;
    case GP_PRICE_RESERVED_3Y: return in->reserved_3y_usd_hr;
    case GP_PRICE_MIX: return 0;
    case GP_PRICE_CAPACITY_BLOCK: return 0; /* parts.csv, not a row price */
    }
    return 0;
}

int gp_price_flagged (const struct gp_instance *in, enum gp_pricing p)
{
    const char *f = in ? in->price_flags : NULL;
    while (f && *f) {
        size_t n = strcspn (f, ";");
        size_t lead = strspn (f, " ");
        const char *w = f + lead;
        size_t wn = n > lead ? n - lead : 0;
        while (wn > 0 && w[wn - 1] == ' ')
            wn--;
        if (wn > 0
            && !(wn == 12 && !strncasecmp (w, "spot_outlier", 12)
                 && p != GP_PRICE_SPOT))
            return 1;
        f += n + (f[n] ? 1 : 0);
    }
    return 0;
}

/* Is 'a' a better choice than the current best 'b' (NULL = none)? */
static int better (const struct gp_instance *a, double va,
                   const struct gp_instance *b, double vb,
                   enum gp_pricing p)
{
    if (!b)
        return 1;
    int fa = gp_price_flagged (a, p), fb = gp_price_flagged (b, p);
    if (fa != fb)
        return !fa;
    return va < vb;
}

int gp_price_gpu_hour (const struct gp_catalog *cat,
                       const struct gp_accel *acc,
                       const struct gp_price_query *q,
                       struct gp_gpu_price *out, gp_error_t *err)
{
    static const struct gp_price_query def = {GP_PRICE_ON_DEMAND, NULL, NULL,
                                               NULL};
    if (!q)
        q = &def;
    memset (out, 0, sizeof *out);
    if (!cat || !acc)
        return gp_errprintf (err, GP_EINVAL, "price: no catalog or "
                             "accelerator");
    const struct gp_instance *best = NULL;
    double best_v = 0;
    int named_seen = 0;
    for (size_t i = 0; i < gp_catalog_n_instances (cat); i++) {
        const struct gp_instance *in = gp_catalog_instance (cat, i);
        if (q->instance && *q->instance) {
            if (strcasecmp (in->id, q->instance))
                continue;
            named_seen = 1;
        }
        if (in->accel != acc || in->n_accels <= 0)
            continue;
        if (q->cloud && *q->cloud && strcasecmp (in->cloud, q->cloud))
            continue;
        if (q->region && *q->region && strcasecmp (in->region, q->region))
            continue;
        double node = gp_instance_price (in, q->pricing);
        if (!(node > 0))
            continue;
        double v = node / in->n_accels;
        if (better (in, v, best, best_v, q->pricing)) {
            best = in;
            best_v = v;
        }
    }
    if (!best) {
        if (q->instance && *q->instance && !named_seen)
            return gp_errprintf (err, GP_ENOTFOUND,
                                 "unknown instance '%s' (`gpuplan catalog "
                                 "list instances` lists them)", q->instance);
        return gp_errprintf (err, GP_ENOTFOUND,
                             "no catalog instance %s%s%s with %s publishes a "
                             "%s price", q->instance ? "'" : "",
                             q->instance ? q->instance : "",
                             q->instance ? "'" : "", acc->id,
                             gp_pricing_str (q->pricing));
    }
    out->inst = best;
    out->usd_per_node_hour = best_v * best->n_accels;
    out->usd_per_gpu_hour = best_v;
    out->flagged = gp_price_flagged (best, q->pricing);
    out->undated = !best->price_as_of || !*best->price_as_of;
    return 0;
}
