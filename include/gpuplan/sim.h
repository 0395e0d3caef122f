/* gpuplan/sim.h - discrete-event simulation of a multi-tenant GPU cluster.
 *
 * The simulator replays a job set (trace.h) on a cluster spec (cluster.h)
 * under one scheduling policy (policy.h) and one placement strategy.  It is
 * pure and deterministic: no I/O, no wall clock, results depend only on the
 * inputs and the seed.  Jobs and nodes live in vectors owned by the
 * simulator and events refer to them by index.  Each event costs
 * O(log n); memory is linear in the number of jobs.  The model (gang
 * admission, placement, slowdown, preemption, checkpoints, failures,
 * metrics) is documented in docs/model/simulator.md.
 */
#ifndef GPUPLAN_SIM_H
#define GPUPLAN_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "gpuplan/cluster.h"
#include "gpuplan/defaults.h"
#include "gpuplan/error.h"
#include "gpuplan/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gp_policy_ops;

enum gp_placement {
    GP_PLACE_PACKING,  /* first fit in node order: fills nodes in turn */
    GP_PLACE_BEST_FIT, /* node with the fewest free GPUs that fit */
    GP_PLACE_SPREAD,   /* node with the most free GPUs (worst fit) */
    GP_PLACE_TOPOLOGY, /* fewest racks, then fewest nodes, best fit */
    GP_PLACE_N,
};

/* Placement name ("best-fit", ...); NULL for an unknown value.  Static. */
const char *gp_placement_str (enum gp_placement p);
/* Parse a placement name into *out; 0, or GP_ENOTFOUND with the valid
 * names in 'err'.
 */
int gp_placement_parse (const char *s, enum gp_placement *out,
                        gp_error_t *err);

/* Progress callback: 'frac' in [0, 1]. */
typedef void (*gp_progress_f) (double frac, void *arg);

struct gp_sim_config {
    const struct gp_cluster *cluster;   /* borrowed */
    const struct gp_policy_ops *policy; /* borrowed; NULL = FIFO */
    enum gp_placement placement;
    uint64_t seed;
    double restart_cost_s;     /* added to every restart (preempt/failure) */
    double ckpt_interval_s;    /* for jobs without their own; 0 = never */
    double comm_share;         /* for jobs without their own */
    double node_mtbf_s;        /* mean time between node failures; 0 = off */
    double node_repair_s;      /* time a failed node stays down */
    double sample_interval_s;  /* time-series bucket; 0 = no series */
    int backfill_depth;        /* jobs examined behind a blocked head; 0=256 */
    /* Overrides of the policy's parameters by key (policy.h), e.g. the
     * LAS "threshold_gpu_s"; borrowed; NULL/0 = the policy's defaults.
     */
    const struct gp_policy_setting *policy_params;
    size_t n_policy_params;
    int large_job_gpus;        /* starvation class; 0 = largest node */
    double long_job_s;         /* starvation class; 0 = 86400 s */
    gp_progress_f progress;    /* may be NULL */
    void *progress_arg;
    /* Event cap: the run stops with GP_ERANGE, naming the most frequent
     * kind of event, after this many events; 0 = GP_SIM_EVENTS_BASE +
     * GP_SIM_EVENTS_PER_JOB x jobs.
     */
    size_t max_events;
    /* 1 = schedule with the plain scans, without the pending-set indexes
     * and shortcuts (the reference the indexed scans are tested against;
     * same schedule, slower under deep queues).
     */
    int plain_scan;
};

/* Default event cap (docs/model/simulator.md, "Progress guarantee"). */
#define GP_SIM_EVENTS_BASE 10000000u
#define GP_SIM_EVENTS_PER_JOB 200u
/* Most time-series points a run keeps: a finer interval is coarsened by
 * powers of two until the series fits (gp_sim_series_interval()).
 */
#define GP_SIM_SERIES_MAX 100000u
/* Largest duration setting accepted (restart cost, checkpoint interval,
 * MTBF, repair time, sample interval), seconds (about 31.7 years).
 */
#define GP_SIM_MAX_DURATION_S 1e9
/* With node failures, a job whose expected number of attempts to reach
 * its next checkpoint, e^(L k / MTBF) (L = restart cost + checkpoint
 * interval, k = nodes it needs), exceeds this makes no progress: the
 * run is refused (GP_EINVAL).
 */
#define GP_SIM_MAX_ATTEMPTS 1000.0

/* Fill 'cfg' with the defaults documented in docs/model/simulator.md
 * (best-fit placement, comm share 0.2, backfill depth 256; no cluster,
 * FIFO policy); the restart cost, the checkpoint interval and the node
 * repair time are the registry's reliability.restart_s,
 * reliability.checkpoint_interval_s and reliability.node_repair_h
 * (docs/model/defaults.md).  Overwrites 'cfg'.
 */
