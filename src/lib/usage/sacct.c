/* sacct.c - usage from Slurm `sacct --parsable2` (header row, columns
 * mapped by name): GPU-hours per Account = allocated GPUs x run time, by
 * Partition (the pool) and QOS.
 *
 * GPUs: gres/gpu of AllocTRES (else ReqTRES), the untyped count, typed
 * counts only when no untyped one is given, never both summed (the same
 * rule as the trace reader).  Run time: ElapsedRaw (seconds), else
 * Elapsed, else End - Start; a job whose End is Unknown (or whose State
 * is RUNNING) runs to the request's 'until'.  Steps are skipped; array
 * tasks are separate jobs.  Rules: docs/formats/usage.md.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/csv.h"
#include "usage_private.h"
#include "../trace/sacct_private.h"
#include "../trace/trace_private.h"

enum { K_ID, K_RAW, K_ACCT, K_PART, K_QOS, K_START, K_END, K_ERAW, K_EL,
       K_ALLOC, K_REQ, K_STATE, K_N };

static const char *const names[K_N] = {
    "JobID", "JobIDRaw", "Account", "Partition", "QOS", "Start", "End",
    "ElapsedRaw", "Elapsed", "AllocTRES", "ReqTRES", "State",
};

struct srd {
    struct gp__usage_acc *a;
    int col[K_N];
    size_t width;
};

static const char *fld (const struct srd *s, const struct gp_csv_row *row,
                        int k)
{
    int i = s->col[k];
    return i >= 0 && (size_t)i < row->n_fields ? row->fields[i] : NULL;
}

static int bad (const struct srd *s, const struct gp_csv_row *row,
                gp_error_t *err, int k, const char *why, const char *v)
{
    return gp_errprintf (err, GP_EPARSE, "%s:%zu: column '%s': '%s' %s",
                         s->a->name, row->line, names[k], v ? v : "", why);
}

static int header (struct srd *s, const struct gp_csv_row *row,
                   gp_error_t *err)
{
    int hrc = gp_csv_header_unique (row, s->a->name, err);
    if (hrc)
        return hrc;
    for (int k = 0; k < K_N; k++)
        s->col[k] = gp_csv_col (row, names[k]);
    s->width = row->n_fields;
    const char *miss = s->col[K_ID] < 0     ? "JobID"
                       : s->col[K_ACCT] < 0 ? "Account"
                       : s->col[K_START] < 0 ? "Start"
                       : s->col[K_ERAW] < 0 && s->col[K_EL] < 0
                               && s->col[K_END] < 0
                           ? "ElapsedRaw (or Elapsed, or End)"
                           : NULL;
    if (miss)
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: header: missing column '%s' "
                             "(docs/formats/usage.md)",
                             s->a->name, row->line, miss);
    return 0;
}

/* Seconds the job of 'row' held its allocation, started at 'start';
 * '*running' set when it ends at 'until'.
 */
static int run_time (struct srd *s, const struct gp_csv_row *row,
                     double start, int *running, double *secs,
                     gp_error_t *err)
{
    const char *end = fld (s, row, K_END);
    const char *state = fld (s, row, K_STATE);
    *running = (end && strcmp (end, "Unknown") == 0)
               || (state && strncmp (state, "RUNNING", 7) == 0);
    if (*running) {
        if (s->a->until_s < 0)
            return gp_errprintf (err, GP_EINVAL,
                                 "%s:%zu: job %s is running (End Unknown): "
                                 "give --until (the end of its usage)",
                                 s->a->name, row->line, fld (s, row, K_ID));
        *secs = s->a->until_s - start;
        if (*secs < 0)
            return gp_errprintf (err, GP_EINVAL,
                                 "%s:%zu: --until is before the job's Start",
                                 s->a->name, row->line);
        return 0;
    }
    const char *v = fld (s, row, K_ERAW);
    if (v && *v) {
        char *e;
        errno = 0;
        double x = strtod (v, &e);
        if (e == v || *e || errno || !(x >= 0) || x != floor (x))
            return bad (s, row, err, K_ERAW, "is not whole seconds", v);
        *secs = x;
        return 0;
    }
    if ((v = fld (s, row, K_EL)) && *v) {
        if ((*secs = gp__tr_elapsed (v)) < 0)
            return bad (s, row, err, K_EL, "is not [D-]HH:MM:SS", v);
        return 0;
    }
    double t = end ? gp__tr_datetime (end) : -1;
    if (t < start)
        return bad (s, row, err, K_END, "is not a time after Start", end);
    *secs = t - start;
    return 0;
}

static int gpus_of (struct srd *s, const struct gp_csv_row *row, int *g,
                    gp_error_t *err)
{
    const char *t = fld (s, row, K_ALLOC);
    *g = t && *t ? gp__tr_tres_gpus (t) : 0;
    if (*g < 0)
        return bad (s, row, err, K_ALLOC, "has a bad gres/gpu count", t);
    if (*g == 0) {
        t = fld (s, row, K_REQ);
        *g = t && *t ? gp__tr_tres_gpus (t) : 0;
        if (*g < 0)
            return bad (s, row, err, K_REQ, "has a bad gres/gpu count", t);
    }
    return 0;
}

static int on_row (const struct gp_csv_row *row, void *arg, gp_error_t *err)
{
    struct srd *s = arg;
    if (row->index == 0)
        return header (s, row, err);
    if (row->n_fields != s->width)
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: %zu fields where the header has %zu",
                             s->a->name, row->line, row->n_fields, s->width);
    int64_t id;
    const char *jid = fld (s, row, K_ID);
    int k = gp__sacct_job_id (jid, fld (s, row, K_RAW), &id);
    if (k < 0)
        return bad (s, row, err, K_ID, "is not a job id", jid);
    const char *st = fld (s, row, K_START);
    if (k == 1 && strchr (jid, '.'))
        return 0; /* a step: its job has the row that counts */
    if (k == 1 || !st || !*st || !strcmp (st, "Unknown")
        || !strcmp (st, "None")) {
        s->a->n_pending++; /* never started */
        return 0;
    }
    double start = gp__tr_datetime (st);
    if (start < 0)
        return bad (s, row, err, K_START, "is not YYYY-MM-DDTHH:MM:SS", st);
    int g = 0, running = 0;
    double secs = 0;
    int rc = gpus_of (s, row, &g, err);
    if (!rc)
        rc = run_time (s, row, start, &running, &secs, err);
    if (rc)
        return rc;
    if (g == 0) {
        s->a->n_no_gpu++;
        return 0;
    }
    rc = gp__usage_add (s->a, fld (s, row, K_ACCT), fld (s, row, K_PART),
                        fld (s, row, K_QOS), g * secs / 3600, 1, err);
    if (rc)
        return rc;
    gp__usage_span (s->a, start, start + secs);
    s->a->n_counted++;
    s->a->n_running += (size_t)running;
    return 0;
}

int gp__usage_sacct (struct gp__usage_acc *a, const char *data, size_t len,
                     gp_error_t *err)
{
    struct srd s = {.a = a};
    int rc = gp_csv_parse (data, len, a->name, '|', on_row, &s, err);
    if (rc == 0 && s.width == 0)
        rc = gp_errprintf (err, GP_EPARSE, "%s: empty (no header row)",
                           a->name);
    return rc;
}
