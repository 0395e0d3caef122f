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

const char *gp_placement_str (enum gp_placement p);
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
    double las_threshold_gpu_s; /* 2D-LAS queue threshold; 0 = 3600 GPU-s */
    int large_job_gpus;        /* starvation class; 0 = largest node */
    double long_job_s;         /* starvation class; 0 = 86400 s */
    gp_progress_f progress;    /* may be NULL */
    void *progress_arg;
};

/* Defaults documented in docs/model/simulator.md; the restart cost, the
 * checkpoint interval and the node repair time are the registry's
 * reliability.restart_s, reliability.checkpoint_interval_s and
 * reliability.node_repair_h (docs/model/defaults.md).  Overwrites 'cfg'.
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

/* Build a simulator for 'js' on 'cfg->cluster'.  The job set and cluster
 * are borrowed and must outlive the simulator.  Returns NULL with 'err'
 * (GP_EINVAL for a bad config, GP_ENOTFOUND for a job naming an unknown
 * pool, GP_ENOMEM).
 */
struct gp_sim *gp_sim_create (const struct gp_sim_config *cfg,
                              const struct gp_jobset *js,
                              gp_error_t *err);

/* Run to completion.  Returns 0, or GP_EINTERNAL when a conservation
 * check fails (the metrics are still available).
 */
int gp_sim_run (struct gp_sim *s, gp_error_t *err);

/* Borrowed views, valid until gp_sim_destroy(). */
const struct gp_sim_metrics *gp_sim_get_metrics (const struct gp_sim *s);
const struct gp_job_result *gp_sim_get_results (const struct gp_sim *s,
                                                size_t *n);
const struct gp_sim_sample *gp_sim_get_series (const struct gp_sim *s,
                                               size_t *n);

void gp_sim_destroy (struct gp_sim *s);

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

const char *gp_fill_policy_str (enum gp_fill_policy p);
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

/* Read a node list (sn,cpu_milli,memory_mib,gpu,model) and a pod list
 * (Alibaba GPU 2023 columns) into 'in'; free with gp_fill_input_free().
 */
int gp_fill_read (const char *nodes_path,
                  const char *pods_path,
                  struct gp_fill_input *in,
                  gp_error_t *err);
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

int gp_fill_run (const struct gp_fill_input *in,
                 enum gp_fill_policy policy,
                 uint64_t seed,
                 double until_demand,   /* e.g. 1.3 */
                 struct gp_fill_result *out,
                 gp_error_t *err);
void gp_fill_result_free (struct gp_fill_result *r);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_SIM_H */
