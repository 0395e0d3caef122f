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

/* ----------------------------- job heaps -------------------------------- */

static int hless (const struct hent *a, const struct hent *b)
{
    if (a->k0 != b->k0)
        return a->k0 < b->k0;
    if (a->k1 != b->k1)
        return a->k1 < b->k1;
    return a->j < b->j;
}

static void hset (struct jheap *h, size_t i, struct hent e)
{
    h->a[i] = e;
    h->pos[e.j] = (int32_t)i;
}

static void sift_up (struct jheap *h, size_t i)
{
    struct hent e = h->a[i];
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!hless (&e, &h->a[p]))
            break;
        hset (h, i, h->a[p]);
        i = p;
    }
    hset (h, i, e);
}

static void sift_down (struct jheap *h, size_t i)
{
    struct hent e = h->a[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && hless (&h->a[c + 1], &h->a[c]))
            c++;
        if (!hless (&h->a[c], &e))
            break;
        hset (h, i, h->a[c]);
        i = c;
    }
    hset (h, i, e);
}

int jheap_grow (struct jheap *h, size_t cap)
{
    if (cap <= h->cap)
        return 0;
    size_t nc = h->cap ? h->cap : 64;
    while (nc < cap)
        nc *= 2;
    struct hent *a = realloc (h->a, nc * sizeof *a);
    if (!a)
        return GP_ENOMEM;
    h->a = a;
    h->cap = nc;
    return 0;
}

/* Capacity is reserved up front (gp_sim_create), so pushes cannot fail. */
void jheap_push (struct jheap *h, uint32_t j, double k0, double k1)
{
    struct hent e = {k0, k1, j};
    h->a[h->n] = e;
    h->pos[j] = (int32_t)h->n;
    h->n++;
    sift_up (h, h->n - 1);
}

void jheap_remove (struct jheap *h, uint32_t j)
{
    int32_t i = h->pos[j];
    if (i < 0)
        return;
    h->pos[j] = -1;
    h->n--;
    if ((size_t)i == h->n)
        return;
    struct hent last = h->a[h->n];
    hset (h, (size_t)i, last);
    sift_up (h, (size_t)i);
    sift_down (h, (size_t)h->pos[last.j]);
}

/* Visit heap entries in key order without modifying the heap: a small
 * auxiliary heap of slot indices ('k smallest of a heap' in O(k log k)).
 */
struct walk {
    const struct jheap *h;
    size_t *a;
    size_t n, cap;
};

static int walk_push (struct walk *w, size_t slot)
{
    if (slot >= w->h->n)
        return 0;
    if (w->n == w->cap) {
        size_t nc = w->cap ? w->cap * 2 : 64;
        size_t *a = realloc (w->a, nc * sizeof *a);
        if (!a)
            return GP_ENOMEM;
        w->a = a;
        w->cap = nc;
    }
    size_t i = w->n++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!hless (&w->h->a[slot], &w->h->a[w->a[p]]))
            break;
        w->a[i] = w->a[p];
        i = p;
    }
    w->a[i] = slot;
    return 0;
}

/* Next job in key order, or NONE. */
static uint32_t walk_next (struct walk *w)
{
    if (w->n == 0)
        return NONE;
    size_t top = w->a[0];
    size_t last = w->a[--w->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= w->n)
            break;
        if (c + 1 < w->n && hless (&w->h->a[w->a[c + 1]], &w->h->a[w->a[c]]))
            c++;
        if (!hless (&w->h->a[w->a[c]], &w->h->a[last]))
            break;
        w->a[i] = w->a[c];
        i = c;
    }
    if (w->n)
        w->a[i] = last;
    if (walk_push (w, 2 * top + 1) || walk_push (w, 2 * top + 2))
        return NONE;
    return w->h->a[top].j;
}

static void walk_start (struct walk *w, const struct jheap *h)
{
    w->h = h;
    w->n = 0;
    walk_push (w, 0);
}

/* ----------------------------- event heap ------------------------------- */

static int eless (const struct event *a, const struct event *b)
{
    if (a->t != b->t)
        return a->t < b->t;
    if (a->kind != b->kind)
        return a->kind < b->kind;
    return a->j < b->j;
}

