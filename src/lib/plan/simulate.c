/* simulate.c - the multi-tenant behaviour of the portfolio on one design
 * option: its workloads as jobs (training runs at their start month,
 * recurring runs at the planned cadence, traces replayed, services at
 * their grown size month by month) over the horizon or, when that gives
 * too many jobs, its busiest quarter, under the teams' quotas, run
 * through the cluster simulator (sim.h) with the plan's policy; the
 * waits per team, the utilization and the fairness come back into the
 * option.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/cluster.h"
#include "gpuplan/policy.h"
#include "gpuplan/sim.h"
#include "gpuplan/trace.h"
#include "plan_private.h"

/* The most trace jobs one simulation replays (all trace workloads
 * together); a longer window is simulated for its first replays only.
 */
#define PLAN_SIM_MAX_TRACE_JOBS 20000

/* The most jobs the whole horizon may give before the simulation keeps
 * to the busiest quarter (docs/model/infrastructure.md, Multi-tenancy).
 */
#define PLAN_SIM_MAX_JOBS 20000

/* Months of the representative window when the horizon has too many. */
#define PLAN_SIM_WINDOW_MONTHS 3

/* The simulated window, in seconds of the horizon. */
struct sim_window {
    double t0, t1;
};

/* Replay the trace of 'w' back to back from time 0 over the horizon,
 * keeping the jobs submitted inside 'win' (times from its start), under
 * the workload's team; 'proto' holds the team and priority.
 */
static int add_trace_jobs (struct gp_jobset *js,
                           const struct gp_plan_workload *w, size_t wi,
                           const struct gp_job *proto, struct sim_window win,
                           size_t *left)
{
    const struct gp_jobset *tr = w->trace_jobs;
    double first = INFINITY;
    for (size_t i = 0; i < tr->n_jobs; i++)
        first = fmin (first, tr->jobs[i].submit_s);
    int64_t id = 0;
    for (double off = 0; off < win.t1 - 1e-6; off += w->trace_span_s) {
        for (size_t i = 0; i < tr->n_jobs; i++) {
            const struct gp_job *t = &tr->jobs[i];
            if (*left == 0)
                return 0;
            struct gp_job j = *proto;
            j.submit_s = off + t->submit_s - first;
            if (j.submit_s >= win.t1 || j.submit_s < win.t0)
                continue;
            j.submit_s -= win.t0;
            j.duration_s = t->duration_s;
            j.n_gpus = t->n_gpus;
            j.gpu_milli = t->gpu_milli > 0 ? t->gpu_milli : 1000;
            j.ckpt_interval_s = t->ckpt_interval_s;
            j.comm_share = t->comm_share;
            j.id = (int64_t)wi * 100000000 + id++;
            int rc = gp_jobset_add (js, &j);
            if (rc != 0)
                return rc;
            (*left)--;
        }
        if (!(w->trace_span_s > 0))
            break;
    }
    return 0;
}

/* A service at its grown size: one job per replica, from the first month
 * of the window it is needed in to the end of that run of months, so the
 * service holds each month's replicas (gp_plan_service_gpus) and grows
 * (or shrinks) month by month.
 */
static int add_service_jobs (struct gp_jobset *js,
                             const struct gp_plan_workload *w, size_t wi,
                             const struct plan_sizing *z,
                             const struct gp_job *proto,
                             struct sim_window win)
{
    size_t m0 = (size_t)llround (win.t0 / MONTH_S);
    size_t m1 = (size_t)llround (win.t1 / MONTH_S);
    double per = z->job_gpus[wi] > 0 ? z->job_gpus[wi] : 1;
    double most = 0;
    for (size_t t = m0; t < m1; t++)
        most = fmax (most, gp_plan_service_gpus (w, z, wi, t) / per);
    int64_t id = 0;
    for (double k = 1; k <= most + 1e-9; k++) {
        size_t t = m0;
        while (t < m1) {
            if (gp_plan_service_gpus (w, z, wi, t) / per < k - 1e-9) {
                t++;
                continue;
            }
            size_t e = t;
            while (e < m1 && gp_plan_service_gpus (w, z, wi, e) / per
                                 >= k - 1e-9)
                e++;
            struct gp_job j = *proto;
            j.n_gpus = (int)per;
            j.submit_s = (double)t * MONTH_S - win.t0;
            j.duration_s = (double)(e - t) * MONTH_S;
            j.id = (int64_t)wi * 100000000 + id++;
            int rc = gp_jobset_add (js, &j);
            if (rc != 0)
                return rc;
            t = e;
        }
    }
    return 0;
}

