/* test_plan.c - the capacity plan on small specs whose figures are worked
 * out by hand below, and the spec loader's errors.
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

#include "gpuplan/arch.h"
#include "gpuplan/plan.h"
#include "gpuplan/report.h"

static int near (double a, double b)
{
    return fabs (a - b) <= 1e-9 * fabs (b) + 1e-6;
}
#define NEAR(a, b) assert_true (near ((a), (b)))

/* One year, 16 H100 on-prem and 16 GPUs of p5.48xlarge (2 nodes).
 * Storage is priced at 0 on-prem and checkpoint bursts are switched off,
 * so the hand figures below do not depend on the model's size.  The
 * workload is a trace (tests/cli/specs/plan-flat16.csv, read relative to
 * the tests directory): two 8-GPU jobs for 8760 h, so the demand is 16
 * GPUs every month and the fleets are used all year: the cost arithmetic
 * alone is under test.
 */
static const char base_spec[] =
    "name: t\n"
    "horizon: 1y\n"
    "teams:\n"
    "  - {name: a, quota_share: 0.75}\n"
    "  - {name: b, quota_share: 0.25}\n"
    "workloads:\n"
    "  - {name: ft, kind: recurring, team: a, model: llama3-8b,\n"
    "     trace: cli/specs/plan-flat16.csv}\n"
    "assumptions:\n"
    "  storage_usd_per_tb: 0\n"
    "  object_usd_per_tb: 0\n"
    "  checkpoint_write_s: 0\n"
    "options:\n"
    "  - {name: h100, kind: onprem, accelerator: H100-SXM, gpus: 16}\n"
    "  - {name: p5, kind: cloud, instance: p5.48xlarge, region: us-east-1,\n"
    "     gpus: 16,\n"
    "     pricing: [on_demand, reserved_1y, reserved_3y, spot, mix]}\n";

#include "plan_fixture.h"

/* On-prem: 2 DGX H100 (catalog 10.2 kW, $270,000).  16 NICs fit one
 * 64-port QM9700: 1 switch, 16 NICs, 16 cables, 32 transceivers ->
 * 25,000 + 16 x 1,500 + 32 x 800 + 16 x 150 = $77,000; capex $617,000.
 * IT 2 x 10.2 = 20.4 kW + 10 % = 22.44 kW; 4 nodes per 40.8 kW rack ->
 * 1 compute rack, whose spare 20.4 kW holds the other 2.04 kW: 1 rack.  Energy 22.44 x 0.83 x 1.2 (PUE) x 8760 x $0.08.
 * Support 10 % = 61,700, staff 5 % = 30,850, space 150 x 22.44 x 12 =
 * 40,392.  One year of four: 617,000 / 4 = 154,250 charged.
 */
static void test_onprem_by_hand (void **state)
{
    (void)state;
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, base_spec, &err) != 0)
        fail_msg ("%s", err.text);
    const struct gp_plan_option *o = find (f.res, "h100");
    assert_int_equal (o->gpus, 16);
    assert_int_equal (o->nodes, 2);
    assert_int_equal (o->fabric.switches, 1);
    assert_int_equal (o->fabric.nics, 16);
    assert_int_equal (o->fabric.transceivers, 32);
    NEAR (o->capex_network, 77000);
    NEAR (o->capex_servers, 540000);
    NEAR (o->onprem.capex, 617000);
    NEAR (o->pow.it_w, 22440);
    assert_int_equal (o->pow.racks, 1);
    double energy = 22.44 * 0.83 * 1.2 * 8760 * 0.08;
    NEAR (o->onprem.power_year, energy);
    NEAR (o->onprem.opex_year, 61700 + 30850 + 40392 + energy);
    NEAR (o->tco_usd, 154250 + 61700 + 30850 + 40392 + energy);
    NEAR (o->usd_per_gpu_hour, o->tco_usd / (16 * 8760.0));
    /* quotas 75 / 25 % of 16: 12 + 4 = 16, each team's largest job (8)
     * within its quota, so no note.  Team a's two 8-GPU jobs need 16 GPUs
     * at once, 4 over its quota: the second runs only on borrowed quota.
     * The queueing flag is set exactly when a team's simulated p95 wait
     * is over 24 h or its longest over 168 h; the option stays feasible.
     */
    assert_int_equal (o->n_quotas, 2);
    assert_int_equal (o->quotas[0].gpus, 12);
    assert_int_equal (o->quotas[1].gpus, 4);
    NEAR (o->quotas[0].share, 12.0 / 16);
    NEAR (o->quotas[1].wished_share, 0.25);
    assert_string_equal (o->quota_note, "");
    int over = 0;
    for (size_t q = 0; q < o->n_quotas; q++)
        over |= o->quotas[q].wait_p95_s > 24 * 3600.0
                || o->quotas[q].wait_max_s > 168 * 3600.0;
    assert_int_equal (over, o->queue_flag[0] != 0);
    /* the trace's two 8-GPU jobs run all year on the 16 GPUs */
    assert_int_equal (o->sim.code, 0);
    assert_int_equal (o->sim_jobs, 2);
    assert_int_equal (o->sim_unfinished, 0);
    assert_true (o->feasible);
    unload (&f);
}

/* The two per-GPU-hour columns, by hand (docs/model/cost.md, "Cost per
 * GPU-hour").  Demand: the trace keeps 16 GPUs busy, 16 x 8760 = 140,160
 * GPU-hours in every option.  Provisioned: on-prem and on-demand 16 x
 * 8760 = 140,160; reserved_1y 2 nodes x 12 x 730 x 8 = 140,160;
 * reserved_3y pays 2 nodes for 36 x 730 h: 420,480 GPU-hours, so its
 * compute costs 27.52 / 8 = 3.44 $ per provisioned GPU-hour but
 * 1,446,451.20 / 140,160 = 10.32 $ per demand GPU-hour.  Spot: 1 node
 * paid 1 / (1 - f) of the year on spot and 1 node on demand.
 */
