/* cmd_simulate.c - 'gpuplan simulate': replay a job trace on a planned
 * cluster under a scheduling policy, or run a placement-only fill
 * experiment (--mode fill).  Parsing and rendering only; the simulator
 * (sim.h) does the work.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gpuplan/policy.h"
#include "gpuplan/sim.h"
#include "gpuplan/trace.h"

const char cmd_simulate_help[] =
    "NAME\n"
    "    gpuplan simulate - simulate multi-tenant GPU scheduling on a trace\n"
    "\n"
    "SYNOPSIS\n"
    "    gpuplan simulate --cluster SPEC.yaml --trace FILE --policy NAME\n"
    "                     [--placement P] [--json] [options]\n"
    "    gpuplan simulate --mode fill --nodes NODES.csv --trace PODS.csv\n"
    "                     --placement random|best-fit|packing|fgd\n"
    "                     [--seed N] [--until-demand 130%] [--json]\n"
    "\n"
    "DESCRIPTION\n"
    "    Discrete-event simulation of a cluster spec running a trace (format\n"
    "    detected from the header; docs/formats/traces.md).  Jobs are gang-\n"
    "    admitted and placed by the placement strategy; the policy decides\n"
    "    order, backfill and preemption.  Prints waits (p50/p95/p99/max) per\n"
    "    team and job size, JCT, slowdown, utilization, fragmentation,\n"
    "    fairness, starvation, preemptions, goodput (docs/model/simulator.md)\n"
    "\n"
    "    Fill mode (the FGD experiment): sampled pods arrive and never leave\n"
    "    until demand reaches --until-demand of capacity; prints the GPU\n"
    "    allocation and fragmentation at each 1 % of demand.\n"
    "\n"
    "OPTIONS\n"
    "    --cluster SPEC      cluster spec (YAML)\n"
    "    --trace FILE        job trace (or pod list in fill mode)\n"
    "    --trace-format F    auto (default), generic, philly, tiresias,\n"
    "                        gavel, alibaba2023, sacct\n"
    "    --gavel-throughputs FILE  throughput table for Gavel traces\n"
    "                        (traces/gavel/throughputs.csv)\n"
    "    --gavel-gpu TYPE    GPU type of those throughputs (default v100)\n"
    "    --pollux-profiles DIR  application profiles for Pollux/Sia\n"
    "                        workloads (traces/pollux/profiles)\n"
    "    --skip-bad          skip bad trace rows (counted, first reported)\n"
    "                        instead of failing on the first\n"
    "    --strict-teams      undeclared trace teams are an error, not a\n"
    "                        warning\n"
    "    --synthetic N       generate N jobs (Poisson, Philly GPU mix)\n"
    "    --arrival-rate R    synthetic arrivals per hour (default 60)\n"
    "    --duration-median D synthetic median run time (default 1h)\n"
    "    --teams N           synthetic teams (default 4)\n"
    "    --policy NAME       fifo, fifo-backfill, priority, fair-share,\n"
    "                        las, srtf (default fifo-backfill)\n"
    "    --placement P       packing, best-fit (default), spread, topology;\n"
    "                        fill mode: random, best-fit, packing, fgd\n"
    "    --seed N            seed (failures; fill-mode sampling)\n"
    "    --restart-cost D    time lost on every restart (default 600s)\n"
    "    --checkpoint-interval D  default for jobs without one (1h)\n"
    "    --comm-share X      slowdown share when spread (default 0.2)\n"
    "    --mtbf D            mean time between failures of one node\n"
    "                        (default: no failures)\n"
    "    --repair D          time a failed node stays down (default 48h)\n"
    "    --series FILE.csv   write the time series (utilization, queue)\n"
    "    --interval D        time-series bucket (default 1h)\n"
    "    --chart FILE.svg    draw utilization and queue length over time\n"
    "    --jobs              list every job's schedule (text or JSON)\n"
    "    --sweep nodes|load  smallest node count of the first pool (or the\n"
    "                        largest load factor) within the limits:\n"
    "    --max-p95-wait D    p95 queue wait (default 1h)\n"
    "    --max-starvation D  longest wait of large/long jobs (default 24h)\n"
    "    --mode sim|fill     (default sim)\n"
    "    --nodes FILE.csv    fill mode: node list\n"
    "    --until-demand P    fill mode: stop at this demand (default 130%)\n"
    "    --json              print one JSON document\n"
    "    --catalog DIR       merge catalog CSV files found in DIR\n"
    "    -h, --help          show this page\n"
    "\n"
    "EXIT STATUS\n"
    "    0 ok; 1 no job fits the cluster; 2 bad option, spec or trace\n"
    "    (file:line named); 3 internal error (conservation failed).\n"
    "\n"
    "EXAMPLES\n"
    "    gpuplan simulate --cluster examples/cluster.yaml \\\n"
    "        --trace traces/philly/philly-sample.csv --policy fifo-backfill\n"
    "    gpuplan simulate --mode fill --nodes traces/alibaba2023/nodes.csv \\\n"
    "        --trace traces/alibaba2023/pods.csv --placement fgd --seed 1\n";

struct opts {
    const char *cluster, *trace, *format, *policy, *placement, *series;
    const char *catalog, *mode, *nodes, *until;
    int json, skip_bad, jobs, strict_teams;
    json_t *undeclared;         /* [{name, jobs}] of undeclared teams */
    long long synthetic;
    double rate_per_h, median_s, teams;
    const char *sweep, *chart, *gavel_tp, *gavel_gpu, *pollux;
    double max_p95, max_starve;
    struct gp_sim_config cfg;
};

static int dur_opt (const char *name, const char *v, double *out)
{
    gp_error_t e;
    if (gp_parse_quantity (v, GP_Q_DURATION, out, &e) != 0)
        return cli_usage_error ("simulate: --%s: %s", name, e.text);
    return 0;
}

