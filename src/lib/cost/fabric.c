/* fabric.c - rail-optimized fat-tree sizing.
 *
 * NIC r of every node connects to the leaf switch of rail r in the node's
 * group (NVIDIA DGX SuperPOD rail-optimized design): a group holds as many
 * nodes as a leaf has downlink ports, so a group costs one leaf per rail.
 * Leaves split their radix into downlinks and uplinks by the requested
 * oversubscription; uplinks go to a spine layer, and when more leaves exist
 * than a spine has ports, spines take half their ports down and half up to
 * a core layer (a three-level folded Clos).  A single node has no
 * scale-out fabric at all (tiers 0).  docs/model/infrastructure.md
 * gives every formula and a worked example.
 */
#include <math.h>

#include "gpuplan/cost.h"

static long long ceil_div (long long a, long long b)
{
    return (a + b - 1) / b;
}

int gp_fabric_size (const struct gp_fabric_in *in,
                    struct gp_fabric *out,
                    gp_error_t *err)
{
    if (!in || !out)
        return gp_errprintf (err, GP_EINVAL, "fabric: missing argument");
    if (in->nodes < 1 || in->gpus_per_node < 1 || in->nics_per_gpu < 1)
        return gp_errprintf (err, GP_EINVAL,
                             "fabric: nodes, gpus_per_node and nics_per_gpu "
                             "must be >= 1");
    if (in->radix < 4)
        return gp_errprintf (err, GP_EINVAL,
                             "fabric: switch radix %d is below 4", in->radix);
    if (!(in->nic_bw > 0) || !(in->port_bw > 0))
        return gp_errprintf (err, GP_EINVAL,
                             "fabric: NIC and port bandwidth must be > 0");
    if (!(in->oversub >= 1) || !isfinite (in->oversub))
        return gp_errprintf (err, GP_EINVAL,
                             "fabric: oversubscription %g must be >= 1",
                             in->oversub);
    struct gp_fabric f = {0};
    if (in->nodes == 1) {
        /* One node: its GPUs talk over the scale-up domain (NVLink, or
         * PCIe for cards without it); there is no scale-out fabric to
         * build: no switch, NIC, cable or transceiver, no per-GPU
         * scale-out bandwidth.
         */
        f.rails = in->gpus_per_node * in->nics_per_gpu;
        f.oversub = 1;
        *out = f;
        return 0;
    }
    int k = in->radix;
    f.rails = in->gpus_per_node * in->nics_per_gpu;
    f.endpoints = in->nodes * f.rails;
    f.nics = f.endpoints;
    f.per_gpu_bw = in->nics_per_gpu * in->nic_bw;
    f.node_links = f.endpoints;
    if (f.endpoints <= k) {
        /* One switch holds every NIC. */
        f.tiers = 1;
        f.down_ports = k;
        f.node_groups = 1;
        f.leaves = 1;
        f.oversub = 1;
        f.bisection_bw = f.endpoints * in->nic_bw / 2;
    } else {
        int d = (int)floor (k * in->oversub / (1 + in->oversub));
        if (d >= k)
            d = k - 1;
        if (d < 1)
            d = 1;
        int u = k - d;
        long long populated = in->nodes < d ? in->nodes : d;
        /* Uplinks a leaf needs for its populated downlinks. */
        long long u_eff = (long long)ceil (populated / in->oversub - 1e-9);
        if (u_eff > u)
            u_eff = u;
        if (u_eff < 1)
            u_eff = 1;
        f.down_ports = d;
        f.up_ports = (int)u_eff;
        f.node_groups = ceil_div (in->nodes, d);
        f.leaves = f.node_groups * f.rails;
        f.leaf_spine_links = f.leaves * u_eff;
        if (f.leaves <= k) {
            f.tiers = 2;
            f.spines = ceil_div (f.leaf_spine_links, k);
        } else {
            if (f.leaves > (long long)k * (k / 2))
                return gp_errprintf (
                    err, GP_EINFEASIBLE,
                    "fabric: %lld leaf switches exceed a three-tier fat "
                    "tree of radix %d (at most %lld leaves)",
                    f.leaves, k, (long long)k * (k / 2));
            f.tiers = 3;
            f.spines = ceil_div (f.leaf_spine_links, k / 2);
            f.spine_core_links = f.leaf_spine_links;
            f.cores = ceil_div (f.spine_core_links, k);
        }
        f.oversub = (populated * in->nic_bw) / (u_eff * in->port_bw);
        double down = f.endpoints * in->nic_bw;
        double up = f.leaf_spine_links * in->port_bw;
        f.bisection_bw = (down < up ? down : up) / 2;
    }
    f.switches = f.leaves + f.spines + f.cores;
    f.cables = f.node_links + f.leaf_spine_links + f.spine_core_links;
    f.transceivers = 2 * f.cables;
    *out = f;
    return 0;
}