static void test_cost_columns (void **state)
{
    (void)state;
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, base_spec, &err) != 0)
        fail_msg ("%s", err.text);
    const char *names[] = {"h100", "p5/on_demand", "p5/reserved_1y",
                           "p5/reserved_3y", "p5/spot", "p5/mix"};
    for (size_t i = 0; i < 6; i++) {
        const struct gp_plan_option *o = find (f.res, names[i]);
        NEAR (o->demand_gpu_hours, 140160);
        NEAR (o->usd_per_used_gpu_hour, o->tco_usd / 140160);
        NEAR (o->usd_per_gpu_hour, o->tco_usd / o->provisioned_gpu_hours);
    }
    NEAR (find (f.res, "h100")->provisioned_gpu_hours, 140160);
    NEAR (find (f.res, "p5/on_demand")->provisioned_gpu_hours, 140160);
    NEAR (find (f.res, "p5/reserved_1y")->provisioned_gpu_hours, 140160);
    const struct gp_plan_option *o = find (f.res, "p5/reserved_3y");
    NEAR (o->provisioned_gpu_hours, 420480);
    double st = o->cloud_storage_usd;
    NEAR ((o->tco_usd - st) / o->provisioned_gpu_hours, 3.44);
    NEAR ((o->tco_usd - st) / o->demand_gpu_hours, 10.32);
    o = find (f.res, "p5/on_demand");
    NEAR ((o->tco_usd - st) / o->provisioned_gpu_hours, 55.04 / 8);
    o = find (f.res, "p5/reserved_1y");
    NEAR ((o->tco_usd - st) / o->provisioned_gpu_hours, 55.04 * 0.7 / 8);
    o = find (f.res, "p5/spot");
    double fr = 2 * 0.2 / 730 * (2400.0 / 3600);
    NEAR (o->provisioned_gpu_hours, (1 / (1 - fr) + 1) * 8760 * 8);
    unload (&f);
}

/* Bandwidth needed vs given (docs/model/infrastructure.md): the 8B run
 * spans nodes, so its data-parallel traffic needs scale-out bandwidth;
 * the need is below the 400 Gb/s the NICs give, the slowdown at the given
 * bandwidth is within the 5 % threshold, and a tighter threshold needs
 * more bandwidth.  A 1-node job needs none.
 */
static void test_bandwidth_need (void **state)
{
    (void)state;
    static const char spec[] =
        "name: bw\n"
        "horizon: 1y\n"
        "workloads:\n"
        "  - {name: pre, kind: training, model: llama3-8b, tokens: 1T,\n"
        "     deadline: 30d}\n"
        "  - {name: ft, kind: recurring, model: llama3-8b, tokens: 1B,\n"
        "     runs_per_month: 2}\n"
        "assumptions: {comm_slowdown_max: %s}\n"
        "options:\n"
        "  - {name: h100, kind: onprem, accelerator: H100-SXM}\n";
    char text[1024];
    double need[2];
    const char *tol[] = {"0.05", "0.01"};
    for (int k = 0; k < 2; k++) {
        snprintf (text, sizeof text, spec, tol[k]);
        struct fx f;
        gp_error_t err = {0};
        if (load (&f, text, &err) != 0)
            fail_msg ("%s", err.text);
        const struct gp_plan_option *o = find (f.res, "h100");
        assert_true (o->gpus > 8);
        assert_true (o->need_bw_known);
        NEAR (o->given_bw_per_gpu, 400e9 / 8);
        need[k] = o->need_bw_per_gpu;
        assert_true (need[k] > 0);
        assert_string_equal (o->need_bw_workload, "pre");
        assert_true (o->comm_slowdown >= 0);
        assert_int_equal (o->bw_short, need[k] > o->given_bw_per_gpu);
        assert_true (o->storage_given_bw + 1e-6
                     >= fmax (o->stor.read_bw, o->stor.write_bw));
        unload (&f);
    }
    assert_true (need[1] > need[0]);
}

/* Cloud: 2 p5.48xlarge nodes all year.  On-demand 2 x $55.04 x 8760 =
 * $964,300.80; 1-year reserved at 30 % off = $675,010.56; a 3-year term
 * bought for a 1-year horizon is paid in full: 2 x 27.52 x 8760 x 3 =
 * $1,446,451.20.  Spot: 2 nodes x 0.2/730 per node-hour x (1800 + 600) s
 * lost per interruption = f; spot serves half the demand (1 node, paid
 * 1 / (1 - f)), on-demand the other node.  Storage:
 * the 8B model's 5 checkpoints (14 B/param) and bf16 weights (2 B/param)
 * over 0.8, at $0.145 per GB-month for 12 months, in every option.
 */
static void test_cloud_by_hand (void **state)
{
    (void)state;
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, base_spec, &err) != 0)
        fail_msg ("%s", err.text);
    struct gp_zoo *zoo = gp_zoo_load (NULL, NULL);
    const struct gp_arch *a = gp_zoo_find (zoo, "llama3-8b", NULL);
    assert_non_null (a);
    struct gp_param_count pc;
    gp_arch_params (a, &pc);
    double storage = pc.total * (14 * 5 + 2) / 0.8 / 1e9 * 0.145 * 12;
    gp_zoo_destroy (zoo);

    const struct gp_plan_option *o = find (f.res, "p5/on_demand");
    NEAR (o->cloud_storage_usd, storage);
    NEAR (o->tco_usd - o->cloud_storage_usd, 964300.8);
    o = find (f.res, "p5/reserved_1y");
    NEAR (o->tco_usd - storage, 675010.56);
    o = find (f.res, "p5/reserved_3y");
    NEAR (o->tco_usd - storage, 1446451.2);
    const struct gp_instance *in
        = gp_catalog_find_instance (f.cat, "p5.48xlarge", "us-east-1", NULL);
    assert_non_null (in);
    double fr = 2 * 0.2 / 730 * (2400.0 / 3600);
    o = find (f.res, "p5/spot");
    NEAR (o->spot_overhead, fr);
    /* spot for half the demand (1 useful node = 1/(1-f) paid), on-demand
     * for the other node
     */
    NEAR (o->tco_usd - storage,
          (1 / (1 - fr) * in->spot_usd_hr + 55.04) * 8760);
    /* The mix can use every product (spot capped at half the demand), so
     * it is no dearer than on-demand or either reservation alone.
     */
    const struct gp_plan_option *m = find (f.res, "p5/mix");
    const char *alone[] = {"p5/on_demand", "p5/reserved_1y",
                           "p5/reserved_3y"};
    for (size_t i = 0; i < 3; i++)
        assert_true (m->tco_usd <= find (f.res, alone[i])->tco_usd + 1e-6);
    /* On-prem is cheapest here and is recommended. */
    assert_string_equal (f.res->options[f.res->recommended].name, "h100");
    assert_int_equal (gp_plan_status (f.res, NULL), 0);
    unload (&f);
}

