/* request.c - one simulation request: the job set from its source, the
 * teams check, one run or a sweep of runs, and the caller-owned report.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/policy.h"
#include "gpuplan/sim.h"

struct gp_sim_report_own {
    struct gp_jobset *jobs; /* NULL when borrowed from the request */
    struct gp_sim *sim;
};

static const char *const sweep_names[] = {NULL, "nodes", "load"};

const char *gp_sim_sweep_str (enum gp_sim_sweep s)
{
    return (unsigned)s < sizeof sweep_names / sizeof *sweep_names
               ? sweep_names[s]
               : NULL;
}

int gp_sim_sweep_parse (const char *s, enum gp_sim_sweep *out,
                        gp_error_t *err)
{
    for (int i = 1; i < (int)(sizeof sweep_names / sizeof *sweep_names); i++)
        if (s && strcmp (s, sweep_names[i]) == 0) {
            *out = (enum gp_sim_sweep)i;
            return 0;
        }
    return gp_errprintf (err, GP_EINVAL, "--sweep must be nodes or load");
}

void gp_sim_request_init (struct gp_sim_request *rq)
{
    gp_sim_request_init_defaults (rq, NULL);
}

void gp_sim_request_init_defaults (struct gp_sim_request *rq,
                                   const struct gp_defaults *d)
{
    memset (rq, 0, sizeof *rq);
    gp_sim_config_init_defaults (&rq->cfg, d);
    rq->cfg.policy = &gp_policy_fifo_backfill;
    rq->trace_opts.format = GP_TRACE_AUTO;
    rq->synth.arrival_rate_per_s = 60.0 / 3600; /* 60 jobs per hour */
    rq->synth.duration_median_s = 3600;
    rq->synth.duration_sigma = 1.5;
    rq->synth.n_teams = 4;
    rq->max_p95_wait_s = 3600;
    rq->max_starvation_s = 86400;
}

void gp_sim_report_destroy (struct gp_sim_report *r)
{
    if (!r)
        return;
    if (r->own) {
        gp_sim_destroy (r->own->sim);
        gp_jobset_destroy (r->own->jobs);
        free (r->own);
    }
    free (r->undeclared);
    free (r->points);
    free (r);
}

static int load_jobs (const struct gp_sim_request *rq, struct gp_sim_report *r,
                      gp_error_t *err)
{
    if (rq->jobs) {
        r->jobs = rq->jobs;
        return 0;
    }
    if (rq->synth.n_jobs > 0)
        r->own->jobs = gp_trace_synth (&rq->synth, err);
    else if (rq->trace_path)
        r->own->jobs = gp_trace_read (rq->trace_path, &rq->trace_opts, err);
    else
        return gp_errprintf (err, GP_EINVAL,
                             "simulate: no jobs (a trace, a synthetic "
                             "trace or a job set is needed)");
    r->jobs = r->own->jobs;
    return r->jobs ? 0 : (err && err->code ? err->code : GP_EINVAL);
}

/* Teams of the trace that the spec's 'teams:' list does not declare: they
 * have no quota and may use every pool (docs/formats/cluster.md).  A spec
 * without 'teams:' declares no quotas at all, so only strict mode looks
 * at it.
 */
