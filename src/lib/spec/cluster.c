/* cluster.c - cluster spec loader (pools of accelerator nodes) and totals. */
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/cluster.h"

/* Top level as read from the file; pools are unpacked one by one. */
struct top {
    char name[GP_NAME_MAX];
    const json_t *pools;
    const json_t *teams;
    double spine_oversub;
};

static const struct gp_field cluster_fields[] = {
    {"name", GP_F_STRING, offsetof (struct top, name), GP_NAME_MAX,
     GP_F_REQUIRED, 0, NULL, 0, 0},
    {"pools", GP_F_NODE, offsetof (struct top, pools), 0, GP_F_REQUIRED, 0,
     NULL, 0, 0},
    {"teams", GP_F_NODE, offsetof (struct top, teams), 0, 0, 0, NULL, 0, 0},
    {"spine_oversubscription", GP_F_DOUBLE,
     offsetof (struct top, spine_oversub), 0, 0, 0, NULL, 1, 1000},
    {NULL, 0, 0, 0, 0, 0, NULL, 0, 0},
};

/* A pool as read: the MIG list is unpacked by hand. */
struct pool_in {
    struct gp_pool p;
    const json_t *mig;
};

#define F(f) offsetof (struct pool_in, p.f)
static const struct gp_field pool_fields[] = {
    {"name", GP_F_STRING, F (name), GP_NAME_MAX, GP_F_REQUIRED, 0, NULL, 0, 0},
    {"accelerator", GP_F_STRING, F (accel_id), GP_NAME_MAX, GP_F_REQUIRED, 0,
     NULL, 0, 0},
    {"gpus_per_node", GP_F_INT, F (gpus_per_node), 0, GP_F_REQUIRED, 0, NULL,
     1, 128},
    {"nodes", GP_F_INT, F (nodes), 0, GP_F_REQUIRED, 0, NULL, 1, 1000000},
    {"scale_up_domain", GP_F_INT, F (scale_up_domain), 0, 0, 0, NULL, 1,
     100000},
    {"nodes_per_rack", GP_F_INT, F (nodes_per_rack), 0, 0, 0, NULL, 1, 1024},
    {"cpus_per_node", GP_F_INT, F (cpus_per_node), 0, 0, 0, NULL, 1, 100000},
    {"host_memory", GP_F_QUANTITY, F (host_mem_bytes), 0, 0, GP_Q_BYTES, NULL,
     1e6, 1e14},
    {"network_per_gpu", GP_F_QUANTITY, F (net_bw_per_gpu), 0, 0,
     GP_Q_BANDWIDTH, NULL, 1e6, 1e13},
    {"gpu_sharing", GP_F_BOOL, F (gpu_sharing), 0, 0, 0, NULL, 0, 0},
    {"mig", GP_F_NODE, offsetof (struct pool_in, mig), 0, 0, 0, NULL, 0, 0},
    {NULL, 0, 0, 0, 0, 0, NULL, 0, 0},
};
#undef F

/* Resolve the pool's 'mig:' list against the catalog's MIG profiles of
 * its accelerator; profiles end up sorted by compute slices.
 */
static int unpack_mig (const struct gp_doc *doc, const json_t *mj,
                       const char *what, struct gp_pool *p,
                       const struct gp_catalog *cat, gp_error_t *err)
{
    if (!json_is_array (mj) || json_array_size (mj) == 0
        || json_array_size (mj) > GP_MIG_MAX)
        return gp_doc_errorf (doc, mj, err, GP_EPARSE,
                              "%s.mig: expected a list of 1 to %d MIG "
                              "profile names",
                              what, GP_MIG_MAX);
    if (p->gpu_sharing)
        return gp_doc_errorf (doc, mj, err, GP_EPARSE,
                              "%s.mig: give either gpu_sharing or mig, not "
                              "both",
                              what);
    for (size_t i = 0; i < json_array_size (mj); i++) {
        const json_t *v = json_array_get (mj, i);
        const char *name = json_string_value (v);
        const struct gp_mig_profile *hit = NULL;
        char known[256] = "";
        size_t kl = 0;
        for (size_t k = 0; k < gp_catalog_n_mig (cat); k++) {
            const struct gp_mig_profile *m = gp_catalog_mig (cat, k);
            if (strcmp (m->accel_id, p->accel->id) != 0)
                continue;
            if (name && strcmp (m->profile, name) == 0)
                hit = m;
            if (kl + strlen (m->profile) + 3 < sizeof known)
                kl += (size_t)snprintf (known + kl, sizeof known - kl,
                                        "%s%s", kl ? ", " : "", m->profile);
        }
        if (!hit)
            return gp_doc_errorf (doc, v, err, GP_EPARSE,
                                  "%s.mig[%zu]: %s%s%s is not a MIG profile "
                                  "of %s (%s%s)",
                                  what, i, name ? "'" : "",
                                  name ? name : "not a string",
                                  name ? "'" : "", p->accel->id,
                                  kl ? "known: " : "no MIG profiles in the "
                                                   "catalog",
                                  known);
        if (strlen (hit->profile) >= sizeof p->mig[0]
            || hit->compute_slices < 1
            || hit->compute_slices > GP_MIG_SLICES)
            return gp_doc_errorf (doc, v, err, GP_EPARSE,
                                  "%s.mig[%zu]: profile '%s' has an unusable "
                                  "catalog entry",
                                  what, i, hit->profile);
        for (int k = 0; k < p->n_mig; k++)
            if (strcmp (p->mig[k], hit->profile) == 0)
                return gp_doc_errorf (doc, v, err, GP_EPARSE,
                                      "%s.mig[%zu]: profile '%s' listed "
                                      "twice",
                                      what, i, hit->profile);
        /* Insert sorted by compute slices (stable). */
        int at = p->n_mig;
        while (at > 0 && p->mig_slices[at - 1] > hit->compute_slices) {
            memcpy (p->mig[at], p->mig[at - 1], sizeof p->mig[0]);
            p->mig_slices[at] = p->mig_slices[at - 1];
            at--;
        }
        snprintf (p->mig[at], sizeof p->mig[0], "%s", hit->profile);
        p->mig_slices[at] = hit->compute_slices;
        p->n_mig++;
    }
    return 0;
}

