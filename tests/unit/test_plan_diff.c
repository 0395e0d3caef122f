/* test_plan_diff.c - the scenario diff (gp_plan_diff) on the shipped
 * examples: a plan against itself is empty; one changed discount shows
 * exactly that assumption and the numbers that moved; a constraint that
 * rejects the old pick moves the recommendation and says why; documents
 * that are not plan results are refused naming the JSON path.
 *
 * Expected values are read from the two plan JSONs, each computed on its
 * own (gp_report_json of an independent run), never from the diff.
 */
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpuplan/catalog.h"
#include "gpuplan/plan.h"
#include "gpuplan/report.h"
#include "gpuplan/spec.h"

#define EXAMPLE(f) GP_SOURCE_DIR "/examples/" f

/* The plan JSON of example 'file' with 'sets' (NULL = none). */
static json_t *plan_json (const char *file, const char **sets, size_t n)
{
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (NULL, &err);
    struct gp_doc *doc = cat ? gp_doc_load (file, &err) : NULL;
    struct gp_plan_spec *s =
        doc ? gp_plan_spec_from_doc_set (doc, sets, n, cat, &err) : NULL;
    struct gp_plan_result *r = s ? gp_plan_run (s, cat, &err) : NULL;
    if (!r)
        fail_msg ("%s: %s", file, err.text);
    json_t *j = gp_report_json (r);
    gp_plan_result_destroy (r);
    gp_plan_spec_destroy (s);
    gp_doc_destroy (doc);
    gp_catalog_destroy (cat);
    assert_non_null (j);
    return j;
}

/* The entry named 'name' of list 'arr'. */
static const json_t *named (const json_t *arr, const char *name)
{
    size_t i;
    const json_t *o;
    json_array_foreach (arr, i, o)
        if (!strcmp (json_string_value (json_object_get (o, "name")), name))
            return o;
    return NULL;
}

static const json_t *option (const json_t *plan, const char *name)
{
    return named (json_object_get (plan, "options"), name);
}

static double num (const json_t *o, const char *k)
{
    return json_number_value (json_object_get (o, k));
}

static void self_diff_is_empty (void **state)
{
    (void)state;
    json_t *a = plan_json (EXAMPLE ("startup-plan.yaml"), NULL, 0);
    json_t *b = plan_json (EXAMPLE ("startup-plan.yaml"), NULL, 0);
    gp_error_t err = {0};
    json_t *d = gp_plan_diff (a, b, &err);
    assert_non_null (d);
    assert_true (json_is_true (json_object_get (d, "empty")));
    assert_true (json_is_true (json_object_get (d, "inputs_compared")));
    assert_int_equal (json_array_size (json_object_get (d, "inputs")), 0);
    assert_int_equal (json_array_size (json_object_get (d, "assumptions")),
                      0);
    const json_t *op = json_object_get (d, "options");
    assert_int_equal (json_array_size (json_object_get (op, "changed")), 0);
    assert_int_equal (json_array_size (json_object_get (op, "added")), 0);
    assert_int_equal (json_array_size (json_object_get (op, "removed")), 0);
    const json_t *rec = json_object_get (d, "recommendation");
    assert_true (json_is_false (json_object_get (rec, "moved")));
    assert_string_equal (json_string_value (json_object_get (rec, "reason")),
                         "not_moved");
    char *t = gp_plan_diff_render (d, GP_REPORT_TEXT, &err);
    assert_non_null (t);
    assert_non_null (strstr (t, "no differences"));
    free (t);
    json_decref (d);
    json_decref (a);
    json_decref (b);
}

/* Enterprise with the 1-year reserved discount at 0.4 instead of 0.3: the
 * one changed input is that assumption; the changed options are exactly
 * those whose TCO, GPUs or cost per GPU-hour differ between the two
 * JSONs, with those deltas; the recommendation stays, with its margin
 * over the next-cheapest feasible option in B.
 */
