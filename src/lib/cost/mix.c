/* mix.c - the cheapest mix of reserved/committed, on-demand and spot
 * capacity that covers a demand curve, as a linear program solved by GLPK.
 *
 * Variables: x_jb (units of commitment product j bought for block b, one
 * block per term), o_t (on-demand units in period t), s_t (spot units paid
 * in period t).  Rows: coverage of each period's demand, and the spot cap
 * per period (the smaller of spot_max_share x d_t and the demand that
 * tolerates preemption).  Obtainable capacity bounds the columns.  The
 * model is written out in gpuplan/cost.h and docs/model/cost.md.  GLPK's terminal output is switched off and its
 * environment is freed after each solve (the library never prints).
 */
#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/cost.h"

void gp_mix_free (struct gp_mix *m)
{
    if (!m)
        return;
    free (m->commit);
    free (m->on_demand);
    free (m->spot);
    m->commit = m->on_demand = m->spot = NULL;
}

static int check (const struct gp_mix_in *in, gp_error_t *err)
{
    if (!in || in->n_periods < 1 || !in->demand)
        return gp_errprintf (err, GP_EINVAL, "mix: no demand periods");
    if (!(in->period_hours > 0))
        return gp_errprintf (err, GP_EINVAL, "mix: period length must be > 0");
    if (in->n_commit > GP_MIX_MAX_COMMIT)
        return gp_errprintf (err, GP_EINVAL, "mix: at most %d commitments",
                             GP_MIX_MAX_COMMIT);
    if (!(in->on_demand_price >= 0) || !(in->spot_price >= 0)
        || !(in->spot_overhead >= 0) || !(in->spot_max_share >= 0)
        || in->spot_max_share > 1)
        return gp_errprintf (err, GP_EINVAL,
                             "mix: prices must be >= 0 and the spot share in "
                             "0..1");
    for (size_t j = 0; j < in->n_commit; j++)
        if (!(in->commit_price[j] > 0) || in->commit_term_periods[j] < 1)
            return gp_errprintf (err, GP_EINVAL,
                                 "mix: commitment %zu needs a price > 0 and a "
                                 "term >= 1 period",
                                 j);
    for (size_t t = 0; t < in->n_periods; t++)
        if (!(in->demand[t] >= 0) || !isfinite (in->demand[t])
            || (in->spot_cap && !(in->spot_cap[t] >= 0)))
            return gp_errprintf (err, GP_EINVAL,
                                 "mix: demand or spot cap of period %zu is "
                                 "not >= 0", t);
    if (!(in->max_on_demand >= 0) || !(in->max_spot >= 0))
        return gp_errprintf (err, GP_EINVAL, "mix: capacity caps must be "
                                             ">= 0 (0 = none)");
    for (size_t j = 0; j < in->n_commit; j++)
        if (!(in->max_commit[j] >= 0))
            return gp_errprintf (err, GP_EINVAL, "mix: capacity caps must be "
                                                 ">= 0 (0 = none)");
    return 0;
}

/* Column layout of the LP: commitment blocks first (commitment j has
 * nb[j] consecutive blocks of its term from column first[j]), then one
 * on-demand column per period from o0, then one spot column per period
 * from s0 (0-based; GLPK columns are these + 1).
 */
struct lp_layout {
    size_t T;
    double h;             /* hours per period */
    int spot_ok;
    double eff;           /* useful share of a spot hour */
    size_t nb[GP_MIX_MAX_COMMIT], first[GP_MIX_MAX_COMMIT];
    size_t o0, s0, n_cols;
};

static void layout (const struct gp_mix_in *in, struct lp_layout *L)
{
    memset (L, 0, sizeof *L);
    L->T = in->n_periods;
    L->h = in->period_hours;
    L->spot_ok = in->spot_price > 0 && in->spot_overhead < 1
                 && in->spot_max_share > 0;
    L->eff = L->spot_ok ? 1 - in->spot_overhead : 0;
    for (size_t j = 0; j < in->n_commit; j++) {
        size_t term = (size_t)in->commit_term_periods[j];
        L->nb[j] = (L->T + term - 1) / term;
        L->first[j] = L->n_cols;
        L->n_cols += L->nb[j];
    }
    L->o0 = L->n_cols;
    L->s0 = L->n_cols + L->T;
    L->n_cols += 2 * L->T;
}

