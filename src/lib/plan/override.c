/* override.c - `plan --set KEY=VALUE`: overrides applied to the plan
 * document's tree before the spec is read, so that the spec's own checks,
 * ranges and messages judge the new value (docs/formats/plan.md, "Overrides and sweeps").
 *
 * A key is a dotted path into the document (list entries addressed by
 * their 'name', or by index) or a defaults-registry key the plan reads,
 * which lands under 'assumptions:'.  The values are parsed as YAML before
 * any node is replaced, and every replaced node is put back before the
 * call returns: the document's position table is keyed by node address,
 * so an original node is never freed while the document lives (a new
 * node can never take its address and its position).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_private.h"
#include "whatif_private.h"

/* Top-level keys of a plan spec (spec.c, top_fields): a key starting with
 * one of them is a path into the document; any other is a registry key.
 */
static const char *const top_keys[] = {
    "name", "horizon", "policy", "teams", "workloads", "constraints",
    "options", "assumptions", "existing", NULL,
};

static int is_top_key (const char *seg, size_t n)
{
    for (size_t i = 0; top_keys[i]; i++)
        if (strlen (top_keys[i]) == n && strncmp (top_keys[i], seg, n) == 0)
            return 1;
    return 0;
}

/* The element of list 'arr' named 'seg' (its "name" member), or at index
 * 'seg' when it is a number; -1 when none.
 */
static long list_find (const json_t *arr, const char *seg)
{
    size_t i;
    const json_t *v;
    json_array_foreach (arr, i, v) {
        const char *nm = json_string_value (json_object_get (v, "name"));
        if (nm && strcmp (nm, seg) == 0)
            return (long)i;
    }
    char *end;
    long k = strtol (seg, &end, 10);
    if (*seg && !*end && k >= 0 && (size_t)k < json_array_size (arr))
        return k;
    return -1;
}

/* The names of the entries of 'arr', ", "-separated, into 'buf'. */
static void list_names (const json_t *arr, char *buf, size_t n)
{
    size_t i;
    const json_t *v;
    buf[0] = 0;
    json_array_foreach (arr, i, v) {
        const char *nm = json_string_value (json_object_get (v, "name"));
        size_t l = strlen (buf);
        if (nm && l + 1 < n)
            snprintf (buf + l, n - l, "%s%s", l ? ", " : "", nm);
    }
}

/* The document path of 'key' into 'path' (of 'n' bytes): the key itself
 * when it starts with a top-level spec key, else "assumptions.<row>" for
 * a registry key (the part after the group prefix of a full registry
 * key, e.g. "plan.reserved_1y_discount" -> "reserved_1y_discount").
 */
static int doc_path (const char *key, char *path, size_t n,
                     gp_error_t *err)
{
    const char *dot = strchr (key, '.');
    size_t first = dot ? (size_t)(dot - key) : strlen (key);
    if (is_top_key (key, first)) {
        snprintf (path, n, "%s", key);
        return 0;
    }
    const char *row = key;
    if (dot) {
        gp_error_t e2 = {0};
        if (gp_default_lookup (key, &e2) < 0)
            return gp_errprintf (err, GP_EINVAL,
                                 "--set %s: neither a spec key (name, "
                                 "horizon, policy, teams, workloads, "
                                 "constraints, options, assumptions, "
                                 "existing) nor a defaults-registry key "
                                 "(%s)", key, e2.text);
        row = dot + 1;
    }
    snprintf (path, n, "assumptions.%s", row);
    return 0;
}

/* Replace the node at 'key' of 'root' by 'val' (a reference is taken),
 * recording in 'u' how to undo it.  Missing mappings on the way are
 * created.  Returns 0 or GP_EINVAL with 'err' naming the key.
 */
