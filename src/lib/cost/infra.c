/* infra.c - storage sizing (capacity, read and checkpoint-write bandwidth,
 * tier by scale) and power, racks and energy.
 *
 * Storage: the fast tier must hold the hot datasets, the kept checkpoints
 * and the artifacts with some free headroom, and must deliver the larger of
 * the data-loading read rate and the checkpoint burst write rate; on
 * throughput-per-capacity tiers (FSx for Lustre, GCP Managed Lustre) the
 * bandwidth can set the size.  Power: nodes per rack are limited by the
 * rack's power budget, energy is the average IT load times PUE.  Formulas
 * and sources: docs/model/infrastructure.md.
 */
#include <math.h>

#include "gpuplan/cost.h"

static const char *const tier_names[] = {
    "local-nvme", "nfs", "ceph-beegfs", "parallel-fs",
};

const char *gp_storage_tier_str (enum gp_storage_tier t)
{
    if ((unsigned)t < sizeof tier_names / sizeof tier_names[0])
        return tier_names[t];
    return "?";
}

enum gp_storage_tier gp_storage_tier_for (long long n_gpus)
{
    if (n_gpus <= 8)
        return GP_TIER_LOCAL_NVME;
    if (n_gpus <= 32)
        return GP_TIER_NFS;
    if (n_gpus <= 128)
        return GP_TIER_CEPH;
    return GP_TIER_PARALLEL_FS;
}

static int bad (double v)
{
    return !(v >= 0) || !isfinite (v);
}

int gp_storage_size (const struct gp_storage_in *in,
                     struct gp_storage *out,
                     gp_error_t *err)
{
    if (!in || !out)
        return gp_errprintf (err, GP_EINVAL, "storage: missing argument");
    if (in->n_gpus < 1 || bad (in->dataset_bytes)
        || bad (in->checkpoint_bytes) || in->checkpoints_kept < 0
        || bad (in->artifact_bytes) || bad (in->read_bw)
        || bad (in->ckpt_write_s) || bad (in->tput_per_byte)
        || bad (in->object_copies))
        return gp_errprintf (err, GP_EINVAL,
                             "storage: sizes, rates and counts must be >= 0 "
                             "(and at least one GPU)");
    if (!(in->headroom >= 0 && in->headroom <= 0.9))
        return gp_errprintf (err, GP_EINVAL,
                             "storage: headroom %g outside 0..0.9",
                             in->headroom);
    struct gp_storage s = {0};
    s.tier = gp_storage_tier_for (in->n_gpus);
    s.capacity_bytes = in->dataset_bytes
                       + in->checkpoint_bytes * in->checkpoints_kept
                       + in->artifact_bytes;
    s.write_bw = in->ckpt_write_s > 0 ? in->checkpoint_bytes / in->ckpt_write_s
                                      : 0;
    s.read_bw = in->read_bw;
    double bw = s.write_bw > s.read_bw ? s.write_bw : s.read_bw;
    s.bw_bytes = in->tput_per_byte > 0 ? bw / in->tput_per_byte : 0;
    double cap = s.capacity_bytes / (1 - in->headroom);
    s.bw_bound = s.bw_bytes > cap;
    s.fast_bytes = s.bw_bound ? s.bw_bytes : cap;
    s.object_bytes = s.capacity_bytes * in->object_copies;
    *out = s;
    return 0;
}

int gp_power_size (const struct gp_power_in *in,
                   struct gp_power *out,
                   gp_error_t *err)
{
    if (!in || !out)
        return gp_errprintf (err, GP_EINVAL, "power: missing argument");
    if (in->nodes < 0 || !(in->node_w > 0) || bad (in->other_it_w)
        || !(in->rack_w > 0) || in->rack_units_nodes < 0
        || !(in->pue >= 1) || !isfinite (in->pue) || bad (in->usd_per_kwh)
        || !(in->load_factor >= 0 && in->load_factor <= 1))
        return gp_errprintf (err, GP_EINVAL,
                             "power: need node and rack power > 0, PUE >= 1, "
                             "load factor in 0..1");
    if (in->node_w > in->rack_w)
        return gp_errprintf (err, GP_EINFEASIBLE,
                             "power: one node draws %.1f kW, more than the "
                             "rack limit of %.1f kW",
                             in->node_w / 1e3, in->rack_w / 1e3);
    struct gp_power p = {0};
    p.nodes_per_rack = (int)floor (in->rack_w / in->node_w + 1e-9);
    if (in->rack_units_nodes > 0 && p.nodes_per_rack > in->rack_units_nodes)
        p.nodes_per_rack = in->rack_units_nodes;
    p.compute_racks = (in->nodes + p.nodes_per_rack - 1) / p.nodes_per_rack;
    /* Network, storage and CPU/head equipment shares the compute racks
     * when their spare power holds all of it (a small build); otherwise
     * it gets racks of its own (docs/model/infrastructure.md).
     */
    double spare = (double)p.compute_racks * in->rack_w
                   - (double)in->nodes * in->node_w;
    if (in->other_it_w <= spare * (1 + 1e-12))
        p.other_racks = 0;
    else
        p.other_racks = (long long)ceil (in->other_it_w / in->rack_w - 1e-9);
    p.racks = p.compute_racks + p.other_racks;
    p.it_w = in->nodes * in->node_w + in->other_it_w;
    p.facility_w = p.it_w * in->pue;
    p.energy_kwh_year = p.it_w * in->load_factor * in->pue
                        * GP_HOURS_PER_YEAR / 1000;
    p.energy_usd_year = p.energy_kwh_year * in->usd_per_kwh;
    *out = p;
    return 0;
}
