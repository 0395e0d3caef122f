/* assume.c - the documented assumptions of the capacity plan.
 *
 * Every number the plan needs that the catalog does not hold is a row of
 * the defaults registry (gpuplan/defaults.h) whose users include "plan",
 * with its unit and where it comes from; docs/model/defaults.md lists
 * them and docs/model/cost.md explains each.  A spec may override any of them under 'assumptions:'; the report
 * lists every assumption that was read, marking overrides.
 */
#include <math.h>
#include <string.h>

#include "plan_private.h"

/* The plan's name of a registry row: the key after its "<group>." prefix
 * (the names plan specs have always used, e.g. "restart_s").
 */
static const char *plan_key (const struct gp_default_info *row)
{
    const char *dot = strchr (row->key, '.');
    return dot ? dot + 1 : row->key;
}

void gp_plan_assume_defaults (struct gp_plan_spec *s)
{
    size_t n = 0;
    for (size_t i = 0; i < gp_defaults_count (); i++) {
        const struct gp_default_info *row = gp_default_info (i);
        if (!gp_default_used_by (row, "plan") || row->text
            || n >= GP_PLAN_MAX_ASSUMPTIONS)
            continue;
        struct gp_assumption *a = &s->assume[n++];
        memset (a, 0, sizeof *a);
        a->key = plan_key (row);
        a->value = row->value;
        a->unit = row->unit;
        a->source = row->source;
    }
    s->n_assume = n;
}

struct gp_assumption *gp_plan_assume_find (struct gp_plan_spec *s,
                                        const char *key)
{
    /* A full registry key ("reliability.restart_s") names the same row. */
    const char *dot = strchr (key, '.');
    if (dot) {
        for (size_t i = 0; i < gp_defaults_count (); i++)
            if (strcmp (gp_default_info (i)->key, key) == 0) {
                key = dot + 1;
                break;
            }
    }
    for (size_t i = 0; i < s->n_assume; i++)
        if (strcmp (s->assume[i].key, key) == 0)
            return &s->assume[i];
    return NULL;
}

void gp_plan_assume_to_defaults (const struct gp_plan_spec *s,
                              struct gp_defaults *d)
{
    gp_defaults_init (d);
    for (size_t i = 0; i < gp_defaults_count (); i++) {
        const struct gp_default_info *row = gp_default_info (i);
        if (!gp_default_used_by (row, "plan") || row->text)
            continue;
        const char *k = plan_key (row);
        for (size_t j = 0; j < s->n_assume; j++)
            if (strcmp (s->assume[j].key, k) == 0) {
                d->v[i] = s->assume[j].value;
                d->overridden[i] = (unsigned char)s->assume[j].overridden;
            }
    }
}

double gp_plan_assume (struct gp_plan_spec *s, const char *key)
{
    struct gp_assumption *a = s ? gp_plan_assume_find (s, key) : NULL;
    if (!a)
        return NAN;
    a->used = 1;
    return a->value;
}

size_t gp_plan_assume_keys (const struct gp_plan_spec *s,
                         const char **keys,
                         size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_assume && n < max; i++)
        keys[n++] = s->assume[i].key;
    return n;
}
