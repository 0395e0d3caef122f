/* bench_sim.c - speed of the cluster simulator, on one core.
 *
 *   bench_sim [PHILLY.csv]
 *
 * 1. Replay of the Philly-derived job list (82,247 jobs) on 2,000 GPUs
 *    (250 nodes x 8) with FIFO + EASY backfill.  The list is read from the
 *    path given (e.g. the Pollux/Sia philly.csv); without one, the
 *    2,000-job slice in traces/philly/ is replayed 41 times back to back
 *    (82,000 jobs) so that the figure stays comparable.
 * 2. A synthetic trace of 1,000,000 jobs (Philly GPU mix, log-normal run
 *    times with a 1 h median, Poisson arrivals at ~95 % offered load) on
 *    10,000 GPUs (1,250 x 8), for every policy.
 * 3. Growth of time with trace size: 125k, 250k, 500k, 1M jobs at the same
 *    load, FIFO + backfill (should be near-linear).
 * Prints "name: value unit" lines (bench/run.sh); trace reading is timed
 * separately from simulation.  Peak memory is the process maximum RSS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "gpuplan/policy.h"
#include "gpuplan/sim.h"
#include "gpuplan/trace.h"

#define LOAD 0.95 /* offered load: mean busy GPUs / GPUs */

static double now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long peak_rss_mb (void)
{
    struct rusage ru;
    getrusage (RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024;
}

static struct gp_pool pool;
static struct gp_cluster cl;

static void cluster (int nodes)
{
    memset (&pool, 0, sizeof pool);
    memset (&cl, 0, sizeof cl);
    snprintf (pool.name, sizeof pool.name, "gpu");
    pool.gpus_per_node = 8;
    pool.nodes = nodes;
    pool.scale_up_domain = 8;
    pool.nodes_per_rack = 32;
    snprintf (cl.name, sizeof cl.name, "bench");
    cl.pools = &pool;
    cl.n_pools = 1;
    cl.spine_oversub = 1;
}

/* Run and report; returns wall seconds of the simulation. */
static double sim (const char *label, const struct gp_jobset *js,
                   const struct gp_policy_ops *pol, int quiet)
{
    gp_error_t err = {0};
    struct gp_sim_config cfg;
    gp_sim_config_init (&cfg);
    cfg.cluster = &cl;
    cfg.policy = pol;
    double t0 = now ();
    struct gp_sim *s = gp_sim_create (&cfg, js, &err);
    if (!s || gp_sim_run (s, &err)) {
        fprintf (stderr, "bench_sim: %s: %s\n", label, err.text);
        exit (3);
    }
    double dt = now () - t0;
    const struct gp_sim_metrics *m = gp_sim_get_metrics (s);
    if (!quiet) {
        printf ("%s.%s.jobs: %zu jobs\n", label, pol->name, m->n_jobs);
        printf ("%s.%s.time: %.3f s\n", label, pol->name, dt);
        printf ("%s.%s.events_per_s: %.3g events/s\n", label, pol->name,
                (double)m->n_events / dt);
        printf ("%s.%s.utilization: %.3f\n", label, pol->name,
                m->utilization);
        printf ("%s.%s.wait_p95: %.0f s\n", label, pol->name, m->wait.p95_s);
        printf ("%s.%s.conservation_ok: %d\n", label, pol->name,
                m->conservation_ok);
    }
    gp_sim_destroy (s);
    return dt;
}

static struct gp_jobset *synth (size_t n, double gpus_total)
{
    /* Philly mix: mean 1.304 GPUs per job; log-normal(ln 3600, 1.5) has
     * mean 3600 e^{1.125} = 11,090 s (clamped at 7 days, which trims it by a few %); rate for LOAD
     * of 'gpus_total' busy.
     */
    struct gp_synth_params p = {0};
    p.n_jobs = n;
    p.seed = 42;
    p.duration_median_s = 3600;
    p.duration_sigma = 1.5;
    p.duration_max_s = 7 * 86400;
    p.arrival_rate_per_s = LOAD * gpus_total / (1.304 * 11090.0);
    p.n_teams = 8;
    gp_error_t err = {0};
    struct gp_jobset *js = gp_trace_synth (&p, &err);
    if (!js) {
        fprintf (stderr, "bench_sim: %s\n", err.text);
        exit (3);
    }
    return js;
}

int main (int argc, char **argv)
{
    gp_error_t err = {0};
    struct gp_jobset *ph = NULL;
    double t0 = now ();
    if (argc > 1)
        ph = gp_trace_read (argv[1], NULL, &err);
    else {
        struct gp_jobset *slice =
            gp_trace_read ("traces/philly/philly-2000.csv", NULL, &err);
        if (slice) {
            double span = 0;
            for (size_t i = 0; i < slice->n_jobs; i++)
                if (slice->jobs[i].submit_s > span)
                    span = slice->jobs[i].submit_s;
            ph = gp_jobset_create ();
            for (int k = 0; ph && k < 41; k++)
                for (size_t i = 0; i < slice->n_jobs; i++) {
                    struct gp_job j = slice->jobs[i];
                    j.submit_s += k * (span + 1);
                    gp_jobset_add (ph, &j);
                }
            for (size_t i = 0; ph && i < slice->n_teams; i++)
                gp_jobset_team (ph, slice->teams[i]);
            gp_jobset_destroy (slice);
        }
    }
    if (!ph) {
        fprintf (stderr, "bench_sim: %s (run from the repository root or "
                         "give the path of philly.csv)\n",
                 err.text);
        return 3;
    }
    printf ("philly.read_time: %.3f s\n", now () - t0);
    cluster (250);
    sim ("philly_2000gpu", ph, &gp_policy_fifo_backfill, 0);
    gp_jobset_destroy (ph);

    cluster (1250);
    t0 = now ();
    struct gp_jobset *big = synth (1000000, 10000);
    printf ("synthetic.generate_time: %.3f s\n", now () - t0);
    for (size_t k = 0; gp_policies[k]; k++)
        sim ("synthetic_1m_10kgpu", big, gp_policies[k], 0);
    gp_jobset_destroy (big);

    for (size_t n = 125000; n <= 1000000; n *= 2) {
        struct gp_jobset *js = synth (n, 10000);
        double dt = sim ("growth", js, &gp_policy_fifo_backfill, 1);
        printf ("growth.%zu_jobs.time: %.3f s\n", n, dt);
        printf ("growth.%zu_jobs.us_per_job: %.3f us\n", n, dt / n * 1e6);
        gp_jobset_destroy (js);
    }
    printf ("peak_rss: %ld MB\n", peak_rss_mb ());
    return 0;
}
