/* quotas.c - the teams' GPU quotas on one option: the wished shares (or
 * fair-share weights) of the fleet, raised to each team's largest job
 * where the fleet allows, and the note when the teams' largest jobs
 * together need more than the fleet (docs/model/infrastructure.md,
 * Multi-tenancy).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plan_private.h"

void gp_plan_quotas (struct plan_ctx *c, struct gp_plan_option *o)
{
    const struct gp_plan_spec *s = c->s;
    double total = 0;
    int use_share = 0;
    for (size_t i = 0; i < s->n_teams; i++)
        if (s->teams[i].quota_share > 0)
            use_share = 1;
    for (size_t i = 0; i < s->n_teams; i++)
        total += use_share ? s->teams[i].quota_share : s->teams[i].weight;
    o->n_quotas = 0;
    /* A quota below a team's largest job would starve that job: raise it
     * to the job (from the planners), taking the GPUs from teams above
     * their own largest job, in proportion to their surplus.
     */
    const struct plan_sizing *z = gp_plan_sizing_of (c, o->spec_index,
                                                     o->n_periods);
    long long need[GP_PLAN_MAX_TEAMS] = {0}, held[GP_PLAN_MAX_TEAMS] = {0};
    for (size_t w = 0; z && z->code == 0 && w < s->n_workloads; w++)
        for (size_t i = 0; i < s->n_teams; i++) {
            if (strcmp (s->workloads[w].team, s->teams[i].name))
                continue;
            if (s->workloads[w].kind == GP_WL_INFERENCE)
                held[i] += (long long)z->job_gpus[w];
            else if ((long long)z->job_gpus[w] > need[i])
                need[i] = (long long)z->job_gpus[w];
        }
    for (size_t i = 0; i < s->n_teams; i++)
        need[i] += held[i]; /* services run beside the team's largest job */
    long long sum = 0;
    for (size_t i = 0; i < s->n_teams && total > 0; i++) {
        struct gp_plan_quota *q = &o->quotas[o->n_quotas++];
        snprintf (q->team, sizeof q->team, "%s", s->teams[i].name);
        q->wished_share = (use_share ? s->teams[i].quota_share
                                     : s->teams[i].weight)
                          / total;
        q->gpus = (long long)floor (q->wished_share * (double)o->gpus
                                    + 1e-9);
        if (need[i] > q->gpus && need[i] <= o->gpus)
            q->gpus = need[i];
        sum += q->gpus;
    }
    long long over = sum - o->gpus;
    if (over > 0) {
        long long surplus = 0;
        for (size_t i = 0; i < o->n_quotas; i++)
            if (o->quotas[i].gpus > need[i])
                surplus += o->quotas[i].gpus - need[i];
        for (size_t i = 0; i < o->n_quotas && surplus > 0; i++) {
            long long sp = o->quotas[i].gpus - need[i];
            if (sp <= 0)
                continue;
            long long cut = (long long)ceil ((double)over * (double)sp
                                             / (double)surplus);
            if (cut > sp)
                cut = sp;
            o->quotas[i].gpus -= cut;
        }
    }
    /* When the teams' largest jobs together need more than the fleet, the
     * lowest-priority team (the largest quota among equals) gives up the
     * rest: the quotas add up to at most the fleet, and that team's
     * largest job runs only by borrowing idle quota (Kueue cohort
     * borrowing, unlimited here), so it may wait while the others run.
     */
    sum = 0;
    long long needs = 0;
    for (size_t i = 0; i < o->n_quotas; i++) {
        sum += o->quotas[i].gpus;
        needs += need[i];
    }
    over = sum - o->gpus;
    while (over > 0) {
        int low = -1;
        for (size_t i = 0; i < o->n_quotas; i++) {
            if (o->quotas[i].gpus <= 0)
                continue;
            if (low < 0 || s->teams[i].priority < s->teams[low].priority
                || (s->teams[i].priority == s->teams[low].priority
                    && o->quotas[i].gpus > o->quotas[low].gpus))
                low = (int)i;
        }
        if (low < 0)
            break;
        long long cut = over < o->quotas[low].gpus ? over
                                                   : o->quotas[low].gpus;
        o->quotas[low].gpus -= cut;
        over -= cut;
    }
    o->quota_short = 0;
    o->quota_note[0] = 0;
    for (size_t i = 0; i < o->n_quotas; i++) {
        struct gp_plan_quota *q = &o->quotas[i];
        q->share = o->gpus > 0 ? (double)q->gpus / (double)o->gpus : 0;
        if (need[i] > q->gpus && !o->quota_short && needs > o->gpus) {
            o->quota_short = 1;
            snprintf (o->quota_note, sizeof o->quota_note,
                      "the teams' largest jobs need %lld GPUs together, "
                      "more than the %lld-GPU fleet: %.60s's quota is %lld "
                      "GPUs, its largest job (%lld GPUs) runs only by "
                      "borrowing idle quota",
                      needs, o->gpus, q->team, q->gpus, need[i]);
        }
    }
}