static int check_teams (const struct gp_sim_request *rq,
                        struct gp_sim_report *r, gp_error_t *err)
{
    const struct gp_jobset *js = r->jobs;
    const struct gp_cluster *cl = rq->cluster;
    size_t nt = js->n_teams ? js->n_teams : 1;
    size_t *cnt = calloc (nt, sizeof *cnt);
    r->undeclared = calloc (nt, sizeof *r->undeclared);
    if (!cnt || !r->undeclared) {
        free (cnt);
        return gp_errprintf (err, GP_ENOMEM, "simulate: out of memory");
    }
    for (size_t i = 0; i < js->n_jobs; i++)
        if (js->jobs[i].team >= 0 && (size_t)js->jobs[i].team < js->n_teams)
            cnt[js->jobs[i].team]++;
    char *list = r->undeclared_list;
    size_t cap = sizeof r->undeclared_list, len = 0, n_und = 0;
    for (size_t t = 0; t < js->n_teams; t++) {
        if (cnt[t] == 0 || gp_cluster_team (cl, js->teams[t]) >= 0)
            continue;
        r->undeclared[n_und].name = js->teams[t];
        r->undeclared[n_und].n_jobs = cnt[t];
        if (len < cap - 1) {
            int w = snprintf (list + len, cap - len, "%s%s (%zu job%s)",
                              n_und ? ", " : "", js->teams[t], cnt[t],
                              cnt[t] == 1 ? "" : "s");
            len += w > 0 ? (size_t)w : 0;
            if (len >= cap - 1)
                snprintf (list + cap - 5, 5, "...");
        }
        n_und++;
    }
    free (cnt);
    const char *src = rq->cluster_source ? rq->cluster_source : cl->name;
    if (n_und && (rq->flags & GP_SIMRQ_STRICT_TEAMS))
        return gp_errprintf (err, GP_EINVAL,
                             "simulate: --strict-teams: %zu trace team%s "
                             "not declared in %s 'teams:': %s",
                             n_und, n_und == 1 ? "" : "s", src, list);
    r->n_undeclared = cl->n_teams ? n_und : 0;
    if (r->n_undeclared && rq->warn) {
        char msg[GP_ERROR_TEXT_MAX + 512];
        snprintf (msg, sizeof msg,
                  "%zu trace team%s not declared in %s 'teams:' (no quota, "
                  "may use every pool): %s",
                  n_und, n_und == 1 ? "" : "s", src, list);
        rq->warn (msg, rq->warn_arg);
    }
    return 0;
}

static void warn_skipped (const struct gp_sim_request *rq,
                          const struct gp_jobset *js)
{
    if (!js->n_skipped || !rq->warn)
        return;
    char msg[GP_ERROR_TEXT_MAX + 64];
    snprintf (msg, sizeof msg, "%zu bad rows skipped; first: %s",
              js->n_skipped, js->first_skip);
    rq->warn (msg, rq->warn_arg);
}

/* Jobs larger than any pool they may use: the largest such request and
 * the largest pool, for the warning.
 */
static void note_unfit (const struct gp_cluster *cl, struct gp_sim_report *r)
{
    for (size_t i = 0; i < r->n_results && i < r->jobs->n_jobs; i++)
        if (r->results[i].state == GP_JOB_UNFIT
            && r->jobs->jobs[i].n_gpus > r->unfit_max_gpus)
            r->unfit_max_gpus = r->jobs->jobs[i].n_gpus;
    for (size_t p = 0; p < cl->n_pools; p++) {
        long long g = (long long)cl->pools[p].nodes
                      * cl->pools[p].gpus_per_node;
        if (g > r->largest_pool_gpus) {
            r->largest_pool_gpus = g;
            snprintf (r->largest_pool, sizeof r->largest_pool, "%s",
                      cl->pools[p].name);
        }
    }
}

static int run_once (const struct gp_sim_config *cfg, struct gp_sim_report *r,
                     gp_error_t *err)
{
    r->own->sim = gp_sim_create (cfg, r->jobs, err);
    if (!r->own->sim)
        return err ? err->code : GP_EINVAL;
    int rc = gp_sim_run (r->own->sim, err);
    if (rc)
        return rc;
    r->metrics = gp_sim_get_metrics (r->own->sim);
    r->results = gp_sim_get_results (r->own->sim, &r->n_results);
    r->series = gp_sim_get_series (r->own->sim, &r->n_series);
    r->series_interval_s = gp_sim_series_interval (r->own->sim);
    note_unfit (cfg->cluster, r);
    return 0;
}

