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
    int max_tp = fix->max_tp > 0 ? fix->max_tp : hw->scale_up_domain;
    if (max_tp > 64)
        max_tp = 64;
    int tps[11], cps[11], vv[6], mm[5], eps[11];
    int ntp = vals (fix->tp, pow2, 11, tps);
    int ncp = vals (fix->cp, pow2, 6, cps); /* up to 32 */
    int nv = vals (fix->vpp, vpps, 6, vv);
    int nm = vals (fix->micro_batch, mbs, 5, mm);
    int nep = m->moe_experts ? vals (fix->ep, pow2, 11, eps) : 1;
    if (!m->moe_experts)
        eps[0] = 1;
    int r0 = fix->recompute >= 0 ? fix->recompute : 0;
    int r1 = fix->recompute >= 0 ? fix->recompute : 2;
    int s0 = fix->sharding >= 0 ? fix->sharding : 0;
    int s1 = fix->sharding >= 0       ? fix->sharding
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
        for (int c = 0; c < ncp; c++) {
            int cp = cps[c];
            if (cp > cp_max || (n_gpus / tp) % cp)
                continue;
            int rest = n_gpus / (tp * cp);
            /* DP = rest/PP must divide the global batch, so PP is a
             * multiple of rest / gcd(rest, batch): step over those only.
             */
            int step = 1;
            double gbr = floor (job->global_batch + 0.5);
            if (fabs (job->global_batch - gbr) < 1e-9 && gbr < 2e9)
                step = rest / (int)gcd_ll (rest, (long long)gbr);
            for (int pp = step; pp <= rest; pp += step) {
                if (rest % pp)
                    continue;
                if (fix->pp > 0 && pp != fix->pp)
                    continue;
                if (pp > m->layers)
                    break;
                int dp = rest / pp;
                if (fix->dp > 0 && dp != fix->dp)
                    continue;
                /* cheap pre-filter: DP must divide the global batch */
                if (fmod (job->global_batch, (double)dp) != 0) {
                    st->rejected_div += (double)nep * nv * nm
                                        * (r1 - r0 + 1) * (s1 - s0 + 1);
                    continue;
                }
                for (int e = 0; e < nep; e++) {
                    int ep = eps[e];
                    if (ep > 1
                        && ((tp * dp * cp) % ep || m->moe_experts % ep))
                        continue;
                    for (int v = 0; v < nv; v++) {
                        int vpp = vv[v];
                        if (vpp > 1 && (pp < 2 || pp * vpp > m->layers))
                            continue;
                        for (int b = 0; b < nm; b++) {
                            if (fmod (job->global_batch,
                                      (double)dp * mm[b]) != 0) {
                                st->rejected_div +=
                                    (r1 - r0 + 1) * (s1 - s0 + 1);
                                continue;
                            }
                            struct gp_layout l = {
                                .tp = tp, .pp = pp, .dp = dp, .cp = cp,
                                .ep = ep, .vpp = vpp, .micro_batch = mm[b],
                                .seq_par = fix->seq_par >= 0
                                               ? fix->seq_par
                                               : tp > 1,
                                .schedule = fix->schedule > 0
                                                ? (enum gp_schedule)
                                                      fix->schedule
                                                : GP_SCHED_1F1B,
                            };
                            if (gp_train_check (m, job, &l, NULL)) {
                                st->rejected_div +=
                                    (r1 - r0 + 1) * (s1 - s0 + 1);
                                continue;
                            }
                            for (int r = r0; r <= r1; r++) {
                                /* with fused attention, selective
                                 * recompute changes nothing: skip the
                                 * duplicate unless asked for
                                 */
                                if (r == GP_RECOMP_SELECTIVE
                                    && job->flash_attn && !m->mla
                                    && fix->recompute < 0)
                                    continue;
                                l.recompute = r;
                                for (int sh = s0; sh <= s1; sh++) {
                                    /* ZeRO-2/3 with PP is not offered by
                                     * Megatron; FSDP style means pp = 1.
                                     */
                                    if (fix->sharding < 0 && sh >= 2
                                        && pp > 1)
                                        continue;
                                    l.sharding = sh;
                                    struct gp_train_result res;
                                    res.layout = l;
                                    gp_train_memory (m, job, hw, &l,
                                                     &res.mem);
                                    st->evaluated += 1;
                                    if (!res.mem.fits) {
                                        st->rejected_oom += 1;
                                        if (!st->have_oom
                                            || res.mem.headroom
                                                   > st->best_oom.mem
                                                         .headroom) {
                                            gp_train_time (m, job, hw, &l,
                                                           &res.time);
                                            st->best_oom = res;
                                            st->have_oom = 1;
                                        }
                                        continue;
                                    }
                                    gp_train_time (m, job, hw, &l,
                                                   &res.time);
                                    keep (top, k, &n, &res);
                                }
                            }
                        }
                    }
                }
            }
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