static int num_opt (const char *name, const char *v, double lo, double hi,
                    double *out)
{
    char *end;
    double x = strtod (v, &end);
    if (end == v || *end || !(x >= lo && x <= hi))
        return cli_usage_error ("simulate: --%s: '%s' is not a number in "
                                "[%g, %g]",
                                name, v, lo, hi);
    *out = x;
    return 0;
}

static void progress (double frac, void *arg)
{
    (void)arg;
    int w = 40, k = (int)(frac * w);
    fprintf (stderr, "\r[%.*s%*s] %3.0f%%", k,
             "########################################", w - k, "",
             frac * 100);
    if (frac >= 1)
        fputc ('\n', stderr);
}

static json_t *wait_json (const struct gp_wait_stats *w)
{
    json_t *o = json_object ();
    json_object_set_new (o, "n", json_integer ((json_int_t)w->n));
    json_object_set_new (o, "mean_s", json_real (w->mean_s));
    json_object_set_new (o, "p50_s", json_real (w->p50_s));
    json_object_set_new (o, "p95_s", json_real (w->p95_s));
    json_object_set_new (o, "p99_s", json_real (w->p99_s));
    json_object_set_new (o, "max_s", json_real (w->max_s));
    return o;
}

static void fmt_dur (double s, char *b, size_t n)
{
    if (s <= 0)
        snprintf (b, n, "0");
    else
        gp_format_quantity (s, GP_Q_DURATION, 0, b, n);
}

static int write_series (const char *path, const struct gp_sim *sim)
{
    size_t n;
    const struct gp_sim_sample *x = gp_sim_get_series (sim, &n);
    FILE *f = fopen (path, "w");
    if (!f) {
        gp_error_t e;
        gp_errprintf (&e, GP_EIO, "%s: cannot write", path);
        return cli_fail (&e);
    }
    fprintf (f, "t_s,alloc_gpus,utilization,queue_len,running,frag_gpus\n");
    for (size_t i = 0; i < n; i++)
        fprintf (f, "%.0f,%.3f,%.5f,%.3f,%.3f,%.3f\n", x[i].t_s,
                 x[i].alloc_gpus, x[i].util, x[i].queue_len, x[i].running,
                 x[i].frag_gpus);
    fclose (f);
    return 0;
}


/* A self-contained SVG of two panels over time: GPU utilization (%) and
 * mean queue length, one point per time-series bucket.
 */
static int write_chart (const char *path, const struct gp_sim *sim,
                        const char *title)
{
    size_t n;
    const struct gp_sim_sample *x = gp_sim_get_series (sim, &n);
    FILE *f = fopen (path, "w");
    if (!f) {
        gp_error_t e;
        gp_errprintf (&e, GP_EIO, "%s: cannot write", path);
        return cli_fail (&e);
    }
    const double W = 800, H = 200, L = 60, T = 30, G = 40;
    double qmax = 1, tmax = n ? x[n - 1].t_s : 1;
    for (size_t i = 0; i < n; i++)
        if (x[i].queue_len > qmax)
            qmax = x[i].queue_len;
    if (tmax <= 0)
        tmax = 1;
    fprintf (f,
             "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
             "height=\"%.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
             "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
             "<text x=\"%.0f\" y=\"18\" font-size=\"14\">",
             W + L + 20, 2 * H + T + 2 * G, L);
    for (const char *c = title; *c; c++) {
        if (*c == '<')
            fputs ("&lt;", f);
        else if (*c == '&')
            fputs ("&amp;", f);
        else
            fputc (*c, f);
    }
    fprintf (f, "</text>\n");
    for (int panel = 0; panel < 2; panel++) {
        double y0 = T + panel * (H + G);
        double vmax = panel ? qmax : 100;
        fprintf (f,
                 "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" "
                 "fill=\"none\" stroke=\"#888\"/>\n"
                 "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%.4g</text>\n"
                 "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">0</text>\n"
                 "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n",
                 L, y0, W, H, L - 4, y0 + 10, vmax, L - 4, y0 + H,
                 L + 4, y0 + 14,
                 panel ? "mean queue length (jobs)" : "GPU utilization (%)");
        fprintf (f, "<polyline fill=\"none\" stroke=\"%s\" points=\"",
                 panel ? "#c0392b" : "#2471a3");
        for (size_t i = 0; i < n; i++) {
            double v = panel ? x[i].queue_len : 100 * x[i].util;
            fprintf (f, "%.1f,%.1f ", L + W * x[i].t_s / tmax,
                     y0 + H - H * v / vmax);
        }
        fprintf (f, "\"/>\n");
    }
    fprintf (f,
             "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%.4g days</text>\n"
             "</svg>\n",
             L + W, 2 * H + T + G + 16, tmax / 86400);
    fclose (f);
    return 0;
}

/* Teams of the trace that the spec's 'teams:' list does not declare: they
 * have no quota and may use every pool (docs/formats/cluster.md).  A
 * warning naming them and their job counts, kept for the JSON; with
 * --strict-teams an input error.  A spec without 'teams:' declares no
 * quotas at all, so only --strict-teams looks at it.
 */
