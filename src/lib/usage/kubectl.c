/* kubectl.c - usage from `kubectl get pods -A -o json`: GPU-hours per
 * namespace = the pod's effective GPU request x its running time.
 *
 * The effective request follows Kubernetes' rule for every resource:
 * max(largest init container, sum of app containers) plus spec.overhead;
 * a container's request is resources.requests[r], else resources.limits[r]
 * (extended resources default their request to the limit).  The running
 * time is status.startTime to the latest state.terminated.finishedAt of
 * its containers, or the request's 'until' for a pod still running.
 * Rules and the list of GPU resources: docs/formats/usage.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usage_private.h"

/* Whole-device GPU and accelerator resources of the device plugins. */
static const char *const whole_gpu[] = {
    "nvidia.com/gpu",     "amd.com/gpu",         "gpu.intel.com/i915",
    "gpu.intel.com/xe",   "habana.ai/gaudi",     "google.com/tpu",
    "aws.amazon.com/neuron", NULL,
};

double gp__usage_k8s_gpu_weight (const char *res)
{
    for (int i = 0; whole_gpu[i]; i++)
        if (strcmp (res, whole_gpu[i]) == 0)
            return 1;
    /* MIG (mixed strategy): nvidia.com/mig-<g>g.<mem>gb, g of 7 slices */
    if (strncmp (res, "nvidia.com/mig-", 15) == 0) {
        char *end;
        long g = strtol (res + 15, &end, 10);
        if (end != res + 15 && *end == 'g' && g >= 1 && g <= 7)
            return (double)g / 7.0;
        return -1;
    }
    return 0;
}

#define MAX_RES 16

/* GPU resources of one container or pod, by resource name. */
struct gres {
    const char *name[MAX_RES];
    double n[MAX_RES];
    size_t k;
};

static double *slot (struct gres *g, const char *name)
{
    for (size_t i = 0; i < g->k; i++)
        if (strcmp (g->name[i], name) == 0)
            return &g->n[i];
    if (g->k == MAX_RES)
        return NULL;
    g->name[g->k] = name;
    g->n[g->k] = 0;
    return &g->n[g->k++];
}

/* A whole count of extended resource: a JSON integer or a string of
 * digits.  -1 when it is anything else.
 */
static double count_of (const json_t *v)
{
    if (json_is_integer (v))
        return json_integer_value (v) >= 0 ? (double)json_integer_value (v)
                                           : -1;
    const char *s = json_string_value (v);
    if (!s || !*s || strlen (s) > 9)
        return -1;
    for (const char *p = s; *p; p++)
        if (*p < '0' || *p > '9')
            return -1;
    return (double)strtol (s, NULL, 10);
}

/* The GPU resources of the mapping 'res' (requests, limits or overhead)
 * into 'out' (resources already there are kept when 'keep').
 */
static int gpu_map (struct gp__usage_acc *a, const json_t *res,
                    const char *path, struct gres *out, int keep,
                    gp_error_t *err)
{
    if (!res)
        return 0;
    if (!json_is_object (res))
        return gp_errprintf (err, GP_EPARSE, "%s: %s: expected a mapping",
                             a->name, path);
    const char *key;
    const json_t *v;
    json_object_foreach ((json_t *)res, key, v) {
        double w = gp__usage_k8s_gpu_weight (key);
        if (w < 0)
            return gp_errprintf (err, GP_EPARSE,
                                 "%s: %s.%s: not a MIG profile "
                                 "nvidia.com/mig-<g>g.<memory>gb",
                                 a->name, path, key);
        if (w == 0)
            continue;
        double n = count_of (v);
        if (n < 0)
            return gp_errprintf (err, GP_EPARSE,
                                 "%s: %s.%s: expected a whole number of "
                                 "devices",
                                 a->name, path, key);
        double *s = slot (out, key);
        if (!s)
            return gp_errprintf (err, GP_EPARSE,
                                 "%s: %s: more than %d GPU resources",
                                 a->name, path, MAX_RES);
        if (!keep || *s == 0)
            *s = n;
    }
    return 0;
}

/* Requests (else limits) of the containers of 'list' (spec.containers or
 * spec.initContainers): summed into 'sum', maximum into 'max'.
 */
