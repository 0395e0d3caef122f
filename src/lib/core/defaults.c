/* defaults.c - the defaults registry (include/gpuplan/defaults.h).
 *
 * The rows come from GP_DEFAULTS_MAP; lookups by key are linear (the table
 * is small and read at set-up, never on a hot path).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/defaults.h"
#include "gpuplan/names.h"

static const struct gp_default_info rows[GP_DEF__COUNT] = {
#define GP__DEF_ROW(id, key, value, text, unit, users, source)                \
    {GP_DEF_##id, key, value, text, unit, users, source},
    GP_DEFAULTS_MAP (GP__DEF_ROW)
#undef GP__DEF_ROW
};

size_t gp_defaults_count (void)
{
    return GP_DEF__COUNT;
}

const struct gp_default_info *gp_default_info (size_t i)
{
    return i < GP_DEF__COUNT ? &rows[i] : NULL;
}

void gp_defaults_init (struct gp_defaults *d)
{
    for (size_t i = 0; i < GP_DEF__COUNT; i++) {
        d->v[i] = rows[i].value;
        snprintf (d->text[i], sizeof d->text[i], "%s",
                  rows[i].text ? rows[i].text : "");
        d->overridden[i] = 0;
    }
}

int gp_default_lookup (const char *key, gp_error_t *err)
{
    if (!key)
        return gp_errprintf (err, GP_EINVAL, "defaults: no key given");
    const char *keys[GP_DEF__COUNT];
    for (size_t i = 0; i < GP_DEF__COUNT; i++) {
        if (strcmp (rows[i].key, key) == 0)
            return (int)i;
        keys[i] = rows[i].key;
    }
    char near[256];
    if (gp_closest_names (key, keys, GP_DEF__COUNT, 3, near, sizeof near))
        return gp_errprintf (err, GP_ENOTFOUND,
                             "unknown default '%s' (did you mean %s?)", key,
                             near);
    return gp_errprintf (err, GP_ENOTFOUND,
                         "unknown default '%s' (`gpuplan assumptions` lists "
                         "them)", key);
}

int gp_defaults_set (struct gp_defaults *d, const char *key, double value,
                     gp_error_t *err)
{
    int id = gp_default_lookup (key, err);
    if (id < 0)
        return id;
    if (rows[id].text)
        return gp_errprintf (err, GP_EINVAL,
                             "default '%s' is a word (%s), not a number",
                             key, rows[id].text);
    if (!isfinite (value) || value < 0)
        return gp_errprintf (err, GP_ERANGE,
                             "default '%s': %g is not a finite value >= 0",
                             key, value);
    d->v[id] = value;
    d->overridden[id] = 1;
    return 0;
}

double gp_default (const struct gp_defaults *d, enum gp_default_id id)
{
    if ((unsigned)id >= GP_DEF__COUNT)
        return NAN;
    return d ? d->v[id] : rows[id].value;
}

int gp_defaults_set_text (struct gp_defaults *d, const char *key,
                          const char *text, gp_error_t *err)
{
    int id = gp_default_lookup (key, err);
    if (id < 0)
        return id;
    if (!rows[id].text)
        return gp_errprintf (err, GP_EINVAL,
                             "default '%s' is a number, not a word", key);
    if (!text || !*text || strlen (text) >= GP_DEFAULT_TEXT_MAX)
        return gp_errprintf (err, GP_EINVAL,
                             "default '%s': expected a word of 1 to %d "
                             "characters", key, GP_DEFAULT_TEXT_MAX - 1);
    snprintf (d->text[id], sizeof d->text[id], "%s", text);
    d->overridden[id] = 1;
    return 0;
}

const char *gp_default_text (const struct gp_defaults *d,
                             enum gp_default_id id)
{
    if ((unsigned)id >= GP_DEF__COUNT || !rows[id].text)
        return NULL;
    return d ? d->text[id] : rows[id].text;
}

int gp_default_used_by (const struct gp_default_info *row,
                        const char *model)
{
    if (!row || !model || !*model)
        return 0;
    size_t n = strlen (model);
    for (const char *p = row->users; p && *p;) {
        const char *e = strchr (p, ',');
        size_t len = e ? (size_t)(e - p) : strlen (p);
        if (len == n && strncmp (p, model, n) == 0)
            return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

int gp_defaults_set_str (struct gp_defaults *d, const char *assignment,
                         gp_error_t *err)
{
    const char *eq = assignment ? strchr (assignment, '=') : NULL;
    if (!eq || eq == assignment || !eq[1])
        return gp_errprintf (err, GP_EINVAL,
                             "expected KEY=VALUE, got '%s'",
                             assignment ? assignment : "");
    char key[96];
    size_t n = (size_t)(eq - assignment);
    if (n >= sizeof key)
        return gp_errprintf (err, GP_ENOTFOUND, "unknown default '%.*s'",
                             (int)n, assignment);
    memcpy (key, assignment, n);
    key[n] = '\0';
    int id = gp_default_lookup (key, err);
    if (id < 0)
        return id;
    if (rows[id].text)
        return gp_defaults_set_text (d, key, eq + 1, err);
    char *end = NULL;
    double v = strtod (eq + 1, &end);
    if (!end || end == eq + 1 || *end)
        return gp_errprintf (err, GP_EINVAL,
                             "default '%s': '%s' is not a number (in %s)",
                             key, eq + 1, rows[id].unit);
    return gp_defaults_set (d, key, v, err);
}

/* ------------------------- distributions ------------------------------- */