/* The option's cluster: one pool of its nodes, one team per quota, all
 * in one cohort.  GPUs no team asked for (the quotas add up to less
 * than the fleet) are the cohort's own quota, lent to every team (a
 * Kueue Cohort's resourceGroups): a team '(unasked)' with no jobs.
 * 'pool' and 'teams' (GP_PLAN_MAX_TEAMS + 1) are filled and borrowed by
 * 'cl'.
 */
static void sim_cluster (const struct gp_plan_spec *s,
                         const struct gp_plan_option_spec *os,
                         const struct gp_plan_option *o, struct gp_pool *pool,
                         struct gp_team *teams, struct gp_cluster *cl)
{
    memset (pool, 0, sizeof *pool);
    memset (teams, 0, (GP_PLAN_MAX_TEAMS + 1) * sizeof *teams);
    snprintf (pool->name, sizeof pool->name, "main");
    snprintf (pool->accel_id, sizeof pool->accel_id, "%s", os->accel_id);
    pool->accel = os->accel;
    pool->gpus_per_node = o->gpus_per_node;
    pool->nodes = (int)o->nodes;
    pool->scale_up_domain = o->scale_up_domain;
    memset (cl, 0, sizeof *cl);
    snprintf (cl->name, sizeof cl->name, "%s", o->name);
    cl->pools = pool;
    cl->n_pools = 1;
    cl->spine_oversub = 1;
    long long given = 0;
    for (size_t i = 0; i < o->n_quotas && i < GP_PLAN_MAX_TEAMS; i++) {
        struct gp_team *t = &teams[i];
        snprintf (t->name, sizeof t->name, "%s", o->quotas[i].team);
        t->weight = s->teams[i].weight > 0 ? s->teams[i].weight : 1;
        t->priority = s->teams[i].priority;
        t->quota_gpus = o->quotas[i].gpus;
        given += o->quotas[i].gpus;
        /* One cohort for the portfolio: a team runs a job larger than its
         * quota by borrowing idle quota (Kueue cohort semantics), as the
         * exported ClusterQueues would let it.
         */
        snprintf (t->cohort, sizeof t->cohort, "portfolio");
        t->borrowing_limit = -1;
        t->lending_limit = -1;
        cl->n_teams++;
    }
    if (cl->n_teams > 0 && given < o->gpus) {
        struct gp_team *t = &teams[cl->n_teams++];
        snprintf (t->name, sizeof t->name, "(unasked)");
        t->weight = 1;
        t->quota_gpus = o->gpus - given;
        snprintf (t->cohort, sizeof t->cohort, "portfolio");
        t->borrowing_limit = -1;
        t->lending_limit = -1;
    }
    cl->teams = teams;
}

/* Jobs the whole horizon would give (the window's choice). */
static double horizon_jobs (const struct gp_plan_spec *s,
                            const struct plan_sizing *z, size_t T)
{
    double n = 0, horizon_s = (double)T * MONTH_S;
    for (size_t i = 0; i < s->n_workloads; i++) {
        const struct gp_plan_workload *w = &s->workloads[i];
        if (w->kind == GP_WL_TRAINING)
            n += 1;
        else if (w->kind == GP_WL_RECURRING && w->trace_jobs)
            n += (double)w->trace_jobs->n_jobs
                 * (w->trace_span_s > 0 ? ceil (horizon_s / w->trace_span_s)
                                        : 1);
        else if (w->kind == GP_WL_RECURRING)
            n += floor (w->runs_per_month * (double)T);
        else {
            /* a replica job starts wherever the replicas grow */
            double per = fmax (z->job_gpus[i], 1), prev = 0;
            for (size_t t = 0; t < T; t++) {
                double reps = gp_plan_service_gpus (w, z, i, t) / per;
                n += fmax (reps - prev, 0);
                prev = reps;
            }
        }
    }
    return n;
}

