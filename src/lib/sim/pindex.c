/* pindex.c - index of the pending set for EASY backfill under policies
 * with fixed keys (GP_POLICY_STATIC_KEY: FIFO, priority).
 *
 * Every job gets its rank in the policy's order once (the order of the
 * pending heap: key, then job index).  Ranks are grouped in buckets of
 * PB; a segment tree over the buckets keeps, for the pending jobs below
 * each node, their count, the smallest GPU count and, per class of GPU
 * count, the smallest estimated run time (float, rounded down).  A
 * backfill pass then asks for the first pending job, in queue order and
 * within its scan depth, that could start: it fits the free GPUs and ends
 * before the shadow time or fits the extra GPUs.  Jobs that could not are
 * skipped a subtree at a time, in O(log n), instead of being popped and
 * pushed back one by one; the jobs examined, and so the schedule, are the
 * same (tests/unit/test_sim_index.c compares both).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_private.h"

#define PB 16 /* ranks per bucket */

/* Classes of GPU count: 1, 2, 3-4, 5-8, 9+ (lower bounds). */
static const int32_t cls_lo[GP_PIDX_NCLS] = {1, 2, 3, 5, 9};
static const int32_t cls_hi[GP_PIDX_NCLS] = {1, 2, 4, 8, INT32_MAX};

static int cls_of (int32_t n)
{
    int c = GP_PIDX_NCLS - 1;
    while (c > 0 && n < cls_lo[c])
        c--;
    return c;
}

static double est_of (const struct gp_sim *s, const struct sjob *jb)
{
    return jb->remaining + (jb->ran ? s->cfg.restart_cost_s : 0);
}

static float down (double x)
{
    float f = (float)x;
    if ((double)f > x)
        f = nextafterf (f, -INFINITY);
    return f;
}

static void node_clear (struct pnode *p)
{
    p->cnt = 0;
    p->min_n = INT32_MAX;
    for (int c = 0; c < GP_PIDX_NCLS; c++)
        p->est[c] = INFINITY;
}

static void node_join (struct pnode *p, const struct pnode *a,
                       const struct pnode *b)
{
    p->cnt = a->cnt + b->cnt;
    p->min_n = a->min_n < b->min_n ? a->min_n : b->min_n;
    for (int c = 0; c < GP_PIDX_NCLS; c++)
        p->est[c] = a->est[c] < b->est[c] ? a->est[c] : b->est[c];
}

static void bucket_update (struct gp_sim *s, size_t b)
{
    struct pidx *x = &s->pidx;
    struct pnode *p = &x->t[x->size + b];
    node_clear (p);
    size_t r1 = (b + 1) * PB < x->nrank ? (b + 1) * PB : x->nrank;
    for (size_t r = b * PB; r < r1; r++) {
        if (!x->in[r])
            continue;
        const struct sjob *jb = SJ (s, x->job_at[r]);
        p->cnt++;
        if (jb->n < p->min_n)
            p->min_n = jb->n;
        int c = cls_of (jb->n);
        float e = down (est_of (s, jb));
        if (e < p->est[c])
            p->est[c] = e;
    }
    for (size_t i = (x->size + b) / 2; i >= 1; i /= 2)
        node_join (&x->t[i], &x->t[2 * i], &x->t[2 * i + 1]);
}

struct rk {
    double k0, k1;
    uint32_t j;
};

static int by_key (const void *a, const void *b)
{
    const struct rk *x = a, *y = b;
    if (x->k0 != y->k0)
        return x->k0 < y->k0 ? -1 : 1;
    if (x->k1 != y->k1)
        return x->k1 < y->k1 ? -1 : 1;
    return x->j < y->j ? -1 : x->j > y->j;
}

int gp__pidx_init (struct gp_sim *s)
{
    struct pidx *x = &s->pidx;
    struct rk *k = malloc ((s->n ? s->n : 1) * sizeof *k);
    x->rank_of = malloc ((s->n ? s->n : 1) * sizeof *x->rank_of);
    x->job_at = malloc ((s->n ? s->n : 1) * sizeof *x->job_at);
    x->in = calloc (s->n ? s->n : 1, 1);
    if (!k || !x->rank_of || !x->job_at || !x->in) {
        free (k);
        return GP_ENOMEM;
    }
    size_t m = 0;
    for (size_t j = 0; j < s->n; j++) {
        x->rank_of[j] = NONE;
        if (s->st[j] == S_UNFIT)
            continue;
        /* the key of a job that has not arrived: its state as it will
         * arrive, in a slot taken for the call */
        if (gp__job_activate (s, (uint32_t)j)) {
            free (k);
            return GP_ENOMEM;
        }
        double kk[2] = {SJ (s, j)->submit, 0};
        s->ops->pending_key (SCHED (s), (uint32_t)j, kk);
        gp__job_retire (s, (uint32_t)j);
        k[m++] = (struct rk){kk[0], kk[1], (uint32_t)j};
    }
    qsort (k, m, sizeof *k, by_key);
    for (size_t r = 0; r < m; r++) {
        x->job_at[r] = k[r].j;
        x->rank_of[k[r].j] = (uint32_t)r;
    }
    free (k);
    x->nrank = m;
    size_t nb = (m + PB - 1) / PB;
    x->size = 1;
    while (x->size < nb)
        x->size *= 2;
    x->t = malloc (2 * x->size * sizeof *x->t);
    if (!x->t)
        return GP_ENOMEM;
    for (size_t i = 0; i < 2 * x->size; i++)
        node_clear (&x->t[i]);
    x->on = 1;
    return 0;
}

