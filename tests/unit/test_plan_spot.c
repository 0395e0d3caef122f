/* test_plan_spot.c - pricing that respects the workload: no spot for
 * deadline training unless the workload allows it, obtainable capacity
 * caps, and flagged catalog prices named in the report.  Expected values
 * are worked out by hand from the catalog prices (p5.48xlarge us-east-1:
 * $55.04 on-demand, $23.45325 spot per node-hour of 8 GPUs; 730 h per
 * month) and the demand curve the planners hand to the pricing.
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

#include "gpuplan/plan.h"
#include "gpuplan/report.h"

#define OD 55.04
#define SPOT 23.45325
#define MONTH_H (8760.0 / 12)

static int near (double a, double b)
{
    return fabs (a - b) <= 1e-6 * fabs (b) + 1e-6;
}
#define NEAR(a, b) assert_true (near ((a), (b)))

struct fx {
    struct gp_catalog *cat;
    struct gp_doc *doc;
    struct gp_plan_spec *spec;
    struct gp_plan_result *res;
};

static void load (struct fx *f, const char *text)
{
    gp_error_t err = {0};
    memset (f, 0, sizeof *f);
    f->cat = gp_catalog_load (NULL, &err);
    if (f->cat)
        f->doc = gp_doc_parse (text, strlen (text), "plan.yaml", &err);
    if (f->doc)
        f->spec = gp_plan_spec_from_doc (f->doc, f->cat, &err);
    if (f->spec)
        f->res = gp_plan_run (f->spec, f->cat, &err);
    if (!f->res)
        fail_msg ("%s", err.text);
}

static void unload (struct fx *f)
{
    gp_plan_result_destroy (f->res);
    gp_plan_spec_destroy (f->spec);
    gp_doc_destroy (f->doc);
    gp_catalog_destroy (f->cat);
}

static const struct gp_plan_option *opt (const struct fx *f, const char *n)
{
    for (size_t i = 0; i < f->res->n_options; i++)
        if (!strcmp (f->res->options[i].name, n))
            return &f->res->options[i];
    fail_msg ("no option %s", n);
    return NULL;
}

/* The nodes of each month's demand, as the pricing rents them. */
static double node_hours (const struct gp_plan_option *o)
{
    double s = 0;
    for (size_t t = 0; t < o->n_periods; t++)
        s += ceil (o->demand_gpus[t] / 8 - 1e-9) * MONTH_H;
    return s;
}

/* One 60-day Llama 3 70B pre-training on p5 (the case). */
#define PRETRAIN(extra, optextra)                                          \
    "name: t\n"                                                            \
    "horizon: 1y\n"                                                        \
    "teams: [{name: a}]\n"                                                 \
    "assumptions: {spot_max_share: 0.5}\n"                                 \
    "workloads:\n"                                                         \
    "  - {name: pre, kind: training, team: a, model: llama3-70b,\n"        \
    "     tokens: 2T, deadline: 60d" extra "}\n"                           \
    "options:\n"                                                           \
    "  - {name: p5, kind: cloud, instance: p5.48xlarge, region: "          \
    "us-east-1,\n"                                                         \
    "     pricing: [on_demand, spot, mix]" optextra "}\n"

/* A deadline run is never put on spot: the mix is all on-demand, so its
 * compute cost is the on-demand price of every node-hour of the demand:
 * sum_t ceil(GPUs_t / 8) x 730 h x $55.04 (= GPUs x hours x $55.04 / 8),
 * and the pure spot option is infeasible with a typed reason.
 */
static void test_deadline_no_spot (void **state)
{
    (void)state;
    struct fx f;
    load (&f, PRETRAIN ("", ""));
    const struct gp_plan_option *mix = opt (&f, "p5/mix");
    const struct gp_plan_option *od = opt (&f, "p5/on_demand");
    const struct gp_plan_option *sp = opt (&f, "p5/spot");
    assert_true (mix->feasible);
    assert_true (mix->gpus > 0);
    NEAR (mix->spot_usd, 0);
    NEAR (mix->commit_usd, 0);
    NEAR (mix->spot_tolerant_share, 0);
    double want = node_hours (mix) * OD;
    assert_true (want > 1e6);
    NEAR (mix->on_demand_usd, want);
    NEAR (od->on_demand_usd, want);
    assert_false (sp->feasible);
    assert_int_equal (sp->infeasible, GP_INFEAS_SPOT_INTOLERANT);
    assert_non_null (strstr (sp->violation, "allow_spot"));
    unload (&f);
}

/* With allow_spot: true the run may use spot up to spot_max_share = 0.5
 * of each month's nodes: the spot option buys 0.5 d_t useful node-months
 * of spot (0.5 d_t / (1 - f) paid, f the interruption overhead) and
 * 0.5 d_t on-demand, since $23.45 / (1 - f) < $55.04.
 */
