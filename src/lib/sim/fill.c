/* fill.c - placement-only "fill" experiments and fragmentation-gradient-
 * descent placement (FGD; Weng et al., "Beware of Fragmentation:
 * Scheduling GPU-Sharing Workloads with Fragmentation Gradient Descent",
 * USENIX ATC '23, section 4).
 *
 * Pods sampled with replacement (seeded) arrive one by one and never
 * leave; each is placed by the chosen policy or fails, until the arrived
 * GPU demand reaches a share of capacity.  The fragmentation of a node for
 * a task m (paper, section 4.1): when m cannot run on the node at all (CPU,
 * memory, GPU model or GPUs short) every unallocated GPU share of the node
 * is a fragment; otherwise the GPUs whose free share is below m's per-GPU
 * demand min(d, 1) are.  The node's expected fragmentation is the sum
 * over task types of popularity x fragment, the popularity being the
 * share of the pod list; FGD places each pod where that expectation grows
 * least.  Node states repeat a lot (empty nodes, full nodes), so the
 * expectation is memoized by state in a hash table.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/csv.h"
#include "sim_private.h"
#include "../core/rng.h"

#define MAX_GPN GP_FILL_MAX_GPN

static const char *const fill_names[GP_FILL_N] = {
    "random", "best-fit", "packing", "fgd",
};

const char *gp_fill_policy_str (enum gp_fill_policy p)
{
    return (int)p >= 0 && p < GP_FILL_N ? fill_names[p] : NULL;
}

int gp_fill_policy_parse (const char *s, enum gp_fill_policy *out,
                          gp_error_t *err)
{
    for (int i = 0; s && i < GP_FILL_N; i++)
        if (strcmp (s, fill_names[i]) == 0) {
            *out = (enum gp_fill_policy)i;
            return 0;
        }
    return gp_errprintf (err, GP_ENOTFOUND,
                         "unknown fill placement '%s' (valid: random, "
                         "best-fit, packing, fgd)",
                         s ? s : "");
}

/* ------------------------------ state ---------------------------------- */

struct fnode {
    int cpu, mem;              /* free */
    int g;                     /* GPUs */
    int model;
    int16_t gf[MAX_GPN];       /* free milli per GPU */
    double frag;               /* cached expected fragmentation */
};

struct ftype {
    int cpu, mem, n, milli;
    uint32_t spec;
    double p;                  /* popularity */
};

struct hkey {
    int32_t cpu, mem, model, g;
    int16_t gf[MAX_GPN];       /* sorted descending */
};

struct hslot {
    struct hkey k;
    double v;
    int used;
};

struct fstate {
    const struct gp_fill_input *in;
    struct fnode *nodes;
    struct ftype *types;
    size_t n_types;
    struct hslot *tab;
    size_t cap, n_used;
    uint64_t rng;       /* pod sampling */
    uint64_t rng_pick;  /* random placement choices (own stream, so every
                           policy sees the same pod sequence for a seed) */
};

static uint64_t mix (uint64_t *st)
{
    return gp__rng_next (st);
}

static uint64_t rnd (struct fstate *f)
{
    return mix (&f->rng);
}

static int fits (const struct fnode *nd, int cpu, int mem, int n, int milli,
                 uint32_t spec)
{
    if (cpu > nd->cpu || mem > nd->mem)
        return 0;
    if (n == 0)
        return 1;
    if (nd->g == 0 || (spec && !(spec & (1u << nd->model))))
        return 0;
    int ok = 0;
    for (int i = 0; i < nd->g; i++)
        if (milli < 1000 ? nd->gf[i] >= milli : nd->gf[i] == 1000)
            ok++;
    return milli < 1000 ? ok > 0 : ok >= n;
}

