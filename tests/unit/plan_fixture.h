/* plan_fixture.h - the plan unit tests' fixture: load the embedded
 * catalog, parse a plan spec from text, run the plan; and find an option
 * by name.  Include after <cmocka.h> (find() fails the test through
 * fail_msg).
 */
#ifndef GP_TEST_PLAN_FIXTURE_H
#define GP_TEST_PLAN_FIXTURE_H

#include <string.h>

#include "gpuplan/catalog.h"
#include "gpuplan/plan.h"
#include "gpuplan/spec.h"

struct fx {
    struct gp_catalog *cat;
    struct gp_doc *doc;
    struct gp_plan_spec *spec;
    struct gp_plan_result *res;
};

static inline int load (struct fx *f, const char *text, gp_error_t *err)
{
    memset (f, 0, sizeof *f);
    f->cat = gp_catalog_load (NULL, err);
    if (!f->cat)
        return -1;
    f->doc = gp_doc_parse (text, strlen (text), "plan.yaml", err);
    if (!f->doc)
        return -1;
    f->spec = gp_plan_spec_from_doc (f->doc, f->cat, err);
    if (!f->spec)
        return -1;
    f->res = gp_plan_run (f->spec, f->cat, err);
    return f->res ? 0 : -1;
}

static inline void unload (struct fx *f)
{
    gp_plan_result_destroy (f->res);
    gp_plan_spec_destroy (f->spec);
    gp_doc_destroy (f->doc);
    gp_catalog_destroy (f->cat);
}

static inline const struct gp_plan_option *find (const struct gp_plan_result *r,
                                          const char *name)
{
    for (size_t i = 0; i < r->n_options; i++)
        if (strcmp (r->options[i].name, name) == 0)
            return &r->options[i];
    fail_msg ("no option %s", name);
    return NULL;
}

#endif
