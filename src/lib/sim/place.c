/* place.c - gang placement on the cluster state (cluster.c).
 *
 * Nodes of a pool sit in bucket lists by free GPU count (best fit and
 * worst fit in O(GPUs per node)) and under a segment tree of the maximum
 * free count (first fit in O(log nodes)).  A job that fits in one node is
 * placed on one node; a larger job takes whole free nodes first and the
 * remainder by best fit, all or nothing (gang admission).  The topology
 * strategy first looks for the rack with the least free capacity that
 * still holds the job.  docs/model/simulator.md explains the model.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_private.h"

/* --------------------------- placement --------------------------------- */

long long gp__capacity_for (const struct gp_sim *s, uint32_t j)
{
    const struct sjob *jb = SJ (s, j);
    long long best = 0;
    for (size_t i = 0; i < s->n_pools; i++)
        if (jb->pool_req < 0 || jb->pool_req == (int32_t)i)
            if (s->pools[i].total > best)
                best = s->pools[i].total;
    return best;
}

long long gp__free_for (const struct gp_sim *s, uint32_t j)
{
    const struct sjob *jb = SJ (s, j);
    if (jb->pool_req < 0)
        return s->free_gpus;
    return s->pools[jb->pool_req].free;
}

/* Pick one node of pool 'p' with >= n free by strategy; -1 if none. */
static int32_t pick_one (const struct gp_sim *s, const struct spool *p,
                         int32_t n, enum gp_placement how)
{
    if (how == GP_PLACE_PACKING)
        return gp__seg_first (p, n);
    if (how == GP_PLACE_SPREAD) {
        for (int32_t k = p->gpn; k >= n; k--)
            if (p->head[k] >= 0)
                return p->head[k];
        return -1;
    }
    for (int32_t k = n; k <= p->gpn; k++)
        if (p->head[k] >= 0)
            return p->head[k];
    (void)s;
    return -1;
}

static int set_alloc (struct gp_sim *s, uint32_t j, const struct alloc *a,
                      int32_t na, int32_t pool)
{
    struct sjob *jb = SJ (s, j);
    if (na == 1)
        jb->one = a[0];
    else {
        jb->many = malloc ((size_t)na * sizeof *jb->many);
        if (!jb->many)
            return 0;
        memcpy (jb->many, a, (size_t)na * sizeof *a);
    }
    jb->n_alloc = na;
    jb->pool_used = pool;
    jb->su = 0;
    jb->sgpu = -1;
    jb->mu = (int64_t)jb->n * GP_MICRO;
    for (int32_t i = 0; i < na; i++)
        gp__node_set_free (s, a[i].node, s->nodes[a[i].node].free - a[i].n);
    s->alloc_u += jb->mu;
    return 1;
}

/* ----------------------------- GPU sharing ------------------------------ */

int32_t gp__job_units (const struct gp_sim *s, uint32_t j, int32_t pool)
{
    const struct spool *p = &s->pools[pool];
    const struct sjob *jb = SJ (s, j);
    if (p->cap_u == 0 || jb->n != 1 || jb->milli >= 1000)
        return 0;
    if (p->cap_u == 1000)
        return jb->milli;
    /* MIG: the smallest listed profile whose slices cover the share. */
    const struct gp_pool *cp = &s->cfg.cluster->pools[pool];
    for (int k = 0; k < cp->n_mig; k++)
        if (GP_MIG_SLICES * jb->milli <= 1000 * cp->mig_slices[k])
            return cp->mig_slices[k] < GP_MIG_SLICES ? cp->mig_slices[k] : 0;
    return 0;
}

double gp__job_gpus (const struct gp_sim *s, uint32_t j, int32_t pool)
{
    int32_t u = pool >= 0 ? gp__job_units (s, j, pool) : 0;
    if (u == 0)
        return SJ (s, j)->n;
    return (double)u * s->pools[pool].micro_u / GP_MICRO;
}

