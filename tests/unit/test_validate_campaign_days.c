/* test_validate_campaign_days.c - campaign validation rows without a GPU
 * count: sized by the training planner's deadline sizing (as 'gpuplan
 * train --days D'), for the row's 'days' column or for the default
 * deadline train.default_days (docs/model/defaults.md, "Default
 * deadline"; docs/formats/train.md, "Validation CSV").
 *
 * The rows are tied to gp_train_plan on the same model, accelerator and
 * tokens: the count, the batch and the GPU-hours must be the planner's.
 * The GPU count is checked by hand from the planner's own rate: the
 * fewest whole nodes that meet the date, ceil(tokens / (tokens/s per GPU
 * x goodput x days x 86400)) GPUs rounded up to nodes, is a lower bound
 * of the answer (a size meets the date only at that rate or faster), and
 * the next smaller power of two (the 8B model's data-parallel degree must
 * divide its 1,024-sequence batch) misses the date at that rate.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "gpuplan/defaults.h"
#include "gpuplan/train.h"
#include "gpuplan/validate.h"

static struct gp_catalog *cat;

#define HEADER                                                             \
    "id,kind,model,zoo,params_b,layers,hidden,ffn_hidden,heads,kv_heads,"  \
    "vocab,mlp,moe_experts,moe_topk,moe_ffn_hidden,moe_shared_experts,"    \
    "seq_len,gpu,num_gpus,gpus_per_node,tp,pp,dp,cp,ep,vpp,sharding,"      \
    "recompute,micro_batch,global_batch,precision,tokens,"                 \
    "measured_tokens_per_s_per_gpu,measured_gpu_hours,source_metric,"      \
    "source_value,source,notes,measure,measured_value,flop_convention,"    \
    "days\n"

/* Llama 3.1 8B, 15T tokens on H100, nothing else: num_gpus NGPU, measure
 * MEAS with value VAL, days DAYS.
 */
#define CARD(id, kind, ngpu, meas, val, days)                              \
    id "," kind ",Llama 3.1 8B,llama3.1-8b,8,,,,,,,,,,,,,H100-SXM," ngpu   \
       ",,,,,,,,,,,,,15e12,,,,,,," meas "," val ",," days "\n"

static char path[64];

static struct gp_validation *run_text (const char *csv)
{
    snprintf (path, sizeof path, "/tmp/gp-test-valdays-XXXXXX");
    int fd = mkstemp (path);
    assert_true (fd >= 0);
    FILE *f = fdopen (fd, "w");
    assert_non_null (f);
    fputs (csv, f);
    fclose (f);
    struct gp_validate_request rq = {.path = path};
    struct gp_validation *v = NULL;
    gp_error_t err = {0};
    int rc = gp_validate_training (cat, &rq, &v, &err);
    unlink (path);
    assert_int_equal (rc, 0);
    assert_non_null (v);
    return v;
}

static const struct gp_val_row *row (const struct gp_validation *v,
                                     const char *id)
{
    for (size_t i = 0; i < v->n_rows; i++)
        if (!strcmp (v->rows[i].id, id))
            return &v->rows[i];
    fail_msg ("no row %s", id);
    return NULL;
}

/* gp_train_plan of Llama 3.1 8B, 15T tokens on H100 with 'days' (0 =
 * neither gpus nor days: the default deadline).
 */
static struct gp_train_plan_result *plan (double days)
{
    struct gp_train_request rq;
    gp_train_request_init (&rq);
    rq.model = "llama3.1-8b";
    rq.accels = "H100-SXM";
    rq.tokens = 15e12;
    rq.days = days;
    struct gp_train_plan_result *p = NULL;
    gp_error_t err = {0};
    assert_int_equal (gp_train_plan (cat, &rq, &p, &err), 0);
    assert_true (p->accels[0].feasible);
    return p;
}

/* The row's count, batch and GPU-hours are the planner's, and the count
 * passes the hand check of the header.
 */
static void same_as_plan (const struct gp_val_row *o,
                          const struct gp_train_plan_result *p, double days)
{
    const struct gp_train_accel_plan *a = &p->accels[0];
    assert_true (o->ok && o->planned && o->gpus_chosen);
    assert_true (o->target_days == days);
    assert_int_equal (o->n_gpus, a->n_gpus);
    assert_true (o->global_batch == a->global_batch);
    assert_true (fabs (o->predicted - a->gpu_hours) <= 1e-9 * a->gpu_hours);
    double rate = a->top[0].time.tokens_per_s_per_gpu * a->rel.goodput;
    double need = ceil (15e12 / (rate * days * 86400));
    int nodes = (int)ceil (need / 8);
    /* whole nodes, the fewest at this per-GPU rate: the batch is chosen
     * per count (a multiple of the GPU count when no power of two fits,
     * docs/model/training.md, "Batch"), so the count is not rounded up to
     * a power of two; one node fewer misses the deadline at the same
     * per-GPU rate (a data-parallel layout: the rate does not depend on
     * the count)
     */
    assert_int_equal (o->n_gpus % 8, 0);
    assert_true (o->n_gpus >= 8 * nodes);
    assert_true (o->n_gpus <= 8 * (nodes + 1));
    /* one node fewer misses the date at its own fastest batch and layout
     * (an exhaustive search at that count; its per-GPU rate can be lower
     * than at the chosen count, the batch being chosen per count)
     */
    struct gp_search_fix fix;
    gp_search_fix_free (&fix);
    struct gp_train_result top[1];
    int n1 = o->n_gpus - 8;
    if (gp_train_search_batch (&p->model, &p->job, &a->hw, n1, &fix, top, 1,
                               NULL, NULL)) {
        struct gp_reliability rel1;
        gp_train_reliability_with (&p->model, &p->job, n1, 8, NULL, &rel1);
        assert_true (15e12 / (top[0].time.tokens_per_s * rel1.goodput)
                         / 86400
                     > days);
    }
}

