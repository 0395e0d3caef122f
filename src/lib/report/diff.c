/* diff.c - scenario diff of two plan results (report.h).  Not yet
 * supported: both calls say so.
 */
#include <stddef.h>

#include "gpuplan/report.h"

struct json_t *gp_plan_diff (const struct json_t *a, const struct json_t *b,
                             gp_error_t *err)
{
    (void)a;
    (void)b;
    gp_errprintf (err, GP_ENOTSUP, "diff: not yet supported");
    return NULL;
}

char *gp_plan_diff_render (const struct json_t *diff,
                           enum gp_report_format f, gp_error_t *err)
{
    (void)diff;
    (void)f;
    gp_errprintf (err, GP_ENOTSUP, "diff: not yet supported");
    return NULL;
}
