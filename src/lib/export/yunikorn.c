/* yunikorn.c - the yunikorn export target (docs/formats/export-yunikorn.md):
 * the `yunikorn-configs` ConfigMap of Apache YuniKorn (1.9) whose
 * `queues.yaml` key holds the partition and queue hierarchy: root (no
 * resources) -> one parent queue per cohort -> a leaf queue per team.
 *
 * A leaf's `resources.guaranteed` is the team's quota and `resources.max`
 * what its cohort lets it hold (gp__pool_cap: the caps rule the Kueue,
 * Volcano and Slurm targets use), over the GPU (or MIG) resources of
 * gp_pool_k8s_resources and vcore/memory when every pool's host is known.
 * A cohort's parent queue guarantees the sum of its members' quotas and
 * caps them at what they hold together, so nothing is borrowed across
 * cohorts.  The application sort and preemption properties follow the
 * scheduling policy the plan simulated (fair-share for a cluster spec):
 *
 *   policy          leaf sort  sort.priority  preemption  queue properties
 *   fifo, fifo-     fifo       disabled       off         -
 *     backfill
 *   priority        fifo       enabled        on          priority.offset =
 *                                                         team priority
 *   fair-share      fifo       disabled       on          cohorts fenced
 *
 * las and srtf order jobs by attained or remaining service, which YuniKorn
 * cannot express: the target does not apply (no file, the reason in
 * x->not_applicable).  YuniKorn falls back silently on a bad
 * property value, so every value written here is one of its documented
 * constants (and tests/export/rules_yunikorn.py checks them).
 *
 * The inner queues.yaml and the ConfigMap are both written by libyaml's
 * emitter (quote.h); the inner text is a literal block scalar.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/plan.h"
#include "k8s.h"

/* How the simulated policy maps onto YuniKorn. */
struct yk_policy {
    const char *name;      /* gpuplan's policy */
    int sort_priority;     /* application.sort.priority enabled */
    int preempt;           /* partition preemption enabled */
    int offsets;           /* priority.offset = team priority */
    int fence_cohorts;     /* preemption.policy: fence on cohort queues */
};

static const struct yk_policy policies[] = {
    {"fifo", 0, 0, 0, 0},
    {"fifo-backfill", 0, 0, 0, 0},
    {"priority", 1, 1, 1, 0},
    {"fair-share", 0, 1, 0, 1},
};

struct yk {
    const struct gp_cluster *c;
    const struct gp_team *teams;
    size_t nt;
    int fallback;
    const struct yk_policy *pol;
    int from_plan;
    struct gp__k8s_res r;
    struct limits l;
    long long *gua, *max; /* per team and resource: [t * GP__K8S_RES_MAX + r] */
    long long *nom;       /* nominal GPUs per team and pool: [t * n_pools + p] */
};

/* The policy of the plan (fair-share, the plan's default, for a cluster
 * spec or a plan that names none); NULL for a policy YuniKorn cannot
 * express, with the reason in 'why'. */
static const struct yk_policy *policy_of (const struct gp_export_opts *o,
                                          int *from_plan, char *why,
                                          size_t n)
{
    const char *want = "fair-share";
    *from_plan = o->plan && o->plan->spec;
    if (*from_plan && o->plan->spec->policy[0])
        want = o->plan->spec->policy;
    for (size_t i = 0; i < sizeof policies / sizeof *policies; i++)
        if (!strcmp (policies[i].name, want))
            return &policies[i];
    snprintf (why, n, "the plan's policy '%s' has no YuniKorn equivalent "
                      "(YuniKorn sorts applications fifo or fair, "
                      "optionally by priority); plan with fifo, "
                      "fifo-backfill, priority or fair-share",
              want);
    return NULL;
}

/* Names YuniKorn cannot take: its root queue, and a cohort that is also
 * a team (both would be children of root with one name). */
static int check_names (const struct yk *k, gp_error_t *err)
{
    for (size_t i = 0; i < k->nt; i++) {
        const struct gp_team *t = &k->teams[i];
        if (!strcmp (t->name, "root"))
            return gp_errprintf (err, GP_EINVAL, "teams[%zu].name 'root' "
                                 "is YuniKorn's root queue", i);
        if (!strcmp (t->cohort, "root"))
            return gp_errprintf (err, GP_EINVAL, "teams[%zu].cohort 'root' "
                                 "is YuniKorn's root queue", i);
        for (size_t j = 0; t->cohort[0] && j < k->nt; j++)
            if (!strcmp (k->teams[j].name, t->cohort))
                return gp_errprintf (err, GP_EINVAL,
                                     "teams[%zu].cohort '%s' is also a "
                                     "team: YuniKorn would see two queues "
                                     "root.%s", i, t->cohort, t->cohort);
    }
    return 0;
}