/* One run of a sweep: 0 = within limits, 1 = not, <0 = error. */
static int sweep_eval (const struct gp_sim_config *cfg,
                       const struct gp_jobset *js, const struct gp_sim_report *r,
                       struct gp_sim_sweep_point *pt, gp_error_t *err)
{
    struct gp_sim *sim = gp_sim_create (cfg, js, err);
    if (!sim || gp_sim_run (sim, err)) {
        gp_sim_destroy (sim);
        return -1;
    }
    const struct gp_sim_metrics *m = gp_sim_get_metrics (sim);
    pt->wait_p95_s = m->wait.p95_s;
    pt->starvation_s = m->starve_large_max_wait_s > m->starve_long_max_wait_s
                           ? m->starve_large_max_wait_s
                           : m->starve_long_max_wait_s;
    pt->n_unfit = m->n_unfit;
    gp_sim_destroy (sim);
    pt->ok = pt->n_unfit == 0 && pt->wait_p95_s <= r->max_p95_wait_s
             && pt->starvation_s <= r->max_starvation_s;
    return pt->ok ? 0 : 1;
}

/* Set the swept variable to 'x' on the private copies. */
static void sweep_set (int load, double x, const struct gp_jobset *orig,
                       struct gp_jobset *js, struct gp_cluster *cl)
{
    if (load)
        for (size_t i = 0; i < js->n_jobs; i++)
            js->jobs[i].submit_s = orig->jobs[i].submit_s / x;
    else
        cl->pools[0].nodes = (int)x;
}

/* Binary search of the smallest node count of pool 0 (nodes) or of the
 * largest load factor (load: submit times divided by the factor) that
 * meets the limits.  Assumes monotony (more nodes or less load never
 * makes waits longer), which holds for the averages but not strictly for
 * every trace; every evaluated point is kept.  Runs on shallow copies of
 * the cluster and job set with their own pool and job arrays.
 */
static int run_sweep (const struct gp_sim_request *rq,
                      const struct gp_sim_config *base,
                      struct gp_sim_report *r, gp_error_t *err)
{
    const struct gp_cluster *cl0 = rq->cluster;
    int load = rq->sweep == GP_SIM_SWEEP_LOAD;
    if (cl0->n_pools == 0)
        return gp_errprintf (err, GP_EINVAL, "simulate: sweep: no pool");
    struct gp_cluster cl = *cl0;
    struct gp_jobset js = *r->jobs;
    cl.pools = malloc (cl0->n_pools * sizeof *cl.pools);
    js.jobs = malloc ((js.n_jobs ? js.n_jobs : 1) * sizeof *js.jobs);
    r->points = malloc (41 * sizeof *r->points);
    if (!cl.pools || !js.jobs || !r->points) {
        free (cl.pools);
        free (js.jobs);
        return gp_errprintf (err, GP_ENOMEM, "simulate: out of memory");
    }
    memcpy (cl.pools, cl0->pools, cl0->n_pools * sizeof *cl.pools);
    if (js.n_jobs)
        memcpy (js.jobs, r->jobs->jobs, js.n_jobs * sizeof *js.jobs);
    struct gp_sim_config cfg = *base;
    cfg.cluster = &cl;
    cfg.progress = NULL;
    snprintf (r->sweep_pool, sizeof r->sweep_pool, "%s", cl0->pools[0].name);
    r->sweep_gpus_per_node = cl0->pools[0].gpus_per_node;
    double lo = load ? 0.01 : 1, hi = load ? 100 : cl0->pools[0].nodes * 8.0;
    double best = -1;
    int rc = 0, iter = 0;
    while (iter++ < 40) {
        double x = load ? sqrt (lo * hi) : floor ((lo + hi) / 2);
        sweep_set (load, x, r->jobs, &js, &cl);
        struct gp_sim_sweep_point *pt = &r->points[r->n_points];
        pt->x = x;
        int ev = sweep_eval (&cfg, &js, r, pt, err);
        if (ev < 0) {
            rc = err ? err->code : GP_EINTERNAL;
            break;
        }
        r->n_points++;
        if (load) {
            if (ev == 0)
                best = lo = x;
            else
                hi = x;
            if (hi / lo < 1.01)
                break;
            continue;
        }
        if (ev == 0)
            best = hi = x;
        else
            lo = x + 1;
        if (lo >= hi) {
            /* the limit itself, unless already evaluated as the answer;
             * not a listed point
             */
            if (best != hi) {
                struct gp_sim_sweep_point extra;
                sweep_set (0, hi, r->jobs, &js, &cl);
                if (sweep_eval (&cfg, &js, r, &extra, err) == 0)
                    best = hi;
            }
            break;
        }
    }
    free (cl.pools);
    free (js.jobs);
    r->answer = best;
    return rc;
}

