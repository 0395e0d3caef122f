/* mix.c - the cheapest mix of reserved/committed, on-demand and spot
 * capacity that covers a demand curve, as a linear program solved by GLPK.
 *
 * Variables: x_jb (units of commitment product j bought for block b, one
 * block per term), o_t (on-demand units in period t), s_t (spot units paid
 * in period t).  Rows: coverage of each period's demand, and the spot cap
 * per period.  The model is written out in gpuplan/cost.h and
 * docs/model/cost.md.  GLPK's terminal output is switched off and its
 * environment is freed after each solve (the library never prints).
 */
#include <glpk.h>
#include <math.h>
#include <stdlib.h>

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
        if (!(in->demand[t] >= 0) || !isfinite (in->demand[t]))
            return gp_errprintf (err, GP_EINVAL,
                                 "mix: demand of period %zu is not >= 0", t);
    return 0;
}

int gp_mix_solve (const struct gp_mix_in *in,
                  struct gp_mix *out,
                  gp_error_t *err)
{
    int rc = check (in, err);
    if (rc < 0)
        return rc;
    size_t T = in->n_periods;
    double h = in->period_hours;
    int spot_ok = in->spot_price > 0 && in->spot_overhead < 1
                  && in->spot_max_share > 0;
    double eff = spot_ok ? 1 - in->spot_overhead : 0;
    size_t nb[GP_MIX_MAX_COMMIT] = {0}, first[GP_MIX_MAX_COMMIT] = {0};
    size_t n_cols = 0;
    for (size_t j = 0; j < in->n_commit; j++) {
        size_t L = (size_t)in->commit_term_periods[j];
        nb[j] = (T + L - 1) / L;
        first[j] = n_cols;
        n_cols += nb[j];
    }
    size_t o0 = n_cols, s0 = n_cols + T;
    n_cols += 2 * T;

    struct gp_mix m = {0};
    m.commit = calloc (in->n_commit * T + 1, sizeof (double));
    m.on_demand = calloc (T, sizeof (double));
    m.spot = calloc (T, sizeof (double));
    /* Row t: coverage; row T + t: spot cap.  Each row has at most
     * n_commit + 2 entries.
     */
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
    glp_add_cols (lp, (int)n_cols);
    for (size_t j = 0; j < in->n_commit; j++) {
        double c = in->commit_price[j] * in->commit_term_periods[j] * h;
        for (size_t b = 0; b < nb[j]; b++) {
            int col = (int)(first[j] + b) + 1;
            glp_set_col_bnds (lp, col, GLP_LO, 0, 0);
            glp_set_obj_coef (lp, col, c);
            if (in->integer)
                glp_set_col_kind (lp, col, GLP_IV);
        }
    }
    for (size_t t = 0; t < T; t++) {
        int oc = (int)(o0 + t) + 1, sc = (int)(s0 + t) + 1;
        if (in->on_demand_price > 0)
            glp_set_col_bnds (lp, oc, GLP_LO, 0, 0);
        else
            glp_set_col_bnds (lp, oc, GLP_FX, 0, 0);
        glp_set_obj_coef (lp, oc, in->on_demand_price * h);
        if (spot_ok)
            glp_set_col_bnds (lp, sc, GLP_LO, 0, 0);
        else
            glp_set_col_bnds (lp, sc, GLP_FX, 0, 0);
        glp_set_obj_coef (lp, sc, in->spot_price * h);
    }
    glp_add_rows (lp, (int)(2 * T));
    size_t ne = 0;
    for (size_t t = 0; t < T; t++) {
        int row = (int)t + 1;
        glp_set_row_bnds (lp, row, GLP_LO, in->demand[t], 0);
        for (size_t j = 0; j < in->n_commit; j++) {
            size_t b = t / (size_t)in->commit_term_periods[j];
            ++ne;
            ia[ne] = row, ja[ne] = (int)(first[j] + b) + 1, ar[ne] = 1;
        }
        ++ne;
        ia[ne] = row, ja[ne] = (int)(o0 + t) + 1, ar[ne] = 1;
        ++ne;
        ia[ne] = row, ja[ne] = (int)(s0 + t) + 1, ar[ne] = eff;
        int crow = (int)(T + t) + 1;
        glp_set_row_bnds (lp, crow, GLP_UP, 0,
                          spot_ok ? in->spot_max_share * in->demand[t] : 0);
        ++ne;
        ia[ne] = crow, ja[ne] = (int)(s0 + t) + 1, ar[ne] = eff;
    }
    glp_load_matrix (lp, (int)ne, ia, ja, ar);
    int status;
    if (in->integer) {
        glp_iocp p;
        glp_init_iocp (&p);
        p.presolve = GLP_ON;
        p.msg_lev = GLP_MSG_OFF;
        p.tm_lim = 10000; /* ms; the LP bound is tight, see below */
        p.mip_gap = 1e-9;
        int r = glp_intopt (lp, &p);
        status = glp_mip_status (lp);
        if (r == GLP_ENOPFS || status == GLP_NOFEAS) {
            rc = GP_EINFEASIBLE;
        } else if ((r != 0 && r != GLP_ETMLIM)
                   || (status != GLP_OPT && status != GLP_FEAS)) {
            rc = GP_EINTERNAL;
        }
    } else {
        glp_smcp p;
        glp_init_smcp (&p);
        p.presolve = GLP_ON;
        p.msg_lev = GLP_MSG_OFF;
        int r = glp_simplex (lp, &p);
        status = glp_get_status (lp);
        if (r == GLP_ENOPFS || status == GLP_NOFEAS)
            rc = GP_EINFEASIBLE;
        else if (r != 0 || status != GLP_OPT)
            rc = GP_EINTERNAL;
    }
    if (rc == GP_EINFEASIBLE) {
        rc = gp_errprintf (err, GP_EINFEASIBLE,
                           "mix: the offered pricing models cannot cover the "
                           "demand (no on-demand price and spot capped)");
        goto done;
    }
    if (rc < 0) {
        rc = gp_errprintf (err, GP_EINTERNAL, "mix: GLPK did not reach an "
                                              "optimum");
        goto done;
    }
#define VAL(col) (in->integer ? glp_mip_col_val (lp, (col)) \
                              : glp_get_col_prim (lp, (col)))
    for (size_t j = 0; j < in->n_commit; j++) {
        double c = in->commit_price[j] * in->commit_term_periods[j] * h;
        for (size_t b = 0; b < nb[j]; b++) {
            double x = VAL ((int)(first[j] + b) + 1);
            m.commit_cost[j] += x * c;
        }
        for (size_t t = 0; t < T; t++) {
            size_t b = t / (size_t)in->commit_term_periods[j];
            m.commit[j * T + t] = VAL ((int)(first[j] + b) + 1);
        }
        m.cost += m.commit_cost[j];
    }
    for (size_t t = 0; t < T; t++) {
        m.on_demand[t] = VAL ((int)(o0 + t) + 1);
        m.spot[t] = VAL ((int)(s0 + t) + 1);
        m.on_demand_cost += m.on_demand[t] * in->on_demand_price * h;
        m.spot_cost += m.spot[t] * in->spot_price * h;
        m.demand_unit_hours += in->demand[t] * h;
    }
#undef VAL
    m.cost += m.on_demand_cost + m.spot_cost;
    m.usd_per_unit_hour = m.demand_unit_hours > 0
                              ? m.cost / m.demand_unit_hours
                              : 0;
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