static int check_teams (struct opts *o, const struct gp_cluster *cl,
                        const struct gp_jobset *js)
{
    size_t *cnt = calloc (js->n_teams ? js->n_teams : 1, sizeof *cnt);
    if (!cnt)
        return cli_usage_error ("simulate: out of memory");
    for (size_t i = 0; i < js->n_jobs; i++)
        if (js->jobs[i].team >= 0 && (size_t)js->jobs[i].team < js->n_teams)
            cnt[js->jobs[i].team]++;
    o->undeclared = json_array ();
    char list[512] = "";
    size_t len = 0, n_und = 0;
    for (size_t t = 0; t < js->n_teams; t++) {
        if (cnt[t] == 0)
            continue;
        int found = 0;
        for (size_t k = 0; k < cl->n_teams && !found; k++)
            found = strcmp (cl->teams[k].name, js->teams[t]) == 0;
        if (found)
            continue;
        json_t *u = json_object ();
        json_object_set_new (u, "name", json_string (js->teams[t]));
        json_object_set_new (u, "jobs", json_integer ((json_int_t)cnt[t]));
        json_array_append_new (o->undeclared, u);
        if (len < sizeof list - 1) {
            int w = snprintf (list + len, sizeof list - len, "%s%s (%zu job%s)",
                              n_und ? ", " : "", js->teams[t], cnt[t],
                              cnt[t] == 1 ? "" : "s");
            len += w > 0 ? (size_t)w : 0;
            if (len >= sizeof list - 1)
                snprintf (list + sizeof list - 5, 5, "...");
        }
        n_und++;
    }
    free (cnt);
    if (n_und && o->strict_teams)
        return cli_usage_error ("simulate: --strict-teams: %zu trace "
                                "team%s not declared in %s 'teams:': %s",
                                n_und, n_und == 1 ? "" : "s", o->cluster,
                                list);
    if (n_und && cl->n_teams)
        cli_warn ("%zu trace team%s not declared in %s 'teams:' (no quota, "
                  "may use every pool): %s",
                  n_und, n_und == 1 ? "" : "s", o->cluster, list);
    if (!cl->n_teams) {
        json_decref (o->undeclared);
        o->undeclared = json_array ();
    }
    return 0;
}

/* Jobs larger than any pool they may use never run: warn with their count
 * and the largest request against the largest pool; EXIT_INFEASIBLE when
 * no job can run at all.
 */
static int check_fit (const struct gp_cluster *cl, const struct gp_jobset *js,
                      const struct gp_sim *sim)
{
    const struct gp_sim_metrics *m = gp_sim_get_metrics (sim);
    if (m->n_unfit == 0)
        return EXIT_OK;
    size_t nr;
    const struct gp_job_result *res = gp_sim_get_results (sim, &nr);
    int big = 0;
    for (size_t i = 0; i < nr && i < js->n_jobs; i++)
        if (res[i].state == GP_JOB_UNFIT && js->jobs[i].n_gpus > big)
            big = js->jobs[i].n_gpus;
    long long pool = 0;
    const char *pname = "";
    for (size_t p = 0; p < cl->n_pools; p++) {
        long long g = (long long)cl->pools[p].nodes
                      * cl->pools[p].gpus_per_node;
        if (g > pool) {
            pool = g;
            pname = cl->pools[p].name;
        }
    }
    cli_warn ("%zu of %zu jobs can never fit (reported as unfit, not run): "
              "largest request %d GPUs, largest pool %s has %lld GPUs",
              m->n_unfit, m->n_jobs, big, pname, pool);
    return m->n_unfit == m->n_jobs ? EXIT_INFEASIBLE : EXIT_OK;
}

