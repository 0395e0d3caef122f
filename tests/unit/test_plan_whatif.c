/* test_plan_whatif.c - what-if planning on the shipped startup example:
 * --set overrides read through the spec's own checks, the nearest
 * feasible change of a plan made infeasible by its budget, and a budget
 * sweep whose crossing point follows from the options' TCOs.
 *
 * Expected values come from the plan itself run without the constraint
 * (the cheapest feasible option's TCO), never from a copied output.
 */
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
#include "gpuplan/spec.h"

#define STARTUP GP_SOURCE_DIR "/examples/startup-plan.yaml"

struct wf {
    struct gp_catalog *cat;
    struct gp_doc *doc;
};

static int setup (void **state)
{
    static struct wf f;
    gp_error_t err = {0};
    f.cat = gp_catalog_load (NULL, &err);
    f.doc = f.cat ? gp_doc_load (STARTUP, &err) : NULL;
    if (!f.doc) {
        fprintf (stderr, "%s\n", err.text);
        return -1;
    }
    *state = &f;
    return 0;
}

static int teardown (void **state)
{
    struct wf *f = *state;
    gp_doc_destroy (f->doc);
    gp_catalog_destroy (f->cat);
    return 0;
}

/* Plan the startup example with 'sets'; the result, or a test failure. */
static struct gp_plan_result *plan_with (struct wf *f, const char **sets,
                                         size_t n)
{
    gp_error_t err = {0};
    struct gp_plan_spec *s = gp_plan_spec_from_doc_set (f->doc, sets, n,
                                                        f->cat, &err);
    if (!s)
        fail_msg ("%s", err.text);
    struct gp_plan_result *r = gp_plan_run (s, f->cat, &err);
    gp_plan_spec_destroy (s);
    if (!r)
        fail_msg ("%s", err.text);
    return r;
}

static double assumption (const struct gp_plan_spec *s, const char *key)
{
    for (size_t i = 0; i < s->n_assume; i++)
        if (!strcmp (s->assume[i].key, key))
            return s->assume[i].overridden ? s->assume[i].value : NAN;
    return NAN;
}

/* --set reaches spec keys (a list entry by name, a missing mapping) and
 * registry keys by full or short name; the document is left as it was.
 */
static void set_overrides_spec (void **state)
{
    struct wf *f = *state;
    gp_error_t err = {0};
    const char *sets[] = {
        "constraints.budget=5e6",
        "workloads.pretrain-8b.tokens=2e11",
        "workloads.chat.requests_per_s=40",
        "options.h100-onprem.gpus=64",
        "reserved_1y_discount=0.4",
        "plan.reserved_3y_discount=0.6",
        "constraints.clouds=[aws]",
    };
    struct gp_plan_spec *s = gp_plan_spec_from_doc_set (f->doc, sets, 7,
                                                        f->cat, &err);
    assert_non_null (s);
    assert_true (s->cons.budget_usd == 5e6);
    assert_true (s->workloads[0].tokens == 2e11);
    assert_true (s->workloads[2].requests_per_s == 40);
    assert_int_equal (s->options[0].gpus, 64);
    assert_true (assumption (s, "reserved_1y_discount") == 0.4);
    assert_true (assumption (s, "reserved_3y_discount") == 0.6);
    assert_int_equal (s->cons.n_clouds, 1);
    assert_string_equal (s->cons.clouds[0], "aws");
    gp_plan_spec_destroy (s);
    /* the document is unchanged: $30M, 1T tokens, no override */
    s = gp_plan_spec_from_doc (f->doc, f->cat, &err);
    assert_non_null (s);
    assert_true (s->cons.budget_usd == 30e6);
    assert_true (s->workloads[0].tokens == 1e12);
    assert_int_equal (s->options[0].gpus, 0);
    assert_true (isnan (assumption (s, "reserved_1y_discount")));
    assert_int_equal (s->cons.n_clouds, 2);
    gp_plan_spec_destroy (s);
}

/* Bad overrides: exit-2 errors naming --set and the key, with the spec
 * reader's message (and its range).
 */
