/* defaults_json.c - the defaults registry as JSON (gp_defaults_json,
 * gpuplan/defaults.h), for `gpuplan assumptions --json`.
 */
#include <jansson.h>
#include <string.h>

#include "gpuplan/defaults.h"

static json_t *users_json (const char *users)
{
    json_t *a = json_array ();
    for (const char *p = users; a && p && *p;) {
        const char *e = strchr (p, ',');
        size_t len = e ? (size_t)(e - p) : strlen (p);
        json_array_append_new (a, json_stringn (p, len));
        p = e ? e + 1 : NULL;
    }
    return a;
}

static json_t *row_json (const struct gp_defaults *d,
                         const struct gp_default_info *r)
{
    json_t *o = json_object ();
    if (!o)
        return NULL;
    json_object_set_new (o, "key", json_string (r->key));
    if (r->text)
        json_object_set_new (o, "value",
                             json_string (gp_default_text (d, r->id)));
    else
        json_object_set_new (o, "value", json_real (gp_default (d, r->id)));
    json_object_set_new (o, "unit", json_string (r->unit));
    json_object_set_new (o, "users", users_json (r->users));
    json_object_set_new (o, "source", json_string (r->source));
    json_object_set_new (o, "overridden",
                         json_boolean (d && d->overridden[r->id]));
    return o;
}

json_t *gp_defaults_json (const struct gp_defaults *d)
{
    json_t *root = json_object ();
    json_t *rows = json_array ();
    if (!root || !rows) {
        json_decref (root);
        json_decref (rows);
        return NULL;
    }
    for (size_t i = 0; i < gp_defaults_count (); i++) {
        json_t *o = row_json (d, gp_default_info (i));
        if (!o || json_array_append_new (rows, o) != 0) {
            json_decref (root);
            json_decref (rows);
            return NULL;
        }
    }
    json_object_set_new (root, "defaults", rows);
    return root;
}
