/* engine.c - the discrete-event core of the cluster simulator.
 *
 * Arrivals come from the job vector sorted by submit time (a cursor, not
 * heap entries); the event heap holds only finishes, failures, repairs
 * and re-keying of running jobs, so it stays as small as the running set.
 * At each distinct event time all events are applied, then one scheduling
 * pass runs.  Waiting jobs sit in an indexed heap by the policy's key (one
 * heap per team for team policies); running jobs sit in a heap of victims
 * and in a heap by end time (EASY backfill's shadow time).  Every heap
 * operation is O(log n); a pass examines at most 'backfill_depth' jobs
 * behind a blocked head.  Events at equal times are ordered by kind and
 * job index, which makes runs deterministic.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_private.h"
#include "../core/rng.h"

/* ------------------------------- RNG ------------------------------------ */

static double unif (struct gp_sim *s)
{
    return gp__rng_u01 (&s->rng);
}


/* ---------------------------- bookkeeping ------------------------------- */

/* Integrate the piecewise-constant state over [t_last, t). */
static void advance (struct gp_sim *s, double t)
{
    double dt = t - s->t_last;
    if (dt <= 0)
        return;
    s->alloc_gpu_s += (double)s->alloc_u / GP_MICRO * dt;
    s->queue_s += (double)s->n_pending * dt;
    if (s->n_pending) {
        s->frag_gpu_s += gp__fragmented (s) * dt;
        s->idle_wait_gpu_s += (double)s->free_gpus * dt;
    }
    for (size_t i = 0; i < s->n_teams; i++) {
        s->teams[i].gpu_s += s->teams[i].used * dt;
    }
    if (s->cfg.sample_interval_s > 0)
        gp__series_add (s, s->t_last, t);
    s->t_last = t;
}

static int size_slot (const struct gp_sim *s, int32_t n)
{
    return n <= s->max_gpn ? n : s->max_gpn + 1;
}

void gp__pend_push (struct gp_sim *s, uint32_t j, double k0, double k1)
{
    gp__jheap_push (&s->pend, j, k0, k1);
    if (s->pidx.on)
        gp__pidx_set (s, j, 1);
    if (s->ptreap.on)
        gp__ptreap_insert (s, j, k0, k1);
}

void gp__pend_remove (struct gp_sim *s, uint32_t j)
{
    if (s->ptreap.on && s->pend.pos[j] >= 0)
        gp__ptreap_remove (s, j);
    gp__jheap_remove (&s->pend, j);
    if (s->pidx.on)
        gp__pidx_set (s, j, 0);
}

static void push_pending (struct gp_sim *s, uint32_t j)
{
    struct sjob *jb = SJ (s, j);
    double k[2] = {jb->submit, 0};
    s->st[j] = S_PENDING;
    jb->since = s->now;
    s->ops->pending_key (SCHED (s), j, k);
    if (s->ops->flags & GP_POLICY_TEAMS)
        gp__jheap_push (&s->teams[jb->team].q, j, k[0], k[1]);
    else
        gp__pend_push (s, j, k[0], k[1]);
    s->n_pending++;
    s->pend_size[size_slot (s, jb->n)]++;
}

/* Take 'j' out of the pending structures (after it was popped). */
static void leave_pending (struct gp_sim *s, uint32_t j)
{
    struct sjob *jb = SJ (s, j);
    s->n_pending--;
    s->pend_size[size_slot (s, jb->n)]--;
    s->res[j].queued_s += s->now - jb->since;
}

