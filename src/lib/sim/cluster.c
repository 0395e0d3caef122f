/* cluster.c - the simulator's cluster state: nodes by pool, racks and
 * scale-up domains, free-GPU buckets and a segment tree per pool (first
 * fit in O(log n)), nodes going down and up.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_private.h"

/* ---------------------------- buckets ---------------------------------- */

static void bucket_unlink (struct gp_sim *s, int32_t i)
{
    struct node *nd = &s->nodes[i];
    struct spool *p = &s->pools[nd->pool];
    if (nd->prev >= 0)
        s->nodes[nd->prev].next = nd->next;
    else
        p->head[nd->free] = nd->next;
    if (nd->next >= 0)
        s->nodes[nd->next].prev = nd->prev;
    p->cnt[nd->free]--;
    nd->next = nd->prev = -1;
}

static void bucket_link (struct gp_sim *s, int32_t i)
{
    struct node *nd = &s->nodes[i];
    struct spool *p = &s->pools[nd->pool];
    nd->prev = -1;
    nd->next = p->head[nd->free];
    if (nd->next >= 0)
        s->nodes[nd->next].prev = i;
    p->head[nd->free] = i;
    p->cnt[nd->free]++;
}

static void seg_update (struct spool *p, int32_t k, int32_t v)
{
    int32_t i = p->seg_size + k;
    p->seg[i] = v;
    for (i /= 2; i >= 1; i /= 2) {
        int32_t a = p->seg[2 * i], b = p->seg[2 * i + 1];
        p->seg[i] = a > b ? a : b;
    }
}

/* Leftmost node of the pool with at least 'n' free, or -1. */
int32_t gp__seg_first (const struct spool *p, int32_t n)
{
    if (p->seg[1] < n)
        return -1;
    int32_t i = 1;
    while (i < p->seg_size)
        i = p->seg[2 * i] >= n ? 2 * i : 2 * i + 1;
    return p->first + (i - p->seg_size);
}

void gp__node_set_free (struct gp_sim *s, int32_t i, int32_t v)
{
    struct node *nd = &s->nodes[i];
    struct spool *p = &s->pools[nd->pool];
    long long d = (long long)v - nd->free;
    if (!nd->down) {
        bucket_unlink (s, i);
        nd->free = v;
        bucket_link (s, i);
        seg_update (p, i - p->first, v);
        p->free += d;
        s->free_gpus += d;
        s->rack_free[nd->rack] += d;
    } else
        nd->free = v;
}

void gp__node_down (struct gp_sim *s, int32_t i)
{
    struct node *nd = &s->nodes[i];
    if (nd->down)
        return;
    struct spool *p = &s->pools[nd->pool];
    bucket_unlink (s, i);
    seg_update (p, i - p->first, 0);
    p->free -= nd->free;
    s->free_gpus -= nd->free;
    s->rack_free[nd->rack] -= nd->free;
    nd->down = 1;
}

void gp__node_up (struct gp_sim *s, int32_t i)
{
    struct node *nd = &s->nodes[i];
    if (!nd->down)
        return;
    struct spool *p = &s->pools[nd->pool];
    nd->down = 0;
    bucket_link (s, i);
    seg_update (p, i - p->first, nd->free);
    p->free += nd->free;
    s->free_gpus += nd->free;
    s->rack_free[nd->rack] += nd->free;
}

/* ------------------------------ init ----------------------------------- */