static void test_allow_spot (void **state)
{
    (void)state;
    struct fx f;
    load (&f, PRETRAIN (", allow_spot: true", ""));
    const struct gp_plan_option *sp = opt (&f, "p5/spot");
    const struct gp_plan_option *mix = opt (&f, "p5/mix");
    assert_true (sp->feasible);
    NEAR (sp->spot_tolerant_share, 1);
    double nh = node_hours (sp), fo = sp->spot_overhead;
    assert_true (fo > 0 && SPOT / (1 - fo) < OD);
    NEAR (sp->spot_usd, 0.5 * nh / (1 - fo) * SPOT);
    NEAR (sp->on_demand_usd, 0.5 * nh * OD);
    assert_true (mix->spot_usd > 0);
    unload (&f);
}

/* A capacity cap below the fleet: 64 GPUs obtainable, far fewer than the
 * run needs, makes every pricing model of the option infeasible.
 */
static void test_capacity_cap (void **state)
{
    (void)state;
    struct fx f;
    load (&f, PRETRAIN (", allow_spot: true", ", max_gpus: 64"));
    const char *names[] = {"p5/on_demand", "p5/spot", "p5/mix"};
    for (int i = 0; i < 3; i++) {
        const struct gp_plan_option *o = opt (&f, names[i]);
        assert_true (o->gpus > 64);
        assert_false (o->feasible);
        assert_int_equal (o->infeasible, GP_INFEAS_CAPACITY);
        assert_non_null (strstr (o->violation, "at most 64 obtainable"));
    }
    assert_int_equal (f.res->recommended, -1);
    unload (&f);
}

/* AWS Capacity Blocks (parts.csv: p5.48xlarge $39.33 per instance-hour,
 * at most 256 instances across blocks): whole nodes booked a month at a
 * time, so the cost is sum_t ceil(GPUs_t / 8) x 730 h x $39.33, shown as
 * committed; 15T tokens in 60 days need more than 256 x 8 = 2,048 GPUs,
 * so that fleet cannot be obtained as capacity blocks.
 */
#define CB_SPEC(tokens)                                                    \
    "name: t\nhorizon: 1y\nteams: [{name: a}]\n"                           \
    "workloads:\n"                                                         \
    "  - {name: pre, kind: training, team: a, model: llama3-70b,\n"        \
    "     tokens: " tokens ", deadline: 60d}\n"                            \
    "options:\n"                                                           \
    "  - {name: p5, kind: cloud, instance: p5.48xlarge,\n"                 \
    "     pricing: [capacity_block]}\n"

static void test_capacity_block (void **state)
{
    (void)state;
    struct fx f;
    load (&f, CB_SPEC ("2T"));
    const struct gp_plan_option *cb = opt (&f, "p5/capacity_block");
    assert_true (cb->feasible);
    assert_true (cb->gpus <= 2048);
    NEAR (cb->commit_usd, node_hours (cb) * 39.33);
    NEAR (cb->on_demand_usd, 0);
    assert_non_null (strstr (cb->price_warning, "late 2024"));
    unload (&f);
    load (&f, CB_SPEC ("15T"));
    cb = opt (&f, "p5/capacity_block");
    assert_true (cb->gpus > 2048);
    assert_false (cb->feasible);
    assert_int_equal (cb->infeasible, GP_INFEAS_CAPACITY);
    assert_non_null (strstr (cb->violation, "at most 2048 obtainable"));
    unload (&f);
}

/* Azure's A100 80GB spot price is 89 % under on-demand and flagged
 * spot_outlier in the catalog: an option that uses it (spot, mix) says so
 * in the text report and in JSON; on-demand alone uses no flagged price.
 */
static void test_flagged_price_named (void **state)
{
    (void)state;
    struct fx f;
    load (&f, "name: t\n"
              "horizon: 1y\n"
              "teams: [{name: a}]\n"
              "workloads:\n"
              "  - {name: ft, kind: recurring, team: a, model: llama3-8b,\n"
              "     trace: cli/specs/plan-flat16.csv}\n"
              "options:\n"
              "  - {name: az, kind: cloud, instance: "
              "Standard_ND96amsr_A100_v4,\n"
              "     gpus: 16, pricing: [on_demand, mix]}\n");
    const struct gp_plan_option *od = opt (&f, "az/on_demand");
    const struct gp_plan_option *mix = opt (&f, "az/mix");
    assert_string_equal (od->price_warning, "");
    assert_non_null (strstr (mix->price_warning, "spot_outlier"));
    gp_error_t err = {0};
    char *text = gp_report_render (f.res, GP_REPORT_TEXT, &err);
    assert_non_null (text);
    assert_non_null (strstr (text, "WARNING az/mix: "
                                   "Standard_ND96amsr_A100_v4 eastus spot "
                                   "price $0.45/GPU-h is flagged "
                                   "(spot_outlier)"));
    assert_non_null (strstr (text, "price warning: az/mix"));
    free (text);
    char *js = gp_report_render (f.res, GP_REPORT_JSON, &err);
    assert_non_null (js);
    json_t *j = json_loads (js, 0, NULL);
    assert_non_null (j);
    json_t *opts = json_object_get (j, "options");
    size_t n_warned = 0;
    for (size_t i = 0; i < json_array_size (opts); i++) {
        json_t *w = json_object_get (json_array_get (opts, i),
                                     "price_warnings");
        assert_true (json_is_array (w));
        n_warned += json_array_size (w);
    }
    assert_int_equal (n_warned, 1);
    json_decref (j);
    free (js);
    unload (&f);
}