static int ev_push (struct gp_sim *s, double t, enum ev_kind kind,
                    uint32_t j, uint32_t gen)
{
    if (s->n_ev == s->cap_ev) {
        size_t nc = s->cap_ev ? s->cap_ev * 2 : 1024;
        struct event *a = realloc (s->ev, nc * sizeof *a);
        if (!a)
            return GP_ENOMEM;
        s->ev = a;
        s->cap_ev = nc;
    }
    struct event e = {t, (uint32_t)kind, j, gen};
    size_t i = s->n_ev++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!eless (&e, &s->ev[p]))
            break;
        s->ev[i] = s->ev[p];
        i = p;
    }
    s->ev[i] = e;
    return 0;
}

static struct event ev_pop (struct gp_sim *s)
{
    struct event top = s->ev[0];
    struct event e = s->ev[--s->n_ev];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= s->n_ev)
            break;
        if (c + 1 < s->n_ev && eless (&s->ev[c + 1], &s->ev[c]))
            c++;
        if (!eless (&s->ev[c], &e))
            break;
        s->ev[i] = s->ev[c];
        i = c;
    }
    if (s->n_ev)
        s->ev[i] = e;
    return top;
}

/* ------------------------------- RNG ------------------------------------ */

static double unif (struct gp_sim *s)
{
    return gp__rng_u01 (&s->rng);
}

/* -------------------------- policy accessors ---------------------------- */

#define SIM(s) ((const struct gp_sim *)(const void *)(s))

const struct gp_job *gp_sched_job (const struct gp_sched *s, uint32_t j)
{
    return &SIM (s)->js->jobs[j];
}

double gp_sched_now (const struct gp_sched *s)
{
    return SIM (s)->now;
}

int gp_sched_priority (const struct gp_sched *s, uint32_t j)
{
    return SIM (s)->jobs[j].prio;
}

double gp_sched_attained_gpu_s (const struct gp_sched *s, uint32_t j)
{
    const struct sjob *jb = &SIM (s)->jobs[j];
    double a = jb->attained;
    if (jb->state == S_RUNNING)
        a += JOB_GPUS (jb) * (SIM (s)->now - jb->seg_start);
    return a;
}

double gp_sched_remaining_s (const struct gp_sched *s, uint32_t j)
{
    const struct sjob *jb = &SIM (s)->jobs[j];
    if (jb->state != S_RUNNING)
        return jb->remaining;
    double w = (SIM (s)->now - jb->seg_start - jb->seg_over) / jb->seg_factor;
    if (w < 0)
        w = 0;
    return jb->remaining > w ? jb->remaining - w : 0;
}

double gp_sched_since_s (const struct gp_sched *s, uint32_t j)
{
    return SIM (s)->jobs[j].since;
}

double gp_sched_las_threshold (const struct gp_sched *s)
{
    return SIM (s)->cfg.las_threshold_gpu_s;
}

size_t gp_sched_n_teams (const struct gp_sched *s)
{
    return SIM (s)->n_teams;
}

double gp_sched_team_used (const struct gp_sched *s, int t)
{
    return SIM (s)->teams[t].used;
}

double gp_sched_team_weight (const struct gp_sched *s, int t)
{
    return SIM (s)->teams[t].weight;
}

double gp_sched_team_quota (const struct gp_sched *s, int t)
{
    return SIM (s)->teams[t].quota;
}

double gp_sched_team_borrow_limit (const struct gp_sched *s, int t)
{
    return SIM (s)->teams[t].borrow;
}

double gp_sched_team_lend_limit (const struct gp_sched *s, int t)
{
    return SIM (s)->teams[t].lend;
}

int gp_sched_team_cohort (const struct gp_sched *s, int t)
{
    return SIM (s)->teams[t].cohort;
}

long long gp_sched_total_gpus (const struct gp_sched *s)
{
    return SIM (s)->total_gpus;
}

size_t gp_sched_n_pools (const struct gp_sched *s)
{
    return SIM (s)->n_pools;
}

double gp_sched_job_gpus (const struct gp_sched *s, uint32_t j, int pool)
{
    return gp__job_gpus (SIM (s), j, pool);
}

int gp_sched_job_pool (const struct gp_sched *s, uint32_t j)
{
    const struct sjob *jb = &SIM (s)->jobs[j];
    return jb->state == S_RUNNING ? jb->pool_used : -1;
}

int gp_sched_team_per_pool (const struct gp_sched *s, int t)
{
    return SIM (s)->teams[t].per_pool;
}

