/* bench_sim.c - speed of the cluster simulator, on one core.
 *
 *   bench_sim [PHILLY.csv|- [N_JOBS [NODES]]]
 *
 * 1. Replay of the Philly-derived job list (82,247 jobs) on 2,000 GPUs
 *    (250 nodes x 8) with FIFO + EASY backfill.  The list is read from the
 *    path given (e.g. the Pollux/Sia philly.csv); without one, the
 *    2,000-job slice in traces/philly/ is replayed 41 times back to back
 *    (82,000 jobs) so that the figure stays comparable.
 * 2. A synthetic trace of 1,000,000 jobs (Philly GPU mix, log-normal run
 *    times with a 1 h median, Poisson arrivals scaled to 97 % offered
 *    load) on 10,000 GPUs (1,250 x 8), for every policy: time, memory,
 *    utilization, mean JCT, mean and p95 wait.
 *    The same list on 256 GPUs (32 x 8), where thousands of jobs queue:
 *    every policy with the plain scans and with the pending-set indexes
 *    (time, speedup, same schedule), and fifo-backfill at scan depths
 *    16 / 256 / 4096 / unlimited (mean and p95 wait, mean JCT).
 * 3. Growth of time with trace size: 125k, 250k, 500k, 1M jobs at the same
 *    load, FIFO + backfill (should be near-linear).
 * Prints "name: value unit" lines (bench/run.sh); trace reading is timed
 * separately from simulation.  Peak memory is the process maximum RSS.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "gpuplan/policy.h"
#include "gpuplan/sim.h"
#include "gpuplan/trace.h"

#define LOAD 0.97 /* offered load: GPU-s asked / (GPUs x submit span) */

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

/* Run and report; returns wall seconds of the simulation.  'plain' runs
 * the plain scans (cfg.plain_scan: the schedule without the pending-set
 * indexes), 'depth' sets the backfill scan depth (0 = default 256); the
 * run is kept in *keep when 'keep' is not NULL.
 */
static double sim_run (const char *label, const struct gp_jobset *js,
                       const struct gp_policy_ops *pol, int quiet, int plain,
                       int depth, struct gp_sim **keep)
{
    gp_error_t err = {0};
    struct gp_sim_config cfg;
    gp_sim_config_init (&cfg);
    cfg.cluster = &cl;
    cfg.policy = pol;
    cfg.plain_scan = plain;
    cfg.backfill_depth = depth;
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
        printf ("%s.%s.jct_mean: %.0f s\n", label, pol->name, m->jct_mean_s);
        printf ("%s.%s.wait_p95: %.0f s\n", label, pol->name, m->wait.p95_s);
        printf ("%s.%s.wait_mean: %.0f s\n", label, pol->name,
                m->wait.mean_s);
        printf ("%s.%s.conservation_ok: %d\n", label, pol->name,
                m->conservation_ok);
        printf ("%s.%s.peak_rss: %ld MB\n", label, pol->name, peak_rss_mb ());
    }
    if (keep)
        *keep = s;
    else
        gp_sim_destroy (s);
    return dt;
}

static double sim (const char *label, const struct gp_jobset *js,
                   const struct gp_policy_ops *pol, int quiet)
{
    return sim_run (label, js, pol, quiet, 0, 0, NULL);
}

/* Whether two runs gave every job the same start, end and preemptions. */
static int same (const struct gp_sim *a, const struct gp_sim *b)
{
    size_t n = 0;
    const struct gp_job_result *x = gp_sim_get_results (a, &n);
    const struct gp_job_result *y = gp_sim_get_results (b, NULL);
    for (size_t i = 0; i < n; i++)
        if (x[i].first_start_s != y[i].first_start_s
            || x[i].end_s != y[i].end_s || x[i].n_preempt != y[i].n_preempt)
            return 0;
    return 1;
}

/* Philly on 32 x 8 GPUs (thousands queue): each policy with the plain
 * scans (the algorithm before the indexes) and with the indexes, and the
 * effect of the backfill scan depth on fifo-backfill.
 */
