/* diff.c - the scenario diff of two plan results (report.h,
 * docs/formats/diff.md), computed from their JSON documents field by
 * field, never from rendered text: what changed in the inputs (the
 * "inputs" echo) and the assumptions, in each option's numbers (options
 * matched by name) and whether and why the recommendation moved.
 *
 * The diff is itself a JSON document; gp_plan_diff_render() writes it as
 * text, Markdown, an HTML fragment or JSON.  The call is self-contained:
 * it reads only the two documents it is given.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/report.h"
#include "gpuplan/units.h"
#include "report_private.h"

static void set (json_t *o, const char *k, json_t *v)
{
    json_object_set_new (o, k, v ? v : json_null ());
}

static json_t *copy_or_null (const json_t *v)
{
    return v ? json_deep_copy (v) : json_null ();
}

/* ----------------------------- validation ----------------------------- */

/* 'j' ('which': "a" or "b") is a plan result: the members the diff reads
 * have their types.  0, or GP_EINVAL naming the JSON path.
 */
static int check_plan (const json_t *j, const char *which, gp_error_t *err)
{
    if (!json_is_object (j))
        return gp_errprintf (err, GP_EINVAL,
                             "%s: $: not a plan result (not a JSON object)",
                             which);
    if (!json_is_string (json_object_get (j, "plan")))
        return gp_errprintf (err, GP_EINVAL,
                             "%s: $.plan: missing or not a string (not a "
                             "plan result)", which);
    const json_t *opts = json_object_get (j, "options");
    if (!json_is_array (opts))
        return gp_errprintf (err, GP_EINVAL,
                             "%s: $.options: missing or not a list (not a "
                             "plan result)", which);
    size_t i;
    const json_t *o;
    json_array_foreach (opts, i, o) {
        if (!json_is_string (json_object_get (o, "name")))
            return gp_errprintf (err, GP_EINVAL,
                                 "%s: $.options[%zu].name: missing or not a "
                                 "string", which, i);
        const char *num[] = {"tco_usd", "gpus", "cost_per_gpu_hour_usd"};
        for (size_t k = 0; k < 3; k++) {
            const json_t *v = json_object_get (o, num[k]);
            if (v && !json_is_number (v) && !json_is_null (v))
                return gp_errprintf (err, GP_EINVAL,
                                     "%s: $.options[%zu].%s: not a number "
                                     "or null", which, i, num[k]);
        }
        if (!json_is_boolean (json_object_get (o, "feasible")))
            return gp_errprintf (err, GP_EINVAL,
                                 "%s: $.options[%zu].feasible: missing or "
                                 "not a boolean", which, i);
    }
    const json_t *rec = json_object_get (j, "recommendation");
    if (!rec || !(json_is_null (rec) || json_is_object (rec)))
        return gp_errprintf (err, GP_EINVAL,
                             "%s: $.recommendation: missing or not an "
                             "object or null", which);
    const json_t *nm = json_is_object (rec) ? json_object_get (rec, "name")
                                             : NULL;
    if (nm && !json_is_string (nm) && !json_is_null (nm))
        return gp_errprintf (err, GP_EINVAL,
                             "%s: $.recommendation.name: not a string or "
                             "null", which);
    const json_t *as = json_object_get (j, "assumptions");
    if (as && !json_is_array (as))
        return gp_errprintf (err, GP_EINVAL,
                             "%s: $.assumptions: not a list", which);
    json_array_foreach (as, i, o) {
        if (!json_is_string (json_object_get (o, "key"))
            || !json_is_number (json_object_get (o, "value")))
            return gp_errprintf (err, GP_EINVAL,
                                 "%s: $.assumptions[%zu]: needs a string "
                                 "'key' and a number 'value'", which, i);
    }
    const json_t *in = json_object_get (j, "inputs");
    if (in && !json_is_object (in))
        return gp_errprintf (err, GP_EINVAL,
                             "%s: $.inputs: not an object", which);
    return 0;
}

/* ------------------------------- inputs ------------------------------- */

static const json_t *named (const json_t *arr, const char *name)
{
    size_t i;
    const json_t *v;
    json_array_foreach (arr, i, v) {
        const char *n = json_string_value (json_object_get (v, "name"));
        if (n && !strcmp (n, name))
            return v;
    }
    return NULL;
}