static const struct gp_default_dist dists[] = {
#define GP__DIST_ROW(key, kind, a, b, c, source)                              \
    {key, GP_DIST_##kind, a, b, c, source},
    GP_DEFAULT_DISTS (GP__DIST_ROW)
#undef GP__DIST_ROW
};

#define N_DISTS (sizeof dists / sizeof dists[0])

const char *gp_dist_kind_str (enum gp_dist_kind k)
{
    switch (k) {
    case GP_DIST_NORMAL:
        return "normal";
    case GP_DIST_LOGNORMAL:
        return "lognormal";
    case GP_DIST_TRIANGULAR:
        return "triangular";
    case GP_DIST_UNIFORM:
        return "uniform";
    }
    return "?";
}

size_t gp_default_dists_count (void)
{
    return N_DISTS;
}

const struct gp_default_dist *gp_default_dist_at (size_t i)
{
    return i < N_DISTS ? &dists[i] : NULL;
}

const struct gp_default_dist *gp_default_dist (enum gp_default_id id)
{
    if ((unsigned)id >= GP_DEF__COUNT)
        return NULL;
    for (size_t i = 0; i < N_DISTS; i++)
        if (strcmp (dists[i].key, rows[id].key) == 0)
            return &dists[i];
    return NULL;
}

/* The standard normal quantile: Acklam's rational approximation (relative
 * error below 1.15e-9 over (0, 1)), P. J. Acklam, "An algorithm for
 * computing the inverse normal cumulative distribution function" (2003).
 */
static double norm_quantile (double p)
{
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                               -2.759285104469687e+02, 1.383577518672690e+02,
                               -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                               -1.556989798598866e+02, 6.680131188771972e+01,
                               -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                               -2.400758277161838e+00, -2.549732539343734e+00,
                               4.374664141464968e+00, 2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                               2.445134137142996e+00, 3.754408661907416e+00};
    const double lo = 0.02425;
    if (p < lo) {
        double q = sqrt (-2 * log (p));
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q
                + c[5])
               / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
    if (p > 1 - lo)
        return -norm_quantile (1 - p);
    double q = p - 0.5, r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r
            + a[5]) * q
           / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r
              + 1);
}

double gp_default_dist_quantile (const struct gp_default_dist *d, double u)
{
    if (!d || !(u > 0 && u < 1))
        return NAN;
    switch (d->kind) {
    case GP_DIST_NORMAL:
        return fmax (0, 1 + d->a * norm_quantile (u));
    case GP_DIST_LOGNORMAL:
        return exp (d->a * norm_quantile (u));
    case GP_DIST_TRIANGULAR: {
        double lo = d->a, m = d->b, hi = d->c;
        if (!(hi > lo))
            return m;
        double f = (m - lo) / (hi - lo);
        if (u < f)
            return lo + sqrt (u * (hi - lo) * (m - lo));
        return hi - sqrt ((1 - u) * (hi - lo) * (hi - m));
    }
    case GP_DIST_UNIFORM:
        return d->a + u * (d->b - d->a);
    }
    return NAN;
}

char *gp_default_dist_str (const struct gp_default_dist *d, char *buf,
                           size_t size)
{
    if (!buf || !size)
        return buf;
    if (!d)
        snprintf (buf, size, "-");
    else if (d->kind == GP_DIST_NORMAL)
        snprintf (buf, size, "normal sd %g", d->a);
    else if (d->kind == GP_DIST_LOGNORMAL)
        snprintf (buf, size, "lognormal sigma %g", d->a);
    else if (d->kind == GP_DIST_TRIANGULAR)
        snprintf (buf, size, "triangular %g/%g/%g", d->a, d->b, d->c);
    else
        snprintf (buf, size, "uniform %g..%g", d->a, d->b);
    return buf;
}
