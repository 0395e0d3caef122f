/* export.c - orchestrator configuration from a cluster spec: Kueue and
 * Volcano manifests (YAML) and Slurm configuration files.
 *
 * The mapping (docs/formats/export.md) keeps gpuplan's tenant semantics:
 * a team's nominal GPU quota, borrowing and lending limits within a cohort,
 * fair-share weight and priority class become the closest native objects of
 * each engine.  Everything is emitted as text from the parsed spec; names
 * are checked against each engine's rules first, so a spec that would give
 * an invalid object fails with a message naming the field instead.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/export.h"

/* ============================ string builder =========================== */

struct sb {
    char *s;
    size_t len, cap;
    int oom;
};

static void sb_printf (struct sb *b, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

static void sb_printf (struct sb *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        size_t room = b->cap - b->len;
        va_list ap;
        va_start (ap, fmt);
        int n = b->s ? vsnprintf (b->s + b->len, room, fmt, ap) : -2;
        va_end (ap);
        if (n >= 0 && (size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        size_t need = b->len + (n > 0 ? (size_t)n : 0) + 1;
        size_t nc = b->cap ? 2 * b->cap : 4096;
        while (nc < need)
            nc *= 2;
        char *p = realloc (b->s, nc);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->s = p;
        b->cap = nc;
    }
}

/* ============================== helpers ================================ */

/* Kubernetes object names: DNS-1123 label (lowercase alphanumerics and
 * '-', starting and ending alphanumeric, at most 63 characters).
 */
static int k8s_name_ok (const char *s)
{
    size_t n = strlen (s);
    if (n == 0 || n > 63)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!(islower ((unsigned char)c) || isdigit ((unsigned char)c)
              || c == '-'))
            return 0;
    }
    return s[0] != '-' && s[n - 1] != '-';
}

/* Slurm node, partition, account and QOS names: letters, digits, '-', '_'. */
static int slurm_name_ok (const char *s)
{
    if (!*s)
        return 0;
    for (const char *p = s; *p; p++)
        if (!(isalnum ((unsigned char)*p) || *p == '-' || *p == '_'))
            return 0;
    return 1;
}

/* The Kubernetes extended resource of an accelerator, by vendor (device
 * plugins: NVIDIA k8s-device-plugin, AMD k8s-device-plugin, AWS Neuron
 * device plugin, GKE TPU, Intel Gaudi device plugin).
 */
static const char *k8s_resource (const struct gp_accel *a)
{
    if (!strcmp (a->vendor, "AMD"))
        return "amd.com/gpu";
    if (!strcmp (a->vendor, "AWS"))
        return "aws.amazon.com/neuron";
    if (!strcmp (a->vendor, "Google"))
        return "google.com/tpu";
    if (!strcmp (a->vendor, "Intel"))
        return "habana.ai/gaudi";
    return "nvidia.com/gpu";
}

static long long pool_gpus (const struct gp_pool *p)
{
    return (long long)p->gpus_per_node * p->nodes;
}

static long long cluster_gpus (const struct gp_cluster *c)
{
    long long n = 0;
    for (size_t i = 0; i < c->n_pools; i++)
        n += pool_gpus (&c->pools[i]);
    return n;
}

/* Split 'total' over the pools in proportion to 'w' (largest remainder,
 * ties to the earlier pool), so that the parts sum to 'total'.  With all
 * weights zero, the pools' GPU counts are the weights.
 */
static void split (const struct gp_cluster *c, long long total,
                   const long long *w, long long *out)
{
    long long all = 0;
    for (size_t i = 0; i < c->n_pools; i++)
        all += w ? w[i] : 0;
    int by_size = all <= 0;
    if (by_size)
        all = cluster_gpus (c);
    long long given = 0;
    double *rem = calloc (c->n_pools, sizeof *rem);
    for (size_t i = 0; i < c->n_pools; i++) {
        long long wi = by_size ? pool_gpus (&c->pools[i]) : w[i];
        double exact = all > 0 ? (double)total * (double)wi / (double)all
                               : 0.0;
        out[i] = (long long)floor (exact);
        if (rem)
            rem[i] = exact - (double)out[i];
        given += out[i];
    }
    while (rem && given < total) {
        size_t best = 0;
        for (size_t i = 1; i < c->n_pools; i++)
            if (rem[i] > rem[best])
                best = i;
        out[best]++;
        rem[best] = -1.0;
        given++;
    }
    free (rem);
}

