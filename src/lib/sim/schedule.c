/* schedule.c - one scheduling pass: admission and placement of the jobs
 * in policy order, EASY backfill behind a blocked head.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_private.h"

/* The same scan with the rank index (pindex.c): pending jobs that cannot
 * start are skipped without being popped; they would have been pushed
 * back unchanged.  Whole-GPU pools only; a head bound to one of several
 * pools takes the plain scan (its 'shares' rule is not indexed).
 */
static int backfill_indexed (struct gp_sim *s, uint32_t h, int queued,
                             long long extra, double shadow)
{
    /* a head still queued is the first pending job: skip it */
    uint32_t last =
        gp__pidx_nth (s, (size_t)s->cfg.backfill_depth + (queued ? 1 : 0));
    struct pidx_query q;
    memset (&q, 0, sizeof q);
    q.after = queued ? s->pidx.rank_of[h] : NONE;
    q.last = last == NONE ? SIZE_MAX : last;
    q.shadow = shadow;
    while (s->free_gpus > 0 || s->n_partial > 0) {
        q.free = s->free_gpus;
        q.extra = extra;
        uint32_t r = gp__pidx_next (s, &q);
        if (r == NONE)
            break;
        q.after = r;
        uint32_t c = s->pidx.job_at[r];
        struct sjob *cj = SJ (s, c);
        double est = cj->remaining + (cj->ran ? s->cfg.restart_cost_s : 0);
        int before = s->now + est <= shadow;
        if ((before || cj->n <= extra) && gp__place (s, c)) {
            if (!before)
                extra -= cj->n;
            gp__pend_remove (s, c);
            if (gp__start_job (s, c))
                return GP_ENOMEM;
        }
    }
    return 0;
}

static int add_tried (uint32_t **tried, size_t *nt, size_t *tcap, uint32_t j)
{
    if (*nt == *tcap) {
        size_t ncap = *tcap * 2;
        uint32_t *a = realloc (*tried, ncap * sizeof *a);
        if (!a)
            return GP_ENOMEM;
        *tried = a;
        *tcap = ncap;
    }
    (*tried)[(*nt)++] = j;
    return 0;
}

