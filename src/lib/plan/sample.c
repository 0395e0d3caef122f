/* sample.c - ranges from sampled assumptions (gp_plan_sample,
 * docs/model/uncertainty.md).
 *
 * Every uncertain row of the defaults registry carries a distribution of
 * a factor on its value in force (gpuplan/defaults.h GP_DEFAULT_DISTS).
 * N plans are evaluated with the factors drawn by a centred Latin
 * hypercube: each row's N draws sit at the probabilities (k + 0.5) / N,
 * k = 0..N-1, in an order the seed shuffles, so a row's draws cover its
 * distribution evenly and the seed only pairs them.  A row the spec (or
 * a flag) overrides is taken as known and not drawn.
 *
 * Reuse rules, so that 200 samples of the enterprise example take
 * seconds (a whole plan takes a quarter of one):
 *  - a sample is the sensitivity analysis's evaluation (no simulation,
 *    no sensitivity rows, no decision log): the queueing verdict of each
 *    option is the full run's;
 *  - prices, capex, electricity, discounts, demand, spot interruptions,
 *    failure rate, restart cost, repair time and lead time act after the
 *    planners' sizing, which is not run again for them; the training
 *    planner's goodput keeps the failure rate and restart cost in force;
 *  - traffic and growth (plan.traffic_scale, plan.growth_scale) act in
 *    the sizing's replica counts: a sample that draws them sizes afresh,
 *    the planners' searches memoized;
 *  - the training efficiency draw is quantized to EFF_LEVELS equiprobable
 *    levels (each at its stratum's median probability), and the sizing is
 *    computed once per level and option spec;
 *  - flips are attributed from one-at-a-time evaluations on a grid of
 *    FLIP_GRID probabilities per row, interpolated at each sample's draw.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/arch.h"
#include "../core/rng.h"
#include "plan_private.h"

#define EFF_LEVELS 5
#define FLIP_GRID 10
#define MAX_VARS 16

/* Where a sampled row acts. */
enum var_kind {
    VAR_ASSUME,         /* the spec copy's assumption value */
    VAR_CLOUD,          /* pt.price (capex kept through pt.capex) */
    VAR_CAPEX,
    VAR_POWER,
    VAR_DEMAND,
    VAR_EFF,            /* the sizing, quantized */
    VAR_SIZED,          /* the spec copy's assumption, read by the
                         * sizing (traffic, growth): sized afresh */
};

struct svar {
    const char *key;            /* full registry key */
    const struct gp_default_dist *d;
    enum var_kind kind;
    struct gp_assumption *a;    /* in the sampler's spec copy */
    double base;                /* value in force */
};

struct sampler {
    struct plan_ctx c;
    const struct gp_plan_result *r;
    struct svar v[MAX_VARS];
    size_t nv;
    int eff_var;                /* index in v, or -1 */
    struct plan_sizing *lv[EFF_LEVELS][GP_PLAN_MAX_OPTION_SPECS];
    struct gp_plan_option *tmp;
    size_t n_opt;
    int fresh;                  /* the last eval_at sized afresh */
    double days[GP_PLAN_MAX_OPTION_SPECS];  /* its run days */
};

/* ------------------------------ in force ------------------------------- */

static double in_force (struct plan_ctx *c, const char *key)
{
    struct gp_assumption *a = gp_plan_assume_find (c->s, key);
    if (!a)
        return 1;
    if (a->overridden)
        a->used = 1;
    return a->value;
}

void gp__plan_perturb_in_force (struct plan_ctx *c)
{
    struct plan_perturb p = PLAN_NO_PERTURB;
    double cloud = in_force (c, "cloud_price_scale");
    double capex = in_force (c, "capex_scale");
    p.price = cloud;
    p.capex = cloud > 0 ? capex / cloud : 0;
    p.power_price = in_force (c, "power_price_scale");
    p.demand = in_force (c, "demand_scale");
    p.eff = in_force (c, "train_efficiency_scale");
    c->base = p;
    c->pt = p;
}

/* ------------------------------ variables ------------------------------ */

static enum var_kind kind_of (const char *key)
{
    static const struct {
        const char *key;
        enum var_kind kind;
    } map[] = {
        {"plan.cloud_price_scale", VAR_CLOUD},
        {"plan.capex_scale", VAR_CAPEX},
        {"plan.power_price_scale", VAR_POWER},
        {"plan.demand_scale", VAR_DEMAND},
        {"plan.train_efficiency_scale", VAR_EFF},
        {"plan.traffic_scale", VAR_SIZED},
        {"plan.growth_scale", VAR_SIZED},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp (map[i].key, key) == 0)
            return map[i].kind;
    return VAR_ASSUME;
}

