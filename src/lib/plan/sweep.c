/* sweep.c - `plan --sweep KEY=A..B[:STEPS]`: the recommendation, its TCO
 * and GPUs and the number of feasible options at evenly spaced values of
 * one spec or registry key (docs/formats/plan.md, "Overrides and sweeps").
 *
 * Each point reads the spec with the value set, through the same
 * override path as --set (override.c), so the spec's checks judge every
 * value.  What is reused between points depends on the key:
 *   - constraints.budget, constraints.power, constraints.floor_racks
 *     enter only the constraint check (constraints.c), never an option's
 *     figures: the options are evaluated once (at the first value) and
 *     each point checks the constraints and picks again (exact);
 *   - any other key: each point is planned in full (gp_plan_run); the
 *     document and the catalog are read once.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_private.h"
#include "whatif_private.h"

/* Keys that only the constraint check reads. */
static const char *const check_only[] = {
    "constraints.budget", "constraints.power", "constraints.floor_racks",
    NULL,
};

/* Spec fields that are integers (spec.c: GP_F_INT): their sweep values
 * are rounded.
 */
static const char *const int_fields[] = {
    "floor_racks", "gpus", "gpus_per_node", "max_gpus", "nics_per_gpu",
    "priority", NULL,
};

static int in_list (const char *const *l, const char *s)
{
    for (size_t i = 0; l[i]; i++)
        if (!strcmp (l[i], s))
            return 1;
    return 0;
}

int gp_plan_sweep_parse (const char *arg, char *key, size_t n, double *a,
                         double *b, int *steps, gp_error_t *err)
{
    const char *eq = arg ? strchr (arg, '=') : NULL;
    const char *dd = eq ? strstr (eq + 1, "..") : NULL;
    if (!eq || eq == arg || !dd)
        return gp_errprintf (err, GP_EINVAL,
                             "--sweep %s: expected KEY=A..B[:STEPS]",
                             arg ? arg : "(null)");
    if ((size_t)(eq - arg) >= n)
        return gp_errprintf (err, GP_EINVAL, "--sweep: key too long");
    memcpy (key, arg, (size_t)(eq - arg));
    key[eq - arg] = 0;
    char lo[64], hi[64];
    const char *colon = strchr (dd + 2, ':');
    size_t la = (size_t)(dd - eq - 1);
    size_t lb = colon ? (size_t)(colon - dd - 2) : strlen (dd + 2);
    if (la == 0 || lb == 0 || la >= sizeof lo || lb >= sizeof hi)
        return gp_errprintf (err, GP_EINVAL,
                             "--sweep %s: expected KEY=A..B[:STEPS] with "
                             "numbers A and B", arg);
    memcpy (lo, eq + 1, la);
    lo[la] = 0;
    memcpy (hi, dd + 2, lb);
    hi[lb] = 0;
    enum gp_quantity q;
    if (gp__plan_key_quantity (key, &q)) {
        gp_error_t e = {0};
        if (gp_parse_quantity (lo, q, a, &e) || gp_parse_quantity (hi, q, b,
                                                                   &e))
            return gp_errprintf (err, GP_EINVAL, "--sweep %s: %s", arg,
                                 e.text);
    } else {
        char *e1, *e2;
        *a = strtod (lo, &e1);
        *b = strtod (hi, &e2);
        if (*e1 || *e2 || !isfinite (*a) || !isfinite (*b))
            return gp_errprintf (err, GP_EINVAL,
                                 "--sweep %s: A and B must be plain numbers "
                                 "in the key's unit (counts, shares, the "
                                 "registry row's unit)", arg);
    }
    if (!(*a < *b))
        return gp_errprintf (err, GP_EINVAL,
                             "--sweep %s: A must be less than B", arg);
    *steps = GP_PLAN_SWEEP_STEPS;
    if (colon) {
        char *e3;
        long k = strtol (colon + 1, &e3, 10);
        if (*e3 || colon[1] == 0 || k < 2 || k > GP_PLAN_SWEEP_MAX_STEPS)
            return gp_errprintf (err, GP_EINVAL,
                                 "--sweep %s: STEPS must be an integer from "
                                 "2 to %d", arg, GP_PLAN_SWEEP_MAX_STEPS);
        *steps = (int)k;
    }
    return 0;
}