double gp_sched_team_pool_quota (const struct gp_sched *s, int t, int pool)
{
    const struct steam *tm = &SIM (s)->teams[t];
    return tm->per_pool ? tm->pq[pool] : -1;
}

double gp_sched_team_pool_borrow_limit (const struct gp_sched *s, int t,
                                        int pool)
{
    const struct steam *tm = &SIM (s)->teams[t];
    return tm->per_pool ? tm->pborrow[pool] : -1;
}

double gp_sched_team_pool_lend_limit (const struct gp_sched *s, int t,
                                      int pool)
{
    const struct steam *tm = &SIM (s)->teams[t];
    return tm->per_pool ? tm->plend[pool] : -1;
}

double gp_sched_team_pool_used (const struct gp_sched *s, int t, int pool)
{
    return (double)SIM (s)->teams[t].pused_u[pool] / GP_MICRO;
}

#define SCHED(s) ((const struct gp_sched *)(const void *)(s))

/* ---------------------------- bookkeeping ------------------------------- */

static void series_add (struct gp_sim *s, double t0, double t1)
{
    double iv = s->cfg.sample_interval_s;
    double frag = s->n_pending ? gp__fragmented (s) : 0;
    while (t0 < t1) {
        size_t b = (size_t)floor (t0 / iv);
        while (s->n_series <= b) {
            if (s->n_series == s->cap_series) {
                size_t nc = s->cap_series ? s->cap_series * 2 : 256;
                struct gp_sim_sample *a =
                    realloc (s->series, nc * sizeof *a);
                if (!a)
                    return; /* series is best effort; metrics unaffected */
                s->series = a;
                s->cap_series = nc;
            }
            struct gp_sim_sample *x = &s->series[s->n_series];
            memset (x, 0, sizeof *x);
            x->t_s = (double)s->n_series * iv;
            s->n_series++;
        }
        double end = ((double)b + 1) * iv;
        if (end > t1)
            end = t1;
        double w = (end - t0) / iv;
        struct gp_sim_sample *x = &s->series[b];
        x->alloc_gpus += (double)s->alloc_u / GP_MICRO * w;
        x->queue_len += (double)s->n_pending * w;
        x->running += (double)s->n_running * w;
        x->frag_gpus += frag * w;
        t0 = end;
    }
}

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
        series_add (s, s->t_last, t);
    s->t_last = t;
}

static int size_slot (const struct gp_sim *s, int32_t n)
{
    return n <= s->max_gpn ? n : s->max_gpn + 1;
}

static void push_pending (struct gp_sim *s, uint32_t j)
{
    struct sjob *jb = &s->jobs[j];
    double k[2] = {jb->submit, 0};
    jb->state = S_PENDING;
    jb->since = s->now;
    s->ops->pending_key (SCHED (s), j, k);
    if (s->ops->flags & GP_POLICY_TEAMS)
        jheap_push (&s->teams[jb->team].q, j, k[0], k[1]);
    else
        jheap_push (&s->pend, j, k[0], k[1]);
    s->n_pending++;
    s->pend_size[size_slot (s, jb->n)]++;
}

/* Take 'j' out of the pending structures (after it was popped). */
static void leave_pending (struct gp_sim *s, uint32_t j)
{
    struct sjob *jb = &s->jobs[j];
    s->n_pending--;
    s->pend_size[size_slot (s, jb->n)]--;
    s->res[j].queued_s += s->now - jb->since;
}

static int start_job (struct gp_sim *s, uint32_t j)
{
    struct sjob *jb = &s->jobs[j];
    struct gp_job_result *r = &s->res[j];
    leave_pending (s, j);
    jb->state = S_RUNNING;
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
    jheap_push (&s->vict, j, k[0], k[1]);
    jheap_push (&s->ends, j, jb->end, 0);
    jb->gen++;
    if (ev_push (s, jb->end, EV_FINISH, j, jb->gen))
        return GP_ENOMEM;
    if (s->ops->rekey_at) {
        double tr = s->ops->rekey_at (SCHED (s), j);
        if (tr < jb->end && tr > s->now)
            if (ev_push (s, tr, EV_REKEY, j, jb->gen))
                return GP_ENOMEM;
    }
    return 0;
}