static int render (const struct opts *o, const struct gp_cluster *cl,
                   const struct gp_jobset *js, const struct gp_sim *sim)
{
    const struct gp_sim_metrics *m = gp_sim_get_metrics (sim);
    size_t nr;
    const struct gp_job_result *res = gp_sim_get_results (sim, &nr);
    const char *pol = o->cfg.policy->name;
    const char *plc = gp_placement_str (o->cfg.placement);
    if (o->json) {
        json_t *r = json_object ();
        json_object_set_new (r, "cluster", json_string (cl->name));
        json_object_set_new (r, "trace_format", json_string (js->format));
        json_object_set_new (r, "policy", json_string (pol));
        json_object_set_new (r, "placement", json_string (plc));
        json_object_set_new (r, "total_gpus", json_integer (m->total_gpus));
        json_object_set_new (r, "jobs", json_integer ((json_int_t)m->n_jobs));
        json_object_set_new (r, "done", json_integer ((json_int_t)m->n_done));
        json_object_set_new (r, "unfit", json_integer ((json_int_t)m->n_unfit));
        json_object_set_new (r, "unfinished",
                             json_integer ((json_int_t)m->n_unfinished));
        json_object_set_new (r, "skipped_rows",
                             json_integer ((json_int_t)js->n_skipped));
        json_object_set_new (r, "ignored_rows",
                             json_integer ((json_int_t)js->n_ignored));
        json_object_set_new (r, "makespan_s", json_real (m->makespan_s));
        json_object_set_new (r, "utilization", json_real (m->utilization));
        json_object_set_new (r, "goodput", json_real (m->goodput));
        json_object_set_new (r, "fragmentation_pct", json_real (m->frag_pct));
        json_object_set_new (r, "idle_while_waiting_pct",
                             json_real (m->idle_waiting_pct));
        json_object_set_new (r, "mean_queue_len",
                             json_real (m->mean_queue_len));
        json_object_set_new (r, "wait", wait_json (&m->wait));
        json_t *bs = json_object ();
        for (int c = 0; c < GP_SIM_N_SIZE_CLASSES; c++)
            json_object_set_new (bs, gp_sim_size_class_str (c),
                                 wait_json (&m->wait_by_size[c]));
        json_object_set_new (r, "wait_by_size", bs);
        json_t *jct = json_object ();
        json_object_set_new (jct, "mean_s", json_real (m->jct_mean_s));
        json_object_set_new (jct, "p50_s", json_real (m->jct_p50_s));
        json_object_set_new (jct, "p95_s", json_real (m->jct_p95_s));
        json_object_set_new (jct, "p99_s", json_real (m->jct_p99_s));
        json_object_set_new (r, "jct", jct);
        json_t *sl = json_object ();
        json_object_set_new (sl, "mean", json_real (m->slowdown_mean));
        json_object_set_new (sl, "p50", json_real (m->slowdown_p50));
        json_object_set_new (sl, "p95", json_real (m->slowdown_p95));
        json_object_set_new (r, "slowdown", sl);
        json_object_set_new (r, "jain_index", m->jain_teams
                                                  ? json_real (m->jain_index)
                                                  : json_null ());
        json_object_set_new (r, "undeclared_teams",
                             o->undeclared ? json_incref (o->undeclared)
                                           : json_array ());
        json_t *st = json_object ();
        json_object_set_new (st, "large_job_gpus",
                             json_integer (m->large_job_gpus));
        json_object_set_new (st, "large_max_wait_s",
                             json_real (m->starve_large_max_wait_s));
        json_object_set_new (st, "long_job_s", json_real (m->long_job_s));
        json_object_set_new (st, "long_max_wait_s",
                             json_real (m->starve_long_max_wait_s));
        json_object_set_new (r, "starvation", st);
        json_object_set_new (r, "preemptions",
                             json_integer ((json_int_t)m->n_preemptions));
        json_object_set_new (r, "node_failures",
                             json_integer ((json_int_t)m->n_failures));
        json_t *g = json_object ();
        json_object_set_new (g, "allocated", json_real (m->alloc_gpu_s));
        json_object_set_new (g, "useful", json_real (m->useful_gpu_s));
        json_object_set_new (g, "lost", json_real (m->lost_gpu_s));
        json_object_set_new (g, "restart", json_real (m->restart_gpu_s));
        json_object_set_new (g, "slowdown", json_real (m->slow_gpu_s));
        json_object_set_new (g, "fragmented", json_real (m->frag_gpu_s));
        json_object_set_new (r, "gpu_seconds", g);
        json_object_set_new (r, "conservation_ok",
                             json_boolean (m->conservation_ok));
        json_object_set_new (r, "events", json_integer ((json_int_t)m->n_events));
        json_t *ta = json_array ();
        for (size_t t = 0; t < m->n_teams; t++) {
            const struct gp_sim_team *tm = &m->teams[t];
            json_t *to = json_object ();
            json_object_set_new (to, "name", json_string (tm->name));
            json_object_set_new (to, "jobs", json_integer ((json_int_t)tm->n_jobs));
            json_object_set_new (to, "gpu_s", json_real (tm->gpu_s));
            json_object_set_new (to, "share", json_real (tm->share));
            json_object_set_new (to, "entitlement",
                                 json_real (tm->entitlement));
            json_object_set_new (to, "max_dominant_share",
                                 json_real (tm->max_dominant_share));
            json_object_set_new (to, "preempted",
                                 json_integer ((json_int_t)tm->n_preempted));
            json_object_set_new (to, "wait", wait_json (&tm->wait));
            json_array_append_new (ta, to);
        }
        json_object_set_new (r, "teams", ta);
        if (o->jobs) {
            json_t *ja = json_array ();
            for (size_t i = 0; i < nr; i++) {
                json_t *jo = json_object ();
                json_object_set_new (jo, "id", json_integer (js->jobs[i].id));
                json_object_set_new (jo, "start",
                                     res[i].first_start_s >= 0
                                         ? json_real (res[i].first_start_s)
                                         : json_null ());
                json_object_set_new (jo, "end", res[i].end_s >= 0
                                                    ? json_real (res[i].end_s)
                                                    : json_null ());
                json_object_set_new (jo, "preempted",
                                     json_integer (res[i].n_preempt));
                json_object_set_new (
                    jo, "state",
                    json_string (res[i].state == GP_JOB_DONE ? "done"
                                 : res[i].state == GP_JOB_UNFIT
                                     ? "unfit"
                                     : "unfinished"));
                if (res[i].state == GP_JOB_UNFIT)
                    json_object_set_new (
                        jo, "reason",
                        json_string ("larger than any pool it may use"));
                json_array_append_new (ja, jo);
            }
            json_object_set_new (r, "schedule", ja);
        }
        return cli_print_json (r);
    }
    char a[48], b[48], c[48], d[48], e[48];
    printf ("simulate: cluster %s (%lld GPUs), %s trace, policy %s, "
            "placement %s\n",
            cl->name, m->total_gpus, js->format, pol, plc);
    printf ("jobs: %zu done, %zu unfit (larger than any pool), %zu "
            "unfinished",
            m->n_done, m->n_unfit, m->n_unfinished);
    if (js->n_skipped)
        printf ("; %zu bad rows skipped", js->n_skipped);
    if (js->n_ignored)
        printf ("; %zu rows ignored (0 GPUs, 0 s or job steps)",
                js->n_ignored);
    printf ("\n");
    fmt_dur (m->makespan_s, a, sizeof a);
    printf ("makespan %s, utilization %.1f%%, goodput %.1f%%, fragmented "
            "%.2f%%, idle while jobs wait %.2f%%, mean queue %.1f\n\n",
            a, 100 * m->utilization, 100 * m->goodput, m->frag_pct,
            m->idle_waiting_pct, m->mean_queue_len);
    const char *h[] = {"WAIT", "JOBS", "P50", "P95", "P99", "MAX"};
    struct cli_table *t = cli_table_create (6, h);
    const char *row[6];
    char nb[32];
#define ADD_WAIT(label, w)                                                    \
    do {                                                                      \
        snprintf (nb, sizeof nb, "%zu", (w)->n);                              \
        fmt_dur ((w)->p50_s, a, sizeof a);                                    \
        fmt_dur ((w)->p95_s, b, sizeof b);                                    \
        fmt_dur ((w)->p99_s, c, sizeof c);                                    \
        fmt_dur ((w)->max_s, d, sizeof d);                                    \
        row[0] = (label);                                                     \
        row[1] = nb;                                                          \
        row[2] = a;                                                           \
        row[3] = b;                                                           \
        row[4] = c;                                                           \
        row[5] = d;                                                           \
        cli_table_add (t, row);                                               \
    } while (0)
    ADD_WAIT ("all jobs", &m->wait);
    for (int k = 0; k < GP_SIM_N_SIZE_CLASSES; k++) {
        char lab[32];
        if (m->wait_by_size[k].n == 0)
            continue;
        snprintf (lab, sizeof lab, "%s GPU", gp_sim_size_class_str (k));
        ADD_WAIT (lab, &m->wait_by_size[k]);
    }
    for (size_t k = 0; k < m->n_teams; k++) {
        char lab[96];
        if (m->teams[k].n_jobs == 0)
            continue;
        snprintf (lab, sizeof lab, "team %s", m->teams[k].name);
        ADD_WAIT (lab, &m->teams[k].wait);
    }
#undef ADD_WAIT
    cli_table_print (t);
    fmt_dur (m->jct_p50_s, a, sizeof a);
    fmt_dur (m->jct_p95_s, b, sizeof b);
    fmt_dur (m->starve_large_max_wait_s, c, sizeof c);
    fmt_dur (m->starve_long_max_wait_s, d, sizeof d);
    fmt_dur (m->long_job_s, e, sizeof e);
    printf ("\nJCT p50 %s, p95 %s; slowdown p50 %.2f, p95 %.2f\n", a, b,
            m->slowdown_p50, m->slowdown_p95);
    printf ("starvation: longest wait of jobs >= %d GPUs %s, of jobs >= %s "
            "%s\n",
            m->large_job_gpus, c, e, d);
    if (m->jain_teams)
        printf ("fairness: Jain's index of share/entitlement over teams "
                "%.3f\n",
                m->jain_index);
    else
        printf ("fairness: Jain's index n/a (no team with jobs has a quota "
                "or weight entitlement, or nothing ran)\n");
    printf ("preemptions %zu, node failures %zu, GPU-hours lost %.1f "
            "(work) + %.1f (restarts)\n",
            m->n_preemptions, m->n_failures, m->lost_gpu_s / 3600,
            m->restart_gpu_s / 3600);
    printf ("conservation: %s (GPU-seconds balance within %.1e)\n",
            m->conservation_ok ? "ok" : "FAILED", m->conservation_err);
    if (o->jobs) {
        printf ("\n");
        const char *jh[] = {"JOB", "SUBMIT", "GPUS", "START", "END",
                            "PREEMPTED"};
        struct cli_table *jt = cli_table_create (6, jh);
        for (size_t i = 0; i < nr; i++) {
            char s0[32], s1[32], s2[32], s3[32], s4[32], s5[32];
            snprintf (s0, sizeof s0, "%lld", (long long)js->jobs[i].id);
            snprintf (s1, sizeof s1, "%g", js->jobs[i].submit_s);
            snprintf (s2, sizeof s2, "%d", js->jobs[i].n_gpus);
            if (res[i].first_start_s >= 0)
                snprintf (s3, sizeof s3, "%g", res[i].first_start_s);
            else
                snprintf (s3, sizeof s3, "-");
            if (res[i].end_s >= 0)
                snprintf (s4, sizeof s4, "%g", res[i].end_s);
            else
                snprintf (s4, sizeof s4, "-");
            snprintf (s5, sizeof s5, "%d", res[i].n_preempt);
            const char *jr[] = {s0, s1, s2, s3, s4, s5};
            cli_table_add (jt, jr);
        }
        cli_table_print (jt);
    }
    return EXIT_OK;
}


