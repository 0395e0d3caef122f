/* ptreap.c - the pending set as an ordered tree (a treap: a binary search
 * tree by the policy's key with heap-ordered pseudo-random priorities,
 * Seidel and Aragon 1996), for policies whose keys change on re-queue
 * (LAS, SRTF).  Each node keeps the size and the smallest GPU count of
 * its subtree, so a pass can find the next waiting job in queue order
 * that fits the free GPUs, and count the jobs it skipped, in O(log n)
 * expected (schedule.c, GP_POLICY_ORDERED).  Nodes are the jobs' indices.
 */
#include <stdlib.h>
#include <string.h>

#include "sim_private.h"

static uint32_t prio (uint32_t j)
{
    uint32_t x = j * 0x9e3779b9u;
    x ^= x >> 16;
    x *= 0x85ebca6bu;
    x ^= x >> 13;
    return x;
}

static int kless (const struct ptreap *t, uint32_t a, uint32_t b)
{
    if (t->nd[a].k0 != t->nd[b].k0)
        return t->nd[a].k0 < t->nd[b].k0;
    if (t->nd[a].k1 != t->nd[b].k1)
        return t->nd[a].k1 < t->nd[b].k1;
    return a < b;
}

static void pull (const struct gp_sim *s, struct ptreap *t, uint32_t x)
{
    (void)s;
    struct tnode *v = &t->nd[x];
    int32_t m = !v->tried && v->n <= t->gpn ? v->n : INT32_MAX;
    int32_t b = !v->tried && v->n > t->gpn ? v->n : INT32_MAX;
    uint32_t c = v->tried ? 0 : 1;
    for (int k = 0; k < 2; k++) {
        uint32_t y = k ? v->r : v->l;
        if (y == NONE)
            continue;
        c += t->nd[y].cnt;
        if (t->nd[y].mn < m)
            m = t->nd[y].mn;
        if (t->nd[y].mb < b)
            b = t->nd[y].mb;
    }
    v->cnt = c;
    v->mn = m;
    v->mb = b;
}

/* Split 'x' into keys before 'k' (*a) and the rest (*b); 'k' itself goes
 * to *b.
 */
static void split (const struct gp_sim *s, struct ptreap *t, uint32_t x,
                   uint32_t k, uint32_t *a, uint32_t *b)
{
    if (x == NONE) {
        *a = *b = NONE;
        return;
    }
    if (kless (t, x, k)) {
        split (s, t, t->nd[x].r, k, &t->nd[x].r, b);
        *a = x;
    } else {
        split (s, t, t->nd[x].l, k, a, &t->nd[x].l);
        *b = x;
    }
    pull (s, t, x);
}

static uint32_t merge (const struct gp_sim *s, struct ptreap *t, uint32_t a,
                       uint32_t b)
{
    if (a == NONE)
        return b;
    if (b == NONE)
        return a;
    if (prio (a) > prio (b)) {
        t->nd[a].r = merge (s, t, t->nd[a].r, b);
        pull (s, t, a);
        return a;
    }
    t->nd[b].l = merge (s, t, a, t->nd[b].l);
    pull (s, t, b);
    return b;
}

int gp__ptreap_init (struct gp_sim *s)
{
    struct ptreap *t = &s->ptreap;
    size_t n = s->n ? s->n : 1;
    t->nd = malloc (n * sizeof *t->nd);
    if (!t->nd)
        return GP_ENOMEM;
    t->root = NONE;
    t->on = 1;
    /* one pool: jobs that fit a node need a node with that many free */
    t->gpn = s->n_pools == 1 ? s->pools[0].gpn : INT32_MAX;
    return 0;
}

void gp__ptreap_free (struct gp_sim *s)
{
    struct ptreap *t = &s->ptreap;
    free (t->nd);
    memset (t, 0, sizeof *t);
}