/* The rows to draw: every distribution whose row is a plan assumption
 * the spec does not override.
 */
static void find_vars (struct sampler *S)
{
    S->eff_var = -1;
    for (size_t i = 0; i < gp_default_dists_count () && S->nv < MAX_VARS;
         i++) {
        const struct gp_default_dist *d = gp_default_dist_at (i);
        struct gp_assumption *a = gp_plan_assume_find (S->c.s, d->key);
        if (!a || a->overridden)
            continue;
        struct svar *x = &S->v[S->nv];
        x->key = d->key;
        x->d = d;
        x->kind = kind_of (d->key);
        x->a = a;
        x->base = a->value;
        if (x->kind == VAR_EFF)
            S->eff_var = (int)S->nv;
        S->nv++;
    }
}

static int eff_level (double u)
{
    int k = (int)(u * EFF_LEVELS);
    return k < 0 ? 0 : k >= EFF_LEVELS ? EFF_LEVELS - 1 : k;
}

/* The factor of variable 'x' at probability 'u' (the efficiency at its
 * level's median probability).
 */
static double factor_at (const struct svar *x, double u)
{
    if (x->kind == VAR_EFF)
        u = (eff_level (u) + 0.5) / EFF_LEVELS;
    return gp_default_dist_quantile (x->d, u);
}

/* ------------------------------ evaluation ----------------------------- */

/* Every option evaluated with variable j at probability u[j] (NAN: its
 * value in force); returns the number of options in S->tmp.  Restores
 * the assumptions and the sizing cache.
 */
static size_t eval_at (struct sampler *S, const double *u)
{
    struct plan_ctx *c = &S->c;
    struct plan_perturb pt = c->base;
    double cloud = pt.price, capex = pt.price * pt.capex;
    int level = -1, fresh = 0;
    for (size_t j = 0; j < S->nv; j++) {
        struct svar *x = &S->v[j];
        if (isnan (u[j]))
            continue;
        double v = x->base * factor_at (x, u[j]);
        switch (x->kind) {
        case VAR_SIZED:
            x->a->value = v;
            fresh = 1;
            break;
        case VAR_ASSUME:
            /* a discount stays below 1 */
            if (strstr (x->key, "discount") && v > 0.95)
                v = 0.95;
            x->a->value = v;
            break;
        case VAR_CLOUD:
            cloud = v;
            break;
        case VAR_CAPEX:
            capex = v;
            break;
        case VAR_POWER:
            pt.power_price = v;
            break;
        case VAR_DEMAND:
            pt.demand = v;
            break;
        case VAR_EFF:
            pt.eff = v;
            level = eff_level (u[j]);
            break;
        }
    }
    pt.price = cloud;
    pt.capex = cloud > 0 ? capex / cloud : 0;
    struct plan_sizing *saved[GP_PLAN_MAX_OPTION_SPECS];
    if (level >= 0)
        for (size_t i = 0; i < GP_PLAN_MAX_OPTION_SPECS; i++) {
            saved[i] = c->sz[i][0];
            c->sz[i][0] = S->lv[level][i];
        }
    /* a traffic or growth draw: the sizing afresh (the planners'
     * searches are memoized), its run days kept, then dropped */
    struct plan_sizing *kept[GP_PLAN_MAX_OPTION_SPECS];
    if (fresh)
        for (size_t i = 0; i < GP_PLAN_MAX_OPTION_SPECS; i++) {
            kept[i] = c->sz[i][0];
            c->sz[i][0] = NULL;
        }
    c->pt = pt;
    size_t n = gp_plan_eval_all (c, S->tmp);
    c->pt = c->base;
    if (fresh)
        for (size_t i = 0; i < GP_PLAN_MAX_OPTION_SPECS; i++) {
            S->days[i] = c->sz[i][0] && c->sz[i][0]->code == 0
                             ? c->sz[i][0]->run_days : 0;
            free (c->sz[i][0]);
            c->sz[i][0] = kept[i];
        }
    S->fresh = fresh;
    if (level >= 0)
        for (size_t i = 0; i < GP_PLAN_MAX_OPTION_SPECS; i++) {
            S->lv[level][i] = c->sz[i][0];
            c->sz[i][0] = saved[i];
        }
    for (size_t j = 0; j < S->nv; j++)
        S->v[j].a->value = S->v[j].base;
    /* the queueing verdict is the full run's (not simulated here) */
    for (size_t i = 0; i < n && i < S->r->n_options; i++)
        S->tmp[i].queue = S->r->options[i].queue;
    return n;
}

