/* priority.c - priority classes with preemption.
 *
 * Waiting jobs go by priority class (higher first), then submit time.  A
 * job that does not fit may preempt running jobs of a strictly lower
 * class: lowest class first, and within a class the most recently
 * started (least work since its start to lose), as Kubernetes' default
 * preemption and Slurm's preempt/partition_prio order victims.  A victim
 * restarts from its last checkpoint and pays the restart cost.  A head
 * that still cannot start keeps an EASY reservation and lower jobs
 * backfill around it.
 */
#include "gpuplan/policy.h"

static void prio_key (const struct gp_sched *s, uint32_t j, double k[2])
{
    k[0] = -(double)gp_sched_priority (s, j);
    k[1] = gp_sched_job (s, j)->submit_s;
}

static void victim_key (const struct gp_sched *s, uint32_t j, double k[2])
{
    k[0] = (double)gp_sched_priority (s, j);
    k[1] = -gp_sched_since_s (s, j);
}

static int may_preempt (const struct gp_sched *s, uint32_t p, uint32_t v)
{
    return gp_sched_priority (s, p) > gp_sched_priority (s, v);
}

const struct gp_policy_ops gp_policy_priority = {
    .name = "priority",
    .summary = "priority classes, preemption of lower classes, backfill",
    .flags = GP_POLICY_STRICT | GP_POLICY_BACKFILL | GP_POLICY_PREEMPT
             | GP_POLICY_MONOTONE | GP_POLICY_STATIC_KEY,
    .pending_key = prio_key,
    .victim_key = victim_key,
    .may_preempt = may_preempt,
};
