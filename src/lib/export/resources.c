/* resources.c - the Kubernetes extended resources a pool's nodes expose
 * (gp_pool_k8s_resources, include/gpuplan/export.h), shared by the
 * Kubernetes exports (Kueue, Volcano) and by every later target that
 * names device-plugin resources.
 *
 * Sources: NVIDIA k8s-device-plugin and GPU Operator MIG strategies
 * ("single": every MIG device is an nvidia.com/gpu; "mixed": one
 * nvidia.com/mig-<profile> resource per profile, whole GPUs stay
 * nvidia.com/gpu); mig-parted config-default.yaml v0.15.0 (the
 * all-<profile> layouts give the most instances of one profile per GPU);
 * the NVIDIA MIG user guide (7 compute slices, 8 memory slices).  The
 * rules are in docs/formats/export-kueue.md, "MIG".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s.h"

/* Compute and memory slices of a 7-slice MIG-capable GPU. */
#define MIG_COMPUTE 7
#define MIG_MEMORY 8

/* The most instances of 'profile' ("<g>g.<m>gb", optionally "+me" or
 * another suffix) that one GPU of 'mem_bytes' holds: min(7 / g, 8 /
 * memory slices), where a profile's memory slices are its memory in
 * eighths of the GPU (rounded: profile names round the memory, e.g.
 * 1g.12gb of a 94 GB H100 NVL is one eighth); profiles with a media
 * extension ("+me") exist once per GPU.  0 for a name that does not parse.
 */
int gp__mig_per_gpu (const char *profile, double mem_bytes)
{
    int g = 0;
    double m = 0;
    int used = 0;
    if (!profile || sscanf (profile, "%dg.%lfgb%n", &g, &m, &used) != 2
        || g < 1 || g > MIG_COMPUTE || m <= 0)
        return 0;
    if (strstr (profile + used, "+me"))
        return 1;
    int mem_slices = 1;
    if (mem_bytes > 0) {
        mem_slices = (int)lround (m * 1e9 * MIG_MEMORY / mem_bytes);
        if (mem_slices < 1)
            mem_slices = 1;
        if (mem_slices > MIG_MEMORY)
            return 0;
    }
    int by_compute = MIG_COMPUTE / g, by_memory = MIG_MEMORY / mem_slices;
    return by_compute < by_memory ? by_compute : by_memory;
}

/* The vendor's device-plugin resource (NVIDIA k8s-device-plugin, AMD
 * k8s-device-plugin, AWS Neuron device plugin, GKE TPU, Intel Gaudi). */
static const char *vendor_resource (const struct gp_pool *p)
{
    return p->accel ? gp__k8s_resource (p->accel) : "nvidia.com/gpu";
}

static int is_nvidia (const struct gp_pool *p)
{
    return !strcmp (vendor_resource (p), "nvidia.com/gpu");
}

int gp_pool_k8s_resources (const struct gp_pool *p, const char *strategy,
                           char names[][64], long long *counts, size_t max,
                           gp_error_t *err)
{
    if (!p || !strategy || !names || !counts)
        return gp_errprintf (err, GP_EINVAL,
                             "pool resources: NULL argument");
    int mixed = !strcmp (strategy, "mixed");
    if (!mixed && strcmp (strategy, "single"))
        return gp_errprintf (err, GP_EINVAL,
                             "pool '%s': MIG strategy '%s': expected "
                             "single or mixed", p->name, strategy);
    if (max < 1)
        return gp_errprintf (err, GP_ERANGE, "pool '%s': no room for its "
                             "resources", p->name);
    long long gpus = p->gpus_per_node > 0 ? p->gpus_per_node : 0;
    if (p->n_mig <= 0 || !is_nvidia (p)) {
        snprintf (names[0], 64, "%s", vendor_resource (p));
        counts[0] = gpus;
        return 1;
    }
    double mem = p->accel ? p->accel->mem_bytes : 0;
    if (!mixed) {
        if (p->n_mig > 1)
            return gp_errprintf (err, GP_EINVAL,
                                 "pool '%s': the single MIG strategy "
                                 "exposes one profile per node, the pool "
                                 "lists %d (use the mixed strategy)",
                                 p->name, p->n_mig);
        int per = gp__mig_per_gpu (p->mig[0], mem);
        if (per < 1)
            return gp_errprintf (err, GP_EINVAL, "pool '%s': MIG profile "
                                 "'%s' is not <g>g.<m>gb", p->name,
                                 p->mig[0]);
        snprintf (names[0], 64, "nvidia.com/gpu");
        counts[0] = gpus * per;
        return 1;
    }
    if ((size_t)p->n_mig > max)
        return gp_errprintf (err, GP_ERANGE, "pool '%s': %d MIG profiles, "
                             "room for %zu resources", p->name, p->n_mig,
                             max);
    /* The node's GPUs go to the listed profiles in turn (GPU i takes
     * profile i mod n), each GPU holding the most instances of its
     * profile; a profile with no GPU of its own still gets a resource
     * (count 0) so that every node of the pool names the same ones. */
    for (int k = 0; k < p->n_mig; k++) {
        int per = gp__mig_per_gpu (p->mig[k], mem);
        if (per < 1)
            return gp_errprintf (err, GP_EINVAL, "pool '%s': MIG profile "
                                 "'%s' is not <g>g.<m>gb", p->name,
                                 p->mig[k]);
        long long mine = gpus / p->n_mig + (k < gpus % p->n_mig);
        snprintf (names[k], 64, "nvidia.com/mig-%s", p->mig[k]);
        counts[k] = mine * per;
    }
    return p->n_mig;
}

