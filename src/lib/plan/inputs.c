/* inputs.c - the spec's inputs echoed in the result (gp_plan_result
 * .inputs), so that two plan results can be compared field by field
 * without their specs (gp_plan_diff, docs/formats/diff.md).  The copy
 * borrows nothing: catalog rows and traces are left out.
 */
#include <string.h>

#include "plan_private.h"
#include "whatif_private.h"

void gp__plan_inputs (struct plan_ctx *c)
{
    struct gp_plan_result *r = c->r;
    const struct gp_plan_spec *s = c->s;
    if (!r)
        return;
    struct gp_plan_inputs *in = &r->inputs;
    memset (in, 0, sizeof *in);
    in->set = 1;
    in->horizon_years = s->horizon_years;
    memcpy (in->policy, s->policy, sizeof in->policy);
    in->cons = s->cons;
    in->n_workloads = s->n_workloads;
    for (size_t i = 0; i < s->n_workloads; i++) {
        in->workloads[i] = s->workloads[i];
        in->workloads[i].trace_jobs = NULL;
    }
    in->n_options = s->n_options;
    for (size_t i = 0; i < s->n_options; i++) {
        in->options[i] = s->options[i];
        in->options[i].accel = NULL;
        in->options[i].inst = NULL;
    }
    in->existing = s->existing;
    in->existing.accel = NULL;
}
