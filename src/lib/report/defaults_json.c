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

/* An uncertain row's distribution (docs/model/uncertainty.md):
 * "distribution": {"kind", "a", "b", "c", "text", "source"}, factors on
 * the value in force; nothing for a row without one.
 */
static void dist_json (json_t *o, const struct gp_default_dist *x)
{
    if (!x)
        return;
    char text[96];
    json_t *j = json_object ();
    json_object_set_new (j, "kind", json_string (gp_dist_kind_str (x->kind)));
    json_object_set_new (j, "a", json_real (x->a));
    json_object_set_new (j, "b", json_real (x->b));
    json_object_set_new (j, "c", json_real (x->c));
    json_object_set_new (j, "text", json_string (gp_default_dist_str (
                                        x, text, sizeof text)));
    json_object_set_new (j, "source", json_string (x->source));
    json_object_set_new (o, "distribution", j);
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
    dist_json (o, gp_default_dist (r->id));
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