static int containers (struct gp__usage_acc *a, const json_t *list,
                       const char *path, struct gres *sum, struct gres *max,
                       gp_error_t *err)
{
    if (!list)
        return 0;
    if (!json_is_array (list))
        return gp_errprintf (err, GP_EPARSE, "%s: %s: expected a list",
                             a->name, path);
    size_t i;
    const json_t *c;
    json_array_foreach (list, i, c) {
        const json_t *r = json_object_get (c, "resources");
        struct gres one = {.k = 0};
        char p[200];
        snprintf (p, sizeof p, "%s[%zu].resources.requests", path, i);
        int rc = gpu_map (a, json_object_get (r, "requests"), p, &one, 0,
                          err);
        snprintf (p, sizeof p, "%s[%zu].resources.limits", path, i);
        if (!rc)
            rc = gpu_map (a, json_object_get (r, "limits"), p, &one, 1, err);
        if (rc)
            return rc;
        for (size_t k = 0; k < one.k; k++) {
            double *s = sum ? slot (sum, one.name[k]) : NULL;
            double *m = max ? slot (max, one.name[k]) : NULL;
            if (s)
                *s += one.n[k];
            if (m && one.n[k] > *m)
                *m = one.n[k];
        }
    }
    return 0;
}

/* The effective GPUs of pod 'spec' (weighted: a MIG slice counts g/7). */
static int pod_gpus (struct gp__usage_acc *a, const json_t *spec, size_t i,
                     double *gpus, gp_error_t *err)
{
    struct gres app = {.k = 0}, init = {.k = 0}, over = {.k = 0};
    char p[96];
    snprintf (p, sizeof p, "items[%zu].spec.containers", i);
    int rc = containers (a, json_object_get (spec, "containers"), p, &app,
                         NULL, err);
    snprintf (p, sizeof p, "items[%zu].spec.initContainers", i);
    if (!rc)
        rc = containers (a, json_object_get (spec, "initContainers"), p,
                         NULL, &init, err);
    snprintf (p, sizeof p, "items[%zu].spec.overhead", i);
    if (!rc)
        rc = gpu_map (a, json_object_get (spec, "overhead"), p, &over, 0,
                      err);
    if (rc)
        return rc;
    for (size_t k = 0; k < init.k; k++) {
        double *s = slot (&app, init.name[k]);
        if (s && init.n[k] > *s)
            *s = init.n[k];
    }
    for (size_t k = 0; k < over.k; k++) {
        double *s = slot (&app, over.name[k]);
        if (s)
            *s += over.n[k];
    }
    *gpus = 0;
    for (size_t k = 0; k < app.k; k++)
        *gpus += app.n[k] * gp__usage_k8s_gpu_weight (app.name[k]);
    return 0;
}

/* Latest state.terminated.finishedAt over 'list' (container statuses)
 * into '*end' (unchanged when none); -1 and 'err' on a bad time.
 */
static int latest_end (struct gp__usage_acc *a, const json_t *list,
                       const char *path, double *end, gp_error_t *err)
{
    size_t i;
    const json_t *c;
    json_array_foreach (list, i, c) {
        const json_t *t = json_object_get (json_object_get (c, "state"),
                                           "terminated");
        const json_t *f = json_object_get (t, "finishedAt");
        if (!t || !f || json_is_null (f))
            continue;
        double v = gp__usage_time (json_string_value (f));
        if (v < 0)
            return gp_errprintf (err, GP_EPARSE,
                                 "%s: %s[%zu].state.terminated.finishedAt: "
                                 "not an RFC 3339 time",
                                 a->name, path, i);
        *end = fmax (*end, v);
    }
    return 0;
}

