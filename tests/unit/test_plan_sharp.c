/* test_plan_sharp.c - the plan's fabric choice (InfiniBand SHARP) for
 * on-prem options: the break-even premium per switch by its definition
 * (docs/model/infrastructure.md, "In-network reduction: the fabric
 * choice"), worked through the result's own cost figures:
 *   run GPU-hours    = usd_per_run / usd_per_used_gpu_hour
 *   GPU-hours saved  = step gain x run GPU-hours (one run, inside the
 *                      horizon)
 *   USD saved        = GPU-hours saved x usd_per_gpu_hour
 *   break-even       = USD saved / switches of the fabric.
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

#include "plan_fixture.h"

static int near (double a, double b)
{
    return fabs (a - b) <= 1e-9 * fabs (b) + 1e-6;
}
#define NEAR(a, b) assert_true (near ((a), (b)))

/* 70B pretraining on B200 over a Quantum-2 fabric, with the global batch
 * fixed at 1,024 sequences: the planned layout (768 GPUs) all-reduces
 * across nodes, so SHARP shortens its step a little.  (With the batch
 * left to the planner, 616-624 GPUs with a ZeRO-2 layout win, whose
 * reduce-scatter SHARP does not speed up.)
 */
static const char b200_spec[] =
    "name: sharp\n"
    "horizon: 1y\n"
    "workloads:\n"
    "  - {name: pre, kind: training, model: llama3-70b, tokens: 15T,\n"
    "     deadline: 120d, seq_len: 8192, global_batch: 1024}\n"
    "options:\n"
    "  - {name: b200, kind: onprem, accelerator: B200, switch: qm9700}\n";

static void test_breakeven_by_definition (void **state)
{
    (void)state;
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, b200_spec, &err) != 0)
        fail_msg ("%s", err.text);
    const struct gp_plan_option *o = find (f.res, "b200");
    assert_true (o->sharp_known);
    assert_string_equal (o->sharp_gain_workload, "pre");
    assert_true (o->sharp_step_gain > 0 && o->sharp_step_gain < 0.05);
    assert_true (o->fabric.switches > 0 && o->usd_per_run > 0);
    double run_h = o->usd_per_run / o->usd_per_used_gpu_hour;
    NEAR (o->sharp_gpu_hours_saved, o->sharp_step_gain * run_h);
    NEAR (o->sharp_usd_saved, o->sharp_gpu_hours_saved * o->usd_per_gpu_hour);
    NEAR (o->sharp_breakeven_usd_per_switch,
          o->sharp_usd_saved / (double)o->fabric.switches);
    /* the decision log says it, with the switch */
    int logged = 0;
    for (size_t i = 0; i < f.res->n_log; i++)
        logged += strstr (f.res->log[i], "b200: fabric choice: IB SHARP "
                                         "(qm9700)") != NULL;
    assert_int_equal (logged, 1);
    /* and the JSON carries the same numbers */
    json_t *j = gp_report_json (f.res);
    assert_non_null (j);
    json_t *opts = json_object_get (j, "options");
    json_t *sh = NULL;
    for (size_t i = 0; i < json_array_size (opts); i++) {
        json_t *op = json_array_get (opts, i);
        if (!strcmp (json_string_value (json_object_get (op, "name")), "b200"))
            sh = json_object_get (json_object_get (op, "network"), "sharp");
    }
    assert_non_null (sh);
    NEAR (json_real_value (json_object_get (sh, "breakeven_usd_per_switch")),
          o->sharp_breakeven_usd_per_switch);
    json_decref (j);
    unload (&f);
}

/* One node: no fabric, nothing to evaluate (and no log line). */
static const char one_node_spec[] =
    "name: sharp-one\n"
    "horizon: 1y\n"
    "workloads:\n"
    "  - {name: ft, kind: training, model: llama3.2-1b, tokens: 20B,\n"
    "     deadline: 10d}\n"
    "options:\n"
    "  - {name: h100, kind: onprem, accelerator: H100-SXM, gpus: 8,\n"
    "     switch: qm9700}\n";

static void test_one_node (void **state)
{
    (void)state;
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, one_node_spec, &err) != 0)
        fail_msg ("%s", err.text);
    const struct gp_plan_option *o = find (f.res, "h100");
    assert_int_equal (o->nodes, 1);
    assert_false (o->sharp_known);
    assert_non_null (strstr (o->sharp_note, "one node"));
    assert_true (o->sharp_breakeven_usd_per_switch == 0);
    for (size_t i = 0; i < f.res->n_log; i++)
        assert_null (strstr (f.res->log[i], "fabric choice"));
    unload (&f);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_breakeven_by_definition),
        cmocka_unit_test (test_one_node),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
