/* slurm.c - Slurm configuration of a cluster spec: slurm.conf nodes (with
 * their CPU and memory geometry), partitions and scheduling, gres.conf,
 * topology.conf (a leaf switch per rack, one spine); accounts.sh is in
 * slurm_accounts.c (docs/formats/export-slurm.md).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpuplan/catalog.h"
#include "quote.h"
#include "slurm_private.h"

/* Share of the installed host memory given as RealMemory: the kernel
 * reports less than is installed (firmware and kernel reservations), and
 * Slurm drains a node that reports less memory than configured
 * (docs/formats/export-slurm.md, "Nodes").
 */
#define SLURM_MEM_SHARE 0.97

/* Format a Slurm hostlist "h100-[001-064]" for nodes first..first+n-1. */
static void hostlist (char *buf, size_t size, const char *prefix, int first,
                      int n, int width)
{
    if (n == 1)
        snprintf (buf, size, "%s-%0*d", prefix, width, first);
    else
        snprintf (buf, size, "%s-[%0*d-%0*d]", prefix, width, first, width,
                  first + n - 1);
}

static int digits (int n)
{
    int d = 1;
    while (n >= 10) {
        n /= 10;
        d++;
    }
    return d < 3 ? 3 : d;
}

void gp__slurm_gres_type (const struct gp_accel *a, char *buf, size_t size)
{
    size_t i = 0;
    for (; a->id[i] && i + 1 < size; i++)
        buf[i] = (char)tolower ((unsigned char)a->id[i]);
    buf[i] = '\0';
}

/* ============================ node geometry ============================ */

/* CPUs and memory of one node of a pool, as slurm.conf describes it. */
struct node_geo {
    int cpus, sockets, cores_per_socket, threads;
    long long mem_mib;       /* RealMemory */
    int def_cpu_per_gpu;     /* DefCpuPerGPU */
    long long def_mem_per_gpu; /* DefMemPerGPU, MiB */
    char cpu_from[GP_NAME_MAX]; /* catalog instance, "" = the spec */
    char mem_from[GP_NAME_MAX];
};

/* The smallest host of the catalog's instances with this accelerator and
 * GPU count: the fewest vCPUs and, separately, the least memory (a node
 * configured above what it has is drained).  0 when none.
 */
static int catalog_host (const struct gp_catalog *cat,
                         const struct gp_pool *p, int *vcpus, double *mem,
                         const char **cpu_from, const char **mem_from)
{
    int found = 0;
    for (size_t i = 0; i < gp_catalog_n_instances (cat); i++) {
        const struct gp_instance *in = gp_catalog_instance (cat, i);
        if (!in || strcasecmp (in->accel_id, p->accel->id)
            || in->n_accels != p->gpus_per_node)
            continue;
        if (in->vcpus > 0 && (*vcpus == 0 || in->vcpus < *vcpus)) {
            *vcpus = in->vcpus;
            *cpu_from = in->id;
            found = 1;
        }
        if (in->mem_bytes > 0 && (*mem == 0 || in->mem_bytes < *mem)) {
            *mem = in->mem_bytes;
            *mem_from = in->id;
        }
    }
    return found;
}

/* The geometry of pool 'i': CPUs and memory from the spec, else from the
 * catalog's smallest matching instance (vCPUs are hardware threads, two
 * per core); two sockets when the cores split evenly and number at least
 * 16 (dual-socket GPU servers), else one.  0, or GP_EINVAL naming the
 * pool when neither the spec nor the catalog gives a host.
 */