/* Read the spec of 'doc' with 'sets' and 'key' = 'v'. */
static struct gp_plan_spec *point_spec (const struct gp_doc *doc,
                                        const char *const *sets,
                                        size_t n_sets, const char *key,
                                        double v, const char **all,
                                        const struct gp_catalog *cat,
                                        gp_error_t *err)
{
    char set[GP_PLAN_TEXT + 40];
    snprintf (set, sizeof set, "%s=%.17g", key, v);
    for (size_t i = 0; i < n_sets; i++)
        all[i] = sets[i];
    all[n_sets] = set;
    gp_error_t e = {0};
    struct gp_plan_spec *s = gp_plan_spec_from_doc_set (doc, all, n_sets + 1,
                                                        cat, &e);
    if (!s) {
        if (!strncmp (e.text, "--set ", 6) && !strncmp (e.text + 6, key,
                                                        strlen (key)))
            gp_errprintf (err, e.code, "--sweep %s=%.6g: %s", key, v,
                          e.text + 6 + strlen (key)
                              + (e.text[6 + strlen (key)] == ':' ? 2 : 0));
        else if (err)
            *err = e;
    }
    return s;
}

static void record (struct gp_plan_sweep_point *p,
                    const struct gp_plan_option *o, size_t n, int pick)
{
    p->n_feasible = 0;
    for (size_t i = 0; i < n; i++)
        p->n_feasible += o[i].feasible && o[i].complete;
    p->status = pick >= 0 ? 0 : GP_EINFEASIBLE;
    if (pick >= 0) {
        snprintf (p->recommended, sizeof p->recommended, "%s",
                  o[pick].name);
        p->tco_usd = o[pick].tco_usd;
        p->gpus = o[pick].gpus;
    }
}

/* Points of a check-only key: the options of 'base' checked again under
 * each point's constraints.
 */
static int sweep_checks (const struct gp_doc *doc, const char *const *sets,
                         size_t n_sets, const char **all,
                         const struct gp_catalog *cat,
                         const struct gp_plan_result *base,
                         struct gp_plan_sweep *sw, gp_error_t *err)
{
    struct gp_plan_option *tmp = calloc (base->n_options ? base->n_options
                                                         : 1,
                                         sizeof *tmp);
    if (!tmp)
        return gp_errprintf (err, GP_ENOMEM, "sweep: out of memory");
    for (size_t i = 0; i < sw->n_points; i++) {
        struct gp_plan_sweep_point *p = &sw->points[i];
        struct gp_plan_spec *s = point_spec (doc, sets, n_sets, sw->key,
                                             p->value, all, cat, err);
        if (!s) {
            free (tmp);
            return err ? err->code : GP_EINVAL;
        }
        struct plan_ctx c;
        memset (&c, 0, sizeof c);
        c.s = s;
        c.cat = cat;
        memcpy (tmp, base->options, base->n_options * sizeof *tmp);
        for (size_t k = 0; k < base->n_options; k++)
            gp_plan_check_constraints (&c, &tmp[k]);
        record (p, tmp, base->n_options, gp_plan_pick (tmp,
                                                       base->n_options));
        gp_plan_spec_destroy (s);
    }
    free (tmp);
    return 0;
}