/* Sized by the planners: a 1T-token 8B run in 30 days on H100.  The
 * on-prem build is the peak demand in whole nodes; the on-demand cloud
 * rents ceil(demand / 8) nodes each month at $55.04 x 730 h, plus storage.
 */
static void test_sized_by_planners (void **state)
{
    (void)state;
    static const char spec[] =
        "name: sized\n"
        "horizon: 1y\n"
        "workloads:\n"
        "  - {name: pre, kind: training, model: llama3-8b, tokens: 1T,\n"
        "     deadline: 30d}\n"
        "options:\n"
        "  - {name: h100, kind: onprem, accelerator: H100-SXM}\n"
        "  - {name: p5, kind: cloud, instance: p5.48xlarge,\n"
        "     region: us-east-1}\n";
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, spec, &err) != 0)
        fail_msg ("%s", err.text);
    const struct gp_plan_option *o = find (f.res, "h100");
    assert_int_equal (o->compute.code, 0);
    assert_true (o->gpus >= 8);
    assert_int_equal (o->gpus % 8, 0);
    /* the run takes at most the deadline: demand-months <= gpus x 1 */
    double gm = 0, peak = 0;
    for (size_t t = 0; t < o->n_periods; t++) {
        gm += o->demand_gpus[t];
        if (o->demand_gpus[t] > peak)
            peak = o->demand_gpus[t];
    }
    assert_true (gm > 0 && gm <= (double)o->gpus * (30.0 / 30.4167) + 1e-6);
    assert_true (o->usd_per_run > 0);
    assert_int_equal (o->unit_costs.code, 0);
    const struct gp_plan_option *c = find (f.res, "p5/on_demand");
    double want = c->cloud_storage_usd;
    for (size_t t = 0; t < c->n_periods; t++)
        want += ceil (c->demand_gpus[t] / 8 - 1e-9) * 55.04 * 730;
    NEAR (c->tco_usd, want);
    assert_int_equal (gp_plan_status (f.res, NULL), 0);
    /* An impossible deadline names the field and makes the plan
     * infeasible (exit 1).
     */
    unload (&f);
    static const char spec2[] =
        "name: late\n"
        "horizon: 1y\n"
        "workloads:\n"
        "  - {name: pre, kind: training, model: llama3.1-405b,\n"
        "     tokens: 15T, deadline: 1d}\n"
        "options:\n"
        "  - {name: h100, kind: onprem, accelerator: H100-SXM}\n";
    if (load (&f, spec2, &err) != 0)
        fail_msg ("%s", err.text);
    assert_int_equal (gp_plan_status (f.res, &err), GP_EINFEASIBLE);
    assert_non_null (strstr (err.text, "workloads[0].deadline"));
    unload (&f);
}

/* The startup example (examples/startup-plan.yaml): research asks 60 %
 * and product 40 % of the 48-GPU fleet (together 100 %, so no trim):
 * quotas floor(0.6 x 48) = 28 and floor(0.4 x 48) = 19, shares 28/48 and
 * 19/48, 1 GPU nobody asked for.  The teams' largest jobs need more than
 * the fleet together (research's 40-GPU run, the fewest whole nodes that
 * meet its 30-day deadline: 32 GPUs take 35.8 days, 40 take 28.7, is
 * above its 28-GPU quota), so the note says that run borrows idle quota.
 * Product's fine-tunes do not queue behind the training run: no option
 * is flagged by the queueing check.
 */
static void test_queueing_flag (void **state)
{
    (void)state;
    struct fx f;
    memset (&f, 0, sizeof f);
    gp_error_t err = {0};
    f.cat = gp_catalog_load (NULL, &err);
    assert_non_null (f.cat);
    f.doc = gp_doc_load ("../examples/startup-plan.yaml", &err);
    if (!f.doc)
        fail_msg ("%s", err.text);
    f.spec = gp_plan_spec_from_doc (f.doc, f.cat, &err);
    if (!f.spec)
        fail_msg ("%s", err.text);
    f.res = gp_plan_run (f.spec, f.cat, &err);
    if (!f.res)
        fail_msg ("%s", err.text);
    const struct gp_plan_option *o = find (f.res, "h100-onprem");
    assert_int_equal (o->gpus, 48);
    assert_int_equal (o->quotas[0].gpus, 28);
    assert_int_equal (o->quotas[1].gpus, 19);
    NEAR (o->quotas[0].share, 28.0 / 48);
    NEAR (o->quotas[1].share, 19.0 / 48);
    NEAR (o->quotas[0].wished_share, 0.6);
    NEAR (o->quotas[1].wished_share, 0.4);
    assert_int_equal (o->quota_trim, GP_QUOTA_AS_ASKED);
    assert_string_equal (o->quota_trim_why, "");
    assert_int_equal (o->sim.code, 0);
    assert_true (o->quota_short);
    assert_non_null (strstr (o->quota_note, "research's quota is 28 GPUs, "
                                            "its largest job (40 GPUs)"));
    char *txt = gp_report_render (f.res, GP_REPORT_TEXT, &err);
    assert_non_null (txt);
    /* the multi-tenancy table: one column per team */
    assert_non_null (strstr (txt, "28 GPUs (58%; asked 60%)"));
    assert_non_null (strstr (txt, "19 GPUs (40%; asked 40%)"));
    free (txt);
    assert_int_equal (o->queue, GP_QUEUE_OK);
    assert_true (f.res->recommended >= 0);
    assert_null (strstr (f.res->reason, "FAILS the queueing check"));
    int flagged = 0;
    for (size_t i = 0; i < f.res->n_log; i++)
        flagged += !strncmp (f.res->log[i], "flagged: ", 9);
    assert_int_equal (flagged, 0);
    /* Price dates: Azure's "~2023-2024" list is ~2024.0, AWS's
     * ">=2025-H2 ... post-June-2025" (2025.75 + 2025.5) / 2 = 2025.625:
     * 19.5 months apart, over 6: the three Azure options are logged.
     */
    int dated = 0;
    for (size_t i = 0; i < f.res->n_log; i++)
        if (!strncmp (f.res->log[i], "price dates: azure-nd-h100/", 27)) {
            dated++;
            assert_non_null (strstr (f.res->log[i], "(dated ~2024.0) are "
                                                    "~20 months older"));
            assert_non_null (strstr (f.res->log[i], "(~2025.6)"));
        }
    assert_int_equal (dated, 3);
    /* one money format: the reason says $915k like the table, not $0.91M */
    assert_null (strstr (f.res->reason, "$0."));
    unload (&f);
}

