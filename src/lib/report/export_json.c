/* export_json.c - JSON of an export: {"target", "files": [{"name",
 * "text"}]} ('gpuplan export TARGET --json').
 */
#include <jansson.h>

#include "gpuplan/export.h"

json_t *gp_export_json (const struct gp_export *x)
{
    if (!x)
        return NULL;
    json_t *root = json_object ();
    json_object_set_new (root, "target",
                         json_string (gp_export_target_str (x->target)));
    json_t *files = json_array ();
    for (size_t i = 0; i < x->n_files; i++) {
        json_t *f = json_object ();
        json_object_set_new (f, "name", json_string (x->files[i].name));
        json_object_set_new (f, "text", json_string (x->files[i].text));
        json_array_append_new (files, f);
    }
    json_object_set_new (root, "files", files);
    return root;
}
