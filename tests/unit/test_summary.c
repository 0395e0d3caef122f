/* test_summary.c - the plan report's executive summary and the main
 * training run's GPUs-vs-days curve (issue 15, Deliver 2 and 4).
 *
 * The summary's numbers are checked against the plan's own JSON options
 * list, re-derived here by hand: the recommendation is the cheapest
 * feasible, fully costed option (no queueing flag in these plans), the
 * runner-up the next cheapest, the gap their difference and the cut the
 * gap over the runner-up's TCO; the cost range without samples spans the
 * base TCO and every sensitivity row's TCO.  The summary is the first
 * section of every format.  The curve is monotone and its point at the
 * planned GPU count is the plan's run_days of that run; `train` with a
 * fixed count gives the same kind of curve.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gpuplan/catalog.h"
#include "gpuplan/plan.h"
#include "gpuplan/report.h"
#include "gpuplan/spec.h"
#include "gpuplan/train.h"

static struct gp_catalog *cat;

static int near (double a, double b)
{
    return fabs (a - b) <= 1e-9 * fabs (b) + 1e-6;
}

static struct gp_plan_result *run_file (const char *path)
{
    gp_error_t err = {0};
    struct gp_doc *d = gp_doc_load (path, &err);
    if (!d)
        fail_msg ("%s", err.text);
    struct gp_plan_spec *s = gp_plan_spec_from_doc (d, cat, &err);
    if (!s)
        fail_msg ("%s", err.text);
    struct gp_plan_result *r = gp_plan_run (s, cat, &err);
    if (!r)
        fail_msg ("%s", err.text);
    gp_plan_spec_destroy (s);
    gp_doc_destroy (d);
    return r;
}

/* The two cheapest feasible options with a TCO in the JSON's options. */
static void cheapest_two (json_t *opts, json_t **a, json_t **b)
{
    *a = *b = NULL;
    size_t i;
    json_t *o;
    json_array_foreach (opts, i, o) {
        json_t *t = json_object_get (o, "tco_usd");
        if (!json_is_true (json_object_get (o, "feasible")) || !json_is_number (t)
            || strcmp (json_string_value (json_object_get (o, "status")),
                       "ok"))
            continue;
        double v = json_number_value (t);
        if (!*a || v < json_number_value (json_object_get (*a, "tco_usd"))) {
            *b = *a;
            *a = o;
        } else if (!*b
                   || v < json_number_value (json_object_get (*b, "tco_usd")))
            *b = o;
    }
}

static double num (json_t *o, const char *k)
{
    json_t *v = json_object_get (o, k);
    if (!json_is_number (v))
        fail_msg ("'%s' is not a number", k);
    return json_number_value (v);
}

static void check_summary_numbers (const char *path)
{
    struct gp_plan_result *r = run_file (path);
    json_t *j = gp_report_json (r);
    assert_non_null (j);
    json_t *a, *b;
    cheapest_two (json_object_get (j, "options"), &a, &b);
    assert_non_null (a);
    assert_non_null (b);
    json_t *s = json_object_get (j, "summary");
    assert_non_null (s);
    assert_string_equal (json_string_value (json_object_get (s,
                                                             "recommended")),
                         json_string_value (json_object_get (a, "name")));
    double ta = num (a, "tco_usd"), tb = num (b, "tco_usd");
    assert_true (near (num (s, "tco_usd"), ta));
    json_t *u = json_object_get (s, "runner_up");
    assert_string_equal (json_string_value (json_object_get (u, "name")),
                         json_string_value (json_object_get (b, "name")));
    assert_true (near (num (u, "tco_usd"), tb));
    assert_true (near (num (u, "gap_usd"), tb - ta));
    assert_true (near (num (u, "cut_share"), (tb - ta) / tb));
    /* cost range over the base and the sensitivity rows (no samples) */
    double lo = ta, hi = ta;
    size_t i;
    json_t *row;
    json_array_foreach (json_object_get (j, "sensitivity"), i, row) {
        const char *k[] = {"tco_low_usd", "tco_high_usd"};
        for (int q = 0; q < 2; q++) {
            json_t *v = json_object_get (row, k[q]);
            if (json_is_number (v)) {
                lo = fmin (lo, json_number_value (v));
                hi = fmax (hi, json_number_value (v));
            }
        }
    }
    json_t *g = json_object_get (s, "tco_range");
    assert_string_equal (json_string_value (json_object_get (g, "basis")),
                         "sensitivity");
    assert_true (near (num (g, "low_usd"), lo));
    assert_true (near (num (g, "high_usd"), hi));
    assert_true (json_array_size (json_object_get (s, "decisions")) > 0);
    /* the first key of the document */
    void *it = json_object_iter (j);
    assert_string_equal (json_object_iter_key (it), "summary");
    json_decref (j);
    gp_plan_result_destroy (r);
}

