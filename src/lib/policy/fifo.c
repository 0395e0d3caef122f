/* fifo.c - strict first-in first-out: jobs start in submit order and a
 * head that does not fit blocks everyone behind it (no backfill, no
 * preemption).  Ties in submit time go by job index.
 */
#include "gpuplan/policy.h"

static void fifo_key (const struct gp_sched *s, uint32_t j, double k[2])
{
    k[0] = gp_sched_job (s, j)->submit_s;
    k[1] = 0;
}

const struct gp_policy_ops gp_policy_fifo = {
    .name = "fifo",
    .summary = "strict first-in first-out; a blocked head blocks the queue",
    .flags = GP_POLICY_STRICT | GP_POLICY_STATIC_KEY,
    .pending_key = fifo_key,
};