/* Points of any other key: each planned in full. */
static int sweep_full (const struct gp_doc *doc, const char *const *sets,
                       size_t n_sets, const char **all,
                       const struct gp_catalog *cat, struct gp_plan_sweep *sw,
                       gp_error_t *err)
{
    for (size_t i = 0; i < sw->n_points; i++) {
        struct gp_plan_sweep_point *p = &sw->points[i];
        struct gp_plan_spec *s = point_spec (doc, sets, n_sets, sw->key,
                                             p->value, all, cat, err);
        struct gp_plan_result *r = s ? gp_plan_run (s, cat, err) : NULL;
        gp_plan_spec_destroy (s);
        if (!r)
            return err ? err->code : GP_EINVAL;
        record (p, r->options, r->n_options, r->recommended);
        p->status = gp_plan_status (r, NULL);
        gp_plan_result_destroy (r);
    }
    return 0;
}

struct gp_plan_sweep *gp_plan_sweep_run (const struct gp_doc *doc,
                                         const char *const *sets,
                                         size_t n_sets, const char *sweep,
                                         const struct gp_catalog *cat,
                                         gp_error_t *err)
{
    char key[GP_PLAN_TEXT];
    double a, b;
    int steps;
    if (!doc || !cat || (n_sets && !sets)) {
        gp_errprintf (err, GP_EINVAL, "sweep: missing document or catalog");
        return NULL;
    }
    if (gp_plan_sweep_parse (sweep, key, sizeof key, &a, &b, &steps, err))
        return NULL;
    struct gp_plan_sweep *sw = calloc (1, sizeof *sw);
    const char **all = calloc (n_sets + 1, sizeof *all);
    if (sw)
        sw->points = calloc ((size_t)steps, sizeof *sw->points);
    if (!sw || !all || !sw->points) {
        free (all);
        gp_plan_sweep_destroy (sw);
        gp_errprintf (err, GP_ENOMEM, "sweep: out of memory");
        return NULL;
    }
    snprintf (sw->key, sizeof sw->key, "%s", key);
    sw->has_quantity = gp__plan_key_quantity (key, &sw->quantity);
    int row = sw->has_quantity ? -1 : gp_default_lookup (key, NULL);
    const struct gp_default_info *info
        = row >= 0 ? gp_default_info ((size_t)row) : NULL;
    if (info && info->unit)
        snprintf (sw->unit, sizeof sw->unit, "%s", info->unit);
    sw->from = a;
    sw->to = b;
    sw->n_points = (size_t)steps;
    const char *last = strrchr (key, '.');
    double step = (b - a) / (steps - 1);
    int integral = in_list (int_fields, last ? last + 1 : key)
                   || (a == floor (a) && step == floor (step));
    for (int i = 0; i < steps; i++) {
        double v = i == steps - 1 ? b : a + step * i;
        sw->points[i].value = integral ? round (v) : v;
    }
    sw->reuse = in_list (check_only, key) ? GP_SWEEP_REUSE_OPTIONS
                                          : GP_SWEEP_REUSE_SPEC;
    int rc;
    if (sw->reuse == GP_SWEEP_REUSE_OPTIONS) {
        struct gp_plan_spec *s = point_spec (doc, sets, n_sets, key,
                                             sw->points[0].value, all, cat,
                                             err);
        struct gp_plan_result *r = s ? gp_plan_run (s, cat, err) : NULL;
        gp_plan_spec_destroy (s);
        rc = r ? sweep_checks (doc, sets, n_sets, all, cat, r, sw, err)
               : -1;
        gp_plan_result_destroy (r);
    } else {
        rc = sweep_full (doc, sets, n_sets, all, cat, sw, err);
    }
    free (all);
    if (rc != 0) {
        gp_plan_sweep_destroy (sw);
        return NULL;
    }
    for (size_t i = 1; i < sw->n_points; i++)
        sw->points[i].changed = strcmp (sw->points[i].recommended,
                                        sw->points[i - 1].recommended)
                                != 0;
    return sw;
}

void gp_plan_sweep_destroy (struct gp_plan_sweep *sw)
{
    if (!sw)
        return;
    free (sw->points);
    free (sw);
}