/* One run of a sweep: 0 = within limits, 1 = not, <0 = error. */
static int sweep_eval (struct opts *o, const struct gp_jobset *js,
                       double *p95, double *starve, size_t *unfit,
                       gp_error_t *err)
{
    struct gp_sim *sim = gp_sim_create (&o->cfg, js, err);
    if (!sim || gp_sim_run (sim, err)) {
        gp_sim_destroy (sim);
        return -1;
    }
    const struct gp_sim_metrics *m = gp_sim_get_metrics (sim);
    *p95 = m->wait.p95_s;
    *starve = m->starve_large_max_wait_s > m->starve_long_max_wait_s
                  ? m->starve_large_max_wait_s
                  : m->starve_long_max_wait_s;
    *unfit = m->n_unfit;
    gp_sim_destroy (sim);
    return *unfit == 0 && *p95 <= o->max_p95 && *starve <= o->max_starve
               ? 0
               : 1;
}

/* Binary search of the smallest node count of pool 0 (sweep nodes) or of
 * the largest load factor (sweep load: submit times divided by the
 * factor) that meets the limits.  Assumes monotony (more nodes or less
 * load never makes waits longer), which holds for the averages but not
 * strictly for every trace; every evaluated point is printed.
 */
static int run_sweep (struct opts *o, struct gp_cluster *cl,
                      struct gp_jobset *js)
{
    int load = strcmp (o->sweep, "load") == 0;
    if (!load && strcmp (o->sweep, "nodes") != 0)
        return cli_usage_error ("simulate: --sweep must be nodes or load");
    gp_error_t err = {0};
    double *sub = NULL;
    if (load) {
        sub = malloc ((js->n_jobs ? js->n_jobs : 1) * sizeof *sub);
        if (!sub) {
            gp_errprintf (&err, GP_ENOMEM, "out of memory");
            return cli_fail (&err);
        }
        for (size_t i = 0; i < js->n_jobs; i++)
            sub[i] = js->jobs[i].submit_s;
    }
    int orig = cl->pools[0].nodes;
    json_t *pts = json_array ();
    double lo, hi, best = -1;
    if (load) {
        lo = 0.01;
        hi = 100;
    } else {
        lo = 1;
        hi = orig * 8.0;
    }
    int rc = 0, iter = 0;
    if (!o->json)
        printf ("sweep %s: limits p95 wait <= %.0f s, starvation <= %.0f s\n",
                o->sweep, o->max_p95, o->max_starve);
    while (iter++ < 40) {
        double x = load ? sqrt (lo * hi) : floor ((lo + hi) / 2);
        if (load)
            for (size_t i = 0; i < js->n_jobs; i++)
                js->jobs[i].submit_s = sub[i] / x;
        else
            cl->pools[0].nodes = (int)x;
        double p95, starve;
        size_t unfit;
        int r = sweep_eval (o, js, &p95, &starve, &unfit, &err);
        if (r < 0) {
            rc = cli_fail (&err);
            break;
        }
        json_t *pt = json_object ();
        json_object_set_new (pt, load ? "load_factor" : "nodes",
                             json_real (x));
        json_object_set_new (pt, "wait_p95_s", json_real (p95));
        json_object_set_new (pt, "starvation_s", json_real (starve));
        json_object_set_new (pt, "unfit", json_integer ((json_int_t)unfit));
        json_object_set_new (pt, "ok", json_boolean (r == 0));
        json_array_append_new (pts, pt);
        if (!o->json)
            printf ("  %s %-10.4g p95 wait %10.0f s  starvation %10.0f s  "
                    "%s\n",
                    load ? "load x" : "nodes", x, p95, starve,
                    r == 0 ? "ok" : unfit ? "unfit jobs" : "over");
        if (load) {
            if (r == 0) {
                best = x;
                lo = x;
            } else
                hi = x;
            if (hi / lo < 1.01)
                break;
        } else {
            if (r == 0) {
                best = x;
                hi = x;
            } else
                lo = x + 1;
            if (lo >= hi) {
                if (best != hi) {
                    cl->pools[0].nodes = (int)hi;
                    if (sweep_eval (o, js, &p95, &starve, &unfit, &err) == 0)
                        best = hi;
                }
                break;
            }
        }
    }
    cl->pools[0].nodes = orig;
    if (load)
        for (size_t i = 0; i < js->n_jobs; i++)
            js->jobs[i].submit_s = sub[i];
    free (sub);
    if (rc) {
        json_decref (pts);
        return rc;
    }
    if (o->json) {
        json_t *root = json_object ();
        json_object_set_new (root, "sweep", json_string (o->sweep));
        json_object_set_new (root, "pool", json_string (cl->pools[0].name));
        json_object_set_new (root, "max_p95_wait_s", json_real (o->max_p95));
        json_object_set_new (root, "max_starvation_s",
                             json_real (o->max_starve));
        json_object_set_new (root, "answer",
                             best >= 0 ? json_real (best) : json_null ());
        json_object_set_new (root, "points", pts);
        rc = cli_print_json (root);
    } else {
        json_decref (pts);
        if (best < 0)
            printf ("no %s within the searched range meets the limits\n",
                    load ? "load factor" : "node count");
        else if (load)
            printf ("largest load factor within the limits: %.3g x the "
                    "trace's arrival rate\n",
                    best);
        else
            printf ("smallest %s pool within the limits: %.0f nodes "
                    "(%.0f GPUs)\n",
                    cl->pools[0].name, best,
                    best * cl->pools[0].gpus_per_node);
    }
    if (rc == 0 && best < 0)
        rc = EXIT_INFEASIBLE;
    return rc;
}

