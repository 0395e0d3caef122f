/* plan_sharp.c - the plan report's fabric-choice section: InfiniBand
 * SHARP (in-network all-reduce) per on-prem option, from the result's
 * sharp_* fields (computed in src/lib/plan/sharp.c).
 */
#include <stdio.h>
#include <string.h>

#include "report_private.h"

void gp_report_sharp (struct rout *out, const struct gp_plan_result *r)
{
    int any = 0, known = 0;
    for (size_t i = 0; i < r->n_options; i++) {
        any |= r->options[i].kind == GP_OPT_ONPREM
               && r->options[i].sharp_note[0];
        known |= r->options[i].sharp_known;
    }
    if (!any)
        return;
    gp_rout_heading (out, "Fabric choice: in-network reduction (IB SHARP)");
    const char *h[] = {"OPTION", "STEP GAIN", "SET BY", "GPU-H SAVED",
                       "USD SAVED", "BREAK-EVEN/SWITCH"};
    if (known)
        gp_rout_table (out, h, 6);
    for (size_t i = 0; known && i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (!o->sharp_known)
            continue;
        char x[4][48];
        snprintf (x[0], 48, "%.2f%%", 100 * o->sharp_step_gain);
        snprintf (x[1], 48, "%.0f", o->sharp_gpu_hours_saved);
        gp_fmt_usd (o->sharp_usd_saved, x[2], 48);
        gp_fmt_usd (o->sharp_breakeven_usd_per_switch, x[3], 48);
        const char *row[] = {o->name, x[0],
                             o->sharp_gain_workload[0]
                                 ? o->sharp_gain_workload
                                 : "-",
                             x[1], x[2], x[3]};
        gp_rout_row (out, row);
    }
    if (known)
        gp_rout_table_end (out);
    /* Per option only what is its own: why it was not evaluated, or (in
     * one line for all of them) that it gains nothing; what holds for
     * every option goes into the section note once.
     */
    char none[512] = "";
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->kind != GP_OPT_ONPREM || !o->sharp_note[0])
            continue;
        if (!o->sharp_known)
            gp_rout_item (out, 0, "%s: not evaluated: %s", o->name,
                          o->sharp_note);
        else if (o->sharp_step_gain == 0) {
            size_t l = strlen (none);
            snprintf (none + l, sizeof none - l, "%s%s", l ? ", " : "",
                      o->name);
        }
    }
    if (none[0])
        gp_rout_item (out, 0, "%s: no gain for the planned runs (no "
                              "all-reduce across nodes that in-network "
                              "reduction speeds up)", none);
    if (known)
        gp_rout_note (out, "SHARP speeds up only all-reduces across nodes "
                           "(reduce-scatter and all-gather move no fewer "
                           "bytes); no published price of a SHARP premium "
                           "or UFM licence is known to compare the "
                           "break-even with.");
    gp_rout_note (out, "The plan is sized without SHARP.  STEP GAIN = 1 - "
                       "step with / without SHARP for the planned run "
                       "(its layout, or a faster one at the same GPUs); "
                       "BREAK-EVEN/SWITCH = GPU-hours saved over the "
                       "horizon x $/PROV GPU-H / switches.  SHARP "
                       "all-reduce bandwidth per NIC: parts.csv "
                       "sharp_algbw_share (NVIDIA/nccl #320); "
                       "docs/model/infrastructure.md.");
}
