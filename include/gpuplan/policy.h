/* gpuplan/policy.h - scheduling policies of the simulator as ops tables.
 *
 * A policy is a constant table of functions, one table per file under
 * src/lib/policy/ (the shape of Slurm's sched plugins, linked statically).
 * The engine owns the mechanics: queues as heaps, gang placement,
 * preemption, EASY backfill.  A policy only says, through keys, who goes
 * first and who may be preempted:
 *
 *   pending_key   orders waiting jobs (lowest key first);
 *   victim_key    orders running jobs as preemption victims (lowest first);
 *   may_preempt   whether a waiting job may evict a running one;
 *   team_key      with GP_POLICY_TEAMS, orders teams (lowest served first),
 *                 each team keeping its own queue by pending_key;
 *   admit         quota admission of a job to one pool (NULL = always);
 *                 the engine asks for each pool it would place the job in,
 *                 in pool order, and places it in the first admitted pool
 *                 that has room (Kueue's flavor assignment);
 *   rekey_at      for running jobs whose key changes with service received
 *                 (LAS), the next time it changes, or INFINITY.
 *
 * Keys are read when a job enters a queue and are then fixed until the
 * engine re-queues it.  All these functions are pure and must not fail.
 *
 * A policy may have tunable parameters (params, with defaults) and a
 * private state built from their values when a simulation starts (init)
 * and freed when it ends (fini); the key functions read it through
 * gp_sched_policy_state().  The LAS queue threshold is such a parameter.
 */
#ifndef GPUPLAN_POLICY_H
#define GPUPLAN_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "gpuplan/error.h"
#include "gpuplan/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gp_sched; /* the simulator as a policy sees it */

enum gp_policy_flags_b {
    GP_POLICY_STRICT = 1,   /* a blocked head stops the pass (FIFO) */
    GP_POLICY_BACKFILL = 2, /* EASY backfill behind a blocked head */
    GP_POLICY_PREEMPT = 4,  /* waiting jobs may evict running ones */
    GP_POLICY_TEAMS = 8,    /* one queue per team, ordered by team_key */
    GP_POLICY_MONOTONE = 16, /* may_preempt false => false for all later
                                victims (stop the victim scan) */
    GP_POLICY_STATIC_KEY = 32, /* pending_key depends on the job only (not
                                  on time or service): the engine may rank
                                  jobs once and index the queue */
    GP_POLICY_ORDERED = 64,  /* with MONOTONE: a waiting job that may not
                                preempt the first victim is followed in
                                the queue only by jobs that may not either
                                (end the pass when no GPU is free) */
};

/* One tunable parameter of a policy. */
struct gp_policy_param {
    const char *key;   /* e.g. "threshold_gpu_s" */
    double def;        /* default */
    double min;        /* smallest valid value; values must be > min */
    const char *unit;  /* e.g. "GPU-s" */
    const char *doc;   /* one line */
};

/* A value given for a parameter, by key. */
struct gp_policy_setting {
    const char *key;
    double value;
};

struct gp_policy_ops {
    const char *name;
    const char *summary;
    unsigned flags; /* enum gp_policy_flags_b */
    void (*pending_key) (const struct gp_sched *s, uint32_t j, double k[2]);
    void (*victim_key) (const struct gp_sched *s, uint32_t j, double k[2]);
    int (*may_preempt) (const struct gp_sched *s, uint32_t p, uint32_t v);
    double (*team_key) (const struct gp_sched *s, int team);
    int (*admit) (const struct gp_sched *s, uint32_t j, int pool);
    double (*rekey_at) (const struct gp_sched *s, uint32_t j);
    /* Parameters (n_params entries; NULL/0 = none). */
    const struct gp_policy_param *params;
    size_t n_params;
    /* Build the private state from 'values' (n_params values, in params
     * order, already validated); may leave *state NULL.  Returns 0 or
     * GP_ENOMEM with 'err'.  NULL = stateless.
     */
    int (*init) (const double *values, void **state, gp_error_t *err);
    /* Free what init built (called with NULL too).  NULL = nothing. */
    void (*fini) (void *state);
    /* 0 when may_preempt(p, v) is false for every job v running in 'pool'
     * (-1 = any pool), so the engine skips the victim scan; NULL = may be
     * true.  Pure, must not fail.
     */
    int (*may_preempt_some) (const struct gp_sched *s, uint32_t p, int pool);
};

extern const struct gp_policy_ops gp_policy_fifo;
extern const struct gp_policy_ops gp_policy_fifo_backfill;
extern const struct gp_policy_ops gp_policy_priority;
extern const struct gp_policy_ops gp_policy_fair_share;
extern const struct gp_policy_ops gp_policy_las;
extern const struct gp_policy_ops gp_policy_srtf;

