/* cmd_simulate.c - 'gpuplan simulate' (a trace on a cluster under a policy,
 * or a placement-only fill run): flags fill a gp_sim_request, one call to
 * gp_sim_run_request() (sim.h) does the work, library renderers print.
 */
#include <getopt.h>
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
    "    --set KEY=VALUE     override a default (gpuplan assumptions)\n"
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
    const char *cluster, *format, *policy, *placement, *series, *chart;
    const char *catalog, *mode, *nodes, *until, *sweep;
    int json;
    double seed, synth, x;
    struct gp_sim_request rq;
};

static int dur_opt (const char *name, const char *v, double *out)
{
    gp_error_t e;
    if (gp_parse_quantity (v, GP_Q_DURATION, out, &e) != 0)
        return cli_usage_error ("simulate: --%s: %s", name, e.text);
    return 0;
}

/* Option 'name' ("--seed"): a number in [lo, hi]; 'whole': GP_OPT_WHOLE
 * or 0.
 */
static int num_opt (const char *name, const char *v, double lo, double hi,
                    int whole, double *out)
{
    gp_error_t e;
    if (gp_opt_number (name, v, GP_Q_COUNT, lo, hi, whole, out, &e) != 0)
        return cli_usage_error ("simulate: %s", e.text);
    return 0;
}

/* Write a rendered text (freed) to 'path' (io.h), NULL = stdout; exit
 * status.
 */
static int write_text (const char *path, char *text, gp_error_t *err)
{
    int rc = !text ? cli_fail (err) : EXIT_OK;
    if (text && !path)
        fputs (text, stdout);
    else if (text && gp_write_file_atomic (path, text, strlen (text), err))
        rc = cli_fail (err);
    free (text);
    return rc;
}

static int run_fill (const struct opts *o)
{
    if (!o->nodes || !o->rq.trace_path)
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
            return cli_usage_error ("simulate: --until-demand: '%.40s' is "
                                    "not a percentage in (0, 1000]%% such "
                                    "as 130%%", o->until);
        until = v / 100;
    }
    struct gp_fill_input in;
    if (gp_fill_read (o->nodes, o->rq.trace_path, &in, &err))
        return cli_fail (&err);
    struct gp_fill_result r;
    uint64_t seed = o->rq.cfg.seed;
    if (gp_fill_run (&in, fp, seed, until, &r, &err)) {
        gp_fill_input_free (&in);
        return cli_fail (&err);
    }
    int rc = o->json ? cli_print_json (gp_report_fill_json (&r, fp, seed))
                     : write_text (NULL, gp_report_fill_text (&in, &r, fp,
                                                              seed, &err),
                                   &err);
    gp_fill_result_free (&r);
    gp_fill_input_free (&in);
    return rc;
}

static void warn (const char *msg, void *arg)
{
    (void)arg;
    cli_warn ("%s", msg);
}

/* Outputs of one run or a sweep; an exit status. */
static int render (const struct opts *o, const struct gp_sim_report *r)
{
    gp_error_t err = {0};
    int rc;
    if (r->sweep != GP_SIM_SWEEP_NONE) {
        rc = o->json ? cli_print_json (gp_report_sim_json (r))
                     : write_text (NULL, gp_report_sim_text (r, &err), &err);
        return rc ? rc /* no answer: exit 1 without a message */
                  : gp_err_exit_status (gp_sim_report_status (r, NULL));
    }
    if (o->series
        && (rc = write_text (o->series, gp_report_sim_series_csv (r, &err),
                             &err)))
        return rc;
    if (o->chart
        && (rc = write_text (o->chart, gp_report_sim_chart_svg (r, &err),
                             &err)))
        return rc;
    const struct gp_sim_metrics *m = r->metrics;
    if (m->n_unfit)
        cli_warn ("%zu of %zu jobs can never fit (reported as unfit, not "
                  "run): largest request %d GPUs, largest pool %s has %lld "
                  "GPUs",
                  m->n_unfit, m->n_jobs, r->unfit_max_gpus, r->largest_pool,
                  r->largest_pool_gpus);
    rc = o->json ? cli_print_json (gp_report_sim_json (r))
                 : write_text (NULL, gp_report_sim_text (r, &err), &err);
    if (rc == EXIT_OK && gp_sim_report_status (r, &err))
        rc = cli_fail (&err);
    return rc;
}

