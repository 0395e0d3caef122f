/* serving.h - what the serving target's files share (serving.c: the
 * services of a plan and the KServe InferenceService; serving_lws.c: the
 * LeaderWorkerSet of a replica that spans nodes; serving_keda.c: the KEDA
 * ScaledObject or the autoscaling/v2 HPA and the hourly steps).
 * docs/formats/export-serving.md.
 */
#ifndef GPUPLAN_EXPORT_SERVING_H
#define GPUPLAN_EXPORT_SERVING_H

#include "gpuplan/plan.h"
#include "quote.h"
#include "rdma.h"

/* The time zone of the cron windows: the plan's day profile has no zone,
 * its hours are read as UTC (docs/formats/export-serving.md).
 */
#define GP__SERVE_TZ "Etc/UTC"
/* Where the KEDA Prometheus trigger reads vLLM's metrics: the
 * prometheus-operated Service of a Prometheus Operator install in
 * namespace monitoring (an assumption; edit it for another install).
 */
#define GP__SERVE_PROM "http://prometheus-operated.monitoring.svc:9090"
/* The vLLM image of the LeaderWorkerSet (LWS's vLLM GPU example). */
#define GP__SERVE_VLLM_IMAGE "vllm/vllm-openai:v0.8.5"
/* Share of a replica's part of its nodes' CPUs and memory that its pods
 * request (the rest is left to kubelet reservations and daemonsets).
 */
#define GP__SERVE_REQUEST_SHARE 0.8

/* One cron window: replicas from hour 'start' to hour 'end' (0-23; the
 * window wraps midnight when end <= start; start != end always).
 */
struct gp__serve_step {
    int start, end;
    int replicas;
};

/* The windows of one day of 'rep' (replicas per hour from 00:00): runs of
 * consecutive hours with the same count become one window, a run that
 * reaches midnight joins the run that starts the day, and a day with one
 * count is two 12-hour windows (a window cannot start where it ends).
 * Returns the number of windows (1 to 24) written to 'out', or -1 when a
 * count is below 1 (a cron trigger needs at least one replica).
 */
int gp__serve_steps (const int rep[GP_PLAN_DAY_HOURS],
                     struct gp__serve_step out[GP_PLAN_DAY_HOURS]);

/* One service as the writers need it, every number from the plan. */
struct gp__svc {
    const char *name;         /* workload name: the object names */
    const char *ns;           /* namespace: the workload's team */
    const char *model;        /* model zoo id */
    const char *pool;         /* pool the pods are placed on */
    const char *gpu_res;      /* device-plugin resource (nvidia.com/gpu) */
    const char *precision;    /* planned serving precision */
    int gpus;                 /* GPUs per replica (tp x pp) */
    int nodes;                /* nodes per replica */
    int tp, pp;
    int max_num_seqs;
    long long cpu_m, mem;     /* per pod: CPU millicores, memory bytes
                                 (its GPUs' share of a node) */
    int rep[GP_PLAN_DAY_HOURS];   /* replicas per hour of the month */
    int trough, peak;
    int month;                /* 1-based month of the horizon */
    const char *option;       /* option name */
    /* RDMA rails a multi-node replica's pods attach (rdma.h); NULL or
     * n_rails 0 = none (one-node replicas keep their traffic in the
     * node's scale-up domain). */
    const struct gp__rdma *rdma;
};

/* The file of service 'i' of o->plan (a workload of kind inference) on
 * the cluster 'c' of the plan's option, with replicas per hour 'rep' (the
 * plan's gp_plan_service_day for the export's month): <name>.yaml added
 * to 'x'.  0, or GP_EINVAL (names, a layout the pool cannot hold, a count
 * below 1, month out of range), GP_ENOTSUP (engine, precision, pool
 * without whole NVIDIA GPUs or host size), GP_ENOMEM with 'err' set.
 */
int gp__serve_render (const struct gp_cluster *c,
                      const struct gp_export_opts *o, size_t i,
                      const int rep[GP_PLAN_DAY_HOURS], struct gp_export *x,
                      gp_error_t *err);

/* The vLLM flag for the planned precision ("--dtype=bfloat16", ...);
 * NULL when vLLM has no flag for it.
 */
const char *gp__serve_dtype_flag (const char *precision);

/* metadata: name, namespace and the gpuplan.io/workload annotation. */
void gp__serve_meta (struct gp__yaml *y, const struct gp__svc *s,
                     const char *name);
/* requests/limits of one pod (CPU, memory, GPUs, one NIC per RDMA
 * rail). */
void gp__serve_resources (struct gp__yaml *y, const struct gp__svc *s);

/* The LeaderWorkerSet of a service whose replica spans nodes. */
void gp__serve_lws (struct gp__yaml *y, const struct gp__svc *s);
/* The KEDA ScaledObject, or with 'hpa' the autoscaling/v2
 * HorizontalPodAutoscaler, scaling the service's predictor Deployment
 * (or its LeaderWorkerSet when s->nodes > 1).
 */
void gp__serve_keda (struct gp__yaml *y, const struct gp__svc *s);
void gp__serve_hpa (struct gp__yaml *y, const struct gp__svc *s);

#endif