/* What the members of the cohort of team 't' hold in pool 'p' (their
 * quotas); 'nom' must be filled for every team. */
static long long cohort_held (const struct yk *k, size_t t, size_t p)
{
    size_t np = k->c->n_pools;
    long long held = 0;
    for (size_t u = 0; u < k->nt; u++)
        if (!strcmp (k->teams[u].cohort, k->teams[t].cohort))
            held += k->nom[u * np + p];
    return held;
}

/* Guaranteed (quota) and max (caps) of every team, per resource.  The
 * max is gp__pool_cap(), at most what the team's cohort holds in the pool
 * (a quota-less member lends nothing; the same bound as Volcano's). */
static int team_amounts (struct yk *k, gp_error_t *err)
{
    size_t np = k->c->n_pools;
    long long *cap = calloc (k->nt * np, sizeof *cap);
    if (!cap)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    int rc = 0;
    for (size_t t = 0; rc == 0 && t < k->nt; t++) {
        rc = gp__k8s_team_limits (k->c, &k->teams[t], k->fallback, &k->l,
                                  err);
        for (size_t p = 0; rc == 0 && p < np; p++) {
            cap[t * np + p] = gp__pool_cap (k->c, &k->teams[t], &k->l, p);
            k->nom[t * np + p] = k->l.nom[p];
        }
    }
    for (size_t t = 0; rc == 0 && t < k->nt; t++)
        for (size_t p = 0; p < np; p++) {
            long long most = cap[t * np + p];
            if (k->teams[t].cohort[0] && most > cohort_held (k, t, p))
                most = cohort_held (k, t, p);
            for (size_t r = 0; r < k->r.n; r++) {
                size_t at = t * GP__K8S_RES_MAX + r;
                k->gua[at] += gp__k8s_share (&k->r, k->c, p, r,
                                             k->nom[t * np + p]);
                k->max[at] += gp__k8s_share (&k->r, k->c, p, r, most);
            }
        }
    free (cap);
    return rc;
}

/* YuniKorn's name of resource 'r': a pod's cpu is its vcore. */
static const char *yk_name (const struct yk *k, size_t r)
{
    return strcmp (k->r.name[r], "cpu") ? k->r.name[r] : "vcore";
}

/* A resource map; with 'skip_zero' only the resources above 0. */
static void resource_map (struct gp__yaml *y, const struct yk *k,
                          const char *key, const long long *amount,
                          int skip_zero)
{
    gp__y_key (y, key);
    gp__y_map (y);
    for (size_t r = 0; r < k->r.n; r++) {
        if (skip_zero && amount[r] <= 0)
            continue;
        gp__y_key (y, yk_name (k, r));
        gp__k8s_y_qty (y, k->r.name[r], amount[r]);
    }
    gp__y_map_end (y);
}

static int any_positive (const struct yk *k, const long long *amount)
{
    for (size_t r = 0; r < k->r.n; r++)
        if (amount[r] > 0)
            return 1;
    return 0;
}

static void resources (struct gp__yaml *y, const struct yk *k,
                       const long long *gua, const long long *max)
{
    gp__y_key (y, "resources");
    gp__y_map (y);
    if (any_positive (k, gua))
        resource_map (y, k, "guaranteed", gua, 1);
    resource_map (y, k, "max", max, 0);
    gp__y_map_end (y);
}

static void leaf (struct gp__yaml *y, const struct yk *k, size_t t)
{
    const struct gp_team *tm = &k->teams[t];
    char off[24];
    gp__y_map (y);
    gp__y_kstr (y, "name", tm->name);
    gp__y_key (y, "properties");
    gp__y_map (y);
    gp__y_kstr (y, "application.sort.policy", "fifo");
    if (k->pol->offsets && tm->priority != 0) {
        snprintf (off, sizeof off, "%d", tm->priority);
        gp__y_key (y, "priority.offset");
        gp__y_qstr (y, off); /* properties are strings */
    }
    gp__y_map_end (y);
    resources (y, k, &k->gua[t * GP__K8S_RES_MAX],
               &k->max[t * GP__K8S_RES_MAX]);
    gp__y_map_end (y);
}