static int apply_one (json_t *root, const char *key, json_t *val,
                      struct plan_undo *u, gp_error_t *err)
{
    char path[GP_PLAN_TEXT];
    memset (u, 0, sizeof *u);
    if (doc_path (key, path, sizeof path, err) != 0)
        return GP_EINVAL;
    json_t *node = root;
    char *seg = path;
    if (!json_is_object (root))
        return gp_errprintf (err, GP_EINVAL,
                             "--set %s: the document is not a mapping", key);
    for (;;) {
        char *dot = strchr (seg, '.');
        if (dot)
            *dot = 0;
        if (!*seg)
            return gp_errprintf (err, GP_EINVAL,
                                 "--set %s: empty part in the key", key);
        if (!dot) {
            u->parent = node;
            if (json_is_object (node)) {
                snprintf (u->member, sizeof u->member, "%s", seg);
                u->old = json_object_get (node, seg);
                json_incref (u->old);
                if (json_object_set (node, seg, val) != 0)
                    goto nomem;
            } else if (!json_is_array (node)) {
                return gp_errprintf (err, GP_EINVAL,
                                     "--set %s: '%s' is inside a value that "
                                     "is neither a mapping nor a list", key,
                                     seg);
            } else {
                long k = list_find (node, seg);
                if (k < 0)
                    goto no_entry;
                u->index = (size_t)k;
                u->is_index = 1;
                u->old = json_incref (json_array_get (node, (size_t)k));
                if (json_array_set (node, (size_t)k, val) != 0)
                    goto nomem;
            }
            u->applied = 1;
            return 0;
        }
        json_t *next;
        if (json_is_object (node)) {
            next = json_object_get (node, seg);
            if (!next) {
                /* a missing mapping on the way is created, and removed
                 * again on undo (recorded as the set itself) */
                if (u->parent)
                    return gp_errprintf (err, GP_EINVAL,
                                         "--set %s: '%s' is not in the "
                                         "document", key, seg);
                next = json_object ();
                if (!next || json_object_set_new (node, seg, next) != 0)
                    goto nomem;
                u->parent = node;
                snprintf (u->member, sizeof u->member, "%s", seg);
                u->created = 1;
            }
        } else if (json_is_array (node)) {
            long k = list_find (node, seg);
            if (k < 0)
                goto no_entry;
            next = json_array_get (node, (size_t)k);
        } else {
            return gp_errprintf (err, GP_EINVAL,
                                 "--set %s: '%s' is inside a value that is "
                                 "neither a mapping nor a list", key, seg);
        }
        node = next;
        seg = dot + 1;
        if (u->created && !strchr (seg, '.')) {
            /* the last segment goes into the created mapping; undo
             * removes the whole mapping */
            if (json_object_set (node, seg, val) != 0)
                goto nomem;
            u->applied = 1;
            return 0;
        }
    }
no_entry: {
    char names[160];
    list_names (node, names, sizeof names);
    return gp_errprintf (err, GP_EINVAL,
                         "--set %s: no list entry named '%s' (names: %s)",
                         key, seg, names[0] ? names : "none");
}
nomem:
    json_decref (u->old);
    u->old = NULL;
    return gp_errprintf (err, GP_ENOMEM, "--set %s: out of memory", key);
}

void gp__plan_undo (struct plan_undo *u)
{
    if (!u->applied && !u->created) {
        json_decref (u->old);
        return;
    }
    if (u->created)
        json_object_del (u->parent, u->member);
    else if (u->is_index)
        json_array_set (u->parent, u->index, u->old);
    else if (u->old)
        json_object_set (u->parent, u->member, u->old);
    else
        json_object_del (u->parent, u->member);
    json_decref (u->old);
    memset (u, 0, sizeof *u);
}

int gp__plan_split_set (const char *set, char *key, size_t n,
                        const char **value, gp_error_t *err)
{
    const char *eq = set ? strchr (set, '=') : NULL;
    if (!eq || eq == set)
        return gp_errprintf (err, GP_EINVAL,
                             "--set %s: expected KEY=VALUE",
                             set ? set : "(null)");
    if ((size_t)(eq - set) >= n)
        return gp_errprintf (err, GP_EINVAL, "--set %.*s: key too long",
                             (int)(eq - set), set);
    memcpy (key, set, (size_t)(eq - set));
    key[eq - set] = 0;
    *value = eq + 1;
    return 0;
}

