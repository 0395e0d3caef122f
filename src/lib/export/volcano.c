/* volcano.c - Volcano Queues of a cluster spec for the capacity plugin
 * with hierarchy (docs/formats/export-volcano.md): a parent Queue per
 * cohort whose deserved and capability are the sum of its members'
 * quotas, and a Queue per team with deserved = quota, capability =
 * quota + borrowing limit (at most what its cohort holds), guarantee =
 * the quota it does not lend, over cpu, memory and device resources.
 *
 * Everything is written through libyaml's emitter (quote.h); the
 * hierarchy obeys the v1.15 queue webhook (guarantee <= deserved <=
 * capability, children's deserved and guarantee summing to at most the
 * parent's, no child capability above its parent's).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s.h"

struct vq {
    const struct gp_cluster *c;
    const struct gp_team *teams;
    size_t nt;
    int fallback;
    struct gp__k8s_res r;
    struct limits l;
    /* per team and resource: [t * GP__K8S_RES_MAX + r] */
    long long *des, *cap, *gua;
    long long *nom;        /* nominal GPUs per team and pool:
                              [t * n_pools + p] */
};

/* Fill deserved, capability and guarantee of every team. */
static int team_amounts (struct vq *v, gp_error_t *err)
{
    const struct gp_cluster *c = v->c;
    size_t np = c->n_pools;
    long long *nom = v->nom;
    long long *cap = calloc (v->nt * np, sizeof *cap);
    long long *len = calloc (v->nt * np, sizeof *len);
    int rc = cap && len ? 0 : GP_ENOMEM;
    for (size_t t = 0; rc == 0 && t < v->nt; t++) {
        rc = gp__k8s_team_limits (c, &v->teams[t], v->fallback, &v->l, err);
        for (size_t p = 0; rc == 0 && p < np; p++) {
            nom[t * np + p] = v->l.nom[p];
            cap[t * np + p] = gp__pool_cap (c, &v->teams[t], &v->l, p);
            len[t * np + p] = v->l.len[p];
        }
    }
    for (size_t t = 0; rc == 0 && t < v->nt; t++) {
        const struct gp_team *tm = &v->teams[t];
        for (size_t p = 0; p < np; p++) {
            long long held = 0;
            for (size_t u = 0; u < v->nt; u++)
                if (tm->cohort[0] && !strcmp (v->teams[u].cohort, tm->cohort))
                    held += nom[u * np + p];
            long long most = cap[t * np + p];
            if (tm->cohort[0] && most > held)
                most = held; /* a cohort lends only what its members hold */
            long long kept = len[t * np + p] >= 0
                                 ? nom[t * np + p] - len[t * np + p]
                                 : 0;
            for (size_t r = 0; r < v->r.n; r++) {
                size_t at = t * GP__K8S_RES_MAX + r;
                v->des[at] += gp__k8s_share (&v->r, c, p, r, nom[t * np + p]);
                v->cap[at] += gp__k8s_share (&v->r, c, p, r, most);
                v->gua[at] += gp__k8s_share (&v->r, c, p, r, kept);
            }
        }
    }
    free (cap);
    free (len);
    return rc == GP_ENOMEM ? gp_errprintf (err, GP_ENOMEM, "out of memory")
                           : rc;
}

static void resource_map (struct gp__yaml *y, const struct vq *v,
                          const char *key, const long long *amount)
{
    gp__y_key (y, key);
    gp__y_map (y);
    for (size_t r = 0; r < v->r.n; r++) {
        gp__y_key (y, v->r.name[r]);
        gp__k8s_y_qty (y, v->r.name[r], amount[r]);
    }
    gp__y_map_end (y);
}

static int any_positive (const struct vq *v, const long long *amount)
{
    for (size_t r = 0; r < v->r.n; r++)
        if (amount[r] > 0)
            return 1;
    return 0;
}

static void queue (struct gp__yaml *y, const struct vq *v, const char *name,
                   long long weight, int reclaimable, const char *parent,
                   int priority, const long long *des, const long long *cap,
                   const long long *gua)
{
    gp__y_doc_start (y);
    gp__y_map (y);
    gp__y_kstr (y, "apiVersion", "scheduling.volcano.sh/v1beta1");
    gp__y_kstr (y, "kind", "Queue");
    gp__y_key (y, "metadata");
    gp__y_map (y);
    gp__y_kstr (y, "name", name);
    gp__y_map_end (y);
    gp__y_key (y, "spec");
    gp__y_map (y);
    gp__y_kint (y, "weight", weight);
    gp__y_kbool (y, "reclaimable", reclaimable);
    if (parent)
        gp__y_kstr (y, "parent", parent);
    if (priority > 0)
        gp__y_kint (y, "priority", priority);
    resource_map (y, v, "deserved", des);
    resource_map (y, v, "capability", cap);
    if (any_positive (v, gua)) {
        gp__y_key (y, "guarantee");
        gp__y_map (y);
        resource_map (y, v, "resource", gua);
        gp__y_map_end (y);
    }
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_doc_end (y);
}

/* One parent Queue per cohort, before its members (the webhook looks the
 * parent up when a child is created). */