/* The parent queue of the cohort of team 'first' and its members. */
static void cohort (struct gp__yaml *y, const struct yk *k, size_t first)
{
    const char *co = k->teams[first].cohort;
    long long gua[GP__K8S_RES_MAX] = {0}, max[GP__K8S_RES_MAX] = {0};
    for (size_t t = first; t < k->nt; t++)
        if (!strcmp (k->teams[t].cohort, co))
            for (size_t r = 0; r < k->r.n; r++)
                gua[r] += k->gua[t * GP__K8S_RES_MAX + r];
    /* What the members hold together, pool by pool: the most any of them
     * may borrow, and a bound that keeps borrowing inside the cohort. */
    for (size_t p = 0; p < k->c->n_pools; p++)
        for (size_t r = 0; r < k->r.n; r++)
            max[r] += gp__k8s_share (&k->r, k->c, p, r,
                                     cohort_held (k, first, p));
    gp__y_map (y);
    gp__y_kstr (y, "name", co);
    gp__y_kbool (y, "parent", 1);
    if (k->pol->fence_cohorts) {
        gp__y_key (y, "properties");
        gp__y_map (y);
        gp__y_kstr (y, "preemption.policy", "fence");
        gp__y_map_end (y);
    }
    resources (y, k, gua, max);
    gp__y_key (y, "queues");
    gp__y_seq (y);
    for (size_t t = first; t < k->nt; t++)
        if (!strcmp (k->teams[t].cohort, co))
            leaf (y, k, t);
    gp__y_seq_end (y);
    gp__y_map_end (y);
}

/* Whether team 'i' is the first of its cohort. */
static int first_of_cohort (const struct yk *k, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (!strcmp (k->teams[j].cohort, k->teams[i].cohort))
            return 0;
    return 1;
}

/* Placement by namespace (the team's namespace is its name, as in the
 * Kueue export): a queue the pod names (provided), else the namespace's
 * queue under each cohort in turn, else directly under root; never
 * creating queues, so a namespace without a queue is rejected. */
static void placement (struct gp__yaml *y, const struct yk *k)
{
    char parent[GP_NAME_MAX + 8];
    int loose = 0;
    gp__y_key (y, "placementrules");
    gp__y_seq (y);
    gp__y_map (y);
    gp__y_kstr (y, "name", "provided");
    gp__y_kbool (y, "create", 0);
    gp__y_map_end (y);
    for (size_t i = 0; i < k->nt; i++) {
        if (!k->teams[i].cohort[0]) {
            loose = 1;
            continue;
        }
        if (!first_of_cohort (k, i))
            continue;
        snprintf (parent, sizeof parent, "root.%s", k->teams[i].cohort);
        gp__y_map (y);
        gp__y_kstr (y, "name", "tag");
        gp__y_kstr (y, "value", "namespace");
        gp__y_kbool (y, "create", 0);
        gp__y_key (y, "parent");
        gp__y_map (y);
        gp__y_kstr (y, "name", "fixed");
        gp__y_kstr (y, "value", parent);
        gp__y_map_end (y);
        gp__y_map_end (y);
    }
    if (loose) {
        gp__y_map (y);
        gp__y_kstr (y, "name", "tag");
        gp__y_kstr (y, "value", "namespace");
        gp__y_kbool (y, "create", 0);
        gp__y_map_end (y);
    }
    gp__y_seq_end (y);
}

/* The inner queues.yaml document into 'b'. */
static int queues_yaml (const struct yk *k, struct sb *b)
{
    struct gp__yaml y;
    if (gp__y_open (&y, b) != 0)
        return -1;
    gp__y_doc_start (&y);
    gp__y_map (&y);
    gp__y_key (&y, "partitions");
    gp__y_seq (&y);
    gp__y_map (&y);
    gp__y_kstr (&y, "name", "default"); /* the k8s shim's only partition */
    placement (&y, k);
    gp__y_key (&y, "preemption");
    gp__y_map (&y);
    gp__y_kbool (&y, "enabled", k->pol->preempt);
    gp__y_map_end (&y);
    gp__y_key (&y, "queues");
    gp__y_seq (&y);
    gp__y_map (&y);
    gp__y_kstr (&y, "name", "root");
    gp__y_kstr (&y, "submitacl", "*");
    gp__y_key (&y, "properties");
    gp__y_map (&y);
    gp__y_kstr (&y, "application.sort.priority",
                k->pol->sort_priority ? "enabled" : "disabled");
    gp__y_map_end (&y);
    gp__y_key (&y, "queues");
    gp__y_seq (&y);
    for (size_t i = 0; i < k->nt; i++) {
        if (!k->teams[i].cohort[0])
            leaf (&y, k, i);
        else if (first_of_cohort (k, i))
            cohort (&y, k, i);
    }
    gp__y_seq_end (&y); /* root's queues */
    gp__y_map_end (&y); /* root */
    gp__y_seq_end (&y); /* queues */
    gp__y_map_end (&y); /* partition */
    gp__y_seq_end (&y); /* partitions */
    gp__y_map_end (&y);
    gp__y_doc_end (&y);
    return gp__y_close (&y);
}

