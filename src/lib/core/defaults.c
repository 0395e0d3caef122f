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