/* Per-pool quota arrays of one team, reused across teams. */
struct limits {
    long long *nom;  /* nominal quota per pool */
    long long *bor;  /* borrowing limit per pool, -1 = none */
    long long *len;  /* lending limit per pool, -1 = none */
};

static int limits_alloc (struct limits *l, size_t n)
{
    l->nom = calloc (n, sizeof *l->nom);
    l->bor = calloc (n, sizeof *l->bor);
    l->len = calloc (n, sizeof *l->len);
    return l->nom && l->bor && l->len ? 0 : -1;
}

static void limits_free (struct limits *l)
{
    free (l->nom);
    free (l->bor);
    free (l->len);
}

/* The most GPUs team 't' may hold in pool 'i': quota plus borrowing limit
 * in a cohort (the whole pool without a limit), the quota alone outside
 * one, never more than the pool.
 */
static long long pool_cap (const struct gp_cluster *c,
                           const struct gp_team *t, const struct limits *l,
                           size_t i)
{
    long long pool = pool_gpus (&c->pools[i]);
    long long most = t->cohort[0]
                         ? (l->bor[i] >= 0 ? l->nom[i] + l->bor[i] : pool)
                         : l->nom[i];
    return most < pool ? most : pool;
}

/* Per-pool nominal quota, borrowing and lending limits of team 't'.
 * -1 in borrow/lend means "no limit" (the field is omitted).
 */
static void team_limits (const struct gp_cluster *c, const struct gp_team *t,
                         long long *nominal, long long *borrow,
                         long long *lend)
{
    /* A per-pool quota map: the simulator's own view, so that what is
     * exported is what was simulated.
     */
    if (c->teams && t >= c->teams && t < c->teams + c->n_teams
        && gp_cluster_team_pool_limits (c, (size_t)(t - c->teams), nominal,
                                        borrow, lend))
        return;
    /* A total (or no) quota: split over the pools by size; limits follow
     * the team's quota split.
     */
    if (t->quota_gpus >= 0) {
        split (c, t->quota_gpus, NULL, nominal);
    } else {
        /* No quota: the team may use the whole pool (gpuplan semantics). */
        for (size_t i = 0; i < c->n_pools; i++)
            nominal[i] = pool_gpus (&c->pools[i]);
    }
    if (t->borrowing_limit >= 0)
        split (c, t->borrowing_limit, nominal, borrow);
    else
        for (size_t i = 0; i < c->n_pools; i++)
            borrow[i] = -1;
    if (t->lending_limit >= 0) {
        split (c, t->lending_limit, nominal, lend);
        for (size_t i = 0; i < c->n_pools; i++)
            if (lend[i] > nominal[i])
                lend[i] = nominal[i];
    } else {
        for (size_t i = 0; i < c->n_pools; i++)
            lend[i] = -1;
    }
}

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

static void lower_copy (char *dst, size_t size, const char *src)
{
    size_t i = 0;
    for (; src[i] && i + 1 < size; i++)
        dst[i] = (char)tolower ((unsigned char)src[i]);
    dst[i] = '\0';
}

static void weight_str (char *buf, size_t size, double w)
{
    snprintf (buf, size, "%.6g", w);
}

/* Whether pool 'i' is the first pool whose accelerators are extended
 * resource 'res' (one Kueue resource group / Volcano key per resource).
 */
static int first_of_resource (const struct gp_cluster *c, size_t i,
                              const char *res)
{
    for (size_t k = 0; k < i; k++)
        if (!strcmp (k8s_resource (c->pools[k].accel), res))
            return 0;
    return 1;
}

/* ============================== checks ================================= */

