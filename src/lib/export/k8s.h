/* k8s.h - what the Kubernetes targets (kueue.c, volcano.c) share: the
 * resources each pool's nodes bring (GPUs or MIG devices from
 * gp_pool_k8s_resources, cpu and memory from the node spec or the
 * catalog), a team's share of them, and Kubernetes quantities
 * (docs/formats/export-kueue.md, "Resources").
 */
#ifndef GPUPLAN_EXPORT_K8S_H
#define GPUPLAN_EXPORT_K8S_H

#include <stddef.h>

#include "quote.h"

/* Kueue: at most 64 covered resources and 64 flavors per resource group
 * (ClusterQueue CRD maxItems). */
#define GP__K8S_RES_MAX 64
#define GP__K8S_MIG_STRATEGY "mixed"

/* The resources of a cluster, in the order they are written: cpu and
 * memory first (when every pool's host is known), then each device
 * resource in pool order.
 */
struct gp__k8s_res {
    size_t n;                          /* resources */
    char name[GP__K8S_RES_MAX][64];
    int host;                          /* cpu and memory are covered */
    size_t no_host;                    /* first pool without a host size
                                          (when !host) */
    size_t n_pools;
    long long *per_node;               /* [pool * GP__K8S_RES_MAX + r]: per
                                          node, cpu in millicores, memory
                                          in bytes, devices as counted;
                                          0 = the pool has none */
    const char *host_source[GP__K8S_RES_MAX]; /* per pool: "spec" or the
                                          catalog instance row used */
};

/* The resources of 'c'; host sizes from the spec, else the smallest per
 * accelerator among 'cat' instance rows of the pool's accelerator ('cat'
 * may be NULL).  0, or GP_ENOMEM / GP_EINVAL / GP_ENOTSUP (more than 64
 * resources or pools) with 'err' set.
 */
int gp__k8s_res_build (struct gp__k8s_res *r, const struct gp_cluster *c,
                       const struct gp_catalog *cat, gp_error_t *err);
void gp__k8s_res_free (struct gp__k8s_res *r);

/* How much of resource 'k' comes with 'gpus' GPUs of pool 'p': gpus x
 * per-node amount / gpus_per_node, rounded down (exact in 64 bits).
 * gpus < 0 gives -1 (no limit).
 */
long long gp__k8s_share (const struct gp__k8s_res *r,
                         const struct gp_cluster *c, size_t p, size_t k,
                         long long gpus);

/* Write quantity 'v' of resource 'res' as a YAML value: cpu millicores
 * as cores or "<n>m", memory bytes with the largest suffix that divides
 * exactly ("2Ti", "96T"), devices as integers.
 */
void gp__k8s_y_qty (struct gp__yaml *y, const char *res, long long v);

/* Per-pool GPU limits of team 't' into 'l' (common.c's rules), except
 * that a team without a quota has nominal 0 and borrows through its
 * cohort; 'fallback' marks the one team of a spec without teams, which
 * owns every pool.  0, or GP_EINVAL for a team with neither quota nor
 * cohort.
 */
int gp__k8s_team_limits (const struct gp_cluster *c, const struct gp_team *t,
                         int fallback, struct limits *l, gp_error_t *err);

/* The most instances of MIG profile 'profile' one GPU of 'mem_bytes'
 * holds (resources.c); 0 when the name does not parse.
 */
int gp__mig_per_gpu (const char *profile, double mem_bytes);

/* The GPU Operator MIG strategy of cluster 'c' (ClusterPolicy
 * spec.mig.strategy, one per cluster), which names the resources every
 * Kubernetes target writes (gp_pool_k8s_resources): "single" when every
 * NVIDIA pool is partitioned with one and the same MIG profile, or when
 * no pool uses MIG (then both strategies name nvidia.com/gpu); "mixed"
 * when a pool lists more than one profile, MIG pools differ in profile,
 * or whole-GPU NVIDIA pools sit beside MIG pools (so that a MIG device is
 * never asked for as nvidia.com/gpu) (docs/formats/export-gpu-operator.md).
 */
const char *gp__mig_strategy (const struct gp_cluster *c);

#endif