/* End the current segment of running job 'j' at 'now': account the
 * GPU-seconds, release the GPUs.  'done' = the work is complete.
 */
static void stop_job (struct gp_sim *s, uint32_t j, int done)
{
    struct sjob *jb = &s->jobs[j];
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
    jheap_remove (&s->vict, j);
    jheap_remove (&s->ends, j);
    jb->gen++;
}

static void finish_job (struct gp_sim *s, uint32_t j)
{
    struct sjob *jb = &s->jobs[j];
    stop_job (s, j, 1);
    jb->state = S_DONE;
    s->useful_gpu_s += JOB_GPUS (jb) * jb->duration;
    s->res[j].state = GP_JOB_DONE;
    s->res[j].end_s = s->now;
}

static void requeue (struct gp_sim *s, uint32_t j, int failed)
{
    stop_job (s, j, 0);
    if (failed) {
        s->res[j].n_failed++;
    } else {
        s->res[j].n_preempt++;
        s->n_preempt++;
        s->teams[s->jobs[j].team].n_preempted++;
    }
    push_pending (s, j);
}

/* --------------------------- scheduling pass ---------------------------- */

/* GPU-seconds lost if running job 'v' were evicted now: the work since
 * its last checkpoint, plus the restart overhead it will pay (the same
 * arithmetic as stop_job).
 */