static void one_discount (void **state)
{
    (void)state;
    const char *sets[] = {"reserved_1y_discount=0.4"};
    json_t *a = plan_json (EXAMPLE ("enterprise-plan.yaml"), NULL, 0);
    json_t *b = plan_json (EXAMPLE ("enterprise-plan.yaml"), sets, 1);
    gp_error_t err = {0};
    json_t *d = gp_plan_diff (a, b, &err);
    assert_non_null (d);
    assert_true (json_is_false (json_object_get (d, "empty")));
    assert_int_equal (json_array_size (json_object_get (d, "inputs")), 0);
    const json_t *as = json_object_get (d, "assumptions");
    assert_int_equal (json_array_size (as), 1);
    const json_t *c = json_array_get (as, 0);
    assert_string_equal (json_string_value (json_object_get (c, "key")),
                         "reserved_1y_discount");
    assert_true (num (c, "b") == 0.4);
    size_t i;
    const json_t *o;
    json_array_foreach (json_object_get (a, "assumptions"), i, o)
        if (!strcmp (json_string_value (json_object_get (o, "key")),
                     "reserved_1y_discount"))
            assert_true (num (c, "a") == num (o, "value"));
    /* the changed options, from the two JSONs */
    const json_t *changed = json_object_get (json_object_get (d, "options"),
                                             "changed");
    size_t want = 0;
    json_array_foreach (json_object_get (a, "options"), i, o) {
        const char *n = json_string_value (json_object_get (o, "name"));
        const json_t *ob = option (b, n);
        assert_non_null (ob);
        int moved = 0;
        const char *keys[] = {"tco_usd", "gpus", "cost_per_gpu_hour_usd"};
        for (size_t k = 0; k < 3; k++)
            moved |= !json_equal (json_object_get (o, keys[k]),
                                  json_object_get (ob, keys[k]));
        if (!moved)
            continue;
        want++;
        const json_t *e = named (changed, n);
        if (!e)
            fail_msg ("%s moved but is not in the diff", n);
        const json_t *t = json_object_get (e, "tco_usd");
        if (json_is_number (json_object_get (o, "tco_usd"))) {
            assert_true (num (t, "a") == num (o, "tco_usd"));
            assert_true (num (t, "b") == num (ob, "tco_usd"));
            assert_true (fabs (num (t, "delta")
                               - (num (ob, "tco_usd") - num (o, "tco_usd")))
                         < 1e-6);
        }
    }
    assert_true (want > 0);
    assert_int_equal (json_array_size (changed), want);
    assert_non_null (named (changed, "aws-p5/reserved_1y"));
    /* not moved, with the margin in B */
    const json_t *rec = json_object_get (d, "recommendation");
    assert_true (json_is_false (json_object_get (rec, "moved")));
    const char *pick = json_string_value (
        json_object_get (json_object_get (b, "recommendation"), "name"));
    double best = INFINITY, mine = num (option (b, pick), "tco_usd");
    json_array_foreach (json_object_get (b, "options"), i, o)
        if (json_is_true (json_object_get (o, "feasible"))
            && json_is_number (json_object_get (o, "tco_usd"))
            && strcmp (json_string_value (json_object_get (o, "name")),
                       pick))
            best = fmin (best, num (o, "tco_usd"));
    assert_true (fabs (num (rec, "margin_usd") - (best - mine)) < 1e-6);
    json_decref (d);
    json_decref (a);
    json_decref (b);
}

/* Allowing only Azure rejects the startup's AWS pick: the recommendation
 * moves, the diff names the constraint, and the input change is the
 * clouds list.
 */
static void moved_by_constraint (void **state)
{
    (void)state;
    const char *sets[] = {"constraints.clouds=[azure]"};
    json_t *a = plan_json (EXAMPLE ("startup-plan.yaml"), NULL, 0);
    json_t *b = plan_json (EXAMPLE ("startup-plan.yaml"), sets, 1);
    gp_error_t err = {0};
    json_t *d = gp_plan_diff (a, b, &err);
    assert_non_null (d);
    const json_t *in = json_object_get (d, "inputs");
    assert_int_equal (json_array_size (in), 1);
    assert_string_equal (json_string_value (json_object_get (
                             json_array_get (in, 0), "path")),
                         "inputs.constraints.clouds");
    const json_t *rec = json_object_get (d, "recommendation");
    const char *old = json_string_value (
        json_object_get (json_object_get (a, "recommendation"), "name"));
    const char *neu = json_string_value (
        json_object_get (json_object_get (b, "recommendation"), "name"));
    assert_true (strcmp (old, neu) != 0);
    assert_true (json_is_true (json_object_get (rec, "moved")));
    assert_string_equal (json_string_value (json_object_get (rec, "reason")),
                         "old_infeasible");
    const char *why = json_string_value (json_object_get (rec, "why"));
    assert_non_null (strstr (why, old));
    assert_non_null (strstr (why, json_string_value (json_object_get (
                                      option (b, old), "violation"))));
    assert_true (num (rec, "tco_b_usd") == num (option (b, neu), "tco_usd"));
    for (int f = GP_REPORT_TEXT; f <= GP_REPORT_JSON; f++) {
        char *t = gp_plan_diff_render (d, (enum gp_report_format)f, &err);
        assert_non_null (t);
        assert_non_null (strstr (t, neu));
        free (t);
    }
    json_decref (d);
    json_decref (a);
    json_decref (b);
}

