/* fmt_gavel.c - trace format 'gavel': Gavel's msr/physical_cluster
 * .trace files (tab-separated, no header).  They give steps, not seconds:
 * run times come from a throughput table (gpu_type, job_type,
 * scale_factor, steps_per_s) for one GPU type.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_private.h"

struct tload {
    struct rd *r;
    const char *name;
    int c[4];
};

static int on_tput (const struct gp_csv_row *row, void *arg, gp_error_t *err)
{
    struct tload *t = arg;
    static const char *const cols[] = {"gpu_type", "job_type", "scale_factor",
                                       "steps_per_s"};
    if (row->index == 0) {
        int hrc = gp_csv_header_unique (row, t->name, err);
        if (hrc)
            return hrc;
        for (int i = 0; i < 4; i++)
            if ((t->c[i] = gp_csv_col (row, cols[i])) < 0)
                return gp_errprintf (err, GP_EPARSE,
                                     "%s:%zu: header: missing column '%s'",
                                     t->name, row->line, cols[i]);
        return 0;
    }
    if (row->n_fields < 4)
        return gp_errprintf (err, GP_EPARSE, "%s:%zu: expected 4 fields",
                             t->name, row->line);
    const char *gpu = row->fields[t->c[0]];
    size_t gl = strlen (t->r->gpu);
    int spread;
    if (strcmp (gpu, t->r->gpu) == 0)
        spread = 0;
    else if (strncmp (gpu, t->r->gpu, gl) == 0
             && strcmp (gpu + gl, "_unconsolidated") == 0)
        spread = 1;
    else
        return 0;
    struct tput e;
    memset (&e, 0, sizeof e);
    snprintf (e.job_type, sizeof e.job_type, "%s", row->fields[t->c[1]]);
    char *end;
    long sf = strtol (row->fields[t->c[2]], &end, 10);
    double v = strtod (row->fields[t->c[3]], &end);
    if (sf < 1 || !(v >= 0) || !isfinite (v))
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: bad scale_factor or steps_per_s",
                             t->name, row->line);
    e.sf = (int)sf;
    e.spread = spread;
    e.steps_per_s = v;
    struct tput *a = realloc (t->r->tp, (t->r->n_tp + 1) * sizeof *a);
    if (!a)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    t->r->tp = a;
    a[t->r->n_tp++] = e;
    return 0;
}

static double tput_of (const struct rd *r, const char *job_type, int sf,
                       int spread)
{
    for (size_t i = 0; i < r->n_tp; i++)
        if (r->tp[i].sf == sf && r->tp[i].spread == spread
            && strcmp (r->tp[i].job_type, job_type) == 0)
            return r->tp[i].steps_per_s;
    return 0;
}

/* Gavel rows: 7 fields (msr: job_type, command, num_steps_arg,
 * needs_data_dir, total_steps, arrival_time, scale_factor) or 10
 * (physical_cluster: job_type, command, working_directory, num_steps_arg,
 * needs_data_dir, total_steps, scale_factor, priority_weight, SLO,
 * arrival_time).  Run time = total_steps / isolated throughput.
 */
static int gavel_row (struct rd *r, const struct gp_csv_row *row,
                      struct gp_job *j, gp_error_t *err)
{
    int i_steps, i_arr, i_sf;
    if (row->n_fields == 7) {
        i_steps = 4;
        i_arr = 5;
        i_sf = 6;
    } else if (row->n_fields == 10) {
        i_steps = 5;
        i_sf = 6;
        i_arr = 9;
    } else
        return gp__tr_bad (r, row, err, NULL,
                           "%zu tab-separated fields; a Gavel trace has 7 "
                           "or 10",
                           row->n_fields);
    r->col[C_GPUS] = i_sf;
    r->col[C_SUBMIT] = i_arr;
    r->col[C_DURATION] = i_steps;
    int rc;
    double steps;
    if ((rc = gp__tr_integer (r, row, err, C_GPUS, "scale_factor", 0, 1e6,
                              &j->n_gpus)))
        return rc;
    if ((rc = gp__tr_num (r, row, err, C_SUBMIT, "arrival_time", 0, 1e12,
                          &j->submit_s)))
        return rc;
    if ((rc = gp__tr_num (r, row, err, C_DURATION, "total_steps", 0, 1e15,
                          &steps)))
        return rc;
    if (j->n_gpus == 0)
        return 1;
    const char *jt = row->fields[0];
    double t = tput_of (r, jt, j->n_gpus, 0);
    if (!(t > 0))
        return gp__tr_bad (r, row, err, "job_type",
                           "no throughput for ('%s', %d) on %s in the "
                           "throughput table",
                           jt, j->n_gpus, r->gpu);
    j->duration_s = steps / t;
    double ts = tput_of (r, jt, j->n_gpus, 1);
    if (j->n_gpus > 1 && ts > 0 && t > ts)
        j->comm_share = t / ts - 1;
    j->team = r->default_team;
    return 0;
}

static int detect (const char *head)
{
    return strchr (head, '\t') != NULL;
}

/* Load the throughputs of the chosen GPU type. */
static int setup (struct rd *r, gp_error_t *err)
{
    if (!r->opts->gavel_throughputs)
        return gp_errprintf (err, GP_EINVAL,
                             "%s: a Gavel trace gives steps, not "
                             "seconds: give the throughput table "
                             "(--gavel-throughputs FILE, e.g. "
                             "traces/gavel/throughputs.csv)",
                             r->name);
    r->gpu = r->opts->gavel_gpu ? r->opts->gavel_gpu : "v100";
    struct tload t = {r, r->opts->gavel_throughputs, {0}};
    int rc = gp_csv_parse_file (r->opts->gavel_throughputs, ',', on_tput,
                                &t, err);
    if (!rc && r->n_tp == 0)
        rc = gp_errprintf (err, GP_ENOTFOUND,
                           "%s: no throughputs for GPU type '%s'",
                           r->opts->gavel_throughputs, r->gpu);
    if (!rc && (r->default_team = gp__tr_intern (r, 0, "default")) < 0)
        rc = gp_errprintf (err, GP_ENOMEM, "out of memory");
    return rc;
}

static void fini (struct rd *r)
{
    free (r->tp);
    r->tp = NULL;
    r->n_tp = 0;
}

const struct gp_trace_format_ops gp__trace_gavel = {
    .id = GP_TRACE_GAVEL,
    .delim = '\t',
    .detect = detect,
    .setup = setup,
    .row = gavel_row,
    .fini = fini,
};