static double evict_cost (const struct gp_sim *s, uint32_t v)
{
    const struct sjob *jb = &s->jobs[v];
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
    const struct sjob *pj = &s->jobs[p];
    long long have = s->pools[req].free, acc = 0;
    size_t nv = 0;
    int depth = s->cfg.backfill_depth;
    *cost = 0;
    if (pj->n > s->pools[req].total)
        return -1;
    walk_start (w, &s->vict);
    for (uint32_t v; have + acc < pj->n && (v = walk_next (w)) != NONE
                     && depth-- > 0;) {
        if (!s->ops->may_preempt (SCHED (s), p, v)) {
            if (s->ops->flags & GP_POLICY_MONOTONE)
                break;
            continue;
        }
        const struct sjob *vj = &s->jobs[v];
        if (vj->pool_used != req || vj->su > 0)
            continue;
        if (nv == *vcap) {
            size_t nc = *vcap ? *vcap * 2 : 64;
            uint32_t *a = realloc (*vbuf, nc * sizeof *a);
            if (!a)
                return -1;
            *vbuf = a;
            *vcap = nc;
        }
        (*vbuf)[nv++] = v;
        acc += vj->n;
    }
    if (have + acc < pj->n)
        return -1;
    struct vcost *vc = malloc ((nv ? nv : 1) * sizeof *vc);
    if (!vc)
        return -1;
    for (size_t i = 0; i < nv; i++)
        vc[i] = (struct vcost){evict_cost (s, (*vbuf)[i]), (uint32_t)i,
                               (*vbuf)[i]};
    qsort (vc, nv, sizeof *vc, by_cost_desc);
    size_t k = 0;
    for (size_t i = 0; i < nv; i++) {
        int32_t n = s->jobs[vc[i].v].n;
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
static int try_preempt (struct gp_sim *s, uint32_t p, int32_t pool,
                        struct walk *w, uint32_t **vbuf, size_t *vcap)
{
    const struct sjob *pj = &s->jobs[p];
    int32_t req = pool >= 0 ? pool : pj->pool_req;
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
            requeue (s, (*vbuf)[i], 0);
        return gp__place_in (s, p, best);
    }
    int depth = s->cfg.backfill_depth;
    size_t nv = 0;
    int32_t hit = -1;
    walk_start (w, &s->vict);
    for (uint32_t v; (v = walk_next (w)) != NONE && depth-- > 0;) {
        if (!s->ops->may_preempt (SCHED (s), p, v)) {
            if (s->ops->flags & GP_POLICY_MONOTONE)
                break;
            continue;
        }
        const struct sjob *vj = &s->jobs[v];
        if ((req >= 0 && vj->pool_used != req) || vj->su > 0)
            continue;
        if (nv == *vcap) {
            size_t nc = *vcap ? *vcap * 2 : 64;
            uint32_t *a = realloc (*vbuf, nc * sizeof *a);
            if (!a)
                break;
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
        const struct sjob *vj = &s->jobs[(*vbuf)[i]];
        const struct alloc *a = vj->n_alloc == 1 ? &vj->one : vj->many;
        for (int32_t k = 0; k < vj->n_alloc; k++)
            s->scratch[a[k].node] = 0;
    }
    if (hit < 0)
        return 0;
    for (size_t i = 0; i < nv; i++) {
        uint32_t v = (*vbuf)[i];
        const struct sjob *vj = &s->jobs[v];
        const struct alloc *a = vj->n_alloc == 1 ? &vj->one : vj->many;
        int on = 0;
        for (int32_t k = 0; k < vj->n_alloc; k++)
            on |= a[k].node == hit;
        if (on)
            requeue (s, v, 0);
    }
    return gp__place_in (s, p, s->nodes[hit].pool);
}

/* EASY backfill behind blocked head 'h': the head keeps a reservation at
 * the shadow time (when enough running jobs have ended); others may start
 * now if they end before it or use only GPUs the head will not need.
 */
static int backfill (struct gp_sim *s, uint32_t h, struct walk *w,
                     uint32_t **tried, size_t *nt, size_t *tcap)
{
    const struct sjob *hj = &s->jobs[h];
    long long freeh = gp__free_for (s, h);
    long long acc = 0;
    double shadow = INFINITY;
    walk_start (w, &s->ends);
    for (uint32_t r; (r = walk_next (w)) != NONE;) {
        const struct sjob *rj = &s->jobs[r];
        if (hj->pool_req >= 0 && rj->pool_used != hj->pool_req)
            continue;
        acc += rj->n;
        if (freeh + acc >= hj->n) {
            shadow = rj->end;
            break;
        }
    }
    long long extra = freeh + acc - hj->n;
    if (shadow == INFINITY)
        extra = freeh;
    int depth = s->cfg.backfill_depth;
    while (depth-- > 0 && (s->free_gpus > 0 || s->n_partial > 0)) {
        if (s->pend.n == 0)
            break;
        uint32_t c = s->pend.a[0].j;
        jheap_remove (&s->pend, c);
        struct sjob *cj = &s->jobs[c];
        double est = cj->remaining + (cj->ran ? s->cfg.restart_cost_s : 0);
        int before = s->now + est <= shadow;
        int shares = hj->pool_req >= 0 && cj->pool_req >= 0
                     && hj->pool_req != cj->pool_req;
        if ((before || shares || cj->n <= extra) && gp__place (s, c)) {
            if (!before && !shares)
                extra -= cj->n;
            if (start_job (s, c))
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

struct pass {
    uint32_t *tried;
    size_t nt, tcap;
    uint32_t *vbuf;
    size_t vcap;
    struct walk w;
};

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
                   && try_preempt (s, j, -1, &ps->w, &ps->vbuf, &ps->vcap));
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
            && try_preempt (s, j, (int32_t)p, &ps->w, &ps->vbuf, &ps->vcap))
            return 1;
    return 0;
}

static uint32_t pick (struct gp_sim *s)
{
    if (!(s->ops->flags & GP_POLICY_TEAMS)) {
        if (s->pend.n == 0)
            return NONE;
        uint32_t j = s->pend.a[0].j;
        jheap_remove (&s->pend, j);
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
    jheap_remove (&s->teams[best].q, j);
    return j;
}

static int schedule (struct gp_sim *s, struct pass *ps)
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
        if (ok) {
            if ((rc = start_job (s, j)))
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
            jheap_push (&s->teams[s->jobs[j].team].q, j, k[0], k[1]);
        else
            jheap_push (&s->pend, j, k[0], k[1]);
    }
    return rc;
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
        struct sjob *jb = &s->jobs[e->j];
        if (jb->state != S_RUNNING || jb->gen != e->gen)
            return 0;
        finish_job (s, e->j);
        return 0;
    }
    case EV_REKEY: {
        struct sjob *jb = &s->jobs[e->j];
        if (jb->state != S_RUNNING || jb->gen != e->gen)
            return 0;
        double k[2] = {0, 0};
        jheap_remove (&s->vict, e->j);
        s->ops->victim_key (SCHED (s), e->j, k);
        jheap_push (&s->vict, e->j, k[0], k[1]);
        double tr = s->ops->rekey_at (SCHED (s), e->j);
        if (tr < jb->end && tr > s->now)
            return ev_push (s, tr, EV_REKEY, e->j, jb->gen);
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
                const struct sjob *jb = &s->jobs[j];
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
                requeue (s, kill[i], 1);
            free (kill);
            gp__node_down (s, nd);
            if (ev_push (s, s->now + s->cfg.node_repair_s, EV_REPAIR,
                         (uint32_t)nd, 0))
                return GP_ENOMEM;
        }
        if (more_work (s)) {
            double dt = -log (unif (s)) * s->cfg.node_mtbf_s
                        / (double)s->n_nodes;
            return ev_push (s, s->now + dt, EV_FAIL, 0, 0);
        }
        return 0;
    }
    case EV_REPAIR:
        gp__node_up (s, (int32_t)e->j);
        return 0;
    }
    return 0;
}