/* 1 when every element of list 'x' is an object with a string "name". */
static int named_list (const json_t *x)
{
    size_t i;
    const json_t *v;
    if (!json_is_array (x) || json_array_size (x) == 0)
        return 0;
    json_array_foreach (x, i, v)
        if (!json_is_string (json_object_get (v, "name")))
            return 0;
    return 1;
}

static void add_change (json_t *out, const char *path, const json_t *x,
                        const json_t *y)
{
    json_t *c = json_object ();
    set (c, "path", json_string (path));
    set (c, "a", copy_or_null (x));
    set (c, "b", copy_or_null (y));
    json_array_append_new (out, c);
}

/* Every leaf that differs between 'x' and 'y' under 'path' into 'out':
 * mappings key by key, lists of named entries entry by name (an entry
 * in one only is one change), other lists and values as a whole.
 */
static void diff_tree (const char *path, const json_t *x, const json_t *y,
                       json_t *out)
{
    if (x && y && json_equal ((json_t *)x, (json_t *)y))
        return;
    char sub[512];
    const char *k;
    const json_t *v;
    if (json_is_object (x) && json_is_object (y)) {
        json_object_foreach ((json_t *)x, k, v) {
            snprintf (sub, sizeof sub, "%s.%s", path, k);
            diff_tree (sub, v, json_object_get (y, k), out);
        }
        json_object_foreach ((json_t *)y, k, v) {
            if (json_object_get (x, k))
                continue;
            snprintf (sub, sizeof sub, "%s.%s", path, k);
            diff_tree (sub, NULL, v, out);
        }
        return;
    }
    if (named_list (x) && named_list (y)) {
        size_t i;
        json_array_foreach (x, i, v) {
            const char *n = json_string_value (json_object_get (v, "name"));
            snprintf (sub, sizeof sub, "%s[%s]", path, n);
            diff_tree (sub, v, named (y, n), out);
        }
        json_array_foreach (y, i, v) {
            const char *n = json_string_value (json_object_get (v, "name"));
            if (named (x, n))
                continue;
            snprintf (sub, sizeof sub, "%s[%s]", path, n);
            diff_tree (sub, NULL, v, out);
        }
        return;
    }
    add_change (out, path, x, y);
}

/* Assumptions matched by key: a value that differs, or one only one plan
 * read.
 */
static json_t *diff_assumptions (const json_t *a, const json_t *b)
{
    json_t *out = json_array ();
    const json_t *as = json_object_get (a, "assumptions");
    const json_t *bs = json_object_get (b, "assumptions");
    size_t i, k;
    const json_t *x, *y;
    json_array_foreach (as, i, x) {
        const char *key = json_string_value (json_object_get (x, "key"));
        const json_t *match = NULL;
        json_array_foreach (bs, k, y)
            if (!strcmp (key, json_string_value (json_object_get (y, "key"))))
                match = y;
        double va = json_number_value (json_object_get (x, "value"));
        if (match && json_number_value (json_object_get (match, "value"))
                         == va)
            continue;
        json_t *c = json_object ();
        set (c, "key", json_string (key));
        set (c, "a", json_real (va));
        set (c, "b", match ? json_real (json_number_value (
                                 json_object_get (match, "value")))
                           : json_null ());
        set (c, "unit", copy_or_null (json_object_get (x, "unit")));
        json_array_append_new (out, c);
    }
    json_array_foreach (bs, k, y) {
        const char *key = json_string_value (json_object_get (y, "key"));
        int found = 0;
        json_array_foreach (as, i, x)
            found |= !strcmp (key,
                              json_string_value (json_object_get (x, "key")));
        if (found)
            continue;
        json_t *c = json_object ();
        set (c, "key", json_string (key));
        set (c, "a", json_null ());
        set (c, "b", copy_or_null (json_object_get (y, "value")));
        set (c, "unit", copy_or_null (json_object_get (y, "unit")));
        json_array_append_new (out, c);
    }
    return out;
}

/* ------------------------------- options ------------------------------ */

