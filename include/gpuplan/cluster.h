/* gpuplan/cluster.h - the cluster spec: node pools of accelerators.
 *
 * The smallest valid spec (YAML):
 *
 *   name: lab
 *   pools:
 *     - name: a100
 *       accelerator: A100-SXM-80GB
 *       gpus_per_node: 8
 *       nodes: 250
 *
 * Keys are documented in docs/formats/cluster.md.
 */
#ifndef GPUPLAN_CLUSTER_H
#define GPUPLAN_CLUSTER_H

#include <stddef.h>

#include "gpuplan/catalog.h"
#include "gpuplan/error.h"
#include "gpuplan/spec.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GP_NAME_MAX 64
#define GP_MIG_MAX 8           /* MIG profiles listed per pool */
#define GP_MIG_SLICES 7        /* compute slices of a MIG-capable GPU */

struct gp_pool {
    char name[GP_NAME_MAX];
    char accel_id[GP_NAME_MAX];
    const struct gp_accel *accel; /* resolved against the catalog */
    int gpus_per_node;
    int nodes;
    int scale_up_domain;          /* GPUs per NVLink-class domain */
    int nodes_per_rack;           /* 0 = not given */
    int cpus_per_node;            /* 0 = not given */
    double host_mem_bytes;        /* per node; 0 = not given */
    double net_bw_per_gpu;        /* scale-out byte/s per GPU; 0 = not given */
    /* GPU sharing in the simulator (docs/formats/cluster.md): with
     * 'gpu_sharing', jobs requesting a share below 1000 milli-GPU pack
     * onto one GPU (shares summing to at most 1000); with MIG profiles,
     * such a job takes the smallest listed profile whose compute slices
     * (of GP_MIG_SLICES) cover its share.  At most one of the two.
     */
    int gpu_sharing;              /* 0/1 */
    int n_mig;                    /* listed MIG profiles, 0 = no MIG */
    char mig[GP_MIG_MAX][24];     /* profile names, as in the catalog */
    int mig_slices[GP_MIG_MAX];   /* compute slices of each, ascending */
};

/* A tenant (Kueue ClusterQueue / Volcano queue).  Quotas are nominal GPUs;
 * borrowing/lending limits follow Kueue semantics within a cohort.
 */
struct gp_team {
    char name[GP_NAME_MAX];
    char cohort[GP_NAME_MAX];     /* "" = not in a cohort */
    double weight;                /* fair-share weight (default 1) */
    int priority;                 /* priority class of its jobs (default 0) */
    long long quota_gpus;         /* nominal quota over all pools; -1 = none */
    long long *pool_quota;        /* per pool (n_pools entries); -1 = none */
    long long borrowing_limit;    /* GPUs above quota; -1 = unlimited */
    long long lending_limit;      /* GPUs of quota lendable; -1 = all */
};

struct gp_cluster {
    char name[GP_NAME_MAX];
    struct gp_pool *pools;
    size_t n_pools;
    struct gp_team *teams;        /* optional 'teams:' list */
    size_t n_teams;
    double spine_oversub;         /* leaf:spine oversubscription; 1 = none */
};

/* Per-pool quota view of team 't' (index into c->teams) for a team
 * whose quota is a pool map: nominal[p] (0 for pools the map omits), and
 * the borrowing and lending limits split over pools in proportion to the
 * nominal quotas by largest remainder (by pool size when all nominal
 * quotas are 0), lending capped at the nominal quota; -1 = no limit.
 * Arrays hold c->n_pools entries.  Returns 1 when the team's quota is a
 * pool map, 0 otherwise (arrays untouched).
 */
int gp_cluster_team_pool_limits (const struct gp_cluster *c, size_t t,
                                 long long *nominal, long long *borrow,
                                 long long *lend);

/* Index of team 'name' in 'c', or -1. */
int gp_cluster_team (const struct gp_cluster *c, const char *name);

/* Unpack a cluster spec from 'doc' (root mapping), resolving accelerator
 * ids against 'cat'.  Returns a cluster the caller frees with
 * gp_cluster_destroy(), or NULL with 'err' naming file:line:col.
 */
struct gp_cluster *gp_cluster_from_doc (const struct gp_doc *doc,
                                        const struct gp_catalog *cat,
                                        gp_error_t *err);

/* Load and unpack the cluster spec file 'path' ("-" is not special):
 * gp_doc_load() then gp_cluster_from_doc(); the cluster does not keep
 * the document.  Returns a cluster the caller frees with
 * gp_cluster_destroy(), or NULL with 'err' naming file:line:col.
 */
struct gp_cluster *gp_cluster_load (const char *path,
                                    const struct gp_catalog *cat,
                                    gp_error_t *err);

void gp_cluster_destroy (struct gp_cluster *c);

/* Aggregate figures of a cluster, summed over pools from catalog values.
 * Unknown catalog values (0) contribute 0 and set 'incomplete'.
 */
struct gp_cluster_totals {
    long long nodes;
    long long gpus;
    double hbm_bytes;        /* sum of device memory */
    double hbm_bw;           /* sum of memory bandwidth, byte/s */
    double bf16_flops;       /* sum of dense BF16 peak */
    double fp8_flops;        /* sum of dense FP8 peak */
    double gpu_tdp_w;        /* sum of accelerator TDP (GPUs only) */
    int incomplete;          /* some catalog value was unknown */
};

void gp_cluster_totals (const struct gp_cluster *c,
                        struct gp_cluster_totals *t);

/* The same figures for pool 'i' of 'c' alone.  Returns 0, or GP_ERANGE
 * when 'i' is not a pool of 'c' (GP_EINVAL for NULL arguments), with '*t'
 * zeroed.
 */
int gp_cluster_pool_totals (const struct gp_cluster *c,
                            size_t i,
                            struct gp_cluster_totals *t,
                            gp_error_t *err);

struct json_t;

/* JSON of a cluster: {"name", "pools": [{totals..., "name", "accelerator",
 * "gpus_per_node", "scale_up_domain", "accelerator_source"}], "total":
 * {nodes, gpus, hbm_bytes, hbm_bw_bytes_per_s, bf16_dense_flops,
 * fp8_dense_flops, gpu_tdp_w, incomplete}} in SI units
 * (docs/formats/cluster.md).  A new reference the caller releases with
 * json_decref(); NULL on allocation failure or a NULL cluster.
 */
struct json_t *gp_cluster_json (const struct gp_cluster *c);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_CLUSTER_H */