const char *gp__mig_strategy (const struct gp_cluster *c)
{
    const char *profile = NULL;
    int whole = 0, mig = 0;
    for (size_t i = 0; c && i < c->n_pools; i++) {
        const struct gp_pool *p = &c->pools[i];
        if (!is_nvidia (p))
            continue;
        if (p->n_mig <= 0) {
            whole = 1;
            continue;
        }
        if (p->n_mig > 1 || (profile && strcmp (profile, p->mig[0])))
            return "mixed";
        profile = p->mig[0];
        mig = 1;
    }
    return mig && whole ? "mixed" : "single";
}

/* ======================= resources of a cluster ======================== */

/* Host CPUs and memory per node of pool 'p': the spec's values, else the
 * smallest CPUs and the smallest memory per accelerator among the
 * catalog's instance rows of the pool's accelerator, times gpus_per_node
 * (rounded down).  Sets 'src' to "spec" or "catalog"; 0 when either stays
 * unknown.
 */
static int host_of (const struct gp_pool *p, const struct gp_catalog *cat,
                    long long *cpus, long long *mem, const char **src)
{
    *cpus = p->cpus_per_node;
    *mem = (long long)p->host_mem_bytes;
    *src = "spec";
    if (*cpus > 0 && *mem > 0)
        return 1;
    double best_c = 0, best_m = 0;
    const char *best_id = NULL;
    for (size_t i = 0; cat && p->accel && i < gp_catalog_n_instances (cat);
         i++) {
        const struct gp_instance *in = gp_catalog_instance (cat, i);
        if (!in->accel || strcmp (in->accel->id, p->accel->id)
            || in->n_accels < 1 || in->vcpus < 1 || in->mem_bytes <= 0)
            continue;
        double c1 = (double)in->vcpus / in->n_accels;
        double m1 = in->mem_bytes / in->n_accels;
        if (!best_id || c1 < best_c)
            best_c = c1;
        if (!best_id || m1 < best_m)
            best_m = m1;
        best_id = "catalog";
    }
    if (!best_id)
        return 0;
    if (*cpus <= 0)
        *cpus = (long long)floor (best_c * p->gpus_per_node);
    if (*mem <= 0)
        *mem = (long long)floor (best_m * p->gpus_per_node);
    *src = best_id;
    return *cpus > 0 && *mem > 0;
}

static int add_name (struct gp__k8s_res *r, const char *name)
{
    for (size_t k = 0; k < r->n; k++)
        if (!strcmp (r->name[k], name))
            return (int)k;
    if (r->n >= GP__K8S_RES_MAX)
        return -1;
    snprintf (r->name[r->n], sizeof r->name[0], "%s", name);
    return (int)r->n++;
}