/* {a, b, delta, delta_pct} of number field 'k' when it differs. */
static int num_change (json_t *c, const json_t *x, const json_t *y,
                       const char *k)
{
    const json_t *u = json_object_get (x, k), *v = json_object_get (y, k);
    if (u && v && json_equal ((json_t *)u, (json_t *)v))
        return 0;
    if (!u && !v)
        return 0;
    json_t *d = json_object ();
    set (d, "a", copy_or_null (u));
    set (d, "b", copy_or_null (v));
    int both = json_is_number (u) && json_is_number (v);
    double p = json_number_value (u), q = json_number_value (v);
    set (d, "delta", both ? json_real (q - p) : json_null ());
    set (d, "delta_pct",
         both && p != 0 ? json_real (100 * (q / p - 1)) : json_null ());
    set (c, k, d);
    return 1;
}

static json_t *diff_options (const json_t *a, const json_t *b)
{
    json_t *out = json_object ();
    json_t *added = json_array (), *removed = json_array ();
    json_t *changed = json_array ();
    const json_t *ao = json_object_get (a, "options");
    const json_t *bo = json_object_get (b, "options");
    size_t i;
    const json_t *x;
    json_array_foreach (ao, i, x) {
        const char *n = json_string_value (json_object_get (x, "name"));
        const json_t *y = named (bo, n);
        if (!y) {
            json_array_append_new (removed, json_string (n));
            continue;
        }
        json_t *c = json_object ();
        set (c, "name", json_string (n));
        int any = 0;
        any |= num_change (c, x, y, "tco_usd");
        any |= num_change (c, x, y, "gpus");
        any |= num_change (c, x, y, "cost_per_gpu_hour_usd");
        const json_t *fa = json_object_get (x, "feasible");
        const json_t *fb = json_object_get (y, "feasible");
        const json_t *va = json_object_get (x, "violation");
        const json_t *vb = json_object_get (y, "violation");
        if (!json_equal ((json_t *)fa, (json_t *)fb)
            || !(va && vb ? json_equal ((json_t *)va, (json_t *)vb)
                          : va == vb)) {
            json_t *f = json_object ();
            set (f, "a", copy_or_null (fa));
            set (f, "b", copy_or_null (fb));
            set (f, "violation_a", copy_or_null (va));
            set (f, "violation_b", copy_or_null (vb));
            set (c, "feasible", f);
            any = 1;
        }
        if (any)
            json_array_append_new (changed, c);
        else
            json_decref (c);
    }
    json_array_foreach (bo, i, x) {
        const char *n = json_string_value (json_object_get (x, "name"));
        if (!named (ao, n))
            json_array_append_new (added, json_string (n));
    }
    set (out, "added", added);
    set (out, "removed", removed);
    set (out, "changed", changed);
    return out;
}

/* --------------------------- recommendation --------------------------- */

static const char *rec_name (const json_t *j)
{
    return json_string_value (
        json_object_get (json_object_get (j, "recommendation"), "name"));
}

static int usable (const json_t *o)
{
    return o && json_is_true (json_object_get (o, "feasible"))
           && json_is_number (json_object_get (o, "tco_usd"));
}

static double tco (const json_t *o)
{
    return json_number_value (json_object_get (o, "tco_usd"));
}

/* The cheapest feasible option of plan 'j' other than 'skip'. */
static const json_t *runner_up (const json_t *j, const char *skip)
{
    const json_t *best = NULL;
    size_t i;
    const json_t *o;
    json_array_foreach (json_object_get (j, "options"), i, o) {
        const char *n = json_string_value (json_object_get (o, "name"));
        if (!usable (o) || (skip && !strcmp (n, skip)))
            continue;
        if (!best || tco (o) < tco (best))
            best = o;
    }
    return best;
}

static const char *violation (const json_t *o)
{
    const char *v = json_string_value (json_object_get (o, "violation"));
    return v ? v : "infeasible";
}

/* "not moved" with the margin of 'name' over the next-cheapest feasible
 * option in each plan.
 */