/* The on-prem cost row adds up (base_spec by hand): CAPEX $617,000,
 * charged 617,000 x 1 / 4 = $154,250 -> "$154k"; OPEX/YEAR 61,700 +
 * 30,850 + 40,392 + 22.44 x 0.83 x 1.2 x 8760 x 0.08 (15,663.05) =
 * 148,605 -> "$149k"; TCO 154,250 + 148,605 = 302,855 -> "$303k";
 * storage is in CAPEX and not shown again.
 */
static void test_cost_row_adds_up (void **state)
{
    (void)state;
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, base_spec, &err) != 0)
        fail_msg ("%s", err.text);
    const struct gp_plan_option *o = find (f.res, "h100");
    NEAR (o->onprem.capex_charged, 154250);
    assert_true (fabs (o->tco_usd - 302855.05) < 1);
    char *txt = gp_report_render (f.res, GP_REPORT_TEXT, &err);
    assert_non_null (txt);
    const char *row = strstr (txt, "\nh100  ");
    const char *cost = strstr (txt, "CAPEX CHARGED");
    assert_non_null (cost);
    row = strstr (cost, "\nh100 ");
    assert_non_null (row);
    const char *end = strchr (row + 1, '\n');
    char line[256];
    snprintf (line, sizeof line, "%.*s", (int)(end - row - 1), row + 1);
    const char *want[] = {"$617k", "$154k", "$149k", "in capex", "$303k"};
    const char *p = line;
    for (size_t i = 0; i < 5; i++) {
        const char *q = strstr (p, want[i]);
        if (!q)
            fail_msg ("'%s' not in order in '%s'", want[i], line);
        p = q + strlen (want[i]);
    }
    assert_non_null (strstr (txt, "TCO = CAPEX CHARGED + OPEX/YEAR x 1"));
    assert_non_null (strstr (txt, "not costed"));
    assert_non_null (strstr (txt, "fewest whole nodes"));
    free (txt);
    char *h = gp_report_render (f.res, GP_REPORT_HTML, &err);
    assert_non_null (h);
    assert_non_null (strstr (h, "CAPEX CHARGED"));
    assert_non_null (strstr (h, "fewest whole nodes"));
    free (h);
    unload (&f);
}

/* Cost attribution (docs/model/cost.md): a 16-GPU on-prem build that
 * serves one small chat service.  The build is the base spec's: TCO
 * $302,855.05 (test_cost_row_adds_up), 16 x 8760 = 140,160 GPU-hours, so a
 * provisioned GPU-hour costs 302,855.05 / 140,160 = $2.16078.  The
 * service's GPU-hours per 1M output tokens (m) are the serving model's:
 * the on-demand cloud option charges them at its own rate, which gives m.
 * On-prem 1M tokens cost m x 2.16078, not m x TCO / demand GPU-hours
 * (the idle GPUs' hours, 16 / demand times more).  At a 8 % discount rate
 * the cloud spend of each month is discounted from mid-month.
 */
static const char serve_spec[] =
    "name: serve\n"
    "horizon: 1y\n"
    "workloads:\n"
    "  - {name: chat, kind: inference, model: llama3-8b,\n"
    "     requests_per_s: 2, input_tokens: 1000, output_tokens: 250}\n"
    "assumptions:\n"
    "  storage_usd_per_tb: 0\n"
    "  object_usd_per_tb: 0\n"
    "  checkpoint_write_s: 0\n"
    "options:\n"
    "  - {name: h100, kind: onprem, accelerator: H100-SXM, gpus: 16}\n"
    "  - {name: p5, kind: cloud, instance: p5.48xlarge, region: us-east-1,\n"
    "     pricing: [on_demand]}\n";

