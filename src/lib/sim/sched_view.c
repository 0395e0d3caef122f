/* sched_view.c - what a policy may read about the simulator's state
 * (the gp_sched_* accessors of policy.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_private.h"

/* -------------------------- policy accessors ---------------------------- */

#define SIM(s) ((const struct gp_sim *)(const void *)(s))

const struct gp_job *gp_sched_job (const struct gp_sched *s, uint32_t j)
{
    return &SIM (s)->js->jobs[j];
}

double gp_sched_now (const struct gp_sched *s)
{
    return SIM (s)->now;
}

int gp_sched_priority (const struct gp_sched *s, uint32_t j)
{
    return SJ (SIM (s), j)->prio;
}

double gp_sched_attained_gpu_s (const struct gp_sched *s, uint32_t j)
{
    const struct sjob *jb = SJ (SIM (s), j);
    double a = jb->attained;
    if (SIM (s)->st[j] == S_RUNNING)
        a += JOB_GPUS (jb) * (SIM (s)->now - jb->seg_start);
    return a;
}

double gp_sched_remaining_s (const struct gp_sched *s, uint32_t j)
{
    const struct sjob *jb = SJ (SIM (s), j);
    if (SIM (s)->st[j] != S_RUNNING)
        return jb->remaining;
    double w = (SIM (s)->now - jb->seg_start - jb->seg_over) / jb->seg_factor;
    if (w < 0)
        w = 0;
    return jb->remaining > w ? jb->remaining - w : 0;
}

double gp_sched_since_s (const struct gp_sched *s, uint32_t j)
{
    return SJ (SIM (s), j)->since;
}

const void *gp_sched_policy_state (const struct gp_sched *s)
{
    return SIM (s)->pstate;
}

size_t gp_sched_n_teams (const struct gp_sched *s)
{
    return SIM (s)->n_teams;
}

double gp_sched_team_used (const struct gp_sched *s, int t)
{
    return SIM (s)->teams[t].used;
}

double gp_sched_team_weight (const struct gp_sched *s, int t)
{
    return SIM (s)->teams[t].weight;
}

double gp_sched_team_quota (const struct gp_sched *s, int t)
{
    return SIM (s)->teams[t].quota;
}

double gp_sched_team_borrow_limit (const struct gp_sched *s, int t)
{
    return SIM (s)->teams[t].borrow;
}

double gp_sched_team_lend_limit (const struct gp_sched *s, int t)
{
    return SIM (s)->teams[t].lend;
}

int gp_sched_team_cohort (const struct gp_sched *s, int t)
{
    return SIM (s)->teams[t].cohort;
}

long long gp_sched_total_gpus (const struct gp_sched *s)
{
    return SIM (s)->total_gpus;
}

size_t gp_sched_n_pools (const struct gp_sched *s)
{
    return SIM (s)->n_pools;
}

double gp_sched_job_gpus (const struct gp_sched *s, uint32_t j, int pool)
{
    return gp__job_gpus (SIM (s), j, pool);
}

int gp_sched_job_pool (const struct gp_sched *s, uint32_t j)
{
    const struct sjob *jb = SJ (SIM (s), j);
    return SIM (s)->st[j] == S_RUNNING ? jb->pool_used : -1;
}

int gp_sched_team_per_pool (const struct gp_sched *s, int t)
{
    return SIM (s)->teams[t].per_pool;
}

double gp_sched_team_pool_quota (const struct gp_sched *s, int t, int pool)
{
    const struct steam *tm = &SIM (s)->teams[t];
    return tm->per_pool ? tm->pq[pool] : -1;
}

double gp_sched_team_pool_borrow_limit (const struct gp_sched *s, int t,
                                        int pool)
{
    const struct steam *tm = &SIM (s)->teams[t];
    return tm->per_pool ? tm->pborrow[pool] : -1;
}

double gp_sched_team_pool_lend_limit (const struct gp_sched *s, int t,
                                      int pool)
{
    const struct steam *tm = &SIM (s)->teams[t];
    return tm->per_pool ? tm->plend[pool] : -1;
}

double gp_sched_team_pool_used (const struct gp_sched *s, int t, int pool)
{
    return (double)SIM (s)->teams[t].pused_u[pool] / GP_MICRO;
}
