/* existing.c - today's cluster from files: 'existing:' naming a cluster
 * spec (the owned fleet: its pools of one accelerator) and a usage file
 * (the observed per-team demand: GPU-hours over the usage period, as mean
 * GPUs, which becomes existing.baseline, the work the plan grows from).
 *
 * Paths are relative to the plan spec.  The usage file is any input of
 * 'gpuplan usage' (docs/formats/usage.md); existing.until ends its running
 * pods or jobs.  Rules: docs/formats/plan.md, "Today's cluster from files".
 */
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gpuplan/cluster.h"
#include "gpuplan/usage.h"
#include "plan_private.h"

struct files_in {
    struct gp_plan_existing e;
    int gpus;
    char until[40];
    const json_t *lead_time, *baseline;
};

#define F(f) offsetof (struct files_in, f)
static const struct gp_field files_fields[] = {
    {"cluster", GP_F_STRING, F (e.cluster_file), GP_PLAN_TEXT, 0, 0, NULL, 0,
     0},
    {"usage", GP_F_STRING, F (e.usage_file), GP_PLAN_TEXT, 0, 0, NULL, 0, 0},
    {"until", GP_F_STRING, F (until), 40, 0, 0, NULL, 0, 0},
    {"accelerator", GP_F_STRING, F (e.accel_id), GP_PLAN_NAME, 0, 0, NULL, 0,
     0},
    {"gpus", GP_F_INT, F (gpus), 0, 0, 0, NULL, 1, 10000000},
    {"age_years", GP_F_DOUBLE, F (e.age_years), 0, 0, 0, NULL, 0, 30},
    {"delivery_lead_time", GP_F_NODE, F (lead_time), 0, 0, 0, NULL, 0, 0},
    {"baseline", GP_F_NODE, F (baseline), 0, 0, 0, NULL, 0, 0},
    {NULL, 0, 0, 0, 0, 0, NULL, 0, 0},
};
#undef F

/* 'name' relative to the directory of the plan spec 'doc'. */
static void rel_path (const struct gp_doc *doc, const char *name, char *out,
                      size_t n)
{
    const char *spec = gp_doc_name (doc);
    const char *slash = spec ? strrchr (spec, '/') : NULL;
    if (name[0] == '/' || !slash)
        snprintf (out, n, "%s", name);
    else
        snprintf (out, n, "%.*s/%s", (int)(slash - spec), spec, name);
}

/* 1 when pool 'p' of cluster 'c' belongs to the fleet of 'e'. */
static int in_fleet (const struct gp_cluster *c, const char *p,
                     const struct gp_plan_existing *e)
{
    for (size_t i = 0; i < c->n_pools; i++)
        if (strcmp (c->pools[i].name, p) == 0)
            return c->pools[i].accel == e->accel;
    return 0;
}

/* The fleet of cluster spec 'path': its pools of one accelerator
 * (e->accel_id when set, else the only one) into e->accel and e->gpus.
 */
static int fleet (const struct gp_doc *doc, const json_t *j,
                  const char *path, const struct gp_catalog *cat,
                  struct gp_plan_existing *e, struct gp_cluster **out,
                  gp_error_t *err)
{
    const json_t *at = json_object_get (j, "cluster");
    gp_error_t e2 = {0};
    struct gp_cluster *c = gp_cluster_load (path, cat, &e2);
    if (!c)
        return gp_doc_errorf (doc, at, err, e2.code ? e2.code : GP_EPARSE,
                              "existing.cluster: %s", e2.text);
    *out = c;
    for (size_t i = 0; i < c->n_pools; i++) {
        const struct gp_pool *p = &c->pools[i];
        if (e->accel_id[0] && strcasecmp (p->accel->id, e->accel_id) != 0)
            continue;
        if (e->accel && p->accel != e->accel)
            return gp_doc_errorf (doc, at, err, GP_EPARSE,
                                  "existing.cluster: pools of %s and %s; "
                                  "an existing fleet is of one accelerator "
                                  "(choose with existing.accelerator)",
                                  e->accel->id, p->accel->id);
        e->accel = p->accel;
        e->gpus += (long long)p->nodes * p->gpus_per_node;
    }
    if (!e->accel)
        return gp_doc_errorf (doc, json_object_get (j, "accelerator"), err,
                              GP_EPARSE,
                              "existing.accelerator: cluster '%s' has no "
                              "pool of %s",
                              c->name, e->accel_id);
    snprintf (e->accel_id, sizeof e->accel_id, "%s", e->accel->id);
    return 0;
}

/* Team 't' of 'u' with 'mean' GPUs into e->usage_teams; the last slot
 * sums the teams beyond it.
 */
static void keep_team (struct gp_plan_existing *e, const char *t,
                       double mean)
{
    size_t k = e->n_usage_teams;
    if (k == GP_PLAN_MAX_TEAMS) {
        k--;
        snprintf (e->usage_teams[k].team, GP_PLAN_NAME, "other");
        e->usage_teams[k].mean_gpus += mean;
        return;
    }
    snprintf (e->usage_teams[k].team, GP_PLAN_NAME, "%s", t);
    e->usage_teams[k].mean_gpus = mean;
    e->n_usage_teams++;
}

/* The observed demand of usage file 'path' on the fleet: mean GPUs per
 * team, their sum rounded up to whole nodes as e->baseline_gpus.
 */