static void test_serving_attribution (void **state)
{
    (void)state;
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, serve_spec, &err) != 0)
        fail_msg ("%s", err.text);
    const struct gp_plan_option *o = find (f.res, "h100");
    const struct gp_plan_option *c = find (f.res, "p5/on_demand");
    assert_true (fabs (o->tco_usd - 302855.05) < 1);
    assert_true (c->usd_per_mtok > 0 && o->usd_per_mtok > 0);
    double m = c->usd_per_mtok / c->usd_per_used_gpu_hour;
    assert_true (fabs (o->usd_per_mtok / (m * 302855.05 / 140160) - 1)
                 < 1e-5);
    /* the demand is a few GPUs: the old rule charged 16 / demand more */
    assert_true (o->demand_gpu_hours < 140160 / 2);
    assert_true (o->usd_per_mtok * 2 < m * o->usd_per_used_gpu_hour);
    unload (&f);
    /* at 8 %/yr: the on-prem TCO is capex - PV(book value) + PV(opex):
     * 617,000 - 462,750 / 1.08 + 148,605.05 x (1 - 1/1.08) / ln 1.08
     * (0.9624879) = 188,527.78 + 143,030.57 = 331,558.35; the cloud's
     * spend of month t at 1.08^-((t + 0.5) / 12).
     */
    char spec[2048];
    const char *a = strstr (serve_spec, "assumptions:\n");
    snprintf (spec, sizeof spec, "%.*sassumptions:\n  discount_rate: 0.08\n%s",
              (int)(a - serve_spec), serve_spec, a + strlen ("assumptions:\n"));
    if (load (&f, spec, &err) != 0)
        fail_msg ("%s", err.text);
    o = find (f.res, "h100");
    assert_true (fabs (o->onprem.capex_charged - 188527.78) < 0.01);
    assert_true (fabs (o->onprem.residual_pv - 462750 / 1.08) < 0.01);
    assert_true (fabs (o->tco_usd - 331558.35) < 0.05);
    NEAR (o->tco_usd, o->onprem.capex_charged + o->onprem.opex_charged);
    c = find (f.res, "p5/on_demand");
    double pv = 0, prev = 0;
    for (size_t t = 0; t < c->n_periods; t++) {
        /* undiscounted: whole nodes at $55.04 x 730 h plus storage */
        double spend = ceil (c->demand_gpus[t] / 8 - 1e-9) * 55.04 * 730;
        pv += spend * pow (1.08, -((double)t + 0.5) / 12);
        prev += spend;
    }
    double st = c->cloud_storage_usd;
    assert_true (c->tco_usd - st < prev);
    NEAR (c->tco_usd - st, pv);
    char *txt = gp_report_render (f.res, GP_REPORT_TEXT, &err);
    assert_non_null (txt);
    assert_non_null (strstr (txt, "discount rate of 8 %"));
    free (txt);
    unload (&f);
}

static void expect_error (const char *spec, int code, const char *const *want)
{
    struct fx f;
    gp_error_t err = {0};
    int rc = load (&f, spec, &err);
    if (rc == 0) {
        rc = gp_plan_status (f.res, &err);
        rc = rc ? -1 : 0;
    }
    assert_int_equal (rc, -1);
    if (err.code != code)
        fail_msg ("code %d, want %d: %s", err.code, code, err.text);
    for (size_t i = 0; want[i]; i++)
        if (!strstr (err.text, want[i]))
            fail_msg ("'%s' not in '%s'", want[i], err.text);
    unload (&f);
}

static char *with (const char *from, const char *to)
{
    static char buf[4096];
    const char *p = strstr (base_spec, from);
    assert_non_null (p);
    size_t a = (size_t)(p - base_spec);
    snprintf (buf, sizeof buf, "%.*s%s%s", (int)a, base_spec, to,
              p + strlen (from));
    return buf;
}

/* An existing fleet (docs/model/cost.md, "An existing fleet"): 8 of the
 * base build's 16 H100 are owned.  Servers 540,000, so 270,000 of them are
 * owned and 270,000 + 77,000 (network) = 347,000 is bought, charged
 * 347,000 / 4 = 86,750 for the year.  Owned servers 3.5 years old have a
 * book value of 270,000 x (1 - 3.5/4) = 33,750 and none a year later:
 * 33,750 charged.  Support and staff still cover all 617,000 of hardware:
 * opex 148,605.05 as before; TCO 86,750 + 33,750 + 148,605.05 =
 * 269,105.05.  One year old at 8 %: 270,000 x 0.75 - 270,000 x 0.5 / 1.08
 * = 202,500 - 125,000 = 77,500 for the owned servers.
 */
static void test_existing_fleet (void **state)
{
    (void)state;
    struct fx f;
    gp_error_t err = {0};
    char spec[4096];
    snprintf (spec, sizeof spec, "%s",
              with ("options:\n", "existing: {accelerator: H100-SXM, gpus: 8, "
                                  "age_years: 3.5}\noptions:\n"));
    if (load (&f, spec, &err) != 0)
        fail_msg ("%s", err.text);
    const struct gp_plan_option *o = find (f.res, "h100");
    NEAR (o->capex_servers, 270000);
    NEAR (o->onprem.capex, 347000);
    NEAR (o->onprem.owned_book_usd, 33750);
    NEAR (o->onprem.owned_charged, 33750);
    NEAR (o->onprem.capex_charged, 86750 + 33750);
    assert_true (fabs (o->tco_usd - 269105.05) < 0.01);
    /* the cloud options rent the whole demand: the owned GPUs are not
     * theirs (sold at book value, docs/model/cost.md)
     */
    const struct gp_plan_option *c = find (f.res, "p5/on_demand");
    NEAR ((c->tco_usd - c->cloud_storage_usd) / c->provisioned_gpu_hours,
          55.04 / 8);
    unload (&f);
    snprintf (spec, sizeof spec, "%s",
              with ("  checkpoint_write_s: 0\n",
                    "  checkpoint_write_s: 0\n  discount_rate: 0.08\n"
                    "existing: {accelerator: H100-SXM, gpus: 8, "
                    "age_years: 1}\n"));
    if (load (&f, spec, &err) != 0)
        fail_msg ("%s", err.text);
    o = find (f.res, "h100");
    assert_true (fabs (o->onprem.owned_charged - 77500) < 0.01);
    unload (&f);
    const char *w1[] = {"existing.delivery_lead_time", "not yet supported",
                        NULL};
    snprintf (spec, sizeof spec, "%s",
              with ("options:\n", "existing: {accelerator: H100-SXM, gpus: 8, "
                                  "delivery_lead_time: 3}\noptions:\n"));
    expect_error (spec, GP_ENOTSUP, w1);
    const char *w2[] = {"options[0].kind", "'burst' needs an existing fleet",
                        NULL};
    expect_error (with ("kind: onprem", "kind: burst"), GP_EPARSE, w2);
    const char *w3[] = {"existing.accelerator", NULL};
    expect_error (with ("options:\n", "existing: {accelerator: H100, "
                                      "gpus: 8}\noptions:\n"),
                  GP_ENOTFOUND, w3);
    const char *w4[] = {"existing", "gpus", NULL};
    expect_error (with ("options:\n", "existing: {accelerator: H100-SXM}\n"
                                      "options:\n"),
                  GP_EPARSE, w4);
}