static void set_errors (void **state)
{
    struct wf *f = *state;
    static const struct {
        const char *set;
        const char *want1, *want2;
    } rows[] = {
        {"constraints.budgt=5", "--set constraints.budgt: ",
         "did you mean 'budget'"},
        {"workloads.pretrain-8b.start_month=500",
         "--set workloads.pretrain-8b.start_month: ", "outside [0, 120]"},
        {"options.h100-onprem.gpus=0", "--set options.h100-onprem.gpus: ",
         "outside [1, 10000000]"},
        {"workloads.nope.tokens=1", "--set workloads.nope.tokens: ",
         "no list entry named 'nope'"},
        {"reserved_1y_discount=abc", "--set reserved_1y_discount: ",
         "expected a number"},
        {"plan.no_such_key=1", "--set plan.no_such_key: ",
         "defaults-registry"},
        {"constraints.budget=-5", "--set constraints.budget: ",
         "negative"},
        {"no_equals_sign", "--set no_equals_sign", "KEY=VALUE"},
        {"=5", "--set =5", "KEY=VALUE"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        gp_error_t err = {0};
        const char *sets[] = {"constraints.budget=5e6", rows[i].set};
        struct gp_plan_spec *s = gp_plan_spec_from_doc_set (f->doc, sets, 2,
                                                            f->cat, &err);
        if (s)
            fail_msg ("%s: accepted", rows[i].set);
        assert_int_equal (gp_err_exit_status (err.code), 2);
        if (strncmp (err.text, rows[i].want1, strlen (rows[i].want1)) != 0
            || !strstr (err.text, rows[i].want2))
            fail_msg ("%s: got '%s'", rows[i].set, err.text);
    }
}

/* The cheapest feasible option and its TCO with no budget. */
static void cheapest (struct wf *f, char *name, size_t n, double *tco)
{
    const char *sets[] = {"constraints.budget=1e12"};
    struct gp_plan_result *r = plan_with (f, sets, 1);
    assert_true (r->recommended >= 0);
    snprintf (name, n, "%s", r->options[r->recommended].name);
    *tco = r->options[r->recommended].tco_usd;
    for (size_t i = 0; i < r->n_options; i++)
        if (r->options[i].feasible && r->options[i].complete)
            assert_true (r->options[i].tco_usd >= *tco);
    gp_plan_result_destroy (r);
}

/* A budget below every option's TCO: the nearest change is the budget,
 * raised to the cheapest option's TCO (to the dollar above), and that
 * budget makes exactly that option the recommendation.
 */
static void nearest_budget (void **state)
{
    struct wf *f = *state;
    char name[96];
    double tco;
    cheapest (f, name, sizeof name, &tco);
    char set[64];
    snprintf (set, sizeof set, "constraints.budget=%.17g", 0.9 * tco);
    const char *sets[] = {set};
    struct gp_plan_result *r = plan_with (f, sets, 1);
    assert_int_equal (r->recommended, -1);
    assert_true (r->n_changes >= 1);
    const struct gp_plan_change *ch = &r->changes[0];
    assert_string_equal (ch->option_name, name);
    assert_int_equal (ch->n_relax, 1);
    assert_int_equal (ch->relax[0].kind, GP_CHANGE_BUDGET);
    assert_string_equal (ch->relax[0].key, "constraints.budget");
    assert_true (fabs (ch->relax[0].from - 0.9 * tco) < 1e-6);
    assert_true (ch->relax[0].to == ceil (tco));
    assert_true (strstr (r->reason, "nearest feasible change"));
    gp_error_t err = {0};
    assert_int_equal (gp_plan_status (r, &err), GP_EINFEASIBLE);
    assert_non_null (strstr (err.text, "raise constraints.budget"));
    /* each later change needs at least as much */
    for (size_t i = 1; i < r->n_changes; i++)
        assert_true (r->changes[i].relax[0].to >= ch->relax[0].to);
    /* the change works: at that budget the option is recommended */
    snprintf (set, sizeof set, "constraints.budget=%.17g", ch->relax[0].to);
    gp_plan_result_destroy (r);
    r = plan_with (f, sets, 1);
    assert_true (r->recommended >= 0);
    assert_string_equal (r->options[r->recommended].name, name);
    assert_int_equal (r->n_changes, 0);
    gp_plan_result_destroy (r);
}

/* Power below the on-prem option's IT power and no allowed cloud with an
 * option: the nearest change raises the power to that option's IT power
 * (under +50 %, nearer than allowing a cloud, counted +100 %); with a
 * budget of $1M as well, allowing AWS alone makes aws-p5/mix ($982k)
 * feasible and comes before every change of two constraints.
 */
static void nearest_power_and_cloud (void **state)
{
    struct wf *f = *state;
    const char *free_sets[] = {"constraints.power=1e9"};
    struct gp_plan_result *u = plan_with (f, free_sets, 1);
    const struct gp_plan_option *onprem = &u->options[0];
    assert_string_equal (onprem->name, "h100-onprem");
    double it_w = onprem->pow.it_w;
    assert_true (it_w > 60e3 && it_w < 1.5 * 60e3); /* 78.5 kW: 56 GPUs */
    gp_plan_result_destroy (u);

    const char *sets[] = {"constraints.power=60kW", "constraints.clouds=[gcp]",
                          "constraints.budget=1e6"};
    struct gp_plan_result *r = plan_with (f, sets, 2);
    assert_int_equal (r->recommended, -1);
    assert_true (r->n_changes >= 2);
    const struct gp_plan_change *ch = &r->changes[0];
    assert_string_equal (ch->option_name, "h100-onprem");
    assert_int_equal (ch->n_relax, 1);
    assert_int_equal (ch->relax[0].kind, GP_CHANGE_POWER);
    assert_true (ch->relax[0].from == 60e3);
    assert_true (ch->relax[0].to == ceil (it_w));
    assert_int_equal (r->changes[1].relax[0].kind, GP_CHANGE_CLOUD);
    gp_plan_result_destroy (r);

    r = plan_with (f, sets, 3);
    assert_int_equal (r->recommended, -1);
    ch = &r->changes[0];
    assert_int_equal (ch->n_relax, 1);
    assert_int_equal (ch->relax[0].kind, GP_CHANGE_CLOUD);
    assert_string_equal (ch->relax[0].cloud, "aws");
    /* the rest need two changes, nearest first */
    for (size_t i = 1; i < r->n_changes; i++)
        assert_int_equal (r->changes[i].n_relax, 2);
    gp_plan_result_destroy (r);
}

/* A deadline no option meets: the nearest change extends it to the least
 * whole number of days at which one is feasible (bisection), and a day
 * less is not enough.
 */
static void nearest_deadline (void **state)
{
    struct wf *f = *state;
    const char *sets[] = {"workloads.pretrain-8b.deadline=1h"};
    struct gp_plan_result *r = plan_with (f, sets, 1);
    assert_int_equal (r->recommended, -1);
    assert_true (r->n_changes >= 1);
    const struct gp_plan_change *ch = &r->changes[0];
    assert_int_equal (ch->relax[0].kind, GP_CHANGE_DEADLINE);
    assert_string_equal (ch->relax[0].key, "workloads.pretrain-8b.deadline");
    assert_true (ch->relax[0].from == 3600);
    double days = ch->relax[0].to / 86400;
    assert_true (days == floor (days) && days >= 1);
    char set[80];
    snprintf (set, sizeof set, "workloads.pretrain-8b.deadline=%.17g",
              ch->relax[0].to);
    const char *at[] = {set};
    gp_plan_result_destroy (r);
    r = plan_with (f, at, 1);
    assert_true (r->recommended >= 0);
    gp_plan_result_destroy (r);
    if (days > 1) {
        snprintf (set, sizeof set, "workloads.pretrain-8b.deadline=%.17g",
                  (days - 1) * 86400);
        r = plan_with (f, at, 1);
        assert_int_equal (r->recommended, -1);
        gp_plan_result_destroy (r);
    }
}

/* A budget sweep: the recommendation appears at the first value at or
 * above the cheapest option's TCO, and at each value the feasible options
 * are those whose TCO fits (counted from the unconstrained run).
 */
static void sweep_budget (void **state)
{
    struct wf *f = *state;
    const char *none[] = {"constraints.budget=1e12"};
    struct gp_plan_result *u = plan_with (f, none, 1);
    double tco = u->options[u->recommended].tco_usd;
    gp_error_t err = {0};
    struct gp_plan_sweep *sw = gp_plan_sweep_run (
        f->doc, NULL, 0, "constraints.budget=5e5..2e6:16", f->cat, &err);
    assert_non_null (sw);
    assert_int_equal (sw->n_points, 16);
    assert_int_equal (sw->reuse, GP_SWEEP_REUSE_OPTIONS);
    size_t n_changed = 0;
    for (size_t i = 0; i < sw->n_points; i++) {
        const struct gp_plan_sweep_point *p = &sw->points[i];
        assert_true (fabs (p->value - (5e5 + 1e5 * (double)i)) < 1e-6);
        size_t fit = 0;
        for (size_t k = 0; k < u->n_options; k++)
            fit += u->options[k].feasible && u->options[k].complete
                   && u->options[k].tco_usd <= p->value;
        assert_int_equal (p->n_feasible, fit);
        if (p->value >= tco) {
            assert_string_equal (p->recommended,
                                 u->options[u->recommended].name);
            assert_true (p->tco_usd == tco);
            assert_int_equal (p->status, 0);
        } else {
            assert_string_equal (p->recommended, "");
            assert_int_equal (p->status, GP_EINFEASIBLE);
        }
        n_changed += p->changed;
        if (p->changed)
            assert_true (sw->points[i - 1].value < tco && p->value >= tco);
    }
    assert_int_equal (n_changed, 1);
    gp_plan_sweep_destroy (sw);
    gp_plan_result_destroy (u);
}

/* A key that changes the options' figures is planned in full at each
 * point: every point equals a plan run with that value set.
 */
static void sweep_full_matches_set (void **state)
{
    struct wf *f = *state;
    gp_error_t err = {0};
    struct gp_plan_sweep *sw = gp_plan_sweep_run (
        f->doc, NULL, 0, "reserved_3y_discount=0.5..0.8:3", f->cat, &err);
    assert_non_null (sw);
    assert_int_equal (sw->reuse, GP_SWEEP_REUSE_SPEC);
    for (size_t i = 0; i < sw->n_points; i++) {
        char set[64];
        snprintf (set, sizeof set, "reserved_3y_discount=%.17g",
                  sw->points[i].value);
        const char *sets[] = {set};
        struct gp_plan_result *r = plan_with (f, sets, 1);
        assert_true (r->recommended >= 0);
        assert_string_equal (sw->points[i].recommended,
                             r->options[r->recommended].name);
        assert_true (sw->points[i].tco_usd
                     == r->options[r->recommended].tco_usd);
        gp_plan_result_destroy (r);
    }
    gp_plan_sweep_destroy (sw);
}

static void sweep_parse_errors (void **state)
{
    (void)state;
    static const char *bad[] = {
        "constraints.budget", "constraints.budget=5", "=1..2",
        "constraints.budget=2..1", "constraints.budget=1..2:1",
        "constraints.budget=1..2:102", "constraints.budget=a..2",
        "constraints.budget=1..", "constraints.budget=1..2:x",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char key[64];
        double a, b;
        int steps;
        gp_error_t err = {0};
        if (gp_plan_sweep_parse (bad[i], key, sizeof key, &a, &b, &steps,
                                 &err) != GP_EINVAL)
            fail_msg ("%s: accepted", bad[i]);
        assert_non_null (strstr (err.text, "--sweep"));
    }
    char key[64];
    double a, b;
    int steps;
    assert_int_equal (gp_plan_sweep_parse ("x.y=5..10", key, sizeof key, &a,
                                           &b, &steps, NULL),
                      0);
    assert_string_equal (key, "x.y");
    assert_true (a == 5 && b == 10 && steps == GP_PLAN_SWEEP_STEPS);
    assert_int_equal (gp_plan_sweep_parse ("k=1e6..2.5e6:4", key,
                                           sizeof key, &a, &b, &steps, NULL),
                      0);
    assert_true (a == 1e6 && b == 2.5e6 && steps == 4);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (set_overrides_spec),
        cmocka_unit_test (set_errors),
        cmocka_unit_test (nearest_budget),
        cmocka_unit_test (nearest_power_and_cloud),
        cmocka_unit_test (nearest_deadline),
        cmocka_unit_test (sweep_budget),
        cmocka_unit_test (sweep_full_matches_set),
        cmocka_unit_test (sweep_parse_errors),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