static int baseline (const struct gp_doc *doc, const json_t *j,
                     const char *path, const char *until,
                     const struct gp_cluster *c, struct gp_plan_existing *e,
                     gp_error_t *err)
{
    const json_t *at = json_object_get (j, "usage");
    struct gp_usage_request rq = {.trace_path = path,
                                  .until = until[0] ? until : NULL};
    gp_error_t e2 = {0};
    struct gp_usage *u = gp_usage_read (&rq, &e2);
    if (!u)
        return gp_doc_errorf (doc, at, err, e2.code ? e2.code : GP_EPARSE,
                              "existing.usage: %s%s", e2.text,
                              strstr (e2.text, "--until")
                                  ? " (existing.until in the plan spec)"
                                  : "");
    e->usage_hours = (u->end_s - u->start_s) / 3600;
    double all = 0, sum = 0;
    for (size_t i = 0; i < u->n_teams; i++) {
        const struct gp_usage_team *t = &u->teams[i];
        double h = 0;
        for (size_t k = 0; k < t->n_pools; k++) {
            const char *p = t->pools[k].pool;
            /* with a cluster spec: hours in its pools of the fleet's
             * accelerator, and hours of no known pool
             */
            if (!c || strcmp (p, "unassigned") == 0 || in_fleet (c, p, e))
                h += t->pools[k].gpu_hours;
        }
        all += t->gpu_hours;
        e->usage_gpu_hours += h;
        if (h > 0 && e->usage_hours > 0) {
            keep_team (e, t->team, h / e->usage_hours);
            sum += h / e->usage_hours;
        }
    }
    gp_usage_destroy (u);
    if (!(e->usage_hours > 0) || !(e->usage_gpu_hours > 0))
        return gp_doc_errorf (doc, at, err, GP_EPARSE,
                              "existing.usage: none of its %.0f GPU-hours "
                              "ran on the fleet's pools (%s)",
                              all, e->accel_id);
    int gpn = gp_plan_node_gpus (e->accel);
    long long bg = (long long)ceil (sum / gpn - 1e-9) * gpn;
    if (sum > (double)e->gpus + 1e-9)
        return gp_doc_errorf (doc, at, err, GP_EPARSE,
                              "existing.usage: %.6g GPUs in use on "
                              "average, more than the %lld owned",
                              sum, e->gpus);
    e->baseline = sum;
    e->baseline_gpus = bg > e->gpus ? e->gpus : bg;
    return 0;
}

int gp__plan_existing_files (const struct gp_doc *doc, const json_t *j,
                             const struct gp_catalog *cat,
                             struct gp_plan_existing *e, gp_error_t *err)
{
    struct files_in in;
    memset (&in, 0, sizeof in);
    if (gp_doc_unpack (doc, j, "existing", files_fields, &in, err) != 0)
        return err ? err->code : GP_EPARSE;
    const char *clash =
        in.lead_time ? "delivery_lead_time"
        : in.e.cluster_file[0] && in.gpus ? "gpus"
        : !in.e.cluster_file[0] && !(in.e.accel_id[0] && in.gpus)
            ? "cluster"
        : in.e.usage_file[0] && in.baseline ? "baseline"
        : in.until[0] && !in.e.usage_file[0] ? "until"
                                              : NULL;
    if (clash)
        return gp_doc_errorf (
            doc, json_object_get (j, clash) ? json_object_get (j, clash) : j,
            err, in.lead_time ? GP_ENOTSUP : GP_EPARSE, "existing.%s: %s",
            clash,
            in.lead_time ? "not yet supported (the lead time of bought "
                           "GPUs is assumptions.delivery_lead_time_months)"
            : !strcmp (clash, "gpus")
                ? "the fleet comes from existing.cluster; give one"
            : !strcmp (clash, "cluster")
                ? "give existing.cluster, or accelerator and gpus"
            : !strcmp (clash, "baseline")
                ? "the baseline comes from existing.usage; give one"
                : "needs existing.usage");
    char path[2 * GP_PLAN_TEXT];
    struct gp_cluster *c = NULL;
    int rc = 0;
    if (in.e.cluster_file[0]) {
        rel_path (doc, in.e.cluster_file, path, sizeof path);
        rc = fleet (doc, j, path, cat, &in.e, &c, err);
    } else {
        gp_error_t e2 = {0};
        in.e.accel = gp_catalog_find_accel (cat, in.e.accel_id, &e2);
        in.e.gpus = in.gpus;
        if (!in.e.accel)
            rc = gp_doc_errorf (doc, json_object_get (j, "accelerator"), err,
                                GP_ENOTFOUND, "existing.accelerator: %s",
                                e2.text);
        else
            snprintf (in.e.accel_id, sizeof in.e.accel_id, "%s",
                      in.e.accel->id);
    }
    if (!rc && in.e.usage_file[0]) {
        rel_path (doc, in.e.usage_file, path, sizeof path);
        rc = baseline (doc, j, path, in.until, c, &in.e, err);
    }
    gp_cluster_destroy (c);
    if (rc)
        return rc;
    gp_doc_pos (doc, j, &in.e.line, &in.e.col);
    *e = in.e;
    return 0;
}

void gp__plan_existing_log (struct plan_ctx *c)
{
    const struct gp_plan_existing *e = &c->s->existing;
    if (e->cluster_file[0])
        gp_plan_log (c, "existing.cluster: %s: %lld owned %s GPUs",
                     e->cluster_file, e->gpus, e->accel_id);
    if (!e->usage_file[0])
        return;
    gp_plan_log (c, "existing.usage: %s: %.0f GPU-hours on the fleet over "
                 "%.0f hours, %.3g GPUs on average, baseline %lld GPUs "
                 "(whole nodes)",
                 e->usage_file, e->usage_gpu_hours, e->usage_hours,
                 e->baseline, e->baseline_gpus);
    for (size_t i = 0; i < e->n_usage_teams; i++)
        gp_plan_log (c, "existing.usage: team %s: %.3g GPUs on average",
                     e->usage_teams[i].team, e->usage_teams[i].mean_gpus);
}