/* Checkpoint and data bandwidth per node (docs/model/cost.md): a 1T-token
 * 8B run in 30 days is the only job, so its job spans the whole build (n
 * nodes).  At 1 GB/s per node the storage must take the checkpoint burst
 * at n x 1 GB/s, and at 5 GB/s of data per node it must read n x 5 GB/s
 * (the tokens alone need 1e12 x 4 B / 2,592,000 s = 1.54 MB/s).  Setting
 * the per-node rate and the write-time budget together is an error.
 */
static void test_node_bandwidth (void **state)
{
    (void)state;
    static const char spec[] =
        "name: bw\n"
        "horizon: 1y\n"
        "workloads:\n"
        "  - {name: pre, kind: training, model: llama3-8b, tokens: 1T,\n"
        "     deadline: 30d}\n"
        "assumptions:\n"
        "  ckpt_write_bw_per_node: 1e9\n"
        "  data_read_bw_per_node: 5e9\n"
        "options:\n"
        "  - {name: h100, kind: onprem, accelerator: H100-SXM}\n";
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, spec, &err) != 0)
        fail_msg ("%s", err.text);
    const struct gp_plan_option *o = find (f.res, "h100");
    assert_int_equal (o->storage.code, 0);
    assert_true (o->nodes >= 1);
    NEAR (o->stor.write_bw, (double)o->nodes * 1e9);
    NEAR (o->stor.read_bw, (double)o->nodes * 5e9);
    unload (&f);
    char bad[1024];
    const char *a = strstr (spec, "  data_read");
    snprintf (bad, sizeof bad, "%.*s  checkpoint_write_s: 60\n%s",
              (int)(a - spec), spec, a);
    const char *w[] = {"checkpoint_write_s", "ckpt_write_bw_per_node",
                       "not both", NULL};
    expect_error (bad, GP_EPARSE, w);
}

/* Delivery lead time (docs/model/cost.md): the base build's GPUs arrive
 * 3 months in.  Until then its 16-GPU demand is rented at the plan's own
 * on-demand price, 55.04 / 8 = 6.88 $/GPU-h: 16 x 3 x 730 x 6.88 =
 * 241,075.20.  The hardware serves 9 of its 48 months: 617,000 x 0.75 / 4
 * = 115,687.50; opex runs from delivery, 148,605.05 x 0.75 = 111,453.79.
 * TCO 468,216.49 over 16 x 8760 x 0.75 + 16 x 2190 = 140,160 GPU-hours.
 * With 8 of the 16 owned (one year old) only 8 GPUs are rented (120,537.60),
 * 347,000 x 0.75 / 4 = 65,062.50 bought, 270,000 / 4 = 67,500 owned,
 * opex 148,605.05 x (0.5 + 0.5 x 0.75) = 130,029.42: 383,129.52.
 */
static void test_lead_time (void **state)
{
    (void)state;
    struct fx f;
    gp_error_t err = {0};
    char spec[4096];
    snprintf (spec, sizeof spec, "%s",
              with ("  checkpoint_write_s: 0\n",
                    "  checkpoint_write_s: 0\n"
                    "  delivery_lead_time_months: 3\n"));
    if (load (&f, spec, &err) != 0)
        fail_msg ("%s", err.text);
    const struct gp_plan_option *o = find (f.res, "h100");
    assert_int_equal (o->cost.code, 0);
    assert_true (fabs (o->onprem.burst_usd - 241075.20) < 0.01);
    NEAR (o->onprem.capex_charged, 115687.5);
    assert_true (fabs (o->onprem.opex_charged - 111453.79) < 0.01);
    assert_true (fabs (o->tco_usd - 468216.49) < 0.01);
    NEAR (o->provisioned_gpu_hours, 140160);
    unload (&f);
    snprintf (spec, sizeof spec, "%s",
              with ("  checkpoint_write_s: 0\n",
                    "  checkpoint_write_s: 0\n"
                    "  delivery_lead_time_months: 3\n"
                    "existing: {accelerator: H100-SXM, gpus: 8, "
                    "age_years: 1}\n"));
    if (load (&f, spec, &err) != 0)
        fail_msg ("%s", err.text);
    o = find (f.res, "h100");
    assert_true (fabs (o->onprem.burst_usd - 120537.60) < 0.01);
    NEAR (o->onprem.owned_charged, 67500);
    assert_true (fabs (o->tco_usd - 383129.52) < 0.01);
    unload (&f);
}

static void test_errors (void **state)
{
    (void)state;
    const char *w1[] = {"plan.yaml:14:", "options[0].accelerator",
                        "did you mean", NULL};
    expect_error (with ("accelerator: H100-SXM", "accelerator: H100"),
                  GP_ENOTFOUND, w1);
    const char *w2[] = {"plan.yaml:", "unknown key 'gpu'", NULL};
    expect_error (with ("gpus: 16}", "gpu: 16}"), GP_EPARSE, w2);
    const char *w3[] = {"options[0].node_capex", "MI300X", NULL};
    expect_error (with ("accelerator: H100-SXM", "accelerator: MI300X, "
                                                 "node_power: 11kW"),
                  GP_EINVAL, w3);
    const char *w4[] = {"workloads[0].model", "did you mean", NULL};
    expect_error (with ("model: llama3-8b", "model: llama-3-8b"),
                  GP_ENOTFOUND, w4);
    const char *w5[] = {"workloads[0].team", "'c'", NULL};
    expect_error (with ("team: a,", "team: c,"), GP_ENOTFOUND, w5);
    const char *w6[] = {"assumptions: unknown key 'swich_usd'", NULL};
    expect_error (with ("  storage_usd_per_tb: 0\n",
                        "  swich_usd: 1\n"),
                  GP_EPARSE, w6);
    /* A valid plan no option meets: 10 kW of power for 2 DGX H100, and
     * only the on-prem option.
     */
    const char *w7[] = {"no option meets the constraints",
                        "constraints.power", NULL};
    char spec[4096];
    snprintf (spec, sizeof spec, "%s",
              with ("options:\n", "constraints: {power: 10kW}\noptions:\n"));
    char *cut = strstr (spec, "  - {name: p5");
    assert_non_null (cut);
    *cut = 0;
    expect_error (spec, GP_EINFEASIBLE, w7);
    const char *w8[] = {"pricing[0]", "unknown pricing model 'cheap'",
                        NULL};
    expect_error (with ("pricing: [on_demand,", "pricing: [cheap,"),
                  GP_EPARSE, w8);
}

