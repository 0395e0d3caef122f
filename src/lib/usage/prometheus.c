/* prometheus.c - usage from a Prometheus query_range result of one DCGM
 * exporter metric: GPU-hours per team = the GPUs seen allocated to the
 * team at each sample x the sample step; utilization (the metric's value)
 * averaged beside it.
 *
 * A series is one GPU (UUID, else host and gpu index; a MIG instance
 * adds GPU_I_ID and counts as its slices of 7).  Its team is the label
 * 'team', else 'namespace', else 'exported_namespace' (dcgm-exporter's
 * Kubernetes pod mapping, renamed when scraped without honorLabels); a
 * series with none is an idle GPU.  When two series claim one GPU at one
 * timestamp (a pod replaced between scrapes) the first in the result
 * counts.  Rules: docs/formats/usage.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usage_private.h"

struct smp {
    double t;
    double v;      /* NaN: no value */
    int gpu;       /* interned GPU identity */
    int series;
};

struct ser {
    const char *team;  /* NULL = idle */
    const char *pool;
    double weight;     /* GPUs this series stands for */
    size_t kept;       /* samples counted */
    double usum;       /* sum of utilization (0..1) of kept samples */
    size_t un;
};

static const char *label (const json_t *m, const char *k)
{
    const char *v = json_string_value (json_object_get (m, k));
    return v && *v ? v : NULL;
}

/* Scale of the metric's values to 0..1, 0 for a metric read for
 * allocation only, -1 for a name that is not a DCGM exporter metric.
 */
static double metric_scale (const char *name)
{
    if (strcmp (name, "DCGM_FI_DEV_GPU_UTIL") == 0)
        return 0.01;
    if (strcmp (name, "DCGM_FI_PROF_GR_ENGINE_ACTIVE") == 0
        || strcmp (name, "DCGM_FI_PROF_SM_ACTIVE") == 0)
        return 1;
    return strncmp (name, "DCGM_", 5) == 0 ? 0 : -1;
}

static int cmp_smp (const void *x, const void *y)
{
    const struct smp *a = x, *b = y;
    if (a->gpu != b->gpu)
        return a->gpu < b->gpu ? -1 : 1;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return (a->series > b->series) - (a->series < b->series);
}

/* The interned index of the GPU of series 'k' (metric 'm') into '*out';
 * 'ids' maps an identity string to its index (a hash table, so that
 * tens of thousands of series stay linear).
 */
static int gpu_id (json_t *ids, const json_t *m, size_t k, const char *name,
                   int *out, gp_error_t *err)
{
    const char *uuid = label (m, "UUID");
    const char *host = label (m, "Hostname");
    if (!host)
        host = label (m, "hostname");
    if (!host)
        host = label (m, "instance");
    const char *gpu = label (m, "gpu");
    const char *mig = label (m, "GPU_I_ID");
    char b[256];
    if (uuid)
        snprintf (b, sizeof b, "%s/%s", uuid, mig ? mig : "");
    else if (host && gpu)
        snprintf (b, sizeof b, "%s/%s/%s", host, gpu, mig ? mig : "");
    else
        return gp_errprintf (err, GP_EPARSE,
                             "%s: data.result[%zu].metric: no UUID, nor "
                             "Hostname and gpu, to tell the GPU",
                             name, k);
    const json_t *hit = json_object_get (ids, b);
    if (hit)
        return *out = (int)json_integer_value (hit), 0;
    *out = (int)json_object_size (ids);
    if (json_object_set_new (ids, b, json_integer (*out)) != 0)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    return 0;
}

/* Series 'k' into 'sr' and its samples appended to 's'. */
static int one_series (struct gp__usage_acc *a, const json_t *r, size_t k,
                       json_t *ids, struct ser *sr,
                       struct smp **s, size_t *n, size_t *cap,
                       gp_error_t *err)
{
    const json_t *m = json_object_get (r, "metric");
    const json_t *vals = json_object_get (r, "values");
    if (!json_is_object (m) || !json_is_array (vals))
        return gp_errprintf (err, GP_EPARSE,
                             "%s: data.result[%zu]: needs 'metric' and "
                             "'values' (a matrix series)",
                             a->name, k);
    int gpu = -1;
    int rc = gpu_id (ids, m, k, a->name, &gpu, err);
    if (rc)
        return rc;
    sr->team = label (m, "team");
    if (!sr->team)
        sr->team = label (m, "namespace");
    if (!sr->team)
        sr->team = label (m, "exported_namespace");
    sr->pool = label (m, "pool");
    if (!sr->pool) {
        const char *h = label (m, "Hostname");
        sr->pool = gp__usage_node_pool (a, h ? h : label (m, "hostname"));
    }
    sr->weight = 1;
    const char *prof = label (m, "GPU_I_PROFILE");
    if (prof) {
        char res[96];
        snprintf (res, sizeof res, "nvidia.com/mig-%s", prof);
        if ((sr->weight = gp__usage_k8s_gpu_weight (res)) <= 0)
            return gp_errprintf (err, GP_EPARSE,
                                 "%s: data.result[%zu].metric.GPU_I_PROFILE:"
                                 " '%s' is not a MIG profile <g>g.<mem>gb",
                                 a->name, k, prof);
    }
    size_t i;
    const json_t *p;
    json_array_foreach (vals, i, p) {
        const json_t *tv = json_array_get (p, 0);
        const char *vs = json_string_value (json_array_get (p, 1));
        if (json_array_size (p) != 2 || !json_is_number (tv) || !vs)
            return gp_errprintf (err, GP_EPARSE,
                                 "%s: data.result[%zu].values[%zu]: "
                                 "expected [unix_seconds, \"value\"]",
                                 a->name, k, i);
        char *e;
        double v = strtod (vs, &e);
        if (e == vs || *e)
            return gp_errprintf (err, GP_EPARSE,
                                 "%s: data.result[%zu].values[%zu][1]: '%s' "
                                 "is not a number",
                                 a->name, k, i, vs);
        if (*n == *cap) {
            size_t nc = *cap ? 2 * *cap : 1024;
            struct smp *ns = realloc (*s, nc * sizeof *ns);
            if (!ns)
                return gp_errprintf (err, GP_ENOMEM, "out of memory");
            *s = ns;
            *cap = nc;
        }
        (*s)[(*n)++] = (struct smp){json_number_value (tv), v, gpu, (int)k};
    }
    return 0;
}

