/* fmt_alibaba2023.c - trace format 'alibaba2023': the Alibaba GPU 2023
 * openb pod list: run time from scheduling to deletion; never-scheduled
 * pods are ignored.
 * Columns and rules: docs/formats/traces.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace_private.h"

static const struct colname cols[] = {
    {C_ID, "name", 1},
    {C_GPUS, "num_gpu", 1},
    {C_MILLI, "gpu_milli", 1},
    {C_SUBMIT, "creation_time", 1},
    {C_START, "scheduled_time", 1},
    {C_DELETE, "deletion_time", 1},
    {C_TEAM, "qos", 0},
    {0, NULL, 0},
};

static int detect (const char *head)
{
    return strncmp (head, "name,cpu_milli,memory_mib,num_gpu", 33) == 0;
}

static int read_row (struct rd *r, const struct gp_csv_row *row,
                     struct gp_job *j,
                     gp_error_t *err)
{
    int rc;
    const char *id = gp__tr_field (r, row, C_ID);
    const char *dash = id ? strrchr (id, '-') : NULL;
    if (dash) {
        char *end;
        long long x = strtoll (dash + 1, &end, 10);
        if (!*end && end != dash + 1)
            j->id = x;
    }
    if ((rc = gp__tr_integer (r, row, err, C_GPUS, "num_gpu", 0, 1024,
                              &j->n_gpus)))
        return rc;
    if ((rc = gp__tr_integer (r, row, err, C_MILLI, "gpu_milli", 0, 1000,
                              &j->gpu_milli)))
        return rc;
    if (j->n_gpus == 0)
        j->gpu_milli = 1000;
    else if (j->gpu_milli == 0)
        return gp__tr_bad (r, row, err, "gpu_milli",
                           "0 for a pod that requests GPUs");
    double del, sch;
    if ((rc = gp__tr_num (r, row, err, C_SUBMIT, "creation_time", 0, 1e12,
                          &j->submit_s)))
        return rc;
    const char *sc = gp__tr_field (r, row, C_START);
    if (sc && !*sc)
        return 1; /* never scheduled (Pending at collection): no run */
    if ((rc = gp__tr_num (r, row, err, C_START, "scheduled_time", 0, 1e12,
                          &sch)))
        return rc;
    if ((rc = gp__tr_num (r, row, err, C_DELETE, "deletion_time", 0, 1e12,
                          &del)))
        return rc;
    if (del < sch)
        return gp__tr_bad (r, row, err, "deletion_time",
                           "%.0f is before scheduled_time %.0f", del, sch);
    j->duration_s = del - sch;
    if ((j->team = gp__tr_team (r, gp__tr_field (r, row, C_TEAM))) < 0)
        return GP_ENOMEM;
    return gp__tr_keep_check (r, j);
}

const struct gp_trace_format_ops gp__trace_alibaba2023 = {
    .id = GP_TRACE_ALIBABA2023,
    .delim = ',',
    .rebase = 0,
    .default_team = 0,
    .cols = cols,
    .detect = detect,
    .row = read_row,
};
