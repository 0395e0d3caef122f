/* usage_private.h - what the usage readers share: the accumulator they
 * add GPU-hours to (team x pool x QOS cells), input helpers and the
 * GPU resource names of Kubernetes.  Internal to the usage module.
 */
#ifndef GPUPLAN_USAGE_PRIVATE_H
#define GPUPLAN_USAGE_PRIVATE_H

#include <jansson.h>
#include <stddef.h>

#include "gpuplan/usage.h"

#define GP__USAGE_UNASSIGNED "unassigned"

struct gp__ucell {
    int team, pool, qos;
    double gpu_hours;
};

struct gp__uname {
    char **v;
    size_t n;
};

struct gp__usage_acc {
    const char *name;             /* the input, for messages */
    double until_s;               /* < 0: none */
    struct gp__ucell *cells;
    size_t n_cells, cap_cells;
    struct gp__uname teams, pools, qos;
    double *util_sum, *util_w;    /* per team (n teams) */
    size_t *items;                /* per team */
    size_t cap_teams;
    double start_s, end_s;        /* +inf / -inf until something counts */
    double idle_gpu_hours;
    double step_s;
    size_t n_counted, n_running, n_pending, n_no_gpu;
    json_t *nodes;                /* kubectl nodes: name -> pool (object) */
};

/* Add 'gpu_hours' (>= 0) of 'team' in 'pool' (NULL/"" = unassigned) under
 * 'qos' (NULL = none); counts one item for the team when 'item'.  0 or
 * GP_ENOMEM.
 */
int gp__usage_add (struct gp__usage_acc *a, const char *team,
                   const char *pool, const char *qos, double gpu_hours,
                   int item, gp_error_t *err);
/* Add a utilization sample 'u' (0..1) of weight 'w' to 'team'. */
int gp__usage_util (struct gp__usage_acc *a, const char *team, double u,
                    double w, gp_error_t *err);
/* Widen the period to [t0, t1]. */
void gp__usage_span (struct gp__usage_acc *a, double t0, double t1);

/* Seconds since 1970 of "YYYY-MM-DDTHH:MM:SS" with an optional "Z", or
 * -1 when malformed.
 */
double gp__usage_time (const char *s);

/* The pool of Kubernetes node 'node' from the nodes file (its
 * gpuplan.io/pool label), or NULL.
 */
const char *gp__usage_node_pool (const struct gp__usage_acc *a,
                                 const char *node);
/* Read `kubectl get nodes -o json` items (kind Node) of 'root' into the
 * node -> pool map; items of other kinds are skipped.  'name' for
 * messages.  0 or an error (GP_EPARSE with the JSON path).
 */
int gp__usage_nodes_from (struct gp__usage_acc *a, const json_t *root,
                          const char *name, gp_error_t *err);

/* GPUs that one unit of Kubernetes extended resource 'res' stands for:
 * 1 for whole-device resources, slices/7 for nvidia.com/mig-<g>g.<mem>
 * profiles, 0 for anything that is not a GPU.
 */
double gp__usage_k8s_gpu_weight (const char *res);

/* The readers: add everything of the parsed input to 'a'. */
int gp__usage_kubectl (struct gp__usage_acc *a, const json_t *root,
                       gp_error_t *err);
int gp__usage_prometheus (struct gp__usage_acc *a, const json_t *root,
                          gp_error_t *err);
int gp__usage_sacct (struct gp__usage_acc *a, const char *data, size_t len,
                     gp_error_t *err);

/* The whole of 'path' ("-" = standard input) in a NUL-terminated buffer
 * the caller frees; NULL with 'err' (GP_EIO).
 */
char *gp__usage_slurp (const char *path, size_t *len, gp_error_t *err);

#endif
