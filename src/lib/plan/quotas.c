/* quotas.c - the teams' GPU quotas on one option: what each team asks
 * (its quota_share of the fleet, or its fair-share weight normalised
 * when no team gives a share), trimmed only with a stated reason (the
 * asks add up to more than the fleet: proportional trim), and the note
 * when the teams' largest jobs together need more than the fleet
 * (docs/model/infrastructure.md, Multi-tenancy).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plan_private.h"

/* What each team needs at once: its largest training or recurring job
 * plus the GPUs its services hold at their grown (largest) size.
 */
static void team_needs (struct plan_ctx *c, const struct gp_plan_option *o,
                        long long *need)
{
    const struct gp_plan_spec *s = c->s;
    const struct plan_sizing *z = gp_plan_sizing_of (c, o->spec_index,
                                                     o->n_periods);
    long long held[GP_PLAN_MAX_TEAMS] = {0};
    for (size_t w = 0; z && z->code == 0 && w < s->n_workloads; w++) {
        const struct gp_plan_workload *wl = &s->workloads[w];
        long long g = (long long)z->job_gpus[w];
        if (wl->kind == GP_WL_INFERENCE) {
            double most = 0;
            for (size_t t = 0; t < z->n_periods; t++)
                most = fmax (most, gp_plan_service_gpus (wl, z, w, t));
            g = (long long)most;
        }
        for (size_t i = 0; i < s->n_teams; i++) {
            if (strcmp (wl->team, s->teams[i].name))
                continue;
            if (wl->kind == GP_WL_INFERENCE)
                held[i] += g;
            else if (g > need[i])
                need[i] = g;
        }
    }
    for (size_t i = 0; i < s->n_teams; i++)
        need[i] += held[i]; /* services run beside the team's largest job */
}

void gp_plan_quotas (struct plan_ctx *c, struct gp_plan_option *o)
{
    const struct gp_plan_spec *s = c->s;
    int use_share = 0;
    double weights = 0;
    for (size_t i = 0; i < s->n_teams; i++) {
        if (s->teams[i].quota_share > 0)
            use_share = 1;
        weights += s->teams[i].weight;
    }
    /* The asks: quota_share as given; weights normalised otherwise. */
    double asked = 0;
    for (size_t i = 0; i < s->n_teams; i++) {
        double a = use_share ? s->teams[i].quota_share
                   : weights > 0 ? s->teams[i].weight / weights
                                 : 0;
        o->quotas[i].wished_share = a;
        asked += a;
    }
    o->quota_asked_total = asked;
    o->quota_trim = GP_QUOTA_AS_ASKED;
    o->quota_trim_why[0] = 0;
    double scale = 1;
    if (asked > 1 + 1e-9) {
        scale = 1 / asked;
        o->quota_trim = GP_QUOTA_TRIM_OVERSUBSCRIBED;
        snprintf (o->quota_trim_why, sizeof o->quota_trim_why,
                  "the teams ask for %.0f%% of the fleet together: every "
                  "quota trimmed in proportion (x %.3f)",
                  100 * asked, scale);
    }
    o->n_quotas = 0;
    long long need[GP_PLAN_MAX_TEAMS] = {0}, needs = 0;
    team_needs (c, o, need);
    for (size_t i = 0; i < s->n_teams && asked > 0; i++) {
        struct gp_plan_quota *q = &o->quotas[o->n_quotas++];
        snprintf (q->team, sizeof q->team, "%s", s->teams[i].name);
        q->gpus = (long long)floor (q->wished_share * scale * (double)o->gpus
                                    + 1e-9);
        q->share = o->gpus > 0 ? (double)q->gpus / (double)o->gpus : 0;
        needs += need[i];
    }
    /* Quotas are not raised to a team's largest job: a job above its
     * team's quota borrows idle quota in the cohort (simulate.c).  When
     * the teams' largest jobs together need more than the fleet, some
     * job runs only on borrowed quota: say which.
     */
    o->quota_short = 0;
    o->quota_note[0] = 0;
    for (size_t i = 0; i < o->n_quotas && needs > o->gpus; i++) {
        const struct gp_plan_quota *q = &o->quotas[i];
        if (need[i] <= q->gpus)
            continue;
        o->quota_short = 1;
        snprintf (o->quota_note, sizeof o->quota_note,
                  "the teams' largest jobs need %lld GPUs together, "
                  "more than the %lld-GPU fleet: %.60s's quota is %lld "
                  "GPUs, its largest job (%lld GPUs) runs only by "
                  "borrowing idle quota",
                  needs, o->gpus, q->team, q->gpus, need[i]);
        break;
    }
}
