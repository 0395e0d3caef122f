/* kueue.c - Kueue objects of a cluster spec (docs/formats/export-kueue.md):
 * a Topology (block, rack, host), a ResourceFlavor per pool that names
 * it, a WorkloadPriorityClass per team priority, and per team a
 * ClusterQueue (cohort, cpu, memory and device quotas per flavor,
 * borrowing and lending limits, fair-sharing weight), a Namespace and a
 * LocalQueue.  When a pool's host size is unknown, a Kueue Configuration
 * fragment that excludes cpu and memory from quota goes with them.
 *
 * Everything is written through libyaml's emitter (quote.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s.h"

/* Node labels of the Topology levels, top to bottom. */
static const char *const topo_levels[] = {
    "gpuplan.io/block",
    "gpuplan.io/rack",
    "kubernetes.io/hostname",
};

struct kq {
    const struct gp_cluster *c;
    struct gp__k8s_res r;
    struct limits l;
    const char *api;      /* "kueue.x-k8s.io/v1beta2" */
    int v1beta1;
    char topo[GP_NAME_MAX + 16];
};

static void doc_head (struct gp__yaml *y, const struct kq *k,
                      const char *kind, const char *name)
{
    gp__y_doc_start (y);
    gp__y_map (y);
    gp__y_kstr (y, "apiVersion", k->api);
    gp__y_kstr (y, "kind", kind);
    gp__y_key (y, "metadata");
    gp__y_map (y);
    gp__y_kstr (y, "name", name);
    gp__y_map_end (y);
}

static void doc_tail (struct gp__yaml *y)
{
    gp__y_map_end (y);
    gp__y_doc_end (y);
}

static void topology (struct gp__yaml *y, const struct kq *k)
{
    doc_head (y, k, "Topology", k->topo);
    gp__y_key (y, "spec");
    gp__y_map (y);
    gp__y_key (y, "levels");
    gp__y_seq (y);
    for (size_t i = 0; i < sizeof topo_levels / sizeof *topo_levels; i++) {
        gp__y_map (y);
        gp__y_kstr (y, "nodeLabel", topo_levels[i]);
        gp__y_map_end (y);
    }
    gp__y_seq_end (y);
    gp__y_map_end (y);
    doc_tail (y);
}

static void flavors (struct gp__yaml *y, const struct kq *k)
{
    for (size_t i = 0; i < k->c->n_pools; i++) {
        doc_head (y, k, "ResourceFlavor", k->c->pools[i].name);
        gp__y_key (y, "spec");
        gp__y_map (y);
        gp__y_key (y, "nodeLabels");
        gp__y_map (y);
        gp__y_kstr (y, "gpuplan.io/pool", k->c->pools[i].name);
        gp__y_map_end (y);
        gp__y_kstr (y, "topologyName", k->topo);
        gp__y_map_end (y);
        doc_tail (y);
    }
}

/* One WorkloadPriorityClass per distinct non-zero team priority. */
static void priority_classes (struct gp__yaml *y, const struct kq *k,
                              const struct gp_team *teams, size_t nt)
{
    for (size_t i = 0; i < nt; i++) {
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= teams[j].priority == teams[i].priority;
        int pr = teams[i].priority;
        if (seen || pr == 0)
            continue;
        char name[32], desc[64];
        snprintf (name, sizeof name, "priority-%s%d", pr < 0 ? "m" : "",
                  pr < 0 ? -pr : pr);
        snprintf (desc, sizeof desc,
                  "priority class %d of the gpuplan spec", pr);
        gp__y_doc_start (y);
        gp__y_map (y);
        gp__y_kstr (y, "apiVersion", k->api);
        gp__y_kstr (y, "kind", "WorkloadPriorityClass");
        gp__y_key (y, "metadata");
        gp__y_map (y);
        gp__y_kstr (y, "name", name);
        gp__y_map_end (y);
        gp__y_kint (y, "value", pr);
        gp__y_kstr (y, "description", desc);
        doc_tail (y);
    }
}