/* A team as read: quota may be a number (total GPUs) or a mapping of pool
 * name to GPUs, so it is unpacked by hand.
 */
struct team_in {
    char name[GP_NAME_MAX];
    char cohort[GP_NAME_MAX];
    double weight;
    int priority;
    const json_t *quota;
    int borrowing_limit;
    int lending_limit;
};

#define T(f) offsetof (struct team_in, f)
static const struct gp_field team_fields[] = {
    {"name", GP_F_STRING, T (name), GP_NAME_MAX, GP_F_REQUIRED, 0, NULL, 0, 0},
    {"cohort", GP_F_STRING, T (cohort), GP_NAME_MAX, 0, 0, NULL, 0, 0},
    {"weight", GP_F_DOUBLE, T (weight), 0, 0, 0, NULL, 1e-6, 1e6},
    {"priority", GP_F_INT, T (priority), 0, 0, 0, NULL, -1000000, 1000000},
    {"quota", GP_F_NODE, T (quota), 0, 0, 0, NULL, 0, 0},
    {"borrowing_limit", GP_F_INT, T (borrowing_limit), 0, 0, 0, NULL, 0,
     100000000},
    {"lending_limit", GP_F_INT, T (lending_limit), 0, 0, 0, NULL, 0,
     100000000},
    {NULL, 0, 0, 0, 0, 0, NULL, 0, 0},
};
#undef T

/* Largest-remainder split of 'total' over pools in proportion to 'w'
 * (by pool size when 'w' sums to 0); ties go to the first pool.
 */
static void split (const struct gp_cluster *c, long long total,
                   const long long *w, long long *out)
{
    long long all = 0, given = 0;
    for (size_t i = 0; i < c->n_pools; i++)
        all += w[i];
    int by_size = all <= 0;
    if (by_size) {
        all = 0;
        for (size_t i = 0; i < c->n_pools; i++)
            all += (long long)c->pools[i].gpus_per_node * c->pools[i].nodes;
    }
    for (size_t i = 0; i < c->n_pools; i++) {
        long long wi = by_size ? (long long)c->pools[i].gpus_per_node
                                     * c->pools[i].nodes
                               : w[i];
        double exact = all > 0 ? (double)total * (double)wi / (double)all : 0;
        out[i] = (long long)floor (exact);
        given += out[i];
    }
    while (given < total && all > 0) {
        size_t best = c->n_pools;
        double br = -1;
        for (size_t i = 0; i < c->n_pools; i++) {
            long long wi = by_size ? (long long)c->pools[i].gpus_per_node
                                         * c->pools[i].nodes
                                   : w[i];
            double r = (double)total * (double)wi / (double)all
                       - (double)out[i];
            if (r > br + 1e-12 && r > 0) {
                br = r;
                best = i;
            }
        }
        if (best == c->n_pools)
            break;
        out[best]++;
        given++;
    }
}

