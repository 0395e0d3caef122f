/* test_plan_rules.c - the decision log's record of which rule decided
 * each option (gp_plan_option.rules, the "rules:" lines, JSON
 * options[].rules), and a service that lists its serving precisions.
 * Expected values are worked out by hand from the specs below, or by a
 * second method (the same service sized at each precision alone).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/plan.h"
#include "gpuplan/report.h"

#include "plan_fixture.h"

/* The log line that starts with 'prefix', or NULL. */
static const char *log_line (const struct gp_plan_result *r,
                             const char *prefix)
{
    for (size_t i = 0; i < r->n_log; i++)
        if (strncmp (r->log[i], prefix, strlen (prefix)) == 0)
            return r->log[i];
    return NULL;
}

/* 16 H100 on-prem (the spec's size) and p5 under two pricing models;
 * only GCP allowed, so both p5 options break constraints.clouds.  The
 * one workload is a recurring fine-tune (no deadline run, no service).
 * By hand: h100 is sized as given, priced by the on-prem TCO rule and
 * chosen as the only ranked option; p5/on_demand and p5/spot are
 * rejected by the cloud constraint; p5/spot is a spot option, and a
 * recurring fine-tune tolerates preemption by its kind, so its spot is
 * capped by that demand.
 */
static const char given_spec[] =
    "name: given\n"
    "horizon: 1y\n"
    "workloads:\n"
    "  - {name: ft, kind: recurring, model: llama3-8b, tokens: 1B,\n"
    "     runs_per_month: 2}\n"
    "constraints: {clouds: [gcp]}\n"
    "options:\n"
    "  - {name: h100, kind: onprem, accelerator: H100-SXM, gpus: 16}\n"
    "  - {name: p5, kind: cloud, instance: p5.48xlarge, gpus: 16,\n"
    "     pricing: [on_demand, spot]}\n";

static void test_rules_given (void **state)
{
    (void)state;
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, given_spec, &err) != 0)
        fail_msg ("%s", err.text);
    const struct gp_plan_option *h = find (f.res, "h100");
    assert_int_equal (h->rules.sizing, GP_RULE_SIZE_GIVEN);
    assert_int_equal (h->rules.train, GP_RULE_TRAIN_NONE);
    assert_int_equal (h->rules.serve, GP_RULE_SERVE_NONE);
    assert_int_equal (h->rules.pricing, GP_RULE_PRICE_ONPREM_TCO);
    assert_int_equal (h->rules.spot, GP_RULE_SPOT_NA);
    assert_int_equal (h->rules.verdict, GP_RULE_VERDICT_CHOSEN);
    assert_int_equal (h->rules.rank, 1);
    assert_string_equal (log_line (f.res, "rules: h100: "),
                         "rules: h100: sizing given; pricing onprem_tco; "
                         "verdict chosen (lowest TCO)");
    const struct gp_plan_option *od = find (f.res, "p5/on_demand");
    assert_int_equal (od->rules.pricing, GP_RULE_PRICE_CLOUD);
    assert_int_equal (od->rules.spot, GP_RULE_SPOT_NA);
    assert_int_equal (od->rules.verdict, GP_RULE_VERDICT_REJECTED);
    assert_int_equal (od->rules.rejected_by, GP_INFEAS_CLOUD);
    assert_int_equal (od->rules.rank, 0);
    const struct gp_plan_option *sp = find (f.res, "p5/spot");
    assert_int_equal (sp->rules.spot, GP_RULE_SPOT_CAPPED);
    assert_int_equal (sp->rules.rejected_by, GP_INFEAS_CLOUD);
    const char *l = log_line (f.res, "rules: p5/spot: ");
    assert_non_null (l);
    assert_non_null (strstr (l, "pricing cloud spot, spot "
                                "capped_by_tolerant_demand"));
    assert_non_null (strstr (l, "; verdict rejected by cloud"));
    /* every option has one rules line, after every other line */
    size_t first = f.res->n_log - f.res->n_options;
    for (size_t i = 0; i < f.res->n_options; i++) {
        char want[128];
        snprintf (want, sizeof want, "rules: %s: ", f.res->options[i].name);
        assert_int_equal (strncmp (f.res->log[first + i], want,
                                   strlen (want)),
                          0);
    }
    /* the JSON carries the same rules per option */
    json_t *j = gp_report_json (f.res);
    assert_non_null (j);
    json_t *opts = json_object_get (j, "options");
    json_t *o = NULL;
    for (size_t i = 0; i < json_array_size (opts); i++)
        if (!strcmp (json_string_value (json_object_get (
                         json_array_get (opts, i), "name")),
                     "p5/spot"))
            o = json_array_get (opts, i);
    assert_non_null (o);
    json_t *ru = json_object_get (o, "rules");
    assert_string_equal (json_string_value (json_object_get (
                             json_object_get (ru, "sizing"), "rule")),
                         "given");
    assert_string_equal (json_string_value (json_object_get (
                             json_object_get (ru, "pricing"), "spot")),
                         "capped_by_tolerant_demand");
    json_t *v = json_object_get (ru, "verdict");
    assert_string_equal (json_string_value (json_object_get (v, "rule")),
                         "rejected");
    assert_string_equal (
        json_string_value (json_object_get (v, "rejected_by")), "cloud");
    assert_true (json_is_null (json_object_get (v, "tco_rank")));
    json_decref (j);
    unload (&f);
}