static void test_summary_numbers (void **state)
{
    (void)state;
    check_summary_numbers (GP_SOURCE_DIR "/examples/startup-plan.yaml");
    check_summary_numbers (GP_SOURCE_DIR "/tests/cli/specs/plan-small.yaml");
}

/* The first section after the title is the summary, in every format. */
static void test_summary_first (void **state)
{
    (void)state;
    struct gp_plan_result *r =
        run_file (GP_SOURCE_DIR "/examples/startup-plan.yaml");
    gp_error_t err = {0};
    char *txt = gp_report_render (r, GP_REPORT_TEXT, &err);
    assert_non_null (txt);
    /* title line, blank line, then the heading */
    const char *nl = strchr (txt, '\n');
    assert_non_null (nl);
    assert_true (strncmp (nl, "\n\nExecutive summary\n", 20) == 0);
    assert_non_null (strstr (txt, "  Recommendation: aws-p5/mix: "));
    free (txt);
    char *md = gp_report_render (r, GP_REPORT_MD, &err);
    assert_non_null (md);
    assert_true (strncmp (strstr (md, "\n## "), "\n## Executive summary\n",
                          22) == 0);
    free (md);
    char *h = gp_report_render (r, GP_REPORT_HTML, &err);
    assert_non_null (h);
    const char *h2 = strstr (h, "<h2");
    assert_non_null (h2);
    assert_true (strncmp (h2, "<h2>Executive summary</h2>", 26) == 0);
    assert_true (strstr (h, "<section id=\"summary\">") < h2);
    free (h);
    /* the terminal summary ends with the same executive summary */
    char *sum = gp_report_summary (r, &err);
    assert_non_null (sum);
    assert_non_null (strstr (sum, "\nExecutive summary\n  Recommendation: "
                                  "aws-p5/mix: "));
    free (sum);
    gp_plan_result_destroy (r);
}

static void check_curve (const struct gp_plan_result *r)
{
    const struct gp_plan_curve *c = &r->curve;
    assert_true (c->n >= 2 && c->n <= GP_PLAN_CURVE_MAX);
    assert_int_equal (c->option, r->recommended);
    const struct gp_plan_wl_plan *p =
        &r->options[c->option].wl[c->workload];
    assert_int_equal (p->kind, GP_WL_TRAINING);
    assert_true (c->planned_gpus == p->gpus);
    int found = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (i) {
            assert_true (c->pt[i].gpus > c->pt[i - 1].gpus);
            assert_true (c->pt[i].days <= c->pt[i - 1].days);
        }
        if (c->pt[i].gpus == p->gpus) {
            found = 1;
            assert_true (near (c->pt[i].days, p->run_days));
        }
    }
    assert_true (found);
    assert_true (p->run_days <= c->deadline_days);
}

static void test_plan_curve (void **state)
{
    (void)state;
    struct gp_plan_result *r =
        run_file (GP_SOURCE_DIR "/examples/startup-plan.yaml");
    check_curve (r);
    json_t *j = gp_report_json (r);
    json_t *c = json_object_get (j, "train_curve");
    assert_int_equal (json_array_size (json_object_get (c, "points")),
                      r->curve.n);
    assert_true (near (num (c, "planned_days"),
                       r->options[r->recommended]
                           .wl[r->curve.workload]
                           .run_days));
    json_decref (j);
    gp_plan_result_destroy (r);
    /* more curve points than GP_PLAN_CURVE_MAX: thinned, planned kept
     * (the enterprise plan's curve has 15 points since its Llama-style
     * model stores no dropout masks; the spot pre-training spec has more)
     */
    r = run_file (GP_SOURCE_DIR "/tests/cli/specs/plan-pretrain-spot.yaml");
    check_curve (r);
    assert_int_equal (r->curve.n, GP_PLAN_CURVE_MAX);
    gp_plan_result_destroy (r);
    /* no training run with a deadline: no curve, "train_curve": null */
    r = run_file (GP_SOURCE_DIR "/tests/cli/specs/plan-small.yaml");
    assert_int_equal (r->curve.n, 0);
    j = gp_report_json (r);
    assert_true (json_is_null (json_object_get (j, "train_curve")));
    json_decref (j);
    gp_plan_result_destroy (r);
}

