/* search.c - exhaustive parallel-layout search for one training job on a
 * fixed number of GPUs of one type.
 *
 * Every combination of TP (divisors of the heads, within the scale-up
 * domain), CP, PP, DP (the rest), EP (MoE), virtual pipeline stages,
 * micro-batch, recomputation and sharding stage is checked for
 * divisibility, then for memory; layouts that fit are timed and the k
 * fastest are kept.  The memory model is evaluated before the time model
 * so that out-of-memory layouts cost little.  Fixed fields (from a spec or
 * a validation row) restrict the loops to one value.
 *
 * Pruning: once k layouts are kept, a layout whose proven lower bound on
 * the step time (gp__train_step_bound, valid for every recomputation and
 * sharding stage) is strictly above the slowest kept step is skipped
 * with all its stages: keep() would reject each of them (it rejects a
 * step >= the slowest kept one), so the kept list, its order and the
 * tie-breaking are those of the full search.  The skipped layouts are not
 * counted in the statistics, so pruning is on only where the caller does
 * not ask for them (st NULL), or with a cutoff (gp__search_layouts_below).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/train.h"
#include "../model/train_private.h"

void gp_search_fix_free (struct gp_search_fix *f)
{
    f->tp = f->pp = f->dp = f->cp = f->ep = f->vpp = -1;
    f->micro_batch = f->seq_par = -1;
    f->recompute = f->sharding = f->sharding_max = -1;
    f->max_tp = 0;
    f->schedule = -1;
    f->recompute_layers = -1;
}

/* Insert 'r' into the sorted top-k (fastest first). */
static void keep (struct gp_train_result *top, size_t k, size_t *n,
                  const struct gp_train_result *r)
{
    double v = r->time.step_s;
    size_t i = *n;
    if (i == k) {
        if (v >= top[k - 1].time.step_s)
            return;
        i = k - 1;
    } else {
        (*n)++;
    }
    while (i > 0 && top[i - 1].time.step_s > v) {
        top[i] = top[i - 1];
        i--;
    }
    top[i] = *r;
}