/* Column bounds: [0, cap] when a capacity cap is set, [0, inf) else. */
static void set_bounds (glp_prob *lp, int col, double cap)
{
    if (cap > 0)
        glp_set_col_bnds (lp, col, GLP_DB, 0, cap);
    else
        glp_set_col_bnds (lp, col, GLP_LO, 0, 0);
}

/* Bounds, kinds and objective coefficients of every column. */
static void add_columns (glp_prob *lp, const struct gp_mix_in *in,
                         const struct lp_layout *L)
{
    glp_add_cols (lp, (int)L->n_cols);
    for (size_t j = 0; j < in->n_commit; j++) {
        double c = in->commit_price[j] * in->commit_term_periods[j] * L->h;
        for (size_t b = 0; b < L->nb[j]; b++) {
            int col = (int)(L->first[j] + b) + 1;
            set_bounds (lp, col, in->max_commit[j]);
            glp_set_obj_coef (lp, col, c);
            if (in->integer)
                glp_set_col_kind (lp, col, GLP_IV);
        }
    }
    for (size_t t = 0; t < L->T; t++) {
        int oc = (int)(L->o0 + t) + 1, sc = (int)(L->s0 + t) + 1;
        if (in->on_demand_price > 0)
            set_bounds (lp, oc, in->max_on_demand);
        else
            glp_set_col_bnds (lp, oc, GLP_FX, 0, 0);
        glp_set_obj_coef (lp, oc, in->on_demand_price * L->h);
        if (L->spot_ok)
            set_bounds (lp, sc, in->max_spot);
        else
            glp_set_col_bnds (lp, sc, GLP_FX, 0, 0);
        glp_set_obj_coef (lp, sc, in->spot_price * L->h);
    }
}

/* Row t: coverage of period t's demand; row T + t: its spot cap.  Fills
 * the 1-based triplets (each row has at most n_commit + 2 entries) and
 * loads them.
 */
static void add_rows (glp_prob *lp, const struct gp_mix_in *in,
                      const struct lp_layout *L, int *ia, int *ja, double *ar)
{
    glp_add_rows (lp, (int)(2 * L->T));
    size_t ne = 0;
    for (size_t t = 0; t < L->T; t++) {
        int row = (int)t + 1;
        glp_set_row_bnds (lp, row, GLP_LO, in->demand[t], 0);
        for (size_t j = 0; j < in->n_commit; j++) {
            size_t b = t / (size_t)in->commit_term_periods[j];
            ++ne;
            ia[ne] = row, ja[ne] = (int)(L->first[j] + b) + 1, ar[ne] = 1;
        }
        ++ne;
        ia[ne] = row, ja[ne] = (int)(L->o0 + t) + 1, ar[ne] = 1;
        ++ne;
        ia[ne] = row, ja[ne] = (int)(L->s0 + t) + 1, ar[ne] = L->eff;
        int crow = (int)(L->T + t) + 1;
        double scap = in->spot_max_share * in->demand[t];
        if (in->spot_cap && in->spot_cap[t] < scap)
            scap = in->spot_cap[t];
        glp_set_row_bnds (lp, crow, GLP_UP, 0, L->spot_ok ? scap : 0);
        ++ne;
        ia[ne] = crow, ja[ne] = (int)(L->s0 + t) + 1, ar[ne] = L->eff;
    }
    glp_load_matrix (lp, (int)ne, ia, ja, ar);
}

/* Solve as a MIP ('integer') or an LP.  Returns 0, GP_EINFEASIBLE or
 * GP_EINTERNAL (no message).
 */
static int solve (glp_prob *lp, int integer)
{
    int status;
    if (integer) {
        glp_iocp p;
        glp_init_iocp (&p);
        p.presolve = GLP_ON;
        p.msg_lev = GLP_MSG_OFF;
        p.tm_lim = 10000; /* ms; the LP bound is tight, see below */
        p.mip_gap = 1e-9;
        int r = glp_intopt (lp, &p);
        status = glp_mip_status (lp);
        if (r == GLP_ENOPFS || status == GLP_NOFEAS)
            return GP_EINFEASIBLE;
        if ((r != 0 && r != GLP_ETMLIM)
            || (status != GLP_OPT && status != GLP_FEAS))
            return GP_EINTERNAL;
        return 0;
    }
    glp_smcp p;
    glp_init_smcp (&p);
    p.presolve = GLP_ON;
    p.msg_lev = GLP_MSG_OFF;
    int r = glp_simplex (lp, &p);
    status = glp_get_status (lp);
    if (r == GLP_ENOPFS || status == GLP_NOFEAS)
        return GP_EINFEASIBLE;
    if (r != 0 || status != GLP_OPT)
        return GP_EINTERNAL;
    return 0;
}

