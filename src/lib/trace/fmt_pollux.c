/* fmt_pollux.c - trace format 'pollux': the Pollux/Sia workloads
 * (name, time, application, num_replicas, batch_size).  They have no run
 * times: those come from the application profiles (<app>/placements.csv
 * and <app>/validation-<batch>.csv), loaded on first use.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_private.h"

static const struct colname cols[] = {
    {C_SUBMIT, "time", 1},
    {C_TEAM, "application", 1},
    {C_GPUS, "num_replicas", 1},
    {C_PRIO, "batch_size", 1},
    {0, NULL, 0},
};


struct pload {
    struct papp *app;
    const char *name;
    double last_iter;
    int c[3];
    int validation;
};

static int on_prof (const struct gp_csv_row *row, void *arg, gp_error_t *err)
{
    struct pload *l = arg;
    if (row->index == 0) {
        int hrc = gp_csv_header_unique (row, l->name, err);
        if (hrc)
            return hrc;
        static const char *const pc[] = {"placement", "local_bsz",
                                         "step_time"};
        static const char *const vc[] = {"iteration", "iteration",
                                         "iteration"};
        for (int i = 0; i < 3; i++)
            if ((l->c[i] = gp_csv_col (row, (l->validation ? vc : pc)[i]))
                < 0)
                return gp_errprintf (err, GP_EPARSE,
                                     "%s:%zu: header: missing column '%s'",
                                     l->name, row->line,
                                     (l->validation ? vc : pc)[i]);
        return 0;
    }
    if (row->n_fields < 3)
        return gp_errprintf (err, GP_EPARSE, "%s:%zu: too few fields",
                             l->name, row->line);
    if (l->validation) {
        l->last_iter = strtod (row->fields[l->c[0]], NULL);
        return 0;
    }
    struct prow pr;
    snprintf (pr.placement, sizeof pr.placement, "%s", row->fields[l->c[0]]);
    pr.local_bsz = strtod (row->fields[l->c[1]], NULL);
    pr.step_time = strtod (row->fields[l->c[2]], NULL);
    if (!(pr.local_bsz > 0) || !(pr.step_time > 0))
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: local_bsz and step_time must be > 0",
                             l->name, row->line);
    struct prow *a =
        realloc (l->app->rows, (l->app->n_rows + 1) * sizeof *a);
    if (!a)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    l->app->rows = a;
    a[l->app->n_rows++] = pr;
    return 0;
}

static struct papp *pollux_app (struct rd *r, const char *app,
                                gp_error_t *err)
{
    for (size_t i = 0; i < r->n_apps; i++)
        if (strcmp (r->apps[i].name, app) == 0)
            return &r->apps[i];
    if (strlen (app) >= sizeof r->apps[0].name || strchr (app, '/')
        || !*app) {
        gp_errprintf (err, GP_EPARSE, "bad application name '%s'", app);
        return NULL;
    }
    struct papp *a = realloc (r->apps, (r->n_apps + 1) * sizeof *a);
    if (!a) {
        gp_errprintf (err, GP_ENOMEM, "out of memory");
        return NULL;
    }
    r->apps = a;
    struct papp *p = &a[r->n_apps++];
    memset (p, 0, sizeof *p);
    snprintf (p->name, sizeof p->name, "%s", app);
    char path[1024];
    snprintf (path, sizeof path, "%s/%s/placements.csv",
              r->opts->pollux_profiles, app);
    struct pload l = {p, path, 0, {0}, 0};
    if (gp_csv_parse_file (path, ',', on_prof, &l, err)) {
        /* Not kept: a later row must not find a half-loaded profile. */
        free (p->rows);
        r->n_apps--;
        return NULL;
    }
    return p;
}

/* Step time of 'app' on placement 'pl' at per-GPU batch 'b': linear
 * interpolation between the measured batch sizes (clamped at the ends);
 * 0 when the placement was not measured.
 */
static double step_time_of (const struct papp *p, const char *pl, double b)
{
    const struct prow *lo = NULL, *hi = NULL;
    for (size_t i = 0; i < p->n_rows; i++) {
        const struct prow *x = &p->rows[i];
        if (strcmp (x->placement, pl) != 0)
            continue;
        if (x->local_bsz <= b && (!lo || x->local_bsz > lo->local_bsz))
            lo = x;
        if (x->local_bsz >= b && (!hi || x->local_bsz < hi->local_bsz))
            hi = x;
    }
    if (!lo && !hi)
        return 0;
    if (!lo)
        return hi->step_time;
    if (!hi || hi->local_bsz == lo->local_bsz)
        return lo->step_time;
    double f = (b - lo->local_bsz) / (hi->local_bsz - lo->local_bsz);
    return lo->step_time + f * (hi->step_time - lo->step_time);
}