/* Days of the main training run of option i as just evaluated under
 * efficiency 'level' (-1: in force); 0 when none.
 */
static double train_days (struct sampler *S, size_t i, int level)
{
    int si = S->tmp[i].spec_index;
    if (si < 0 || si >= GP_PLAN_MAX_OPTION_SPECS)
        return 0;
    if (S->fresh)
        return S->days[si];
    const struct plan_sizing *z = level >= 0 ? S->lv[level][si]
                                             : S->c.sz[si][0];
    return z && z->code == 0 ? z->run_days : 0;
}

/* ------------------------------ statistics ----------------------------- */

static int cmp_double (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Percentile 'q' of the 'm' sorted values 'x' (Hazen's rule: the k-th of
 * m values sits at probability (k + 0.5) / m, linear between).
 */
static double pct_sorted (const double *x, size_t m, double q)
{
    if (m == 0)
        return 0;
    double h = q * (double)m - 0.5;
    if (h <= 0)
        return x[0];
    if (h >= (double)(m - 1))
        return x[m - 1];
    size_t k = (size_t)h;
    return x[k] + (h - (double)k) * (x[k + 1] - x[k]);
}

/* P10/P50/P90 of column 'i' of the n x n_opt matrix 'val' (NAN = not
 * counted); 'work' has room for n values.
 */
static struct gp_plan_pct pct_of (const double *val, size_t n, size_t n_opt,
                                  size_t i, double *work)
{
    size_t m = 0;
    for (size_t s = 0; s < n; s++)
        if (!isnan (val[s * n_opt + i]))
            work[m++] = val[s * n_opt + i];
    qsort (work, m, sizeof *work, cmp_double);
    return (struct gp_plan_pct){pct_sorted (work, m, 0.10),
                                pct_sorted (work, m, 0.50),
                                pct_sorted (work, m, 0.90)};
}

/* -------------------------------- flips -------------------------------- */

/* TCO of option 'o' with variable j alone at probability u: linear
 * between the grid's points (flat beyond its ends); NAN when a point
 * was not costed.
 */
static double grid_tco (const double *grid, size_t n_opt, size_t j,
                        size_t o, double u)
{
    const double *g = grid + j * FLIP_GRID * n_opt;
    double h = u * FLIP_GRID - 0.5;
    if (h <= 0)
        return g[o];
    if (h >= FLIP_GRID - 1)
        return g[(FLIP_GRID - 1) * n_opt + o];
    size_t k = (size_t)h;
    double a = g[k * n_opt + o], b = g[(k + 1) * n_opt + o];
    return a + (h - (double)k) * (b - a);
}

/* One-at-a-time TCOs of every option on the grid, into 'grid'
 * (nv x FLIP_GRID x n_opt).
 */
static void flip_grid (struct sampler *S, double *grid)
{
    double u[MAX_VARS];
    for (size_t j = 0; j < S->nv; j++) {
        for (size_t k = 0; k < FLIP_GRID; k++) {
            for (size_t q = 0; q < S->nv; q++)
                u[q] = NAN;
            u[j] = (k + 0.5) / FLIP_GRID;
            size_t n = eval_at (S, u);
            for (size_t o = 0; o < S->n_opt; o++)
                grid[(j * FLIP_GRID + k) * S->n_opt + o]
                    = o < n && S->tmp[o].complete ? S->tmp[o].tco_usd : NAN;
        }
    }
}

/* Attribute each sample whose pick is not the recommendation to the row
 * whose draw alone moves the recommended option's TCO furthest toward
 * the winner's (the largest rise of TCO(rec) - TCO(winner) over the
 * values in force); a flip no single draw moves that way is not
 * attributed.  Fills ranges->flips, most frequent first.
 */
static void attribute_flips (struct sampler *S, const double *grid,
                             const double *u, const int *winner, size_t n,
                             const double *tco0, struct gp_plan_ranges *rg)
{
    size_t count[MAX_VARS] = {0};
    int b = S->r->recommended;
    for (size_t s = 0; s < n; s++) {
        int w = winner[s];
        if (w < 0 || w == b || b < 0)
            continue;
        double gap0 = tco0[b] - tco0[w];
        double best = 0;
        int bj = -1;
        for (size_t j = 0; j < S->nv; j++) {
            double ub = u[s * S->nv + j];
            double g = grid_tco (grid, S->n_opt, j, (size_t)b, ub)
                       - grid_tco (grid, S->n_opt, j, (size_t)w, ub) - gap0;
            if (isfinite (g) && g > best)
                best = g, bj = (int)j;
        }
        if (bj >= 0)
            count[bj]++;
    }
    rg->n_flips = 0;
    for (;;) {
        size_t bj = S->nv;
        for (size_t j = 0; j < S->nv; j++)
            if (count[j] > 0 && (bj == S->nv || count[j] > count[bj]))
                bj = j;
        if (bj == S->nv || rg->n_flips >= GP_PLAN_MAX_FLIPS)
            break;
        struct gp_plan_flip *f = &rg->flips[rg->n_flips++];
        snprintf (f->key, sizeof f->key, "%s", S->v[bj].key);
        f->count = count[bj];
        f->share = (double)count[bj] / (double)n;
        count[bj] = 0;
    }
}

/* ------------------------------- tornado ------------------------------- */

/* One row per sampled variable: every option evaluated with the variable
 * alone at its P10 and at its P90 (the others in force); the recommended
 * option's TCO and the pick on each side.  Returns the number of rows.
 */
static size_t tornado (struct sampler *S, struct gp_sens_row *rows)
{
    int b = S->r->recommended;
    size_t nr = 0;
    double u[MAX_VARS];
    for (size_t j = 0; j < S->nv && nr < GP_PLAN_MAX_SENS; j++) {
        struct gp_sens_row *row = &rows[nr++];
        memset (row, 0, sizeof *row);
        snprintf (row->param, sizeof row->param, "%s", S->v[j].key);
        for (int side = 0; side < 2; side++) {
            for (size_t q = 0; q < S->nv; q++)
                u[q] = NAN;
            u[j] = side ? 0.9 : 0.1;
            size_t n = eval_at (S, u);
            int pick = gp_plan_pick (S->tmp, n);
            double tco = b >= 0 && (size_t)b < n ? S->tmp[b].tco_usd : 0;
            snprintf (side ? row->rec_high : row->rec_low,
                      sizeof row->rec_low, "%s",
                      pick >= 0 ? S->tmp[pick].name : "(none)");
            if (side) {
                row->high_delta = factor_at (&S->v[j], u[j]);
                row->tco_high = tco;
            } else {
                row->low_delta = factor_at (&S->v[j], u[j]);
                row->tco_low = tco;
            }
        }
    }
    return nr;
}

/* ------------------------------- sampling ------------------------------ */

/* The centred Latin hypercube: u[s][j] = (perm_j[s] + 0.5) / n. */
static int draw (size_t n, size_t nv, unsigned long long seed, double *u)
{
    size_t *perm = malloc (n * sizeof *perm);
    if (!perm)
        return -1;
    uint64_t st = seed;
    for (size_t j = 0; j < nv; j++) {
        for (size_t s = 0; s < n; s++)
            perm[s] = s;
        for (size_t s = n - 1; s > 0; s--) {
            size_t k = (size_t)(gp__rng_u01 (&st) * (double)(s + 1));
            if (k > s)
                k = s;
            size_t t = perm[s];
            perm[s] = perm[k];
            perm[k] = t;
        }
        for (size_t s = 0; s < n; s++)
            u[s * nv + j] = ((double)perm[s] + 0.5) / (double)n;
    }
    free (perm);
    return 0;
}

static void sampler_fini (struct sampler *S)
{
    for (size_t l = 0; l < EFF_LEVELS; l++)
        for (size_t i = 0; i < GP_PLAN_MAX_OPTION_SPECS; i++)
            free (S->lv[l][i]);
    for (size_t i = 0; i < GP_PLAN_MAX_OPTION_SPECS; i++)
        for (size_t k = 0; k < 3; k++)
            free (S->c.sz[i][k]);
    gp_plan_memo_fini (&S->c.memo);
    gp_zoo_destroy (S->c.zoo);
    free (S->c.s);
    free (S->tmp);
}

static int sampler_init (struct sampler *S, const struct gp_plan_spec *spec,
                         const struct gp_catalog *cat,
                         const struct gp_plan_result *r, gp_error_t *err)
{
    memset (S, 0, sizeof *S);
    S->r = r;
    S->c.cat = cat;
    S->c.s = malloc (sizeof *S->c.s);
    if (!S->c.s)
        return gp_errprintf (err, GP_ENOMEM, "plan: out of memory");
    *S->c.s = *spec;
    S->c.pt = PLAN_NO_PERTURB;
    gp__plan_perturb_in_force (&S->c);
    gp_error_t e = {0};
    S->c.zoo = gp_zoo_load (NULL, &e);
    if (!S->c.zoo) {
        if (err)
            *err = e;
        return e.code ? e.code : GP_EINVAL;
    }
    S->n_opt = gp_plan_eval_all (&S->c, NULL);
    if (S->n_opt != r->n_options)
        return gp_errprintf (err, GP_EINVAL,
                             "plan: sampling: the result has %zu options, "
                             "the spec %zu: not a result of this spec",
                             r->n_options, S->n_opt);
    S->tmp = calloc (S->n_opt ? S->n_opt : 1, sizeof *S->tmp);
    if (!S->tmp)
        return gp_errprintf (err, GP_ENOMEM, "plan: out of memory");
    find_vars (S);
    return 0;
}

/* The per-sample matrices (n x n_opt; NAN = not feasible and costed,
 * tco: NAN = not costed) and picks.
 */
struct records {
    double *u, *factor, *tco, *tco_ok, *gpus, *ugh, *days, *tco0, *grid;
    int *winner;
};

static void records_free (struct records *m)
{
    free (m->u);
    free (m->factor);
    free (m->tco);
    free (m->tco_ok);
    free (m->gpus);
    free (m->ugh);
    free (m->days);
    free (m->tco0);
    free (m->grid);
    free (m->winner);
}

static int records_alloc (struct records *m, size_t n, size_t nv,
                          size_t n_opt)
{
    size_t no = n * (n_opt ? n_opt : 1);
    memset (m, 0, sizeof *m);
    m->u = malloc ((n * nv + 1) * sizeof *m->u);
    m->factor = malloc ((n * nv + 1) * sizeof *m->factor);
    m->tco = malloc (no * sizeof *m->tco);
    m->tco_ok = malloc (no * sizeof *m->tco_ok);
    m->gpus = malloc (no * sizeof *m->gpus);
    m->ugh = malloc (no * sizeof *m->ugh);
    m->days = malloc (no * sizeof *m->days);
    m->tco0 = malloc ((n_opt + 1) * sizeof *m->tco0);
    m->grid = malloc ((nv * FLIP_GRID * n_opt + 1) * sizeof *m->grid);
    m->winner = malloc (n * sizeof *m->winner);
    if (!m->u || !m->factor || !m->tco || !m->tco_ok || !m->gpus || !m->ugh
        || !m->days || !m->tco0 || !m->grid || !m->winner)
        return -1;
    return 0;
}

/* Evaluate sample s and record it. */
static void run_sample (struct sampler *S, struct records *m, size_t s)
{
    size_t nv = S->nv, no = S->n_opt;
    const double *u = m->u + s * nv;
    for (size_t j = 0; j < nv; j++)
        m->factor[s * nv + j] = factor_at (&S->v[j], u[j]);
    size_t n = eval_at (S, u);
    int level = S->eff_var >= 0 ? eff_level (u[S->eff_var]) : -1;
    m->winner[s] = gp_plan_pick (S->tmp, n);
    for (size_t i = 0; i < no; i++) {
        const struct gp_plan_option *o = &S->tmp[i];
        int ok = i < n && o->feasible && o->complete;
        m->tco[s * no + i] = i < n && o->complete ? o->tco_usd : NAN;
        m->tco_ok[s * no + i] = ok ? o->tco_usd : NAN;
        m->gpus[s * no + i] = ok ? (double)o->gpus : NAN;
        m->ugh[s * no + i] = ok ? o->usd_per_gpu_hour : NAN;
        m->days[s * no + i] = ok ? train_days (S, i, level) : NAN;
    }
}

static int build_ranges (struct sampler *S, struct records *m, size_t n,
                         unsigned long long seed, struct gp_plan_ranges **out)
{
    size_t no = S->n_opt;
    struct gp_plan_ranges *rg = calloc (1, sizeof *rg);
    double *work = malloc (n * sizeof *work);
    if (rg)
        rg->options = calloc (no ? no : 1, sizeof *rg->options);
    if (!rg || !work || !rg->options) {
        if (rg)
            free (rg->options);
        free (rg);
        free (work);
        return GP_ENOMEM;
    }
    rg->n_samples = n;
    rg->seed = seed;
    for (size_t i = 0; i < no; i++) {
        struct gp_plan_option_range *x = &rg->options[i];
        for (size_t s = 0; s < n; s++) {
            x->n_ok += !isnan (m->tco_ok[s * no + i]);
            x->n_cheapest += m->winner[s] == (int)i;
        }
        x->tco_usd = pct_of (m->tco_ok, n, no, i, work);
        x->gpus = pct_of (m->gpus, n, no, i, work);
        x->usd_per_gpu_hour = pct_of (m->ugh, n, no, i, work);
        x->train_days = pct_of (m->days, n, no, i, work);
    }
    int b = S->r->recommended;
    rg->win_share = b >= 0 ? (double)rg->options[b].n_cheapest / (double)n
                           : 0;
    free (work);
    *out = rg;
    return 0;
}

int gp_plan_sample (const struct gp_plan_spec *spec,
                    const struct gp_catalog *cat, struct gp_plan_result *r,
                    size_t n, unsigned long long seed, gp_error_t *err)
{
    if (!spec || !cat || !r)
        return gp_errprintf (err, GP_EINVAL,
                             "plan: sampling: missing spec, catalog or "
                             "result");
    if (n < 1 || n > GP_PLAN_MAX_SAMPLES)
        return gp_errprintf (err, GP_EINVAL,
                             "plan: sampling: %zu samples outside [1, %d]",
                             n, GP_PLAN_MAX_SAMPLES);
    struct sampler *S = malloc (sizeof *S);
    if (!S)
        return gp_errprintf (err, GP_ENOMEM, "plan: out of memory");
    struct records m;
    memset (&m, 0, sizeof m);
    struct gp_plan_ranges *rg = NULL;
    int rc = sampler_init (S, spec, cat, r, err);
    if (rc != 0)
        goto done;
    size_t nv = S->nv, no = S->n_opt;
    if (records_alloc (&m, n, nv, no) != 0 || draw (n, nv, seed, m.u) != 0) {
        rc = gp_errprintf (err, GP_ENOMEM, "plan: out of memory");
        goto done;
    }
    for (size_t s = 0; s < n; s++)
        run_sample (S, &m, s);
    /* the values in force, for the flips' reference gap */
    double none[MAX_VARS];
    for (size_t j = 0; j < MAX_VARS; j++)
        none[j] = NAN;
    size_t n0 = eval_at (S, none);
    for (size_t i = 0; i < no; i++)
        m.tco0[i] = i < n0 && S->tmp[i].complete ? S->tmp[i].tco_usd : NAN;
    if (build_ranges (S, &m, n, seed, &rg) != 0) {
        rc = gp_errprintf (err, GP_ENOMEM, "plan: out of memory");
        goto done;
    }
    int flipped = 0;
    for (size_t s = 0; s < n; s++)
        flipped |= m.winner[s] >= 0 && m.winner[s] != r->recommended;
    if (flipped && r->recommended >= 0) {
        flip_grid (S, m.grid);
        attribute_flips (S, m.grid, m.u, m.winner, n, m.tco0, rg);
    }
    if (S->c.failed || gp__plan_options_oom (S->tmp, no)) {
        rc = gp_errprintf (err, GP_ENOMEM, "plan: out of memory");
        goto done;
    }
    struct gp_sens_row rows[GP_PLAN_MAX_SENS];
    size_t n_rows = tornado (S, rows);
    if (r->ranges)
        free (r->ranges->options);
    free (r->ranges);
    r->ranges = rg;
    rg = NULL;
    gp__plan_sens_from_samples (r, rows, n_rows);
    gp_plan_summarize (r, spec);    /* its sensitivity rows changed */
done:
    if (rg)
        free (rg->options);
    free (rg);
    records_free (&m);
    sampler_fini (S);
    free (S);
    return rc;
}

struct gp_plan_result *gp_plan_run_sampled (const struct gp_plan_spec *spec,
                                            const struct gp_catalog *cat,
                                            size_t n,
                                            unsigned long long seed,
                                            gp_error_t *err)
{
    struct gp_plan_result *r = gp_plan_run (spec, cat, err);
    if (r && n > 0 && gp_plan_sample (spec, cat, r, n, seed, err) != 0) {
        gp_plan_result_destroy (r);
        r = NULL;
    }
    return r;
}