/* Lists of partly used GPU slots by free units (1 .. cap_u - 1). */
static void glink (struct gp_sim *s, struct spool *p, int32_t g)
{
    int32_t r = p->cap_u - p->gused[g];
    p->gprev[g] = -1;
    p->gnext[g] = p->ghead[r];
    if (p->gnext[g] >= 0)
        p->gprev[p->gnext[g]] = g;
    p->ghead[r] = g;
    s->n_partial++;
}

static void gunlink (struct gp_sim *s, struct spool *p, int32_t g)
{
    int32_t r = p->cap_u - p->gused[g];
    if (p->gprev[g] >= 0)
        p->gnext[p->gprev[g]] = p->gnext[g];
    else
        p->ghead[r] = p->gnext[g];
    if (p->gnext[g] >= 0)
        p->gprev[p->gnext[g]] = p->gprev[g];
    s->n_partial--;
}

/* Place a share of 'u' units: on the partly used GPU with the least room
 * that fits (best fit), else on an idle GPU of the node the strategy
 * picks for one GPU.  Partly used GPUs always sit on up nodes: a failure
 * kills every job of the node before it goes down.
 */
static int place_shared (struct gp_sim *s, uint32_t j, int32_t pi, int32_t u)
{
    struct sjob *jb = SJ (s, j);
    struct spool *p = &s->pools[pi];
    int32_t g = -1, node;
    for (int32_t r = u; r < p->cap_u && g < 0; r++)
        g = p->ghead[r];
    if (g >= 0) {
        node = p->first + g / p->gpn;
        gunlink (s, p, g);
        p->gused[g] += u;
    } else {
        node = pick_one (s, p, 1, s->cfg.placement);
        if (node < 0)
            return 0;
        int32_t base = (node - p->first) * p->gpn;
        for (int32_t k = 0; k < p->gpn && g < 0; k++)
            if (p->gused[base + k] == 0)
                g = base + k;
        if (g < 0)
            return 0; /* cannot happen: free >= 1 leaves an unshared slot */
        p->gused[g] = u;
        gp__node_set_free (s, node, s->nodes[node].free - 1);
    }
    if (p->gused[g] < p->cap_u)
        glink (s, p, g);
    jb->one = (struct alloc){node, 0};
    jb->n_alloc = 1;
    jb->pool_used = pi;
    jb->su = (int16_t)u;
    jb->sgpu = g;
    jb->mu = (int64_t)u * p->micro_u;
    s->alloc_u += jb->mu;
    return 1;
}

static void release_shared (struct gp_sim *s, uint32_t j)
{
    struct sjob *jb = SJ (s, j);
    struct spool *p = &s->pools[jb->pool_used];
    int32_t g = jb->sgpu;
    if (p->gused[g] < p->cap_u)
        gunlink (s, p, g);
    p->gused[g] -= jb->su;
    if (p->gused[g] > 0)
        glink (s, p, g);
    else
        gp__node_set_free (s, jb->one.node, s->nodes[jb->one.node].free + 1);
    jb->su = 0;
    jb->sgpu = -1;
}

/* Gather nodes for a multi-node job in 'p', optionally inside rack 'rack'
 * (-1 = whole pool).  Whole free nodes first, then the remainder on the
 * best-fitting node, else the fullest nodes downward.  Writes the
 * allocation into 'out' and returns its length, 0 when it does not fit.
 */
