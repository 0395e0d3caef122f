/* preempt.c - preemption: the cost of evicting a running job, victim
 * plans across nodes, and evicting for a waiting job.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_private.h"

/* --------------------------- scheduling pass ---------------------------- */

/* GPU-seconds lost if running job 'v' were evicted now: the work since
 * its last checkpoint, plus the restart overhead it will pay (the same
 * arithmetic as stop_job).
 */
static double evict_cost (const struct gp_sim *s, uint32_t v)
{
    const struct sjob *jb = SJ (s, v);
    double L = s->now - jb->seg_start;
    double o = L < jb->seg_over ? L : jb->seg_over;
    double w = (L - o) / jb->seg_factor;
    if (w > jb->remaining)
        w = jb->remaining;
    double done = jb->duration - jb->remaining;
    double total = done + w;
    double kept = jb->ckpt > 0 ? floor (total / jb->ckpt) * jb->ckpt : done;
    if (kept < done)
        kept = done;
    if (kept > total)
        kept = total;
    return JOB_GPUS (jb) * (total - kept + s->cfg.restart_cost_s);
}

struct vcost {
    double c;
    uint32_t rank; /* position in policy order */
    uint32_t v;
};

static int by_cost_desc (const void *a, const void *b)
{
    const struct vcost *x = a, *y = b;
    if (x->c != y->c)
        return x->c > y->c ? -1 : 1;
    return x->rank > y->rank ? -1 : x->rank < y->rank; /* later first */
}

/* Victims for a job larger than a node, in pool 'req': the victims the
 * policy allows, in its order, until the pool has enough free GPUs (a
 * multi-node gang then always finds a placement: it may take any free
 * GPUs of the pool); then every victim not needed for that count is
 * spared, the costliest to evict first, so the set is minimal and sheds
 * the most lost GPU-seconds it can.  Leaves the victims in 'vbuf'; returns
 * their count, or -1 when the pool cannot be freed enough, and the cost.
 */
static long multi_plan (struct gp_sim *s, uint32_t p, int32_t req,
                        struct walk *w, uint32_t **vbuf, size_t *vcap,
                        double *cost)
{
    const struct sjob *pj = SJ (s, p);
    long long have = s->pools[req].free, acc = 0;
    size_t nv = 0;
    int depth = s->cfg.backfill_depth;
    *cost = 0;
    if (pj->n > s->pools[req].total)
        return -1;
    gp__walk_start (w, &s->vict);
    for (uint32_t v; have + acc < pj->n && (v = gp__walk_next (w)) != NONE
                     && depth-- > 0;) {
        if (!s->ops->may_preempt (SCHED (s), p, v)) {
            if (s->ops->flags & GP_POLICY_MONOTONE)
                break;
            continue;
        }
        const struct sjob *vj = SJ (s, v);
        if (vj->pool_used != req || vj->su > 0)
            continue;
        if (nv == *vcap) {
            size_t nc = *vcap ? *vcap * 2 : 64;
            uint32_t *a = realloc (*vbuf, nc * sizeof *a);
            if (!a) {
                w->oom = 1;
                return -1;
            }
            *vbuf = a;
            *vcap = nc;
        }
        (*vbuf)[nv++] = v;
        acc += vj->n;
    }
    if (have + acc < pj->n)
        return -1;
    struct vcost *vc = malloc ((nv ? nv : 1) * sizeof *vc);
    if (!vc) {
        w->oom = 1;
        return -1;
    }
    for (size_t i = 0; i < nv; i++)
        vc[i] = (struct vcost){evict_cost (s, (*vbuf)[i]), (uint32_t)i,
                               (*vbuf)[i]};
    qsort (vc, nv, sizeof *vc, by_cost_desc);
    size_t k = 0;
    for (size_t i = 0; i < nv; i++) {
        int32_t n = SJ (s, vc[i].v)->n;
        if (have + acc - n >= pj->n)
            acc -= n; /* not needed: spared */
        else {
            vc[k++] = vc[i];
            *cost += vc[i].c;
        }
    }
    for (size_t i = 0; i < k; i++)
        (*vbuf)[i] = vc[i].v;
    free (vc);
    return (long)k;
}