int gp__start_job (struct gp_sim *s, uint32_t j)
{
    struct sjob *jb = SJ (s, j);
    struct gp_job_result *r = &s->res[j];
    leave_pending (s, j);
    s->st[j] = S_RUNNING;
    jb->seg_start = s->now;
    jb->seg_over = jb->ran ? s->cfg.restart_cost_s : 0;
    jb->seg_factor = gp__slowdown (s, j);
    jb->end = s->now + jb->seg_over + jb->remaining * jb->seg_factor;
    jb->since = s->now;
    if (!jb->ran) {
        r->first_start_s = s->now;
        r->wait_s = s->now - jb->submit;
    }
    jb->ran = 1;
    r->last_start_s = s->now;
    r->n_nodes = jb->n_alloc;
    {
        const struct alloc *a = jb->n_alloc == 1 ? &jb->one : jb->many;
        int nr = 0;
        for (int32_t i = 0; i < jb->n_alloc; i++) {
            int dup = 0;
            for (int32_t k = 0; k < i && !dup; k++)
                dup = s->nodes[a[k].node].rack == s->nodes[a[i].node].rack;
            nr += !dup;
        }
        r->n_racks = nr;
    }
    s->n_running++;
    struct steam *t = &s->teams[jb->team];
    t->used_u += jb->mu;
    t->pused_u[jb->pool_used] += jb->mu;
    t->used = (double)t->used_u / GP_MICRO;
    if (t->used > t->peak)
        t->peak = t->used;
    double k[2] = {0, 0};
    if (s->ops->victim_key)
        s->ops->victim_key (SCHED (s), j, k);
    gp__jheap_push (&s->vict, j, k[0], k[1]);
    gp__jheap_push (&s->ends, j, jb->end, 0);
    jb->gen++;
    if (gp__ev_push (s, jb->end, EV_FINISH, j, jb->gen))
        return GP_ENOMEM;
    if (s->ops->rekey_at) {
        double tr = s->ops->rekey_at (SCHED (s), j);
        if (tr < jb->end && tr > s->now)
            if (gp__ev_push (s, tr, EV_REKEY, j, jb->gen))
                return GP_ENOMEM;
    }
    return 0;
}

/* End the current segment of running job 'j' at 'now': account the
 * GPU-seconds, release the GPUs.  'done' = the work is complete.
 */
void gp__stop_job (struct gp_sim *s, uint32_t j, int done)
{
    struct sjob *jb = SJ (s, j);
    double L = s->now - jb->seg_start;
    double o = L < jb->seg_over ? L : jb->seg_over;
    double w = (L - o) / jb->seg_factor;
    if (done || w > jb->remaining)
        w = jb->remaining;
    double n = JOB_GPUS (jb);
    s->seg_gpu_s += n * L;
    s->restart_gpu_s += n * o;
    s->slow_gpu_s += n * (L - o - w);
    jb->attained += n * L;
    s->res[j].run_s += L;
    if (done)
        jb->remaining = 0;
    else {
        /* Progress kept = up to the last checkpoint of the total work. */
        double total = jb->duration - jb->remaining + w;
        double kept = jb->ckpt > 0 ? floor (total / jb->ckpt) * jb->ckpt
                                   : jb->duration - jb->remaining;
        if (kept < jb->duration - jb->remaining)
            kept = jb->duration - jb->remaining;
        if (kept > total)
            kept = total;
        double lost = total - kept;
        s->lost_gpu_s += n * lost;
        s->res[j].lost_gpu_s += n * lost;
        jb->remaining = jb->duration - kept;
        /* A job that reached its end exactly is done, not requeued. */
    }
    struct steam *t = &s->teams[jb->team];
    t->used_u -= jb->mu;
    t->pused_u[jb->pool_used] -= jb->mu;
    t->used = (double)t->used_u / GP_MICRO;
    gp__release (s, j);
    s->n_running--;
    gp__jheap_remove (&s->vict, j);
    gp__jheap_remove (&s->ends, j);
    jb->gen++;
}

static void finish_job (struct gp_sim *s, uint32_t j)
{
    struct sjob *jb = SJ (s, j);
    gp__stop_job (s, j, 1);
    s->st[j] = S_DONE;
    s->useful_gpu_s += JOB_GPUS (jb) * jb->duration;
    s->res[j].state = GP_JOB_DONE;
    s->res[j].end_s = s->now;
    gp__job_retire (s, j);
}

void gp__requeue (struct gp_sim *s, uint32_t j, int failed)
{
    gp__stop_job (s, j, 0);
    if (failed) {
        s->res[j].n_failed++;
    } else {
        s->res[j].n_preempt++;
        s->n_preempt++;
        s->teams[SJ (s, j)->team].n_preempted++;
    }
    push_pending (s, j);
}


