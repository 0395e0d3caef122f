/* gpu_operator.c - the gpu-operator export target: the NVIDIA GPU
 * Operator settings a cluster's pools imply (docs/formats/
 * export-gpu-operator.md).
 *
 * Files: clusterpolicy.yaml (ClusterPolicy nvidia.com/v1: MIG strategy,
 * MIG manager and device-plugin configs, GPUDirect RDMA, dcgm-exporter
 * with gpuplan's counters), mig-parted-config.yaml (the MIG manager's
 * ConfigMap: one mig-parted layout per pool profile layout),
 * device-plugin-config.yaml (time-slicing for GPU-sharing pools),
 * dcgm-metrics.yaml (the dcgm-exporter counters of dcgm_fields.c) and
 * node-labels.sh (the nvidia.com/mig.config and
 * nvidia.com/device-plugin.config label of each pool's nodes).
 *
 * Sources: GPU Operator api/nvidia/v1/clusterpolicy_types.go and its CRD
 * (v26.7.0); mig-parted config-default.yaml (v0.15.0); k8s-device-plugin
 * README (v0.20.0) and the operator's tests/plugin-config.yaml.  The
 * strategy comes from gp__mig_strategy (resources.c), shared with the
 * Kueue and Volcano exports, and MIG resource names only from
 * gp_pool_k8s_resources.  All YAML goes through libyaml's emitter
 * (quote.h), shell words through gp__sh_quote.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcgm_fields.h"
#include "gpuplan/plan.h"
#include "k8s.h"

#define NS "gpu-operator"          /* the namespace of NVIDIA's install docs */
#define POLICY "cluster-policy"    /* the ClusterPolicy the Helm chart names */
#define CM_MIG "gpuplan-mig-parted-config"
#define CM_PLUGIN "gpuplan-device-plugin-config"
#define CM_DCGM "gpuplan-dcgm-metrics"
#define MIG_OFF "all-disabled"     /* mig-parted's layout without MIG */
#define PLUGIN_DEFAULT "default"   /* device-plugin config without sharing */
#define SHARED "time-sliced"       /* device-plugin config with sharing */
/* Time-slicing replicas per GPU.  No plan quantity sets it: the simulator
 * packs any shares summing to one GPU; 4 is NVIDIA's time-slicing example
 * (docs/formats/export-gpu-operator.md, "GPU sharing").
 */
#define SHARING_REPLICAS 4
#define LABEL_MAX 64

/* What the cluster asks of the operator. */
struct gpo {
    const char *strategy;          /* gp__mig_strategy */
    int rdma;                      /* GPUDirect RDMA */
    const char *rdma_why;          /* the rule that decided it */
    int n_nvidia, any_mig, any_sharing;
    char (*layout)[LABEL_MAX];     /* per pool: its mig-parted config name */
};

static int is_nvidia (const struct gp_pool *p)
{
    return p->accel && !strcmp (gp__k8s_resource (p->accel),
                                "nvidia.com/gpu");
}

/* 1 when 's' is a Kubernetes label value: at most 63 characters of
 * [A-Za-z0-9._-], starting and ending alphanumeric.
 */
static int label_value_ok (const char *s)
{
    size_t n = strlen (s);
    if (n == 0 || n > 63)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        int alnum = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')
                    || (ch >= '0' && ch <= '9');
        if (!alnum && ((i == 0 || i == n - 1) || !strchr ("._-", ch)))
            return 0;
    }
    return 1;
}

/* The mig-parted config name of pool 'p' into 'out': "all-<profile>" for
 * one profile (mig-parted's own names), "mixed-<p1>-<p2>..." for several,
 * '+' written as '.' (mig-parted's "all-1g.5gb.me").  GP_EINVAL when the
 * name is no label value (too long).
 */
