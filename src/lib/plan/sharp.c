/* sharp.c - the fabric choice of an on-prem option: InfiniBand SHARP
 * (in-network all-reduce in the Quantum switches).  The plan is sized on
 * the fabric without it; this says how much faster the planned training
 * runs would step with SHARP-capable switches, the GPU-hours and dollars
 * that saves over the horizon at the option's cost per GPU-hour, and so
 * the premium per switch (hardware and licence, which are rarely
 * published) at which SHARP-capable switches pay for themselves
 * (docs/model/infrastructure.md, "In-network reduction: the fabric
 * choice").
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "plan_private.h"


/* The catalog category of part 'id' ("ib_switch", "eth_switch"), or NULL
 * when the catalog has no such part.
 */
static const char *part_category (const struct gp_catalog *cat,
                                  const char *id)
{
    size_t n = gp_catalog_n_parts (cat);
    for (size_t i = 0; i < n; i++) {
        const struct gp_part *p = gp_catalog_part (cat, i);
        if (strcmp (p->id, id) == 0)
            return p->category;
    }
    return NULL;
}

/* GPU-hours one workload's runs take within the horizon: a training run
 * once (the part of it inside the horizon), a recurring workload
 * runs_per_month times a month.
 */
static double wl_gpu_hours (const struct gp_plan_workload *w,
                            const struct plan_sizing *z, size_t wi,
                            size_t n_periods)
{
    double run_s = z->job_s[wi], gpus = z->job_gpus[wi];
    if (w->kind == GP_WL_TRAINING) {
        double left = ((double)n_periods - w->start_month) * MONTH_S;
        return fmax (fmin (run_s, left), 0) * gpus / 3600;
    }
    return w->runs_per_month * (double)n_periods * run_s * gpus / 3600;
}

/* Why the choice does not apply, or 0 when it does. */
static int not_applicable (struct plan_ctx *c,
                           const struct gp_plan_option_spec *os,
                           const struct gp_plan_option *o,
                           const struct plan_sizing *z, char *why, size_t n)
{
    const char *cat = part_category (c->cat, os->switch_id);
    double share = 0;
    if (o->nodes <= 1)
        snprintf (why, n, "one node: no fabric, no in-network reduction "
                          "across nodes");
    else if (!cat || strcmp (cat, "ib_switch") != 0)
        snprintf (why, n, "switch %s is not InfiniBand: SHARP runs on "
                          "Quantum InfiniBand switches only (no SHARP "
                          "support is documented for Ethernet/RoCE)",
                  os->switch_id);
    else if (!z || z->code != 0)
        snprintf (why, n, "the planners did not size this option");
    else if (gp_catalog_part_value (c->cat, os->switch_id,
                                    "sharp_algbw_share", &share, NULL) != 0
             || !(share > 0))
        snprintf (why, n, "switch %s has no SHARP row in the catalog "
                          "(sharp_algbw_share)", os->switch_id);
    else if (!(o->usd_per_gpu_hour > 0) || o->fabric.switches <= 0)
        snprintf (why, n, "no cost per GPU-hour or no switches to share "
                          "the saving");
    else
        return 0;
    return 1;
}

void gp__plan_sharp (struct plan_ctx *c, const struct gp_plan_option_spec *os,
                     struct gp_plan_option *o)
{
    const struct gp_plan_spec *s = c->s;
    const struct plan_sizing *z = gp_plan_sizing_of (c, o->spec_index,
                                                     o->n_periods);
    if (not_applicable (c, os, o, z, o->sharp_note, sizeof o->sharp_note))
        return;
    double saved = 0, gain = 0;
    int best = -1;
    for (size_t wi = 0; wi < s->n_workloads; wi++) {
        const struct gp_plan_workload *w = &s->workloads[wi];
        double p = z->step_plain_s[wi], q = z->step_sharp_s[wi];
        if (w->kind == GP_WL_INFERENCE || !(p > 0) || !(q > 0))
            continue;
        double g = 1 - q / p;
        if (g < 1e-9) /* the same step: rounding of the two searches */
            g = 0;
        saved += g * wl_gpu_hours (w, z, wi, o->n_periods);
        if (g > gain || best < 0)
            gain = g, best = (int)wi;
    }
    if (best < 0) {
        snprintf (o->sharp_note, sizeof o->sharp_note,
                  "no training run with a planned layout on this option "
                  "(jobs given as a trace have none)");
        return;
    }
    o->sharp_known = 1;
    o->sharp_step_gain = gain;
    if (gain > 0)
        snprintf (o->sharp_gain_workload, sizeof o->sharp_gain_workload,
                  "%s", s->workloads[best].name);
    o->sharp_gpu_hours_saved = saved;
    o->sharp_usd_saved = saved * o->usd_per_gpu_hour;
    o->sharp_breakeven_usd_per_switch = o->sharp_usd_saved
                                        / (double)o->fabric.switches;
    gp_plan_part (c, os->switch_id, "sharp_algbw_share"); /* its source */
    snprintf (o->sharp_note, sizeof o->sharp_note,
              "%sSHARP speeds up only all-reduces across nodes "
              "(reduce-scatter and all-gather move no fewer bytes); no "
              "published price of a SHARP premium or UFM licence to "
              "compare the break-even with",
              gain > 0 ? "" : "no gain for the planned runs: ");
    if (c->r && gain == 0)
        gp_plan_log (c,
                     "%s: fabric choice: IB SHARP (%s) gives the planned "
                     "training runs no gain (no all-reduce across nodes "
                     "that in-network reduction speeds up): no premium "
                     "for SHARP-capable switches pays off",
                     o->name, os->switch_id);
    else if (c->r) {
        char usd[32], per[32];
        gp_fmt_usd (o->sharp_usd_saved, usd, sizeof usd);
        gp_fmt_usd (o->sharp_breakeven_usd_per_switch, per, sizeof per);
        gp_plan_log (c,
                     "%s: fabric choice: IB SHARP (%s) steps %s %.2f %% "
                     "faster, saves %.0f GPU-h (%s) over the horizon; "
                     "pays off below a premium of %s per switch (%lld "
                     "switches)",
                     o->name, os->switch_id, o->sharp_gain_workload,
                     100 * gain, saved, usd, per,
                     (long long)o->fabric.switches);
    }
}