/* A 3-month, 1B-token run of llama3-8b with the spec's batch of 256
 * sequences of 4096 tokens: the deadline curve with a fixed batch of
 * 256 x 4096 = 1,048,576 tokens; the fleet is the planners' (no gpus:).
 * Cloud options are ranked by TCO: their ranks are 1..n in the order of
 * their TCOs (sorted here).
 */
static const char train_spec[] =
    "name: train\n"
    "horizon: 1y\n"
    "workloads:\n"
    "  - {name: pre, kind: training, model: llama3-8b, tokens: 1B,\n"
    "     deadline: 90d, seq_len: 4096, global_batch: 256}\n"
    "options:\n"
    "  - {name: h100, kind: onprem, accelerator: H100-SXM}\n"
    "  - {name: p5, kind: cloud, instance: p5.48xlarge,\n"
    "     pricing: [on_demand, reserved_1y, spot]}\n";

static void test_rules_training (void **state)
{
    (void)state;
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, train_spec, &err) != 0)
        fail_msg ("%s", err.text);
    const struct gp_plan_result *r = f.res;
    int ranked = 0;
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        assert_int_equal (o->rules.sizing, GP_RULE_SIZE_PLANNERS);
        assert_int_equal (o->rules.train, GP_RULE_TRAIN_CURVE_FIXED_BATCH);
        assert_true (fabs (o->rules.train_batch_tokens - 1048576) < 1e-6);
        if (o->rules.rank > 0)
            ranked++;
    }
    /* a deadline run does not tolerate preemption: spot is rejected */
    const struct gp_plan_option *sp = find (r, "p5/spot");
    assert_int_equal (sp->rules.spot, GP_RULE_SPOT_NONE_TOLERANT);
    assert_int_equal (sp->rules.verdict, GP_RULE_VERDICT_REJECTED);
    assert_int_equal (sp->rules.rejected_by, GP_INFEAS_SPOT_INTOLERANT);
    /* ranks: 1 for the cheapest ranked option, then by TCO */
    assert_true (ranked >= 2);
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (!o->rules.rank)
            continue;
        int below = 0;
        for (size_t k = 0; k < r->n_options; k++)
            below += r->options[k].rules.rank > 0
                     && r->options[k].tco_usd < o->tco_usd;
        assert_int_equal (o->rules.rank, below + 1);
        assert_int_equal (o->rules.verdict, o->rules.rank == 1
                                                ? GP_RULE_VERDICT_CHOSEN
                                                : GP_RULE_VERDICT_TCO_RANK);
    }
    const char *l = log_line (r, "rules: h100: ");
    assert_non_null (l);
    assert_non_null (strstr (l, "sizing planners, training "
                                "deadline_curve_fixed_batch (batch 1.05M "
                                "tokens); pricing onprem_tco"));
    unload (&f);
}

/* Llama 3.1 70B served on H100 (80 GB): in bf16 its weights alone are
 * 70.6e9 x 2 B = 141 GB, so a replica needs at least 2 GPUs; in fp8
 * half that.  The service is sized at fp8 alone, at bf16 alone, and
 * with both listed in either order: the list must size exactly like the
 * precision that needs fewer GPUs (fp8 here, checked against bf16), and
 * the rules name it.
 */