/* A budget below every option: nothing is feasible in B (the why gives
 * B's nearest feasible change); and back again: nothing was feasible in A.
 */
static void moved_to_none_and_back (void **state)
{
    (void)state;
    const char *sets[] = {"constraints.budget=$900k"};
    json_t *a = plan_json (EXAMPLE ("startup-plan.yaml"), NULL, 0);
    json_t *b = plan_json (EXAMPLE ("startup-plan.yaml"), sets, 1);
    gp_error_t err = {0};
    json_t *d = gp_plan_diff (a, b, &err);
    assert_non_null (d);
    const json_t *rec = json_object_get (d, "recommendation");
    assert_true (json_is_null (json_object_get (rec, "b")));
    assert_string_equal (json_string_value (json_object_get (rec, "reason")),
                         "none_in_b");
    const char *why = json_string_value (json_object_get (rec, "why"));
    const char *near = json_string_value (json_object_get (
        json_object_get (json_object_get (b, "recommendation"),
                         "nearest_change"),
        "text"));
    assert_non_null (near);
    assert_non_null (strstr (why, near));
    json_decref (d);
    d = gp_plan_diff (b, a, &err);
    assert_non_null (d);
    rec = json_object_get (d, "recommendation");
    assert_string_equal (json_string_value (json_object_get (rec, "reason")),
                         "none_in_a");
    assert_true (json_is_true (json_object_get (rec, "moved")));
    json_decref (d);
    json_decref (a);
    json_decref (b);
}

/* Documents that are not plan results: GP_EINVAL naming the document
 * ("a: " or "b: ") and the JSON path.
 */
static void not_plan_results (void **state)
{
    (void)state;
    json_t *good = plan_json (EXAMPLE ("startup-plan.yaml"), NULL, 0);
    static const struct {
        const char *json;
        const char *want;
    } rows[] = {
        {"[1, 2]", "$: not a plan result"},
        {"{\"options\": []}", "$.plan"},
        {"{\"plan\": \"x\"}", "$.options"},
        {"{\"plan\": \"x\", \"options\": [{\"tco_usd\": 1}]}",
         "$.options[0].name"},
        {"{\"plan\": \"x\", \"options\": [{\"name\": \"o\", \"tco_usd\": "
         "\"a\", \"feasible\": true}]}",
         "$.options[0].tco_usd"},
        {"{\"plan\": \"x\", \"options\": [{\"name\": \"o\", \"feasible\": "
         "true}]}",
         "$.recommendation"},
        {"{\"plan\": \"x\", \"options\": [], \"recommendation\": null, "
         "\"assumptions\": [{\"key\": 1}]}",
         "$.assumptions[0]"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        json_t *bad = json_loads (rows[i].json, JSON_DECODE_ANY, NULL);
        assert_non_null (bad);
        gp_error_t err = {0};
        assert_null (gp_plan_diff (good, bad, &err));
        assert_int_equal (err.code, GP_EINVAL);
        if (strncmp (err.text, "b: ", 3) || !strstr (err.text, rows[i].want))
            fail_msg ("%s: got '%s'", rows[i].json, err.text);
        assert_null (gp_plan_diff (bad, good, &err));
        assert_int_equal (strncmp (err.text, "a: ", 3), 0);
        json_decref (bad);
    }
    gp_error_t err = {0};
    assert_null (gp_plan_diff (NULL, good, &err));
    assert_int_equal (err.code, GP_EINVAL);
    assert_null (gp_plan_diff_render (good, GP_REPORT_TEXT, &err));
    json_decref (good);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (self_diff_is_empty),
        cmocka_unit_test (one_discount),
        cmocka_unit_test (moved_by_constraint),
        cmocka_unit_test (moved_to_none_and_back),
        cmocka_unit_test (not_plan_results),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
