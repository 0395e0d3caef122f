/* fair_share.c - weighted dominant-resource fair share with Kueue-style
 * quotas, cohort borrowing and reclaim.
 *
 * Each team has its own queue (FIFO by submit time).  At every pick the
 * team with the lowest weighted dominant share goes first: with GPUs the
 * only scheduled resource, the dominant share of DRF (Ghodsi et al., NSDI
 * '11) is used GPUs / cluster GPUs, divided by the team's weight.
 *
 * Quotas follow Kueue ClusterQueues in a cohort, per pool (a Kueue
 * resource flavor) when the spec gives a pool map, else over all pools:
 * a team may always use its nominal quota; above it, it borrows from the unused, lendable quota
 * of the other teams in its cohort (each lends at most its lending limit)
 * and at most its own borrowing limit.  A team without a cohort cannot
 * borrow; a team without a quota is not limited.  Reclaim: a job that
 * fits within its team's nominal quota may preempt jobs of teams that are
 * borrowing (newest first), as Kueue's reclaimWithinCohort: Any.
 */
#include "gpuplan/policy.h"

static void team_fifo (const struct gp_sched *s, uint32_t j, double k[2])
{
    k[0] = gp_sched_job (s, j)->submit_s;
    k[1] = 0;
}

static double team_key (const struct gp_sched *s, int t)
{
    double total = (double)gp_sched_total_gpus (s);
    return gp_sched_team_used (s, t) / (total > 0 ? total : 1)
           / gp_sched_team_weight (s, t);
}

/* Quotas are whole GPUs; shares of GPUs are sums of 1/7000 GPU, so
 * comparisons allow for rounding.
 */
#define EPS 1e-9

/* Team 't' in pool 'p': nominal quota, use, borrowing and lending limit;
 * a team with a total quota is seen through its totals whatever the pool.
 */
struct qv {
    double q, used, borrow, lend;
};

static struct qv view (const struct gp_sched *s, int t, int p)
{
    struct qv v;
    if (gp_sched_team_per_pool (s, t)) {
        v.q = gp_sched_team_pool_quota (s, t, p);
        v.used = gp_sched_team_pool_used (s, t, p);
        v.borrow = gp_sched_team_pool_borrow_limit (s, t, p);
        v.lend = gp_sched_team_pool_lend_limit (s, t, p);
    } else {
        v.q = gp_sched_team_quota (s, t);
        v.used = gp_sched_team_used (s, t);
        v.borrow = gp_sched_team_borrow_limit (s, t);
        v.lend = gp_sched_team_lend_limit (s, t);
    }
    return v;
}

/* GPUs team 't' could still borrow from its cohort in pool 'p' (or in
 * total, for teams with total quotas: the engine keeps a cohort to one
 * form).
 */
static double cohort_available (const struct gp_sched *s, int t, int p)
{
    int c = gp_sched_team_cohort (s, t);
    if (c < 0)
        return 0;
    double unused = 0, borrowed = 0;
    for (size_t u = 0; u < gp_sched_n_teams (s); u++) {
        if (gp_sched_team_cohort (s, (int)u) != c)
            continue;
        struct qv v = view (s, (int)u, p);
        if (v.q < 0)
            continue;
        double free_q = v.q - v.used > 0 ? v.q - v.used : 0;
        if (v.lend >= 0 && free_q > v.lend)
            free_q = v.lend;
        if ((int)u != t)
            unused += free_q;
        if (v.used > v.q)
            borrowed += v.used - v.q;
    }
    return unused - borrowed;
}

static int admit (const struct gp_sched *s, uint32_t j, int p)
{
    int t = gp_sched_job (s, j)->team;
    struct qv v = view (s, t, p);
    if (v.q < 0)
        return 1;
    double need = v.used + gp_sched_job_gpus (s, j, p);
    if (need <= v.q + EPS)
        return 1;
    if (v.borrow >= 0 && need - v.q > v.borrow + EPS)
        return 0;
    double new_borrow = need - (v.used > v.q ? v.used : v.q);
    return new_borrow <= cohort_available (s, t, p) + EPS;
}

static void victim_key (const struct gp_sched *s, uint32_t j, double k[2])
{
    k[0] = -gp_sched_since_s (s, j);
    k[1] = 0;
}

/* Reclaim, in the pool the victim runs in: the preemptor must fit within
 * its nominal quota there, the victim's team must be borrowing there.
 */
static int may_preempt (const struct gp_sched *s, uint32_t p, uint32_t v)
{
    int tp = gp_sched_job (s, p)->team, tv = gp_sched_job (s, v)->team;
    if (tp == tv)
        return 0;
    int pool = gp_sched_job_pool (s, v);
    if (pool < 0)
        return 0;
    struct qv a = view (s, tp, pool), b = view (s, tv, pool);
    if (a.q < 0 || a.used + gp_sched_job_gpus (s, p, pool) > a.q + EPS)
        return 0; /* only a job within its nominal quota reclaims */
    if (b.q < 0)
        return 1; /* a team without quota only ever borrows */
    return b.used > b.q + EPS
           && gp_sched_team_cohort (s, tv) == gp_sched_team_cohort (s, tp);
}

/* The first test of may_preempt, which depends on the preemptor only:
 * a job reclaims only within its team's nominal quota in that pool.
 */
static int may_preempt_some (const struct gp_sched *s, uint32_t p, int pool)
{
    if (pool < 0)
        return 1;
    struct qv a = view (s, gp_sched_job (s, p)->team, pool);
    return !(a.q < 0 || a.used + gp_sched_job_gpus (s, p, pool) > a.q + EPS);
}

const struct gp_policy_ops gp_policy_fair_share = {
    .name = "fair-share",
    .summary = "weighted DRF across teams; quotas, cohort borrowing, reclaim",
    .flags = GP_POLICY_TEAMS | GP_POLICY_PREEMPT | GP_POLICY_STATIC_KEY,
    .pending_key = team_fifo,
    .victim_key = victim_key,
    .may_preempt = may_preempt,
    .team_key = team_key,
    .admit = admit,
    .may_preempt_some = may_preempt_some,
};