/* Read the optimum into 'm' (its arrays allocated by the caller). */
static void read_solution (glp_prob *lp, const struct gp_mix_in *in,
                           const struct lp_layout *L, struct gp_mix *m)
{
    size_t T = L->T;
    double h = L->h;
#define VAL(col) (in->integer ? glp_mip_col_val (lp, (col)) \
                              : glp_get_col_prim (lp, (col)))
    for (size_t j = 0; j < in->n_commit; j++) {
        double c = in->commit_price[j] * in->commit_term_periods[j] * h;
        for (size_t b = 0; b < L->nb[j]; b++) {
            double x = VAL ((int)(L->first[j] + b) + 1);
            m->commit_cost[j] += x * c;
        }
        for (size_t t = 0; t < T; t++) {
            size_t b = t / (size_t)in->commit_term_periods[j];
            m->commit[j * T + t] = VAL ((int)(L->first[j] + b) + 1);
        }
        m->cost += m->commit_cost[j];
    }
    for (size_t t = 0; t < T; t++) {
        m->on_demand[t] = VAL ((int)(L->o0 + t) + 1);
        m->spot[t] = VAL ((int)(L->s0 + t) + 1);
        m->on_demand_cost += m->on_demand[t] * in->on_demand_price * h;
        m->spot_cost += m->spot[t] * in->spot_price * h;
        m->demand_unit_hours += in->demand[t] * h;
    }
#undef VAL
    m->cost += m->on_demand_cost + m->spot_cost;
    m->usd_per_unit_hour = m->demand_unit_hours > 0
                               ? m->cost / m->demand_unit_hours
                               : 0;
}

int gp_mix_solve (const struct gp_mix_in *in,
                  struct gp_mix *out,
                  gp_error_t *err)
{
    int rc = check (in, err);
    if (rc < 0)
        return rc;
    struct lp_layout L;
    layout (in, &L);
    size_t T = L.T;
    struct gp_mix m = {0};
    m.commit = calloc (in->n_commit * T + 1, sizeof (double));
    m.on_demand = calloc (T, sizeof (double));
    m.spot = calloc (T, sizeof (double));
    size_t cap = 2 * T * (in->n_commit + 2) + 1;
    int *ia = malloc (cap * sizeof (int));
    int *ja = malloc (cap * sizeof (int));
    double *ar = malloc (cap * sizeof (double));
    glp_prob *lp = NULL;
    if (!m.commit || !m.on_demand || !m.spot || !ia || !ja || !ar) {
        rc = gp_errprintf (err, GP_ENOMEM, "mix: out of memory");
        goto done;
    }
    glp_term_out (GLP_OFF);
    lp = glp_create_prob ();
    glp_set_obj_dir (lp, GLP_MIN);
    add_columns (lp, in, &L);
    add_rows (lp, in, &L, ia, ja, ar);
    rc = solve (lp, in->integer);
    if (rc == GP_EINFEASIBLE) {
        rc = gp_errprintf (err, GP_EINFEASIBLE,
                           "mix: the offered pricing models cannot cover the "
                           "demand (no on-demand price, or capacity and spot "
                           "caps below it)");
        goto done;
    }
    if (rc < 0) {
        rc = gp_errprintf (err, GP_EINTERNAL, "mix: GLPK did not reach an "
                                              "optimum");
        goto done;
    }
    read_solution (lp, in, &L, &m);
    *out = m;
    m.commit = m.on_demand = m.spot = NULL;
    rc = 0;
done:
    if (lp)
        glp_delete_prob (lp);
    glp_free_env ();
    free (ia);
    free (ja);
    free (ar);
    gp_mix_free (&m);
    return rc;
}