int gp_cluster_team_pool_limits (const struct gp_cluster *c, size_t t,
                                 long long *nominal, long long *borrow,
                                 long long *lend)
{
    if (!c || t >= c->n_teams || !c->teams[t].pool_quota)
        return 0;
    const struct gp_team *tm = &c->teams[t];
    int per_pool = 0;
    for (size_t i = 0; i < c->n_pools; i++)
        per_pool |= tm->pool_quota[i] >= 0;
    if (!per_pool)
        return 0;
    for (size_t i = 0; i < c->n_pools; i++)
        nominal[i] = tm->pool_quota[i] >= 0 ? tm->pool_quota[i] : 0;
    for (size_t i = 0; i < c->n_pools; i++)
        borrow[i] = lend[i] = -1;
    if (tm->borrowing_limit >= 0)
        split (c, tm->borrowing_limit, nominal, borrow);
    if (tm->lending_limit >= 0) {
        split (c, tm->lending_limit, nominal, lend);
        for (size_t i = 0; i < c->n_pools; i++)
            if (lend[i] > nominal[i])
                lend[i] = nominal[i];
    }
    return 1;
}

int gp_cluster_team (const struct gp_cluster *c, const char *name)
{
    if (!c || !name)
        return -1;
    for (size_t i = 0; i < c->n_teams; i++)
        if (strcmp (c->teams[i].name, name) == 0)
            return (int)i;
    return -1;
}

static int quota_value (const struct gp_doc *doc, const json_t *v,
                        const char *what, long long *out, gp_error_t *err)
{
    if (!json_is_integer (v) || json_integer_value (v) < 0
        || json_integer_value (v) > 100000000)
        return gp_doc_errorf (doc, v, err, GP_EPARSE,
                              "%s: expected a GPU count (integer >= 0)",
                              what);
    *out = (long long)json_integer_value (v);
    return 0;
}

static int unpack_team (const struct gp_doc *doc, const json_t *tj,
                        size_t i, struct gp_cluster *c, gp_error_t *err)
{
    struct gp_team *t = &c->teams[i];
    struct team_in in;
    char what[48];
    memset (&in, 0, sizeof in);
    in.weight = 1.0;
    in.borrowing_limit = -1;
    in.lending_limit = -1;
    snprintf (what, sizeof what, "teams[%zu]", i);
    if (gp_doc_unpack (doc, tj, what, team_fields, &in, err) != 0)
        return err ? err->code : GP_EPARSE;
    memcpy (t->name, in.name, sizeof t->name);
    memcpy (t->cohort, in.cohort, sizeof t->cohort);
    t->weight = in.weight;
    t->priority = in.priority;
    t->borrowing_limit = in.borrowing_limit;
    t->lending_limit = in.lending_limit;
    t->quota_gpus = -1;
    t->pool_quota = malloc (c->n_pools * sizeof *t->pool_quota);
    if (!t->pool_quota)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    for (size_t p = 0; p < c->n_pools; p++)
        t->pool_quota[p] = -1;
    for (size_t k = 0; k < i; k++)
        if (strcmp (c->teams[k].name, t->name) == 0)
            return gp_doc_errorf (doc, json_object_get (tj, "name"), err,
                                  GP_EPARSE,
                                  "%s.name: duplicate team name '%s'", what,
                                  t->name);
    if (in.quota) {
        char qw[64];
        snprintf (qw, sizeof qw, "%s.quota", what);
        if (json_is_object (in.quota)) {
            const char *key;
            json_t *v;
            t->quota_gpus = 0;
            json_object_foreach ((json_t *)in.quota, key, v) {
                size_t p;
                for (p = 0; p < c->n_pools; p++)
                    if (strcmp (c->pools[p].name, key) == 0)
                        break;
                if (p == c->n_pools)
                    return gp_doc_errorf (doc, v, err, GP_EPARSE,
                                          "%s: unknown pool '%s'", qw, key);
                if (quota_value (doc, v, qw, &t->pool_quota[p], err) != 0)
                    return GP_EPARSE;
                t->quota_gpus += t->pool_quota[p];
            }
        } else if (quota_value (doc, in.quota, qw, &t->quota_gpus, err)
                   != 0)
            return GP_EPARSE;
    }
    if (t->lending_limit >= 0 && t->quota_gpus >= 0
        && t->lending_limit > t->quota_gpus)
        return gp_doc_errorf (doc, json_object_get (tj, "lending_limit"), err,
                              GP_EPARSE,
                              "%s.lending_limit: %lld exceeds the quota %lld",
                              what, t->lending_limit, t->quota_gpus);
    return 0;
}

void gp_cluster_destroy (struct gp_cluster *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n_teams; i++)
        free (c->teams[i].pool_quota);
    free (c->teams);
    free (c->pools);
    free (c);
}