static int layout_name (const struct gp_pool *p, char *out, size_t n,
                        gp_error_t *err)
{
    size_t at = (size_t)snprintf (out, n, "%s", p->n_mig > 1 ? "mixed"
                                                             : "all");
    for (int k = 0; k < p->n_mig && at < n; k++)
        at += (size_t)snprintf (out + at, n - at, "-%s", p->mig[k]);
    for (char *q = out; *q; q++)
        if (*q == '+')
            *q = '.';
    if (at >= n || !label_value_ok (out))
        return gp_errprintf (err, GP_EINVAL,
                             "pool '%s': MIG config name '%s' is no "
                             "Kubernetes label value (at most 63 of "
                             "[A-Za-z0-9._-]); list fewer profiles",
                             p->name, out);
    return 0;
}

/* GPUDirect RDMA: from a plan, when the option is an on-premises build
 * of more than one node with its own scale-out fabric (gpuplan designs it
 * as a rail-optimised InfiniBand or RoCE fabric); from a cluster spec,
 * when an NVIDIA pool of more than one node gives network_per_gpu.
 */
static void decide_rdma (const struct gp_cluster *c,
                         const struct gp_export_opts *o, struct gpo *g)
{
    const struct gp_export_plan *pl = o->plan;
    if (pl && pl->result && pl->option >= 0
        && (size_t)pl->option < pl->result->n_options) {
        const struct gp_plan_option *op = &pl->result->options[pl->option];
        g->rdma = op->kind == GP_OPT_ONPREM && !op->cloud_fabric
                  && op->nodes > 1;
        g->rdma_why = g->rdma ? "the plan's option has a scale-out fabric"
                              : "the plan's option has no scale-out fabric "
                                "of its own (one node, or a cloud's)";
        return;
    }
    g->rdma = 0;
    for (size_t i = 0; i < c->n_pools; i++) {
        const struct gp_pool *p = &c->pools[i];
        if (is_nvidia (p) && p->nodes > 1 && p->net_bw_per_gpu > 0)
            g->rdma = 1;
    }
    g->rdma_why = g->rdma ? "a multi-node NVIDIA pool gives network_per_gpu"
                          : "no multi-node NVIDIA pool gives "
                            "network_per_gpu";
}

static int analyse (const struct gp_cluster *c,
                    const struct gp_export_opts *o, struct gpo *g,
                    gp_error_t *err)
{
    memset (g, 0, sizeof *g);
    g->strategy = gp__mig_strategy (c);
    decide_rdma (c, o, g);
    g->layout = calloc (c->n_pools, sizeof *g->layout);
    if (!g->layout)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    for (size_t i = 0; i < c->n_pools; i++) {
        const struct gp_pool *p = &c->pools[i];
        if (!is_nvidia (p))
            continue;
        g->n_nvidia++;
        g->any_sharing |= p->gpu_sharing;
        if (p->n_mig <= 0) {
            snprintf (g->layout[i], LABEL_MAX, "%s", MIG_OFF);
            continue;
        }
        g->any_mig = 1;
        for (int k = 0; k < p->n_mig; k++)
            if (gp__mig_per_gpu (p->mig[k], p->accel->mem_bytes) < 1)
                return gp_errprintf (err, GP_EINVAL, "pool '%s': MIG "
                                     "profile '%s' is not <g>g.<m>gb",
                                     p->name, p->mig[k]);
        int rc = layout_name (p, g->layout[i], LABEL_MAX, err);
        if (rc)
            return rc;
        /* The same profiles over another node size deal the GPUs
         * differently: a name of its own. */
        for (size_t j = 0; j < i && p->n_mig > 1; j++)
            if (!strcmp (g->layout[j], g->layout[i])
                && c->pools[j].gpus_per_node != p->gpus_per_node) {
                size_t at = strlen (g->layout[i]);
                snprintf (g->layout[i] + at, LABEL_MAX - at, "-%dgpu",
                          p->gpus_per_node);
                if (!label_value_ok (g->layout[i]))
                    return gp_errprintf (err, GP_EINVAL, "pool '%s': MIG "
                                         "config name '%s' is too long",
                                         p->name, g->layout[i]);
                break;
            }
    }
    return 0;
}