static void parents (struct gp__yaml *y, const struct vq *v)
{
    for (size_t i = 0; i < v->nt; i++) {
        const char *co = v->teams[i].cohort;
        int seen = !co[0];
        for (size_t k = 0; k < i && !seen; k++)
            seen = !strcmp (v->teams[k].cohort, co);
        if (seen)
            continue;
        long long des[GP__K8S_RES_MAX] = {0}, gua[GP__K8S_RES_MAX] = {0};
        long long cap[GP__K8S_RES_MAX] = {0};
        size_t np = v->c->n_pools;
        for (size_t t = 0; t < v->nt; t++)
            if (!strcmp (v->teams[t].cohort, co))
                for (size_t r = 0; r < v->r.n; r++) {
                    des[r] += v->des[t * GP__K8S_RES_MAX + r];
                    gua[r] += v->gua[t * GP__K8S_RES_MAX + r];
                }
        /* Capability: what the cohort's quotas hold, pool by pool (at
         * least the sum of deserved, and of any member's capability). */
        for (size_t p = 0; p < np; p++) {
            long long held = 0;
            for (size_t t = 0; t < v->nt; t++)
                if (!strcmp (v->teams[t].cohort, co))
                    held += v->nom[t * np + p];
            for (size_t r = 0; r < v->r.n; r++)
                cap[r] += gp__k8s_share (&v->r, v->c, p, r, held);
        }
        queue (y, v, co, 1, 1, NULL, 0, des, cap, gua);
    }
}

/* Names Volcano cannot take: its own root queue, and a cohort that is
 * also a team (both would be the same Queue). */
static int check_names (const struct vq *v, gp_error_t *err)
{
    for (size_t i = 0; i < v->nt; i++) {
        const struct gp_team *t = &v->teams[i];
        if (!strcmp (t->name, "root"))
            return gp_errprintf (err, GP_EINVAL, "teams[%zu].name 'root' "
                                 "is Volcano's root queue", i);
        if (!strcmp (t->cohort, "root"))
            return gp_errprintf (err, GP_EINVAL, "teams[%zu].cohort 'root' "
                                 "is Volcano's root queue", i);
        for (size_t k = 0; t->cohort[0] && k < v->nt; k++)
            if (!strcmp (v->teams[k].name, t->cohort))
                return gp_errprintf (err, GP_EINVAL,
                                     "teams[%zu].cohort '%s' is also a "
                                     "team: Volcano would write both as "
                                     "one Queue", i, t->cohort);
    }
    return 0;
}

static void write_queues (struct gp__yaml *y, const struct vq *v)
{
    /* Volcano weights are integers 1..65535: scale all weights by the
     * same factor so that their ratios survive rounding. */
    double scale = 1.0;
    for (size_t i = 0; i < v->nt; i++) {
        double w = v->teams[i].weight > 0 ? v->teams[i].weight : 1.0;
        if (fabs (w - round (w)) > 1e-9)
            scale = 100.0;
    }
    parents (y, v);
    for (size_t i = 0; i < v->nt; i++) {
        const struct gp_team *t = &v->teams[i];
        long long wi = llround ((t->weight > 0 ? t->weight : 1.0) * scale);
        wi = wi < 1 ? 1 : wi > 65535 ? 65535 : wi;
        size_t at = i * GP__K8S_RES_MAX;
        queue (y, v, t->name, wi, t->lending_limit != 0,
               t->cohort[0] ? t->cohort : NULL, t->priority, &v->des[at],
               &v->cap[at], &v->gua[at]);
    }
}

static int write_volcano (const struct gp_cluster *c,
                          const struct gp_export_opts *o,
                          struct gp_export *x, gp_error_t *err)
{
    struct gp_team fb;
    struct vq v = {.c = c};
    v.teams = gp__teams_of (c, &v.nt, &fb);
    v.fallback = v.teams == &fb;
    int rc = check_names (&v, err);
    if (rc == 0)
        rc = gp__k8s_res_build (&v.r, c, o->catalog, err);
    if (rc != 0)
        return rc;
    v.des = calloc (v.nt * GP__K8S_RES_MAX, sizeof *v.des);
    v.cap = calloc (v.nt * GP__K8S_RES_MAX, sizeof *v.cap);
    v.gua = calloc (v.nt * GP__K8S_RES_MAX, sizeof *v.gua);
    v.nom = calloc (v.nt * c->n_pools, sizeof *v.nom);
    if (!v.des || !v.cap || !v.gua || !v.nom
        || gp__limits_alloc (&v.l, c->n_pools) != 0)
        rc = GP_ENOMEM;
    if (rc == 0)
        rc = team_amounts (&v, err);
    struct sb b = {0};
    struct gp__yaml y;
    if (rc == 0) {
        gp__sb_printf (&b, "# Volcano queues for cluster '");
        gp__comment_text (&b, c->name);
        gp__sb_printf (&b, "', generated by gpuplan, for the capacity "
                           "plugin with\n# enableHierarchy: true; cohorts "
                           "are parent queues.  Apply in file order;\n# see "
                           "docs/formats/export-volcano.md.\n");
        if (!v.r.host)
            gp__sb_printf (&b, "# cpu and memory are left out: a pool has "
                               "no host size.\n");
        if (gp__y_open (&y, &b) != 0)
            rc = GP_ENOMEM;
    }
    if (rc == 0) {
        write_queues (&y, &v);
        if (gp__y_close (&y) != 0
            || gp__export_add_file (x, "volcano.yaml", &b) != 0)
            rc = GP_ENOMEM;
    } else {
        free (b.s);
    }
    free (v.des);
    free (v.cap);
    free (v.gua);
    free (v.nom);
    gp__limits_free (&v.l);
    gp__k8s_res_free (&v.r);
    return rc;
}

const struct gp_export_target_ops gp__export_volcano = {
    .name = "volcano",
    .k8s_names = 1,
    .write = write_volcano,
};
