/* create.c - building and destroying a simulator: configuration
 * defaults, placement names, teams and their quotas, the job vector, and
 * the borrowed result views.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_private.h"

/* ------------------------------ create ---------------------------------- */

void gp_sim_config_init_defaults (struct gp_sim_config *cfg,
                                  const struct gp_defaults *d)
{
    memset (cfg, 0, sizeof *cfg);
    cfg->placement = GP_PLACE_BEST_FIT;
    cfg->restart_cost_s = gp_default (d, GP_DEF_RELIABILITY_RESTART_S);
    cfg->ckpt_interval_s =
        gp_default (d, GP_DEF_RELIABILITY_CHECKPOINT_INTERVAL_S);
    cfg->comm_share = 0.2;
    cfg->node_repair_s =
        3600 * gp_default (d, GP_DEF_RELIABILITY_NODE_REPAIR_H);
    cfg->backfill_depth = 256;
}

void gp_sim_config_init (struct gp_sim_config *cfg)
{
    gp_sim_config_init_defaults (cfg, NULL);
}

static const char *const placement_names[GP_PLACE_N] = {
    "packing", "best-fit", "spread", "topology",
};

const char *gp_placement_str (enum gp_placement p)
{
    return (int)p >= 0 && p < GP_PLACE_N ? placement_names[p] : NULL;
}

int gp_placement_parse (const char *s, enum gp_placement *out,
                        gp_error_t *err)
{
    for (int i = 0; s && i < GP_PLACE_N; i++)
        if (strcmp (s, placement_names[i]) == 0) {
            *out = (enum gp_placement)i;
            return 0;
        }
    return gp_errprintf (err, GP_ENOTFOUND,
                         "unknown placement '%s' (valid: packing, best-fit, "
                         "spread, topology)",
                         s ? s : "");
}

struct skey {
    double t;
    uint32_t j;
};

static int by_submit (const void *a, const void *b)
{
    const struct skey *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->j < y->j ? -1 : x->j > y->j;
}

static int init_teams (struct gp_sim *s, gp_error_t *err)
{
    const struct gp_cluster *c = s->cfg.cluster;
    size_t nt = s->js->n_teams;
    size_t extra = 0;
    for (size_t i = 0; i < c->n_teams; i++) {
        int found = 0;
        for (size_t k = 0; k < nt && !found; k++)
            found = strcmp (s->js->teams[k], c->teams[i].name) == 0;
        extra += !found;
    }
    s->n_teams = nt + extra;
    s->teams = calloc (s->n_teams ? s->n_teams : 1, sizeof *s->teams);
    if (!s->teams)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    size_t k = nt, np = s->n_pools;
    s->team_pool_d = malloc ((s->n_teams ? s->n_teams : 1) * 3 * np
                             * sizeof *s->team_pool_d);
    s->team_pool_u = calloc ((s->n_teams ? s->n_teams : 1) * np,
                             sizeof *s->team_pool_u);
    long long *lim = malloc (3 * np * sizeof *lim);
    if (!s->team_pool_d || !s->team_pool_u || !lim) {
        free (lim);
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < s->n_teams; i++) {
        struct steam *t = &s->teams[i];
        t->ct = -1;
        t->pq = s->team_pool_d + 3 * np * i;
        t->pborrow = t->pq + np;
        t->plend = t->pborrow + np;
        t->pused_u = s->team_pool_u + np * i;
        for (size_t p = 0; p < 3 * np; p++)
            t->pq[p] = -1;
    }
    for (size_t i = 0; i < nt; i++)
        s->teams[i].name = s->js->teams[i];
    for (size_t i = 0; i < c->n_teams; i++) {
        int idx = -1;
        for (size_t q = 0; q < nt && idx < 0; q++)
            if (strcmp (s->js->teams[q], c->teams[i].name) == 0)
                idx = (int)q;
        if (idx < 0) {
            idx = (int)k++;
            s->teams[idx].name = c->teams[i].name;
        }
        s->teams[idx].ct = (int)i;
    }
    /* Cohort indices: the first team naming a cohort numbers it. */
    for (size_t i = 0; i < s->n_teams; i++) {
        struct steam *t = &s->teams[i];
        t->weight = 1;
        t->quota = t->borrow = t->lend = -1;
        t->cohort = -1;
        t->q.pos = s->ppos;
        if (t->ct < 0)
            continue;
        const struct gp_team *ct = &c->teams[t->ct];
        t->weight = ct->weight;
        t->prio = ct->priority;
        t->quota = (double)ct->quota_gpus;
        t->borrow = (double)ct->borrowing_limit;
        t->lend = (double)ct->lending_limit;
        if (gp_cluster_team_pool_limits (c, (size_t)t->ct, lim, lim + np,
                                         lim + 2 * np)) {
            t->per_pool = 1;
            for (size_t p = 0; p < np; p++) {
                t->pq[p] = (double)lim[p];
                t->pborrow[p] = (double)lim[np + p];
                t->plend[p] = (double)lim[2 * np + p];
            }
        } else if (np == 1 && ct->quota_gpus >= 0) {
            /* One pool: a total quota is that pool's quota. */
            t->per_pool = 1;
            t->pq[0] = t->quota;
            t->pborrow[0] = t->borrow;
            t->plend[0] = t->lend;
        }
        if (ct->cohort[0]) {
            for (int q = 0; q < t->ct && t->cohort < 0; q++)
                if (strcmp (c->teams[q].cohort, ct->cohort) == 0)
                    t->cohort = q;
            if (t->cohort < 0)
                t->cohort = t->ct;
        }
    }
    free (lim);
    /* A cohort lends per pool or in total, not both. */
    for (size_t i = 0; i < s->n_teams; i++)
        for (size_t u = 0; u < s->n_teams; u++) {
            const struct steam *a = &s->teams[i], *b = &s->teams[u];
            if (a->cohort >= 0 && a->cohort == b->cohort && a->per_pool
                && !b->per_pool && b->quota >= 0)
                return gp_errprintf (
                    err, GP_EINVAL,
                    "cluster '%s': cohort '%s' mixes per-pool quotas (team "
                    "'%s') and a total quota (team '%s'); give every team of "
                    "a cohort the same form",
                    c->name, c->teams[a->ct].cohort, a->name, b->name);
        }
    return 0;
}