static int check_names (const struct gp_cluster *c, int k8s, gp_error_t *err)
{
    for (size_t i = 0; i < c->n_pools; i++) {
        const char *n = c->pools[i].name;
        if (k8s ? !k8s_name_ok (n) : !slurm_name_ok (n))
            return gp_errprintf (err, GP_EINVAL,
                                 "pools[%zu].name '%s' is not a valid %s "
                                 "name (%s)",
                                 i, n, k8s ? "Kubernetes" : "Slurm",
                                 k8s ? "lowercase letters, digits and '-', "
                                       "at most 63"
                                     : "letters, digits, '-' and '_'");
    }
    for (size_t i = 0; i < c->n_teams; i++) {
        const struct gp_team *t = &c->teams[i];
        if (k8s ? !k8s_name_ok (t->name) : !slurm_name_ok (t->name))
            return gp_errprintf (err, GP_EINVAL,
                                 "teams[%zu].name '%s' is not a valid %s "
                                 "name",
                                 i, t->name, k8s ? "Kubernetes" : "Slurm");
        if (k8s && t->cohort[0] && !k8s_name_ok (t->cohort))
            return gp_errprintf (err, GP_EINVAL,
                                 "teams[%zu].cohort '%s' is not a valid "
                                 "Kubernetes name",
                                 i, t->cohort);
        if (k8s && t->weight > 0 && t->weight < 1e-9)
            return gp_errprintf (err, GP_EINVAL,
                                 "teams[%zu].weight must be above 1e-9", i);
    }
    return 0;
}

/* A team list to export: the spec's teams, or one "default" team with no
 * quota when the spec names none.
 */
static const struct gp_team *teams_of (const struct gp_cluster *c, size_t *n,
                                       struct gp_team *fallback)
{
    if (c->n_teams > 0) {
        *n = c->n_teams;
        return c->teams;
    }
    memset (fallback, 0, sizeof *fallback);
    snprintf (fallback->name, sizeof fallback->name, "default");
    fallback->weight = 1.0;
    fallback->quota_gpus = -1;
    fallback->borrowing_limit = -1;
    fallback->lending_limit = -1;
    *n = 1;
    return fallback;
}

/* =============================== Kueue ================================= */

static void kueue (const struct gp_cluster *c, struct sb *b)
{
    struct gp_team fb;
    size_t nt;
    const struct gp_team *teams = teams_of (c, &nt, &fb);
    struct limits l;
    if (limits_alloc (&l, c->n_pools) != 0) {
        b->oom = 1;
        goto done;
    }
    long long *nom = l.nom, *bor = l.bor, *len = l.len;
    sb_printf (b, "# Kueue configuration for cluster '%s', generated by "
                  "gpuplan.\n# Label each node with gpuplan.io/pool=<pool "
                  "name>; see docs/formats/export.md.\n",
               c->name);
    for (size_t i = 0; i < c->n_pools; i++) {
        const struct gp_pool *p = &c->pools[i];
        sb_printf (b,
                   "---\napiVersion: kueue.x-k8s.io/v1beta2\n"
                   "kind: ResourceFlavor\nmetadata:\n  name: %s\n"
                   "spec:\n  nodeLabels:\n    gpuplan.io/pool: %s\n",
                   p->name, p->name);
    }
    /* One WorkloadPriorityClass per distinct team priority. */
    for (size_t i = 0; i < nt; i++) {
        int seen = 0;
        for (size_t k = 0; k < i; k++)
            seen |= teams[k].priority == teams[i].priority;
        if (seen || teams[i].priority == 0)
            continue;
        int pr = teams[i].priority;
        sb_printf (b,
                   "---\napiVersion: kueue.x-k8s.io/v1beta2\n"
                   "kind: WorkloadPriorityClass\nmetadata:\n"
                   "  name: priority-%s%d\nvalue: %d\n"
                   "description: priority class %d of the gpuplan spec\n",
                   pr < 0 ? "m" : "", pr < 0 ? -pr : pr, pr, pr);
    }
    for (size_t ti = 0; ti < nt; ti++) {
        const struct gp_team *t = &teams[ti];
        team_limits (c, t, nom, bor, len);
        char w[32];
        weight_str (w, sizeof w, t->weight > 0 ? t->weight : 1.0);
        sb_printf (b,
                   "---\napiVersion: kueue.x-k8s.io/v1beta2\n"
                   "kind: ClusterQueue\nmetadata:\n  name: %s\nspec:\n",
                   t->name);
        if (t->cohort[0])
            sb_printf (b, "  cohortName: %s\n", t->cohort);
        sb_printf (b,
                   "  namespaceSelector:\n    matchLabels:\n"
                   "      kubernetes.io/metadata.name: %s\n"
                   "  queueingStrategy: BestEffortFIFO\n"
                   "  fairSharing:\n    weight: \"%s\"\n"
                   "  preemption:\n    reclaimWithinCohort: Any\n"
                   "    withinClusterQueue: LowerPriority\n"
                   "  resourceGroups:\n",
                   t->name, w);
        /* One resource group per extended resource name. */
        for (size_t i = 0; i < c->n_pools; i++) {
            const char *res = k8s_resource (c->pools[i].accel);
            if (!first_of_resource (c, i, res))
                continue;
            sb_printf (b, "    - coveredResources: [\"%s\"]\n      flavors:\n",
                       res);
            for (size_t k = i; k < c->n_pools; k++) {
                if (strcmp (k8s_resource (c->pools[k].accel), res))
                    continue;
                sb_printf (b,
                           "        - name: %s\n          resources:\n"
                           "            - name: \"%s\"\n"
                           "              nominalQuota: %lld\n",
                           c->pools[k].name, res, nom[k]);
                if (t->cohort[0] && bor[k] >= 0)
                    sb_printf (b, "              borrowingLimit: %lld\n",
                               bor[k]);
                if (t->cohort[0] && len[k] >= 0)
                    sb_printf (b, "              lendingLimit: %lld\n", len[k]);
            }
        }
        sb_printf (b,
                   "---\napiVersion: v1\nkind: Namespace\nmetadata:\n"
                   "  name: %s\n"
                   "---\napiVersion: kueue.x-k8s.io/v1beta2\n"
                   "kind: LocalQueue\nmetadata:\n  name: %s\n"
                   "  namespace: %s\nspec:\n  clusterQueue: %s\n",
                   t->name, t->name, t->name, t->name);
    }
done:
    limits_free (&l);
}