/* The mix LP's caps, by hand: demand [10, 10] node-months, on-demand $10,
 * spot $3 with 25 % lost (useful $4), share 0.5.  Capping the tolerant
 * demand at [2, 0]: month 1 gets 2 useful spot (2.667 paid x $3 = $8)
 * + 8 on-demand ($80), month 2 all on-demand ($100): $188.  An on-demand
 * cap of 9 nodes with no spot cannot cover 10: infeasible.
 */
static void test_mix_caps (void **state)
{
    (void)state;
    double d[2] = {10, 10}, cap[2] = {2, 0};
    struct gp_mix_in in = {
        .n_periods = 2, .demand = d, .period_hours = 1,
        .on_demand_price = 10, .spot_price = 3, .spot_overhead = 0.25,
        .spot_max_share = 0.5, .spot_cap = cap,
    };
    struct gp_mix m;
    assert_int_equal (gp_mix_solve (&in, &m, NULL), 0);
    NEAR (m.cost, 188);
    NEAR (m.spot[0], 8.0 / 3);
    NEAR (m.spot[1], 0);
    gp_mix_free (&m);
    in.spot_cap = NULL;
    in.spot_price = 0;
    in.max_on_demand = 9;
    gp_error_t err = {0};
    assert_int_equal (gp_mix_solve (&in, &m, &err), GP_EINFEASIBLE);
    in.max_on_demand = 10;
    assert_int_equal (gp_mix_solve (&in, &m, NULL), 0);
    NEAR (m.cost, 200);
    gp_mix_free (&m);
}

/* allow_spot must be a boolean; max_gpus is for cloud options. */
static void test_spec_keys (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (NULL, &err);
    const char *bad[] = {
        "name: t\nhorizon: 1y\nteams: [{name: a}]\nworkloads:\n"
        "  - {name: w, kind: training, team: a, model: "
        "llama3-8b, tokens: 1T, deadline: 30d, allow_spot: 3}\n"
        "options:\n  - {name: h, kind: onprem, accelerator: H100-SXM}\n",
        "name: t\nhorizon: 1y\nteams: [{name: a}]\nworkloads:\n"
        "  - {name: w, kind: training, team: a, model: "
        "llama3-8b, tokens: 1T, deadline: 30d}\n"
        "options:\n  - {name: h, kind: onprem, accelerator: H100-SXM, "
        "max_gpus: 8}\n",
    };
    const char *want[] = {"allow_spot", "max_gpus"};
    for (int i = 0; i < 2; i++) {
        struct gp_doc *doc = gp_doc_parse (bad[i], strlen (bad[i]), "p.yaml",
                                           &err);
        assert_non_null (doc);
        assert_null (gp_plan_spec_from_doc (doc, cat, &err));
        if (!strstr (err.text, want[i]))
            fail_msg ("%s", err.text);
        gp_doc_destroy (doc);
    }
    struct gp_plan_workload w;
    memset (&w, 0, sizeof w);
    w.kind = GP_WL_RECURRING;
    assert_true (gp_plan_wl_allows_spot (&w));
    w.kind = GP_WL_INFERENCE;
    assert_false (gp_plan_wl_allows_spot (&w));
    w.allow_spot = 1;
    assert_true (gp_plan_wl_allows_spot (&w));
    w.kind = GP_WL_RECURRING;
    w.allow_spot = -1;
    assert_false (gp_plan_wl_allows_spot (&w));
    gp_catalog_destroy (cat);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_deadline_no_spot),
        cmocka_unit_test (test_allow_spot),
        cmocka_unit_test (test_capacity_cap),
        cmocka_unit_test (test_capacity_block),
        cmocka_unit_test (test_flagged_price_named),
        cmocka_unit_test (test_mix_caps),
        cmocka_unit_test (test_spec_keys),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