/* ============================== YAML files ============================= */

/* A ConfigMap header in namespace NS, up to the 'data' mapping. */
static void configmap_start (struct gp__yaml *y, const char *name,
                             const char *cluster)
{
    gp__y_doc_start (y);
    gp__y_map (y);
    gp__y_kstr (y, "apiVersion", "v1");
    gp__y_kstr (y, "kind", "ConfigMap");
    gp__y_key (y, "metadata");
    gp__y_map (y);
    gp__y_kstr (y, "name", name);
    gp__y_kstr (y, "namespace", NS);
    gp__y_key (y, "annotations");
    gp__y_map (y);
    gp__y_kstr (y, "gpuplan.io/cluster", cluster);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_key (y, "data");
    gp__y_map (y);
}

static void configmap_end (struct gp__yaml *y)
{
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_doc_end (y);
}

/* Key 'k' holding the YAML text 'inner' as a literal block, without the
 * document marker the emitter starts it with.
 */
static void block_value (struct gp__yaml *y, const char *k,
                         const struct sb *inner)
{
    const char *t = inner->s ? inner->s : "";
    if (!strncmp (t, "---\n", 4))
        t += 4;
    gp__y_key (y, k);
    gp__y_block (y, t);
}

/* {name: <n>, ...} sub-mappings of the ClusterPolicy. */
static void enabled (struct gp__yaml *y, const char *k, int on)
{
    gp__y_key (y, k);
    gp__y_map (y);
    gp__y_kbool (y, "enabled", on);
    gp__y_map_end (y);
}

static void config_ref (struct gp__yaml *y, const char *name,
                        const char *def)
{
    gp__y_key (y, "config");
    gp__y_map (y);
    gp__y_kstr (y, "name", name);
    if (def)
        gp__y_kstr (y, "default", def);
    gp__y_map_end (y);
}

static void policy (const struct gp_cluster *c, const struct gpo *g,
                    struct gp__yaml *y)
{
    gp__y_doc_start (y);
    gp__y_map (y);
    gp__y_kstr (y, "apiVersion", "nvidia.com/v1");
    gp__y_kstr (y, "kind", "ClusterPolicy");
    gp__y_key (y, "metadata");
    gp__y_map (y);
    gp__y_kstr (y, "name", POLICY);
    gp__y_key (y, "annotations");
    gp__y_map (y);
    gp__y_kstr (y, "gpuplan.io/cluster", c->name);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_key (y, "spec");
    gp__y_map (y);
    gp__y_key (y, "operator");
    gp__y_map (y);
    gp__y_map_end (y);
    gp__y_key (y, "daemonsets");
    gp__y_map (y);
    gp__y_map_end (y);
    gp__y_key (y, "driver");
    gp__y_map (y);
    gp__y_kbool (y, "enabled", 1);
    gp__y_key (y, "rdma");
    gp__y_map (y);
    gp__y_kbool (y, "enabled", g->rdma);
    gp__y_kbool (y, "useHostMofed", 0);
    gp__y_map_end (y);
    gp__y_map_end (y);
    enabled (y, "toolkit", 1);
    gp__y_key (y, "devicePlugin");
    gp__y_map (y);
    gp__y_kbool (y, "enabled", 1);
    if (g->any_sharing)
        config_ref (y, CM_PLUGIN, PLUGIN_DEFAULT);
    gp__y_map_end (y);
    enabled (y, "dcgm", 0);
    gp__y_key (y, "dcgmExporter");
    gp__y_map (y);
    gp__y_kbool (y, "enabled", 1);
    config_ref (y, CM_DCGM, NULL);
    gp__y_key (y, "serviceMonitor");
    gp__y_map (y);
    gp__y_kbool (y, "enabled", 1);
    gp__y_kstr (y, "interval", "15s");
    gp__y_kbool (y, "honorLabels", 1);
    gp__y_map_end (y);
    gp__y_map_end (y);
    enabled (y, "gfd", 1);
    enabled (y, "nodeStatusExporter", 0);
    gp__y_key (y, "mig");
    gp__y_map (y);
    gp__y_kstr (y, "strategy", g->strategy);
    gp__y_map_end (y);
    gp__y_key (y, "migManager");
    gp__y_map (y);
    gp__y_kbool (y, "enabled", g->any_mig);
    if (g->any_mig)
        config_ref (y, CM_MIG, MIG_OFF);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_doc_end (y);
}