/* ============================== Volcano ================================ */

static void volcano (const struct gp_cluster *c, struct sb *b)
{
    struct gp_team fb;
    size_t nt;
    const struct gp_team *teams = teams_of (c, &nt, &fb);
    struct limits l;
    if (limits_alloc (&l, c->n_pools) != 0) {
        b->oom = 1;
        goto done;
    }
    long long *nom = l.nom, *bor = l.bor, *len = l.len;
    /* Volcano weights are integers 1..65535: scale all weights by the same
     * factor so that their ratios survive rounding.
     */
    double scale = 1.0;
    for (size_t i = 0; i < nt; i++) {
        double w = teams[i].weight > 0 ? teams[i].weight : 1.0;
        if (fabs (w - round (w)) > 1e-9)
            scale = 100.0;
    }
    sb_printf (b, "# Volcano queues for cluster '%s', generated by gpuplan "
                  "(capacity plugin: deserved = quota,\n# capability = quota "
                  "+ borrowing limit; cohorts become parent queues).\n",
               c->name);
    for (size_t i = 0; i < nt; i++) {
        if (!teams[i].cohort[0])
            continue;
        int seen = 0;
        for (size_t k = 0; k < i; k++)
            seen |= !strcmp (teams[k].cohort, teams[i].cohort);
        if (seen)
            continue;
        sb_printf (b,
                   "---\napiVersion: scheduling.volcano.sh/v1beta1\n"
                   "kind: Queue\nmetadata:\n  name: %s\nspec:\n"
                   "  weight: 1\n  reclaimable: true\n",
                   teams[i].cohort);
    }
    for (size_t ti = 0; ti < nt; ti++) {
        const struct gp_team *t = &teams[ti];
        team_limits (c, t, nom, bor, len);
        double w = (t->weight > 0 ? t->weight : 1.0) * scale;
        long long wi = (long long)llround (w);
        if (wi < 1)
            wi = 1;
        if (wi > 65535)
            wi = 65535;
        sb_printf (b,
                   "---\napiVersion: scheduling.volcano.sh/v1beta1\n"
                   "kind: Queue\nmetadata:\n  name: %s\nspec:\n"
                   "  weight: %lld\n  reclaimable: %s\n",
                   t->name, wi, t->lending_limit == 0 ? "false" : "true");
        if (t->cohort[0])
            sb_printf (b, "  parent: %s\n", t->cohort);
        if (t->priority)
            sb_printf (b, "  priority: %d\n", t->priority);
        /* Sum per resource name. */
        for (int pass = 0; pass < 2; pass++) {
            sb_printf (b, "  %s:\n", pass == 0 ? "deserved" : "capability");
            for (size_t i = 0; i < c->n_pools; i++) {
                const char *res = k8s_resource (c->pools[i].accel);
                if (!first_of_resource (c, i, res))
                    continue;
                long long sum = 0, cap = 0;
                for (size_t k = i; k < c->n_pools; k++) {
                    if (strcmp (k8s_resource (c->pools[k].accel), res))
                        continue;
                    sum += nom[k];
                    cap += pool_cap (c, t, &l, k);
                }
                sb_printf (b, "    %s: %lld\n", res, pass == 0 ? sum : cap);
            }
        }
    }
done:
    limits_free (&l);
}