static int node_geometry (const struct gp_cluster *c, size_t i,
                          const struct gp_catalog *cat, struct node_geo *g,
                          gp_error_t *err)
{
    const struct gp_pool *p = &c->pools[i];
    int vcpus = 0;
    double mem = 0;
    const char *cpu_from = NULL, *mem_from = NULL;
    memset (g, 0, sizeof *g);
    if ((p->cpus_per_node <= 0 || p->host_mem_bytes <= 0) && cat)
        catalog_host (cat, p, &vcpus, &mem, &cpu_from, &mem_from);
    g->threads = 1;
    g->cpus = p->cpus_per_node;
    if (g->cpus <= 0 && vcpus > 0) {
        g->cpus = vcpus;
        g->threads = vcpus % 2 == 0 ? 2 : 1;
    }
    double bytes = p->host_mem_bytes > 0 ? p->host_mem_bytes : mem;
    if (g->cpus <= 0 || bytes <= 0)
        return gp_errprintf (
            err, GP_EINVAL,
            "pools[%zu] '%s': %s not given and the catalog has no host with "
            "%d %s; the Slurm export needs both for DefCpuPerGPU and "
            "DefMemPerGPU (set pools[%zu].cpus_per_node and "
            "pools[%zu].host_memory)",
            i, p->name,
            g->cpus <= 0 && bytes <= 0 ? "cpus_per_node and host_memory are"
            : g->cpus <= 0             ? "cpus_per_node is"
                                       : "host_memory is",
            p->gpus_per_node, p->accel->id, i, i);
    int cores = g->cpus / g->threads;
    g->sockets = cores >= 16 && cores % 2 == 0 ? 2 : 1;
    g->cores_per_socket = cores / g->sockets;
    g->mem_mib = (long long)floor (bytes * SLURM_MEM_SHARE / 1048576.0);
    g->def_cpu_per_gpu = g->cpus / p->gpus_per_node;
    if (g->def_cpu_per_gpu < 1)
        g->def_cpu_per_gpu = 1;
    g->def_mem_per_gpu = g->mem_mib / p->gpus_per_node;
    if (p->cpus_per_node <= 0)
        snprintf (g->cpu_from, sizeof g->cpu_from, "%s", cpu_from);
    if (p->host_mem_bytes <= 0)
        snprintf (g->mem_from, sizeof g->mem_from, "%s", mem_from);
    return 0;
}

/* Slurm schedules NVIDIA and AMD accelerators as GRES 'gpu' (device
 * files /dev/nvidiaN, /dev/dri/renderDN).  Trainium, Gaudi and TPU have
 * no GRES plugin and no device files a 'gpu' GRES could bind; written as
 * 'gpu' their nodes would drain, so they are refused.
 */
static int check_accels (const struct gp_cluster *c, gp_error_t *err)
{
    for (size_t i = 0; i < c->n_pools; i++) {
        const struct gp_pool *p = &c->pools[i];
        if (strcmp (p->accel->vendor, "NVIDIA")
            && strcmp (p->accel->vendor, "AMD"))
            return gp_errprintf (
                err, GP_ENOTSUP,
                "pools[%zu] '%s': %s (%s) accelerators cannot be exported "
                "to Slurm: Slurm schedules NVIDIA and AMD GPUs as GRES "
                "'gpu'; other accelerators have no GRES plugin (see "
                "docs/formats/export-slurm.md)",
                i, p->name, p->accel->id, p->accel->vendor);
    }
    return 0;
}

/* =============================== slurm.conf ============================ */

static void conf_header (const struct gp_cluster *c, struct sb *b)
{
    gp__sb_printf (b, "# slurm.conf fragment for cluster '");
    gp__comment_text (b, c->name);
    gp__sb_printf (b,
                   "', generated by gpuplan.\n"
                   "# Merge into slurm.conf (docs/formats/export-slurm.md); "
                   "the site adds\n"
                   "# SlurmctldHost, AccountingStorageHost and its paths.\n"
                   "ClusterName=%s\n"
                   "GresTypes=gpu\n"
                   "SelectType=select/cons_tres\n"
                   "SelectTypeParameters=CR_Core_Memory\n"
                   "SchedulerType=sched/backfill\n"
                   "TopologyPlugin=topology/tree\n"
                   "PriorityType=priority/multifactor\n"
                   "PriorityWeightFairshare=10000\n"
                   "PriorityWeightQOS=10000\n"
                   "PriorityWeightAge=1000\n"
                   "# GPU TRES, QOS and associations live in slurmdbd; "
                   "slurmctld 22.05 refuses\n"
                   "# AccountingStorageTRES=gres/gpu without it.\n"
                   "AccountingStorageType=accounting_storage/slurmdbd\n"
                   "AccountingStorageTRES=gres/gpu",
                   c->name);
    /* One typed entry per accelerator type, each once. */
    for (size_t i = 0; i < c->n_pools; i++) {
        int seen = 0;
        for (size_t k = 0; k < i; k++)
            seen |= c->pools[k].accel == c->pools[i].accel;
        if (seen)
            continue;
        char type[GP_NAME_MAX];
        gp__slurm_gres_type (c->pools[i].accel, type, sizeof type);
        gp__sb_printf (b, ",gres/gpu:%s", type);
    }
    gp__sb_printf (b, "\n"
                      "AccountingStorageEnforce=associations,limits,qos\n"
                      "PreemptType=preempt/qos\n"
                      "PreemptMode=REQUEUE\n"
                      "JobRequeue=1\n");
}