static const char serve_fmt[] =
    "name: serve\n"
    "horizon: 1y\n"
    "workloads:\n"
    "  - {name: chat, kind: inference, model: llama3.1-70b,\n"
    "     precision: %s,\n"
    "     requests_per_s: 4, input_tokens: 1000, output_tokens: 250}\n"
    "options:\n"
    "  - {name: h100, kind: onprem, accelerator: H100-SXM}\n";

static double sized (const char *prec, const char *want_prec,
                     double *demand)
{
    char spec[1024];
    snprintf (spec, sizeof spec, serve_fmt, prec);
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, spec, &err) != 0)
        fail_msg ("%s: %s", prec, err.text);
    const struct gp_plan_option *o = find (f.res, "h100");
    assert_int_equal (o->compute.code, 0);
    assert_int_equal (o->rules.serve, GP_RULE_SERVE_FEWEST_GPUS);
    assert_string_equal (o->rules.serve_precision, want_prec);
    double sum = 0;
    for (size_t t = 0; t < o->n_periods; t++) {
        demand[t] = o->demand_gpus[t];
        sum += o->demand_gpus[t];
    }
    unload (&f);
    return sum;
}

static void test_serving_precisions (void **state)
{
    (void)state;
    double fp8[GP_PLAN_MAX_PERIODS], bf16[GP_PLAN_MAX_PERIODS];
    double both[GP_PLAN_MAX_PERIODS], rev[GP_PLAN_MAX_PERIODS];
    double s8 = sized ("fp8", "fp8", fp8);
    double s16 = sized ("bf16", "bf16", bf16);
    assert_true (bf16[0] >= 2);     /* 141 GB of weights > 80 GB */
    assert_true (s8 < s16);         /* fp8 needs fewer GPUs */
    assert_true (sized ("[fp8, bf16]", "fp8", both) == s8);
    assert_true (sized ("[bf16, fp8]", "fp8", rev) == s8);
    for (size_t t = 0; t < 12; t++) {
        assert_true (both[t] == fp8[t]);
        assert_true (rev[t] == fp8[t]);
    }
}

/* A list is for a service, of known names, each once. */
static void test_precision_errors (void **state)
{
    (void)state;
    static const char *const bad[] = {
        "name: x\nhorizon: 1y\nworkloads:\n"
        "  - {name: pre, kind: training, model: llama3-8b, tokens: 1B,\n"
        "     deadline: 90d, precision: [fp8, bf16]}\n"
        "options:\n  - {name: h, kind: onprem, accelerator: H100-SXM}\n",
        "name: x\nhorizon: 1y\nworkloads:\n"
        "  - {name: c, kind: inference, model: llama3-8b,\n"
        "     requests_per_s: 1, input_tokens: 100, output_tokens: 100,\n"
        "     precision: [fp8, fp4]}\n"
        "options:\n  - {name: h, kind: onprem, accelerator: H100-SXM}\n",
        "name: x\nhorizon: 1y\nworkloads:\n"
        "  - {name: c, kind: inference, model: llama3-8b,\n"
        "     requests_per_s: 1, input_tokens: 100, output_tokens: 100,\n"
        "     precision: [fp8, FP8]}\n"
        "options:\n  - {name: h, kind: onprem, accelerator: H100-SXM}\n",
    };
    static const char *const want[] = {"inference service only", "fp4",
                                       "listed twice"};
    for (size_t i = 0; i < 3; i++) {
        struct gp_catalog *cat = gp_catalog_load (NULL, NULL);
        assert_non_null (cat);
        gp_error_t err = {0};
        struct gp_doc *doc = gp_doc_parse (bad[i], strlen (bad[i]),
                                           "plan.yaml", &err);
        assert_non_null (doc);
        struct gp_plan_spec *s = gp_plan_spec_from_doc (doc, cat, &err);
        assert_null (s);
        assert_int_equal (err.code, GP_EPARSE);
        if (!strstr (err.text, want[i]))
            fail_msg ("%s", err.text);
        assert_non_null (strstr (err.text, "precision"));
        gp_doc_destroy (doc);
        gp_catalog_destroy (cat);
    }
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_rules_given),
        cmocka_unit_test (test_rules_training),
        cmocka_unit_test (test_serving_precisions),
        cmocka_unit_test (test_precision_errors),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
