/* fmt_tiresias.c - trace format 'tiresias': the Tiresias simulator's job
 * list (job ids, submit times and durations in seconds; no teams).
 * Columns and rules: docs/formats/traces.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace_private.h"

static const struct colname cols[] = {
    {C_ID, "job_id", 1},
    {C_GPUS, "num_gpu", 1},
    {C_SUBMIT, "submit_time", 1},
    {C_DURATION, "duration", 1},
    {0, NULL, 0},
};

static int detect (const char *head)
{
    return strncmp (head, "job_id,num_gpu,submit_time", 26) == 0;
}

static int read_row (struct rd *r, const struct gp_csv_row *row,
                     struct gp_job *j,
                     gp_error_t *err)
{
    int rc;
    int id;
    if ((rc = gp__tr_integer (r, row, err, C_ID, "job_id", 0, 2e9, &id)))
        return rc;
    j->id = id;
    if ((rc = gp__tr_integer (r, row, err, C_GPUS, "num_gpu", 0, 1e6,
                              &j->n_gpus)))
        return rc;
    if ((rc = gp__tr_num (r, row, err, C_SUBMIT, "submit_time", 0, 1e12,
                          &j->submit_s)))
        return rc;
    if ((rc = gp__tr_num (r, row, err, C_DURATION, "duration", 0, 1e12,
                          &j->duration_s)))
        return rc;
    j->team = r->default_team;
    return gp__tr_keep_check (r, j);
}

const struct gp_trace_format_ops gp__trace_tiresias = {
    .id = GP_TRACE_TIRESIAS,
    .delim = ',',
    .rebase = 0,
    .default_team = 1,
    .cols = cols,
    .detect = detect,
    .row = read_row,
};
