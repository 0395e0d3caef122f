/* export_fixture.h - the export unit tests' fixture: the embedded catalog
 * loaded once per group (setup/teardown), a cluster parsed from spec
 * text, and substring checks on rendered files.  Include after
 * <cmocka.h> (the checks fail the test through fail_msg).
 */
#ifndef GP_TEST_EXPORT_FIXTURE_H
#define GP_TEST_EXPORT_FIXTURE_H

#include <string.h>

#include "gpuplan/gpuplan.h"

static struct gp_catalog *cat;

static int setup (void **state)
{
    (void)state;
    cat = gp_catalog_load (NULL, NULL);
    return cat ? 0 : -1;
}

static int teardown (void **state)
{
    (void)state;
    gp_catalog_destroy (cat);
    return 0;
}

/* The cluster of spec text 'spec' (file name 'name' in messages); NULL
 * with 'err' set when it does not parse or unpack.
 */
static inline struct gp_cluster *fx_cluster (const char *spec,
                                             const char *name,
                                             gp_error_t *err)
{
    struct gp_doc *d = gp_doc_parse (spec, strlen (spec), name, err);
    struct gp_cluster *c = d ? gp_cluster_from_doc (d, cat, err) : NULL;
    gp_doc_destroy (d);
    return c;
}

/* fx_cluster(), failing the test with the message on error. */
static inline struct gp_cluster *fx_cluster_ok (const char *spec,
                                                const char *name)
{
    gp_error_t err = {0};
    struct gp_cluster *c = fx_cluster (spec, name, &err);
    if (!c)
        fail_msg ("%s", err.text);
    return c;
}

static inline void has (const char *text, const char *want)
{
    if (!strstr (text, want))
        fail_msg ("output lacks:\n%s\n--- output:\n%s", want, text);
}

static inline void lacks (const char *text, const char *bad)
{
    if (strstr (text, bad))
        fail_msg ("output has:\n%s\n--- output:\n%s", bad, text);
}

#endif