int gp_sim_run_request (const struct gp_sim_request *rq,
                        struct gp_sim_report **out, gp_error_t *err)
{
    *out = NULL;
    if (!rq || !rq->cluster)
        return gp_errprintf (err, GP_EINVAL, "simulate: no cluster");
    if (rq->sweep != GP_SIM_SWEEP_NONE && !gp_sim_sweep_str (rq->sweep))
        return gp_errprintf (err, GP_EINVAL,
                             "simulate: --sweep must be nodes or load");
    struct gp_sim_report *r = calloc (1, sizeof *r);
    if (r)
        r->own = calloc (1, sizeof *r->own);
    if (!r || !r->own) {
        gp_sim_report_destroy (r);
        return gp_errprintf (err, GP_ENOMEM, "simulate: out of memory");
    }
    struct gp_sim_config cfg = rq->cfg;
    cfg.cluster = rq->cluster;
    if (!cfg.policy)
        cfg.policy = &gp_policy_fifo;
    if ((rq->flags & GP_SIMRQ_SERIES) && cfg.sample_interval_s == 0)
        cfg.sample_interval_s = 3600;
    snprintf (r->cluster, sizeof r->cluster, "%s", rq->cluster->name);
    r->policy = cfg.policy->name;
    r->placement = cfg.placement;
    r->seed = cfg.seed;
    r->list_jobs = (rq->flags & GP_SIMRQ_SCHEDULE) != 0;
    r->sweep = rq->sweep;
    r->max_p95_wait_s = rq->max_p95_wait_s;
    r->max_starvation_s = rq->max_starvation_s;
    r->answer = -1;
    int rc = load_jobs (rq, r, err);
    if (!rc)
        warn_skipped (rq, r->jobs);
    if (!rc)
        rc = check_teams (rq, r, err);
    if (!rc)
        rc = rq->sweep ? run_sweep (rq, &cfg, r, err) : run_once (&cfg, r, err);
    if (!rc && rq->warn && r->series_interval_s > cfg.sample_interval_s) {
        char msg[256];
        snprintf (msg, sizeof msg,
                  "time-series interval %.6g s would give more than %u "
                  "points; coarsened to %.6g s",
                  cfg.sample_interval_s, GP_SIM_SERIES_MAX,
                  r->series_interval_s);
        rq->warn (msg, rq->warn_arg);
    }
    if (rc) {
        gp_sim_report_destroy (r);
        return rc;
    }
    *out = r;
    return 0;
}

int gp_sim_report_status (const struct gp_sim_report *r, gp_error_t *err)
{
    if (r->sweep != GP_SIM_SWEEP_NONE)
        return r->answer < 0
                   ? gp_errprintf (err, GP_EINFEASIBLE,
                                   "no %s within the searched range meets "
                                   "the limits",
                                   r->sweep == GP_SIM_SWEEP_LOAD
                                       ? "load factor"
                                       : "node count")
                   : 0;
    const struct gp_sim_metrics *m = r->metrics;
    if (m && m->n_unfit > 0 && m->n_unfit == m->n_jobs)
        return gp_errprintf (err, GP_EINFEASIBLE,
                             "no job of the trace fits the cluster "
                             "(infeasible)");
    return 0;
}