static void slurm_conf (const struct gp_cluster *c,
                        const struct node_geo *geo, struct sb *b)
{
    conf_header (c, b);
    for (size_t i = 0; i < c->n_pools; i++) {
        const struct gp_pool *p = &c->pools[i];
        const struct node_geo *g = &geo[i];
        char hl[160], type[GP_NAME_MAX];
        hostlist (hl, sizeof hl, p->name, 1, p->nodes, digits (p->nodes));
        gp__slurm_gres_type (p->accel, type, sizeof type);
        if (g->cpu_from[0] || g->mem_from[0]) {
            gp__sb_printf (b, "# pool %s: host from the catalog: CPUs of ",
                           p->name);
            gp__comment_text (b, g->cpu_from[0] ? g->cpu_from : "the spec");
            gp__sb_printf (b, ", memory of ");
            gp__comment_text (b, g->mem_from[0] ? g->mem_from : "the spec");
            gp__sb_printf (b, "\n");
        }
        gp__sb_printf (b,
                       "NodeName=%s Gres=gpu:%s:%d CPUs=%d Sockets=%d "
                       "CoresPerSocket=%d ThreadsPerCore=%d RealMemory=%lld "
                       "State=UNKNOWN\n",
                       hl, type, p->gpus_per_node, g->cpus, g->sockets,
                       g->cores_per_socket, g->threads, g->mem_mib);
    }
    for (size_t i = 0; i < c->n_pools; i++) {
        const struct gp_pool *p = &c->pools[i];
        char hl[160];
        hostlist (hl, sizeof hl, p->name, 1, p->nodes, digits (p->nodes));
        gp__sb_printf (b,
                       "PartitionName=%s Nodes=%s Default=%s "
                       "DefaultTime=1-00:00:00 MaxTime=7-00:00:00 "
                       "DefCpuPerGPU=%d DefMemPerGPU=%lld State=UP "
                       "OverSubscribe=NO\n",
                       p->name, hl, i == 0 ? "YES" : "NO",
                       geo[i].def_cpu_per_gpu, geo[i].def_mem_per_gpu);
    }
}

/* =============================== gres.conf ============================= */

static void gres_conf (const struct gp_cluster *c, struct sb *b)
{
    gp__sb_printf (b, "# gres.conf for cluster '");
    gp__comment_text (b, c->name);
    gp__sb_printf (b, "', generated by gpuplan.\nAutoDetect=off\n");
    for (size_t i = 0; i < c->n_pools; i++) {
        const struct gp_pool *p = &c->pools[i];
        char hl[160], type[GP_NAME_MAX];
        hostlist (hl, sizeof hl, p->name, 1, p->nodes, digits (p->nodes));
        gp__slurm_gres_type (p->accel, type, sizeof type);
        int n = p->gpus_per_node;
        int amd = !strcmp (p->accel->vendor, "AMD");
        const char *dev = amd ? "/dev/dri/renderD" : "/dev/nvidia";
        int first = amd ? 128 : 0;
        if (n > 1)
            gp__sb_printf (b, "NodeName=%s Name=gpu Type=%s File=%s[%d-%d]\n",
                           hl, type, dev, first, first + n - 1);
        else
            gp__sb_printf (b, "NodeName=%s Name=gpu Type=%s File=%s%d\n", hl,
                           type, dev, first);
    }
}

/* ============================= topology.conf =========================== */