int gp__k8s_res_build (struct gp__k8s_res *r, const struct gp_cluster *c,
                       const struct gp_catalog *cat, gp_error_t *err)
{
    memset (r, 0, sizeof *r);
    if (c->n_pools > GP__K8S_RES_MAX)
        return gp_errprintf (err, GP_ENOTSUP,
                             "%zu pools: Kueue takes at most %d flavors "
                             "per resource group", c->n_pools,
                             GP__K8S_RES_MAX);
    r->n_pools = c->n_pools;
    r->per_node = calloc (c->n_pools * GP__K8S_RES_MAX, sizeof *r->per_node);
    if (!r->per_node)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    long long cpus[GP__K8S_RES_MAX], mem[GP__K8S_RES_MAX];
    r->host = 1;
    for (size_t i = 0; i < c->n_pools; i++)
        if (!host_of (&c->pools[i], cat, &cpus[i], &mem[i],
                      &r->host_source[i]) && r->host) {
            r->host = 0;
            r->no_host = i;
        }
    if (r->host) {
        add_name (r, "cpu");
        add_name (r, "memory");
        for (size_t i = 0; i < c->n_pools; i++) {
            r->per_node[i * GP__K8S_RES_MAX + 0] = cpus[i] * 1000;
            r->per_node[i * GP__K8S_RES_MAX + 1] = mem[i];
        }
    }
    for (size_t i = 0; i < c->n_pools; i++) {
        char names[GP_MIG_MAX + 1][64];
        long long counts[GP_MIG_MAX + 1];
        int n = gp_pool_k8s_resources (&c->pools[i], gp__mig_strategy (c),
                                       names, counts, GP_MIG_MAX + 1, err);
        if (n < 0) {
            gp__k8s_res_free (r);
            return n;
        }
        for (int k = 0; k < n; k++) {
            int at = add_name (r, names[k]);
            if (at < 0) {
                gp__k8s_res_free (r);
                return gp_errprintf (err, GP_ENOTSUP,
                                     "more than %d resources (pools[%zu] "
                                     "adds %s): Kueue covers at most %d",
                                     GP__K8S_RES_MAX, i, names[k],
                                     GP__K8S_RES_MAX);
            }
            r->per_node[i * GP__K8S_RES_MAX + (size_t)at] = counts[k];
        }
    }
    return 0;
}

void gp__k8s_res_free (struct gp__k8s_res *r)
{
    free (r->per_node);
    r->per_node = NULL;
}

long long gp__k8s_share (const struct gp__k8s_res *r,
                         const struct gp_cluster *c, size_t p, size_t k,
                         long long gpus)
{
    if (gpus < 0)
        return -1;
    long long a = r->per_node[p * GP__K8S_RES_MAX + k];
    long long g = c->pools[p].gpus_per_node;
    if (g <= 0)
        return 0;
    /* gpus = q g + m: gpus a / g = q a + m a / g, no overflow for m < g. */
    return gpus / g * a + gpus % g * a / g;
}

void gp__k8s_y_qty (struct gp__yaml *y, const char *res, long long v)
{
    char buf[48];
    if (!strcmp (res, "cpu")) {
        if (v % 1000 == 0) {
            gp__y_int (y, v / 1000);
            return;
        }
        snprintf (buf, sizeof buf, "%lldm", v);
        gp__y_qstr (y, buf);
        return;
    }
    if (!strcmp (res, "memory") && v > 0) {
        /* The largest unit that divides exactly (binary before decimal
         * at each size: 1 Ti > 1 T > 1 Gi > ...). */
        static const struct { const char *suf; long long unit; } u[] = {
            {"Ti", 1LL << 40}, {"T", 1000000000000LL}, {"Gi", 1LL << 30},
            {"G", 1000000000LL}, {"Mi", 1LL << 20}, {"M", 1000000LL},
            {"Ki", 1LL << 10}, {"k", 1000LL},
        };
        for (size_t i = 0; i < sizeof u / sizeof *u; i++)
            if (v % u[i].unit == 0) {
                snprintf (buf, sizeof buf, "%lld%s", v / u[i].unit,
                          u[i].suf);
                gp__y_qstr (y, buf);
                return;
            }
    }
    gp__y_int (y, v);
}

/* The team's per-pool GPU limits: the shared rules (common.c), except
 * that a team without a quota has nominal 0 and borrows through its
 * cohort (the fallback team of a spec without teams owns everything).
 * Its borrowing limit keeps the shared split, by pool size, and it has
 * nothing to lend.
 */
int gp__k8s_team_limits (const struct gp_cluster *c, const struct gp_team *t,
                         int fallback, struct limits *l, gp_error_t *err)
{
    gp__team_limits (c, t, l->nom, l->bor, l->len);
    if (t->quota_gpus >= 0 || fallback)
        return 0;
    if (!t->cohort[0])
        return gp_errprintf (err, GP_EINVAL,
                             "teams[%zu] '%s': no quota and no cohort: its "
                             "queue could admit nothing (give it a "
                             "quota, or a cohort to borrow from)",
                             (size_t)(t - c->teams), t->name);
    for (size_t i = 0; i < c->n_pools; i++)
        l->nom[i] = 0;
    for (size_t i = 0; i < c->n_pools; i++)
        l->len[i] = -1;
    return 0;
}