static int run_fill (const struct opts *o)
{
    if (!o->nodes || !o->trace)
        return cli_usage_error ("simulate: fill mode needs --nodes and "
                                "--trace (see 'gpuplan simulate --help')");
    enum gp_fill_policy fp = GP_FILL_BEST_FIT;
    gp_error_t err = {0};
    if (o->placement && gp_fill_policy_parse (o->placement, &fp, &err))
        return cli_fail (&err);
    double until = 1.3;
    if (o->until) {
        char *end;
        double v = strtod (o->until, &end);
        if (end == o->until || (*end && strcmp (end, "%") != 0) || !(v > 0)
            || v > 1000)
            return cli_usage_error ("simulate: --until-demand: '%s' is not "
                                    "a percentage such as 130%%",
                                    o->until);
        until = v / 100;
    }
    struct gp_fill_input in;
    if (gp_fill_read (o->nodes, o->trace, &in, &err))
        return cli_fail (&err);
    struct gp_fill_result r;
    if (gp_fill_run (&in, fp, o->cfg.seed, until, &r, &err)) {
        gp_fill_input_free (&in);
        return cli_fail (&err);
    }
    int rc = EXIT_OK;
    if (o->json) {
        json_t *root = json_object ();
        json_object_set_new (root, "policy",
                             json_string (gp_fill_policy_str (fp)));
        json_object_set_new (root, "seed",
                             json_integer ((json_int_t)o->cfg.seed));
        json_object_set_new (root, "total_gpus", json_integer (r.total_gpus));
        json_object_set_new (root, "final_allocation_pct",
                             json_real (r.final_alloc_pct));
        json_object_set_new (root, "pods_arrived",
                             json_integer ((json_int_t)r.n_arrived));
        json_object_set_new (root, "pods_failed",
                             json_integer ((json_int_t)r.n_failed));
        json_t *cv = json_array ();
        for (size_t i = 0; i < r.n_curve; i++) {
            json_t *p = json_object ();
            json_object_set_new (p, "demand_pct",
                                 json_real (r.curve[i].demand_pct));
            json_object_set_new (p, "allocation_pct",
                                 json_real (r.curve[i].alloc_pct));
            json_object_set_new (p, "fragmented_pct",
                                 json_real (r.curve[i].frag_pct));
            json_array_append_new (cv, p);
        }
        json_object_set_new (root, "curve", cv);
        rc = cli_print_json (root);
    } else {
        printf ("fill: %zu nodes, %lld GPUs, placement %s, seed %llu\n",
                in.n_nodes, r.total_gpus, gp_fill_policy_str (fp),
                (unsigned long long)o->cfg.seed);
        printf ("pods arrived %zu, placed %zu, failed %zu; final GPU "
                "allocation %.1f%%\n\n",
                r.n_arrived, r.n_placed, r.n_failed, r.final_alloc_pct);
        const char *h[] = {"DEMAND %", "ALLOCATED %", "FRAGMENTED %"};
        struct cli_table *t = cli_table_create (3, h);
        for (size_t i = 0; i < r.n_curve; i++) {
            if ((i + 1) % 10 && i + 1 != r.n_curve)
                continue;
            char a[32], b[32], c[32];
            snprintf (a, sizeof a, "%.0f", r.curve[i].demand_pct);
            snprintf (b, sizeof b, "%.1f", r.curve[i].alloc_pct);
            snprintf (c, sizeof c, "%.1f", r.curve[i].frag_pct);
            const char *row[] = {a, b, c};
            cli_table_add (t, row);
        }
        cli_table_print (t);
    }
    gp_fill_result_free (&r);
    gp_fill_input_free (&in);
    return rc;
}