/* =============================== Slurm ================================= */

static void slurm_conf (const struct gp_cluster *c, struct sb *b)
{
    sb_printf (b,
               "# slurm.conf fragment for cluster '%s', generated by gpuplan.\n"
               "# Merge into slurm.conf; see docs/formats/export.md.\n"
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
               "AccountingStorageTRES=gres/gpu\n"
               "AccountingStorageEnforce=associations,limits,qos\n"
               "PreemptType=preempt/qos\n"
               "PreemptMode=REQUEUE\n",
               c->name, c->name);
    for (size_t i = 0; i < c->n_pools; i++) {
        const struct gp_pool *p = &c->pools[i];
        char hl[160], type[GP_NAME_MAX];
        hostlist (hl, sizeof hl, p->name, 1, p->nodes, digits (p->nodes));
        lower_copy (type, sizeof type, p->accel->id);
        sb_printf (b, "NodeName=%s Gres=gpu:%s:%d", hl, type,
                   p->gpus_per_node);
        if (p->cpus_per_node > 0)
            sb_printf (b, " CPUs=%d", p->cpus_per_node);
        if (p->host_mem_bytes > 0)
            sb_printf (b, " RealMemory=%.0f",
                       floor (p->host_mem_bytes / 1048576.0));
        sb_printf (b, " State=UNKNOWN\n");
    }
    for (size_t i = 0; i < c->n_pools; i++) {
        const struct gp_pool *p = &c->pools[i];
        char hl[160];
        hostlist (hl, sizeof hl, p->name, 1, p->nodes, digits (p->nodes));
        sb_printf (b,
                   "PartitionName=%s Nodes=%s Default=%s MaxTime=INFINITE "
                   "State=UP OverSubscribe=NO\n",
                   p->name, hl, i == 0 ? "YES" : "NO");
    }
}

static void gres_conf (const struct gp_cluster *c, struct sb *b)
{
    sb_printf (b, "# gres.conf for cluster '%s', generated by gpuplan.\n",
               c->name);
    for (size_t i = 0; i < c->n_pools; i++) {
        const struct gp_pool *p = &c->pools[i];
        char hl[160], type[GP_NAME_MAX];
        hostlist (hl, sizeof hl, p->name, 1, p->nodes, digits (p->nodes));
        lower_copy (type, sizeof type, p->accel->id);
        int n = p->gpus_per_node;
        if (!strcmp (p->accel->vendor, "NVIDIA"))
            sb_printf (b, "NodeName=%s Name=gpu Type=%s File=/dev/nvidia%s%d%s\n",
                       hl, type, n > 1 ? "[0-" : "", n - 1, n > 1 ? "]" : "");
        else if (!strcmp (p->accel->vendor, "AMD"))
            sb_printf (b,
                       "NodeName=%s Name=gpu Type=%s "
                       "File=/dev/dri/renderD%s%d%s\n",
                       hl, type, n > 1 ? "[128-" : "", 128 + n - 1,
                       n > 1 ? "]" : "");
        else
            sb_printf (b, "NodeName=%s Name=gpu Type=%s Count=%d\n", hl, type,
                       n);
    }
}