static void why_not_moved (json_t *r, const json_t *a, const json_t *b,
                           const char *name, char *why, size_t n)
{
    const json_t *wa = named (json_object_get (a, "options"), name);
    const json_t *wb = named (json_object_get (b, "options"), name);
    const json_t *ra = runner_up (a, name), *rb = runner_up (b, name);
    char u1[32], u2[32], u3[32];
    set (r, "reason", json_string ("not_moved"));
    if (!usable (wb) || !rb) {
        snprintf (why, n, "not moved: %s is still the recommendation (no "
                          "other feasible option to compare in B)", name);
        return;
    }
    double mb = tco (rb) - tco (wb);
    set (r, "runner_up", json_string (json_string_value (
                             json_object_get (rb, "name"))));
    set (r, "margin_usd", json_real (mb));
    if (usable (wa) && ra)
        set (r, "margin_a_usd", json_real (tco (ra) - tco (wa)));
    snprintf (why, n,
              "not moved: %s is still the recommendation (TCO %s in B); the "
              "next-cheapest feasible option %s costs %s more (%.1f%%)%s%s%s",
              name, gp_fmt_usd (tco (wb), u1, sizeof u1),
              json_string_value (json_object_get (rb, "name")),
              gp_fmt_usd (mb, u2, sizeof u2),
              tco (wb) > 0 ? 100 * mb / tco (wb) : 0,
              usable (wa) && ra ? "; the margin was " : "",
              usable (wa) && ra ? gp_fmt_usd (tco (ra) - tco (wa), u3,
                                              sizeof u3)
                                : "",
              usable (wa) && ra ? " in A" : "");
}

/* Why the pick moved from 'na' (A) to 'nb' (B). */
static void why_moved (json_t *r, const json_t *a, const json_t *b,
                       const char *na, const char *nb, char *why, size_t n)
{
    const json_t *bo = json_object_get (b, "options");
    const json_t *ao = json_object_get (a, "options");
    const json_t *old_b = na ? named (bo, na) : NULL;
    const json_t *new_b = nb ? named (bo, nb) : NULL;
    const json_t *new_a = nb ? named (ao, nb) : NULL;
    char u1[32], u2[32], u3[32];
    size_t l;
    if (!na) {
        set (r, "reason", json_string ("none_in_a"));
        snprintf (why, n, "moved: nothing was feasible in A; %s is in B "
                          "(TCO %s)%s%s",
                  nb, gp_fmt_usd (tco (new_b), u1, sizeof u1),
                  new_a ? "; in A it was rejected: " : "; it is new in B",
                  new_a ? violation (new_a) : "");
        return;
    }
    if (!nb) {
        const char *near = json_string_value (json_object_get (
            json_object_get (json_object_get (b, "recommendation"),
                             "nearest_change"),
            "text"));
        set (r, "reason", json_string ("none_in_b"));
        snprintf (why, n, "moved: nothing is feasible in B; %s %s%s", na,
                  old_b ? "is now rejected: " : "is not an option in B",
                  old_b ? violation (old_b) : "");
        if (near) {
            l = strlen (why);
            snprintf (why + l, n - l, "; nearest feasible change: %s", near);
        }
        return;
    }
    if (!old_b) {
        set (r, "reason", json_string ("old_removed"));
        snprintf (why, n, "moved: %s is not an option in B; %s is the "
                          "cheapest feasible one (TCO %s)",
                  na, nb, gp_fmt_usd (tco (new_b), u1, sizeof u1));
    } else if (!usable (old_b)) {
        set (r, "reason", json_string ("old_infeasible"));
        snprintf (why, n, "moved: %s is now infeasible because %s; %s is "
                          "the cheapest feasible option (TCO %s)",
                  na, violation (old_b), nb,
                  gp_fmt_usd (tco (new_b), u1, sizeof u1));
    } else {
        double d = tco (old_b) - tco (new_b);
        set (r, "reason", json_string ("cheaper"));
        set (r, "cheaper_by_usd", json_real (d));
        snprintf (why, n, "moved: %s is cheaper by %s (TCO %s vs %s for %s)",
                  nb, gp_fmt_usd (d, u1, sizeof u1),
                  gp_fmt_usd (tco (new_b), u2, sizeof u2),
                  gp_fmt_usd (tco (old_b), u3, sizeof u3), na);
    }
    l = strlen (why);
    if (!new_a)
        snprintf (why + l, n - l, "; %s is new in B", nb);
    else if (!usable (new_a))
        snprintf (why + l, n - l, "; in A %s was rejected: %s", nb,
                  violation (new_a));
}