/* Constraints prune options: clouds not allowed are rejected with the
 * field named; a budget under every TCO leaves nothing.
 */
static void test_constraints (void **state)
{
    (void)state;
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, with ("options:\n", "constraints: {clouds: [gcp], "
                                      "reservation_terms: [1y]}\noptions:\n"),
              &err) != 0)
        fail_msg ("%s", err.text);
    /* reserved_3y is not generated when only 1y terms are allowed */
    for (size_t i = 0; i < f.res->n_options; i++)
        assert_null (strstr (f.res->options[i].name, "reserved_3y"));
    const struct gp_plan_option *o = find (f.res, "p5/on_demand");
    assert_false (o->feasible);
    assert_non_null (strstr (o->violation, "constraints.clouds"));
    unload (&f);
    /* min_availability 0.999: the 2-node on-prem fleet has no spare
     * node (u = 0.752 %: P(0 of 2 down) = 0.985, P(<= 1 of 3) = 0.99983,
     * so 1 spare is needed) and is rejected; spot may serve at most
     * 1 - 0.999 of the demand: 0.002 of the 2 nodes, the rest on demand.
     */
    if (load (&f, with ("options:\n", "constraints: {min_availability: "
                                      "0.999}\noptions:\n"),
              &err) != 0)
        fail_msg ("%s", err.text);
    o = find (f.res, "h100");
    assert_false (o->feasible);
    assert_non_null (strstr (o->violation, "constraints.min_availability"));
    assert_non_null (strstr (o->violation, "needs 1 spare"));
    o = find (f.res, "p5/spot");
    const struct gp_instance *in
        = gp_catalog_find_instance (f.cat, "p5.48xlarge", "us-east-1", NULL);
    double fr = 2 * 0.2 / 730 * (2400.0 / 3600);
    NEAR (o->tco_usd - o->cloud_storage_usd,
          (0.002 / (1 - fr) * in->spot_usd_hr + 1.998 * 55.04) * 8760);
    unload (&f);
    const char *w[] = {"constraints.budget", NULL};
    expect_error (with ("options:\n", "constraints: {budget: $1k}\n"
                                      "options:\n"),
                  GP_EINFEASIBLE, w);
}

/* gp_plan_run leaves its spec as it was (const input): the spec's bytes
 * are the same after two runs, and the second run gives the same
 * figures and marks the same assumptions used, in its result only.
 */
static void test_const_spec (void **state)
{
    (void)state;
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, base_spec, &err) != 0)
        fail_msg ("%s", err.text);
    struct gp_plan_spec *copy = malloc (sizeof *copy);
    assert_non_null (copy);
    memcpy (copy, f.spec, sizeof *copy);
    for (size_t i = 0; i < f.spec->n_assume; i++)
        assert_false (f.spec->assume[i].used);
    struct gp_plan_result *again = gp_plan_run (f.spec, f.cat, &err);
    assert_non_null (again);
    assert_memory_equal (copy, f.spec, sizeof *copy);
    assert_int_equal (again->n_options, f.res->n_options);
    for (size_t i = 0; i < again->n_options; i++)
        assert_true (again->options[i].tco_usd == f.res->options[i].tco_usd);
    assert_int_equal (again->n_assume, f.res->n_assume);
    assert_true (again->n_assume > 0);
    for (size_t i = 0; i < again->n_assume; i++)
        assert_string_equal (again->assume[i].key, f.res->assume[i].key);
    assert_int_equal (again->n_log, f.res->n_log);
    assert_int_equal (again->n_sources, f.res->n_sources);
    gp_plan_result_destroy (again);
    free (copy);
    unload (&f);
}

/* Typed decision state, set where each decision is made:
 * - base_spec gives 16 GPUs per option and the trace needs 16: the basis
 *   is the spec's fleet checked against the planners (16 GPUs);
 * - the same with 8 GPUs given: the planners' 16 do not fit, the option
 *   is infeasible for compute;
 * - the training run of test_sized_by_planners: sized by the planners;
 * - constraints.clouds and constraints.budget name their constraint.
 */
