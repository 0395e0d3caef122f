/* nearest.c - the nearest feasible change (docs/formats/plan.md, "Nearest
 * feasible change"): when no option is feasible, the least relaxation of
 * the constraints that block one.
 *
 * Budget, power, racks and allowed clouds enter only the constraint check
 * (constraints.c), never an option's figures: relaxing them is checking
 * the evaluated option again with the limit raised to the option's own
 * TCO, IT power or racks (or its cloud allowed), repeated while the next
 * failing check is one of these, so the least value is exact.  A training
 * deadline changes the sizing: the options are evaluated again at each
 * step of a bisection over whole days, from the deadline to
 * GP_NEAREST_DEADLINE_X times it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/units.h"
#include "plan_private.h"
#include "whatif_private.h"

#define GP_NEAREST_DEADLINE_X 8 /* the longest deadline tried, x today's */
#define DAY_S 86400.0

static const char *const change_names[] = {"budget", "power", "racks",
                                           "cloud", "deadline"};

const char *gp_plan_change_kind_str (enum gp_plan_change_kind k)
{
    return (unsigned)k < sizeof change_names / sizeof *change_names
               ? change_names[k]
               : "?";
}

/* Relax the constraint that rejects 'o' in 'k', recording it in 'x'.
 * Returns 0, or -1 when the rejection is not one a constraint relaxes.
 */
static int relax_one (const struct gp_plan_option *o,
                      struct gp_plan_constraints *k, struct gp_plan_relax *x)
{
    memset (x, 0, sizeof *x);
    switch (o->infeasible) {
    case GP_INFEAS_BUDGET:
        x->kind = GP_CHANGE_BUDGET;
        x->from = k->budget_usd;
        x->to = ceil (o->tco_usd);
        k->budget_usd = x->to;
        snprintf (x->key, sizeof x->key, "constraints.budget");
        return 0;
    case GP_INFEAS_POWER:
        x->kind = GP_CHANGE_POWER;
        x->from = k->power_w;
        x->to = ceil (o->pow.it_w);
        k->power_w = x->to;
        snprintf (x->key, sizeof x->key, "constraints.power");
        return 0;
    case GP_INFEAS_RACKS:
        if (o->pow.racks > 1000000)
            return -1;
        x->kind = GP_CHANGE_RACKS;
        x->from = k->floor_racks;
        x->to = (double)o->pow.racks;
        k->floor_racks = (int)o->pow.racks;
        snprintf (x->key, sizeof x->key, "constraints.floor_racks");
        return 0;
    case GP_INFEAS_CLOUD:
        if (k->n_clouds >= sizeof k->clouds / sizeof *k->clouds)
            return -1;
        x->kind = GP_CHANGE_CLOUD;
        snprintf (x->cloud, sizeof x->cloud, "%s", o->cloud);
        snprintf (k->clouds[k->n_clouds++], sizeof k->clouds[0], "%s",
                  o->cloud);
        snprintf (x->key, sizeof x->key, "constraints.clouds");
        return 0;
    default:
        return -1;
    }
}

/* The constraint relaxations that make option 'i' feasible, into 'ch';
 * -1 when none does (a rejection other than budget, power, racks or
 * cloud, or an option not fully costed).
 */
static int relax_option (struct plan_ctx *c, size_t i,
                         struct gp_plan_change *ch)
{
    const struct gp_plan_option *o0 = &c->r->options[i];
    if (o0->feasible || !o0->complete)
        return -1;
    struct gp_plan_option *o = malloc (sizeof *o);
    if (!o) {
        c->failed = 1;
        return -1;
    }
    *o = *o0;
    struct gp_plan_constraints saved = c->s->cons;
    memset (ch, 0, sizeof *ch);
    int rc = -1;
    for (;;) {
        gp_plan_check_constraints (c, o);
        if (o->feasible) {
            rc = 0;
            break;
        }
        if (ch->n_relax == GP_PLAN_MAX_RELAX
            || relax_one (o, &c->s->cons, &ch->relax[ch->n_relax]) != 0)
            break;
        ch->n_relax++;
    }
    c->s->cons = saved;
    ch->option = (int)i;
    snprintf (ch->option_name, sizeof ch->option_name, "%s", o0->name);
    ch->tco_usd = o0->tco_usd;
    ch->gpus = o0->gpus;
    free (o);
    return rc;
}

