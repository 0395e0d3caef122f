/* fmt_generic.c - trace format 'generic': the documented generic CSV (id,
 * submit, duration, gpus, team, priority, gpu_milli, pool,
 * checkpoint_interval, comm_share).
 * Columns and rules: docs/formats/traces.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace_private.h"

static const struct colname cols[] = {
    {C_ID, "id", 0},
    {C_SUBMIT, "submit", 1},
    {C_DURATION, "duration", 1},
    {C_GPUS, "gpus", 1},
    {C_TEAM, "team", 0},
    {C_PRIO, "priority", 0},
    {C_MILLI, "gpu_milli", 0},
    {C_POOL, "pool", 0},
    {C_CKPT, "checkpoint_interval", 0},
    {C_COMM, "comm_share", 0},
    {0, NULL, 0},
};

static int read_row (struct rd *r, const struct gp_csv_row *row,
                     struct gp_job *j,
                     gp_error_t *err)
{
    int rc;
    const char *id = gp__tr_field (r, row, C_ID);
    if (id && *id) {
        char *end;
        errno = 0;
        long long x = strtoll (id, &end, 10);
        if (*end || errno)
            return gp__tr_bad (r, row, err, "id", "'%s' is not an integer", id);
        j->id = x;
    }
    if ((rc = gp__tr_dur (r, row, err, C_SUBMIT, "submit", &j->submit_s)))
        return rc;
    if ((rc = gp__tr_dur (r, row, err, C_DURATION, "duration", &j->duration_s)))
        return rc;
    if ((rc = gp__tr_integer (r, row, err, C_GPUS, "gpus", 0, 1e6, &j->n_gpus)))
        return rc;
    const char *s = gp__tr_field (r, row, C_TEAM);
    if ((j->team = gp__tr_team (r, s)) < 0)
        return GP_ENOMEM;
    s = gp__tr_field (r, row, C_PRIO);
    if (s && *s
        && (rc = gp__tr_integer (r, row, err, C_PRIO, "priority", -1e6, 1e6,
                                 &j->priority)))
        return rc;
    s = gp__tr_field (r, row, C_MILLI);
    if (s && *s
        && (rc = gp__tr_integer (r, row, err, C_MILLI, "gpu_milli", 1, 1000,
                                 &j->gpu_milli)))
        return rc;
    s = gp__tr_field (r, row, C_POOL);
    if (s && *s && (j->pool = gp__tr_intern (r, 1, s)) < 0)
        return GP_ENOMEM;
    s = gp__tr_field (r, row, C_CKPT);
    if (s && *s
        && (rc = gp__tr_dur (r, row, err, C_CKPT, "checkpoint_interval",
                             &j->ckpt_interval_s)))
        return rc;
    s = gp__tr_field (r, row, C_COMM);
    if (s && *s
        && (rc = gp__tr_num (r, row, err, C_COMM, "comm_share", 0, 100,
                             &j->comm_share)))
        return rc;
    if (j->gpu_milli < 1000 && j->n_gpus > 1)
        return gp__tr_bad (r, row, err, "gpu_milli",
                           "a GPU share below 1000 needs gpus = 1");
    return gp__tr_keep_check (r, j);
}

const struct gp_trace_format_ops gp__trace_generic = {
    .id = GP_TRACE_GENERIC,
    .delim = ',',
    .rebase = 0,
    .default_team = 0,
    .cols = cols,
    .detect = NULL,
    .row = read_row,
};