void gp_sim_config_init (struct gp_sim_config *cfg);

/* As gp_sim_config_init, reading those three from 'd' (the registry's
 * values when NULL).
 */
void gp_sim_config_init_defaults (struct gp_sim_config *cfg,
                                  const struct gp_defaults *d);

enum gp_job_state {
    GP_JOB_DONE = 0,
    GP_JOB_UNFIT,      /* can never fit the cluster (reported, not run) */
    GP_JOB_UNFINISHED, /* still waiting or running when the run stopped */
};

/* Outcome of one job; index = index in the job set. */
struct gp_job_result {
    enum gp_job_state state;
    double first_start_s;  /* -1 if never started */
    double last_start_s;
    double end_s;          /* -1 if not done */
    double wait_s;         /* first start - submit */
    double queued_s;       /* all time spent pending (incl. after preempt) */
    double run_s;          /* wall time holding GPUs, all segments */
    double slowdown;       /* (end - submit) / duration */
    int n_preempt;
    int n_failed;          /* killed by node failures */
    double lost_gpu_s;     /* work lost since last checkpoint, GPU-s */
    int n_nodes;           /* nodes of the last placement */
    int n_racks;           /* racks of the last placement */
};

struct gp_wait_stats {
    size_t n;
    double mean_s, p50_s, p95_s, p99_s, max_s;
};

#define GP_SIM_N_SIZE_CLASSES 6
/* Size classes by GPUs: 1, 2-4, 5-8, 9-32, 33-128, >128 (index 0..5). */
const char *gp_sim_size_class_str (int c);

struct gp_sim_team {
    const char *name;           /* borrowed from the job set */
    size_t n_jobs, n_done;
    struct gp_wait_stats wait;
    double gpu_s;               /* GPU-seconds held */
    double share;               /* gpu_s / sum of gpu_s */
    double entitlement;         /* quota or weight share (sums to 1) */
    double max_dominant_share;  /* peak GPUs held / cluster GPUs */
    size_t n_preempted;
};

struct gp_sim_metrics {
    size_t n_jobs, n_done, n_unfit, n_unfinished;
    long long total_gpus;
    double start_s, end_s;        /* first submit, last end */
    double makespan_s;
    double alloc_gpu_s;           /* integral of allocated GPUs */
    double useful_gpu_s;          /* duration x GPUs of completed work */
    double lost_gpu_s;            /* work redone after preempt/failure */
    double restart_gpu_s;         /* restart overhead */
    double slow_gpu_s;            /* extra time of worse-than-ideal spread */
    double utilization;           /* alloc / (gpus x makespan) */
    double goodput;               /* useful / alloc */
    double frag_gpu_s;            /* idle GPUs no pending job could use */
    double frag_pct;              /* frag / (gpus x makespan) x 100 */
    double idle_waiting_pct;      /* idle GPU-s while jobs wait, % */
    double mean_queue_len;
    struct gp_wait_stats wait;
    struct gp_wait_stats wait_by_size[GP_SIM_N_SIZE_CLASSES];
    double jct_mean_s, jct_p50_s, jct_p95_s, jct_p99_s;
    double slowdown_mean, slowdown_p50, slowdown_p95;
    double jain_index;            /* over teams of share / entitlement */
    size_t jain_teams;            /* teams in jain_index; 0 = undefined
                                   * (no team with jobs has an entitlement,
                                   * or nothing ran): report n/a, not 1 */
    double starve_large_max_wait_s; /* longest wait, jobs >= large GPUs */
    double starve_long_max_wait_s;  /* longest wait, jobs >= long_job_s */
    int large_job_gpus;
    double long_job_s;
    size_t n_preemptions;
    size_t n_failures;            /* node failures */
    size_t n_events;
    int conservation_ok;          /* GPU-seconds balance and job count */
    double conservation_err;      /* relative imbalance */
    struct gp_sim_team *teams;    /* n_teams entries (borrowed) */
    size_t n_teams;
};

/* One time-series bucket [t_s, t_s + interval). */
struct gp_sim_sample {
    double t_s;
    double alloc_gpus;    /* mean allocated GPUs */
    double util;          /* alloc_gpus / available GPUs */
    double queue_len;     /* mean pending jobs */
    double running;       /* mean running jobs */
    double frag_gpus;     /* mean fragmented GPUs */
};

struct gp_sim;