/* The options evaluated with workload 'wi's deadline at 'days'; the
 * picked option into 'pick' (-1 none).  The planners' answers are cached
 * per option spec, so the cache is set aside for the evaluation and
 * restored after it.
 */
static int eval_deadline (struct plan_ctx *c, size_t wi, double days,
                          struct gp_plan_option *tmp, size_t *n)
{
    struct plan_sizing *saved[GP_PLAN_MAX_OPTION_SPECS][3];
    memcpy (saved, c->sz, sizeof saved);
    memset (c->sz, 0, sizeof c->sz);
    double d0 = c->s->workloads[wi].deadline_s;
    struct gp_plan_result *r = c->r;
    c->s->workloads[wi].deadline_s = days * DAY_S;
    c->r = NULL;
    *n = gp_plan_eval_all (c, tmp);
    c->r = r;
    c->s->workloads[wi].deadline_s = d0;
    for (size_t i = 0; i < GP_PLAN_MAX_OPTION_SPECS; i++)
        for (size_t k = 0; k < 3; k++)
            free (c->sz[i][k]);
    memcpy (c->sz, saved, sizeof saved);
    if (gp__plan_options_oom (tmp, *n)) {
        c->failed = 1;
        return -1;
    }
    return gp_plan_pick (tmp, *n);
}

/* The least whole number of days for training workload 'wi' at which an
 * option is feasible (bisection; the sizing needs fewer GPUs as the
 * deadline grows), into 'ch'; -1 when none up to GP_NEAREST_DEADLINE_X
 * times the deadline.
 */
static int relax_deadline (struct plan_ctx *c, size_t wi,
                           struct gp_plan_change *ch)
{
    const struct gp_plan_workload *w = &c->s->workloads[wi];
    size_t n = c->r->n_options;
    struct gp_plan_option *tmp = calloc (n ? n : 1, sizeof *tmp);
    if (!tmp) {
        c->failed = 1;
        return -1;
    }
    double lo = floor (w->deadline_s / DAY_S);
    double hi = fmin (ceil (w->deadline_s * GP_NEAREST_DEADLINE_X / DAY_S),
                      20 * 365);
    size_t m;
    int best = hi > lo ? eval_deadline (c, wi, hi, tmp, &m) : -1;
    char found[96];
    double found_tco = 0;
    long long found_gpus = 0;
    int rc = -1;
    if (best >= 0 && m == n) {
        snprintf (found, sizeof found, "%s", tmp[best].name);
        found_tco = tmp[best].tco_usd;
        found_gpus = tmp[best].gpus;
        while (hi - lo > 1) {
            double mid = floor ((lo + hi) / 2);
            int p = eval_deadline (c, wi, mid, tmp, &m);
            if (p >= 0 && m == n) {
                hi = mid;
                best = p;
                snprintf (found, sizeof found, "%s", tmp[p].name);
                found_tco = tmp[p].tco_usd;
                found_gpus = tmp[p].gpus;
            } else {
                lo = mid;
            }
        }
        memset (ch, 0, sizeof *ch);
        ch->option = best;
        snprintf (ch->option_name, sizeof ch->option_name, "%s", found);
        ch->tco_usd = found_tco;
        ch->gpus = found_gpus;
        struct gp_plan_relax *x = &ch->relax[ch->n_relax++];
        x->kind = GP_CHANGE_DEADLINE;
        x->from = w->deadline_s;
        x->to = hi * DAY_S;
        snprintf (x->key, sizeof x->key, "workloads.%s.deadline", w->name);
        rc = 0;
    }
    free (tmp);
    return rc;
}

/* The largest relative change of 'ch' (a cloud allowed counts 1). */
static double rel_change (const struct gp_plan_change *ch)
{
    double m = 0;
    for (size_t i = 0; i < ch->n_relax; i++) {
        const struct gp_plan_relax *x = &ch->relax[i];
        double r = x->kind == GP_CHANGE_CLOUD || !(x->from > 0)
                       ? 1
                       : x->to / x->from - 1;
        m = fmax (m, r);
    }
    return m;
}

