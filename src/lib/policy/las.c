/* las.c - discretized two-dimensional least-attained-service (Tiresias
 * 2D-LAS, Gu et al., NSDI '19, section 4.2): a job's attained service is
 * GPUs x time it has held them; jobs sit in queues by attained service
 * with thresholds T, 10 T (T = the parameter threshold_gpu_s, default
 * 3600 GPU-s),
 * are served queue by queue, FIFO by submit time inside a queue, and a
 * job in a lower queue preempts running jobs of a higher one.  Jobs are
 * demoted while running when they cross a threshold (a re-key event).
 * Tiresias' starvation guard (promotion after long waits) is not modelled.
 * Waiting jobs are ordered by queue, and a job preempts only jobs of a
 * higher queue, so a job that cannot preempt the first victim is followed
 * only by jobs that cannot either (GP_POLICY_ORDERED).
 */
#include <math.h>
#include <stdlib.h>

#include "gpuplan/policy.h"

#define N_QUEUES 3
#define EPS 1e-6 /* GPU-s; absorbs rounding at a threshold */

static const struct gp_policy_param las_params[] = {
    {"threshold_gpu_s", 3600, 0, "GPU-s",
     "attained service at which a job leaves the first queue (the next "
     "queue starts at 10x)"},
};

struct las_state {
    double threshold;  /* GPU-s */
};

static int las_init (const double *values, void **state, gp_error_t *err)
{
    struct las_state *st = malloc (sizeof *st);
    if (!st)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    st->threshold = values[0];
    *state = st;
    return 0;
}

static void las_fini (void *state)
{
    free (state);
}

static double threshold (const struct gp_sched *s)
{
    const struct las_state *st = gp_sched_policy_state (s);
    return st ? st->threshold : las_params[0].def;
}

static int level (const struct gp_sched *s, uint32_t j)
{
    double a = gp_sched_attained_gpu_s (s, j);
    double t = threshold (s);
    int q = 0;
    while (q < N_QUEUES - 1 && a >= t - EPS) {
        q++;
        t *= 10;
    }
    return q;
}

static void las_key (const struct gp_sched *s, uint32_t j, double k[2])
{
    k[0] = level (s, j);
    k[1] = gp_sched_job (s, j)->submit_s;
}

static void victim_key (const struct gp_sched *s, uint32_t j, double k[2])
{
    k[0] = -level (s, j);
    k[1] = -gp_sched_job (s, j)->submit_s;
}

static int may_preempt (const struct gp_sched *s, uint32_t p, uint32_t v)
{
    return level (s, p) < level (s, v);
}

/* Next threshold crossing of running job 'j', or INFINITY. */
static double rekey_at (const struct gp_sched *s, uint32_t j)
{
    double a = gp_sched_attained_gpu_s (s, j);
    double t = threshold (s);
    for (int q = 0; q < N_QUEUES - 1; q++, t *= 10)
        if (a < t - EPS) {
            int n = gp_sched_job (s, j)->n_gpus;
            return gp_sched_now (s) + (t - a) / (n > 0 ? n : 1);
        }
    return INFINITY;
}

const struct gp_policy_ops gp_policy_las = {
    .name = "las",
    .summary = "Tiresias-style discretized 2D least-attained-service",
    .flags = GP_POLICY_PREEMPT | GP_POLICY_MONOTONE | GP_POLICY_ORDERED,
    .pending_key = las_key,
    .victim_key = victim_key,
    .may_preempt = may_preempt,
    .rekey_at = rekey_at,
    .params = las_params,
    .n_params = sizeof las_params / sizeof *las_params,
    .init = las_init,
    .fini = las_fini,
};