int gp_sim_run (struct gp_sim *s, gp_error_t *err)
{
    if (!s)
        return gp_errprintf (err, GP_EINVAL, "gp_sim_run: NULL argument");
    if (s->ran)
        return gp_errprintf (err, GP_EINVAL, "gp_sim_run: already run");
    s->ran = 1;
    struct pass ps;
    memset (&ps, 0, sizeof ps);
    ps.tcap = 256;
    ps.tried = malloc (ps.tcap * sizeof *ps.tried);
    if (!ps.tried)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    int rc = 0;
    if (s->n)
        s->t_last = s->jobs[s->order[0]].submit;
    if (s->cfg.node_mtbf_s > 0 && s->n)
        rc = ev_push (s, s->t_last + -log (unif (s)) * s->cfg.node_mtbf_s
                             / (double)s->n_nodes,
                      EV_FAIL, 0, 0);
    size_t tick = 0;
    while (!rc && more_work (s)) {
        double ta = s->cursor < s->n ? s->jobs[s->order[s->cursor]].submit
                                     : INFINITY;
        double te = s->n_ev ? s->ev[0].t : INFINITY;
        double t = ta < te ? ta : te;
        if (t == INFINITY)
            break; /* waiting jobs that nothing will ever unblock */
        advance (s, t);
        s->now = t;
        while (!rc && s->n_ev && s->ev[0].t <= t) {
            struct event e = ev_pop (s);
            s->n_events++;
            rc = on_event (s, &e);
        }
        while (s->cursor < s->n
               && s->jobs[s->order[s->cursor]].submit <= t) {
            uint32_t j = s->order[s->cursor++];
            s->n_events++;
            if (s->jobs[j].state == S_UNFIT)
                continue;
            push_pending (s, j);
        }
        if (!rc)
            rc = schedule (s, &ps);
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
    return gp__metrics_finish (s, err);
}

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
    cfg->node_repair_s = 3600 * gp_default (d, GP_DEF_RELIABILITY_NODE_REPAIR_H);
    cfg->backfill_depth = 256;
    cfg->las_threshold_gpu_s = 3600;
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
        || cfg->backfill_depth < 0 || cfg->las_threshold_gpu_s < 0) {
        gp_errprintf (err, GP_EINVAL,
                      "simulation: negative or unknown configuration value");
        return NULL;
    }
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
    if (s->cfg.backfill_depth == 0)
        s->cfg.backfill_depth = 256;
    if (s->cfg.las_threshold_gpu_s == 0)
        s->cfg.las_threshold_gpu_s = 3600;
    if (s->cfg.long_job_s == 0)
        s->cfg.long_job_s = 86400;
    s->ops = cfg->policy ? cfg->policy : &gp_policy_fifo;
    s->js = js;
    s->n = js->n_jobs;
    s->rng = cfg->seed ^ 0x6a09e667f3bcc909ULL;
    size_t n = s->n ? s->n : 1;
    s->jobs = calloc (n, sizeof *s->jobs);
    s->res = calloc (n, sizeof *s->res);
    s->order = malloc (n * sizeof *s->order);
    s->ppos = malloc (n * sizeof *s->ppos);
    s->vpos = malloc (n * sizeof *s->vpos);
    s->epos = malloc (n * sizeof *s->epos);
    if (!s->jobs || !s->res || !s->order || !s->ppos || !s->vpos || !s->epos)
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
    if (jheap_grow (&s->pend, n) || jheap_grow (&s->vict, n)
        || jheap_grow (&s->ends, n))
        goto nomem;
    if (s->ops->flags & GP_POLICY_TEAMS)
        for (size_t t = 0; t < s->n_teams; t++)
            if (jheap_grow (&s->teams[t].q, 64))
                goto nomem;
    /* Per-pool name resolution of jobs that require a pool. */
    int *pmap = calloc (js->n_pools ? js->n_pools : 1, sizeof *pmap);
    if (!pmap)
        goto nomem;
    for (size_t i = 0; i < js->n_pools; i++) {
        pmap[i] = -1;
        for (size_t p = 0; p < cfg->cluster->n_pools; p++)
            if (strcmp (cfg->cluster->pools[p].name, js->pools[i]) == 0)
                pmap[i] = (int)p;
    }
    size_t *team_n = calloc (s->n_teams ? s->n_teams : 1, sizeof *team_n);
    if (!team_n) {
        free (pmap);
        goto nomem;
    }
    for (size_t i = 0; i < s->n; i++) {
        const struct gp_job *g = &js->jobs[i];
        struct sjob *jb = &s->jobs[i];
        s->ppos[i] = s->vpos[i] = s->epos[i] = -1;
        s->order[i] = (uint32_t)i;
        if (g->pool >= 0 && (size_t)g->pool < js->n_pools
            && pmap[g->pool] < 0) {
            gp_errprintf (err, GP_ENOTFOUND,
                          "job %lld (line %u) requires pool '%s', which the "
                          "cluster '%s' does not have",
                          (long long)g->id, g->line, js->pools[g->pool],
                          cfg->cluster->name);
            free (pmap);
            free (team_n);
            goto fail;
        }
        if (!(g->duration_s > 0) || !isfinite (g->submit_s) || g->n_gpus < 0
            || g->team < 0 || (size_t)g->team >= js->n_teams) {
            gp_errprintf (err, GP_EINVAL,
                          "job %lld (line %u): duration must be > 0, GPUs "
                          ">= 0 and the team known",
                          (long long)g->id, g->line);
            free (pmap);
            free (team_n);
            goto fail;
        }
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
        jb->pool_req = g->pool >= 0 ? pmap[g->pool] : -1;
        jb->pool_used = -1;
        jb->ckpt = g->ckpt_interval_s > 0 ? g->ckpt_interval_s
                                          : s->cfg.ckpt_interval_s;
        jb->comm = g->comm_share > 0 ? g->comm_share : s->cfg.comm_share;
        jb->seg_factor = 1;
        struct gp_job_result *r = &s->res[i];
        r->state = GP_JOB_UNFINISHED;
        r->first_start_s = r->last_start_s = r->end_s = -1;
        if (jb->n > gp__capacity_for (s, (uint32_t)i)) {
            jb->state = S_UNFIT;
            r->state = GP_JOB_UNFIT;
        }
        team_n[jb->team]++;
    }
    free (pmap);
    for (size_t t = 0; t < s->n_teams; t++)
        if ((s->ops->flags & GP_POLICY_TEAMS)
            && jheap_grow (&s->teams[t].q, team_n[t] + 1)) {
            free (team_n);
            goto nomem;
        }
    free (team_n);
    /* Arrival order: submit time, then index (no global state, so
     * simulations may run in parallel threads).
     */
    struct skey *keys = malloc (n * sizeof *keys);
    if (!keys)
        goto nomem;
    for (size_t i = 0; i < s->n; i++)
        keys[i] = (struct skey){s->jobs[i].submit, (uint32_t)i};
    qsort (keys, s->n, sizeof *keys, by_submit);
    for (size_t i = 0; i < s->n; i++)
        s->order[i] = keys[i].j;
    free (keys);
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
    for (size_t i = 0; s->jobs && i < s->n; i++)
        if (s->jobs[i].n_alloc > 1)
            free (s->jobs[i].many);
    for (size_t t = 0; s->teams && t < s->n_teams; t++)
        free (s->teams[t].q.a);
    free (s->teams);
    free (s->team_pool_d);
    free (s->team_pool_u);
    gp__cluster_free (s);
    free (s->pend.a);
    free (s->vict.a);
    free (s->ends.a);
    free (s->ppos);
    free (s->vpos);
    free (s->epos);
    free (s->pend_size);
    free (s->ev);
    free (s->jobs);
    free (s->res);
    free (s->order);
    free (s->series);
    free (s->m.teams);
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