static void header (struct sb *b, const struct yk *k)
{
    gp__sb_printf (b, "# YuniKorn queues for cluster '");
    gp__comment_text (b, k->c->name);
    gp__sb_printf (b, "', generated by gpuplan: guaranteed =\n# the "
                      "quota, max = what the cohort lets a team hold; "
                      "policy %s\n# (%s).  Apply in YuniKorn's namespace "
                      "(kubectl apply -f);\n# see "
                      "docs/formats/export-yunikorn.md.\n",
                   k->pol->name,
                   k->from_plan ? "as the plan simulated"
                                : "gpuplan's default");
    if (!k->r.host)
        gp__sb_printf (b, "# vcore and memory are left out: a pool has no "
                          "host size.\n");
    for (size_t i = 0; i < k->nt; i++)
        if (k->teams[i].weight > 0 && fabs (k->teams[i].weight - 1) > 1e-9) {
            gp__sb_printf (b, "# Team weights are not written: YuniKorn "
                              "shares a parent between its queues\n# by "
                              "their use relative to guaranteed (the "
                              "quota).\n");
            break;
        }
}

static int render (const struct yk *k, struct gp_export *x)
{
    struct sb inner = {0}, b = {0};
    struct gp__yaml y;
    int rc = queues_yaml (k, &inner);
    header (&b, k);
    if (rc == 0 && gp__y_open (&y, &b) == 0) {
        gp__y_doc_start (&y);
        gp__y_map (&y);
        gp__y_kstr (&y, "apiVersion", "v1");
        gp__y_kstr (&y, "kind", "ConfigMap");
        gp__y_key (&y, "metadata");
        gp__y_map (&y);
        gp__y_kstr (&y, "name", "yunikorn-configs");
        gp__y_kstr (&y, "namespace", "yunikorn");
        gp__y_map_end (&y);
        gp__y_key (&y, "data");
        gp__y_map (&y);
        gp__y_key (&y, "queues.yaml");
        gp__y_block (&y, inner.s);
        gp__y_map_end (&y);
        gp__y_map_end (&y);
        gp__y_doc_end (&y);
        rc = gp__y_close (&y);
    } else {
        rc = -1;
    }
    free (inner.s);
    if (rc != 0) {
        free (b.s);
        return -1;
    }
    return gp__export_add_file (x, "yunikorn-configs.yaml", &b);
}

static int write_yunikorn (const struct gp_cluster *c,
                           const struct gp_export_opts *o,
                           struct gp_export *x, gp_error_t *err)
{
    struct gp_team fb;
    struct yk k = {.c = c};
    k.teams = gp__teams_of (c, &k.nt, &fb);
    k.fallback = k.teams == &fb;
    k.pol = policy_of (o, &k.from_plan, x->not_applicable,
                       sizeof x->not_applicable);
    if (!k.pol)
        return 0; /* not applicable: no files, the reason set */
    int rc = check_names (&k, err);
    if (rc == 0)
        rc = gp__k8s_res_build (&k.r, c, o->catalog, err);
    if (rc != 0)
        return rc;
    k.gua = calloc (k.nt * GP__K8S_RES_MAX, sizeof *k.gua);
    k.max = calloc (k.nt * GP__K8S_RES_MAX, sizeof *k.max);
    k.nom = calloc (k.nt * c->n_pools, sizeof *k.nom);
    if (!k.gua || !k.max || !k.nom || gp__limits_alloc (&k.l, c->n_pools) != 0)
        rc = gp_errprintf (err, GP_ENOMEM, "out of memory");
    if (rc == 0)
        rc = team_amounts (&k, err);
    if (rc == 0 && render (&k, x) != 0)
        rc = gp_errprintf (err, GP_ENOMEM, "out of memory");
    free (k.gua);
    free (k.max);
    free (k.nom);
    gp__limits_free (&k.l);
    gp__k8s_res_free (&k.r);
    return rc;
}

const struct gp_export_target_ops gp__export_yunikorn = {
    .name = "yunikorn",
    .k8s_names = 1,
    .needs_plan = 0,
    .write = write_yunikorn,
};
