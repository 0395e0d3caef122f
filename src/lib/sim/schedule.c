/* schedule.c - one scheduling pass: admission and placement of the jobs
 * in policy order, EASY backfill behind a blocked head.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_private.h"

static int backfill (struct gp_sim *s, uint32_t h, struct walk *w,
                     uint32_t **tried, size_t *nt, size_t *tcap)
{
    const struct sjob *hj = &s->jobs[h];
    long long freeh = gp__free_for (s, h);
    long long acc = 0;
    double shadow = INFINITY;
    gp__walk_start (w, &s->ends);
    for (uint32_t r; (r = gp__walk_next (w)) != NONE;) {
        const struct sjob *rj = &s->jobs[r];
        if (hj->pool_req >= 0 && rj->pool_used != hj->pool_req)
            continue;
        acc += rj->n;
        if (freeh + acc >= hj->n) {
            shadow = rj->end;
            break;
        }
    }
    if (w->oom)
        return GP_ENOMEM;
    long long extra = freeh + acc - hj->n;
    if (shadow == INFINITY)
        extra = freeh;
    int depth = s->cfg.backfill_depth;
    while (depth-- > 0 && (s->free_gpus > 0 || s->n_partial > 0)) {
        if (s->pend.n == 0)
            break;
        uint32_t c = s->pend.a[0].j;
        gp__jheap_remove (&s->pend, c);
        struct sjob *cj = &s->jobs[c];
        double est = cj->remaining + (cj->ran ? s->cfg.restart_cost_s : 0);
        int before = s->now + est <= shadow;
        int shares = hj->pool_req >= 0 && cj->pool_req >= 0
                     && hj->pool_req != cj->pool_req;
        if ((before || shares || cj->n <= extra) && gp__place (s, c)) {
            if (!before && !shares)
                extra -= cj->n;
            if (gp__start_job (s, c))
                return GP_ENOMEM;
            continue;
        }
        if (*nt == *tcap) {
            size_t ncap = *tcap * 2;
            uint32_t *a = realloc (*tried, ncap * sizeof *a);
            if (!a)
                return GP_ENOMEM;
            *tried = a;
            *tcap = ncap;
        }
        (*tried)[(*nt)++] = c;
    }
    return 0;
}

/* Admit and place 'j' now, preempting if the policy allows.  With quota
 * admission, pools are tried in order and the job goes to the first pool
 * its quota admits it to that has room (Kueue's flavor assignment);
 * only then is preemption tried, pool by pool.
 */
static int admit_place (struct gp_sim *s, uint32_t j, struct pass *ps)
{
    unsigned fl = s->ops->flags;
    const struct sjob *jb = &s->jobs[j];
    if (!s->ops->admit)
        return gp__place (s, j)
               || ((fl & GP_POLICY_PREEMPT)
                   && gp__try_preempt (s, j, -1, &ps->w, &ps->vbuf, &ps->vcap));
    for (size_t p = 0; p < s->n_pools; p++)
        if ((jb->pool_req < 0 || jb->pool_req == (int32_t)p)
            && s->ops->admit (SCHED (s), j, (int)p)
            && gp__place_in (s, j, (int32_t)p))
            return 1;
    if (!(fl & GP_POLICY_PREEMPT))
        return 0;
    for (size_t p = 0; p < s->n_pools; p++)
        if ((jb->pool_req < 0 || jb->pool_req == (int32_t)p)
            && s->ops->admit (SCHED (s), j, (int)p)
            && gp__try_preempt (s, j, (int32_t)p, &ps->w, &ps->vbuf, &ps->vcap))
            return 1;
    return 0;
}

static uint32_t pick (struct gp_sim *s)
{
    if (!(s->ops->flags & GP_POLICY_TEAMS)) {
        if (s->pend.n == 0)
            return NONE;
        uint32_t j = s->pend.a[0].j;
        gp__jheap_remove (&s->pend, j);
        return j;
    }
    int best = -1;
    double bk = 0;
    for (size_t t = 0; t < s->n_teams; t++) {
        struct steam *tm = &s->teams[t];
        if (tm->blocked || tm->q.n == 0)
            continue;
        double k = s->ops->team_key (SCHED (s), (int)t);
        if (best < 0 || k < bk) {
            best = (int)t;
            bk = k;
        }
    }
    if (best < 0)
        return NONE;
    uint32_t j = s->teams[best].q.a[0].j;
    gp__jheap_remove (&s->teams[best].q, j);
    return j;
}

int gp__schedule (struct gp_sim *s, struct pass *ps)
{
    if (s->n_pending == 0)
        return 0;
    unsigned fl = s->ops->flags;
    if (s->free_gpus == 0 && s->n_partial == 0 && !(fl & GP_POLICY_PREEMPT))
        return 0;
    ps->nt = 0;
    int examined = 0;
    int rc = 0;
    for (size_t t = 0; t < s->n_teams; t++)
        s->teams[t].blocked = 0;
    for (;;) {
        uint32_t j = pick (s);
        if (j == NONE)
            break;
        struct sjob *jb = &s->jobs[j];
        int ok = admit_place (s, j, ps);
        if (ps->w.oom) { /* a preemption search ran out of memory */
            rc = GP_ENOMEM;
            break;
        }
        if (ok) {
            if ((rc = gp__start_job (s, j)))
                break;
            continue;
        }
        if (ps->nt == ps->tcap) {
            size_t nc = ps->tcap * 2;
            uint32_t *a = realloc (ps->tried, nc * sizeof *a);
            if (!a) {
                rc = GP_ENOMEM;
                break;
            }
            ps->tried = a;
            ps->tcap = nc;
        }
        ps->tried[ps->nt++] = j;
        if (fl & GP_POLICY_TEAMS)
            s->teams[jb->team].blocked = 1;
        if (fl & GP_POLICY_BACKFILL) {
            rc = backfill (s, j, &ps->w, &ps->tried, &ps->nt, &ps->tcap);
            break;
        }
        if (fl & GP_POLICY_STRICT)
            break;
        if (++examined >= s->cfg.backfill_depth)
            break;
        if (s->free_gpus == 0 && s->n_partial == 0
            && !(fl & GP_POLICY_PREEMPT))
            break;
    }
    /* Put the jobs that could not start back, keys unchanged. */
    for (size_t i = 0; i < ps->nt; i++) {
        uint32_t j = ps->tried[i];
        double k[2];
        s->ops->pending_key (SCHED (s), j, k);
        if (fl & GP_POLICY_TEAMS)
            gp__jheap_push (&s->teams[s->jobs[j].team].q, j, k[0], k[1]);
        else
            gp__jheap_push (&s->pend, j, k[0], k[1]);
    }
    return rc;
}