/* One leaf switch per rack (nodes_per_rack) or, when racks are not given,
 * per 32 nodes (half the ports of a 64-port leaf facing nodes); one spine
 * over all leaves.
 */
static void topology_conf (const struct gp_cluster *c, struct sb *b)
{
    sb_printf (b, "# topology.conf (topology/tree) for cluster '%s', "
                  "generated by gpuplan.\n",
               c->name);
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
            sb_printf (b, "SwitchName=%s-leaf%02d Nodes=%s\n", p->name, l + 1,
                       hl);
        }
        char range[160];
        if (n_leaf == 1)
            snprintf (range, sizeof range, "%s-leaf01", p->name);
        else
            snprintf (range, sizeof range, "%s-leaf[01-%02d]", p->name,
                      n_leaf);
        sb_printf (&leaves, "%s%s", i ? "," : "", range);
    }
    sb_printf (b, "SwitchName=spine Switches=%s\n",
               leaves.s ? leaves.s : "");
    if (leaves.oom)
        b->oom = 1;
    free (leaves.s);
}

static void sacctmgr (const struct gp_cluster *c, struct sb *b)
{
    struct gp_team fb;
    size_t nt;
    const struct gp_team *teams = teams_of (c, &nt, &fb);
    struct limits l;
    if (limits_alloc (&l, c->n_pools) != 0) {
        b->oom = 1;
        goto done;
    }
    long long *nom = l.nom, *bor = l.bor, *len = l.len;
    sb_printf (b,
               "#!/bin/sh\n# Accounts and QOS for cluster '%s', generated by "
               "gpuplan.\n# A team's QOS caps its GPUs at quota + borrowing "
               "limit (GrpTRES);\n# Fairshare carries its weight.\nset -e\n",
               c->name);
    for (size_t ti = 0; ti < nt; ti++) {
        const struct gp_team *t = &teams[ti];
        team_limits (c, t, nom, bor, len);
        long long cap = 0;
        for (size_t i = 0; i < c->n_pools; i++)
            cap += pool_cap (c, t, &l, i);
        double w = t->weight > 0 ? t->weight : 1.0;
        long long fs = (long long)llround (w * 100.0);
        if (fs < 1)
            fs = 1;
        sb_printf (b,
                   "sacctmgr -i add qos %s GrpTRES=gres/gpu=%lld Priority=%d\n"
                   "sacctmgr -i add account %s Fairshare=%lld QOS=%s "
                   "DefaultQOS=%s\n",
                   t->name, cap, t->priority < 0 ? 0 : t->priority, t->name,
                   fs, t->name, t->name);
    }
done:
    limits_free (&l);
}

/* ============================= Prometheus ============================== */

/* XID codes that need an operator (NVIDIA "XID Errors" catalogue): 48
 * double-bit ECC, 63/64 row remapping events and failures, 74 NVLink
 * error, 79 GPU fallen off the bus, 92 high single-bit ECC rate, 94/95
 * contained/uncontained ECC errors.
 */
static const char xid_critical[] = "48|63|64|74|79|92|94|95";

/* Rules over the DCGM exporter's metrics (DCGM_FI_DEV_GPU_UTIL,
 * DCGM_FI_DEV_POWER_USAGE, DCGM_FI_DEV_XID_ERRORS, with its Hostname and
 * Kubernetes namespace labels).  Nodes are matched to pools by host name,
 * "<pool>-<number>" as 'gpuplan export slurm' names them.
 */
