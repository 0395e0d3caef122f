/* fmt_sacct.c - trace format 'sacct': Slurm 'sacct --parsable2' output:
 * jobs (not steps) that started, GPUs from AllocTRES (else ReqTRES),
 * re-based absolute dates.  Each array task is its own job (JobIDRaw, or
 * JobID 123_7 made distinct).  With GP_TRACE_SACCT_SLURM, Partition is
 * the pool the job requires and Priority its priority (higher first);
 * without it the jobs may run on any pool of another cluster (what-if).
 * Columns and rules: docs/formats/traces.md.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sacct_private.h"
#include "trace_private.h"

static const struct colname cols[] = {
    {C_ID, "JobID", 1},
    {C_RAW, "JobIDRaw", 0},
    {C_TEAM, "Account", 1},
    {C_POOL, "Partition", 0},
    {C_QOS, "QOS", 0},
    {C_PRIO, "Priority", 0},
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

int gp__sacct_job_id (const char *jobid, const char *raw, int64_t *id)
{
    if (!jobid || !*jobid)
        return -1;
    if (strchr (jobid, '.'))
        return 1; /* job step (123.batch, 123.0): not a job */
    char *end;
    errno = 0;
    long long base = strtoll (jobid, &end, 10);
    if (end == jobid || errno || base < 0)
        return -1;
    if ((*end == '_' || *end == '+') && end[1] == '[')
        return 1; /* pending array "123_[1-5%2]": no task ran */
    if (raw && *raw) {
        char *e2;
        errno = 0;
        long long r = strtoll (raw, &e2, 10);
        if (e2 != raw && !*e2 && !errno && r >= 0) {
            *id = r;
            return 0;
        }
    }
    if (*end == '\0') {
        *id = base;
        return 0;
    }
    if (*end != '_' && *end != '+')
        return -1;
    const char *t = end + 1;
    errno = 0;
    long long task = strtoll (t, &end, 10);
    if (end == t || *end || errno || task < 0 || task >= (1LL << 32)
        || base >= (1LL << 30))
        return -1;
    *id = base * (1LL << 32) + task;
    return 0;
}

static int read_row (struct rd *r, const struct gp_csv_row *row,
                     struct gp_job *j,
                     gp_error_t *err)
{
    const char *id = gp__tr_field (r, row, C_ID);
    int64_t x = 0;
    int k = gp__sacct_job_id (id, gp__tr_field (r, row, C_RAW), &x);
    if (k < 0)
        return gp__tr_bad (r, row, err, "JobID", "'%s' is not a job id",
                           id ? id : "");
    if (k > 0)
        return 1;
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
    const char *pr = gp__tr_field (r, row, C_PRIO);
    int slurm = (r->opts->flags & GP_TRACE_SACCT_SLURM) != 0;
    if (slurm && pr && *pr) {
        char *end;
        errno = 0;
        long long v = strtoll (pr, &end, 10);
        if (end == pr || *end || errno || v < 0)
            return gp__tr_bad (r, row, err, "Priority",
                               "'%s' is not a priority >= 0", pr);
        /* halved: Slurm's 32-bit range fits an int, the order is kept */
        v /= 2;
        j->priority = v > INT_MAX ? INT_MAX : (int)v;
    }
    if (gp__tr_keep_check (r, j))
        return 1;
    const char *part = gp__tr_field (r, row, C_POOL);
    if (slurm && part && *part
        && (j->pool = gp_jobset_pool (r->js, part)) < 0)
        return GP_ENOMEM;
    if ((j->team = gp__tr_team (r, gp__tr_field (r, row, C_TEAM))) < 0)
        return GP_ENOMEM;
    return 0;
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