static int32_t gather (struct gp_sim *s, const struct spool *p, int32_t n,
                       int32_t rack, struct alloc *out)
{
    int32_t need = n, na = 0;
    if (rack >= 0) {
        /* Scan the rack's nodes, largest free first (counting sort). */
        int32_t lo = -1, hi = -1;
        for (int32_t k = 0; k < p->count; k++) {
            int32_t i = p->first + k;
            if (s->nodes[i].rack == rack) {
                if (lo < 0)
                    lo = i;
                hi = i;
            }
        }
        if (lo < 0)
            return 0;
        /* Remainder first: best fit for n mod gpn on a non-full node. */
        int32_t rem = n % p->gpn;
        int32_t full_needed = n / p->gpn;
        int32_t full_have = 0;
        for (int32_t i = lo; i <= hi; i++)
            if (!s->nodes[i].down && s->nodes[i].free == p->gpn)
                full_have++;
        if (full_have >= full_needed) {
            int32_t bf = -1;
            if (rem > 0) {
                for (int32_t i = lo; i <= hi; i++) {
                    const struct node *nd = &s->nodes[i];
                    if (nd->down || nd->free < rem)
                        continue;
                    if (nd->free == p->gpn && full_have == full_needed)
                        continue; /* keep the full nodes for the gang */
                    if (bf < 0 || nd->free < s->nodes[bf].free)
                        bf = i;
                }
            }
            if (rem == 0 || bf >= 0) {
                for (int32_t i = lo; i <= hi && need > rem; i++)
                    if (!s->nodes[i].down && s->nodes[i].free == p->gpn
                        && i != bf) {
                        out[na++] = (struct alloc){i, p->gpn};
                        need -= p->gpn;
                    }
                if (rem > 0) {
                    out[na++] = (struct alloc){bf, rem};
                    need -= rem;
                }
                return need == 0 ? na : 0;
            }
        }
        for (int32_t k = p->gpn; k >= 1 && need > 0; k--)
            for (int32_t i = lo; i <= hi && need > 0; i++)
                if (!s->nodes[i].down && s->nodes[i].free == k) {
                    int32_t take = k < need ? k : need;
                    out[na++] = (struct alloc){i, take};
                    need -= take;
                }
        return need == 0 ? na : 0;
    }
    int32_t rem = n % p->gpn;
    int32_t full_needed = n / p->gpn;
    if (p->cnt[p->gpn] >= full_needed) {
        int32_t bf = -1;
        if (rem > 0) {
            for (int32_t k = rem; k < p->gpn && bf < 0; k++)
                if (p->head[k] >= 0)
                    bf = p->head[k];
            if (bf < 0 && p->cnt[p->gpn] > full_needed)
                bf = -2; /* one more full node holds the remainder */
        }
        if (rem == 0 || bf != -1) {
            int32_t i = p->head[p->gpn];
            for (int32_t c = 0; c < full_needed; c++, i = s->nodes[i].next) {
                out[na++] = (struct alloc){i, p->gpn};
                need -= p->gpn;
            }
            if (rem > 0) {
                out[na++] = (struct alloc){bf == -2 ? i : bf, rem};
                need -= rem;
            }
            return na;
        }
    }
    for (int32_t k = p->gpn; k >= 1 && need > 0; k--)
        for (int32_t i = p->head[k]; i >= 0 && need > 0;
             i = s->nodes[i].next) {
            int32_t take = k < need ? k : need;
            out[na++] = (struct alloc){i, take};
            need -= take;
        }
    return need == 0 ? na : 0;
}

static int place_in_pool (struct gp_sim *s, uint32_t j, int32_t pi)
{
    struct sjob *jb = SJ (s, j);
    struct spool *p = &s->pools[pi];
    enum gp_placement how = s->cfg.placement;
    if (p->cap_u > 0) {
        int32_t u = gp__job_units (s, j, pi);
        if (u > 0)
            return place_shared (s, j, pi, u);
    }
    if (jb->n > p->free)
        return 0;
    if (jb->n <= p->gpn) {
        int32_t i = pick_one (s, p, jb->n, how);
        if (i < 0)
            return 0;
        struct alloc a = {i, jb->n};
        return set_alloc (s, j, &a, 1, pi);
    }
    /* Multi-node gang: at most one entry per node. */
    size_t cap = (size_t)p->count;
    struct alloc stack[64];
    struct alloc *buf = cap <= 64 ? stack : malloc (cap * sizeof *buf);
    if (!buf)
        return 0;
    int32_t na = 0;
    if (how == GP_PLACE_TOPOLOGY) {
        int32_t best = -1;
        for (int32_t r = 0; r < p->n_racks; r++) {
            long long f = s->rack_free[p->rack_first + r];
            if (f >= jb->n && (best < 0 || f < s->rack_free[best]))
                best = p->rack_first + r;
        }
        if (best >= 0)
            na = gather (s, p, jb->n, best, buf);
    }
    if (na == 0)
        na = gather (s, p, jb->n, -1, buf);
    int ok = na > 0 && set_alloc (s, j, buf, na, pi);
    if (buf != stack)
        free (buf);
    return ok;
}