/* Build a simulator for 'js' on 'cfg->cluster'.  Duration settings must
 * be finite and at most GP_SIM_MAX_DURATION_S (GP_ERANGE naming the
 * field).  The job set and cluster
 * are borrowed and must outlive the simulator.  Returns NULL with 'err'
 * (GP_EINVAL for a bad config, GP_ENOTFOUND for a job naming an unknown
 * pool, GP_ENOMEM).
 */
struct gp_sim *gp_sim_create (const struct gp_sim_config *cfg,
                              const struct gp_jobset *js,
                              gp_error_t *err);

/* Run to completion.  Returns 0, or GP_EINTERNAL when a conservation
 * check fails (the metrics are still available); GP_EINVAL when node
 * failures leave some job no progress (GP_SIM_MAX_ATTEMPTS, naming the
 * job); GP_ERANGE when the run exceeds its event cap (cfg.max_events,
 * naming the most frequent kind of event); GP_ENOMEM.
 */
int gp_sim_run (struct gp_sim *s, gp_error_t *err);

/* Borrowed views, valid until gp_sim_destroy(), filled by gp_sim_run().
 * The metrics of the run (times in seconds, GPU-seconds, shares in 0..1
 * unless named _pct).
 */
const struct gp_sim_metrics *gp_sim_get_metrics (const struct gp_sim *s);
/* One result per job of the job set, in job-set order; *n (may be NULL)
 * receives the count.
 */
const struct gp_job_result *gp_sim_get_results (const struct gp_sim *s,
                                                size_t *n);
/* Time-series buckets (none unless cfg.sample_interval_s > 0); *n (may be
 * NULL) receives the count.
 */
const struct gp_sim_sample *gp_sim_get_series (const struct gp_sim *s,
                                               size_t *n);

/* Interval of the time series the run kept, seconds: cfg.sample_interval_s,
 * or a power-of-two multiple of it when the run would have produced more
 * than GP_SIM_SERIES_MAX points; 0 when no series was asked for.
 */
double gp_sim_series_interval (const struct gp_sim *s);

/* Free a simulator and its views; NULL is ignored. */
void gp_sim_destroy (struct gp_sim *s);

/* ------------------------- one simulation request ---------------------- */

/* What 'gpuplan simulate' (or any front end) asks for: one simulation, or
 * a sweep of them, of one job set on one cluster.  The job set comes from
 * exactly one source, checked in this order: 'jobs' (borrowed), 'synth'
 * (when synth.n_jobs > 0) or the trace file 'trace_path' read with
 * 'trace_opts'.
 */
enum gp_sim_sweep {
    GP_SIM_SWEEP_NONE = 0,
    GP_SIM_SWEEP_NODES, /* smallest node count of the first pool */
    GP_SIM_SWEEP_LOAD,  /* largest load factor (submit times / factor) */
};

/* Sweep name ("nodes", "load"); NULL for GP_SIM_SWEEP_NONE or unknown. */
const char *gp_sim_sweep_str (enum gp_sim_sweep s);
/* Parse "nodes" or "load"; 0, or GP_EINVAL with a message. */
int gp_sim_sweep_parse (const char *s, enum gp_sim_sweep *out,
                        gp_error_t *err);

enum gp_sim_request_flags_b {
    GP_SIMRQ_STRICT_TEAMS = 1, /* trace teams the spec's 'teams:' does not
                                  declare are an input error */
    GP_SIMRQ_SCHEDULE = 2,     /* renderers list every job's schedule */
    GP_SIMRQ_SERIES = 4,       /* a time series is wanted: buckets of
                                  cfg.sample_interval_s, 1 h when 0 */
};

struct gp_sim_request {
    /* Simulator settings; cfg.cluster is ignored (set from 'cluster'). */
    struct gp_sim_config cfg;
    const struct gp_cluster *cluster; /* borrowed; required */
    const char *cluster_source;  /* names the spec in messages (a path);
                                    NULL = the cluster's name */
    const struct gp_jobset *jobs; /* borrowed job set, or NULL */
    struct gp_synth_params synth; /* used when synth.n_jobs > 0 */
    const char *trace_path;       /* else the trace file */
    struct gp_trace_opts trace_opts;
    unsigned flags;               /* enum gp_sim_request_flags_b */
    /* Called with each warning about the input (bad rows skipped, trace
     * teams the spec does not declare) as soon as it is known, before
     * the run; may be NULL.  The report keeps the same facts typed.
     */
    void (*warn) (const char *msg, void *arg);
    void *warn_arg;
    enum gp_sim_sweep sweep;
    double max_p95_wait_s;        /* sweep limits, seconds */
    double max_starvation_s;
};