int cmd_simulate (int argc, char **argv)
{
    enum {
        O_CLUSTER = 256, O_TRACE, O_FORMAT, O_POLICY, O_PLACEMENT, O_SEED,
        O_RESTART, O_CKPT, O_COMM, O_MTBF, O_REPAIR, O_SERIES, O_INTERVAL,
        O_JOBS, O_JSON, O_CATALOG, O_SKIP, O_SYNTH, O_RATE, O_MEDIAN,
        O_TEAMS, O_MODE, O_NODES, O_UNTIL, O_SWEEP, O_MAXP95, O_MAXSTARVE,
        O_CHART, O_GAVEL_TP, O_GAVEL_GPU, O_POLLUX, O_STRICT_TEAMS,
    };
    static const struct option lo[] = {
        {"cluster", required_argument, NULL, O_CLUSTER},
        {"trace", required_argument, NULL, O_TRACE},
        {"trace-format", required_argument, NULL, O_FORMAT},
        {"policy", required_argument, NULL, O_POLICY},
        {"placement", required_argument, NULL, O_PLACEMENT},
        {"seed", required_argument, NULL, O_SEED},
        {"restart-cost", required_argument, NULL, O_RESTART},
        {"checkpoint-interval", required_argument, NULL, O_CKPT},
        {"comm-share", required_argument, NULL, O_COMM},
        {"mtbf", required_argument, NULL, O_MTBF},
        {"repair", required_argument, NULL, O_REPAIR},
        {"series", required_argument, NULL, O_SERIES},
        {"interval", required_argument, NULL, O_INTERVAL},
        {"jobs", no_argument, NULL, O_JOBS},
        {"json", no_argument, NULL, O_JSON},
        {"catalog", required_argument, NULL, O_CATALOG},
        {"skip-bad", no_argument, NULL, O_SKIP},
        {"strict-teams", no_argument, NULL, O_STRICT_TEAMS},
        {"synthetic", required_argument, NULL, O_SYNTH},
        {"arrival-rate", required_argument, NULL, O_RATE},
        {"duration-median", required_argument, NULL, O_MEDIAN},
        {"teams", required_argument, NULL, O_TEAMS},
        {"mode", required_argument, NULL, O_MODE},
        {"nodes", required_argument, NULL, O_NODES},
        {"until-demand", required_argument, NULL, O_UNTIL},
        {"sweep", required_argument, NULL, O_SWEEP},
        {"chart", required_argument, NULL, O_CHART},
        {"gavel-throughputs", required_argument, NULL, O_GAVEL_TP},
        {"gavel-gpu", required_argument, NULL, O_GAVEL_GPU},
        {"pollux-profiles", required_argument, NULL, O_POLLUX},
        {"max-p95-wait", required_argument, NULL, O_MAXP95},
        {"max-starvation", required_argument, NULL, O_MAXSTARVE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct opts o;
    memset (&o, 0, sizeof o);
    gp_sim_config_init (&o.cfg);
    o.rate_per_h = 60;
    o.median_s = 3600;
    o.teams = 4;
    o.max_p95 = 3600;
    o.max_starve = 86400;
    double seed = 0, synth = 0;
    int c, rc = 0;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long (argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case O_CLUSTER: o.cluster = optarg; break;
        case O_TRACE: o.trace = optarg; break;
        case O_FORMAT: o.format = optarg; break;
        case O_POLICY: o.policy = optarg; break;
        case O_PLACEMENT: o.placement = optarg; break;
        case O_SEED: rc = num_opt ("seed", optarg, 0, 9e15, &seed); break;
        case O_RESTART:
            rc = dur_opt ("restart-cost", optarg, &o.cfg.restart_cost_s);
            break;
        case O_CKPT:
            rc = dur_opt ("checkpoint-interval", optarg,
                          &o.cfg.ckpt_interval_s);
            break;
        case O_COMM:
            rc = num_opt ("comm-share", optarg, 0, 100, &o.cfg.comm_share);
            break;
        case O_MTBF: rc = dur_opt ("mtbf", optarg, &o.cfg.node_mtbf_s); break;
        case O_REPAIR:
            rc = dur_opt ("repair", optarg, &o.cfg.node_repair_s);
            break;
        case O_SERIES: o.series = optarg; break;
        case O_INTERVAL:
            rc = dur_opt ("interval", optarg, &o.cfg.sample_interval_s);
            if (!rc && !(o.cfg.sample_interval_s > 0))
                rc = cli_usage_error ("simulate: --interval must be > 0");
            break;
        case O_JOBS: o.jobs = 1; break;
        case O_JSON: o.json = 1; break;
        case O_CATALOG: o.catalog = optarg; break;
        case O_SKIP: o.skip_bad = 1; break;
        case O_STRICT_TEAMS: o.strict_teams = 1; break;
        case O_SYNTH: rc = num_opt ("synthetic", optarg, 1, 1e9, &synth); break;
        case O_RATE:
            rc = num_opt ("arrival-rate", optarg, 1e-9, 1e9, &o.rate_per_h);
            break;
        case O_MEDIAN:
            rc = dur_opt ("duration-median", optarg, &o.median_s);
            break;
        case O_TEAMS: rc = num_opt ("teams", optarg, 1, 10000, &o.teams); break;
        case O_MODE: o.mode = optarg; break;
        case O_NODES: o.nodes = optarg; break;
        case O_UNTIL: o.until = optarg; break;
        case O_SWEEP: o.sweep = optarg; break;
        case O_CHART: o.chart = optarg; break;
        case O_GAVEL_TP: o.gavel_tp = optarg; break;
        case O_GAVEL_GPU: o.gavel_gpu = optarg; break;
        case O_POLLUX: o.pollux = optarg; break;
        case O_MAXP95:
            rc = dur_opt ("max-p95-wait", optarg, &o.max_p95);
            break;
        case O_MAXSTARVE:
            rc = dur_opt ("max-starvation", optarg, &o.max_starve);
            break;
        case 'h': return cli_help ("simulate");
        default:
            return cli_usage_error ("simulate: unknown or incomplete option "
                                    "'%s' (see 'gpuplan simulate --help')",
                                    argv[optind - 1]);
        }
        if (rc)
            return rc;
    }
    if (optind != argc)
        return cli_usage_error ("simulate: unexpected argument '%s'",
                                argv[optind]);
    o.cfg.seed = (uint64_t)seed;
    o.synthetic = (long long)synth;
    if (o.mode && strcmp (o.mode, "fill") == 0)
        return run_fill (&o);
    if (o.mode && strcmp (o.mode, "sim") != 0)
        return cli_usage_error ("simulate: --mode must be sim or fill");
    if (!o.cluster || (!o.trace && !o.synthetic))
        return cli_usage_error ("simulate: need --cluster SPEC.yaml and "
                                "--trace FILE (or --synthetic N)");
    gp_error_t err = {0};
    o.cfg.policy = gp_policy_find (o.policy ? o.policy : "fifo-backfill",
                                   &err);
    if (!o.cfg.policy)
        return cli_fail (&err);
    if (o.placement && gp_placement_parse (o.placement, &o.cfg.placement,
                                           &err))
        return cli_fail (&err);
    struct gp_trace_opts to = {.format = GP_TRACE_AUTO};
    if (o.format && gp_trace_format_parse (o.format, &to.format, &err))
        return cli_fail (&err);
    if (o.skip_bad)
        to.flags |= GP_TRACE_SKIP_BAD;
    to.gavel_throughputs = o.gavel_tp;
    to.gavel_gpu = o.gavel_gpu;
    to.pollux_profiles = o.pollux;
    if ((o.series || o.chart) && o.cfg.sample_interval_s == 0)
        o.cfg.sample_interval_s = 3600;
    struct gp_catalog *cat = cli_catalog (o.catalog, &err);
    if (!cat)
        return cli_fail (&err);
    struct gp_doc *doc = gp_doc_load (o.cluster, &err);
    struct gp_cluster *cl = doc ? gp_cluster_from_doc (doc, cat, &err) : NULL;
    struct gp_jobset *js = NULL;
    struct gp_sim *sim = NULL;
    if (!cl)
        goto fail;
    if (o.synthetic) {
        struct gp_synth_params sp = {0};
        sp.n_jobs = (size_t)o.synthetic;
        sp.seed = o.cfg.seed;
        sp.arrival_rate_per_s = o.rate_per_h / 3600;
        sp.duration_median_s = o.median_s;
        sp.duration_sigma = 1.5;
        sp.n_teams = (int)o.teams;
        js = gp_trace_synth (&sp, &err);
    } else
        js = gp_trace_read (o.trace, &to, &err);
    if (!js)
        goto fail;
    if (js->n_skipped)
        cli_warn ("%zu bad rows skipped; first: %s", js->n_skipped,
                  js->first_skip);
    if ((rc = check_teams (&o, cl, js)))
        goto out;
    o.cfg.cluster = cl;
    if (isatty (2) && !o.json)
        o.cfg.progress = progress;
    if (o.sweep) {
        o.cfg.progress = NULL;
        rc = run_sweep (&o, cl, js);
        goto out;
    }
    sim = gp_sim_create (&o.cfg, js, &err);
    if (!sim || gp_sim_run (sim, &err))
        goto fail;
    if (o.series && (rc = write_series (o.series, sim)))
        goto out;
    if (o.chart) {
        char title[200];
        snprintf (title, sizeof title, "%s: %s, %s placement", cl->name,
                  o.cfg.policy->name, gp_placement_str (o.cfg.placement));
        if ((rc = write_chart (o.chart, sim, title)))
            goto out;
    }
    rc = check_fit (cl, js, sim);
    int rr = render (&o, cl, js, sim);
    if (rr)
        rc = rr;
    else if (rc)
        fprintf (stderr, "gpuplan: error: no job of the trace fits the "
                         "cluster (infeasible)\n");
    goto out;
fail:
    rc = cli_fail (&err);
out:
    json_decref (o.undeclared);
    gp_sim_destroy (sim);
    gp_jobset_destroy (js);
    gp_cluster_destroy (cl);
    gp_doc_destroy (doc);
    gp_catalog_destroy (cat);
    return rc;
}
