/* gpuplan/price.h - the one pricing rule: what a GPU-hour of an
 * accelerator costs under a pricing model, and which catalog instance the
 * price comes from.
 *
 * Rule (docs/model/cost.md, "The pricing rule"): among the catalog's
 * instances that carry the accelerator and publish a positive price under
 * the pricing model, take the lowest price per GPU-hour (node price /
 * accelerators per node); rows with price flags (e.g. suspect_flex_start)
 * are skipped when an unflagged row exists; ties go to the first row in
 * catalog order.  A named instance bypasses the choice.  `train`, `infer`
 * and `plan` all price through gp_price_gpu_hour().
 */
#ifndef GPUPLAN_PRICE_H
#define GPUPLAN_PRICE_H

#include "gpuplan/catalog.h"
#include "gpuplan/cost.h"
#include "gpuplan/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which prices the rule may choose from.  All fields optional. */
struct gp_price_query {
    enum gp_pricing pricing; /* GP_PRICE_MIX is not a catalog price */
    const char *instance; /* a catalog instance id: price exactly this one */
    const char *cloud;    /* only this cloud ("aws", "gcp", "azure") */
    const char *region;   /* with 'instance': only this region's row */
};

/* The price the rule chose.  'inst' points into the catalog (borrowed). */
struct gp_gpu_price {
    const struct gp_instance *inst; /* NULL when nothing is priced */
    double usd_per_node_hour;       /* inst's price under the model */
    double usd_per_gpu_hour;        /* usd_per_node_hour / inst->n_accels */
    int flagged;                    /* 1 when inst carries price_flags
                                       (no unflagged row was priced) */
    int undated;                    /* 1 when inst has no price_as_of */
};

/* Price one GPU-hour of 'acc' under 'q' (NULL = on-demand, any cloud).
 * Fills 'out' and returns 0 when a price was found; returns GP_ENOTFOUND
 * when no instance matches (with 'out' zeroed: inst NULL, prices 0) and
 * names the accelerator and model in 'err'.  A named instance that does
 * not exist, or carries another accelerator, is GP_ENOTFOUND; one with no
 * price under the model is GP_ENOTFOUND too.
 */
int gp_price_gpu_hour (const struct gp_catalog *cat,
                       const struct gp_accel *acc,
                       const struct gp_price_query *q,
                       struct gp_gpu_price *out, gp_error_t *err);

/* 1 when the price of 'in' under 'p' is flagged: any flag in
 * price_flags except spot_outlier, which flags the spot price only
 * (data/catalog/README.md).
 */
int gp_price_flagged (const struct gp_instance *in, enum gp_pricing p);

/* The price of 'in' per node-hour under 'p' (0 = not offered, and
 * always 0 for GP_PRICE_MIX, which is not a catalog price, and for
 * GP_PRICE_CAPACITY_BLOCK, whose rates are parts.csv rows).
 */
double gp_instance_price (const struct gp_instance *in, enum gp_pricing p);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_PRICE_H */