static int change_cmp (const void *pa, const void *pb)
{
    const struct gp_plan_change *a = pa, *b = pb;
    if (a->n_relax != b->n_relax)
        return a->n_relax < b->n_relax ? -1 : 1;
    double ra = rel_change (a), rb = rel_change (b);
    if (ra != rb)
        return ra < rb ? -1 : 1;
    if (a->tco_usd != b->tco_usd)
        return a->tco_usd < b->tco_usd ? -1 : 1;
    return (a->option > b->option) - (a->option < b->option);
}

/* One relaxation in words, appended to 'buf'. */
static void relax_text (const struct gp_plan_relax *x, char *buf, size_t n)
{
    size_t l = strlen (buf);
    char a[32], b[32];
    if (l + 1 >= n)
        return;
    switch (x->kind) {
    case GP_CHANGE_BUDGET:
        snprintf (buf + l, n - l, "%sraise constraints.budget from %s to %s",
                  l ? " and " : "", gp_fmt_usd (x->from, a, sizeof a),
                  gp_fmt_usd (x->to, b, sizeof b));
        break;
    case GP_CHANGE_POWER:
        snprintf (buf + l, n - l, "%sraise constraints.power from %s to %s",
                  l ? " and " : "",
                  gp_format_quantity (x->from, GP_Q_POWER, 0, a, sizeof a),
                  gp_format_quantity (x->to, GP_Q_POWER, 0, b, sizeof b));
        break;
    case GP_CHANGE_RACKS:
        snprintf (buf + l, n - l,
                  "%sraise constraints.floor_racks from %.0f to %.0f",
                  l ? " and " : "", x->from, x->to);
        break;
    case GP_CHANGE_CLOUD:
        snprintf (buf + l, n - l, "%sallow cloud %s in constraints.clouds",
                  l ? " and " : "", x->cloud);
        break;
    case GP_CHANGE_DEADLINE:
        snprintf (buf + l, n - l, "%sextend %s from %.4g to %.4g days",
                  l ? " and " : "", x->key, x->from / DAY_S, x->to / DAY_S);
        break;
    }
}

static void change_text (struct gp_plan_change *ch)
{
    char u[32];
    ch->text[0] = 0;
    for (size_t i = 0; i < ch->n_relax; i++)
        relax_text (&ch->relax[i], ch->text, sizeof ch->text);
    size_t l = strlen (ch->text);
    snprintf (ch->text + l, sizeof ch->text - l,
              ": %s becomes feasible (%lld GPUs, TCO %s)", ch->option_name,
              ch->gpus, gp_fmt_usd (ch->tco_usd, u, sizeof u));
}

void gp__plan_nearest (struct plan_ctx *c)
{
    struct gp_plan_result *r = c->r;
    if (!r)
        return;
    r->n_changes = 0;
    if (r->recommended >= 0 || r->n_options == 0)
        return;
    size_t cap = r->n_options + GP_PLAN_MAX_WORKLOADS;
    struct gp_plan_change *cand = calloc (cap, sizeof *cand);
    if (!cand) {
        c->failed = 1;
        return;
    }
    size_t n = 0;
    int compute_blocked = 0;
    for (size_t i = 0; i < r->n_options; i++) {
        if (relax_option (c, i, &cand[n]) == 0)
            n++;
        compute_blocked |= r->options[i].infeasible == GP_INFEAS_COMPUTE;
    }
    for (size_t wi = 0; compute_blocked && wi < c->s->n_workloads; wi++) {
        const struct gp_plan_workload *w = &c->s->workloads[wi];
        if (w->kind == GP_WL_TRAINING && w->deadline_s > 0
            && relax_deadline (c, wi, &cand[n]) == 0)
            n++;
    }
    qsort (cand, n, sizeof *cand, change_cmp);
    for (size_t i = 0; i < n && r->n_changes < GP_PLAN_MAX_CHANGES; i++) {
        change_text (&cand[i]);
        r->changes[r->n_changes++] = cand[i];
        gp_plan_log (c, "nearest change: %s", cand[i].text);
    }
    if (r->n_changes)
        snprintf (r->reason, sizeof r->reason,
                  "no option meets the constraints; nearest feasible "
                  "change: %s",
                  r->changes[0].text);
    else
        snprintf (r->reason, sizeof r->reason,
                  "no option meets the constraints, and no relaxation of "
                  "the budget, power, racks, clouds or a training deadline "
                  "makes one feasible");
    free (cand);
}