/* Resolve the names given on the command line into the request. */
static int fill_request (struct opts *o)
{
    struct gp_sim_request *rq = &o->rq;
    gp_error_t err = {0};
    rq->cfg.seed = (uint64_t)o->seed;
    if (o->policy && !(rq->cfg.policy = gp_policy_find (o->policy, &err)))
        return cli_fail (&err);
    if (o->placement && gp_placement_parse (o->placement, &rq->cfg.placement,
                                            &err))
        return cli_fail (&err);
    if (o->format
        && gp_trace_format_parse (o->format, &rq->trace_opts.format, &err))
        return cli_fail (&err);
    if (o->series || o->chart)
        rq->flags |= GP_SIMRQ_SERIES;
    if (o->sweep && gp_sim_sweep_parse (o->sweep, &rq->sweep, &err))
        return cli_usage_error ("simulate: %s", err.text);
    if (o->synth >= 1) {
        rq->synth.n_jobs = (size_t)o->synth;
        rq->synth.seed = rq->cfg.seed;
    }
    if (isatty (2) && !o->json)
        rq->cfg.progress = cli_progress;
    rq->warn = warn;
    return 0;
}

/* Load the cluster spec, run the request once, render. */
static int run_sim (struct opts *o)
{
    gp_error_t err = {0};
    int rc = fill_request (o);
    if (rc)
        return rc;
    struct gp_catalog *cat = gp_catalog_load (o->catalog, &err);
    if (!cat)
        return cli_fail (&err);
    struct gp_cluster *cl = gp_cluster_load (o->cluster, cat, &err);
    struct gp_sim_report *rep = NULL;
    o->rq.cluster = cl;
    o->rq.cluster_source = o->cluster;
    if (!cl || gp_sim_run_request (&o->rq, &rep, &err))
        rc = cli_fail (&err);
    else if (rep->jobs && rep->jobs->n_jobs == 0)
        rc = cli_usage_error ("simulate: %s: no job to simulate: %zu rows "
                              "ignored (0 GPUs, 0 s or job steps), %zu bad "
                              "rows skipped", o->rq.trace_path,
                              rep->jobs->n_ignored, rep->jobs->n_skipped);
    else
        rc = render (o, rep);
    gp_sim_report_destroy (rep);
    gp_cluster_destroy (cl);
    gp_catalog_destroy (cat);
    return rc;
}

enum {
    O_CLUSTER = 256, O_TRACE, O_FORMAT, O_POLICY, O_PLACEMENT, O_SEED,
    O_RESTART, O_CKPT, O_COMM, O_MTBF, O_REPAIR, O_SERIES, O_INTERVAL,
    O_JOBS, O_JSON, O_CATALOG, O_SKIP, O_SYNTH, O_RATE, O_MEDIAN, O_TEAMS,
    O_MODE, O_NODES, O_UNTIL, O_SWEEP, O_MAXP95, O_MAXSTARVE, O_CHART,
    O_GAVEL_TP, O_GAVEL_GPU, O_POLLUX, O_STRICT_TEAMS, O_SET,
};

/* has_arg: 1 = required_argument, 0 = no_argument */
static const struct option long_opts[] = {
    {"cluster", 1, NULL, O_CLUSTER}, {"trace", 1, NULL, O_TRACE},
    {"trace-format", 1, NULL, O_FORMAT}, {"policy", 1, NULL, O_POLICY},
    {"placement", 1, NULL, O_PLACEMENT}, {"seed", 1, NULL, O_SEED},
    {"restart-cost", 1, NULL, O_RESTART},
    {"checkpoint-interval", 1, NULL, O_CKPT}, {"comm-share", 1, NULL, O_COMM},
    {"mtbf", 1, NULL, O_MTBF}, {"repair", 1, NULL, O_REPAIR},
    {"series", 1, NULL, O_SERIES}, {"interval", 1, NULL, O_INTERVAL},
    {"jobs", 0, NULL, O_JOBS}, {"json", 0, NULL, O_JSON},
    {"catalog", 1, NULL, O_CATALOG}, {"skip-bad", 0, NULL, O_SKIP},
    {"strict-teams", 0, NULL, O_STRICT_TEAMS}, {"set", 1, NULL, O_SET},
    {"synthetic", 1, NULL, O_SYNTH}, {"arrival-rate", 1, NULL, O_RATE},
    {"duration-median", 1, NULL, O_MEDIAN}, {"teams", 1, NULL, O_TEAMS},
    {"mode", 1, NULL, O_MODE}, {"nodes", 1, NULL, O_NODES},
    {"until-demand", 1, NULL, O_UNTIL}, {"sweep", 1, NULL, O_SWEEP},
    {"chart", 1, NULL, O_CHART}, {"gavel-throughputs", 1, NULL, O_GAVEL_TP},
    {"gavel-gpu", 1, NULL, O_GAVEL_GPU}, {"max-p95-wait", 1, NULL, O_MAXP95},
    {"pollux-profiles", 1, NULL, O_POLLUX}, {"help", 0, NULL, 'h'},
    {"max-starvation", 1, NULL, O_MAXSTARVE}, {NULL, 0, NULL, 0},
};

