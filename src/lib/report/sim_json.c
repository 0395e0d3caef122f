/* sim_json.c - the JSON documents of 'simulate': one run, a sweep, and a
 * fill run.  Field names and order are the documented schema
 * (docs/model/simulator.md); renderers never compute.
 */
#include <jansson.h>

#include "gpuplan/sim.h"

static void set (json_t *o, const char *k, json_t *v)
{
    json_object_set_new (o, k, v);
}

static json_t *jsize (size_t n)
{
    return json_integer ((json_int_t)n);
}

static json_t *wait_json (const struct gp_wait_stats *w)
{
    json_t *o = json_object ();
    set (o, "n", jsize (w->n));
    set (o, "mean_s", json_real (w->mean_s));
    set (o, "p50_s", json_real (w->p50_s));
    set (o, "p95_s", json_real (w->p95_s));
    set (o, "p99_s", json_real (w->p99_s));
    set (o, "max_s", json_real (w->max_s));
    return o;
}

static json_t *dist_json (const struct gp_sim_metrics *m, int jct)
{
    json_t *o = json_object ();
    if (jct) {
        set (o, "mean_s", json_real (m->jct_mean_s));
        set (o, "p50_s", json_real (m->jct_p50_s));
        set (o, "p95_s", json_real (m->jct_p95_s));
        set (o, "p99_s", json_real (m->jct_p99_s));
    } else {
        set (o, "mean", json_real (m->slowdown_mean));
        set (o, "p50", json_real (m->slowdown_p50));
        set (o, "p95", json_real (m->slowdown_p95));
    }
    return o;
}

static json_t *undeclared_json (const struct gp_sim_report *r)
{
    json_t *a = json_array ();
    for (size_t i = 0; i < r->n_undeclared; i++) {
        json_t *u = json_object ();
        set (u, "name", json_string (r->undeclared[i].name));
        set (u, "jobs", jsize (r->undeclared[i].n_jobs));
        json_array_append_new (a, u);
    }
    return a;
}

static json_t *starvation_json (const struct gp_sim_metrics *m)
{
    json_t *st = json_object ();
    set (st, "large_job_gpus", json_integer (m->large_job_gpus));
    set (st, "large_max_wait_s", json_real (m->starve_large_max_wait_s));
    set (st, "long_job_s", json_real (m->long_job_s));
    set (st, "long_max_wait_s", json_real (m->starve_long_max_wait_s));
    return st;
}

static json_t *gpu_seconds_json (const struct gp_sim_metrics *m)
{
    json_t *g = json_object ();
    set (g, "allocated", json_real (m->alloc_gpu_s));
    set (g, "useful", json_real (m->useful_gpu_s));
    set (g, "lost", json_real (m->lost_gpu_s));
    set (g, "restart", json_real (m->restart_gpu_s));
    set (g, "slowdown", json_real (m->slow_gpu_s));
    set (g, "fragmented", json_real (m->frag_gpu_s));
    return g;
}

static json_t *teams_json (const struct gp_sim_metrics *m)
{
    json_t *ta = json_array ();
    for (size_t t = 0; t < m->n_teams; t++) {
        const struct gp_sim_team *tm = &m->teams[t];
        json_t *to = json_object ();
        set (to, "name", json_string (tm->name));
        set (to, "jobs", jsize (tm->n_jobs));
        set (to, "gpu_s", json_real (tm->gpu_s));
        set (to, "share", json_real (tm->share));
        set (to, "entitlement", json_real (tm->entitlement));
        set (to, "max_dominant_share", json_real (tm->max_dominant_share));
        set (to, "preempted", jsize (tm->n_preempted));
        set (to, "wait", wait_json (&tm->wait));
        json_array_append_new (ta, to);
    }
    return ta;
}

static const char *state_str (enum gp_job_state s)
{
    return s == GP_JOB_DONE ? "done" : s == GP_JOB_UNFIT ? "unfit"
                                                         : "unfinished";
}

static json_t *schedule_json (const struct gp_sim_report *r)
{
    json_t *ja = json_array ();
    for (size_t i = 0; i < r->n_results; i++) {
        const struct gp_job_result *x = &r->results[i];
        json_t *jo = json_object ();
        set (jo, "id", json_integer (r->jobs->jobs[i].id));
        set (jo, "start", x->first_start_s >= 0 ? json_real (x->first_start_s)
                                                : json_null ());
        set (jo, "end", x->end_s >= 0 ? json_real (x->end_s) : json_null ());
        set (jo, "preempted", json_integer (x->n_preempt));
        set (jo, "state", json_string (state_str (x->state)));
        if (x->state == GP_JOB_UNFIT)
            set (jo, "reason",
                 json_string ("larger than any pool it may use"));
        json_array_append_new (ja, jo);
    }
    return ja;
}