static json_t *diff_rec (const json_t *a, const json_t *b)
{
    json_t *r = json_object ();
    const char *na = rec_name (a), *nb = rec_name (b);
    set (r, "a", na ? json_string (na) : json_null ());
    set (r, "b", nb ? json_string (nb) : json_null ());
    int moved = (na == NULL) != (nb == NULL) || (na && strcmp (na, nb));
    set (r, "moved", json_boolean (moved));
    const json_t *wa = na ? named (json_object_get (a, "options"), na) : NULL;
    const json_t *wb = nb ? named (json_object_get (b, "options"), nb) : NULL;
    set (r, "tco_a_usd", usable (wa) ? json_real (tco (wa)) : json_null ());
    set (r, "tco_b_usd", usable (wb) ? json_real (tco (wb)) : json_null ());
    char why[640];
    if (!na && !nb) {
        set (r, "reason", json_string ("none"));
        snprintf (why, sizeof why, "no option is feasible in A or in B");
    } else if (!moved) {
        why_not_moved (r, a, b, na, why, sizeof why);
    } else {
        why_moved (r, a, b, na, nb, why, sizeof why);
    }
    set (r, "why", json_string (why));
    return r;
}

struct json_t *gp_plan_diff (const struct json_t *a, const struct json_t *b,
                             gp_error_t *err)
{
    if (!a || !b) {
        gp_errprintf (err, GP_EINVAL, "%s: $: no document", a ? "b" : "a");
        return NULL;
    }
    if (check_plan (a, "a", err) != 0 || check_plan (b, "b", err) != 0)
        return NULL;
    json_t *d = json_object ();
    if (!d) {
        gp_errprintf (err, GP_ENOMEM, "diff: out of memory");
        return NULL;
    }
    set (d, "a", json_string (json_string_value (json_object_get (a,
                                                                  "plan"))));
    set (d, "b", json_string (json_string_value (json_object_get (b,
                                                                  "plan"))));
    const json_t *ia = json_object_get (a, "inputs");
    const json_t *ib = json_object_get (b, "inputs");
    json_t *inputs = json_array ();
    if (ia && ib)
        diff_tree ("inputs", ia, ib, inputs);
    if (!ia || !ib)
        diff_tree ("horizon_years", json_object_get (a, "horizon_years"),
                   json_object_get (b, "horizon_years"), inputs);
    set (d, "inputs_compared", json_boolean (ia && ib));
    set (d, "inputs", inputs);
    json_t *as = diff_assumptions (a, b);
    set (d, "assumptions", as);
    json_t *op = diff_options (a, b);
    set (d, "options", op);
    json_t *rec = diff_rec (a, b);
    set (d, "recommendation", rec);
    int empty = json_array_size (inputs) == 0 && json_array_size (as) == 0
                && json_array_size (json_object_get (op, "added")) == 0
                && json_array_size (json_object_get (op, "removed")) == 0
                && json_array_size (json_object_get (op, "changed")) == 0
                && !json_is_true (json_object_get (rec, "moved"));
    set (d, "empty", json_boolean (empty));
    return d;
}

/* ------------------------------- render ------------------------------- */

/* A JSON value as a short string into 'buf'. */
static const char *val_str (const json_t *v, char *buf, size_t n)
{
    if (!v || json_is_null (v))
        snprintf (buf, n, "-");
    else if (json_is_string (v))
        snprintf (buf, n, "%s", json_string_value (v));
    else if (json_is_number (v))
        snprintf (buf, n, "%.6g", json_number_value (v));
    else {
        char *s = json_dumps (v, JSON_COMPACT | JSON_ENCODE_ANY);
        snprintf (buf, n, "%s", s ? s : "?");
        free (s);
    }
    return buf;
}

/* "a to b" of a number field {a, b, ...} of a changed option; 'usd' 1
 * writes money, 2 a rate with cents.
 */
static const char *pair_str (const json_t *c, const char *k, int usd,
                             char *buf, size_t n)
{
    const json_t *d = json_object_get (c, k);
    if (!d)
        return "";
    char x[40], y[40];
    const json_t *u = json_object_get (d, "a"), *v = json_object_get (d, "b");
    if (usd == 1 && json_is_number (u))
        gp_fmt_usd (json_number_value (u), x, sizeof x);
    else if (usd == 2 && json_is_number (u))
        snprintf (x, sizeof x, "$%.2f", json_number_value (u));
    else
        val_str (u, x, sizeof x);
    if (usd == 1 && json_is_number (v))
        gp_fmt_usd (json_number_value (v), y, sizeof y);
    else if (usd == 2 && json_is_number (v))
        snprintf (y, sizeof y, "$%.2f", json_number_value (v));
    else
        val_str (v, y, sizeof y);
    const json_t *p = json_object_get (d, "delta_pct");
    if (json_is_number (p))
        snprintf (buf, n, "%s to %s (%+.1f%%)", x, y, json_number_value (p));
    else
        snprintf (buf, n, "%s to %s", x, y);
    return buf;
}