/* One option into 'o'; 0 or an exit status. */
static int parse_opt (struct opts *o, int c, const char *v)
{
    struct gp_sim_config *cfg = &o->rq.cfg;
    struct gp_trace_opts *to = &o->rq.trace_opts;
    int rc;
    switch (c) {
    case O_CLUSTER: o->cluster = v; return 0;
    case O_TRACE: o->rq.trace_path = v; return 0;
    case O_FORMAT: o->format = v; return 0;
    case O_POLICY: o->policy = v; return 0;
    case O_PLACEMENT: o->placement = v; return 0;
    case O_SEED:
        return num_opt ("--seed", v, 0, 9e15, GP_OPT_WHOLE, &o->seed);
    case O_RESTART: return dur_opt ("restart-cost", v, &cfg->restart_cost_s);
    case O_CKPT:
        return dur_opt ("checkpoint-interval", v, &cfg->ckpt_interval_s);
    case O_COMM:
        return num_opt ("--comm-share", v, 0, 100, 0, &cfg->comm_share);
    case O_MTBF: return dur_opt ("mtbf", v, &cfg->node_mtbf_s);
    case O_REPAIR: return dur_opt ("repair", v, &cfg->node_repair_s);
    case O_SERIES: o->series = v; return 0;
    case O_INTERVAL:
        rc = dur_opt ("interval", v, &cfg->sample_interval_s);
        if (!rc && !(cfg->sample_interval_s > 0))
            rc = cli_usage_error ("simulate: --interval must be > 0");
        return rc;
    case O_JOBS: o->rq.flags |= GP_SIMRQ_SCHEDULE; return 0;
    case O_JSON: o->json = 1; return 0;
    case O_CATALOG: o->catalog = v; return 0;
    case O_SET: return 0; /* applied by cli_scan_set */
    case O_SKIP: to->flags |= GP_TRACE_SKIP_BAD; return 0;
    case O_STRICT_TEAMS: o->rq.flags |= GP_SIMRQ_STRICT_TEAMS; return 0;
    case O_SYNTH:
        return num_opt ("--synthetic", v, 1, 1e9, GP_OPT_WHOLE, &o->synth);
    case O_RATE: /* per hour */
        rc = num_opt ("--arrival-rate", v, 1e-9, 1e9, 0, &o->x);
        o->rq.synth.arrival_rate_per_s = o->x / 3600;
        return rc;
    case O_MEDIAN:
        return dur_opt ("duration-median", v, &o->rq.synth.duration_median_s);
    case O_TEAMS:
        rc = num_opt ("--teams", v, 1, 10000, GP_OPT_WHOLE, &o->x);
        o->rq.synth.n_teams = (int)o->x;
        return rc;
    case O_MODE: o->mode = v; return 0;
    case O_NODES: o->nodes = v; return 0;
    case O_UNTIL: o->until = v; return 0;
    case O_SWEEP: o->sweep = v; return 0;
    case O_CHART: o->chart = v; return 0;
    case O_GAVEL_TP: to->gavel_throughputs = v; return 0;
    case O_GAVEL_GPU: to->gavel_gpu = v; return 0;
    case O_POLLUX: to->pollux_profiles = v; return 0;
    case O_MAXP95: return dur_opt ("max-p95-wait", v, &o->rq.max_p95_wait_s);
    case O_MAXSTARVE:
        return dur_opt ("max-starvation", v, &o->rq.max_starvation_s);
    default: return -1;
    }
}

int cmd_simulate (int argc, char **argv)
{
    struct opts o;
    memset (&o, 0, sizeof o);
    struct gp_defaults d;
    int c, rc = cli_scan_set ("simulate", argc, argv, &d);
    gp_sim_request_init_defaults (&o.rq, &d);
    static const char *const conflicts[] = {"synthetic", "trace", NULL};
    if (!rc && cli_opts_begin ("simulate", argc, argv, long_opts, conflicts))
        return EXIT_USAGE;
    while (!rc && (c = getopt_long (argc, argv, "h", long_opts, NULL)) != -1) {
        if (c == 'h')
            return cli_help ("simulate");
        if ((rc = parse_opt (&o, c, optarg)) < 0)
            return cli_usage_error ("simulate: unknown or incomplete option "
                                    "'%s' (see 'gpuplan simulate --help')",
                                    argv[optind - 1]);
    }
    if (rc)
        return rc;
    if (optind != argc)
        return cli_usage_error ("simulate: unexpected argument '%s'",
                                argv[optind]);
    o.rq.cfg.seed = (uint64_t)o.seed;
    if (o.mode && strcmp (o.mode, "fill") == 0)
        return run_fill (&o);
    if (o.mode && strcmp (o.mode, "sim") != 0)
        return cli_usage_error ("simulate: --mode must be sim or fill");
    if (!o.cluster || (!o.rq.trace_path && o.synth < 1))
        return cli_usage_error ("simulate: need --cluster SPEC.yaml and "
                                "--trace FILE (or --synthetic N)");
    return run_sim (&o);
}