int gp__job_activate (struct gp_sim *s, uint32_t j)
{
    uint32_t k;
    if (s->n_free)
        k = s->free_slots[--s->n_free];
    else {
        if (s->n_jobs_used == s->n_jobs_cap) {
            size_t cap = s->n_jobs_cap ? 2 * s->n_jobs_cap : 64;
            struct sjob *a = realloc (s->jobs, cap * sizeof *a);
            uint32_t *f = a ? realloc (s->free_slots, cap * sizeof *f) : NULL;
            if (a)
                s->jobs = a;
            if (!f)
                return GP_ENOMEM;
            s->free_slots = f;
            s->n_jobs_cap = cap;
        }
        k = (uint32_t)s->n_jobs_used++;
    }
    s->slot[j] = k;
    const struct gp_job *g = &s->js->jobs[j];
    struct sjob *jb = &s->jobs[k];
    memset (jb, 0, sizeof *jb);
    jb->submit = g->submit_s;
    jb->duration = jb->remaining = g->duration_s;
    jb->n = g->n_gpus > 0 ? g->n_gpus : 1;
    jb->milli = (int16_t)(g->gpu_milli > 0 && g->gpu_milli < 1000
                                  && jb->n == 1
                              ? g->gpu_milli
                              : 1000);
    jb->sgpu = -1;
    jb->team = g->team;
    jb->prio = g->priority ? g->priority : s->teams[g->team].prio;
    jb->pool_req = g->pool >= 0 ? s->pool_map[g->pool] : -1;
    jb->pool_used = -1;
    jb->ckpt = g->ckpt_interval_s > 0 ? g->ckpt_interval_s
                                      : s->cfg.ckpt_interval_s;
    jb->comm = g->comm_share > 0 ? g->comm_share : s->cfg.comm_share;
    jb->seg_factor = 1;
    return 0;
}

void gp__job_retire (struct gp_sim *s, uint32_t j)
{
    struct sjob *jb = SJ (s, j);
    if (jb->n_alloc > 1)
        free (jb->many);
    jb->many = NULL;
    jb->n_alloc = 0;
    s->free_slots[s->n_free++] = s->slot[j];
    s->slot[j] = NONE;
}

/* Check every job (required pool known, values in range), mark jobs that
 * can never fit unfit, size the team queues.  0 or an error with 'err'.
 */