static void deep_queues (const struct gp_jobset *ph)
{
    cluster (32);
    for (size_t k = 0; gp_policies[k]; k++) {
        const struct gp_policy_ops *pol = gp_policies[k];
        struct gp_sim *a, *b;
        double tp = sim_run ("philly_256gpu_plain", ph, pol, 1, 1, 0, &a);
        double ti = sim_run ("philly_256gpu", ph, pol, 1, 0, 0, &b);
        printf ("philly_256gpu.%s.plain_scan_time: %.3f s\n", pol->name, tp);
        printf ("philly_256gpu.%s.indexed_time: %.3f s\n", pol->name, ti);
        printf ("philly_256gpu.%s.speedup: %.1f x\n", pol->name, tp / ti);
        printf ("philly_256gpu.%s.same_schedule: %d\n", pol->name,
                same (a, b));
        printf ("philly_256gpu.%s.mean_queue: %.0f jobs\n", pol->name,
                gp_sim_get_metrics (b)->mean_queue_len);
        gp_sim_destroy (a);
        gp_sim_destroy (b);
    }
    static const int depths[] = {16, 256, 4096, 1 << 30};
    for (size_t i = 0; i < sizeof depths / sizeof *depths; i++) {
        struct gp_sim *s;
        double t = sim_run ("depth", ph, &gp_policy_fifo_backfill, 1, 0,
                            depths[i], &s);
        const struct gp_sim_metrics *m = gp_sim_get_metrics (s);
        printf ("backfill_depth.%d.time: %.3f s\n", depths[i], t);
        printf ("backfill_depth.%d.wait_mean: %.0f s\n", depths[i],
                m->wait.mean_s);
        printf ("backfill_depth.%d.wait_p95: %.0f s\n", depths[i],
                m->wait.p95_s);
        printf ("backfill_depth.%d.jct_mean: %.0f s\n", depths[i],
                m->jct_mean_s);
        gp_sim_destroy (s);
    }
}

/* A synthetic trace of 'n' jobs (Philly GPU mix, log-normal run times
 * with a 1 h median and sigma 1.5, clamped at 7 days, 8 teams) whose
 * submit times are scaled so that the offered load on 'gpus_total' GPUs
 * -- GPU-seconds asked over GPUs x the submit span -- is exactly LOAD.
 */
static struct gp_jobset *synth (size_t n, double gpus_total)
{
    struct gp_synth_params p = {0};
    p.n_jobs = n;
    p.seed = 42;
    p.duration_median_s = 3600;
    p.duration_sigma = 1.5;
    p.duration_max_s = 7 * 86400;
    p.arrival_rate_per_s = 1;
    p.n_teams = 8;
    gp_error_t err = {0};
    struct gp_jobset *js = gp_trace_synth (&p, &err);
    if (!js) {
        fprintf (stderr, "bench_sim: %s\n", err.text);
        exit (3);
    }
    double asked = 0, t0 = INFINITY, t1 = -INFINITY;
    for (size_t i = 0; i < js->n_jobs; i++) {
        const struct gp_job *j = &js->jobs[i];
        asked += j->duration_s * (j->n_gpus > 0 ? j->n_gpus : 1);
        t0 = j->submit_s < t0 ? j->submit_s : t0;
        t1 = j->submit_s > t1 ? j->submit_s : t1;
    }
    double f = asked / ((t1 - t0) * gpus_total) / LOAD;
    for (size_t i = 0; i < js->n_jobs; i++)
        js->jobs[i].submit_s = (js->jobs[i].submit_s - t0) * f;
    return js;
}

int main (int argc, char **argv)
{
    setvbuf (stdout, NULL, _IOLBF, 0);
    gp_error_t err = {0};
    struct gp_jobset *ph = NULL;
    double t0 = now ();
    int skip = argc > 1 && strcmp (argv[1], "-") == 0; /* synthetic only */
    if (skip)
        ;
    else if (argc > 1)
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
    if (!ph && !skip) {
        fprintf (stderr, "bench_sim: %s (run from the repository root or "
                         "give the path of philly.csv)\n",
                 err.text);
        return 3;
    }
    if (!skip) {
        printf ("philly.read_time: %.3f s\n", now () - t0);
        cluster (250);
        sim ("philly_2000gpu", ph, &gp_policy_fifo_backfill, 0);
        deep_queues (ph);
        gp_jobset_destroy (ph);
    }

    /* the loaded replay: N jobs (default 1M) on NODES x 8 GPUs (default
     * 125 nodes, 1,000 GPUs: a 170-day submit span, so that the drain
     * after the last arrival -- up to the 7-day longest job -- leaves
     * utilization above 90 %)
     */
    size_t nbig = argc > 2 ? strtoul (argv[2], NULL, 10) : 1000000;
    int nodes = argc > 3 ? atoi (argv[3]) : 125;
    cluster (nodes);
    t0 = now ();
    struct gp_jobset *big = synth (nbig, nodes * 8.0);
    printf ("synthetic.generate_time: %.3f s\n", now () - t0);
    char label[64];
    snprintf (label, sizeof label, "synthetic_%zuk_%dgpu", nbig / 1000,
              nodes * 8);
    for (size_t k = 0; gp_policies[k]; k++)
        sim (label, big, gp_policies[k], 0);
    gp_jobset_destroy (big);

    for (size_t n = nbig / 8; n <= nbig && n > 0; n *= 2) {
        struct gp_jobset *js = synth (n, nodes * 8.0);
        double dt = sim ("growth", js, &gp_policy_fifo_backfill, 1);
        printf ("growth.%zu_jobs.time: %.3f s\n", n, dt);
        printf ("growth.%zu_jobs.us_per_job: %.3f us\n", n, dt / n * 1e6);
        gp_jobset_destroy (js);
    }
    printf ("peak_rss: %ld MB\n", peak_rss_mb ());
    return 0;
}