/* Defaults of 'gpuplan simulate': gp_sim_config_init(), FIFO with
 * backfill, auto-detected trace format, sweep limits 1 h and 24 h, and
 * for a synthetic trace (synth.n_jobs still 0) 60 arrivals per hour, a
 * median run time of 1 h (sigma of ln 1.5) and 4 teams.
 */
void gp_sim_request_init (struct gp_sim_request *rq);

/* As gp_sim_request_init, with the configuration's registry defaults
 * (restart cost, checkpoint interval, node repair) read from 'd' (the
 * registry's values when NULL; gp_sim_config_init_defaults).
 */
void gp_sim_request_init_defaults (struct gp_sim_request *rq,
                                   const struct gp_defaults *d);

/* A trace team with jobs that the cluster spec does not declare. */
struct gp_sim_undeclared {
    const char *name;   /* borrowed from the job set */
    size_t n_jobs;
};

/* One evaluated point of a sweep. */
struct gp_sim_sweep_point {
    double x;             /* node count or load factor */
    double wait_p95_s;
    double starvation_s;  /* longest wait of large or long jobs */
    size_t n_unfit;
    int ok;               /* within both limits and no unfit job */
};

struct gp_sim_report_own; /* private: what the report owns */

/* Result of gp_sim_run_request(); every pointer is owned by the report
 * (or borrowed from the request where noted) and valid until
 * gp_sim_report_destroy().
 */
struct gp_sim_report {
    char cluster[GP_NAME_MAX];     /* cluster name */
    const char *policy;            /* policy name (static) */
    enum gp_placement placement;
    uint64_t seed;
    int list_jobs;                 /* GP_SIMRQ_SCHEDULE was set */
    const struct gp_jobset *jobs;  /* the jobs run (borrowed when the
                                      request gave 'jobs') */
    /* Trace teams with jobs missing from the spec's 'teams:' list (empty
     * when the spec has no such list: it declares no quotas), and the
     * same as one message-ready list "a (3 jobs), b (1 job)".
     */
    struct gp_sim_undeclared *undeclared;
    size_t n_undeclared;
    char undeclared_list[512];
    /* Single run (sweep == GP_SIM_SWEEP_NONE). */
    const struct gp_sim_metrics *metrics;
    const struct gp_job_result *results;
    size_t n_results;
    const struct gp_sim_sample *series; /* empty unless sample_interval_s */
    size_t n_series;
    double series_interval_s;      /* interval of 'series' (see
                                      gp_sim_series_interval()) */
    int unfit_max_gpus;            /* largest request of an unfit job */
    char largest_pool[GP_NAME_MAX];
    long long largest_pool_gpus;
    /* Sweep. */
    enum gp_sim_sweep sweep;
    double max_p95_wait_s, max_starvation_s;
    struct gp_sim_sweep_point *points;
    size_t n_points;
    double answer;                 /* best node count / factor; -1 = none */
    char sweep_pool[GP_NAME_MAX];  /* first pool, the one a sweep sizes */
    int sweep_gpus_per_node;
    struct gp_sim_report_own *own;
};

/* Run the request: read or generate the jobs, check the trace's teams
 * against the spec, then run one simulation or the sweep (a binary search
 * assuming monotony; every evaluated point is kept).  On success returns
 * 0 and stores a report the caller frees with gp_sim_report_destroy().
 * Errors (nothing stored): GP_EINVAL for a bad request or, with
 * GP_SIMRQ_STRICT_TEAMS, undeclared teams; the trace reader's and
 * gp_sim_create()'s errors; GP_EINTERNAL when a conservation check fails;
 * GP_ENOMEM.
 */
int gp_sim_run_request (const struct gp_sim_request *rq,
                        struct gp_sim_report **out,
                        gp_error_t *err);

/* 0 when the answer is usable; GP_EINFEASIBLE with a message when no job
 * of the trace fits the cluster (single run) or no point of a sweep meets
 * the limits.
 */
int gp_sim_report_status (const struct gp_sim_report *r, gp_error_t *err);

/* Free a report and what it owns; NULL is ignored. */
void gp_sim_report_destroy (struct gp_sim_report *r);

/* Renderers (src/lib/report/sim_*.c).  Text and CSV/SVG results are
 * NUL-terminated strings the caller frees; NULL with GP_ENOMEM.
 */
struct json_t;
/* The 'simulate --json' document of a run or a sweep; caller owns it
 * (json_decref); NULL on allocation failure.
 */
struct json_t *gp_report_sim_json (const struct gp_sim_report *r);
/* The human report of a run, or the sweep's points and answer. */
char *gp_report_sim_text (const struct gp_sim_report *r, gp_error_t *err);
/* Time series as CSV (t_s,alloc_gpus,utilization,queue_len,running,
 * frag_gpus), one row per bucket.
 */
