/* fuzz_plan.c - plan specs: YAML bytes through the document loader and
 * the plan-spec builder.  The document is named as if it lived in
 * tests/cli/specs so that the trace files the seeds name resolve.
 */
#include <stdlib.h>

#include "fuzz.h"
#include "gpuplan/catalog.h"
#include "gpuplan/plan.h"
#include "gpuplan/spec.h"

static struct gp_catalog *cat;

int LLVMFuzzerInitialize (int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    cat = gp_catalog_load (NULL, NULL);
    return cat ? 0 : 1;
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    gp_error_t err = {0};
    struct gp_doc *doc = gp_doc_parse (
        (const char *)data, size, GP_SOURCE_DIR "/tests/cli/specs/fuzz.yaml",
        &err);
    if (!doc)
        return 0;
    struct gp_plan_spec *s = gp_plan_spec_from_doc (doc, cat, &err);
    gp_plan_spec_destroy (s);
    gp_doc_destroy (doc);
    return 0;
}