static void prometheus (const struct gp_cluster *c, struct sb *b)
{
    const struct gp_team *teams = c->teams; /* no default team here */
    struct limits l;
    if (limits_alloc (&l, c->n_pools) != 0) {
        b->oom = 1;
        goto done;
    }
    sb_printf (b,
               "# Prometheus rules for cluster '%s', generated by gpuplan.\n"
               "# Inputs: DCGM exporter metrics; nodes named <pool>-<number>.\n"
               "# Check with: promtool check rules <this file>\n"
               "groups:\n"
               "  - name: gpuplan-%s-capacity\n"
               "    rules:\n",
               c->name, c->name);
    for (size_t i = 0; i < c->n_pools; i++) {
        const struct gp_pool *p = &c->pools[i];
        if (strcmp (p->accel->vendor, "NVIDIA") != 0) {
            sb_printf (b, "      # pool %s (%s): no DCGM metrics; use the "
                          "vendor's exporter\n",
                       p->name, p->accel->vendor);
            continue;
        }
        char sel[GP_NAME_MAX + 32];
        snprintf (sel, sizeof sel, "Hostname=~\"%s-[0-9]+\"", p->name);
        sb_printf (b,
                   "      - record: gpuplan:pool_gpu_util:avg\n"
                   "        expr: avg(DCGM_FI_DEV_GPU_UTIL{%s})\n"
                   "        labels:\n          pool: %s\n"
                   "      - record: gpuplan:pool_gpus_reporting:count\n"
                   "        expr: count(DCGM_FI_DEV_GPU_UTIL{%s})\n"
                   "        labels:\n          pool: %s\n"
                   "      - record: gpuplan:pool_power_watts:sum\n"
                   "        expr: sum(DCGM_FI_DEV_POWER_USAGE{%s})\n"
                   "        labels:\n          pool: %s\n",
                   sel, p->name, sel, p->name, sel, p->name);
    }
    sb_printf (b, "  - name: gpuplan-%s-alerts\n    rules:\n", c->name);
    for (size_t i = 0; i < c->n_pools; i++) {
        const struct gp_pool *p = &c->pools[i];
        if (strcmp (p->accel->vendor, "NVIDIA") != 0)
            continue;
        long long planned = pool_gpus (p);
        sb_printf (b,
                   "      - alert: GpuplanGPUsMissing\n"
                   "        expr: absent(gpuplan:pool_gpus_reporting:count"
                   "{pool=\"%s\"}) or gpuplan:pool_gpus_reporting:count"
                   "{pool=\"%s\"} < %lld\n"
                   "        for: 15m\n"
                   "        labels:\n          severity: warning\n"
                   "          pool: %s\n"
                   "        annotations:\n"
                   "          summary: \"Pool %s reports fewer GPUs than the "
                   "%lld planned\"\n",
                   p->name, p->name, planned, p->name, p->name, planned);
        sb_printf (b,
                   "      - alert: GpuplanPoolSaturated\n"
                   "        expr: gpuplan:pool_gpu_util:avg{pool=\"%s\"} > 90\n"
                   "        for: 24h\n"
                   "        labels:\n          severity: info\n"
                   "          pool: %s\n"
                   "        annotations:\n"
                   "          summary: \"Pool %s above 90%% GPU utilization for "
                   "a day: queues grow; re-run the plan with the observed "
                   "demand\"\n"
                   "      - alert: GpuplanPoolUnderused\n"
                   "        expr: avg_over_time(gpuplan:pool_gpu_util:avg"
                   "{pool=\"%s\"}[7d]) < 30\n"
                   "        for: 1h\n"
                   "        labels:\n          severity: info\n"
                   "          pool: %s\n"
                   "        annotations:\n"
                   "          summary: \"Pool %s below 30%% GPU utilization "
                   "over a week: capacity or quotas exceed the demand\"\n",
                   p->name, p->name, p->name, p->name, p->name, p->name);
    }
    sb_printf (b, "      - alert: GpuplanGPUXidCritical\n        expr: ");
    const char *x = xid_critical;
    for (int first = 1; *x; first = 0) {
        size_t n = strcspn (x, "|");
        sb_printf (b, "%sDCGM_FI_DEV_XID_ERRORS == %.*s", first ? "" : " or ",
                   (int)n, x);
        x += n + (x[n] == '|');
    }
    sb_printf (b,
               "\n        labels:\n          severity: critical\n"
               "        annotations:\n"
               "          summary: \"GPU {{ $labels.gpu }} on {{ "
               "$labels.Hostname }} reported XID {{ $value }}: drain the "
               "node\"\n");
    for (size_t ti = 0; ti < c->n_teams; ti++) {
        const struct gp_team *t = &teams[ti];
        team_limits (c, t, l.nom, l.bor, l.len);
        long long cap = 0;
        for (size_t i = 0; i < c->n_pools; i++)
            cap += pool_cap (c, t, &l, i);
        sb_printf (b,
                   "      - alert: GpuplanTeamOverQuota\n"
                   "        expr: count(DCGM_FI_DEV_GPU_UTIL{namespace=\"%s\"}) "
                   "> %lld\n"
                   "        for: 30m\n"
                   "        labels:\n          severity: warning\n"
                   "          team: %s\n"
                   "        annotations:\n"
                   "          summary: \"Team %s holds more GPUs than its quota "
                   "plus borrowing limit (%lld)\"\n",
                   t->name, cap, t->name, t->name, cap);
    }
done:
    limits_free (&l);
}