/* ------------------------------- run ------------------------------------ */

static int more_work (const struct gp_sim *s)
{
    return s->cursor < s->n || s->n_pending || s->n_running;
}

static int on_event (struct gp_sim *s, const struct event *e)
{
    switch (e->kind) {
    case EV_FINISH: {
        if (s->st[e->j] != S_RUNNING)
            return 0; /* done jobs have no state slot */
        struct sjob *jb = SJ (s, e->j);
        if (jb->gen != e->gen)
            return 0;
        finish_job (s, e->j);
        return 0;
    }
    case EV_REKEY: {
        if (s->st[e->j] != S_RUNNING)
            return 0; /* done jobs have no state slot */
        struct sjob *jb = SJ (s, e->j);
        if (jb->gen != e->gen)
            return 0;
        double k[2] = {0, 0};
        gp__jheap_remove (&s->vict, e->j);
        s->ops->victim_key (SCHED (s), e->j, k);
        gp__jheap_push (&s->vict, e->j, k[0], k[1]);
        double tr = s->ops->rekey_at (SCHED (s), e->j);
        if (tr < jb->end && tr > s->now)
            return gp__ev_push (s, tr, EV_REKEY, e->j, jb->gen);
        return 0;
    }
    case EV_FAIL: {
        int32_t nd = (int32_t)(unif (s) * (double)s->n_nodes);
        if (nd >= (int32_t)s->n_nodes)
            nd = (int32_t)s->n_nodes - 1;
        if (!s->nodes[nd].down) {
            s->n_fail++;
            /* Kill every job holding GPUs on the node. */
            size_t nk = 0;
            uint32_t *kill = NULL;
            for (size_t i = 0; i < s->vict.n; i++) {
                uint32_t j = s->vict.a[i].j;
                const struct sjob *jb = SJ (s, j);
                const struct alloc *a = jb->n_alloc == 1 ? &jb->one
                                                         : jb->many;
                for (int32_t k = 0; k < jb->n_alloc; k++)
                    if (a[k].node == nd) {
                        uint32_t *x = realloc (kill, (nk + 1) * sizeof *x);
                        if (!x) {
                            free (kill);
                            return GP_ENOMEM;
                        }
                        kill = x;
                        kill[nk++] = j;
                        break;
                    }
            }
            for (size_t i = 0; i < nk; i++)
                gp__requeue (s, kill[i], 1);
            free (kill);
            gp__node_down (s, nd);
            if (gp__ev_push (s, s->now + s->cfg.node_repair_s, EV_REPAIR,
                         (uint32_t)nd, 0))
                return GP_ENOMEM;
        }
        if (more_work (s)) {
            double dt = -log (unif (s)) * s->cfg.node_mtbf_s
                        / (double)s->n_nodes;
            return gp__ev_push (s, s->now + dt, EV_FAIL, 0, 0);
        }
        return 0;
    }
    case EV_REPAIR:
        gp__node_up (s, (int32_t)e->j);
        return 0;
    }
    return 0;
}

/* The rank index serves backfill under fixed keys on whole GPUs. */
static int use_index (const struct gp_sim *s)
{
    unsigned fl = s->ops->flags;
    if (s->cfg.plain_scan || !(fl & GP_POLICY_STATIC_KEY)
        || !(fl & GP_POLICY_BACKFILL) || (fl & GP_POLICY_TEAMS))
        return 0;
    for (size_t p = 0; p < s->n_pools; p++)
        if (s->pools[p].cap_u > 0)
            return 0;
    return 1;
}

/* The ordered tree serves the passes of GP_POLICY_ORDERED policies. */
static int use_tree (const struct gp_sim *s)
{
    unsigned fl = s->ops->flags;
    if (s->cfg.plain_scan || !(fl & GP_POLICY_ORDERED)
        || !(fl & GP_POLICY_MONOTONE) || (fl & GP_POLICY_TEAMS))
        return 0;
    for (size_t p = 0; p < s->n_pools; p++)
        if (s->pools[p].cap_u > 0)
            return 0;
    return 1;
}