/* All policies, NULL-terminated, in documentation order. */
extern const struct gp_policy_ops *const gp_policies[];

/* Look a policy up by name; NULL with 'err' (GP_ENOTFOUND, listing the
 * names) when unknown.
 */
const struct gp_policy_ops *gp_policy_find (const char *name,
                                            gp_error_t *err);

/* Build the state of 'ops' from its defaults overridden by 'set' (n_set
 * settings by key; NULL/0 = all defaults).  Stores the state (possibly
 * NULL) in *state; free it with gp_policy_fini_state().  Errors:
 * GP_ENOTFOUND for a key the policy does not have (naming the valid
 * ones), GP_EINVAL for a value not above the parameter's minimum,
 * GP_ENOMEM.
 */
int gp_policy_init_state (const struct gp_policy_ops *ops,
                          const struct gp_policy_setting *set, size_t n_set,
                          void **state, gp_error_t *err);
/* Free a state built by gp_policy_init_state() (NULL is fine). */
void gp_policy_fini_state (const struct gp_policy_ops *ops, void *state);

/* ---------------- what a policy may read about the state ---------------- */

/* Every accessor takes the simulator as the policy sees it and a job
 * index 'j' (as in the job set) or team index; they never fail.
 */

/* The job as read from the trace (borrowed). */
const struct gp_job *gp_sched_job (const struct gp_sched *s, uint32_t j);
/* Simulated time, seconds. */
double gp_sched_now (const struct gp_sched *s);
/* Effective priority class: the job's, else its team's. */
int gp_sched_priority (const struct gp_sched *s, uint32_t j);
/* GPU-seconds of service received so far (all segments, up to now). */
double gp_sched_attained_gpu_s (const struct gp_sched *s, uint32_t j);
/* Ideal-placement seconds of work still to do (from the last checkpoint
 * when waiting; at 'now' when running).
 */
double gp_sched_remaining_s (const struct gp_sched *s, uint32_t j);
/* Time the job last (re)entered the queue or started running. */
double gp_sched_since_s (const struct gp_sched *s, uint32_t j);
/* The state the policy's init built (NULL for a stateless policy). */
const void *gp_sched_policy_state (const struct gp_sched *s);

/* Number of teams; team indices are as gp_job.team. */
size_t gp_sched_n_teams (const struct gp_sched *s);
/* GPUs team 'team' holds now (fractions for shared GPUs). */
double gp_sched_team_used (const struct gp_sched *s, int team);
/* Fair-share weight of the team (1 unless the spec gives one). */
double gp_sched_team_weight (const struct gp_sched *s, int team);
/* Nominal quota in GPUs (-1 = none). */
double gp_sched_team_quota (const struct gp_sched *s, int team);
/* GPUs the team may borrow above its quota (-1 = unlimited). */
double gp_sched_team_borrow_limit (const struct gp_sched *s, int team);
/* GPUs of its quota the team may lend (-1 = unlimited). */
double gp_sched_team_lend_limit (const struct gp_sched *s, int team);
/* Cohort index of the team (-1 = none). */
int gp_sched_team_cohort (const struct gp_sched *s, int team);
/* GPUs of the whole cluster. */
long long gp_sched_total_gpus (const struct gp_sched *s);

/* Number of pools (index as in the cluster spec). */
size_t gp_sched_n_pools (const struct gp_sched *s);
/* GPUs job 'j' holds when placed in 'pool': its GPU count, or its share
 * of one GPU (milli-GPU / 1000, or MIG slices / 7) where the pool shares
 * GPUs.
 */
double gp_sched_job_gpus (const struct gp_sched *s, uint32_t j, int pool);
/* Pool a running job holds GPUs in, -1 when it is not running. */
int gp_sched_job_pool (const struct gp_sched *s, uint32_t j);
/* Whether team 't' has per-pool quotas (a pool map in the spec); then
 * quota, borrowing and lending limits (-1 = none) and use are per pool.
 */
int gp_sched_team_per_pool (const struct gp_sched *s, int team);
/* Per-pool quota, borrowing and lending limits of the team in 'pool' in
 * GPUs (-1 = none / unlimited), and the GPUs it holds there now.
 */
double gp_sched_team_pool_quota (const struct gp_sched *s, int team,
                                 int pool);
double gp_sched_team_pool_borrow_limit (const struct gp_sched *s, int team,
                                        int pool);
double gp_sched_team_pool_lend_limit (const struct gp_sched *s, int team,
                                      int pool);
double gp_sched_team_pool_used (const struct gp_sched *s, int team,
                                int pool);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_POLICY_H */