/* ============================== public ================================= */

int gp_export_target_parse (const char *s, enum gp_export_target *t,
                            gp_error_t *err)
{
    if (!s || !t)
        return gp_errprintf (err, GP_EINVAL, "export target: NULL argument");
    if (!strcmp (s, "kueue"))
        *t = GP_EXPORT_KUEUE;
    else if (!strcmp (s, "volcano"))
        *t = GP_EXPORT_VOLCANO;
    else if (!strcmp (s, "slurm"))
        *t = GP_EXPORT_SLURM;
    else if (!strcmp (s, "prometheus"))
        *t = GP_EXPORT_PROMETHEUS;
    else
        return gp_errprintf (err, GP_ENOTFOUND,
                             "unknown export target '%s'; expected kueue, "
                             "volcano, slurm or prometheus",
                             s);
    return 0;
}

void gp_export_destroy (struct gp_export *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < x->n_files; i++)
        free (x->files[i].text);
    free (x);
}

static int add_file (struct gp_export *x, const char *name, struct sb *b)
{
    if (b->oom || !b->s || x->n_files >= GP_EXPORT_MAX_FILES) {
        free (b->s);
        return -1;
    }
    struct gp_export_file *f = &x->files[x->n_files++];
    snprintf (f->name, sizeof f->name, "%s", name);
    f->text = b->s;
    return 0;
}

struct gp_export *gp_export_render (const struct gp_cluster *c,
                                    enum gp_export_target t,
                                    gp_error_t *err)
{
    if (!c || c->n_pools == 0) {
        gp_errprintf (err, GP_EINVAL, "export: empty cluster");
        return NULL;
    }
    /* Prometheus label values take any name; pool names still go into
     * host-name regexes, so hold them to the Slurm rule. */
    if (check_names (c, t == GP_EXPORT_KUEUE || t == GP_EXPORT_VOLCANO, err)
        != 0)
        return NULL;
    struct gp_export *x = calloc (1, sizeof *x);
    if (!x) {
        gp_errprintf (err, GP_ENOMEM, "out of memory");
        return NULL;
    }
    int rc = 0;
    switch (t) {
    case GP_EXPORT_KUEUE: {
        struct sb b = {0};
        kueue (c, &b);
        rc |= add_file (x, "kueue.yaml", &b);
        break;
    }
    case GP_EXPORT_VOLCANO: {
        struct sb b = {0};
        volcano (c, &b);
        rc |= add_file (x, "volcano.yaml", &b);
        break;
    }
    case GP_EXPORT_PROMETHEUS: {
        struct sb b = {0};
        prometheus (c, &b);
        rc |= add_file (x, "gpuplan-rules.yml", &b);
        break;
    }
    case GP_EXPORT_SLURM: {
        struct sb b1 = {0}, b2 = {0}, b3 = {0}, b4 = {0};
        slurm_conf (c, &b1);
        gres_conf (c, &b2);
        topology_conf (c, &b3);
        sacctmgr (c, &b4);
        rc |= add_file (x, "slurm.conf", &b1);
        rc |= add_file (x, "gres.conf", &b2);
        rc |= add_file (x, "topology.conf", &b3);
        rc |= add_file (x, "accounts.sh", &b4);
        break;
    }
    }
    if (rc) {
        gp_export_destroy (x);
        gp_errprintf (err, GP_ENOMEM, "out of memory");
        return NULL;
    }
    return x;
}