/* The sample step: the smallest gap between samples of one series. */
static double step_of (const struct smp *s, size_t n)
{
    double step = INFINITY;
    for (size_t i = 1; i < n; i++)
        if (s[i].series == s[i - 1].series && s[i].t > s[i - 1].t)
            step = fmin (step, s[i].t - s[i - 1].t);
    return step;
}

static int check_root (struct gp__usage_acc *a, const json_t *root,
                       const json_t **res, gp_error_t *err)
{
    const char *st = json_string_value (json_object_get (root, "status"));
    if (!st || strcmp (st, "success") != 0) {
        const char *e = json_string_value (json_object_get (root, "error"));
        return gp_errprintf (err, GP_EPARSE,
                             "%s: status: '%s', not success%s%s", a->name,
                             st ? st : "(missing)", e ? ": " : "",
                             e ? e : "");
    }
    const json_t *d = json_object_get (root, "data");
    const char *rt = json_string_value (json_object_get (d, "resultType"));
    if (!rt || strcmp (rt, "matrix") != 0)
        return gp_errprintf (err, GP_EPARSE,
                             "%s: data.resultType: '%s', expected matrix "
                             "(a query_range result)",
                             a->name, rt ? rt : "(missing)");
    *res = json_object_get (d, "result");
    if (!json_is_array (*res))
        return gp_errprintf (err, GP_EPARSE, "%s: data.result: expected a "
                             "list", a->name);
    return 0;
}

static int tally (struct gp__usage_acc *a, struct ser *sr, size_t ns,
                  double scale, gp_error_t *err)
{
    for (size_t k = 0; k < ns; k++) {
        double h = sr[k].weight * (double)sr[k].kept * a->step_s / 3600;
        if (!sr[k].kept)
            continue;
        if (!sr[k].team) {
            a->idle_gpu_hours += h;
            continue;
        }
        int rc = gp__usage_add (a, sr[k].team, sr[k].pool, NULL, h, 1, err);
        if (!rc && scale > 0 && sr[k].un)
            rc = gp__usage_util (a, sr[k].team, sr[k].usum / (double)sr[k].un,
                                 sr[k].weight * (double)sr[k].un, err);
        if (rc)
            return rc;
        a->n_counted++;
    }
    return 0;
}

int gp__usage_prometheus (struct gp__usage_acc *a, const json_t *root,
                          gp_error_t *err)
{
    const json_t *res = NULL;
    int rc = check_root (a, root, &res, err);
    if (rc)
        return rc;
    size_t ns = json_array_size (res);
    if (ns == 0)
        return gp_errprintf (err, GP_EPARSE, "%s: data.result: no series",
                             a->name);
    const char *metric = label (json_object_get (json_array_get (res, 0),
                                                 "metric"),
                                "__name__");
    double scale = metric ? metric_scale (metric) : -1;
    if (scale < 0)
        return gp_errprintf (err, GP_EPARSE,
                             "%s: data.result[0].metric.__name__: '%s' is "
                             "not a DCGM exporter metric (query one, e.g. "
                             "DCGM_FI_DEV_GPU_UTIL)",
                             a->name, metric ? metric : "(missing)");
    struct ser *sr = calloc (ns, sizeof *sr);
    json_t *ids = json_object ();
    struct smp *s = NULL;
    size_t n = 0, cap = 0;
    if (!sr || !ids) {
        free (sr);
        json_decref (ids);
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    }
    for (size_t k = 0; k < ns && !rc; k++) {
        const json_t *r = json_array_get (res, k);
        const char *nm = label (json_object_get (r, "metric"), "__name__");
        if (!nm || strcmp (nm, metric) != 0)
            rc = gp_errprintf (err, GP_EPARSE,
                               "%s: data.result[%zu].metric.__name__: '%s', "
                               "but result[0] is %s: query one metric",
                               a->name, k, nm ? nm : "(missing)", metric);
        else
            rc = one_series (a, r, k, ids, &sr[k], &s, &n, &cap, err);
    }
    if (!rc && !isfinite (a->step_s = step_of (s, n)))
        rc = gp_errprintf (err, GP_EPARSE,
                           "%s: data.result: no series has two samples, so "
                           "the step is unknown",
                           a->name);
    if (!rc) {
        qsort (s, n, sizeof *s, cmp_smp);
        double t0 = INFINITY, t1 = -INFINITY;
        for (size_t i = 0; i < n; i++) {
            if (i && s[i].gpu == s[i - 1].gpu && s[i].t == s[i - 1].t)
                continue; /* the GPU counts once per timestamp */
            struct ser *q = &sr[s[i].series];
            q->kept++;
            if (isfinite (s[i].v) && scale > 0) {
                q->usum += s[i].v * scale;
                q->un++;
            }
            t0 = fmin (t0, s[i].t);
            t1 = fmax (t1, s[i].t);
        }
        gp__usage_span (a, t0, t1 + a->step_s);
        rc = tally (a, sr, ns, scale, err);
    }
    json_decref (ids);
    free (s);
    free (sr);
    return rc;
}