/* Preempt victims so that 'p' can start, in pool 'pool' only (the pool
 * its quota admits it to) or, with pool < 0, wherever it may run; returns
 * 1 when 'p' was placed.  Jobs holding a share of a GPU are not victims
 * (evicting one frees no whole GPU unless it is alone on its GPU).
 */
int gp__try_preempt (struct gp_sim *s, uint32_t p, int32_t pool,
                        struct walk *w, uint32_t **vbuf, size_t *vcap)
{
    const struct sjob *pj = SJ (s, p);
    int32_t req = pool >= 0 ? pool : pj->pool_req;
    if (!s->cfg.plain_scan && s->ops->may_preempt_some
        && !s->ops->may_preempt_some (SCHED (s), p, pool))
        return 0;
    int single = 0;
    for (size_t i = 0; i < s->n_pools; i++)
        if ((req < 0 || req == (int32_t)i) && pj->n <= s->pools[i].gpn)
            single = 1;
    if (!single) {
        /* A gang across nodes: the pool whose minimal victim set loses
         * the fewest GPU-seconds.
         */
        int32_t best = -1, last = -1;
        long nv = -1, got;
        double bc = 0, c;
        for (size_t i = 0; i < s->n_pools; i++) {
            if (req >= 0 && req != (int32_t)i)
                continue;
            got = multi_plan (s, p, (int32_t)i, w, vbuf, vcap, &c);
            last = (int32_t)i;
            if (got >= 0 && (best < 0 || c < bc)) {
                best = (int32_t)i;
                bc = c;
                nv = got;
            }
        }
        if (best < 0)
            return 0;
        if (best != last) /* 'vbuf' holds the last pool's set */
            nv = multi_plan (s, p, best, w, vbuf, vcap, &c);
        if (nv < 0)
            return 0;
        for (long i = 0; i < nv; i++)
            gp__requeue (s, (*vbuf)[i], 0);
        return gp__place_in (s, p, best);
    }
    int depth = s->cfg.backfill_depth;
    size_t nv = 0;
    int32_t hit = -1;
    gp__walk_start (w, &s->vict);
    for (uint32_t v; (v = gp__walk_next (w)) != NONE && depth-- > 0;) {
        if (!s->ops->may_preempt (SCHED (s), p, v)) {
            if (s->ops->flags & GP_POLICY_MONOTONE)
                break;
            continue;
        }
        const struct sjob *vj = SJ (s, v);
        if ((req >= 0 && vj->pool_used != req) || vj->su > 0)
            continue;
        if (nv == *vcap) {
            size_t nc = *vcap ? *vcap * 2 : 64;
            uint32_t *a = realloc (*vbuf, nc * sizeof *a);
            if (!a) {
                w->oom = 1; /* the pass fails (gp__schedule) */
                break;
            }
            *vbuf = a;
            *vcap = nc;
        }
        (*vbuf)[nv++] = v;
        const struct alloc *a = vj->n_alloc == 1 ? &vj->one : vj->many;
        for (int32_t i = 0; i < vj->n_alloc; i++) {
            int32_t nd = a[i].node;
            s->scratch[nd] += a[i].n;
            if (pj->n <= s->nodes[nd].gpn && !s->nodes[nd].down
                && s->nodes[nd].free + s->scratch[nd] >= pj->n)
                hit = nd;
        }
        if (hit >= 0)
            break;
    }
    /* Reset the scratch counts. */
    for (size_t i = 0; i < nv; i++) {
        const struct sjob *vj = SJ (s, (*vbuf)[i]);
        const struct alloc *a = vj->n_alloc == 1 ? &vj->one : vj->many;
        for (int32_t k = 0; k < vj->n_alloc; k++)
            s->scratch[a[k].node] = 0;
    }
    if (hit < 0)
        return 0;
    for (size_t i = 0; i < nv; i++) {
        uint32_t v = (*vbuf)[i];
        const struct sjob *vj = SJ (s, v);
        const struct alloc *a = vj->n_alloc == 1 ? &vj->one : vj->many;
        int on = 0;
        for (int32_t k = 0; k < vj->n_alloc; k++)
            on |= a[k].node == hit;
        if (on)
            gp__requeue (s, v, 0);
    }
    return gp__place_in (s, p, s->nodes[hit].pool);
}

/* EASY backfill behind blocked head 'h': the head keeps a reservation at
 * the shadow time (when enough running jobs have ended); others may start
 * now if they end before it or use only GPUs the head will not need.
 */
