/* fifo_backfill.c - FIFO with EASY backfill (Lifka, "The ANL/IBM SP
 * scheduling system", JSSPP 1995; Mu'alem and Feitelson, IEEE TPDS 2001):
 * the blocked head gets a reservation at the earliest time enough GPUs
 * free up (the shadow time); later jobs may start now when they end
 * before the shadow time or use only GPUs the head will not need.  Run
 * times are known exactly (the trace's), as in most trace-driven studies.
 */
#include "gpuplan/policy.h"

static void fifo_key (const struct gp_sched *s, uint32_t j, double k[2])
{
    k[0] = gp_sched_job (s, j)->submit_s;
    k[1] = 0;
}

const struct gp_policy_ops gp_policy_fifo_backfill = {
    .name = "fifo-backfill",
    .summary = "FIFO with EASY backfill behind a blocked head",
    .flags = GP_POLICY_STRICT | GP_POLICY_BACKFILL | GP_POLICY_STATIC_KEY,
    .pending_key = fifo_key,
};