/* The result of job 'j' as it arrives (results are written in arrival
 * order, so their pages are touched as the replay advances).
 */
static void result_init (struct gp_sim *s, uint32_t j)
{
    struct gp_job_result *r = &s->res[j];
    r->state = s->st[j] == S_UNFIT ? GP_JOB_UNFIT : GP_JOB_UNFINISHED;
    r->first_start_s = r->last_start_s = r->end_s = -1;
}

static int run (struct gp_sim *s, gp_error_t *err)
{
    struct pass ps;
    memset (&ps, 0, sizeof ps);
    ps.tcap = 256;
    ps.tried = malloc (ps.tcap * sizeof *ps.tried);
    if (!ps.tried)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    int prc = gp__progress_check (s, err);
    if (prc) {
        free (ps.tried);
        return prc;
    }
    size_t cap = gp__event_cap (s);
    int rc = 0;
    if ((use_index (s) && gp__pidx_init (s))
        || (use_tree (s) && gp__ptreap_init (s))) {
        free (ps.tried);
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    }
    if (s->n)
        s->t_last = s->js->jobs[s->order[0]].submit_s;
    if (s->cfg.node_mtbf_s > 0 && s->n)
        rc = gp__ev_push (s, s->t_last + -log (unif (s)) * s->cfg.node_mtbf_s
                             / (double)s->n_nodes,
                      EV_FAIL, 0, 0);
    size_t tick = 0;
    while (!rc && more_work (s)) {
        double ta = s->cursor < s->n ? s->js->jobs[s->order[s->cursor]].submit_s
                                     : INFINITY;
        double te = s->n_ev ? s->ev[0].t : INFINITY;
        double t = ta < te ? ta : te;
        if (t == INFINITY)
            break; /* waiting jobs that nothing will ever unblock */
        advance (s, t);
        s->now = t;
        while (!rc && s->n_ev && s->ev[0].t <= t) {
            struct event e = gp__ev_pop (s);
            s->n_events++;
            s->ev_by_kind[e.kind]++;
            rc = on_event (s, &e);
        }
        while (s->cursor < s->n
               && s->js->jobs[s->order[s->cursor]].submit_s <= t) {
            uint32_t j = s->order[s->cursor++];
            result_init (s, j);
            s->n_events++;
            s->ev_by_kind[4]++;
            if (s->st[j] == S_UNFIT)
                continue;
            if (gp__job_activate (s, j)) {
                rc = GP_ENOMEM;
                break;
            }
            push_pending (s, j);
        }
        if (!rc)
            rc = gp__schedule (s, &ps);
        if (!rc && s->n_events > cap) {
            free (ps.tried);
            free (ps.vbuf);
            free (ps.w.a);
            return gp__event_cap_error (s, err);
        }
        if (s->cfg.progress && (++tick & 0xffff) == 0)
            s->cfg.progress ((double)s->cursor / (double)s->n,
                             s->cfg.progress_arg);
    }
    free (ps.tried);
    free (ps.vbuf);
    free (ps.w.a);
    if (rc)
        return gp_errprintf (err, rc, "simulation: out of memory");
    if (s->cfg.progress)
        s->cfg.progress (1.0, s->cfg.progress_arg);
    /* the pending-set indexes are not needed for the summary */
    gp__pidx_free (s);
    gp__ptreap_free (s);
    return gp__metrics_finish (s, err);
}

int gp_sim_run (struct gp_sim *s, gp_error_t *err)
{
    if (!s)
        return gp_errprintf (err, GP_EINVAL, "gp_sim_run: NULL argument");
    if (s->ran)
        return gp_errprintf (err, GP_EINVAL, "gp_sim_run: already run");
    s->ran = 1;
    int rc = run (s, err);
    /* jobs that did not arrive (a run that stopped on an error) */
    for (size_t c = s->cursor; c < s->n; c++)
        result_init (s, s->order[c]);
    return rc;
}