char *gp_report_sim_series_csv (const struct gp_sim_report *r,
                                gp_error_t *err);
/* Self-contained SVG of utilization (%) and mean queue length over time. */
char *gp_report_sim_chart_svg (const struct gp_sim_report *r,
                               gp_error_t *err);

/* ------------------------------ fill mode ----------------------------- */

/* Placement-only experiment of the FGD study (Weng et al., ATC '23):
 * pods sampled with replacement from 'pods' arrive and never leave, until
 * arrived GPU demand reaches 'until_demand' x capacity.
 */
enum gp_fill_policy {
    GP_FILL_RANDOM,
    GP_FILL_BEST_FIT,
    GP_FILL_PACKING,
    GP_FILL_FGD,
    GP_FILL_N,
};

/* Fill policy name ("fgd", ...); NULL for an unknown value.  Static. */
const char *gp_fill_policy_str (enum gp_fill_policy p);
/* Parse a fill policy name into *out; 0, or GP_ENOTFOUND with the valid
 * names in 'err'.
 */
int gp_fill_policy_parse (const char *s, enum gp_fill_policy *out,
                          gp_error_t *err);

struct gp_fill_node {
    int cpu_milli;
    int mem_mib;
    int n_gpus;
    int model;          /* index into gp_fill_input.models; -1 = none */
};

struct gp_fill_pod {
    int cpu_milli;
    int mem_mib;
    int n_gpus;         /* whole GPUs; 1 for a sharing pod */
    int gpu_milli;      /* per-GPU share 1..1000 */
    uint32_t spec_mask; /* allowed models (bit = model index); 0 = any */
};

struct gp_fill_input {
    struct gp_fill_node *nodes;
    size_t n_nodes;
    struct gp_fill_pod *pods;
    size_t n_pods;
    char **models;       /* GPU model names (<= 32) */
    size_t n_models;
};

/* Read a node list (sn,cpu_milli,memory_mib,gpu,model, or the Alibaba
 * PAI 2020 machine spec) and a pod list (Alibaba GPU 2023 columns) into
 * 'in'; free with gp_fill_input_free().  Returns 0, or GP_EIO / GP_EPARSE
 * (naming file:line) / GP_ERANGE (more than 32 GPU models) / GP_ENOMEM.
 */
int gp_fill_read (const char *nodes_path,
                  const char *pods_path,
                  struct gp_fill_input *in,
                  gp_error_t *err);
/* Free the vectors of 'in' (not 'in' itself); NULL is ignored. */
void gp_fill_input_free (struct gp_fill_input *in);

struct gp_fill_point {
    double demand_pct;     /* arrived GPU demand / capacity x 100 */
    double alloc_pct;      /* allocated GPUs / capacity x 100 */
    double frag_pct;       /* fragmented GPUs / capacity x 100 */
};

struct gp_fill_result {
    long long total_gpus;
    double final_alloc_pct;
    size_t n_arrived, n_placed, n_failed;
    struct gp_fill_point *curve; /* one per 1 % of demand; caller frees */
    size_t n_curve;
};

/* Run one fill experiment: pods sampled (seeded) from in->pods arrive
 * until the arrived GPU demand reaches 'until_demand' x capacity (a
 * fraction, e.g. 1.3), each placed by 'policy' or failed.  Fills *out
 * (free with gp_fill_result_free()); returns 0, or GP_EINVAL for a bad
 * argument or a node list without GPUs, GP_EINFEASIBLE when the pods
 * request too little GPU to ever reach the demand, GP_ENOMEM.
 */
int gp_fill_run (const struct gp_fill_input *in,
                 enum gp_fill_policy policy,
                 uint64_t seed,
                 double until_demand,   /* e.g. 1.3 */
                 struct gp_fill_result *out,
                 gp_error_t *err);
/* Free the curve of 'r' (not 'r' itself); NULL is ignored. */
void gp_fill_result_free (struct gp_fill_result *r);

/* Renderers of a fill run ('simulate --mode fill'): the JSON document
 * (caller owns it; NULL on allocation failure) and the text report
 * (caller frees; NULL with GP_ENOMEM).  'in' is the input that was run.
 */
struct json_t *gp_report_fill_json (const struct gp_fill_result *r,
                                    enum gp_fill_policy policy,
                                    uint64_t seed);
char *gp_report_fill_text (const struct gp_fill_input *in,
                           const struct gp_fill_result *r,
                           enum gp_fill_policy policy, uint64_t seed,
                           gp_error_t *err);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_SIM_H */
