/* view.c - the plan as the exporters read it: a service's replicas per
 * hour of the day and an option's cluster.  Not yet supported.
 */
#include "gpuplan/cluster.h"
#include "plan_private.h"

int gp_plan_service_day (const struct gp_plan_spec *s,
                         const struct gp_plan_option *o, size_t wi,
                         size_t month, int replicas[GP_PLAN_DAY_HOURS],
                         gp_error_t *err)
{
    (void)s;
    (void)o;
    (void)wi;
    (void)month;
    (void)replicas;
    return gp_errprintf (err, GP_ENOTSUP,
                         "service replicas per hour: not yet supported");
}

struct gp_cluster *gp_plan_option_cluster (const struct gp_plan_spec *s,
                                           const struct gp_plan_result *r,
                                           int option,
                                           const struct gp_catalog *cat,
                                           gp_error_t *err)
{
    (void)s;
    (void)r;
    (void)option;
    (void)cat;
    gp_errprintf (err, GP_ENOTSUP, "cluster of a plan option: not yet "
                  "supported");
    return NULL;
}