/* 'queued': the head was only peeked at and is still in the queue. */
static int backfill (struct gp_sim *s, uint32_t h, int queued, struct walk *w,
                     uint32_t **tried, size_t *nt, size_t *tcap)
{
    const struct sjob *hj = SJ (s, h);
    long long freeh = gp__free_for (s, h);
    long long acc = 0;
    double shadow = INFINITY;
    gp__walk_start (w, &s->ends);
    for (uint32_t r; (r = gp__walk_next (w)) != NONE;) {
        const struct sjob *rj = SJ (s, r);
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
    if (s->pidx.on && (hj->pool_req < 0 || s->n_pools == 1))
        return backfill_indexed (s, h, queued, extra, shadow);
    if (queued) {
        gp__pend_remove (s, h);
        if (add_tried (tried, nt, tcap, h))
            return GP_ENOMEM;
    }
    int depth = s->cfg.backfill_depth;
    while (depth-- > 0 && (s->free_gpus > 0 || s->n_partial > 0)) {
        if (s->pend.n == 0)
            break;
        uint32_t c = s->pend.a[0].j;
        gp__pend_remove (s, c);
        struct sjob *cj = SJ (s, c);
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
        if (add_tried (tried, nt, tcap, c))
            return GP_ENOMEM;
    }
    return 0;
}

/* Under GP_POLICY_ORDERED (with MONOTONE) the victims a waiting job may
 * preempt are a prefix of the victim order, and a job later in the queue
 * has a shorter prefix.  So once the victim scan of a job of n GPUs that
 * fits one node has failed, the scan of a later job asking at least n
 * GPUs of the same pools fails too, until a job starts (which changes
 * the running set): it is skipped.
 */
static int single_node (const struct gp_sim *s, const struct sjob *jb)
{
    for (size_t p = 0; p < s->n_pools; p++)
        if ((jb->pool_req < 0 || jb->pool_req == (int32_t)p)
            && jb->n > s->pools[p].gpn)
            return 0;
    return 1;
}

static int scan_would_fail (const struct gp_sim *s, const struct pass *ps,
                            uint32_t j)
{
    const struct sjob *jb = SJ (s, j);
    return !s->cfg.plain_scan && (s->ops->flags & GP_POLICY_ORDERED)
           && (s->ops->flags & GP_POLICY_MONOTONE) && jb->n >= ps->fail_n
           && jb->pool_req == ps->fail_pool && single_node (s, jb);
}

static void note_failed_scan (const struct gp_sim *s, struct pass *ps,
                              uint32_t j)
{
    const struct sjob *jb = SJ (s, j);
    if (!(s->ops->flags & GP_POLICY_ORDERED) || !single_node (s, jb))
        return;
    if (ps->fail_n == INT32_MAX || jb->pool_req == ps->fail_pool) {
        if (jb->n < ps->fail_n) {
            ps->fail_n = jb->n;
            ps->fail_pool = jb->pool_req;
        }
    }
}

/* Admit and place 'j' now, preempting if the policy allows.  With quota
 * admission, pools are tried in order and the job goes to the first pool
 * its quota admits it to that has room (Kueue's flavor assignment);
 * only then is preemption tried, pool by pool.
 */
static int admit_place (struct gp_sim *s, uint32_t j, struct pass *ps)
{
    unsigned fl = s->ops->flags;
    const struct sjob *jb = SJ (s, j);
    if (!s->ops->admit) {
        if (gp__place (s, j))
            return 1;
        if (!(fl & GP_POLICY_PREEMPT) || scan_would_fail (s, ps, j))
            return 0;
        if (gp__try_preempt (s, j, -1, &ps->w, &ps->vbuf, &ps->vcap))
            return 1;
        note_failed_scan (s, ps, j);
        return 0;
    }
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

/* Whether a pass may try the head in place instead of popping it: when a
 * failed head ends the pass (strict) or blocks its team, leaving it queued
 * is the same as popping it and pushing it back.
 */
static int peeking (const struct gp_sim *s)
{
    unsigned fl = s->ops->flags;
    if (s->cfg.plain_scan)
        return 0;
    if (fl & GP_POLICY_TEAMS)
        return 1;
    return (fl & GP_POLICY_STRICT)
           && (!(fl & GP_POLICY_BACKFILL) || s->pidx.on);
}

static void unqueue (struct gp_sim *s, uint32_t j)
{
    if (s->ops->flags & GP_POLICY_TEAMS)
        gp__jheap_remove (&s->teams[SJ (s, j)->team].q, j);
    else
        gp__pend_remove (s, j);
}

static uint32_t pick (struct gp_sim *s, int peek)
{
    if (!(s->ops->flags & GP_POLICY_TEAMS)) {
        if (s->pend.n == 0)
            return NONE;
        uint32_t j = s->pend.a[0].j;
        if (!peek)
            gp__pend_remove (s, j);
        return j;
    }
    int best = -1;
    double bk = 0;
    /* Keys change only when jobs start or stop: they are recomputed after
     * a start (and at the start of a pass), not at every pick.
     */
    if (s->team_keys_stale || s->cfg.plain_scan) {
        for (size_t t = 0; t < s->n_teams; t++)
            if (!s->teams[t].blocked && s->teams[t].q.n > 0)
                s->teams[t].key = s->ops->team_key (SCHED (s), (int)t);
        s->team_keys_stale = 0;
    }
    for (size_t t = 0; t < s->n_teams; t++) {
        struct steam *tm = &s->teams[t];
        if (tm->blocked || tm->q.n == 0)
            continue;
        double k = tm->key;
        if (best < 0 || k < bk) {
            best = (int)t;
            bk = k;
        }
    }
    if (best < 0)
        return NONE;
    uint32_t j = s->teams[best].q.a[0].j;
    if (!peek)
        gp__jheap_remove (&s->teams[best].q, j);
    return j;
}

/* Under GP_POLICY_ORDERED, once a waiting job 'j' may not preempt the
 * first victim no later job may preempt at all: they can only start on
 * free GPUs.
 */
static int ordered_point (const struct gp_sim *s, uint32_t j)
{
    unsigned fl = s->ops->flags;
    if (s->cfg.plain_scan || !(fl & GP_POLICY_ORDERED)
        || !(fl & GP_POLICY_MONOTONE))
        return 0;
    return s->vict.n == 0
           || !s->ops->may_preempt (SCHED (s), j, s->vict.a[0].j);
}

/* The rest of a pass past the ordered point, with the ordered tree: the
 * next waiting job that fits the free GPUs is found in O(log n); the jobs
 * skipped are counted as examined (they would have failed), so the pass
 * stops where the plain scan would, after 'backfill_depth' failures.
 * Jobs that fail stay queued (the plain scan pops and pushes them back).
 */
static int fit_only (struct gp_sim *s, struct pass *ps, int examined)
{
    size_t depth = (size_t)s->cfg.backfill_depth;
    uint32_t after = NONE;
    for (;;) {
        uint32_t c = gp__ptreap_next_fit (s, after, s->free_gpus);
        if (c == NONE)
            return 0;
        size_t before = gp__ptreap_count_before (s, c);
        if ((size_t)examined + before >= depth)
            return 0;
        after = c;
        if (admit_place (s, c, ps)) {
            ps->fail_n = INT32_MAX;
            gp__pend_remove (s, c);
            int rc = gp__start_job (s, c);
            if (rc)
                return rc;
        } else if ((size_t)examined + before + 1 >= depth)
            return 0;
    }
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
    s->team_keys_stale = 1;
    ps->fail_n = INT32_MAX;
    ps->fail_pool = -1;
    /* With the ordered tree, jobs that cannot start stay queued, marked
     * tried (absent from the tree's searches) until the pass ends.
     */
    int tmode = s->ptreap.on;
    int peek = peeking (s) || tmode;
    for (;;) {
        uint32_t j = tmode ? gp__ptreap_first (s) : pick (s, peek);
        if (j == NONE)
            break;
        struct sjob *jb = SJ (s, j);
        int ok = admit_place (s, j, ps);
        if (ps->w.oom) { /* a preemption search ran out of memory */
            rc = GP_ENOMEM;
            break;
        }
        if (ok) {
            s->team_keys_stale = 1;
            ps->fail_n = INT32_MAX;
            if (peek)
                unqueue (s, j);
            if ((rc = gp__start_job (s, j)))
                break;
            continue;
        }
        if ((!peek || tmode)
            && (rc = add_tried (&ps->tried, &ps->nt, &ps->tcap, j)))
            break;
        if (tmode)
            gp__ptreap_mark (s, j, 1);
        if (fl & GP_POLICY_TEAMS)
            s->teams[jb->team].blocked = 1;
        if (fl & GP_POLICY_BACKFILL) {
            rc = backfill (s, j, peek, &ps->w, &ps->tried, &ps->nt,
                           &ps->tcap);
            break;
        }
        if (fl & GP_POLICY_STRICT)
            break;
        if (++examined >= s->cfg.backfill_depth)
            break;
        if (ordered_point (s, j)) {
            if (s->ptreap.on) {
                rc = fit_only (s, ps, examined);
                break;
            }
            if (s->free_gpus == 0 && s->n_partial == 0)
                break;
        }
        if (s->free_gpus == 0 && s->n_partial == 0
            && !(fl & GP_POLICY_PREEMPT))
            break;
    }
    /* Put the jobs that could not start back, keys unchanged. */
    for (size_t i = 0; i < ps->nt && tmode; i++)
        gp__ptreap_mark (s, ps->tried[i], 0);
    for (size_t i = 0; i < ps->nt && !tmode; i++) {
        uint32_t j = ps->tried[i];
        double k[2];
        s->ops->pending_key (SCHED (s), j, k);
        if (fl & GP_POLICY_TEAMS)
            gp__jheap_push (&s->teams[SJ (s, j)->team].q, j, k[0], k[1]);
        else
            gp__pend_push (s, j, k[0], k[1]);
    }
    return rc;
}