struct gp_cluster *gp_cluster_from_doc (const struct gp_doc *doc,
                                        const struct gp_catalog *cat,
                                        gp_error_t *err)
{
    if (!doc || !cat) {
        gp_errprintf (err, GP_EINVAL, "gp_cluster_from_doc: NULL argument");
        return NULL;
    }
    struct gp_cluster *c = calloc (1, sizeof *c);
    if (!c) {
        gp_errprintf (err, GP_ENOMEM, "out of memory");
        return NULL;
    }
    struct top top;
    memset (&top, 0, sizeof top);
    top.spine_oversub = 1.0;
    if (gp_doc_unpack (doc, gp_doc_root (doc), "cluster", cluster_fields,
                       &top, err) != 0)
        goto error;
    memcpy (c->name, top.name, sizeof c->name);
    if (!json_is_array (top.pools) || json_array_size (top.pools) == 0) {
        gp_doc_errorf (doc, top.pools, err, GP_EPARSE,
                       "cluster.pools: expected a non-empty list of pools");
        goto error;
    }
    size_t n = json_array_size (top.pools);
    c->pools = calloc (n, sizeof *c->pools);
    if (!c->pools) {
        gp_errprintf (err, GP_ENOMEM, "out of memory");
        goto error;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *pj = json_array_get (top.pools, i);
        struct gp_pool *p = &c->pools[i];
        char what[32];
        snprintf (what, sizeof what, "pools[%zu]", i);
        struct pool_in pin;
        memset (&pin, 0, sizeof pin);
        if (gp_doc_unpack (doc, pj, what, pool_fields, &pin, err) != 0)
            goto error;
        *p = pin.p;
        gp_error_t e;
        p->accel = gp_catalog_find_accel (cat, p->accel_id, &e);
        if (!p->accel) {
            json_t *a = json_object_get (pj, "accelerator");
            gp_doc_errorf (doc, a, err, GP_ENOTFOUND, "%s.accelerator: %s",
                           what, e.text);
            goto error;
        }
        for (size_t k = 0; k < i; k++)
            if (strcmp (c->pools[k].name, p->name) == 0) {
                gp_doc_errorf (doc, json_object_get (pj, "name"), err,
                               GP_EPARSE, "%s.name: duplicate pool name '%s'",
                               what, p->name);
                goto error;
            }
        if (pin.mig && !json_is_null (pin.mig)
            && unpack_mig (doc, pin.mig, what, p, cat, err) != 0)
            goto error;
        if (p->scale_up_domain == 0) {
            /* Default: the node is the scale-up domain, unless the
             * accelerator's domain is smaller (PCIe cards).
             */
            int dom = p->accel->scale_up_domain;
            p->scale_up_domain = dom > 0 && dom < p->gpus_per_node
                                     ? dom
                                     : p->gpus_per_node;
        }
        c->n_pools++;
    }
    c->spine_oversub = top.spine_oversub;
    if (top.teams && !json_is_null (top.teams)) {
        if (!json_is_array (top.teams)) {
            gp_doc_errorf (doc, top.teams, err, GP_EPARSE,
                           "cluster.teams: expected a list of teams");
            goto error;
        }
        size_t nt = json_array_size (top.teams);
        c->teams = calloc (nt ? nt : 1, sizeof *c->teams);
        if (!c->teams) {
            gp_errprintf (err, GP_ENOMEM, "out of memory");
            goto error;
        }
        for (size_t i = 0; i < nt; i++) {
            c->n_teams = i + 1; /* so that destroy frees pool_quota */
            if (unpack_team (doc, json_array_get (top.teams, i), i, c, err)
                != 0)
                goto error;
        }
    }
    return c;
error:
    gp_cluster_destroy (c);
    return NULL;
}

void gp_cluster_totals (const struct gp_cluster *c,
                        struct gp_cluster_totals *t)
{
    memset (t, 0, sizeof *t);
    if (!c)
        return;
    for (size_t i = 0; i < c->n_pools; i++) {
        const struct gp_pool *p = &c->pools[i];
        const struct gp_accel *a = p->accel;
        long long g = (long long)p->gpus_per_node * p->nodes;
        t->nodes += p->nodes;
        t->gpus += g;
        t->hbm_bytes += (double)g * a->mem_bytes;
        t->hbm_bw += (double)g * a->mem_bw;
        t->bf16_flops += (double)g * gp_accel_peak_flops (a, "bf16");
        t->fp8_flops += (double)g * a->fp8_flops;
        t->gpu_tdp_w += (double)g * a->tdp_w;
        if (a->mem_bw <= 0 || gp_accel_peak_flops (a, "bf16") <= 0
            || a->tdp_w <= 0)
            t->incomplete = 1;
    }
}

struct gp_cluster *gp_cluster_load (const char *path,
                                    const struct gp_catalog *cat,
                                    gp_error_t *err)
{
    struct gp_doc *doc = gp_doc_load (path, err);
    struct gp_cluster *c = doc ? gp_cluster_from_doc (doc, cat, err) : NULL;
    gp_doc_destroy (doc);
    return c;
}
