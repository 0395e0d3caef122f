/* heap.c - the simulator's heaps: indexed min-heaps of jobs (pending,
 * victims, end times), an in-order walk over one without changing it, and
 * the event heap.  Every operation is O(log n).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_private.h"

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

int gp__jheap_grow (struct jheap *h, size_t cap)
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
void gp__jheap_push (struct jheap *h, uint32_t j, double k0, double k1)
{
    struct hent e = {k0, k1, j};
    h->a[h->n] = e;
    h->pos[j] = (int32_t)h->n;
    h->n++;
    sift_up (h, h->n - 1);
}

void gp__jheap_remove (struct jheap *h, uint32_t j)
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

static int walk_push (struct walk *w, size_t slot)
{
    if (slot >= w->h->n)
        return 0;
    if (w->n == w->cap) {
        size_t nc = w->cap ? w->cap * 2 : 64;
        size_t *a = realloc (w->a, nc * sizeof *a);
        if (!a) {
            w->oom = 1;
            return GP_ENOMEM;
        }
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
uint32_t gp__walk_next (struct walk *w)
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

void gp__walk_start (struct walk *w, const struct jheap *h)
{
    w->h = h;
    w->n = 0;
    w->oom = 0;
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

int gp__ev_push (struct gp_sim *s, double t, enum ev_kind kind,
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

struct event gp__ev_pop (struct gp_sim *s)
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