static int one_pod (struct gp__usage_acc *a, const json_t *pod, size_t i,
                    gp_error_t *err)
{
    const json_t *md = json_object_get (pod, "metadata");
    const json_t *spec = json_object_get (pod, "spec");
    const json_t *st = json_object_get (pod, "status");
    const char *ns = json_string_value (json_object_get (md, "namespace"));
    const char *name = json_string_value (json_object_get (md, "name"));
    const char *phase = json_string_value (json_object_get (st, "phase"));
    if (!ns || !name)
        return gp_errprintf (err, GP_EPARSE,
                             "%s: items[%zu].metadata: needs name and "
                             "namespace",
                             a->name, i);
    if (!phase)
        return gp_errprintf (err, GP_EPARSE,
                             "%s: items[%zu].status.phase: missing", a->name,
                             i);
    double gpus;
    int rc = pod_gpus (a, spec, i, &gpus, err);
    if (rc)
        return rc;
    if (strcmp (phase, "Pending") == 0) {
        a->n_pending++;
        return 0;
    }
    if (!(gpus > 0)) {
        a->n_no_gpu++;
        return 0;
    }
    int running = strcmp (phase, "Running") == 0
                  || strcmp (phase, "Unknown") == 0;
    if (!running && strcmp (phase, "Succeeded") && strcmp (phase, "Failed"))
        return gp_errprintf (err, GP_EPARSE,
                             "%s: items[%zu].status.phase: '%s' is not a "
                             "pod phase",
                             a->name, i, phase);
    double start = gp__usage_time (
        json_string_value (json_object_get (st, "startTime")));
    if (start < 0)
        return gp_errprintf (err, GP_EPARSE,
                             "%s: items[%zu].status.startTime: missing or "
                             "not an RFC 3339 time (pod %s/%s is %s)",
                             a->name, i, ns, name, phase);
    double end = -1;
    if (running) {
        if (a->until_s < 0)
            return gp_errprintf (err, GP_EINVAL,
                                 "%s: items[%zu]: pod %s/%s is %s: give "
                                 "--until (the end of its usage)",
                                 a->name, i, ns, name, phase);
        end = a->until_s;
    } else {
        char p[64];
        snprintf (p, sizeof p, "items[%zu].status.containerStatuses", i);
        rc = latest_end (a, json_object_get (st, "containerStatuses"), p,
                         &end, err);
        snprintf (p, sizeof p, "items[%zu].status.initContainerStatuses", i);
        if (!rc)
            rc = latest_end (a, json_object_get (st, "initContainerStatuses"),
                             p, &end, err);
        if (rc)
            return rc;
        if (end < 0) { /* rejected at admission: no container ran */
            a->n_pending++;
            return 0;
        }
    }
    if (end < start)
        return gp_errprintf (err, GP_EPARSE,
                             "%s: items[%zu]: pod %s/%s ends before its "
                             "status.startTime",
                             a->name, i, ns, name);
    const char *pool = json_string_value (json_object_get (
        json_object_get (spec, "nodeSelector"), "gpuplan.io/pool"));
    if (!pool)
        pool = gp__usage_node_pool (
            a, json_string_value (json_object_get (spec, "nodeName")));
    rc = gp__usage_add (a, ns, pool, NULL, gpus * (end - start) / 3600, 1,
                        err);
    if (rc)
        return rc;
    gp__usage_span (a, start, end);
    a->n_counted++;
    a->n_running += (size_t)running;
    return 0;
}

int gp__usage_kubectl (struct gp__usage_acc *a, const json_t *root,
                       gp_error_t *err)
{
    const json_t *items = json_object_get (root, "items");
    if (!json_is_array (items))
        return gp_errprintf (err, GP_EPARSE,
                             "%s: items: expected the list of 'kubectl get "
                             "pods -A -o json'",
                             a->name);
    int rc = gp__usage_nodes_from (a, root, a->name, err);
    size_t i, pods = 0;
    const json_t *it;
    json_array_foreach (items, i, it) {
        if (rc)
            break;
        const char *kind = json_string_value (json_object_get (it, "kind"));
        if (kind && strcmp (kind, "Pod") != 0)
            continue; /* Nodes (read above) and other kinds */
        pods++;
        rc = one_pod (a, it, i, err);
    }
    if (!rc && pods == 0 && json_array_size (items) > 0)
        rc = gp_errprintf (err, GP_EPARSE,
                           "%s: items: no Pod (the output of 'kubectl get "
                           "pods -A -o json' is wanted; a nodes list goes "
                           "to --nodes)",
                           a->name);
    return rc;
}
