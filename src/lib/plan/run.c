/* run.c - gp_plan_run: evaluate every design option of a spec, pick the
 * recommendation with its decision log and run the sensitivity analysis;
 * and the helpers the evaluation files share (assumptions, catalog parts
 * recorded as sources, the growing log and source lists).
 *
 * The GPU count of an option comes either from the spec (a fixed fleet
 * size) or from the training and inference planners (compute.c); every
 * other figure is a formula of cost.h over catalog rows (recorded with
 * their sources) and the documented assumptions of assume.c.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpuplan/arch.h"
#include "plan_private.h"

const struct plan_sizing *gp_plan_sizing_of (struct plan_ctx *c,
                                             int spec_index,
                                             size_t n_periods)
{
    int k = c->pt.mfu;
    struct plan_sizing **z = &c->sz[spec_index][k];
    if (!*z) {
        *z = calloc (1, sizeof **z);
        if (!*z)
            return NULL;
        double x = gp_plan_assume (c->s, "sensitivity_mfu");
        double mfu = k == 1 ? 1 - x : k == 2 ? 1 + x : 1;
        mfu *= c->pt.eff > 0 ? c->pt.eff : 1;   /* sample.c */
        gp_plan_size_compute (c->s, &c->memo, c->cat, c->zoo, &c->s->options[spec_index],
                           mfu, n_periods, *z);
    }
    return *z;
}

double gp_plan_assumption (struct plan_ctx *c, const char *key)
{
    double v = gp_plan_assume (c->s, key);
    return isnan (v) ? 0 : v;
}

static const struct gp_part *part_row (const struct gp_catalog *cat,
                                       const char *id, const char *key)
{
    size_t n = gp_catalog_n_parts (cat);
    for (size_t i = 0; i < n; i++) {
        const struct gp_part *p = gp_catalog_part (cat, i);
        if (p->has_value && strcasecmp (p->id, id) == 0
            && strcmp (p->key, key) == 0)
            return p;
    }
    return NULL;
}

/* Room for one more element in a growing array of 'n' elements of 'size'
 * bytes (capacity: the next power of two, at least 16).  Returns 0, or -1
 * when out of memory (the array is kept).
 */
static int grow (void **arr, size_t n, size_t size)
{
    if (n >= 16 && (n & (n - 1)) != 0)
        return 0;
    if (n > 0 && n < 16)
        return 0;
    size_t cap = n ? 2 * n : 16;
    void *p = realloc (*arr, cap * size);
    if (!p)
        return -1;
    *arr = p;
    return 0;
}

void gp_plan_add_source (struct plan_ctx *c, const char *what, double value,
                         const char *unit, const char *source,
                         const char *date)
{
    struct gp_plan_result *r = c->r;
    if (!r)
        return;
    for (size_t i = 0; i < r->n_sources; i++)
        if (strcmp (r->sources[i].what, what) == 0)
            return;
    if (grow ((void **)&r->sources, r->n_sources, sizeof *r->sources) != 0) {
        c->failed = 1;
        return;
    }
    struct gp_plan_source *s = &r->sources[r->n_sources++];
    snprintf (s->what, sizeof s->what, "%s", what);
    s->value = value;
    snprintf (s->unit, sizeof s->unit, "%s", unit ? unit : "");
    snprintf (s->source, sizeof s->source, "%s", source ? source : "");
    snprintf (s->date, sizeof s->date, "%s", date ? date : "");
}

double gp_plan_part (struct plan_ctx *c, const char *id, const char *key)
{
    const struct gp_part *p = part_row (c->cat, id, key);
    if (!p)
        return 0;
    char what[GP_PLAN_TEXT];
    snprintf (what, sizeof what, "parts.csv %s %s", id, key);
    gp_plan_add_source (c, what, p->value, p->unit, p->source, p->source_date);
    return p->value;
}

void gp_plan_log (struct plan_ctx *c, const char *fmt, ...)
{
    struct gp_plan_result *r = c->r;
    char *line = malloc (GP_PLAN_TEXT);
    if (!line || grow ((void **)&r->log, r->n_log, sizeof *r->log) != 0) {
        free (line);
        c->failed = 1;
        return;
    }
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (line, GP_PLAN_TEXT, fmt, ap);
    va_end (ap);
    r->log[r->n_log++] = line;
}

void gp_plan_status_set (struct gp_part_status *st, int code, const char *fmt,
                         ...)
{
    va_list ap;
    st->code = code;
    va_start (ap, fmt);
    vsnprintf (st->text, sizeof st->text, fmt, ap);
    va_end (ap);
}

/* --------------------------------- run --------------------------------- */

/* Whether a part of an option or a sensitivity row ran out of memory: the
 * run then fails as a whole, since an option dropped for want of memory
 * would change the recommendation without a word.
 */
int gp__plan_options_oom (const struct gp_plan_option *opts, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct gp_plan_option *o = &opts[i];
        const struct gp_part_status *st[] = {
            &o->compute, &o->network, &o->storage, &o->power,
            &o->cost, &o->unit_costs, &o->sim,
        };
        for (size_t k = 0; k < sizeof st / sizeof *st; k++)
            if (st[k]->code == GP_ENOMEM)
                return 1;
    }
    return 0;
}

static int any_oom (const struct gp_plan_result *r)
{
    if (gp__plan_options_oom (r->options, r->n_options))
        return 1;
    for (size_t i = 0; i < r->n_sens; i++)
        if (r->sens[i].status.code == GP_ENOMEM)
            return 1;
    return 0;
}

