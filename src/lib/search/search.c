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
 */
#include <math.h>
#include <string.h>

#include "gpuplan/train.h"

void gp_search_fix_free (struct gp_search_fix *f)
{
    f->tp = f->pp = f->dp = f->cp = f->ep = f->vpp = -1;
    f->micro_batch = f->seq_par = -1;
    f->recompute = f->sharding = f->sharding_max = -1;
    f->max_tp = 0;
    f->schedule = -1;
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
};

/* Memory, then (when it fits) time of layout 'l' under every
 * recomputation and sharding stage allowed; keeps the fastest.
 */
static void try_stages (const struct sctx *c, struct gp_layout l)
{
    const struct gp_search_fix *fix = c->fix;
    struct gp_search_stats *st = c->st;
    for (int r = c->r0; r <= c->r1; r++) {
        /* with fused attention, selective recompute changes nothing:
         * skip the duplicate unless asked for
         */
        if (r == GP_RECOMP_SELECTIVE && c->job->flash_attn && !c->m->mla
            && fix->recompute < 0)
            continue;
        l.recompute = r;
        for (int sh = c->s0; sh <= c->s1; sh++) {
            /* ZeRO-2/3 with PP is not offered by Megatron; FSDP style
             * means pp = 1.
             */
            if (fix->sharding < 0 && sh >= 2 && l.pp > 1)
                continue;
            l.sharding = sh;
            struct gp_train_result res;
            res.layout = l;
            gp_train_memory (c->m, c->job, c->hw, &l, &res.mem);
            st->evaluated += 1;
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
    for (int e = 0; e < c->nep; e++) {
        int ep = c->eps[e];
        if (ep > 1 && ((tp * dp * cp) % ep || c->m->moe_experts % ep))
            continue;
        for (int v = 0; v < c->nv; v++) {
            int vpp = c->vv[v];
            if (vpp > 1 && (pp < 2 || pp * vpp > c->m->layers))
                continue;
            for (int b = 0; b < c->nm; b++) {
                if (fmod (c->job->global_batch, (double)dp * c->mm[b]) != 0) {
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
                if (gp_train_check (c->m, c->job, &l, NULL)) {
                    c->st->rejected_div += per;
                    continue;
                }
                try_stages (c, l);
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

size_t gp_search_layouts (const struct gp_train_model *m,
                          const struct gp_train_job *job,
                          const struct gp_train_hw *hw,
                          int n_gpus,
                          const struct gp_search_fix *fix,
                          struct gp_train_result *top,
                          size_t k,
                          struct gp_search_stats *st)
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
                     .k = k, .n = &n, .st = st};
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

/* Search 'nodes' whole nodes; the layouts in 'top' and a non-zero count
 * when the best one meets 'need' tokens/s after goodput.
 */
static size_t try_size (const struct gp_train_model *m,
                        const struct gp_train_job *job,
                        const struct gp_train_hw *hw,
                        const struct gp_search_fix *fix,
                        const struct gp_train_rel_params *rp, long long nodes,
                        int gpn, double need, struct gp_train_result *top,
                        size_t k, struct gp_train_size *res)
{
    long long n = nodes * gpn;
    size_t got = gp_search_layouts (m, job, hw, (int)n, fix, top, k, NULL);
    if (!got)
        return 0;
    struct gp_reliability rel;
    gp_train_reliability_with (m, job, (double)n, gpn, rp, &rel);
    double rate = top[0].time.tokens_per_s * rel.goodput;
    if (rate > res->best_rate) {
        res->best_rate = rate;
        res->best_n = (int)n;
    }
    if (rate < need)
        return 0;
    res->n_gpus = (int)n;
    res->rel = rel;
    return got;
}

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
    if (job->tokens <= 0 || days <= 0 || k == 0)
        return 0;
    int gpn = hw->gpus_per_node > 0 ? hw->gpus_per_node : 8;
    double need = job->tokens / (days * 86400.0);
    long long prev_nodes = 0;
    for (int j = 0; j < 31; j++) {
        for (int q = 4; q < 8; q++) {
            if (j < 2 && q > 4 && (q << j) % 4)
                continue;
            long long nodes = ((long long)q << j) / 4;
            if (nodes * gpn > max_gpus)
                return 0;
            size_t got = try_size (m, job, hw, fix, rp, nodes, gpn, need,
                                   top, k, res);
            if (!got) {
                prev_nodes = nodes;
                continue;
            }
            /* refine: every whole-node count between the last size that
             * failed and this one, smallest first
             */
            for (long long r = prev_nodes + 1; r < nodes; r++) {
                size_t g2 = try_size (m, job, hw, fix, rp, r, gpn, need, top,
                                      k, res);
                if (g2)
                    return g2;
            }
            /* the refinement may have overwritten 'top': redo this size */
            return try_size (m, job, hw, fix, rp, nodes, gpn, need, top, k,
                             res);
        }
    }
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
