/* gpuplan/trace.h - job traces: one job list read from many formats.
 *
 * Every reader turns its input into a struct gp_jobset: a vector of jobs
 * (submit time, run time at ideal placement, GPUs, team, priority class)
 * plus the table of team names the jobs refer to by index.  Readers are
 * strict: a bad row is an error naming "file:line: column 'x': problem",
 * unless the caller asked to skip bad rows, in which case the row is
 * counted in jobset->n_skipped and the first message is kept.  Nothing is
 * ever silently wrong.  Formats are documented in docs/formats/traces.md.
 */
#ifndef GPUPLAN_TRACE_H
#define GPUPLAN_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "gpuplan/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One job.  Times are seconds from the trace's origin (the first submit
 * of a trace with absolute dates is not re-based: see traces.md).
 */
struct gp_job {
    int64_t id;              /* id from the trace, else the row index */
    double submit_s;         /* arrival time */
    double duration_s;       /* run time at ideal placement (> 0) */
    int n_gpus;              /* whole GPUs requested (>= 0) */
    int gpu_milli;           /* per-GPU share, 1..1000 (1000 = whole GPU) */
    int team;                /* index into jobset->teams */
    int priority;            /* priority class, higher first (default 0) */
    int pool;                /* index of a required pool name, -1 = any */
    double ckpt_interval_s;  /* 0 = never checkpoints */
    double comm_share;       /* slowdown share when placed worse than ideal */
    uint32_t line;           /* source line, 0 when synthetic */
};

struct gp_jobset {
    struct gp_job *jobs;
    size_t n_jobs;
    size_t cap_jobs;
    char **teams;            /* team names, index = gp_job.team */
    size_t n_teams;
    char **pools;            /* required pool names, index = gp_job.pool */
    size_t n_pools;
    size_t n_skipped;        /* bad rows skipped (GP_TRACE_SKIP_BAD) */
    size_t n_ignored;        /* rows ignored by design (e.g. 0 GPUs) */
    char first_skip[GP_ERROR_TEXT_MAX]; /* message of the first skipped row */
    char format[32];         /* name of the format read */
};

enum gp_trace_format {
    GP_TRACE_AUTO = 0,    /* detect from the header */
    GP_TRACE_GENERIC,     /* documented generic CSV */
    GP_TRACE_PHILLY,      /* Philly-derived list (Pollux/Sia philly.csv) */
    GP_TRACE_TIRESIAS,    /* Tiresias simulator job list */
    GP_TRACE_POLLUX,      /* Pollux/Sia workload (name,time,application,..) */
    GP_TRACE_GAVEL,       /* Gavel msr/physical_cluster .trace (TSV) */
    GP_TRACE_ALIBABA2023, /* Alibaba GPU 2023 openb pod list */
    GP_TRACE_SACCT,       /* Slurm sacct --parsable2 */
    GP_TRACE_N_FORMATS,
};

/* Format name ("generic", "philly", ...) or NULL for an unknown value. */
const char *gp_trace_format_str (enum gp_trace_format f);

/* Parse a format name; returns 0 or GP_ENOTFOUND (with the valid names). */
int gp_trace_format_parse (const char *s,
                           enum gp_trace_format *out,
                           gp_error_t *err);

enum gp_trace_flags_b {
    GP_TRACE_SKIP_BAD = 1, /* skip (and count) bad rows instead of failing */
    GP_TRACE_KEEP_ZERO = 2, /* keep 0-GPU jobs (default: ignored, counted) */
    GP_TRACE_SACCT_SLURM = 4, /* sacct: Partition is the job's required
                                 pool and Priority its priority (a replay
                                 on the cluster it came from) */
};

struct gp_trace_opts {
    enum gp_trace_format format; /* GP_TRACE_AUTO to detect */
    unsigned flags;              /* enum gp_trace_flags_b */
    size_t limit;                /* stop after this many jobs; 0 = all */
    /* gavel: the throughput table (gpu_type,job_type,scale_factor,
     * steps_per_s; traces/gavel/throughputs.csv) and the GPU type whose
     * throughput gives run times (NULL = "v100").
     */
    const char *gavel_throughputs;
    const char *gavel_gpu;
    /* pollux: the application profiles directory (<app>/placements.csv,
     * <app>/validation-<batch>.csv; traces/pollux/profiles).
     */
    const char *pollux_profiles;
};

/* Read the trace at 'path'.  Returns a job set the caller frees with
 * gp_jobset_destroy(), or NULL with 'err' naming file:line.  Jobs are
 * returned in file order (the simulator sorts by submit time itself).
 */
struct gp_jobset *gp_trace_read (const char *path,
                                 const struct gp_trace_opts *opts,
                                 gp_error_t *err);

/* Same from memory; 'name' names the input in messages. */
struct gp_jobset *gp_trace_parse (const char *data,
                                  size_t len,
                                  const char *name,
                                  const struct gp_trace_opts *opts,
                                  gp_error_t *err);

/* Detect the format from the first line of 'data' (the header). */
enum gp_trace_format gp_trace_detect (const char *data, size_t len);

/* An empty job set, for callers that build jobs themselves; NULL when
 * out of memory.  Free with gp_jobset_destroy().
 */
struct gp_jobset *gp_jobset_create (void);
/* Free a job set, its jobs and names; NULL is ignored. */
void gp_jobset_destroy (struct gp_jobset *js);

/* Append a copy of 'job'; returns 0 or GP_ENOMEM. */
int gp_jobset_add (struct gp_jobset *js, const struct gp_job *job);

/* Index of team 'name', adding it when new; -1 on allocation failure. */
int gp_jobset_team (struct gp_jobset *js, const char *name);

/* Index of required pool 'name', adding it when new; -1 on failure. */
int gp_jobset_pool (struct gp_jobset *js, const char *name);

/* ---------------------------- synthetic ------------------------------ */

/* Poisson arrivals; GPU counts from a discrete distribution; durations
 * log-normal (median, sigma of ln).  Deterministic for a seed.
 */
struct gp_synth_params {
    size_t n_jobs;
    uint64_t seed;
    double arrival_rate_per_s;   /* Poisson rate, jobs per second */
    const int *gpu_sizes;        /* NULL = Philly mix (traces.md) */
    const double *gpu_weights;   /* probabilities, same length */
    size_t n_sizes;
    double duration_median_s;    /* log-normal median */
    double duration_sigma;       /* log-normal sigma of ln(duration) */
    double duration_max_s;       /* clamp; 0 = none */
    int n_teams;                 /* teams "t0".."t{n-1}", uniform; >= 1 */
};

/* Generate a job set; NULL with 'err' on bad parameters. */
struct gp_jobset *gp_trace_synth (const struct gp_synth_params *p,
                                  gp_error_t *err);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_TRACE_H */