int gp__cluster_init (struct gp_sim *s, gp_error_t *err)
{
    const struct gp_cluster *c = s->cfg.cluster;
    s->n_pools = c->n_pools;
    s->pools = calloc (c->n_pools, sizeof *s->pools);
    if (!s->pools)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    size_t nn = 0, nr = 0;
    int32_t dom = 0;
    for (size_t i = 0; i < c->n_pools; i++) {
        const struct gp_pool *cp = &c->pools[i];
        struct spool *p = &s->pools[i];
        p->first = (int32_t)nn;
        p->count = cp->nodes;
        p->gpn = cp->gpus_per_node;
        p->dom_gpus = cp->scale_up_domain > 0 ? cp->scale_up_domain
                                              : cp->gpus_per_node;
        int npr = cp->nodes_per_rack > 0 ? cp->nodes_per_rack : cp->nodes;
        p->rack_first = (int32_t)nr;
        p->n_racks = (cp->nodes + npr - 1) / npr;
        nn += (size_t)cp->nodes;
        nr += (size_t)p->n_racks;
        if (p->gpn > s->max_gpn)
            s->max_gpn = p->gpn;
        p->head = malloc ((size_t)(p->gpn + 1) * sizeof *p->head);
        p->cnt = calloc ((size_t)(p->gpn + 1), sizeof *p->cnt);
        p->seg_size = 1;
        while (p->seg_size < p->count)
            p->seg_size *= 2;
        p->seg = calloc (2 * (size_t)p->seg_size, sizeof *p->seg);
        if (!p->head || !p->cnt || !p->seg)
            return gp_errprintf (err, GP_ENOMEM, "out of memory");
        for (int k = 0; k <= p->gpn; k++)
            p->head[k] = -1;
        (void)dom;
    }
    s->n_nodes = nn;
    s->n_racks = nr;
    s->nodes = calloc (nn, sizeof *s->nodes);
    s->rack_free = calloc (nr ? nr : 1, sizeof *s->rack_free);
    s->scratch = calloc (nn, sizeof *s->scratch);
    s->dom_seen = calloc (nn, sizeof *s->dom_seen);
    if (!s->nodes || !s->rack_free || !s->scratch || !s->dom_seen)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    for (size_t pi = 0; pi < s->n_pools; pi++) {
        struct spool *p = &s->pools[pi];
        const struct gp_pool *cp = &c->pools[pi];
        int npr = cp->nodes_per_rack > 0 ? cp->nodes_per_rack : cp->nodes;
        /* A scale-up domain of d GPUs spans d / gpn nodes when d >= gpn
         * (NVL72-class); smaller domains (PCIe) count per node.
         */
        int nodes_per_dom = p->dom_gpus > p->gpn ? p->dom_gpus / p->gpn : 1;
        for (int32_t k = 0; k < p->count; k++) {
            int32_t i = p->first + k;
            struct node *nd = &s->nodes[i];
            nd->gpn = p->gpn;
            nd->pool = (int32_t)pi;
            nd->rack = p->rack_first + k / npr;
            nd->dom = dom + k / nodes_per_dom;
            nd->free = 0;
            nd->next = nd->prev = -1;
            bucket_link (s, i);
            gp__node_set_free (s, i, p->gpn);
        }
        dom += (p->count + nodes_per_dom - 1) / nodes_per_dom;
        if (cp->gpu_sharing || cp->n_mig > 0) {
            size_t ng = (size_t)p->count * (size_t)p->gpn;
            p->cap_u = cp->gpu_sharing ? 1000 : GP_MIG_SLICES;
            p->micro_u = GP_MICRO / p->cap_u;
            p->gused = calloc (ng, sizeof *p->gused);
            p->gnext = malloc (ng * sizeof *p->gnext);
            p->gprev = malloc (ng * sizeof *p->gprev);
            p->ghead = malloc (((size_t)p->cap_u + 1) * sizeof *p->ghead);
            if (!p->gused || !p->gnext || !p->gprev || !p->ghead)
                return gp_errprintf (err, GP_ENOMEM, "out of memory");
            for (int32_t k = 0; k <= p->cap_u; k++)
                p->ghead[k] = -1;
        }
        p->total = (long long)p->count * p->gpn;
        s->total_gpus += p->total;
    }
    return 0;
}

void gp__cluster_free (struct gp_sim *s)
{
    for (size_t i = 0; s->pools && i < s->n_pools; i++) {
        free (s->pools[i].head);
        free (s->pools[i].cnt);
        free (s->pools[i].seg);
        free (s->pools[i].gused);
        free (s->pools[i].gnext);
        free (s->pools[i].gprev);
        free (s->pools[i].ghead);
    }
    free (s->pools);
    free (s->nodes);
    free (s->rack_free);
    free (s->scratch);
    free (s->dom_seen);
}

