/* fair_share.c - weighted dominant-resource fair share with Kueue-style
 * quotas, cohort borrowing and reclaim.
 *
 * Each team has its own queue (FIFO by submit time).  At every pick the
 * team with the lowest weighted dominant share goes first: with GPUs the
 * only scheduled resource, the dominant share of DRF (Ghodsi et al., NSDI
 * '11) is used GPUs / cluster GPUs, divided by the team's weight.
 *
 * Quotas follow Kueue ClusterQueues in a cohort: a team may always use
 * its nominal quota; above it, it borrows from the unused, lendable quota
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

static int gpus_of (const struct gp_sched *s, uint32_t j)
{
    int n = gp_sched_job (s, j)->n_gpus;
    return n > 0 ? n : 1;
}

/* GPUs team 't' could still borrow from its cohort. */
static double cohort_available (const struct gp_sched *s, int t)
{
    int c = gp_sched_team_cohort (s, t);
    if (c < 0)
        return 0;
    double unused = 0, borrowed = 0;
    for (size_t u = 0; u < gp_sched_n_teams (s); u++) {
        if (gp_sched_team_cohort (s, (int)u) != c)
            continue;
        double q = gp_sched_team_quota (s, (int)u);
        double used = gp_sched_team_used (s, (int)u);
        if (q < 0)
            continue;
        double free_q = q - used > 0 ? q - used : 0;
        double lend = gp_sched_team_lend_limit (s, (int)u);
        if (lend >= 0 && free_q > lend)
            free_q = lend;
        if ((int)u != t)
            unused += free_q;
        if (used > q)
            borrowed += used - q;
    }
    return unused - borrowed;
}

static int admit (const struct gp_sched *s, uint32_t j)
{
    int t = gp_sched_job (s, j)->team;
    double q = gp_sched_team_quota (s, t);
    if (q < 0)
        return 1;
    double used = gp_sched_team_used (s, t);
    double need = used + gpus_of (s, j);
    if (need <= q)
        return 1;
    double limit = gp_sched_team_borrow_limit (s, t);
    if (limit >= 0 && need - q > limit)
        return 0;
    double new_borrow = need - (used > q ? used : q);
    return new_borrow <= cohort_available (s, t);
}

static void victim_key (const struct gp_sched *s, uint32_t j, double k[2])
{
    k[0] = -gp_sched_since_s (s, j);
    k[1] = 0;
}

static int may_preempt (const struct gp_sched *s, uint32_t p, uint32_t v)
{
    int tp = gp_sched_job (s, p)->team, tv = gp_sched_job (s, v)->team;
    if (tp == tv)
        return 0;
    double qp = gp_sched_team_quota (s, tp), qv = gp_sched_team_quota (s, tv);
    if (qp < 0 || gp_sched_team_used (s, tp) + gpus_of (s, p) > qp)
        return 0; /* only a job within its nominal quota reclaims */
    if (qv < 0)
        return 1; /* a team without quota only ever borrows */
    return gp_sched_team_used (s, tv) > qv
           && gp_sched_team_cohort (s, tv) == gp_sched_team_cohort (s, tp);
}

const struct gp_policy_ops gp_policy_fair_share = {
    .name = "fair-share",
    .summary = "weighted DRF across teams; quotas, cohort borrowing, reclaim",
    .flags = GP_POLICY_TEAMS | GP_POLICY_PREEMPT,
    .pending_key = team_fifo,
    .victim_key = victim_key,
    .may_preempt = may_preempt,
    .team_key = team_key,
    .admit = admit,
};