/* 1 when 'path' ends with 'suffix'. */
static int ends_with (const char *path, const char *suffix)
{
    size_t n = strlen (path), m = strlen (suffix);
    return n >= m && !strcmp (path + n - m, suffix);
}

/* One side of an input change in words: a constraint of 0 is "none" (no
 * limit, docs/formats/plan.md "inputs"), an option's gpus 0 "sized" and
 * node_capex_usd 0 "catalog"; amounts in USD as money; other numbers in
 * full (no exponent below 1e15).
 */
static const char *input_str (const char *path, const json_t *v, char *buf,
                              size_t n)
{
    if (!json_is_number (v))
        return val_str (v, buf, n);
    double x = json_number_value (v);
    if (x == 0 && !strncmp (path, "inputs.constraints.", 19)) {
        snprintf (buf, n, "none");
        return buf;
    }
    if (x == 0 && !strncmp (path, "inputs.options[", 15)
        && ends_with (path, "].gpus")) {
        snprintf (buf, n, "sized");
        return buf;
    }
    if (x == 0 && !strncmp (path, "inputs.options[", 15)
        && ends_with (path, "].node_capex_usd")) {
        snprintf (buf, n, "catalog");
        return buf;
    }
    if (ends_with (path, "_usd"))
        return gp_fmt_usd (x, buf, n);
    if (x == floor (x) && fabs (x) < 1e15)
        snprintf (buf, n, "%.0f", x);
    else
        snprintf (buf, n, "%.6g", x);
    return buf;
}

/* One input change: a named list entry in one plan only is "added in B" or
 * "removed in B" with its name; any other leaf "a to b".
 */
static void render_input (struct rout *o, const json_t *c)
{
    char x[200], y[200];
    const char *path = json_string_value (json_object_get (c, "path"));
    const json_t *a = json_object_get (c, "a"), *b = json_object_get (c, "b");
    const char *na = json_string_value (json_object_get (a, "name"));
    const char *nb = json_string_value (json_object_get (b, "name"));
    size_t pl = strlen (path);
    int entry = pl > 0 && path[pl - 1] == ']';
    if (entry && json_is_null (a) && nb)
        gp_rout_item (o, 0, "%s: added in B", path);
    else if (entry && json_is_null (b) && na)
        gp_rout_item (o, 0, "%s: removed in B", path);
    else
        gp_rout_item (o, 0, "%s: %s to %s", path,
                      input_str (path, a, x, sizeof x),
                      input_str (path, b, y, sizeof y));
}

static void render_changes (struct rout *o, const json_t *d)
{
    char x[200], y[200];
    size_t i;
    const json_t *c;
    const json_t *in = json_object_get (d, "inputs");
    const json_t *as = json_object_get (d, "assumptions");
    if (json_array_size (in) || json_array_size (as)) {
        gp_rout_heading (o, "Inputs and assumptions");
        json_array_foreach (in, i, c)
            render_input (o, c);
        json_array_foreach (as, i, c)
            gp_rout_item (o, 0, "assumption %s: %s to %s %s",
                          json_string_value (json_object_get (c, "key")),
                          val_str (json_object_get (c, "a"), x, sizeof x),
                          val_str (json_object_get (c, "b"), y, sizeof y),
                          json_string_value (json_object_get (c, "unit"))
                              ? json_string_value (json_object_get (c,
                                                                    "unit"))
                              : "");
    }
    const json_t *op = json_object_get (d, "options");
    const json_t *ch = json_object_get (op, "changed");
    const json_t *ad = json_object_get (op, "added");
    const json_t *rm = json_object_get (op, "removed");
    if (!json_array_size (ch) && !json_array_size (ad)
        && !json_array_size (rm))
        return;
    gp_rout_heading (o, "Options");
    json_array_foreach (ad, i, c)
        gp_rout_item (o, 0, "added in B: %s", json_string_value (c));
    json_array_foreach (rm, i, c)
        gp_rout_item (o, 0, "removed in B: %s", json_string_value (c));
    if (!json_array_size (ch))
        return;
    static const char *const heads[] = {"option (A to B)", "TCO", "GPUs",
                                        "$/GPU-h", "feasible"};
    gp_rout_table (o, heads, 5);
    json_array_foreach (ch, i, c) {
        char t[96], g[96], h[96], f[96] = "";
        const json_t *fe = json_object_get (c, "feasible");
        if (fe)
            snprintf (f, sizeof f, "%s to %s",
                      json_is_true (json_object_get (fe, "a")) ? "yes" : "no",
                      json_is_true (json_object_get (fe, "b")) ? "yes"
                                                               : "no");
        const char *cells[] = {
            json_string_value (json_object_get (c, "name")),
            pair_str (c, "tco_usd", 1, t, sizeof t),
            pair_str (c, "gpus", 0, g, sizeof g),
            pair_str (c, "cost_per_gpu_hour_usd", 2, h, sizeof h),
            f,
        };
        gp_rout_row (o, cells);
    }
    gp_rout_table_end (o);
}

