/* fmt_philly.c - trace format 'philly': the Philly-derived job list of
 * Pollux/Sia (philly.csv): absolute timestamps, re-based so the first
 * submit is time 0.
 * Columns and rules: docs/formats/traces.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace_private.h"

static const struct colname cols[] = {
    {C_SUBMIT, "timestamp", 1},
    {C_DURATION, "duration", 1},
    {C_GPUS, "num_gpus", 1},
    {C_TEAM, "cluster", 1},
    {0, NULL, 0},
};

static int detect (const char *head)
{
    return strncmp (head, "timestamp,duration,num_gpus", 27) == 0;
}

static int read_row (struct rd *r, const struct gp_csv_row *row,
                     struct gp_job *j,
                     gp_error_t *err)
{
    int rc;
    const char *ts = gp__tr_field (r, row, C_SUBMIT);
    j->submit_s = ts ? gp__tr_datetime (ts) : -1;
    if (j->submit_s < 0)
        return gp__tr_bad (r, row, err, "timestamp",
                           "'%s' is not YYYY-MM-DD HH:MM:SS", ts ? ts : "");
    if ((rc = gp__tr_num (r, row, err, C_DURATION, "duration", 0, 1e10,
                          &j->duration_s)))
        return rc;
    if ((rc = gp__tr_integer (r, row, err, C_GPUS, "num_gpus", 0, 1e6,
                              &j->n_gpus)))
        return rc;
    if ((j->team = gp__tr_team (r, gp__tr_field (r, row, C_TEAM))) < 0)
        return GP_ENOMEM;
    return gp__tr_keep_check (r, j);
}

const struct gp_trace_format_ops gp__trace_philly = {
    .id = GP_TRACE_PHILLY,
    .delim = ',',
    .rebase = 1,
    .default_team = 0,
    .cols = cols,
    .detect = detect,
    .row = read_row,
};