static void test_typed_state (void **state)
{
    (void)state;
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, base_spec, &err) != 0)
        fail_msg ("%s", err.text);
    const struct gp_plan_option *o = find (f.res, "h100");
    assert_int_equal (o->basis, GP_BASIS_FLEET_CHECKED);
    assert_int_equal (o->sized_gpus, 16);
    assert_true (o->feasible);
    assert_int_equal (o->infeasible, GP_INFEAS_NONE);
    assert_int_equal (o->queue, GP_QUEUE_OK);
    assert_false (o->quota_short);
    unload (&f);

    if (load (&f, with ("H100-SXM, gpus: 16", "H100-SXM, gpus: 8"), &err)
        != 0)
        fail_msg ("%s", err.text);
    o = find (f.res, "h100");
    assert_int_equal (o->basis, GP_BASIS_PLANNERS);
    assert_int_equal (o->compute.code, GP_EINFEASIBLE);
    assert_false (o->feasible);
    assert_int_equal (o->infeasible, GP_INFEAS_COMPUTE);
    unload (&f);

    static const char sized[] =
        "name: sized\n"
        "horizon: 1y\n"
        "workloads:\n"
        "  - {name: pre, kind: training, model: llama3-8b, tokens: 1T,\n"
        "     deadline: 30d}\n"
        "options:\n"
        "  - {name: h100, kind: onprem, accelerator: H100-SXM}\n";
    if (load (&f, sized, &err) != 0)
        fail_msg ("%s", err.text);
    o = find (f.res, "h100");
    assert_int_equal (o->basis, GP_BASIS_PLANNERS);
    assert_int_equal (o->sized_gpus, o->gpus);
    assert_non_null (strstr (o->compute_basis, "training planner"));
    unload (&f);

    if (load (&f, with ("options:\n", "constraints: {clouds: [gcp], "
                                      "budget: $1k}\noptions:\n"),
              &err) != 0)
        fail_msg ("%s", err.text);
    assert_int_equal (find (f.res, "p5/on_demand")->infeasible,
                      GP_INFEAS_CLOUD);
    assert_int_equal (find (f.res, "h100")->infeasible, GP_INFEAS_BUDGET);
    unload (&f);
}

/* The decision log grows with the options instead of stopping at a fixed
 * count: the startup portfolio on one on-prem build and 11 cloud fleets of
 * 5 pricing models each (56 options, all with the teams' largest jobs
 * above the fleet) gets one line for the pick, one per other option, one
 * quota line per option, and one line per option whose price date is far
 * from the pick's: over 112 lines.
 */
static void test_log_grows (void **state)
{
    (void)state;
    FILE *fp = fopen ("../examples/startup-plan.yaml", "r");
    assert_non_null (fp);
    static char text[16384];
    size_t n = fread (text, 1, sizeof text - 1, fp);
    fclose (fp);
    text[n] = 0;
    char *opts = strstr (text, "\noptions:\n");
    assert_non_null (opts);
    size_t len = (size_t)(opts - text) + 10;
    len += (size_t)snprintf (text + len, sizeof text - len,
                             "  - {name: h100-onprem, kind: onprem, "
                             "accelerator: H100-SXM}\n");
    for (int k = 0; k < 11; k++)
        len += (size_t)snprintf (
            text + len, sizeof text - len,
            "  - {name: c%d, kind: cloud, instance: %s, pricing: "
            "[on_demand, reserved_1y, reserved_3y, spot, mix]}\n",
            k, k % 2 ? "Standard_ND96isr_H100_v5" : "p5.48xlarge");
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, text, &err) != 0)
        fail_msg ("%s", err.text);
    const struct gp_plan_result *r = f.res;
    assert_int_equal (r->n_options, 56);
    assert_true (r->recommended >= 0);
    /* chosen + one line per other option + one "rules:" line each */
    size_t want = 1 + (r->n_options - 1) + r->n_options, dated = 0,
           capacity = 0;
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        want += o->feasible && o->complete && o->queue != GP_QUEUE_OK;
        want += o->quota_short && o->compute.code == 0;
        want += o->sharp_known; /* the fabric choice (IB SHARP) */
    }
    for (size_t i = 0; i < r->n_log; i++) {
        dated += !strncmp (r->log[i], "price dates: ", 13);
        capacity += !strncmp (r->log[i], "capacity: ", 10);
    }
    assert_true (dated > 0);
    /* One line names every cloud option without a capacity figure. */
    assert_int_equal (capacity, 1);
    assert_int_equal (r->n_log, want + dated + capacity);
    assert_true (r->n_log > 112);
    assert_non_null (
        strstr (r->log[r->n_log - 2 - r->n_options], "price dates: "));
    assert_non_null (strstr (r->log[r->n_log - 1], "rules: c10/mix: "));
    unload (&f);
}

/* Options are not capped: base_spec's on-prem build and 20 cloud fleets
 * of 5 pricing models each give 1 + 20 x 5 = 101 options, the last one
 * evaluated like the first.
 */
static void test_many_options (void **state)
{
    (void)state;
    static char text[8192];
    const char *cut = strstr (base_spec, "  - {name: p5,");
    assert_non_null (cut);
    size_t len = (size_t)snprintf (text, sizeof text, "%.*s",
                                   (int)(cut - base_spec), base_spec);
    for (int k = 0; k < 20; k++)
        len += (size_t)snprintf (
            text + len, sizeof text - len,
            "  - {name: p5-%d, kind: cloud, instance: p5.48xlarge, "
            "region: us-east-1, gpus: 16,\n"
            "     pricing: [on_demand, reserved_1y, reserved_3y, spot, "
            "mix]}\n",
            k);
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, text, &err) != 0)
        fail_msg ("%s", err.text);
    assert_int_equal (f.res->n_options, 101);
    const struct gp_plan_option *a = find (f.res, "p5-0/mix");
    const struct gp_plan_option *z = find (f.res, "p5-19/mix");
    assert_true (z->complete);
    assert_true (z->tco_usd > 0);
    assert_true (z->tco_usd == a->tco_usd);
    unload (&f);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_onprem_by_hand),
        cmocka_unit_test (test_cloud_by_hand),
        cmocka_unit_test (test_cost_columns),
        cmocka_unit_test (test_bandwidth_need),
        cmocka_unit_test (test_sized_by_planners),
        cmocka_unit_test (test_errors),
        cmocka_unit_test (test_constraints),
        cmocka_unit_test (test_queueing_flag),
        cmocka_unit_test (test_cost_row_adds_up),
        cmocka_unit_test (test_serving_attribution),
        cmocka_unit_test (test_existing_fleet),
        cmocka_unit_test (test_node_bandwidth),
        cmocka_unit_test (test_lead_time),
        cmocka_unit_test (test_const_spec),
        cmocka_unit_test (test_typed_state),
        cmocka_unit_test (test_log_grows),
        cmocka_unit_test (test_many_options),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
