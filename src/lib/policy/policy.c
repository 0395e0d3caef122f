/* policy.c - the table of scheduling policies and lookup by name. */
#include <string.h>

#include "gpuplan/policy.h"

const struct gp_policy_ops *const gp_policies[] = {
    &gp_policy_fifo, &gp_policy_fifo_backfill, &gp_policy_priority,
    &gp_policy_fair_share, &gp_policy_las, &gp_policy_srtf, NULL,
};

const struct gp_policy_ops *gp_policy_find (const char *name,
                                            gp_error_t *err)
{
    for (size_t i = 0; name && gp_policies[i]; i++)
        if (strcmp (gp_policies[i]->name, name) == 0)
            return gp_policies[i];
    gp_errprintf (err, GP_ENOTFOUND,
                  "unknown policy '%s' (valid: fifo, fifo-backfill, priority, "
                  "fair-share, las, srtf)",
                  name ? name : "");
    return NULL;
}