static void resource_groups (struct gp__yaml *y, const struct kq *k,
                             const struct gp_team *t)
{
    gp__y_key (y, "resourceGroups");
    gp__y_seq (y);
    gp__y_map (y);
    gp__y_key (y, "coveredResources");
    gp__y_seq_flow (y);
    for (size_t r = 0; r < k->r.n; r++)
        gp__y_str (y, k->r.name[r]);
    gp__y_seq_end (y);
    gp__y_key (y, "flavors");
    gp__y_seq (y);
    for (size_t p = 0; p < k->c->n_pools; p++) {
        gp__y_map (y);
        gp__y_kstr (y, "name", k->c->pools[p].name);
        gp__y_key (y, "resources");
        gp__y_seq (y);
        for (size_t r = 0; r < k->r.n; r++) {
            const char *rn = k->r.name[r];
            gp__y_map (y);
            gp__y_kstr (y, "name", rn);
            gp__y_key (y, "nominalQuota");
            gp__k8s_y_qty (y, rn, gp__k8s_share (&k->r, k->c, p, r,
                                                 k->l.nom[p]));
            if (t->cohort[0] && k->l.bor[p] >= 0) {
                gp__y_key (y, "borrowingLimit");
                gp__k8s_y_qty (y, rn, gp__k8s_share (&k->r, k->c, p, r,
                                                     k->l.bor[p]));
            }
            if (t->cohort[0] && k->l.len[p] >= 0) {
                gp__y_key (y, "lendingLimit");
                gp__k8s_y_qty (y, rn, gp__k8s_share (&k->r, k->c, p, r,
                                                     k->l.len[p]));
            }
            gp__y_map_end (y);
        }
        gp__y_seq_end (y);
        gp__y_map_end (y);
    }
    gp__y_seq_end (y);
    gp__y_map_end (y);
    gp__y_seq_end (y);
}

static void cluster_queue (struct gp__yaml *y, const struct kq *k,
                           const struct gp_team *t)
{
    char w[32];
    snprintf (w, sizeof w, "%.6g", t->weight > 0 ? t->weight : 1.0);
    doc_head (y, k, "ClusterQueue", t->name);
    gp__y_key (y, "spec");
    gp__y_map (y);
    if (t->cohort[0])
        gp__y_kstr (y, k->v1beta1 ? "cohort" : "cohortName", t->cohort);
    gp__y_key (y, "namespaceSelector");
    gp__y_map (y);
    gp__y_key (y, "matchLabels");
    gp__y_map (y);
    gp__y_kstr (y, "kubernetes.io/metadata.name", t->name);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_kstr (y, "queueingStrategy", "BestEffortFIFO");
    gp__y_key (y, "fairSharing");
    gp__y_map (y);
    gp__y_key (y, "weight");
    gp__y_qstr (y, w);
    gp__y_map_end (y);
    gp__y_key (y, "preemption");
    gp__y_map (y);
    gp__y_kstr (y, "reclaimWithinCohort", "Any");
    gp__y_kstr (y, "withinClusterQueue", "LowerPriority");
    gp__y_map_end (y);
    resource_groups (y, k, t);
    gp__y_map_end (y);
    doc_tail (y);
}

static void namespace_and_queue (struct gp__yaml *y, const struct kq *k,
                                 const struct gp_team *t)
{
    gp__y_doc_start (y);
    gp__y_map (y);
    gp__y_kstr (y, "apiVersion", "v1");
    gp__y_kstr (y, "kind", "Namespace");
    gp__y_key (y, "metadata");
    gp__y_map (y);
    gp__y_kstr (y, "name", t->name);
    gp__y_map_end (y);
    doc_tail (y);
    gp__y_doc_start (y);
    gp__y_map (y);
    gp__y_kstr (y, "apiVersion", k->api);
    gp__y_kstr (y, "kind", "LocalQueue");
    gp__y_key (y, "metadata");
    gp__y_map (y);
    gp__y_kstr (y, "name", t->name);
    gp__y_kstr (y, "namespace", t->name);
    gp__y_map_end (y);
    gp__y_key (y, "spec");
    gp__y_map (y);
    gp__y_kstr (y, "clusterQueue", t->name);
    gp__y_map_end (y);
    doc_tail (y);
}

