/* fuzz_cluster.c - cluster specs: YAML bytes through the document loader
 * and the cluster builder, then the summary JSON of what was accepted.
 */
#include <jansson.h>
#include <stdlib.h>

#include "fuzz.h"
#include "gpuplan/catalog.h"
#include "gpuplan/cluster.h"
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
    struct gp_doc *doc = gp_doc_parse ((const char *)data, size,
                                       "fuzz-cluster.yaml", &err);
    if (!doc)
        return 0;
    struct gp_cluster *c = gp_cluster_from_doc (doc, cat, &err);
    if (c) {
        json_t *j = gp_cluster_json (c);
        char *s = j ? json_dumps (j, JSON_COMPACT) : NULL;
        free (s);
        json_decref (j);
        gp_cluster_destroy (c);
    }
    gp_doc_destroy (doc);
    return 0;
}