static char *render_textual (const json_t *d, enum rout_fmt fmt,
                             gp_error_t *err)
{
    struct rbuf b = {0};
    struct rout o;
    if (gp_rout_init (&o, &b, fmt) != 0)
        return gp_rb_take (&b, err);
    const char *na = json_string_value (json_object_get (d, "a"));
    const char *nb = json_string_value (json_object_get (d, "b"));
    if (fmt == ROUT_MD) {
        gp_rb_printf (&b, "# Scenario diff: ");
        gp_rb_md (&b, na ? na : "?", 0);
        gp_rb_printf (&b, " to ");
        gp_rb_md (&b, nb ? nb : "?", 0);
        gp_rb_printf (&b, "\n");
    } else if (fmt == ROUT_HTML) {
        gp_rb_printf (&b, "<section class=\"diff\">\n<h2>Scenario diff: ");
        gp_rb_esc (&b, na ? na : "?");
        gp_rb_printf (&b, " &rarr; ");
        gp_rb_esc (&b, nb ? nb : "?");
        gp_rb_printf (&b, "</h2>\n");
    } else {
        gp_rb_printf (&b, "scenario diff: %s to %s\n", na ? na : "?",
                      nb ? nb : "?");
    }
    if (json_is_true (json_object_get (d, "empty"))) {
        gp_rout_heading (&o, "Result");
        gp_rout_item (&o, 0, "no differences: the same inputs, assumptions, "
                             "option figures and recommendation");
    } else {
        render_changes (&o, d);
    }
    if (!json_is_true (json_object_get (d, "inputs_compared"))) {
        gp_rout_heading (&o, "Note");
        gp_rout_item (&o, 0, "a plan result without 'inputs': only the "
                             "horizon, assumptions and option figures were "
                             "compared");
    }
    gp_rout_heading (&o, "Recommendation");
    gp_rout_item (&o, 0, "%s", json_string_value (json_object_get (
                                   json_object_get (d, "recommendation"),
                                   "why")));
    gp_rout_fini (&o);
    if (fmt == ROUT_HTML)
        gp_rb_printf (&b, "</section>\n");
    return gp_rb_take (&b, err);
}

char *gp_plan_diff_render (const struct json_t *diff,
                           enum gp_report_format f, gp_error_t *err)
{
    if (!json_is_object (diff)
        || !json_is_object (json_object_get (diff, "recommendation"))
        || !json_is_boolean (json_object_get (diff, "empty"))) {
        gp_errprintf (err, GP_EINVAL, "diff: not a diff document");
        return NULL;
    }
    if (f == GP_REPORT_JSON) {
        char *s = json_dumps (diff, JSON_INDENT (2) | JSON_PRESERVE_ORDER);
        if (!s) {
            gp_errprintf (err, GP_ENOMEM, "diff: out of memory");
            return NULL;
        }
        size_t n = strlen (s);
        char *t = realloc (s, n + 2);
        if (!t) {
            free (s);
            gp_errprintf (err, GP_ENOMEM, "diff: out of memory");
            return NULL;
        }
        t[n] = '\n';
        t[n + 1] = 0;
        return t;
    }
    if (f != GP_REPORT_TEXT && f != GP_REPORT_MD && f != GP_REPORT_HTML) {
        gp_errprintf (err, GP_EINVAL, "diff: unknown format");
        return NULL;
    }
    return render_textual (diff,
                           f == GP_REPORT_MD     ? ROUT_MD
                           : f == GP_REPORT_HTML ? ROUT_HTML
                                                 : ROUT_TEXT,
                           err);
}