/* The simulated window: the whole horizon when its jobs number at most
 * PLAN_SIM_MAX_JOBS, else the busiest PLAN_SIM_WINDOW_MONTHS months (the
 * most demand GPU-hours; the earliest among equals).
 */
static struct sim_window sim_window (const struct gp_plan_spec *s,
                                     const struct plan_sizing *z,
                                     const struct gp_plan_option *o)
{
    size_t T = o->n_periods;
    struct sim_window win = {0, (double)T * MONTH_S};
    if (T <= PLAN_SIM_WINDOW_MONTHS
        || horizon_jobs (s, z, T) <= PLAN_SIM_MAX_JOBS)
        return win;
    size_t best = 0;
    double most = -1;
    for (size_t t = 0; t + PLAN_SIM_WINDOW_MONTHS <= T; t++) {
        double d = 0;
        for (size_t k = t; k < t + PLAN_SIM_WINDOW_MONTHS; k++)
            d += o->demand_gpus[k];
        if (d > most + 1e-9) {
            most = d;
            best = t;
        }
    }
    win.t0 = (double)best * MONTH_S;
    win.t1 = (double)(best + PLAN_SIM_WINDOW_MONTHS) * MONTH_S;
    return win;
}

/* Jobs in 'win' (times from its start): each training run at its start
 * month (the part of it inside the window); recurring runs at the
 * planned cadence, floor(runs_per_month x months) of them spread evenly
 * over the horizon; traces replayed; services at each month's grown
 * size (add_service_jobs).  Returns 0 or the job set's error.
 */
static int sim_jobs (const struct gp_plan_spec *s,
                     const struct plan_sizing *z,
                     const struct gp_plan_option *o, struct sim_window win,
                     struct gp_jobset *js)
{
    double horizon_s = (double)o->n_periods * MONTH_S;
    int rc = 0;
    size_t trace_left = PLAN_SIM_MAX_TRACE_JOBS;
    for (size_t i = 0; i < s->n_workloads && rc == 0; i++) {
        const struct gp_plan_workload *w = &s->workloads[i];
        struct gp_job j;
        memset (&j, 0, sizeof j);
        j.gpu_milli = 1000;
        j.pool = -1;
        j.n_gpus = (int)z->job_gpus[i];
        j.team = gp_jobset_team (js, w->team[0] ? w->team : "default");
        if (j.team < 0)
            return GP_ENOMEM;
        j.ckpt_interval_s = z->ckpt_interval_s;
        for (size_t t = 0; t < s->n_teams; t++)
            if (!strcmp (s->teams[t].name, w->team))
                j.priority = s->teams[t].priority;
        j.id = (int64_t)i * 100000000;
        if (w->kind == GP_WL_TRAINING) {
            double a = w->start_month * MONTH_S, b = a + z->job_s[i];
            if (b <= win.t0 || a >= win.t1)
                continue;
            j.submit_s = fmax (a, win.t0) - win.t0;
            j.duration_s = (b > win.t1 ? win.t1 : b) - fmax (a, win.t0);
            rc = gp_jobset_add (js, &j);
        } else if (w->kind == GP_WL_RECURRING && w->trace_jobs) {
            rc = add_trace_jobs (js, w, i, &j, win, &trace_left);
        } else if (w->kind == GP_WL_RECURRING) {
            double n = floor (w->runs_per_month * (double)o->n_periods);
            for (double k = 0; k < n && rc == 0; k++) {
                double at = horizon_s * k / n;
                if (at < win.t0 || at >= win.t1)
                    continue;
                j.submit_s = at - win.t0;
                j.duration_s = z->job_s[i];
                j.id = (int64_t)i * 100000000 + (int64_t)k;
                rc = gp_jobset_add (js, &j);
            }
        } else {
            rc = add_service_jobs (js, w, i, z, &j, win);
        }
    }
    return rc;
}