/* Expected fragmentation of a node state, in GPU milli. */
static double frag_compute (const struct fstate *f, const struct fnode *nd)
{
    if (nd->g == 0)
        return 0;
    double sum_free = 0;
    for (int i = 0; i < nd->g; i++)
        sum_free += nd->gf[i];
    double e = 0;
    for (size_t t = 0; t < f->n_types; t++) {
        const struct ftype *ty = &f->types[t];
        double fr;
        if (!fits (nd, ty->cpu, ty->mem, ty->n, ty->milli, ty->spec))
            fr = sum_free;
        else {
            int need = ty->n == 0 ? 0 : ty->milli;
            fr = 0;
            for (int i = 0; i < nd->g; i++)
                if (nd->gf[i] < need)
                    fr += nd->gf[i];
        }
        e += ty->p * fr;
    }
    return e;
}

static int cmp_i16_desc (const void *a, const void *b)
{
    int16_t x = *(const int16_t *)a, y = *(const int16_t *)b;
    return (x < y) - (x > y);
}

static uint64_t hash_key (const struct hkey *k)
{
    const unsigned char *p = (const unsigned char *)k;
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < sizeof *k; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

static int frag_of (struct fstate *f, const struct fnode *nd, double *out)
{
    struct hkey k;
    memset (&k, 0, sizeof k);
    k.cpu = nd->cpu;
    k.mem = nd->mem;
    k.model = nd->model;
    k.g = nd->g;
    memcpy (k.gf, nd->gf, (size_t)nd->g * sizeof *k.gf);
    qsort (k.gf, (size_t)nd->g, sizeof *k.gf, cmp_i16_desc);
    if (2 * (f->n_used + 1) > f->cap) {
        size_t nc = f->cap ? f->cap * 2 : 4096;
        struct hslot *nt = calloc (nc, sizeof *nt);
        if (!nt)
            return GP_ENOMEM;
        for (size_t i = 0; i < f->cap; i++)
            if (f->tab[i].used) {
                size_t h = hash_key (&f->tab[i].k) & (nc - 1);
                while (nt[h].used)
                    h = (h + 1) & (nc - 1);
                nt[h] = f->tab[i];
            }
        free (f->tab);
        f->tab = nt;
        f->cap = nc;
    }
    size_t h = hash_key (&k) & (f->cap - 1);
    while (f->tab[h].used) {
        if (memcmp (&f->tab[h].k, &k, sizeof k) == 0) {
            *out = f->tab[h].v;
            return 0;
        }
        h = (h + 1) & (f->cap - 1);
    }
    f->tab[h].k = k;
    f->tab[h].v = frag_compute (f, nd);
    f->tab[h].used = 1;
    f->n_used++;
    *out = f->tab[h].v;
    return 0;
}

/* Apply pod 'p' to a copy of node 'nd' using GPU 'gi' for a sharing pod
 * (or the first free whole GPUs otherwise).
 */
static void apply (struct fnode *nd, const struct gp_fill_pod *p, int gi)
{
    nd->cpu -= p->cpu_milli;
    nd->mem -= p->mem_mib;
    if (p->n_gpus == 0)
        return;
    if (p->gpu_milli < 1000) {
        nd->gf[gi] = (int16_t)(nd->gf[gi] - p->gpu_milli);
        return;
    }
    int left = p->n_gpus;
    for (int i = 0; i < nd->g && left; i++)
        if (nd->gf[i] == 1000) {
            nd->gf[i] = 0;
            left--;
        }
}

static double node_free_gpu (const struct fnode *nd)
{
    double s = 0;
    for (int i = 0; i < nd->g; i++)
        s += nd->gf[i];
    return s;
}

/* Choose node and GPU for pod 'p'; returns 0 and sets 'ni' and 'gi', 1 when no
 * node fits, or a negative error.
 */
static int choose (struct fstate *f, enum gp_fill_policy pol,
                   const struct gp_fill_pod *p, size_t *ni, int *gi)
{
    const struct gp_fill_input *in = f->in;
    double best = INFINITY;
    size_t bn = SIZE_MAX;
    int bg = -1;
    size_t n_feas = 0;
    for (size_t i = 0; i < in->n_nodes; i++) {
        struct fnode *nd = &f->nodes[i];
        if (!fits (nd, p->cpu_milli, p->mem_mib, p->n_gpus, p->gpu_milli,
                   p->spec_mask))
            continue;
        n_feas++;
        /* Candidate GPUs: each distinct free value for a sharing pod. */
        int cand[MAX_GPN], nc = 0;
        if (p->n_gpus > 0 && p->gpu_milli < 1000) {
            for (int g = 0; g < nd->g; g++) {
                if (nd->gf[g] < p->gpu_milli)
                    continue;
                int dup = 0;
                for (int k = 0; k < nc && !dup; k++)
                    dup = nd->gf[cand[k]] == nd->gf[g];
                if (!dup)
                    cand[nc++] = g;
            }
        } else
            cand[nc++] = -1;
        for (int k = 0; k < nc; k++) {
            double score;
            if (pol == GP_FILL_RANDOM) {
                /* Reservoir sampling over feasible nodes, uniform. */
                if (k == 0 && mix (&f->rng_pick) % n_feas == 0) {
                    bn = i;
                    bg = cand[0];
                }
                continue;
            }
            if (pol == GP_FILL_FGD) {
                struct fnode t = *nd;
                apply (&t, p, cand[k]);
                double after;
                if (frag_of (f, &t, &after))
                    return GP_ENOMEM;
                score = after - nd->frag;
            } else if (pol == GP_FILL_BEST_FIT) {
                /* Least remaining resources after placement: CPU and GPU
                 * shares of the node's capacity, equal weights; the GPU
                 * choice is the fullest GPU that fits.
                 */
                const struct gp_fill_node *cap = &in->nodes[i];
                double gl = node_free_gpu (nd) - p->n_gpus * p->gpu_milli;
                score = (nd->cpu - p->cpu_milli)
                            / (cap->cpu_milli > 0 ? cap->cpu_milli : 1.0)
                        + (cap->n_gpus ? gl / (cap->n_gpus * 1000.0) : 0);
                if (cand[k] >= 0)
                    score += nd->gf[cand[k]] * 1e-9;
            } else {
                /* Packing: a used GPU first (fullest), then a used node
                 * (fewest free GPU shares), then an idle node.
                 */
                double free_g = node_free_gpu (nd);
                int used_node = free_g < nd->g * 1000.0;
                if (cand[k] >= 0 && nd->gf[cand[k]] < 1000)
                    score = nd->gf[cand[k]];
                else if (used_node)
                    score = 1e4 + free_g;
                else
                    score = 1e6 + free_g;
            }
            if (score < best - 1e-12) {
                best = score;
                bn = i;
                bg = cand[k];
            }
        }
    }
    if (bn == SIZE_MAX)
        return 1;
    *ni = bn;
    *gi = bg;
    return 0;
}

int gp_fill_run (const struct gp_fill_input *in, enum gp_fill_policy pol,
                 uint64_t seed, double until, struct gp_fill_result *out,
                 gp_error_t *err)
{
    if (!in || !out || in->n_nodes == 0 || in->n_pods == 0 || !(until > 0)
        || (int)pol < 0 || pol >= GP_FILL_N)
        return gp_errprintf (err, GP_EINVAL, "gp_fill_run: bad argument");
    memset (out, 0, sizeof *out);
    struct fstate f;
    memset (&f, 0, sizeof f);
    f.in = in;
    f.rng = seed * 0x2545f4914f6cdd1dULL + 1;
    f.rng_pick = seed ^ 0x5851f42d4c957f2dULL;
    f.nodes = calloc (in->n_nodes, sizeof *f.nodes);
    f.types = calloc (in->n_pods, sizeof *f.types);
    size_t n_pts = (size_t)floor (until * 100 + 1e-9);
    out->curve = calloc (n_pts ? n_pts : 1, sizeof *out->curve);
    int rc = 0;
    if (!f.nodes || !f.types || !out->curve) {
        rc = gp_errprintf (err, GP_ENOMEM, "out of memory");
        goto done;
    }
    long long total = 0;
    for (size_t i = 0; i < in->n_nodes; i++) {
        const struct gp_fill_node *n = &in->nodes[i];
        struct fnode *nd = &f.nodes[i];
        nd->cpu = n->cpu_milli;
        nd->mem = n->mem_mib;
        nd->g = n->n_gpus;
        nd->model = n->model;
        for (int g = 0; g < nd->g; g++)
            nd->gf[g] = 1000;
        total += n->n_gpus;
    }
    if (total == 0) {
        rc = gp_errprintf (err, GP_EINVAL, "fill: the node list has no GPUs");
        goto done;
    }
    /* Task types and popularity from the pod list. */
    for (size_t i = 0; i < in->n_pods; i++) {
        const struct gp_fill_pod *p = &in->pods[i];
        size_t t;
        for (t = 0; t < f.n_types; t++) {
            const struct ftype *ty = &f.types[t];
            if (ty->cpu == p->cpu_milli && ty->mem == p->mem_mib
                && ty->n == p->n_gpus && ty->milli == p->gpu_milli
                && ty->spec == p->spec_mask)
                break;
        }
        if (t == f.n_types)
            f.types[f.n_types++] = (struct ftype){p->cpu_milli, p->mem_mib,
                                                  p->n_gpus, p->gpu_milli,
                                                  p->spec_mask, 0};
        f.types[t].p += 1.0 / (double)in->n_pods;
    }
    double frag_sum = 0;
    {
        for (size_t i = 0; i < in->n_nodes; i++) {
            if ((rc = frag_of (&f, &f.nodes[i], &f.nodes[i].frag)))
                goto nomem;
            frag_sum += f.nodes[i].frag;
        }
    }
    double cap = (double)total * 1000; /* GPU milli */
    double demand = 0, alloc = 0;
    size_t next_pt = 0;
    while (next_pt < n_pts) {
        const struct gp_fill_pod *p = &in->pods[rnd (&f) % in->n_pods];
        out->n_arrived++;
        demand += (double)p->n_gpus * p->gpu_milli;
        size_t ni;
        int gi;
        int c = choose (&f, pol, p, &ni, &gi);
        if (c < 0)
            goto nomem;
        if (c == 0) {
            struct fnode *nd = &f.nodes[ni];
            apply (nd, p, gi);
            alloc += (double)p->n_gpus * p->gpu_milli;
            frag_sum -= nd->frag;
            if ((rc = frag_of (&f, nd, &nd->frag)))
                goto nomem;
            frag_sum += nd->frag;
            out->n_placed++;
        } else
            out->n_failed++;
        while (next_pt < n_pts && demand >= (double)(next_pt + 1) / 100 * cap) {
            struct gp_fill_point *pt = &out->curve[next_pt++];
            pt->demand_pct = (double)next_pt;
            pt->alloc_pct = 100 * alloc / cap;
            pt->frag_pct = 100 * frag_sum / cap;
        }
        if (out->n_arrived > 100 * in->n_pods + 1000000) {
            rc = gp_errprintf (err, GP_EINFEASIBLE,
                               "fill: the pod list requests too little GPU "
                               "to reach the demand");
            goto done;
        }
    }
    out->n_curve = n_pts;
    out->total_gpus = total;
    out->final_alloc_pct = n_pts ? out->curve[n_pts - 1].alloc_pct : 0;
    goto done;
nomem:
    rc = gp_errprintf (err, GP_ENOMEM, "out of memory");
done:
    free (f.nodes);
    free (f.types);
    free (f.tab);
    if (rc)
        gp_fill_result_free (out);
    return rc;
}

void gp_fill_result_free (struct gp_fill_result *r)
{
    if (!r)
        return;
    free (r->curve);
    r->curve = NULL;
    r->n_curve = 0;
}