void gp__ptreap_insert (struct gp_sim *s, uint32_t j, double k0, double k1)
{
    struct ptreap *t = &s->ptreap;
    t->nd[j].k0 = k0;
    t->nd[j].k1 = k1;
    t->nd[j].n = SJ (s, j)->n;
    t->nd[j].tried = 0;
    t->nd[j].l = t->nd[j].r = NONE;
    pull (s, t, j);
    uint32_t a, b;
    split (s, t, t->root, j, &a, &b);
    t->root = merge (s, t, merge (s, t, a, j), b);
}

static uint32_t erase (const struct gp_sim *s, struct ptreap *t, uint32_t x,
                       uint32_t j)
{
    if (x == NONE)
        return NONE;
    if (x == j)
        return merge (s, t, t->nd[j].l, t->nd[j].r);
    if (kless (t, j, x))
        t->nd[x].l = erase (s, t, t->nd[x].l, j);
    else
        t->nd[x].r = erase (s, t, t->nd[x].r, j);
    pull (s, t, x);
    return x;
}

void gp__ptreap_remove (struct gp_sim *s, uint32_t j)
{
    s->ptreap.root = erase (s, &s->ptreap, s->ptreap.root, j);
}

size_t gp__ptreap_count_before (const struct gp_sim *s, uint32_t j)
{
    const struct ptreap *t = &s->ptreap;
    size_t c = 0;
    for (uint32_t x = t->root; x != NONE;) {
        if (kless (t, x, j)) {
            c += (t->nd[x].tried ? 0 : 1)
                 + (t->nd[x].l != NONE ? t->nd[t->nd[x].l].cnt : 0);
            x = t->nd[x].r;
        } else
            x = t->nd[x].l;
    }
    return c;
}

/* 'fs': most GPUs a job that fits one node can get (the largest free
 * block); 'fb': most a larger job can get (free GPUs).
 */
static uint32_t first (const struct ptreap *t, uint32_t x, uint32_t after,
                       int32_t fs, int32_t fb)
{
    while (x != NONE && (t->nd[x].mn <= fs || t->nd[x].mb <= fb)) {
        if (after != NONE && !kless (t, after, x)) {
            x = t->nd[x].r; /* x is at or before 'after' */
            continue;
        }
        uint32_t r = first (t, t->nd[x].l, after, fs, fb);
        if (r != NONE)
            return r;
        int32_t n = t->nd[x].n;
        if (!t->nd[x].tried && (n <= t->gpn ? n <= fs : n <= fb))
            return x;
        x = t->nd[x].r;
    }
    return NONE;
}

uint32_t gp__ptreap_next_fit (const struct gp_sim *s, uint32_t after,
                              long long free)
{
    int32_t fb = free > INT32_MAX ? INT32_MAX : (int32_t)free;
    int32_t fs = fb;
    if (s->n_pools == 1 && s->pools[0].seg[1] < fs)
        fs = s->pools[0].seg[1];
    return first (&s->ptreap, s->ptreap.root, after, fs, fb);
}

static void mark (const struct gp_sim *s, struct ptreap *t, uint32_t x,
                  uint32_t j, int tried)
{
    if (x == NONE)
        return;
    if (x == j)
        t->nd[j].tried = (uint8_t)tried;
    else
        mark (s, t, kless (t, j, x) ? t->nd[x].l : t->nd[x].r, j, tried);
    pull (s, t, x);
}

void gp__ptreap_mark (struct gp_sim *s, uint32_t j, int tried)
{
    mark (s, &s->ptreap, s->ptreap.root, j, tried);
}

uint32_t gp__ptreap_first (const struct gp_sim *s)
{
    const struct ptreap *t = &s->ptreap;
    uint32_t x = t->root;
    while (x != NONE && t->nd[x].cnt > 0) {
        uint32_t l = t->nd[x].l;
        if (l != NONE && t->nd[l].cnt > 0)
            x = l;
        else if (!t->nd[x].tried)
            return x;
        else
            x = t->nd[x].r;
    }
    return NONE;
}
