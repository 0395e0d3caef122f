/* whatif_report.h - the what-if parts of the plan JSON (whatif_json.c),
 * internal to the report module.
 */
#ifndef GPUPLAN_WHATIF_REPORT_H
#define GPUPLAN_WHATIF_REPORT_H

#include <jansson.h>

#include "gpuplan/plan.h"

/* Add "inputs" to the plan document 'root' of 'r', and when nothing is
 * recommended replace its null "recommendation" by an object with name
 * null, the reason and the nearest feasible change.
 */
void gp__report_whatif_json (json_t *root, const struct gp_plan_result *r);

#endif