/* Pollux/Sia workload row: name, time, application, num_replicas,
 * batch_size.  Run time = iterations to the application's last epoch at
 * that batch size (last row of validation-<batch>.csv) x the measured step
 * time on the consolidated placement of num_replicas GPUs on 4-GPU nodes
 * at per-GPU batch batch_size / num_replicas (fixed-batch "TunedJobs"
 * setting; Pollux's adaptive batch sizes are not modelled).
 */
static int pollux_row (struct rd *r, const struct gp_csv_row *row,
                       struct gp_job *j, gp_error_t *err)
{
    int rc, batch;
    if ((rc = gp__tr_num (r, row, err, C_SUBMIT, "time", 0, 1e12,
                          &j->submit_s)))
        return rc;
    if ((rc = gp__tr_integer (r, row, err, C_GPUS, "num_replicas", 0, 1e6,
                              &j->n_gpus)))
        return rc;
    if ((rc = gp__tr_integer (r, row, err, C_PRIO, "batch_size", 1, 1e9,
                              &batch)))
        return rc;
    if (j->n_gpus == 0)
        return 1;
    const char *app = gp__tr_field (r, row, C_TEAM);
    gp_error_t e = {0};
    struct papp *p = pollux_app (r, app ? app : "", &e);
    if (!p && e.code == GP_ENOMEM) /* not a bad row: the reader fails */
        return gp_errprintf (err, GP_ENOMEM, "%s", e.text);
    if (!p)
        return gp__tr_bad (r, row, err, "application", "%s", e.text);
    /* Consolidated placement: the remainder node first, then full 4-GPU
     * nodes ("24" = 6 GPUs), as the profiles spell placements.
     */
    char pl[16], spread[16];
    int n = j->n_gpus, q = n / 4, rem = n % 4, k = 0;
    if (q + (rem > 0) >= (int)sizeof pl)
        return gp__tr_bad (r, row, err, "num_replicas",
                           "%d GPUs: no measured placement", n);
    if (rem)
        pl[k++] = (char)('0' + rem);
    while (q-- > 0)
        pl[k++] = '4';
    pl[k] = '\0';
    double b = (double)batch / n;
    double st = step_time_of (p, pl, b);
    if (!(st > 0))
        return gp__tr_bad (r, row, err, "num_replicas",
                           "%d GPUs: placement '%s' not measured for %s", n,
                           pl, app);
    char path[1024];
    snprintf (path, sizeof path, "%s/%s/validation-%d.csv",
              r->opts->pollux_profiles, app, batch);
    struct pload l = {p, path, 0, {0}, 1};
    e.code = 0;
    if (gp_csv_parse_file (path, ',', on_prof, &l, &e) && e.code == GP_ENOMEM)
        return gp_errprintf (err, GP_ENOMEM, "%s", e.text);
    if (e.code || !(l.last_iter > 0))
        return gp__tr_bad (r, row, err, "batch_size",
                           "no training curve for %s at batch size %d (%s)",
                           app, batch, e.text);
    j->duration_s = l.last_iter * st;
    /* Spread placement (one GPU per node) measured up to 4 GPUs. */
    if (n > 1 && n <= 4) {
        for (k = 0; k < n; k++)
            spread[k] = '1';
        spread[k] = '\0';
        double ss = step_time_of (p, spread, b);
        if (ss > st)
            j->comm_share = ss / st - 1;
    }
    j->team = r->default_team;
    return 0;
}

static int detect (const char *head)
{
    return strncmp (head, "name,time,application,num_replicas", 34) == 0;
}

static int setup (struct rd *r, gp_error_t *err)
{
    if (!r->opts->pollux_profiles)
        return gp_errprintf (err, GP_EINVAL,
                             "%s: a Pollux/Sia workload has no run times: "
                             "give the application profiles "
                             "(--pollux-profiles DIR, e.g. "
                             "traces/pollux/profiles)",
                             r->name);
    return 0;
}

static void fini (struct rd *r)
{
    for (size_t i = 0; i < r->n_apps; i++)
        free (r->apps[i].rows);
    free (r->apps);
    r->apps = NULL;
    r->n_apps = 0;
}

const struct gp_trace_format_ops gp__trace_pollux = {
    .id = GP_TRACE_POLLUX,
    .delim = ',',
    .default_team = 1,
    .cols = cols,
    .detect = detect,
    .setup = setup,
    .row = pollux_row,
    .fini = fini,
};