static int init_jobs (struct gp_sim *s, const struct gp_jobset *js,
                      gp_error_t *err)
{
    /* Per-pool name resolution of jobs that require a pool. */
    int *pmap = s->pool_map = calloc (js->n_pools ? js->n_pools : 1,
                                      sizeof *pmap);
    if (!pmap)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    for (size_t i = 0; i < js->n_pools; i++) {
        pmap[i] = -1;
        for (size_t p = 0; p < s->cfg.cluster->n_pools; p++)
            if (strcmp (s->cfg.cluster->pools[p].name, js->pools[i]) == 0)
                pmap[i] = (int)p;
    }
    size_t *team_n = calloc (s->n_teams ? s->n_teams : 1, sizeof *team_n);
    if (!team_n)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->n; i++) {
        const struct gp_job *g = &js->jobs[i];
        s->ppos[i] = s->vpos[i] = s->epos[i] = -1;
        s->order[i] = (uint32_t)i;
        s->slot[i] = NONE;
        if (g->pool >= 0 && (size_t)g->pool < js->n_pools
            && pmap[g->pool] < 0) {
            free (team_n);
            return gp_errprintf (err, GP_ENOTFOUND,
                                 "job %lld (line %u) requires pool '%s', "
                                 "which the cluster '%s' does not have",
                                 (long long)g->id, g->line,
                                 js->pools[g->pool], s->cfg.cluster->name);
        }
        if (!(g->duration_s > 0) || !isfinite (g->submit_s) || g->n_gpus < 0
            || g->team < 0 || (size_t)g->team >= js->n_teams) {
            free (team_n);
            return gp_errprintf (err, GP_EINVAL,
                                 "job %lld (line %u): duration must be > 0, "
                                 "GPUs >= 0 and the team known",
                                 (long long)g->id, g->line);
        }
        if (gp__job_activate (s, (uint32_t)i)) {
            free (team_n);
            return gp_errprintf (err, GP_ENOMEM, "out of memory");
        }
        int32_t n = SJ (s, i)->n;
        if (n > gp__capacity_for (s, (uint32_t)i))
            s->st[i] = S_UNFIT; /* its result: engine.c, at arrival */
        gp__job_retire (s, (uint32_t)i);
        team_n[g->team]++;
    }
    for (size_t t = 0; t < s->n_teams; t++)
        if ((s->ops->flags & GP_POLICY_TEAMS)
            && gp__jheap_grow (&s->teams[t].q, team_n[t] + 1)) {
            free (team_n);
            return gp_errprintf (err, GP_ENOMEM, "out of memory");
        }
    free (team_n);
    return 0;
}

/* Arrival order: submit time, then index; 0 or -1 (no memory). */
static int arrival_order (struct gp_sim *s)
{
    size_t n = s->n ? s->n : 1;
    /* no global state, so simulations may run in parallel threads */
    struct skey *keys = malloc (n * sizeof *keys);
    if (!keys)
        return -1;
    for (size_t i = 0; i < s->n; i++)
        keys[i] = (struct skey){s->js->jobs[i].submit_s, (uint32_t)i};
    qsort (keys, s->n, sizeof *keys, by_submit);
    for (size_t i = 0; i < s->n; i++)
        s->order[i] = keys[i].j;
    free (keys);
    return 0;
}