static int validate (struct plan_ctx *c, gp_error_t *err)
{
    const struct gp_plan_spec *s = c->s;
    for (size_t i = 0; i < s->n_options; i++) {
        const struct gp_plan_option_spec *os = &s->options[i];
        if (os->kind == GP_OPT_CLOUD)
            continue;
        double v;
        if (gp_plan_node_power_w (c, os, &v) != 0)
            return gp_errprintf (err, GP_EINVAL,
                                 "%s:%d:%d: options[%zu].node_power: the "
                                 "catalog has no system power for %d x %s; "
                                 "give node_power",
                                 s->file, os->line, os->col, i,
                                 os->gpus_per_node, os->accel_id);
        if (gp_plan_node_capex_usd (c, os, &v) != 0)
            return gp_errprintf (err, GP_EINVAL,
                                 "%s:%d:%d: options[%zu].node_capex: the "
                                 "catalog has no capex estimate for %d x "
                                 "%s; give node_capex",
                                 s->file, os->line, os->col, i,
                                 os->gpus_per_node, os->accel_id);
    }
    return 0;
}

static void ctx_fini (struct plan_ctx *c)
{
    for (size_t i = 0; i < GP_PLAN_MAX_OPTION_SPECS; i++)
        for (size_t k = 0; k < 3; k++)
            free (c->sz[i][k]);
    gp_plan_memo_fini (&c->memo);
    gp_zoo_destroy (c->zoo);
    free (c->s);
}

struct gp_plan_result *gp_plan_run (const struct gp_plan_spec *spec,
                                    const struct gp_catalog *cat,
                                    gp_error_t *err)
{
    if (!spec || !cat) {
        gp_errprintf (err, GP_EINVAL, "plan: missing spec or catalog");
        return NULL;
    }
    struct plan_ctx c;
    memset (&c, 0, sizeof c);
    struct gp_plan_result *r = calloc (1, sizeof *r);
    /* The run reads assumptions through its own copy of the spec, which
     * marks them used; the copy shares the spec's read-only traces.
     */
    c.s = malloc (sizeof *c.s);
    if (!r || !c.s) {
        free (r);
        free (c.s);
        gp_errprintf (err, GP_ENOMEM, "plan: out of memory");
        return NULL;
    }
    *c.s = *spec;
    c.cat = cat;
    c.r = r;
    c.pt = PLAN_NO_PERTURB;
    gp__plan_perturb_in_force (&c);
    if (validate (&c, err) != 0)
        goto fail;
    c.zoo = gp_zoo_load (NULL, err);
    if (!c.zoo)
        goto fail;
    snprintf (r->name, sizeof r->name, "%s", spec->name);
    r->horizon_years = spec->horizon_years;
    r->n_periods = (size_t)lround (spec->horizon_years * 12);
    gp__plan_existing_log (&c);
    size_t n = gp_plan_eval_all (&c, NULL);
    r->options = calloc (n ? n : 1, sizeof *r->options);
    if (!r->options) {
        gp_errprintf (err, GP_ENOMEM, "plan: out of memory");
        goto fail;
    }
    r->n_options = gp_plan_eval_all (&c, r->options);
    gp_plan_decide (&c);
    gp_plan_sensitivity (&c);
    if (c.failed || any_oom (r)) {
        gp_errprintf (err, GP_ENOMEM, "plan: out of memory");
        goto fail;
    }
    memcpy (r->teams, spec->teams, sizeof r->teams);
    r->n_teams = spec->n_teams;
    for (size_t i = 0; i < c.s->n_assume; i++)
        if (c.s->assume[i].used || c.s->assume[i].overridden)
            r->assume[r->n_assume++] = c.s->assume[i];
    gp_plan_summarize (r, spec);
    ctx_fini (&c);
    return r;
fail:
    ctx_fini (&c);
    gp_plan_result_destroy (r);
    return NULL;
}

void gp_plan_result_destroy (struct gp_plan_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_log; i++)
        free (r->log[i]);
    free (r->log);
    free (r->sources);
    free (r->options);
    if (r->ranges)
        free (r->ranges->options);
    free (r->ranges);
    free (r);
}

int gp_plan_status (const struct gp_plan_result *r, gp_error_t *err)
{
    if (!r)
        return gp_errprintf (err, GP_EINVAL, "plan: no result");
    if (r->recommended >= 0)
        return 0;
    int notsup = 0;
    for (size_t i = 0; i < r->n_options; i++)
        if (r->options[i].compute.code == GP_ENOTSUP)
            notsup++;
    if (notsup && notsup == (int)r->n_options)
        return gp_errprintf (err, GP_ENOTSUP,
                             "plan %s: no option could be sized: %s", r->name,
                             r->options[0].compute.text);
    for (size_t i = 0; i < r->n_options; i++)
        if (r->options[i].feasible && !r->options[i].complete)
            return gp_errprintf (
                err, GP_ENOTSUP,
                "plan %s: no option could be fully costed (%s: %s)",
                r->name, r->options[i].name,
                r->options[i].cost.text[0] ? r->options[i].cost.text
                                           : "incomplete");
    return gp_errprintf (err, GP_EINFEASIBLE,
                         "plan %s: no option meets the constraints (%s: %s)%s%s",
                         r->name, r->n_options ? r->options[0].name : "-",
                         r->n_options ? r->options[0].violation : "none",
                         r->n_changes ? "; nearest feasible change: " : "",
                         r->n_changes ? r->changes[0].text : "");
}
