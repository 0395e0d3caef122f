/* export.c - orchestrator configuration from a cluster spec: the target
 * registry and the public calls.
 *
 * The mapping (docs/formats/export.md) keeps gpuplan's tenant semantics:
 * a team's nominal GPU quota, borrowing and lending limits within a cohort,
 * fair-share weight and priority class become the closest native objects of
 * each engine.  Each target is one file behind struct gp_export_target_ops
 * (kueue.c, volcano.c, slurm.c, prometheus.c); names are checked against
 * the target's rules first, so a spec that would give an invalid object
 * fails with a message naming the field instead.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_private.h"
#include "gpuplan/io.h"
#include "gpuplan/plan.h"

/* Indexed by enum gp_export_target. */
static const struct gp_export_target_ops *const targets[] = {
    [GP_EXPORT_KUEUE] = &gp__export_kueue,
    [GP_EXPORT_VOLCANO] = &gp__export_volcano,
    [GP_EXPORT_SLURM] = &gp__export_slurm,
    [GP_EXPORT_PROMETHEUS] = &gp__export_prometheus,
    [GP_EXPORT_GRAFANA] = &gp__export_grafana,
    [GP_EXPORT_GPU_OPERATOR] = &gp__export_gpu_operator,
    [GP_EXPORT_YUNIKORN] = &gp__export_yunikorn,
    [GP_EXPORT_NETWORK] = &gp__export_network,
    [GP_EXPORT_SERVING] = &gp__export_serving,
    [GP_EXPORT_JOBS] = &gp__export_jobs,
};
_Static_assert (sizeof targets / sizeof *targets == GP_EXPORT__COUNT,
                "one ops table per export target");
#define N_TARGETS (sizeof targets / sizeof *targets)

static const struct gp_export_target_ops *ops_of (enum gp_export_target t)
{
    return (unsigned)t < N_TARGETS ? targets[t] : NULL;
}

int gp_export_target_parse (const char *s, enum gp_export_target *t,
                            gp_error_t *err)
{
    if (!s || !t)
        return gp_errprintf (err, GP_EINVAL, "export target: NULL argument");
    for (size_t i = 0; i < N_TARGETS; i++)
        if (!strcmp (s, targets[i]->name)) {
            *t = (enum gp_export_target)i;
            return 0;
        }
    return gp_errprintf (err, GP_ENOTFOUND,
                         "unknown export target '%s'; expected kueue, "
                         "volcano, slurm, prometheus, grafana, gpu-operator, "
                         "yunikorn, network, serving or jobs",
                         s);
}

int gp_export_target_needs_plan (enum gp_export_target t)
{
    const struct gp_export_target_ops *o = ops_of (t);
    return o ? o->needs_plan : 0;
}

int gp__export_not_yet (const struct gp_cluster *c,
                        const struct gp_export_opts *o,
                        struct gp_export *x, gp_error_t *err)
{
    (void)c;
    (void)o;
    return gp_errprintf (err, GP_ENOTSUP,
                         "export %s: not yet supported",
                         gp_export_target_str (x->target));
}

/* An export of target 't' with no files: 't' does not apply, and why. */
static struct gp_export *not_applicable (enum gp_export_target t,
                                         const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

static struct gp_export *not_applicable (enum gp_export_target t,
                                         const char *fmt, ...)
{
    struct gp_export *x = calloc (1, sizeof *x);
    if (!x)
        return NULL;
    x->target = t;
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (x->not_applicable, sizeof x->not_applicable, fmt, ap);
    va_end (ap);
    return x;
}

struct gp_export *gp_export_render_plan (const struct gp_export_plan *p,
                                         enum gp_export_target t,
                                         const struct gp_export_opts *o,
                                         const struct gp_catalog *cat,
                                         gp_error_t *err)
{
    struct gp_export_opts xo = {0};
    if (o)
        xo = *o;
    if (!p || !p->spec || !p->result) {
        gp_errprintf (err, GP_EINVAL, "export --plan: NULL plan");
        return NULL;
    }
    const struct gp_plan_result *r = p->result;
    if (p->option < 0 || (size_t)p->option >= r->n_options) {
        gp_errprintf (err, GP_EINVAL, "export --plan: plan '%s' has no "
                      "option %d", r->name, p->option);
        return NULL;
    }
    const struct gp_plan_option *opt = &r->options[p->option];
    if (xo.month < 0 || (size_t)xo.month > opt->n_periods) {
        gp_errprintf (err, GP_EINVAL, "export --month %d: outside the "
                      "horizon of plan '%s' (1 to %zu)",
                      xo.month, r->name, opt->n_periods);
        return NULL;
    }
    if (xo.net != GP_NET_NVIDIA_OPERATOR && xo.net != GP_NET_SRIOV) {
        gp_errprintf (err, GP_EINVAL, "export: network flavour %d: "
                      "expected nvidia or sriov", (int)xo.net);
        return NULL;
    }
    if (t == GP_EXPORT_SLURM && opt->kind == GP_OPT_CLOUD) {
        struct gp_export *x = not_applicable (
            t, "option '%s' is a cloud fleet: a managed Slurm "
               "(ParallelCluster, Cluster Toolkit, CycleCloud) writes its "
               "own node and partition lines from the instance type",
            opt->name);
        if (!x)
            gp_errprintf (err, GP_ENOMEM, "out of memory");
        return x;
    }
    struct gp_cluster *c = gp_plan_option_cluster (p->spec, r, p->option,
                                                   cat, err);
    if (!c)
        return NULL;
    xo.plan = p;
    if (!xo.catalog)
        xo.catalog = cat;
    struct gp_export *x = gp_export_render_opts (c, t, &xo, err);
    gp_cluster_destroy (c);
    return x;
}

int gp_export_render_plan_all (const struct gp_export_plan *p,
                               const struct gp_export_opts *o,
                               const struct gp_catalog *cat,
                               struct gp_export *xs[GP_EXPORT__COUNT],
                               gp_error_t *err)
{
    if (!xs)
        return gp_errprintf (err, GP_EINVAL, "export all: NULL argument");
    for (size_t i = 0; i < N_TARGETS; i++)
        xs[i] = NULL;
    for (size_t i = 0; i < N_TARGETS; i++) {
        xs[i] = gp_export_render_plan (p, (enum gp_export_target)i, o, cat,
                                       err);
        if (xs[i])
            continue;
        for (size_t k = 0; k < i; k++) {
            gp_export_destroy (xs[k]);
            xs[k] = NULL;
        }
        return gp_errprefix (err, "export all: %s", targets[i]->name);
    }
    return 0;
}

const char *gp_export_target_str (enum gp_export_target t)
{
    const struct gp_export_target_ops *o = ops_of (t);
    return o ? o->name : "unknown";
}

void gp_export_destroy (struct gp_export *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < x->n_files; i++)
        free (x->files[i].text);
    free (x->files);
    free (x);
}