/* One leaf switch per rack (nodes_per_rack) or, when racks are not given,
 * per 32 nodes (half the ports of a 64-port leaf facing nodes); one spine
 * over all leaves.
 */
static void topology_conf (const struct gp_cluster *c, struct sb *b)
{
    gp__sb_printf (b, "# topology.conf (topology/tree) for cluster '");
    gp__comment_text (b, c->name);
    gp__sb_printf (b, "', generated by gpuplan.\n");
    struct sb leaves = {0};
    for (size_t i = 0; i < c->n_pools; i++) {
        const struct gp_pool *p = &c->pools[i];
        int per = p->nodes_per_rack > 0 ? p->nodes_per_rack : 32;
        int n_leaf = (p->nodes + per - 1) / per;
        int w = digits (p->nodes);
        for (int l = 0; l < n_leaf; l++) {
            int first = l * per + 1;
            int cnt = p->nodes - l * per < per ? p->nodes - l * per : per;
            char hl[160];
            hostlist (hl, sizeof hl, p->name, first, cnt, w);
            gp__sb_printf (b, "SwitchName=%s-leaf%02d Nodes=%s\n", p->name,
                           l + 1, hl);
        }
        char range[160];
        if (n_leaf == 1)
            snprintf (range, sizeof range, "%s-leaf01", p->name);
        else
            snprintf (range, sizeof range, "%s-leaf[01-%02d]", p->name,
                      n_leaf);
        gp__sb_printf (&leaves, "%s%s", i ? "," : "", range);
    }
    gp__sb_printf (b, "SwitchName=spine Switches=%s\n",
                   leaves.s ? leaves.s : "");
    if (leaves.oom)
        b->oom = 1;
    free (leaves.s);
}

/* ================================ target =============================== */

/* The node geometry of every pool; the embedded catalog is loaded only
 * when a pool lacks CPUs or memory.  0 or a GP_E* code with 'err' set.
 */
static int geometries (const struct gp_cluster *c, struct node_geo *geo,
                       gp_error_t *err)
{
    struct gp_catalog *cat = NULL;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < c->n_pools; i++) {
        const struct gp_pool *p = &c->pools[i];
        if (!cat && (p->cpus_per_node <= 0 || p->host_mem_bytes <= 0)) {
            gp_error_t e2 = {0};
            cat = gp_catalog_load (NULL, &e2);
            if (!cat)
                return e2.code == GP_ENOMEM
                           ? GP_ENOMEM
                           : gp_errprintf (err, e2.code ? e2.code
                                                        : GP_EINTERNAL,
                                           "%s", e2.text);
        }
        rc = node_geometry (c, i, cat, &geo[i], err);
    }
    gp_catalog_destroy (cat);
    return rc;
}

static int write_slurm (const struct gp_cluster *c,
                        const struct gp_export_opts *o, struct gp_export *x,
                        gp_error_t *err)
{
    (void)o;
    int rc = check_accels (c, err);
    if (rc != 0)
        return rc;
    struct node_geo *geo = calloc (c->n_pools, sizeof *geo);
    if (!geo)
        return GP_ENOMEM;
    rc = geometries (c, geo, err);
    if (rc != 0) {
        free (geo);
        return rc;
    }
    struct sb b1 = {0}, b2 = {0}, b3 = {0}, b4 = {0};
    slurm_conf (c, geo, &b1);
    free (geo);
    gres_conf (c, &b2);
    topology_conf (c, &b3);
    rc = gp__slurm_accounts (c, &b4, err);
    if (rc != 0) {
        free (b1.s);
        free (b2.s);
        free (b3.s);
        free (b4.s);
        return rc;
    }
    rc |= gp__export_add_file (x, "slurm.conf", &b1);
    rc |= gp__export_add_file (x, "gres.conf", &b2);
    rc |= gp__export_add_file (x, "topology.conf", &b3);
    rc |= gp__export_add_file (x, "accounts.sh", &b4);
    return rc ? GP_ENOMEM : 0;
}

const struct gp_export_target_ops gp__export_slurm = {
    .name = "slurm",
    .k8s_names = 0,
    .write = write_slurm,
};