/* No num_gpus, no days: the default deadline (56 days in the registry),
 * the count of 'gpuplan train' without --gpus or --days.
 */
static void test_default_deadline (void **state)
{
    (void)state;
    double d = gp_default (NULL, GP_DEF_TRAIN_DEFAULT_DAYS);
    assert_true (d == 56);
    struct gp_validation *v =
        run_text (HEADER CARD ("c-8b", "campaign", "", "gpu_hours",
                               "1460000", ""));
    struct gp_train_plan_result *p = plan (0);
    assert_int_equal (p->default_days, 1);
    assert_true (p->target_days == d);
    const struct gp_val_row *o = row (v, "c-8b");
    assert_int_equal (o->days_default, 1);
    same_as_plan (o, p, d);
    assert_int_equal (o->n_gpus, 296); /* docs/model/defaults.md */
    gp_train_plan_result_destroy (p);
    gp_validation_destroy (v);
}

/* A 'days' column: sized for the row's days, as 'train --days'; +-50 %
 * of the default moves the count in inverse proportion to the days
 * (600, 296 and 200 GPUs for 28, 56 and 84 days: 37 nodes x 56/28 = 74,
 * x 56/84 = 24.7; each count the fewest whole nodes that finish in time,
 * so 75 and 25 nodes where the layouts at 74 and 24.7 fall short).
 */
static void test_row_days (void **state)
{
    (void)state;
    struct gp_validation *v = run_text (
        HEADER CARD ("d-28", "campaign", "", "gpu_hours", "1460000", "28")
            CARD ("d-84", "campaign", "", "gpu_hours", "1460000", "84"));
    double days[2] = {28, 84};
    const char *ids[2] = {"d-28", "d-84"};
    for (int i = 0; i < 2; i++) {
        struct gp_train_plan_result *p = plan (days[i]);
        assert_int_equal (p->default_days, 0);
        const struct gp_val_row *o = row (v, ids[i]);
        assert_int_equal (o->days_default, 0);
        same_as_plan (o, p, days[i]);
        gp_train_plan_result_destroy (p);
    }
    assert_int_equal (row (v, "d-28")->n_gpus, 600);
    assert_int_equal (row (v, "d-84")->n_gpus, 200);
    gp_validation_destroy (v);
}

/* What stays unsupported: a row that measures its own duration, a bad
 * 'days', a throughput row, a row with both num_gpus and days; a row with
 * num_gpus keeps it.
 */
static void test_not_sized (void **state)
{
    (void)state;
    struct gp_validation *v = run_text (
        HEADER CARD ("u-days", "campaign", "", "days", "50", "")
            CARD ("u-bad", "campaign", "", "gpu_hours", "1460000", "-3")
            CARD ("u-tput", "throughput", "", "tokens_per_s_per_gpu",
                  "9000", "")
            CARD ("k-1024", "campaign", "1024", "gpu_hours", "1460000",
                  "")
            CARD ("u-both", "campaign", "1024", "gpu_hours", "1460000",
                  "30"));
    const struct gp_val_row *o = row (v, "u-days");
    assert_false (o->ok);
    assert_non_null (strstr (o->reason, "measures its duration"));
    o = row (v, "u-bad");
    assert_false (o->ok);
    assert_non_null (strstr (o->reason, "bad days '-3'"));
    o = row (v, "u-tput");
    assert_false (o->ok);
    assert_non_null (strstr (o->reason, "num_gpus missing"));
    o = row (v, "u-both"); /* as `train`: gpus or days, not both */
    assert_false (o->ok);
    assert_non_null (strstr (o->reason, "not both"));
    o = row (v, "k-1024");
    assert_true (o->ok && !o->gpus_chosen);
    assert_int_equal (o->n_gpus, 1024);
    gp_validation_destroy (v);
}

static int setup (void **state)
{
    (void)state;
    gp_error_t err = {0};
    cat = gp_catalog_load (NULL, &err);
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
        cmocka_unit_test (test_default_deadline),
        cmocka_unit_test (test_row_days),
        cmocka_unit_test (test_not_sized),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