/* One mig-parted entry: 'devices' (NULL = all) with 'n' instances of
 * 'profile' each (0: MIG off).
 */
static void mig_entry (struct gp__yaml *y, const long long *devices,
                       size_t n_dev, const char *profile, int n)
{
    gp__y_map (y);
    gp__y_key (y, "devices");
    if (!devices) {
        gp__y_str (y, "all");
    } else {
        gp__y_seq_flow (y);
        for (size_t d = 0; d < n_dev; d++)
            gp__y_int (y, devices[d]);
        gp__y_seq_end (y);
    }
    gp__y_kbool (y, "mig-enabled", n > 0);
    if (n > 0) {
        gp__y_key (y, "mig-devices");
        gp__y_map (y);
        gp__y_key (y, profile);
        gp__y_int (y, n);
        gp__y_map_end (y);
    }
    gp__y_map_end (y);
}

/* The layout of pool 'p' (named 'name'): GPU i of a node takes profile
 * i mod n, each GPU the most instances of its profile (the rule of
 * gp_pool_k8s_resources); one profile: every GPU.
 */
static void mig_layout (struct gp__yaml *y, const struct gp_pool *p,
                        const char *name, long long *dev)
{
    gp__y_key (y, name);
    gp__y_seq (y);
    for (int k = 0; k < p->n_mig; k++) {
        int per = gp__mig_per_gpu (p->mig[k], p->accel->mem_bytes);
        if (p->n_mig == 1) {
            mig_entry (y, NULL, 0, p->mig[k], per);
            break;
        }
        size_t n_dev = 0;
        for (int i = k; i < p->gpus_per_node; i += p->n_mig)
            dev[n_dev++] = i;
        if (n_dev)
            mig_entry (y, dev, n_dev, p->mig[k], per);
    }
    gp__y_seq_end (y);
}

static int mig_config (const struct gp_cluster *c, const struct gpo *g,
                       struct gp__yaml *y, struct sb *inner)
{
    /* GPU indices of one device group: at most gpus_per_node (<= 128,
     * docs/formats/cluster.md). */
    long long *dev = calloc (128, sizeof *dev);
    if (!dev)
        return -1;
    struct gp__yaml in;
    if (gp__y_open (&in, inner) != 0) {
        free (dev);
        return -1;
    }
    gp__y_doc_start (&in);
    gp__y_map (&in);
    gp__y_kstr (&in, "version", "v1");
    gp__y_key (&in, "mig-configs");
    gp__y_map (&in);
    gp__y_key (&in, MIG_OFF);
    gp__y_seq (&in);
    mig_entry (&in, NULL, 0, NULL, 0);
    gp__y_seq_end (&in);
    for (size_t i = 0; i < c->n_pools; i++) {
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= !strcmp (g->layout[i], g->layout[j]);
        if (!seen && c->pools[i].n_mig > 0 && is_nvidia (&c->pools[i]))
            mig_layout (&in, &c->pools[i], g->layout[i], dev);
    }
    gp__y_map_end (&in);
    gp__y_map_end (&in);
    gp__y_doc_end (&in);
    free (dev);
    if (gp__y_close (&in) != 0)
        return -1;
    configmap_start (y, CM_MIG, c->name);
    block_value (y, "config.yaml", inner);
    configmap_end (y);
    return 0;
}

/* Device-plugin configs: "default" (no sharing) and SHARED (time-slicing,
 * SHARING_REPLICAS per GPU; format of the operator's plugin-config.yaml).
 */