void gp__pidx_free (struct gp_sim *s)
{
    free (s->pidx.rank_of);
    free (s->pidx.job_at);
    free (s->pidx.in);
    free (s->pidx.t);
    memset (&s->pidx, 0, sizeof s->pidx);
}

void gp__pidx_set (struct gp_sim *s, uint32_t j, int in)
{
    struct pidx *x = &s->pidx;
    uint32_t r = x->rank_of[j];
    if (r == NONE || x->in[r] == (uint8_t)in)
        return;
    x->in[r] = (uint8_t)in;
    bucket_update (s, r / PB);
}

uint32_t gp__pidx_nth (const struct gp_sim *s, size_t k)
{
    const struct pidx *x = &s->pidx;
    if (k == 0 || k > (size_t)x->t[1].cnt)
        return NONE;
    size_t i = 1;
    while (i < x->size) {
        if ((size_t)x->t[2 * i].cnt >= k)
            i = 2 * i;
        else {
            k -= (size_t)x->t[2 * i].cnt;
            i = 2 * i + 1;
        }
    }
    size_t b = i - x->size;
    for (size_t r = b * PB; r < (b + 1) * PB && r < x->nrank; r++)
        if (x->in[r] && --k == 0)
            return (uint32_t)r;
    return NONE;
}

/* Whether a node may hold a job passing the test of gp__pidx_next. */
static int could (const struct pnode *p, const struct pidx_query *q)
{
    if (p->cnt == 0)
        return 0;
    if (p->min_n > q->free)
        return 0;
    if (p->min_n <= q->extra)
        return 1;
    for (int c = 0; c < GP_PIDX_NCLS; c++)
        if (cls_lo[c] <= q->free && (double)p->est[c] <= q->slack_s
            && (cls_lo[c] <= q->fit_node || cls_hi[c] > q->gpn))
            return 1;
    return 0;
}

/* The exact test on one job: it fits the free GPUs, and the extra GPUs
 * or ends before the shadow time (as schedule.c's backfill computes it).
 */
static int passes (const struct gp_sim *s, const struct sjob *jb,
                   const struct pidx_query *q)
{
    if (jb->n > q->free || (jb->n <= q->gpn && jb->n > q->fit_node))
        return 0;
    return jb->n <= q->extra || s->now + est_of (s, jb) <= q->shadow;
}

static uint32_t visit (const struct gp_sim *s, size_t i, size_t b0,
                       size_t b1, const struct pidx_query *q)
{
    const struct pidx *x = &s->pidx;
    size_t lo = q->after == NONE ? 0 : (size_t)q->after + 1;
    if ((b1 + 1) * PB <= lo || b0 * PB > q->last || !could (&x->t[i], q))
        return NONE;
    if (i >= x->size) {
        size_t r1 = (b0 + 1) * PB < x->nrank ? (b0 + 1) * PB : x->nrank;
        for (size_t r = b0 * PB > lo ? b0 * PB : lo;
             r < r1 && r <= q->last; r++)
            if (x->in[r] && passes (s, SJ (s, x->job_at[r]), q))
                return (uint32_t)r;
        return NONE;
    }
    size_t mid = (b0 + b1) / 2;
    uint32_t r = visit (s, 2 * i, b0, mid, q);
    return r != NONE ? r : visit (s, 2 * i + 1, mid + 1, b1, q);
}

uint32_t gp__pidx_next (const struct gp_sim *s, struct pidx_query *q)
{
    /* one pool: a job that fits one node needs a node with that many free
     * GPUs (place.c), the largest free block
     */
    q->gpn = s->n_pools == 1 ? s->pools[0].gpn : INT32_MAX;
    q->fit_node = q->free;
    if (s->n_pools == 1 && s->pools[0].seg[1] < q->fit_node)
        q->fit_node = s->pools[0].seg[1];
    q->slack_s = q->shadow - s->now;
    q->slack_s += 1e-9 * (fabs (q->shadow) + fabs (s->now)) + 1e-9;
    if (q->shadow == INFINITY)
        q->slack_s = INFINITY;
    return visit (s, 1, 0, s->pidx.size - 1, q);
}
