/* fmt_sacct.c - trace format 'sacct': Slurm 'sacct --parsable2' output:
 * jobs (not steps) that started, GPUs from AllocTRES (else ReqTRES),
 * re-based absolute dates.
 * Columns and rules: docs/formats/traces.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace_private.h"

static const struct colname cols[] = {
    {C_ID, "JobID", 1},
    {C_TEAM, "Account", 1},
    {C_SUBMIT, "Submit", 1},
    {C_START, "Start", 1},
    {C_END, "End", 0},
    {C_ELAPSED, "Elapsed", 1},
    {C_ALLOC, "AllocTRES", 0},
    {C_REQ, "ReqTRES", 0},
    {C_STATE, "State", 0},
    {0, NULL, 0},
};

static int detect (const char *head)
{
    return strstr (head, "JobID|") && strchr (head, '|');
}

static int read_row (struct rd *r, const struct gp_csv_row *row,
                     struct gp_job *j,
                     gp_error_t *err)
{
    const char *id = gp__tr_field (r, row, C_ID);
    if (!id || !*id)
        return gp__tr_bad (r, row, err, "JobID", "missing value");
    if (strchr (id, '.'))
        return 1; /* job step (123.batch, 123.0): not a job */
    char *end;
    long long x = strtoll (id, &end, 10);
    if (end == id)
        return gp__tr_bad (r, row, err, "JobID", "'%s' is not a job id", id);
    j->id = x;
    const char *st = gp__tr_field (r, row, C_START);
    if (!st || !strcmp (st, "Unknown") || !strcmp (st, "None") || !*st)
        return 1; /* never started (pending, cancelled before start) */
    const char *sub = gp__tr_field (r, row, C_SUBMIT);
    j->submit_s = sub ? gp__tr_datetime (sub) : -1;
    if (j->submit_s < 0)
        return gp__tr_bad (r, row, err, "Submit",
                           "'%s' is not YYYY-MM-DDTHH:MM:SS", sub ? sub : "");
    const char *el = gp__tr_field (r, row, C_ELAPSED);
    j->duration_s = el ? gp__tr_elapsed (el) : -1;
    if (j->duration_s < 0)
        return gp__tr_bad (r, row, err, "Elapsed", "'%s' is not [D-]HH:MM:SS",
                           el ? el : "");
    const char *tres = gp__tr_field (r, row, C_ALLOC);
    int g = tres && *tres ? gp__tr_tres_gpus (tres) : 0;
    if (g < 0)
        return gp__tr_bad (r, row, err, "AllocTRES", "bad gres/gpu in '%s'",
                           tres);
    if (g == 0) {
        tres = gp__tr_field (r, row, C_REQ);
        g = tres && *tres ? gp__tr_tres_gpus (tres) : 0;
        if (g < 0)
            return gp__tr_bad (r, row, err, "ReqTRES", "bad gres/gpu in '%s'",
                               tres);
    }
    j->n_gpus = g;
    if ((j->team = gp__tr_team (r, gp__tr_field (r, row, C_TEAM))) < 0)
        return GP_ENOMEM;
    return gp__tr_keep_check (r, j);
}

const struct gp_trace_format_ops gp__trace_sacct = {
    .id = GP_TRACE_SACCT,
    .delim = '|',
    .rebase = 1,
    .default_team = 0,
    .cols = cols,
    .detect = detect,
    .row = read_row,
};
