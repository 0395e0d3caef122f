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
    if (t->k0[a] != t->k0[b])
        return t->k0[a] < t->k0[b];
    if (t->k1[a] != t->k1[b])
        return t->k1[a] < t->k1[b];
    return a < b;
}

static void pull (const struct gp_sim *s, struct ptreap *t, uint32_t x)
{
    int32_t m = s->jobs[x].n;
    uint32_t c = 1;
    if (t->l[x] != NONE) {
        c += t->cnt[t->l[x]];
        if (t->mn[t->l[x]] < m)
            m = t->mn[t->l[x]];
    }
    if (t->r[x] != NONE) {
        c += t->cnt[t->r[x]];
        if (t->mn[t->r[x]] < m)
            m = t->mn[t->r[x]];
    }
    t->cnt[x] = c;
    t->mn[x] = m;
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
        split (s, t, t->r[x], k, &t->r[x], b);
        *a = x;
    } else {
        split (s, t, t->l[x], k, a, &t->l[x]);
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
        t->r[a] = merge (s, t, t->r[a], b);
        pull (s, t, a);
        return a;
    }
    t->l[b] = merge (s, t, a, t->l[b]);
    pull (s, t, b);
    return b;
}

int gp__ptreap_init (struct gp_sim *s)
{
    struct ptreap *t = &s->ptreap;
    size_t n = s->n ? s->n : 1;
    t->k0 = malloc (n * sizeof *t->k0);
    t->k1 = malloc (n * sizeof *t->k1);
    t->l = malloc (n * sizeof *t->l);
    t->r = malloc (n * sizeof *t->r);
    t->cnt = malloc (n * sizeof *t->cnt);
    t->mn = malloc (n * sizeof *t->mn);
    if (!t->k0 || !t->k1 || !t->l || !t->r || !t->cnt || !t->mn)
        return GP_ENOMEM;
    t->root = NONE;
    t->on = 1;
    return 0;
}

void gp__ptreap_free (struct gp_sim *s)
{
    struct ptreap *t = &s->ptreap;
    free (t->k0);
    free (t->k1);
    free (t->l);
    free (t->r);
    free (t->cnt);
    free (t->mn);
    memset (t, 0, sizeof *t);
}

void gp__ptreap_insert (struct gp_sim *s, uint32_t j, double k0, double k1)
{
    struct ptreap *t = &s->ptreap;
    t->k0[j] = k0;
    t->k1[j] = k1;
    t->l[j] = t->r[j] = NONE;
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
        return merge (s, t, t->l[j], t->r[j]);
    if (kless (t, j, x))
        t->l[x] = erase (s, t, t->l[x], j);
    else
        t->r[x] = erase (s, t, t->r[x], j);
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
            c += 1 + (t->l[x] != NONE ? t->cnt[t->l[x]] : 0);
            x = t->r[x];
        } else
            x = t->l[x];
    }
    return c;
}

static uint32_t first (const struct gp_sim *s, const struct ptreap *t,
                       uint32_t x, uint32_t after, int32_t fit)
{
    while (x != NONE && t->mn[x] <= fit) {
        if (after != NONE && !kless (t, after, x)) {
            x = t->r[x]; /* x is at or before 'after' */
            continue;
        }
        uint32_t r = first (s, t, t->l[x], after, fit);
        if (r != NONE)
            return r;
        if (s->jobs[x].n <= fit)
            return x;
        x = t->r[x];
    }
    return NONE;
}

uint32_t gp__ptreap_next_fit (const struct gp_sim *s, uint32_t after,
                              long long free)
{
    int32_t fit = free > INT32_MAX ? INT32_MAX : (int32_t)free;
    return first (s, &s->ptreap, s->ptreap.root, after, fit);
}