static void header (struct sb *b, const struct kq *k)
{
    gp__sb_printf (b, "# Kueue %s objects for cluster '",
                   k->v1beta1 ? "v1beta1" : "v1beta2");
    gp__comment_text (b, k->c->name);
    gp__sb_printf (b, "', generated by gpuplan.\n# Label each node "
                      "gpuplan.io/pool=<pool>, gpuplan.io/block and "
                      "gpuplan.io/rack;\n# apply in file order; see "
                      "docs/formats/export-kueue.md.\n");
    if (!k->r.host) {
        gp__sb_printf (b, "# cpu and memory are not under quota: pool '");
        gp__comment_text (b, k->c->pools[k->r.no_host].name);
        gp__sb_printf (b, "' has no host size; merge kueue-config.yaml "
                          "into the Kueue configuration.\n");
    }
}

/* The Configuration fragment that keeps cpu and memory out of quota. */
static int config_file (const struct kq *k, struct gp_export *x)
{
    struct sb b = {0};
    struct gp__yaml y;
    gp__sb_printf (&b, "# Merge into controller_manager_config.yaml of "
                       "ConfigMap kueue-manager-config\n# (namespace "
                       "kueue-system), then restart the Kueue manager.\n");
    if (gp__y_open (&y, &b) == 0) {
        gp__y_doc_start (&y);
        gp__y_map (&y);
        gp__y_kstr (&y, "apiVersion", k->v1beta1
                                          ? "config.kueue.x-k8s.io/v1beta1"
                                          : "config.kueue.x-k8s.io/v1beta2");
        gp__y_kstr (&y, "kind", "Configuration");
        gp__y_key (&y, "resources");
        gp__y_map (&y);
        gp__y_key (&y, "excludeResourcePrefixes");
        gp__y_seq_flow (&y);
        gp__y_str (&y, "cpu");
        gp__y_str (&y, "memory");
        gp__y_seq_end (&y);
        gp__y_map_end (&y);
        doc_tail (&y);
    }
    if (gp__y_close (&y) != 0)
        b.oom = 1;
    return gp__export_add_file (x, "kueue-config.yaml", &b);
}

static int write_kueue (const struct gp_cluster *c,
                        const struct gp_export_opts *o, struct gp_export *x,
                        gp_error_t *err)
{
    struct kq k = {.c = c};
    k.v1beta1 = o->kueue_api == 1;
    k.api = k.v1beta1 ? "kueue.x-k8s.io/v1beta1" : "kueue.x-k8s.io/v1beta2";
    snprintf (k.topo, sizeof k.topo, "%s-topology", c->name);
    int rc = gp__k8s_res_build (&k.r, c, o->catalog, err);
    if (rc != 0)
        return rc;
    if (gp__limits_alloc (&k.l, c->n_pools) != 0) {
        rc = GP_ENOMEM;
        goto done;
    }
    struct gp_team fb;
    size_t nt;
    const struct gp_team *teams = gp__teams_of (c, &nt, &fb);
    struct sb b = {0};
    struct gp__yaml y;
    header (&b, &k);
    if (gp__y_open (&y, &b) != 0) {
        free (b.s);
        rc = GP_ENOMEM;
        goto done;
    }
    topology (&y, &k);
    flavors (&y, &k);
    priority_classes (&y, &k, teams, nt);
    for (size_t i = 0; rc == 0 && i < nt; i++) {
        rc = gp__k8s_team_limits (c, &teams[i], teams == &fb, &k.l, err);
        if (rc == 0) {
            cluster_queue (&y, &k, &teams[i]);
            namespace_and_queue (&y, &k, &teams[i]);
        }
    }
    if (gp__y_close (&y) != 0 && rc == 0)
        rc = GP_ENOMEM;
    if (rc != 0) {
        free (b.s);
        goto done;
    }
    if (gp__export_add_file (x, "kueue.yaml", &b) != 0
        || (!k.r.host && config_file (&k, x) != 0))
        rc = GP_ENOMEM;
done:
    gp__limits_free (&k.l);
    gp__k8s_res_free (&k.r);
    return rc;
}

const struct gp_export_target_ops gp__export_kueue = {
    .name = "kueue",
    .k8s_names = 1,
    .write = write_kueue,
};