json_t *gp__plan_parse_value (const char *key, const char *value,
                              gp_error_t *err)
{
    gp_error_t e2 = {0};
    struct gp_doc *d = gp_doc_parse (value, strlen (value), "value", &e2);
    if (!d) {
        gp_errprintf (err, GP_EINVAL, "--set %s: bad value '%s': %s", key,
                      value, e2.text);
        return NULL;
    }
    json_t *v = json_incref (gp_doc_root (d));
    gp_doc_destroy (d);
    return v;
}

int gp__plan_apply (json_t *root, const char *key, json_t *val,
                    struct plan_undo *u, gp_error_t *err)
{
    return apply_one (root, key, val, u, err);
}

/* Undo the first 'n' of 'u', last first. */
static void undo_all (struct plan_undo *u, size_t n)
{
    while (n > 0)
        gp__plan_undo (&u[--n]);
}

/* Apply sets [0, n) from the parsed 'keys'/'vals' to 'root'; on failure
 * undo what was applied.
 */
static int apply_all (json_t *root, char (*keys)[GP_PLAN_TEXT],
                      json_t **vals, size_t n, struct plan_undo *u,
                      gp_error_t *err)
{
    for (size_t i = 0; i < n; i++) {
        int rc = apply_one (root, keys[i], vals[i], &u[i], err);
        if (rc != 0) {
            gp__plan_undo (&u[i]);
            undo_all (u, i);
            return rc;
        }
    }
    return 0;
}

/* The spec read failed with the sets applied ('e'): name the first set
 * whose addition makes it fail, reading the spec with sets [0, k] for
 * each k; the spec's own error when it fails without any.
 */
static void blame (const struct gp_doc *doc, char (*keys)[GP_PLAN_TEXT],
                   json_t **vals, size_t n, const struct gp_catalog *cat,
                   struct plan_undo *u, const gp_error_t *e, gp_error_t *err)
{
    json_t *root = gp_doc_root (doc);
    for (size_t k = 0; k <= n; k++) {
        gp_error_t e2 = {0};
        if (apply_all (root, keys, vals, k, u, &e2) != 0)
            break;
        struct gp_plan_spec *s = gp_plan_spec_from_doc (doc, cat, &e2);
        undo_all (u, k);
        if (s) {
            gp_plan_spec_destroy (s);
            continue;
        }
        if (k == 0)
            break;
        gp_errprintf (err, e2.code == GP_ENOMEM ? GP_ENOMEM : GP_EINVAL,
                      "--set %s: %s", keys[k - 1], e2.text);
        return;
    }
    if (err && err != e)
        *err = *e;
}

struct gp_plan_spec *gp_plan_spec_from_doc_set (const struct gp_doc *doc,
                                                const char *const *sets,
                                                size_t n_sets,
                                                const struct gp_catalog *cat,
                                                gp_error_t *err)
{
    if (!doc || (n_sets && !sets)) {
        gp_errprintf (err, GP_EINVAL, "plan: missing document or overrides");
        return NULL;
    }
    if (n_sets == 0)
        return gp_plan_spec_from_doc (doc, cat, err);
    struct gp_plan_spec *s = NULL;
    char (*keys)[GP_PLAN_TEXT] = calloc (n_sets, sizeof *keys);
    json_t **vals = calloc (n_sets, sizeof *vals);
    struct plan_undo *u = calloc (n_sets, sizeof *u);
    size_t n_vals = 0;
    if (!keys || !vals || !u) {
        gp_errprintf (err, GP_ENOMEM, "plan: out of memory");
        goto done;
    }
    for (; n_vals < n_sets; n_vals++) {
        const char *value;
        if (gp__plan_split_set (sets[n_vals], keys[n_vals], GP_PLAN_TEXT,
                                &value, err) != 0)
            goto done;
        vals[n_vals] = gp__plan_parse_value (keys[n_vals], value, err);
        if (!vals[n_vals])
            goto done;
    }
    if (apply_all (gp_doc_root (doc), keys, vals, n_sets, u, err) != 0)
        goto done;
    gp_error_t e = {0};
    s = gp_plan_spec_from_doc (doc, cat, &e);
    undo_all (u, n_sets);
    if (!s)
        blame (doc, keys, vals, n_sets, cat, u, &e, err);
done:
    for (size_t i = 0; i < n_vals; i++)
        json_decref (vals[i]);
    free (vals);
    free (keys);
    free (u);
    return s;
}