static int plugin_config (const struct gp_cluster *c, struct gp__yaml *y,
                          struct sb *inner)
{
    configmap_start (y, CM_PLUGIN, c->name);
    for (int shared = 0; shared < 2; shared++) {
        struct gp__yaml in;
        inner->len = 0;
        if (gp__y_open (&in, inner) != 0)
            return -1;
        gp__y_doc_start (&in);
        gp__y_map (&in);
        gp__y_kstr (&in, "version", "v1");
        if (shared) {
            gp__y_key (&in, "sharing");
            gp__y_map (&in);
            gp__y_key (&in, "timeSlicing");
            gp__y_map (&in);
            gp__y_kbool (&in, "renameByDefault", 0);
            gp__y_kbool (&in, "failRequestsGreaterThanOne", 1);
            gp__y_key (&in, "resources");
            gp__y_seq (&in);
            gp__y_map (&in);
            gp__y_kstr (&in, "name", "nvidia.com/gpu");
            gp__y_kint (&in, "replicas", SHARING_REPLICAS);
            gp__y_map_end (&in);
            gp__y_seq_end (&in);
            gp__y_map_end (&in);
            gp__y_map_end (&in);
        }
        gp__y_map_end (&in);
        gp__y_doc_end (&in);
        if (gp__y_close (&in) != 0)
            return -1;
        block_value (y, shared ? SHARED : PLUGIN_DEFAULT, inner);
    }
    configmap_end (y);
    return 0;
}

static void dcgm_config (const struct gp_cluster *c, struct gp__yaml *y,
                         struct sb *inner)
{
    inner->len = 0;
    if (inner->s)
        inner->s[0] = '\0';
    gp__dcgm_csv (inner);
    configmap_start (y, CM_DCGM, c->name);
    gp__y_key (y, "dcgm-metrics.csv");
    gp__y_block (y, inner->s);
    configmap_end (y);
}

/* ============================== node labels ============================ */

static void label_cmd (struct sb *b, const struct gp_pool *p,
                       const char *key, const char *value)
{
    char sel[GP_NAME_MAX + 32], kv[2 * LABEL_MAX];
    snprintf (sel, sizeof sel, "gpuplan.io/pool=%s", p->name);
    snprintf (kv, sizeof kv, "%s=%s", key, value);
    gp__sb_printf (b, "kubectl label nodes --overwrite -l ");
    gp__sh_quote (b, sel);
    gp__sb_printf (b, " ");
    gp__sh_quote (b, kv);
    gp__sb_printf (b, "\n");
}

static int node_labels (const struct gp_cluster *c, const struct gpo *g,
                        struct sb *b, gp_error_t *err)
{
    gp__sb_printf (b, "#!/bin/sh\n# GPU Operator node labels for cluster "
                      "'");
    gp__comment_text (b, c->name);
    gp__sb_printf (b, "', generated by gpuplan (MIG strategy %s).\n"
                      "# Nodes are selected by their pool label "
                      "gpuplan.io/pool, as in the Kueue export.\n",
                   g->strategy);
    if (g->any_mig)
        gp__sb_printf (b, "# The MIG manager applies nvidia.com/mig.config "
                          "(layouts in ConfigMap " CM_MIG ").\n");
    if (g->any_sharing)
        gp__sb_printf (b, "# The device plugin applies "
                          "nvidia.com/device-plugin.config (ConfigMap "
                          CM_PLUGIN ").\n");
    gp__sb_printf (b, "set -eu\n");
    for (size_t i = 0; i < c->n_pools; i++) {
        const struct gp_pool *p = &c->pools[i];
        if (!is_nvidia (p))
            continue;
        char names[GP_MIG_MAX + 1][64];
        long long counts[GP_MIG_MAX + 1];
        int n = gp_pool_k8s_resources (p, g->strategy, names, counts,
                                       GP_MIG_MAX + 1, err);
        if (n < 0)
            return n;
        gp__sb_printf (b, "\n# pool ");
        gp__comment_text (b, p->name);
        gp__sb_printf (b, ": each node exposes");
        for (int k = 0; k < n; k++)
            gp__sb_printf (b, "%s %s: %lld", k ? "," : "", names[k],
                           counts[k]);
        if (p->gpu_sharing)
            gp__sb_printf (b, " (each shared by %d pods)", SHARING_REPLICAS);
        gp__sb_printf (b, "\n");
        label_cmd (b, p, "nvidia.com/mig.config", g->layout[i]);
        if (g->any_sharing)
            label_cmd (b, p, "nvidia.com/device-plugin.config",
                       p->gpu_sharing ? SHARED : PLUGIN_DEFAULT);
    }
    return 0;
}