/* The simulator's metrics into the option and its quotas. */
static void sim_results (const struct gp_sim_metrics *m,
                         struct gp_plan_option *o)
{
    o->utilization = m->utilization;
    o->wait_p95_s = m->wait.p95_s;
    o->starve_max_wait_s = m->starve_large_max_wait_s;
    o->jain_index = m->jain_teams > 0 ? m->jain_index : -1.0; /* -1 = n/a */
    o->sim_jobs = m->n_jobs;
    o->sim_unfinished = m->n_unfinished + m->n_unfit;
    for (size_t i = 0; i < m->n_teams; i++) {
        for (size_t q = 0; q < o->n_quotas; q++) {
            if (strcmp (o->quotas[q].team, m->teams[i].name))
                continue;
            o->quotas[q].jobs = m->teams[i].n_jobs;
            o->quotas[q].wait_mean_s = m->teams[i].wait.mean_s;
            o->quotas[q].wait_p95_s = m->teams[i].wait.p95_s;
            o->quotas[q].wait_max_s = m->teams[i].wait.max_s;
            o->quotas[q].used_share = m->teams[i].share;
        }
    }
    o->sim.code = 0;
}

/* The window and what the plan costs in it: the planners' demand
 * GPU-hours and the simulated fleet's GPU-hours.
 */
static void window_figures (struct gp_plan_option *o, struct sim_window win)
{
    size_t m0 = (size_t)llround (win.t0 / MONTH_S);
    size_t m1 = (size_t)llround (win.t1 / MONTH_S);
    o->sim_window_start = (double)m0;
    o->sim_window_months = (double)(m1 - m0);
    o->sim_demand_gpu_hours = 0;
    for (size_t t = m0; t < m1 && t < o->n_periods; t++)
        o->sim_demand_gpu_hours += o->demand_gpus[t] * HOURS_PER_MONTH;
    o->sim_provisioned_gpu_hours = (double)o->gpus * (double)(m1 - m0)
                                   * HOURS_PER_MONTH;
}

void gp_plan_simulate (struct gp_plan_spec *s,
                       const struct gp_plan_option_spec *os,
                       const struct plan_sizing *z,
                       struct gp_plan_option *o)
{
    if (!z || z->code != 0) {
        o->sim.code = GP_ENOTSUP;
        snprintf (o->sim.text, sizeof o->sim.text,
                  "the simulation needs job sizes from the planners (%s)",
                  z ? z->text : "not sized");
        return;
    }
    gp_error_t e = {0};
    const struct gp_policy_ops *pol = gp_policy_find (s->policy, &e);
    if (!pol) {
        o->sim.code = GP_EINVAL;
        snprintf (o->sim.text, sizeof o->sim.text, "policy: %s", e.text);
        return;
    }
    struct gp_jobset *js = gp_jobset_create ();
    if (!js) {
        o->sim.code = GP_ENOMEM;
        snprintf (o->sim.text, sizeof o->sim.text, "out of memory");
        return;
    }
    struct gp_pool pool;
    struct gp_team teams[GP_PLAN_MAX_TEAMS + 1];
    struct gp_cluster cl;
    sim_cluster (s, os, o, &pool, teams, &cl);
    struct sim_window win = sim_window (s, z, o);
    window_figures (o, win);
    struct gp_sim *sim = NULL;
    int jrc = sim_jobs (s, z, o, win, js);
    if (jrc)
        gp_errprintf (&e, jrc, "%s", gp_strerror (jrc));
    else {
        struct gp_sim_config cfg;
        gp_sim_config_init (&cfg);
        cfg.restart_cost_s = gp_plan_assume (s, "restart_s");
        cfg.ckpt_interval_s = gp_plan_assume (s, "checkpoint_interval_s");
        cfg.cluster = &cl;
        cfg.policy = pol;
        cfg.seed = 1;
        sim = gp_sim_create (&cfg, js, &e);
    }
    if (!sim || gp_sim_run (sim, &e) != 0) {
        o->sim.code = e.code ? e.code : GP_EINTERNAL;
        snprintf (o->sim.text, sizeof o->sim.text, "simulation: %s", e.text);
        gp_sim_destroy (sim);
        gp_jobset_destroy (js);
        return;
    }
    sim_results (gp_sim_get_metrics (sim), o);
    gp_sim_destroy (sim);
    gp_jobset_destroy (js);
}
