/* gpuplan/usage.h - observed GPU usage: GPU-hours per team (and per pool)
 * read from what a cluster already records, for chargeback and as the
 * baseline a plan grows from.
 *
 * Three inputs (docs/formats/usage.md): `kubectl get pods -A -o json`
 * (GPU requests of each pod x its running time), Slurm `sacct
 * --parsable2` (AllocTRES GPUs x elapsed time) and a Prometheus
 * `query_range` result of one DCGM exporter metric (GPUs seen allocated
 * to a team x the sample step, with their mean utilization).  The result
 * is deterministic: no wall clock is read; a pod or job still running
 * ends at the request's 'until', which is then required.
 */
#ifndef GPUPLAN_USAGE_H
#define GPUPLAN_USAGE_H

#include <stddef.h>

#include "gpuplan/catalog.h"
#include "gpuplan/cluster.h"
#include "gpuplan/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GP_USAGE_NAME 128      /* team, pool and QOS names */

enum gp_usage_format {
    GP_USAGE_AUTO = 0,    /* detect from the content */
    GP_USAGE_KUBECTL,     /* kubectl get pods -A -o json (a List) */
    GP_USAGE_SACCT,       /* sacct --parsable2 with a header row */
    GP_USAGE_PROMETHEUS,  /* Prometheus query_range JSON (matrix) */
};

/* "auto", "kubectl", "sacct", "prometheus"; "?" outside the enum. */
const char *gp_usage_format_str (enum gp_usage_format f);

/* Parse a format name into '*out'; 0, or GP_ENOTFOUND naming the valid
 * names ('*out' untouched).
 */
int gp_usage_format_parse (const char *s, enum gp_usage_format *out,
                           gp_error_t *err);

/* What to read.  Only 'trace_path' is required. */
struct gp_usage_request {
    const char *trace_path;       /* the input; "-" reads standard input */
    enum gp_usage_format format;  /* GP_USAGE_AUTO: detect */
    /* End of running pods and jobs: "YYYY-MM-DDTHH:MM:SS" with an
     * optional trailing "Z" (the input's own clock: UTC for Kubernetes,
     * the cluster's local time for sacct).  NULL = none; then any running
     * pod or job is an error.
     */
    const char *until;
    /* Price of one GPU-hour in USD for every pool (> 0), overriding the
     * catalog; 0 = price each pool through the pricing rule (price.h)
     * from 'cluster' and 'catalog'; with neither, costs are unknown.
     */
    double rate_usd;
    /* Optional `kubectl get nodes -o json`: node name -> its
     * gpuplan.io/pool label (pods without the node selector; Prometheus
     * series by their Hostname).  NULL = none.
     */
    const char *nodes_path;
    const struct gp_cluster *cluster; /* optional: pool -> accelerator */
    const struct gp_catalog *catalog; /* needed with 'cluster' */
};

/* GPU-hours of one team in one pool. */
struct gp_usage_pool {
    char pool[GP_USAGE_NAME];     /* "unassigned" when unknown */
    double gpu_hours;
    double cost_usd;              /* < 0: no rate for this pool */
};

struct gp_usage_team {
    char team[GP_USAGE_NAME];
    double gpu_hours;             /* sum over pools */
    double cost_usd;              /* < 0 when some hours have no rate */
    double unpriced_gpu_hours;    /* hours in pools without a rate */
    double utilization;           /* mean 0..1 (Prometheus), < 0 unknown */
    struct gp_usage_pool *pools;  /* sorted by pool name */
    size_t n_pools;
    struct gp_usage_pool *qos;    /* sacct: GPU-hours by QOS ('pool' holds
                                     the QOS name; cost_usd unused) */
    size_t n_qos;
    size_t n_items;               /* pods, jobs or GPU series counted */
};

/* The rate of one pool and where it comes from. */
struct gp_usage_rate {
    char pool[GP_USAGE_NAME];
    double usd_per_gpu_hour;      /* < 0: none */
    char basis[16];               /* "flag", "catalog" or "none" */
    char source[160];             /* "p5.48xlarge on_demand 2025-06", or
                                     why there is none */
};

struct gp_usage {
    enum gp_usage_format format;  /* the format read */
    char input[GP_NAME_MAX * 4];  /* the input's name ("<stdin>" for -) */
    double start_s, end_s;        /* period, seconds since 1970 in the
                                     input's clock */
    double gpu_hours;             /* all teams */
    double cost_usd;              /* all teams; < 0 when any is unknown */
    double idle_gpu_hours;        /* Prometheus: GPUs with no team */
    double step_s;                /* Prometheus: the sample step */
    struct gp_usage_team *teams;  /* sorted by team name */
    size_t n_teams;
    struct gp_usage_rate *rates;  /* one per pool seen, sorted */
    size_t n_rates;
    size_t n_counted;             /* pods/jobs/series with GPU-hours */
    size_t n_running;             /* of them, ended at 'until' */
    size_t n_pending;             /* never started: 0 GPU-hours */
    size_t n_no_gpu;              /* started, no GPU resource: 0 */
};

/* Read the usage input of 'req'.  Returns a result the caller frees with
 * gp_usage_destroy(), or NULL with 'err': GP_EINVAL for a bad request
 * (NULL path, bad 'until' or 'rate_usd', a running pod or job without
 * 'until'), GP_EIO when a file cannot be read, GP_EPARSE for bad input
 * naming file:line and column (sacct) or the JSON path (kubectl,
 * Prometheus), GP_ENOMEM.  A pool the catalog cannot price is not an
 * error: its rate is "none" and the cost of its hours unknown.
 */
struct gp_usage *gp_usage_read (const struct gp_usage_request *req,
                                gp_error_t *err);

/* Free 'u' and everything it owns; NULL is a no-op. */
void gp_usage_destroy (struct gp_usage *u);

/* Mean GPUs of team 'i' over the period: gpu_hours / period hours (0
 * for an empty period).
 */
double gp_usage_team_mean_gpus (const struct gp_usage *u, size_t i);

struct json_t;

/* The JSON document of 'u' (docs/formats/usage.md); the caller releases
 * it with json_decref().  NULL for a NULL 'u' or out of memory.
 */
struct json_t *gp_report_usage_json (const struct gp_usage *u);

/* The chargeback table of 'u' as text; the caller frees it.  NULL with
 * 'err' (GP_EINVAL for NULL 'u', GP_ENOMEM).
 */
char *gp_report_usage_text (const struct gp_usage *u, gp_error_t *err);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_USAGE_H */