/* ================================ write ================================ */

/* The YAML files, in the order written. */
enum gpo_file { F_POLICY, F_MIG, F_PLUGIN, F_DCGM, F__COUNT };
static const char *const file_names[F__COUNT] = {
    "clusterpolicy.yaml", "mig-parted-config.yaml",
    "device-plugin-config.yaml", "dcgm-metrics.yaml"};

static int yaml_file (struct gp_export *x, const char *name,
                      const struct gp_cluster *c, const struct gpo *g,
                      enum gpo_file which)
{
    struct sb b = {0}, inner = {0};
    struct gp__yaml y;
    gp__sb_printf (&b, "# %s for cluster '", name);
    gp__comment_text (&b, c->name);
    gp__sb_printf (&b, "', generated by gpuplan "
                      "(docs/formats/export-gpu-operator.md).\n");
    if (which == F_POLICY)
        gp__sb_printf (&b, "# GPUDirect RDMA %s: %s.\n",
                       g->rdma ? "on" : "off", g->rdma_why);
    int bad = gp__y_open (&y, &b) != 0;
    if (!bad) {
        if (which == F_POLICY)
            policy (c, g, &y);
        else if (which == F_MIG)
            bad = mig_config (c, g, &y, &inner) != 0;
        else if (which == F_PLUGIN)
            bad = plugin_config (c, &y, &inner) != 0;
        else
            dcgm_config (c, &y, &inner);
        bad |= gp__y_close (&y) != 0 || inner.oom;
    }
    free (inner.s);
    if (bad) {
        free (b.s);
        return GP_ENOMEM;
    }
    return gp__export_add_file (x, name, &b) ? GP_ENOMEM : 0;
}

static int write_gpu_operator (const struct gp_cluster *c,
                               const struct gp_export_opts *o,
                               struct gp_export *x, gp_error_t *err)
{
    struct gpo g;
    int rc = analyse (c, o, &g, err);
    if (rc == 0 && g.n_nvidia == 0)
        snprintf (x->not_applicable, sizeof x->not_applicable,
                  "no NVIDIA pool: the GPU Operator manages NVIDIA GPUs "
                  "only");
    if (rc == 0 && g.n_nvidia > 0) {
        for (int f = 0; f < F__COUNT && rc == 0; f++)
            if ((f != F_MIG || g.any_mig) && (f != F_PLUGIN || g.any_sharing))
                rc = yaml_file (x, file_names[f], c, &g, (enum gpo_file)f);
        struct sb b = {0};
        if (rc == 0)
            rc = node_labels (c, &g, &b, err);
        if (rc == 0)
            rc = gp__export_add_file (x, "node-labels.sh", &b) ? GP_ENOMEM
                                                                : 0;
        else
            free (b.s);
    }
    free (g.layout);
    if (rc == GP_ENOMEM)
        gp_errprintf (err, GP_ENOMEM, "out of memory");
    return rc;
}

/* Pool names are values of the node label gpuplan.io/pool (DNS-1123). */
const struct gp_export_target_ops gp__export_gpu_operator = {
    .name = "gpu-operator",
    .k8s_names = 1,
    .needs_plan = 0,
    .write = write_gpu_operator,
};