int gp__place_in (struct gp_sim *s, uint32_t j, int32_t pool)
{
    const struct sjob *jb = SJ (s, j);
    if (jb->pool_req >= 0 && jb->pool_req != pool)
        return 0;
    return place_in_pool (s, j, pool);
}

int gp__place (struct gp_sim *s, uint32_t j)
{
    struct sjob *jb = SJ (s, j);
    if (jb->pool_req >= 0)
        return place_in_pool (s, j, jb->pool_req);
    for (size_t i = 0; i < s->n_pools; i++)
        if (place_in_pool (s, j, (int32_t)i))
            return 1;
    return 0;
}

void gp__release (struct gp_sim *s, uint32_t j)
{
    struct sjob *jb = SJ (s, j);
    if (jb->su > 0)
        release_shared (s, j);
    const struct alloc *a = jb->n_alloc == 1 ? &jb->one : jb->many;
    for (int32_t i = 0; i < jb->n_alloc; i++) {
        struct node *nd = &s->nodes[a[i].node];
        gp__node_set_free (s, a[i].node, nd->free + a[i].n);
    }
    if (jb->n_alloc > 1)
        free (jb->many);
    jb->many = NULL;
    jb->n_alloc = 0;
    s->alloc_u -= jb->mu;
}

/* Slowdown of the current placement: 1 + comm share when the job spans
 * more scale-up domains than its ideal placement would.
 */
double gp__slowdown (struct gp_sim *s, uint32_t j)
{
    const struct sjob *jb = SJ (s, j);
    if (jb->n_alloc <= 1 || jb->comm <= 0)
        return 1.0;
    const struct spool *p = &s->pools[jb->pool_used];
    int32_t unit = p->dom_gpus > p->gpn ? p->dom_gpus : p->gpn;
    int32_t ideal = (jb->n + unit - 1) / unit;
    /* distinct domains, each marked with this call's stamp (the marks of
     * earlier calls are older stamps; all cleared when the stamp wraps);
     * the answer is known once the count passes the ideal
     */
    if (++s->dom_stamp == 0) {
        memset (s->dom_seen, 0, s->n_nodes * sizeof *s->dom_seen);
        s->dom_stamp = 1;
    }
    int32_t used = 0;
    for (int32_t i = 0; i < jb->n_alloc; i++) {
        int32_t d = s->nodes[jb->many[i].node].dom;
        if (s->dom_seen[d] == s->dom_stamp)
            continue;
        s->dom_seen[d] = s->dom_stamp;
        if (++used > ideal)
            return 1.0 + jb->comm;
    }
    return 1.0;
}

/* Fragmented GPUs: idle GPUs on nodes whose free count is below the
 * smallest pending job (capped at the node size), when jobs are waiting.
 */
double gp__fragmented (const struct gp_sim *s)
{
    if (s->n_pending == 0)
        return 0;
    int32_t m = 0;
    for (int32_t k = 1; k <= s->max_gpn; k++)
        if (s->pend_size[k] > 0) {
            m = k;
            break;
        }
    if (m == 0)
        return 0; /* only jobs larger than any node: all idle GPUs usable */
    double f = 0;
    for (size_t pi = 0; pi < s->n_pools; pi++) {
        const struct spool *p = &s->pools[pi];
        int32_t lim = m < p->gpn ? m : p->gpn;
        for (int32_t k = 1; k < lim; k++)
            f += (double)k * (double)p->cnt[k];
    }
    return f;
}