static json_t *run_json (const struct gp_sim_report *r)
{
    const struct gp_sim_metrics *m = r->metrics;
    json_t *o = json_object ();
    set (o, "cluster", json_string (r->cluster));
    set (o, "trace_format", json_string (r->jobs->format));
    set (o, "policy", json_string (r->policy));
    set (o, "placement", json_string (gp_placement_str (r->placement)));
    set (o, "total_gpus", json_integer (m->total_gpus));
    set (o, "jobs", jsize (m->n_jobs));
    set (o, "done", jsize (m->n_done));
    set (o, "unfit", jsize (m->n_unfit));
    set (o, "unfinished", jsize (m->n_unfinished));
    set (o, "skipped_rows", jsize (r->jobs->n_skipped));
    set (o, "ignored_rows", jsize (r->jobs->n_ignored));
    set (o, "makespan_s", json_real (m->makespan_s));
    set (o, "utilization", json_real (m->utilization));
    set (o, "goodput", json_real (m->goodput));
    set (o, "fragmentation_pct", json_real (m->frag_pct));
    set (o, "idle_while_waiting_pct", json_real (m->idle_waiting_pct));
    set (o, "mean_queue_len", json_real (m->mean_queue_len));
    set (o, "wait", wait_json (&m->wait));
    json_t *bs = json_object ();
    for (int c = 0; c < GP_SIM_N_SIZE_CLASSES; c++)
        set (bs, gp_sim_size_class_str (c), wait_json (&m->wait_by_size[c]));
    set (o, "wait_by_size", bs);
    set (o, "jct", dist_json (m, 1));
    set (o, "slowdown", dist_json (m, 0));
    set (o, "jain_index", m->jain_teams ? json_real (m->jain_index)
                                        : json_null ());
    set (o, "undeclared_teams", undeclared_json (r));
    set (o, "starvation", starvation_json (m));
    set (o, "preemptions", jsize (m->n_preemptions));
    set (o, "node_failures", jsize (m->n_failures));
    set (o, "gpu_seconds", gpu_seconds_json (m));
    set (o, "conservation_ok", json_boolean (m->conservation_ok));
    set (o, "events", jsize (m->n_events));
    set (o, "teams", teams_json (m));
    if (r->list_jobs)
        set (o, "schedule", schedule_json (r));
    return o;
}

static json_t *sweep_json (const struct gp_sim_report *r)
{
    int load = r->sweep == GP_SIM_SWEEP_LOAD;
    json_t *pts = json_array ();
    for (size_t i = 0; i < r->n_points; i++) {
        const struct gp_sim_sweep_point *p = &r->points[i];
        json_t *pt = json_object ();
        set (pt, load ? "load_factor" : "nodes", json_real (p->x));
        set (pt, "wait_p95_s", json_real (p->wait_p95_s));
        set (pt, "starvation_s", json_real (p->starvation_s));
        set (pt, "unfit", jsize (p->n_unfit));
        set (pt, "ok", json_boolean (p->ok));
        json_array_append_new (pts, pt);
    }
    json_t *o = json_object ();
    set (o, "sweep", json_string (gp_sim_sweep_str (r->sweep)));
    set (o, "pool", json_string (r->sweep_pool));
    set (o, "max_p95_wait_s", json_real (r->max_p95_wait_s));
    set (o, "max_starvation_s", json_real (r->max_starvation_s));
    set (o, "answer", r->answer >= 0 ? json_real (r->answer) : json_null ());
    set (o, "points", pts);
    return o;
}

json_t *gp_report_sim_json (const struct gp_sim_report *r)
{
    if (!r)
        return NULL;
    return r->sweep != GP_SIM_SWEEP_NONE ? sweep_json (r) : run_json (r);
}

json_t *gp_report_fill_json (const struct gp_fill_result *r,
                             enum gp_fill_policy policy, uint64_t seed)
{
    json_t *o = json_object ();
    set (o, "policy", json_string (gp_fill_policy_str (policy)));
    set (o, "seed", json_integer ((json_int_t)seed));
    set (o, "total_gpus", json_integer (r->total_gpus));
    set (o, "final_allocation_pct", json_real (r->final_alloc_pct));
    set (o, "pods_arrived", jsize (r->n_arrived));
    set (o, "pods_failed", jsize (r->n_failed));
    json_t *cv = json_array ();
    for (size_t i = 0; i < r->n_curve; i++) {
        json_t *p = json_object ();
        set (p, "demand_pct", json_real (r->curve[i].demand_pct));
        set (p, "allocation_pct", json_real (r->curve[i].alloc_pct));
        set (p, "fragmented_pct", json_real (r->curve[i].frag_pct));
        json_array_append_new (cv, p);
    }
    set (o, "curve", cv);
    return o;
}