/* `train` with a fixed count: a curve without a deadline, monotone, its
 * point at the count being the run's days.
 */
static void test_train_fixed_curve (void **state)
{
    (void)state;
    struct gp_train_request rq;
    gp_train_request_init (&rq);
    rq.model = "llama3-8b";
    rq.gpus = 64;
    rq.tokens = 1e12;
    struct gp_train_plan_result *t = NULL;
    assert_int_equal (gp_train_plan (cat, &rq, &t, NULL), 0);
    const struct gp_train_accel_plan *p = &t->accels[0];
    assert_true (p->feasible);
    assert_true (p->n_curve > 0);
    int found = 0;
    double last = INFINITY;
    for (size_t i = 0; i < p->n_curve; i++) {
        const struct gp_train_curve_pt *c = &p->curve[i];
        if (i)
            assert_true (c->gpus > p->curve[i - 1].gpus);
        if (c->slower_than)
            continue;
        assert_true (c->days < last);
        last = c->days;
        if (c->gpus == 64) {
            found = 1;
            assert_true (near (c->days, p->days));
        }
    }
    assert_true (found);
    assert_true (p->curve[p->n_curve - 1].gpus >= 128);
    json_t *j = gp_report_train_json (t);
    json_t *res = json_array_get (json_object_get (j, "results"), 0);
    assert_true (json_array_size (json_object_get (res, "curve")) > 0);
    json_decref (j);
    char *txt = gp_report_train_text (t);
    assert_non_null (strstr (txt, "<- given"));
    free (txt);
    gp_train_plan_result_destroy (t);
}

/* A sampled plan (r->ranges, filled by the sampler): the summary's cost
 * range is the recommended option's P10 / P50 / P90 and its win share,
 * not the sensitivity span.
 */
static void test_summary_sampled_range (void **state)
{
    (void)state;
    struct gp_plan_result *r =
        run_file (GP_SOURCE_DIR "/tests/cli/specs/plan-small.yaml");
    assert_true (r->recommended >= 0);
    r->ranges = calloc (1, sizeof *r->ranges);
    assert_non_null (r->ranges);
    r->ranges->options = calloc (r->n_options, sizeof *r->ranges->options);
    assert_non_null (r->ranges->options);
    r->ranges->n_samples = 20;
    r->ranges->win_share = 0.85;
    struct gp_plan_option_range *x = &r->ranges->options[r->recommended];
    x->n_ok = 20;
    x->tco_usd.p10 = 250e3;
    x->tco_usd.p50 = 300e3;
    x->tco_usd.p90 = 410e3;
    gp_error_t err = {0};
    char *txt = gp_report_render (r, GP_REPORT_TEXT, &err);
    assert_non_null (txt);
    assert_non_null (strstr (txt, "cost range P10 / P50 / P90: $250k / "
                                  "$300k / $410k over 20 samples; cheapest "
                                  "in 85% of them"));
    free (txt);
    json_t *j = gp_report_json (r);
    json_t *g = json_object_get (json_object_get (j, "summary"),
                                 "tco_range");
    assert_string_equal (json_string_value (json_object_get (g, "basis")),
                         "samples");
    assert_true (num (g, "low_usd") == 250e3);
    assert_true (num (g, "p50_usd") == 300e3);
    assert_true (num (g, "high_usd") == 410e3);
    assert_true (num (g, "win_share") == 0.85);
    json_decref (j);
    gp_plan_result_destroy (r);
}

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

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_summary_numbers),
        cmocka_unit_test (test_summary_first),
        cmocka_unit_test (test_plan_curve),
        cmocka_unit_test (test_train_fixed_curve),
        cmocka_unit_test (test_summary_sampled_range),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