int gp__export_add_file (struct gp_export *x, const char *name, struct sb *b)
{
    struct gp_export_file *p = NULL;
    if (!b->oom && b->s)
        p = realloc (x->files, (x->n_files + 1) * sizeof *p);
    if (!p) {
        free (b->s);
        return -1;
    }
    x->files = p;
    struct gp_export_file *f = &x->files[x->n_files++];
    snprintf (f->name, sizeof f->name, "%s", name);
    f->text = b->s;
    return 0;
}

int gp_export_kueue_api_parse (const char *s, int *api, gp_error_t *err)
{
    if (s && api && !strcmp (s, "v1beta1")) {
        *api = 1;
        return 0;
    }
    if (s && api && !strcmp (s, "v1beta2")) {
        *api = 2;
        return 0;
    }
    return gp_errprintf (err, GP_EINVAL,
                         "Kueue API '%s': expected v1beta1 or v1beta2",
                         s ? s : "(null)");
}

struct gp_export *gp_export_render (const struct gp_cluster *c,
                                    enum gp_export_target t,
                                    gp_error_t *err)
{
    return gp_export_render_opts (c, t, NULL, err);
}

struct gp_export *gp_export_render_opts (const struct gp_cluster *c,
                                         enum gp_export_target t,
                                         const struct gp_export_opts *o,
                                         gp_error_t *err)
{
    struct gp_export_opts def = {0};
    if (!o)
        o = &def;
    if (o->kueue_api < 0 || o->kueue_api > 2) {
        gp_errprintf (err, GP_EINVAL, "export: Kueue API %d: expected 1 "
                      "(v1beta1) or 2 (v1beta2)", o->kueue_api);
        return NULL;
    }
    const struct gp_export_target_ops *ops = ops_of (t);
    if (!ops) {
        gp_errprintf (err, GP_EINVAL, "export: unknown target %d", (int)t);
        return NULL;
    }
    if (!c || c->n_pools == 0) {
        gp_errprintf (err, GP_EINVAL, "export: empty cluster");
        return NULL;
    }
    if (ops->needs_plan && !o->plan) {
        gp_errprintf (err, GP_EINVAL, "export %s: needs a plan (--plan "
                      "PLAN.yaml), not a cluster spec", ops->name);
        return NULL;
    }
    if (gp__export_check_names (c, ops->k8s_names, err) != 0)
        return NULL;
    struct gp_export *x = calloc (1, sizeof *x);
    if (!x) {
        gp_errprintf (err, GP_ENOMEM, "out of memory");
        return NULL;
    }
    x->target = t;
    gp_error_t e2 = {0};
    int rc = ops->write (c, o, x, &e2);
    if (rc != 0) {
        gp_export_destroy (x);
        if (rc == GP_ENOMEM || !e2.code)
            gp_errprintf (err, GP_ENOMEM, "out of memory");
        else if (err)
            *err = e2;
        return NULL;
    }
    return x;
}

int gp_export_write (const char *dir, struct gp_export *const *xs, size_t n,
                     int sub, gp_error_t *err)
{
    size_t nf = 0, k = 0;
    for (size_t i = 0; i < n; i++)
        nf += xs[i]->n_files;
    struct gp_out_file *f = calloc (nf + 1, sizeof *f);
    char (*names)[160] = calloc (nf + 1, sizeof *names);
    int rc;
    if (!f || !names) {
        rc = gp_errprintf (err, GP_ENOMEM, "out of memory");
    } else {
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < xs[i]->n_files; j++, k++) {
                const struct gp_export_file *x = &xs[i]->files[j];
                snprintf (names[k], sizeof names[k], "%s%s%s",
                          sub ? gp_export_target_str (xs[i]->target) : "",
                          sub ? "/" : "", x->name);
                f[k] = (struct gp_out_file){names[k], x->text,
                                            strlen (x->text)};
            }
        rc = sub ? gp_write_tree_atomic (dir, f, nf, err)
                 : gp_write_dir_atomic (dir, f, nf, err);
    }
    free (names);
    free (f);
    return rc;
}
