/* srtf.c - shortest remaining time first, preemptive (a reference point,
 * as in the Tiresias and Gandiva evaluations; it needs run times known in
 * advance).  A waiting job preempts the running job with the most time
 * left when its own remaining time plus the restart cost is shorter.
 * The pass is not strict: jobs that do not fit are skipped.  Waiting jobs
 * are ordered by remaining time, so a job that cannot preempt the first
 * victim (the most time left) is followed only by jobs that cannot
 * either (GP_POLICY_ORDERED).
 */
#include <math.h>

#include "gpuplan/policy.h"

static void srtf_key (const struct gp_sched *s, uint32_t j, double k[2])
{
    k[0] = gp_sched_remaining_s (s, j);
    k[1] = gp_sched_job (s, j)->submit_s;
}

/* Victims: most remaining time first.  Remaining time of a running job is
 * end - now, so ordering by -end is fixed while it runs.
 */
static void victim_key (const struct gp_sched *s, uint32_t j, double k[2])
{
    k[0] = -(gp_sched_now (s) + gp_sched_remaining_s (s, j));
    k[1] = -gp_sched_since_s (s, j);
}

static int may_preempt (const struct gp_sched *s, uint32_t p, uint32_t v)
{
    return gp_sched_remaining_s (s, p) < gp_sched_remaining_s (s, v);
}

const struct gp_policy_ops gp_policy_srtf = {
    .name = "srtf",
    .summary = "shortest remaining time first, preemptive (reference)",
    .flags = GP_POLICY_PREEMPT | GP_POLICY_MONOTONE | GP_POLICY_ORDERED,
    .pending_key = srtf_key,
    .victim_key = victim_key,
    .may_preempt = may_preempt,
};