static long long gcd_ll (long long a, long long b)
{
    while (b) {
        long long t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static int vals (int fixed, const int *cand, int n_cand, int *out)
{
    if (fixed > 0) {
        out[0] = fixed;
        return 1;
    }
    for (int i = 0; i < n_cand; i++)
        out[i] = cand[i];
    return n_cand;
}

/* The loops of one search and where they keep their answers. */
/* Stage bounds (gp__train_stage_bound) kept across the searches of one
 * deadline sizing or batch choice: they depend on tp, cp, pp, ep, the
 * micro-batch and seq_par only (not dp, vpp or the batch), with the
 * model, job, hardware and fixed fields that stay the same there.  Open
 * addressing; when full, bounds are computed without keeping them.
 */
#define SC_SIZE 4096
struct sc_ent {
    int used, tp, cp, pp, ep, mb, sp;
    double S[3];
};
struct scache {
    size_t n;
    struct sc_ent e[SC_SIZE];
};

/* The slot of the key, NULL when the table is full or absent. */
static double *sc_get (struct scache *sc, const struct gp_layout *l)
{
    if (!sc)
        return NULL;
    unsigned h = (unsigned)l->tp * 2654435761u ^ (unsigned)l->cp * 40503u
                 ^ (unsigned)l->pp * 2246822519u ^ (unsigned)l->ep * 3266489917u
                 ^ (unsigned)l->micro_batch * 668265263u
                 ^ (unsigned)l->seq_par;
    for (size_t i = 0; i < SC_SIZE; i++) {
        struct sc_ent *x = &sc->e[(h + i) % SC_SIZE];
        if (!x->used) {
            if (sc->n >= SC_SIZE / 2)
                return NULL;
            sc->n++;
            *x = (struct sc_ent){.used = 1, .tp = l->tp, .cp = l->cp,
                                 .pp = l->pp, .ep = l->ep,
                                 .mb = l->micro_batch, .sp = l->seq_par,
                                 .S = {NAN, NAN, NAN}};
            return x->S;
        }
        if (x->tp == l->tp && x->cp == l->cp && x->pp == l->pp
            && x->ep == l->ep && x->mb == l->micro_batch
            && x->sp == l->seq_par)
            return x->S;
    }
    return NULL;
}

struct sctx {
    const struct gp_train_model *m;
    const struct gp_train_job *job;
    const struct gp_train_hw *hw;
    const struct gp_search_fix *fix;
    struct gp_train_result *top;
    size_t k, *n;
    struct gp_search_stats *st;
    int vv[6], mm[5], eps[11];
    int nv, nm, nep;
    int r0, r1, s0, s1;          /* recompute and sharding ranges */
    int prune;                   /* skip layouts by the step bound */
    double cutoff;               /* skip bounds above this (prune only) */
    struct scache *sc;           /* stage bounds kept, or NULL */
};

/* The slowest kept step once k are kept, else the cutoff (the limit a
 * bound must exceed to skip).
 */
static double limit (const struct sctx *c)
{
    double lim = c->cutoff;
    if (*c->n == c->k && c->top[c->k - 1].time.step_s < lim)
        lim = c->top[c->k - 1].time.step_s;
    return lim;
}

/* Whether layout 'l' (every stage of it) can be skipped: its step bound
 * is strictly above the limit.  'S' holds the layout's stage bounds
 * (S[0]: any recomputation, S[1]: full; NAN: not computed yet) and S[2]
 * the logits per micro-batch (gp__train_bound_logit, set with S[0]):
 * they depend on tp, cp, pp, ep, micro-batch and seq_par only, so the
 * caller keeps them per EP degree and micro-batch across virtual stages.
 */
static int pruned (const struct sctx *c, const struct gp_layout *l,
                   double *S)
{
    if (!c->prune)
        return 0;
    double lim = limit (c);
    if (!(lim < INFINITY))
        return 0;
    if (isnan (S[0])) {
        S[0] = gp__train_stage_bound (c->m, c->job, c->hw, l, &S[1]);
        S[2] = gp__train_bound_logit (c->m, c->job, c->hw, l);
    }
    return gp__train_step_bound_lg (c->m, c->job, c->hw, l, S[0], S[2])
           > lim;
}

/* Memory, then (when it fits) time of layout 'l' under every
 * recomputation and sharding stage allowed; keeps the fastest.
 * 'soom[sh]' is set once a layout of the same tp, cp, pp, dp and ep at
 * sharding stage sh is out of memory by its weights, gradients and
 * optimizer states alone (gp__train_mem_state_oom): no recomputation,
 * micro-batch or virtual stage count fits there, so with pruning on
 * (no statistics kept) those stages are skipped unevaluated.
 */
static void try_stages (const struct sctx *c, struct gp_layout l,
                        const double *S, signed char *soom)
{
    const struct gp_search_fix *fix = c->fix;
    struct gp_search_stats *st = c->st;
    /* per sharding stage, whether the layout fits without recomputation
     * (-1: not evaluated), so that partial recomputation is tried only
     * where it does not, without evaluating that memory again
     */
    signed char none_fits[GP_SHARD_FSDP + 1];
    memset (none_fits, -1, sizeof none_fits);
    for (int r = c->r0; r <= c->r1; r++) {
        /* with fused attention, selective recompute changes nothing:
         * skip the duplicate unless asked for
         */
        if (r == GP_RECOMP_SELECTIVE && c->job->flash_attn && !c->m->mla
            && fix->recompute < 0)
            continue;
        l.recompute = r;
        l.recompute_layers = r == GP_RECOMP_FULL && fix->recompute_layers > 0
                                 ? fix->recompute_layers
                                 : 0;
        /* partial (block) recomputation is tried before every layer
         * when recomputation is free (a fixed "full" is every layer
         * unless recompute_layers is fixed too): only S[0] bounds it
         */
        /* a fixed recompute_layers must fit in this layout's chunks */
        if (l.recompute_layers > gp_train_chunk_layers (&l, c->m->layers))
            continue;
        int partial = r == GP_RECOMP_FULL && fix->recompute < 0
                      && fix->recompute_layers < 0
                      && gp_train_chunk_layers (&l, c->m->layers) > 1;
        /* full recomputation repeats the forward: its higher bound may
         * skip every sharding stage of it (see pruned())
         */
        int full_pruned =
            r == GP_RECOMP_FULL && gp_train_recomp_frac (&l, c->m->layers) >= 1
            && c->prune && !isnan (S[1])
            && gp__train_step_bound_lg (c->m, c->job, c->hw, &l, S[1], S[2])
                   > limit (c);
        if (full_pruned && !partial)
            continue;
        for (int sh = c->s0; sh <= c->s1; sh++) {
            /* ZeRO-2/3 with PP is not offered by Megatron; FSDP style
             * means pp = 1.
             */
            if (fix->sharding < 0 && sh >= 2 && l.pp > 1)
                continue;
            l.sharding = sh;
            /* where no recomputation fits, partial recomputation is
             * never tried: a pruned full one is skipped before its
             * memory
             */
            if (full_pruned && none_fits[sh] == 1)
                continue;
            if (c->prune && soom[sh])
                continue;
            struct gp_train_result res;
            res.layout = l;
            gp_train_memory (c->m, c->job, c->hw, &l, &res.mem);
            st->evaluated += 1;
            if (!res.mem.fits && gp__train_mem_state_oom (c->hw, &res.mem))
                soom[sh] = 1;
            /* partial recomputation: the fewest recomputed layers per
             * chunk that fit (docs/model/training.md, "Partial (block)
             * recomputation") when every layer fits; else every
             * layer, unless its bound skips it
             */
            if (r == GP_RECOMP_NONE)
                none_fits[sh] = (signed char)res.mem.fits;
            if (partial
                && gp__recomp_fit (c->m, c->job, c->hw, &res.layout,
                                   &res.mem, none_fits[sh])) {
                gp_train_time (c->m, c->job, c->hw, &res.layout, &res.time);
                keep (c->top, c->k, c->n, &res);
                continue;
            }
            if (partial && full_pruned)
                continue;
            /* CPU activation offload: the fewest offloaded layers that
             * fit (docs/model/training.md, "CPU activation offload")
             */
            if (!res.mem.fits
                && gp__offload_fit (c->m, c->job, c->hw, &res.layout,
                                    &res.mem)) {
                gp_train_time (c->m, c->job, c->hw, &res.layout, &res.time);
                keep (c->top, c->k, c->n, &res);
                continue;
            }
            if (!res.mem.fits) {
                st->rejected_oom += 1;
                if (!st->have_oom
                    || res.mem.headroom > st->best_oom.mem.headroom) {
                    gp_train_time (c->m, c->job, c->hw, &l, &res.time);
                    st->best_oom = res;
                    st->have_oom = 1;
                }
                continue;
            }
            gp_train_time (c->m, c->job, c->hw, &l, &res.time);
            keep (c->top, c->k, c->n, &res);
        }
    }
}

/* Every EP degree, virtual stage count and micro-batch of tp x cp x pp
 * x dp.
 */
static void try_splits (const struct sctx *c, int tp, int cp, int pp,
                        int dp)
{
    const struct gp_search_fix *fix = c->fix;
    double per = (double)(c->r1 - c->r0 + 1) * (c->s1 - c->s0 + 1);
    double S[11][5][3];          /* stage bounds per EP and micro-batch */
    double *Sp[11][5];           /* where they are (the cache or S) */
    int div_ok[5];               /* dp x micro-batch divides the batch */
    for (int b = 0; b < c->nm; b++)
        div_ok[b] = fmod (c->job->global_batch, (double)dp * c->mm[b]) == 0;
    for (int e = 0; e < c->nep; e++)
        for (int b = 0; b < c->nm; b++) {
            S[e][b][0] = S[e][b][1] = S[e][b][2] = NAN;
            Sp[e][b] = NULL;
        }
    for (int e = 0; e < c->nep; e++) {
        int ep = c->eps[e];
        if (ep > 1 && ((tp * dp * cp) % ep || c->m->moe_experts % ep))
            continue;
        signed char soom[GP_SHARD_FSDP + 1] = {0};
        for (int v = 0; v < c->nv; v++) {
            int vpp = c->vv[v];
            /* a fixed vpp may count the embedding and the loss as
             * pipeline layers (gp_train_check); the search does not
             */
            if (vpp > 1
                && (pp < 2
                    || pp * vpp > c->m->layers + (c->fix->vpp > 1 ? 2 : 0)))
                continue;
            for (int b = 0; b < c->nm; b++) {
                if (!div_ok[b]) {
                    c->st->rejected_div += per;
                    continue;
                }
                struct gp_layout l = {
                    .tp = tp, .pp = pp, .dp = dp, .cp = cp, .ep = ep,
                    .vpp = vpp, .micro_batch = c->mm[b],
                    .seq_par = fix->seq_par >= 0 ? fix->seq_par : tp > 1,
                    .schedule = fix->schedule > 0
                                    ? (enum gp_schedule)fix->schedule
                                    : GP_SCHED_1F1B,
                };
                /* a layout skipped by a known bound needs no check (the
                 * check rejects only what the search would not keep)
                 */
                int tested = 0;
                if (c->prune) {
                    if (!Sp[e][b]) {
                        Sp[e][b] = sc_get (c->sc, &l);
                        if (!Sp[e][b])
                            Sp[e][b] = S[e][b];
                    }
                    if (!isnan (Sp[e][b][0])) {
                        if (pruned (c, &l, Sp[e][b]))
                            continue;
                        tested = 1;
                    }
                }
                if (gp_train_check (c->m, c->job, &l, NULL)) {
                    c->st->rejected_div += per;
                    continue;
                }
                if (!tested && pruned (c, &l, Sp[e][b] ? Sp[e][b] : S[e][b]))
                    continue;
                try_stages (c, l, Sp[e][b] ? Sp[e][b] : S[e][b], soom);
            }
        }
    }
}

/* Every PP degree of the GPUs left after tp x cp (DP is the rest). */
static void try_pipelines (const struct sctx *c, int n_gpus, int tp, int cp)
{
    const struct gp_search_fix *fix = c->fix;
    int rest = n_gpus / (tp * cp);
    /* DP = rest/PP must divide the global batch, so PP is a multiple of
     * rest / gcd(rest, batch): step over those only.
     */
    int step = 1;
    double gbr = floor (c->job->global_batch + 0.5);
    if (fabs (c->job->global_batch - gbr) < 1e-9 && gbr < 2e9)
        step = rest / (int)gcd_ll (rest, (long long)gbr);
    for (int pp = step; pp <= rest; pp += step) {
        if (rest % pp)
            continue;
        if (fix->pp > 0 && pp != fix->pp)
            continue;
        if (pp > c->m->layers)
            break;
        int dp = rest / pp;
        if (fix->dp > 0 && dp != fix->dp)
            continue;
        /* cheap pre-filter: DP must divide the global batch */
        if (fmod (c->job->global_batch, (double)dp) != 0) {
            c->st->rejected_div += (double)c->nep * c->nv * c->nm
                                   * (c->r1 - c->r0 + 1)
                                   * (c->s1 - c->s0 + 1);
            continue;
        }
        try_splits (c, tp, cp, pp, dp);
    }
}

/* gp_search_layouts, pruning by the step bound when 'prune' is set
 * (layouts whose bound is above 'cutoff' are skipped too).
 */
static size_t search_run (const struct gp_train_model *m,
                          const struct gp_train_job *job,
                          const struct gp_train_hw *hw, int n_gpus,
                          const struct gp_search_fix *fix,
                          struct gp_train_result *top, size_t k,
                          struct gp_search_stats *st, int prune,
                          double cutoff, struct scache *sc)
{
    struct gp_search_stats local;
    if (!st)
        st = &local;
    memset (st, 0, sizeof *st);
    size_t n = 0;
    if (n_gpus < 1 || k == 0)
        return 0;
    static const int pow2[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
    static const int vpps[] = {1, 2, 3, 4, 6, 8};
    static const int mbs[] = {1, 2, 4, 8, 16};
    struct sctx c = {.m = m, .job = job, .hw = hw, .fix = fix, .top = top,
                     .k = k, .n = &n, .st = st, .prune = prune,
                     .cutoff = cutoff, .sc = sc};
    int max_tp = fix->max_tp > 0 ? fix->max_tp : hw->scale_up_domain;
    if (max_tp > 64)
        max_tp = 64;
    int tps[11], cps[11];
    int ntp = vals (fix->tp, pow2, 11, tps);
    int ncp = vals (fix->cp, pow2, 6, cps); /* up to 32 */
    c.nv = vals (fix->vpp, vpps, 6, c.vv);
    c.nm = vals (fix->micro_batch, mbs, 5, c.mm);
    c.nep = m->moe_experts ? vals (fix->ep, pow2, 11, c.eps) : 1;
    if (!m->moe_experts)
        c.eps[0] = 1;
    c.r0 = fix->recompute >= 0 ? fix->recompute : 0;
    c.r1 = fix->recompute >= 0 ? fix->recompute : 2;
    c.s0 = fix->sharding >= 0 ? fix->sharding : 0;
    c.s1 = fix->sharding >= 0       ? fix->sharding
           : fix->sharding_max >= 0 ? fix->sharding_max
                                    : 3;
    /* Long sequences are what CP is for; below 16k it only adds comm. */
    int cp_max = job->seq_len >= 16384 ? 32 : 1;
    if (fix->cp > 0)
        cp_max = fix->cp;
    for (int a = 0; a < ntp; a++) {
        int tp = tps[a];
        if (fix->tp <= 0 && (tp > max_tp || m->heads % tp))
            continue;
        if (n_gpus % tp)
            continue;
        for (int ci = 0; ci < ncp; ci++) {
            int cp = cps[ci];
            if (cp > cp_max || (n_gpus / tp) % cp)
                continue;
            try_pipelines (&c, n_gpus, tp, cp);
        }
    }
    return n;
}

size_t gp_search_layouts (const struct gp_train_model *m,
                          const struct gp_train_job *job,
                          const struct gp_train_hw *hw,
                          int n_gpus,
                          const struct gp_search_fix *fix,
                          struct gp_train_result *top,
                          size_t k,
                          struct gp_search_stats *st)
{
    return search_run (m, job, hw, n_gpus, fix, top, k, st, st == NULL,
                       INFINITY, NULL);
}

size_t gp__search_layouts_below (const struct gp_train_model *m,
                                 const struct gp_train_job *job,
                                 const struct gp_train_hw *hw, int n_gpus,
                                 const struct gp_search_fix *fix,
                                 double cutoff_s,
                                 struct gp_train_result *top, size_t k)
{
    return search_run (m, job, hw, n_gpus, fix, top, k, NULL, 1, cutoff_s,
                       NULL);
}

void gp_train_batch_range (const struct gp_train_model *m, double seq_len,
                           const struct gp_defaults *d, double *min_seq,
                           double *max_seq)
{
    double ref = gp_default (d, GP_DEF_TRAIN_BATCH_MAX_REF_TOKENS);
    double n0 = gp_default (d, GP_DEF_TRAIN_BATCH_MAX_REF_PARAMS);
    double e = gp_default (d, GP_DEF_TRAIN_BATCH_MAX_EXPONENT);
    double range = gp_default (d, GP_DEF_TRAIN_BATCH_RANGE);
    double n = m->total_params > 0 ? m->total_params : n0;
    double tok = ref * pow (n / n0, e);
    /* down to a power of two (1e-9: 405.0B is exactly the reference) */
    double p2 = exp2 (floor (log2 (tok) + 1e-9));
    *max_seq = gp_train_batch_sequences (p2, seq_len);
    *min_seq = floor (*max_seq / (range >= 1 ? range : 1));
    if (*min_seq < 1)
        *min_seq = 1;
}

/* The batches search_batch tries, ascending, into 'bs' (at most 'max'):
 * the doublings lo, 2 lo, ... <= hi, and below the largest of them the
 * largest multiple of 'n_gpus' not above it, when that lies in [lo, hi].
 * On a GPU count that is not a power of two (38 nodes of 8 = 304 GPUs),
 * no doubling is divisible by the data-parallel degrees the count offers
 * (304 / (tp pp cp)), so the layouts would be forced into odd pipeline
 * depths (pp 19); 912 = 3 x 304 lets every tp x pp x cp that divides the
 * count run whole micro-batches.  Only the largest doubling gets one: a
 * smaller batch wins only when it is as fast (docs/model/training.md,
 * "Batch").
 */
static int batch_list (double lo, double hi, int n_gpus, double *bs, int max)
{
    int nb = 0;
    for (double b = lo; b <= hi && nb + 1 < max; b *= 2)
        bs[nb++] = b;
    double top = nb ? bs[nb - 1] : 0;
    double m = n_gpus > 0 ? floor (top / n_gpus) * n_gpus : 0;
    if (m >= lo && m < top && (nb < 2 || m > bs[nb - 2])) {
        bs[nb - 1] = m;
        bs[nb++] = top;
    }
    return nb;
}

/* The batches of batch_list, largest first (see search_batch); '*nan'
 * set when a rate is NaN (the answer is then not used).
 */
static size_t batches_down (const struct gp_train_model *m,
                            const struct gp_train_job *job,
                            const struct gp_train_hw *hw, int n_gpus,
                            const struct gp_search_fix *fix,
                            struct gp_train_result *top, size_t k,
                            double *batch, double min_tps, struct scache *sc,
                            double lo, double hi, int *nan)
{
    double bs[2200]; /* doublings from >= 1 stay finite fewer times */
    int nb = batch_list (lo, hi, n_gpus, bs, 2200);
    struct gp_train_job jb = *job;
    struct gp_train_result tmp[GP_TRAIN_TOP_MAX];
    size_t kk = k < GP_TRAIN_TOP_MAX ? k : GP_TRAIN_TOP_MAX;
    size_t best = 0;
    double best_tps = 0;
    for (int i = nb - 1; i >= 0; i--) {
        double b = bs[i];
        jb.global_batch = b;
        /* With one layout kept, only one at least as fast as best_tps
         * (and min_tps) can change the answer: tokens/s = b * seq / step
         * >= thr needs step <= b * seq / thr, so layouts whose bound is
         * above that (times 1 + 1e-9 for the roundings of both divisions)
         * are skipped; the fastest layout comes back unchanged whenever
         * it is at least that fast.
         */
        double thr = best_tps > min_tps ? best_tps : min_tps;
        double cut = INFINITY;
        if (kk == 1 && thr > 0)
            cut = b * job->seq_len / thr * (1 + 1e-9);
        size_t got = search_run (m, &jb, hw, n_gpus, fix, tmp, kk, NULL, 1,
                                 cut, sc);
        if (!got)
            continue;
        double tps = tmp[0].time.tokens_per_s;
        if (isnan (tps)) {
            *nan = 1;
            return 0;
        }
        if (!(tps > 0) || (best && tps < best_tps))
            continue;
        best_tps = tps;
        best = got;
        memcpy (top, tmp, got * sizeof *top);
        if (batch)
            *batch = b;
    }
    return best;
}

/* gp_train_search_batch; with 'min_tps' > 0 (only with k 1 and no
 * statistics) for a caller that needs only a layout faster than
 * 'min_tps' tokens/s: when the full search's answer is faster, the same
 * answer; otherwise some slower layout, or none (0).
 */
static size_t search_batch (const struct gp_train_model *m,
                            const struct gp_train_job *job,
                            const struct gp_train_hw *hw, int n_gpus,
                            const struct gp_search_fix *fix,
                            struct gp_train_result *top, size_t k,
                            struct gp_search_stats *st, double *batch,
                            double min_tps, struct scache *sc)
{
    if (batch)
        *batch = job->global_batch;
    if (st || k != 1)
        min_tps = 0;
    /* tokens/s = batch * seq / step > thr needs step < batch * seq / thr;
     * 1 + 1e-9 covers the roundings of both divisions
     */
    if (!job->batch_free)
        return search_run (m, job, hw, n_gpus, fix, top, k, st, st == NULL,
                           min_tps > 0 ? job->global_batch * job->seq_len
                                             / min_tps * (1 + 1e-9)
                                       : INFINITY,
                           sc);
    double lo, hi;
    gp_train_batch_range (m, job->seq_len, job->defaults, &lo, &hi);
    /* The answer is the smallest batch with the most tokens/s (searched
     * smallest first, replacing the best only when faster).  Without
     * statistics the batches are searched largest first instead (the
     * largest is usually the fastest, so its tokens/s cuts the other
     * searches most), a smaller batch replacing the best on a tie: the
     * same answer.  A NaN rate (no order) falls back to smallest first.
     */
    if (!st) {
        int nan = 0;
        size_t got = batches_down (m, job, hw, n_gpus, fix, top, k, batch,
                                   min_tps, sc, lo, hi, &nan);
        if (!nan)
            return got;
        if (batch)
            *batch = job->global_batch;
    }
    struct gp_train_job jb = *job;
    struct gp_train_result tmp[GP_TRAIN_TOP_MAX];
    struct gp_search_stats s1;
    size_t kk = k < GP_TRAIN_TOP_MAX ? k : GP_TRAIN_TOP_MAX;
    size_t best = 0;
    double best_tps = 0;
    double bs[2200];
    int nb = batch_list (lo, hi, n_gpus, bs, 2200);
    for (int i = 0; i < nb; i++) {
        double b = bs[i];
        jb.global_batch = b;
        size_t got = search_run (m, &jb, hw, n_gpus, fix, tmp, kk, &s1,
                                 st == NULL, INFINITY, sc);
        if (st && (i == 0 || (!best && s1.have_oom)))
            *st = s1;
        if (!got || tmp[0].time.tokens_per_s <= best_tps)
            continue;
        best_tps = tmp[0].time.tokens_per_s;
        best = got;
        memcpy (top, tmp, got * sizeof *top);
        if (batch)
            *batch = b;
    }
    return best;
}

size_t gp_train_search_batch (const struct gp_train_model *m,
                              const struct gp_train_job *job,
                              const struct gp_train_hw *hw,
                              int n_gpus,
                              const struct gp_search_fix *fix,
                              struct gp_train_result *top,
                              size_t k,
                              struct gp_search_stats *st,
                              double *batch)
{
    struct scache *sc = st || !job->batch_free ? NULL
                                               : calloc (1, sizeof *sc);
    size_t got = search_batch (m, job, hw, n_gpus, fix, top, k, st, batch,
                               0, sc);
    free (sc);
    return got;
}

/* The search of one deadline sizing. */
struct dctx {
    const struct gp_train_model *m;
    const struct gp_train_job *job;
    const struct gp_train_hw *hw;
    const struct gp_search_fix *fix;
    const struct gp_train_rel_params *rp;
    int gpn;
    double need;                 /* tokens/s after goodput */
    struct gp_train_size *res;
    struct scache *sc;           /* stage bounds of every size, or NULL */
};

static size_t try_size_need (const struct dctx *c, long long nodes,
                             struct gp_train_result *top, size_t k,
                             int *meets, struct gp_reliability *rel,
                             double *batch, int need_only);

/* Search 'nodes' whole nodes into 'top'; appends the size to the curve.
 * Returns the count kept, and sets *meets when its best layout meets the
 * date ('rel', 'batch' then describe it).
 */
static size_t try_size (const struct dctx *c, long long nodes,
                        struct gp_train_result *top, size_t k, int *meets,
                        struct gp_reliability *rel, double *batch)
{
    return try_size_need (c, nodes, top, k, meets, rel, batch, 0);
}

/* try_size; with 'need_only' for a size whose answer matters only when it
 * meets the date (refine()): the search then skips layouts too slow for
 * that (search_batch's min_tps), which changes nothing when it meets
 * (the same answer) and leaves it not meeting otherwise.
 */
static size_t try_size_need (const struct dctx *c, long long nodes,
                             struct gp_train_result *top, size_t k,
                             int *meets, struct gp_reliability *rel,
                             double *batch, int need_only)
{
    struct gp_train_size *res = c->res;
    long long n = nodes * c->gpn;
    *meets = 0;
    /* the reliability model depends on the GPU count only */
    gp_train_reliability_with (c->m, c->job, (double)n, c->gpn, c->rp, rel);
    /* rate = tokens/s * goodput >= need needs tokens/s >= need / goodput
     * (1 - 1e-9: the rounding of the product)
     */
    double min_tps = need_only ? c->need / rel->goodput * (1 - 1e-9) : 0;
    size_t got = search_batch (c->m, c->job, c->hw, (int)n, c->fix, top, k,
                               NULL, batch, min_tps, c->sc);
    if (!got)
        return 0;
    double rate = top[0].time.tokens_per_s * rel->goodput;
    if (rate > res->best_rate) {
        res->best_rate = rate;
        res->best_n = (int)n;
    }
    if (res->n_curve < GP_TRAIN_CURVE_MAX) {
        struct gp_train_curve_pt *pt = &res->curve[res->n_curve++];
        memset (pt, 0, sizeof *pt);
        pt->gpus = (int)n;
        pt->global_batch = *batch;
        pt->rate = rate;
        pt->days = rate > 0 ? c->job->tokens / rate / 86400 : 0;
        pt->mfu = top[0].time.mfu;
        pt->layout = top[0].layout;
    }
    *meets = rate >= c->need;
    return got;
}

/* Sort the curve by GPUs (ascending, one entry per count) and mark every
 * count that is not faster than a smaller one as skipped.
 */
static void finish_curve (struct gp_train_size *res)
{
    struct gp_train_curve_pt *c = res->curve;
    size_t n = res->n_curve;
    for (size_t i = 1; i < n; i++) {
        struct gp_train_curve_pt t = c[i];
        size_t j = i;
        while (j > 0 && c[j - 1].gpus > t.gpus) {
            c[j] = c[j - 1];
            j--;
        }
        c[j] = t;
    }
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (w == 0 || c[i].gpus != c[w - 1].gpus)
            c[w++] = c[i];
    res->n_curve = w;
    int best = -1;
    for (size_t i = 0; i < w; i++) {
        if (best >= 0 && c[i].rate <= c[best].rate)
            c[i].slower_than = c[best].gpus;
        else
            best = (int)i;
    }
}

/* The ladder past the answer at 'nodes' (j, q its position), for the
 * curve: at least 4 more sizes, and up to twice the answer.
 */
static void extend_curve (const struct dctx *c, int j, int q,
                          long long nodes, int max_gpus)
{
    struct gp_train_result tmp[1];
    struct gp_reliability rel;
    double b;
    int meets, more = 0;
    for (;;) {
        if (++q == 8) {
            q = 4;
            j++;
        }
        if (j < 2 && q > 4 && (q << j) % 4)
            continue;
        long long nn = ((long long)q << j) / 4;
        if (nn * c->gpn > max_gpus || (more >= 4 && nn > 2 * nodes))
            return;
        try_size (c, nn, tmp, 1, &meets, &rel, &b);
        more++;
    }
}

/* The answer at 'nodes' (the first ladder size that meets the date,
 * after 'prev' that did not): the fewest whole nodes in between that
 * meet it, else 'nodes'.  Only the answer joins the curve.
 */
static size_t refine (const struct dctx *c, long long prev, long long nodes,
                      struct gp_train_result *top, size_t k, size_t got0,
                      const struct gp_reliability *rel0, double b0)
{
    struct gp_train_size *res = c->res;
    struct gp_reliability rel;
    double b;
    int meets;
    /* The answer at 'nodes' ('got0' layouts in 'top', 'rel0', 'b0'), kept
     * for when no smaller size meets the date instead of searching that
     * size again: the search is pure (the same answer), and best_rate and
     * the curve already hold it.
     */
    struct gp_train_result saved[GP_TRAIN_TOP_MAX];
    int have_saved = got0 <= GP_TRAIN_TOP_MAX;
    if (have_saved)
        memcpy (saved, top, got0 * sizeof *top);
    for (long long r = prev + 1; r < nodes; r++) {
        size_t keep_n = res->n_curve;
        /* below 'nodes' a size matters only when it meets the date:
         * best_rate is already at least the rate at 'nodes' (>= need)
         */
        size_t got = try_size_need (c, r, top, k, &meets, &rel, &b, 1);
        if (got && meets) {
            res->n_gpus = (int)(r * c->gpn);
            res->rel = rel;
            res->global_batch = b;
            return got;
        }
        res->n_curve = keep_n;
    }
    res->n_gpus = (int)(nodes * c->gpn);
    if (have_saved) {
        memcpy (top, saved, got0 * sizeof *top);
        res->rel = *rel0;
        res->global_batch = b0;
        return got0;
    }
    /* 'top' may hold a refinement: redo this size (already on the curve) */
    size_t keep_n = res->n_curve;
    size_t got = try_size (c, nodes, top, k, &meets, &rel, &b);
    res->n_curve = keep_n;
    res->rel = rel;
    res->global_batch = b;
    return got;
}

static size_t ladder (struct dctx *cp, int max_gpus,
                      struct gp_train_result *top, size_t k);

size_t gp_train_size_deadline (const struct gp_train_model *m,
                               const struct gp_train_job *job,
                               const struct gp_train_hw *hw,
                               const struct gp_search_fix *fix,
                               const struct gp_train_rel_params *rp,
                               double days,
                               int max_gpus,
                               struct gp_train_result *top,
                               size_t k,
                               struct gp_train_size *res)
{
    memset (res, 0, sizeof *res);
    res->global_batch = job->global_batch;
    if (job->tokens <= 0 || days <= 0 || k == 0)
        return 0;
    struct dctx c = {.m = m, .job = job, .hw = hw, .fix = fix, .rp = rp,
                     .gpn = hw->gpus_per_node > 0 ? hw->gpus_per_node : 8,
                     .need = job->tokens / (days * 86400.0), .res = res};
    /* without memory for it, the bounds are computed each time */
    c.sc = calloc (1, sizeof *c.sc);
    size_t got = ladder (&c, max_gpus, top, k);
    free (c.sc);
    return got;
}

/* The ladder of gp_train_size_deadline. */
static size_t ladder (struct dctx *cp, int max_gpus,
                      struct gp_train_result *top, size_t k)
{
    struct dctx c = *cp;
    struct gp_train_size *res = c.res;
    long long prev_nodes = 0;
    for (int j = 0; j < 31; j++) {
        for (int q = 4; q < 8; q++) {
            if (j < 2 && q > 4 && (q << j) % 4)
                continue;
            long long nodes = ((long long)q << j) / 4;
            if (nodes * c.gpn > max_gpus) {
                finish_curve (res);
                return 0;
            }
            struct gp_reliability rel;
            double b;
            int meets;
            size_t got = try_size (&c, nodes, top, k, &meets, &rel, &b);
            if (!got || !meets) {
                prev_nodes = nodes;
                continue;
            }
            got = refine (&c, prev_nodes, nodes, top, k, got, &rel, b);
            extend_curve (&c, j, q, nodes, max_gpus);
            finish_curve (res);
            return got;
        }
    }
    finish_curve (res);
    return 0;
}

size_t gp_search_size (const struct gp_train_model *m,
                       const struct gp_train_job *job,
                       const struct gp_train_hw *hw,
                       const struct gp_search_fix *fix,
                       double days,
                       int max_gpus,
                       struct gp_train_result *top,
                       size_t k,
                       struct gp_train_size *res)
{
    return gp_train_size_deadline (m, job, hw, fix, NULL, days, max_gpus, top,
                                   k, res);
}