struct gp_sim *gp_sim_create (const struct gp_sim_config *cfg,
                              const struct gp_jobset *js, gp_error_t *err)
{
    if (!cfg || !js || !cfg->cluster || cfg->cluster->n_pools == 0) {
        gp_errprintf (err, GP_EINVAL, "gp_sim_create: NULL argument");
        return NULL;
    }
    if ((int)cfg->placement < 0 || cfg->placement >= GP_PLACE_N
        || cfg->restart_cost_s < 0 || cfg->ckpt_interval_s < 0
        || cfg->comm_share < 0 || cfg->node_mtbf_s < 0
        || cfg->node_repair_s < 0 || cfg->sample_interval_s < 0
        || cfg->backfill_depth < 0) {
        gp_errprintf (err, GP_EINVAL,
                      "simulation: negative or unknown configuration value");
        return NULL;
    }
    if (gp__config_check (cfg, err))
        return NULL;
    if (js->n_jobs > (size_t)INT32_MAX) {
        gp_errprintf (err, GP_ERANGE, "simulation: too many jobs");
        return NULL;
    }
    struct gp_sim *s = calloc (1, sizeof *s);
    if (!s) {
        gp_errprintf (err, GP_ENOMEM, "out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    s->series_iv = cfg->sample_interval_s;
    if (s->cfg.backfill_depth == 0)
        s->cfg.backfill_depth = 256;
    if (s->cfg.long_job_s == 0)
        s->cfg.long_job_s = 86400;
    s->ops = cfg->policy ? cfg->policy : &gp_policy_fifo;
    if (gp_policy_init_state (s->ops, cfg->policy_params,
                              cfg->n_policy_params, &s->pstate, err)) {
        free (s);
        return NULL;
    }
    s->js = js;
    s->n = js->n_jobs;
    s->rng = cfg->seed ^ 0x6a09e667f3bcc909ULL;
    size_t n = s->n ? s->n : 1;
    s->slot = malloc (n * sizeof *s->slot);
    s->st = calloc (n, sizeof *s->st);
    s->res = calloc (n, sizeof *s->res); /* written in gp_sim_run */
    s->order = malloc (n * sizeof *s->order);
    s->ppos = malloc (n * sizeof *s->ppos);
    s->vpos = malloc (n * sizeof *s->vpos);
    s->epos = malloc (n * sizeof *s->epos);
    if (s->slot)
        memset (s->slot, 0xff, n * sizeof *s->slot); /* NONE */
    if (!s->slot || !s->st || !s->res || !s->order || !s->ppos || !s->vpos || !s->epos)
        goto nomem;
    if (gp__cluster_init (s, err))
        goto fail;
    if (s->cfg.large_job_gpus <= 0)
        s->cfg.large_job_gpus = s->max_gpn;
    s->pend_size = calloc ((size_t)s->max_gpn + 2, sizeof *s->pend_size);
    if (!s->pend_size)
        goto nomem;
    if (init_teams (s, err))
        goto fail;
    s->pend.pos = s->ppos;
    s->vict.pos = s->vpos;
    s->ends.pos = s->epos;
    if (gp__jheap_grow (&s->pend, n) || gp__jheap_grow (&s->vict, n)
        || gp__jheap_grow (&s->ends, n))
        goto nomem;
    if (s->ops->flags & GP_POLICY_TEAMS)
        for (size_t t = 0; t < s->n_teams; t++)
            if (gp__jheap_grow (&s->teams[t].q, 64))
                goto nomem;
    if (init_jobs (s, js, err))
        goto fail;
    if (arrival_order (s))
        goto nomem;
    return s;
nomem:
    gp_errprintf (err, GP_ENOMEM, "out of memory");
fail:
    gp_sim_destroy (s);
    return NULL;
}

void gp_sim_destroy (struct gp_sim *s)
{
    if (!s)
        return;
    for (size_t i = 0; s->slot && s->jobs && i < s->n; i++)
        if (s->slot[i] != NONE && SJ (s, i)->n_alloc > 1)
            free (SJ (s, i)->many);
    for (size_t t = 0; s->teams && t < s->n_teams; t++)
        free (s->teams[t].q.a);
    free (s->teams);
    free (s->team_pool_d);
    free (s->team_pool_u);
    gp__cluster_free (s);
    free (s->pend.a);
    gp__pidx_free (s);
    gp__ptreap_free (s);
    free (s->vict.a);
    free (s->ends.a);
    free (s->ppos);
    free (s->vpos);
    free (s->epos);
    free (s->pend_size);
    free (s->ev);
    free (s->jobs);
    free (s->free_slots);
    free (s->slot);
    free (s->st);
    free (s->pool_map);
    free (s->res);
    free (s->order);
    free (s->series);
    free (s->m.teams);
    gp_policy_fini_state (s->ops, s->pstate);
    free (s);
}

const struct gp_job_result *gp_sim_get_results (const struct gp_sim *s,
                                                size_t *n)
{
    if (n)
        *n = s ? s->n : 0;
    return s ? s->res : NULL;
}

const struct gp_sim_sample *gp_sim_get_series (const struct gp_sim *s,
                                               size_t *n)
{
    if (n)
        *n = s ? s->n_series : 0;
    return s ? s->series : NULL;
}

const struct gp_sim_metrics *gp_sim_get_metrics (const struct gp_sim *s)
{
    return s ? &s->m : NULL;
}
