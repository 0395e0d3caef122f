/* test_infer_plan_serving.c - the plan's inference services: serving
 * precision and engine are workload fields, the services are sized by
 * the serving search of `gpuplan infer` (gp_infer_choose_on), and
 * precision and engine are sensitivity rows.
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
#include "gpuplan/infer.h"
#include "gpuplan/plan.h"

/* One service, no growth: Llama 3.1 8B at 20 req/s, 1000 in / 250 out,
 * TTFT p99 500 ms, TPOT p95 50 ms, on p5.48xlarge on demand.
 */
static const char spec_fmt[] =
    "name: serve\n"
    "horizon: 1y\n"
    "workloads:\n"
    "  - {name: chat, kind: inference, model: llama3-8b,\n"
    "     requests_per_s: 20, input_tokens: 1000, output_tokens: 250,\n"
    "     ttft: 500ms, tpot: 50ms%s}\n"
    "options:\n"
    "  - {name: p5, kind: cloud, instance: p5.48xlarge, region: us-east-1,\n"
    "     pricing: [on_demand]}\n";

struct fx {
    struct gp_catalog *cat;
    struct gp_doc *doc;
    struct gp_plan_spec *spec;
    struct gp_plan_result *res;
};

static struct gp_plan_spec *load (struct fx *f, const char *extra,
                                  gp_error_t *err)
{
    char text[2048];
    memset (f, 0, sizeof *f);
    snprintf (text, sizeof text, spec_fmt, extra);
    f->cat = gp_catalog_load (NULL, err);
    assert_non_null (f->cat);
    f->doc = gp_doc_parse (text, strlen (text), "plan.yaml", err);
    assert_non_null (f->doc);
    f->spec = gp_plan_spec_from_doc (f->doc, f->cat, err);
    return f->spec;
}

static void unload (struct fx *f)
{
    gp_plan_result_destroy (f->res);
    gp_plan_spec_destroy (f->spec);
    gp_doc_destroy (f->doc);
    gp_catalog_destroy (f->cat);
}

static void test_engine_field (void **state)
{
    (void)state;
    struct fx f;
    gp_error_t err = {0};
    assert_non_null (load (&f, "", &err));
    assert_string_equal (f.spec->workloads[0].engine, "vllm");
    assert_string_equal (f.spec->workloads[0].precision, "bf16");
    unload (&f);
    assert_non_null (load (&f, ", engine: trtllm, precision: fp8", &err));
    assert_string_equal (f.spec->workloads[0].engine, "trtllm");
    assert_string_equal (f.spec->workloads[0].precision, "fp8");
    unload (&f);
    assert_null (load (&f, ", engine: tgi", &err));
    assert_non_null (strstr (err.text, "engine"));
    assert_non_null (strstr (err.text, "tgi"));
    unload (&f);
}

/* The plan sizes the service with the serving search: the same call with
 * the same inputs gives the GPUs the plan provisions (no growth, so the
 * demand is flat: replicas x GPUs per replica, rounded up to 8-GPU
 * nodes).
 */
static void test_same_search (void **state)
{
    (void)state;
    struct fx f;
    gp_error_t err = {0};
    assert_non_null (load (&f, ", precision: fp8", &err));
    double head = gp_plan_assume (f.spec, "inference_headroom");
    f.res = gp_plan_run (f.spec, f.cat, &err);
    assert_non_null (f.res);
    assert_true (f.res->n_options >= 1);
    const struct gp_plan_option *o = &f.res->options[0];
    assert_int_equal (o->compute.code, 0);

    struct gp_zoo *zoo = gp_zoo_load (NULL, &err);
    const struct gp_arch *a = gp_zoo_find (zoo, "llama3-8b", &err);
    assert_non_null (a);
    struct gp_serve_cfg cfg;
    memset (&cfg, 0, sizeof cfg);
    cfg.arch = a;
    cfg.accel = gp_catalog_find_accel (f.cat, "H100-SXM", &err);
    cfg.weight_dtype = GP_DT_FP8;
    cfg.kv_dtype = GP_DT_FP8; /* FP8 weights on an FP8 part */
    gp_engine_defaults (GP_ENGINE_VLLM, &cfg.eng);
    struct gp_workload wl;
    memset (&wl, 0, sizeof wl);
    wl.arrivals = GP_ARR_POISSON;
    wl.in_len = 1000;
    wl.out_len = 250;
    wl.seed = 1;
    struct gp_slo slo = {0};
    slo.ttft_p99_s = 0.5;
    slo.tpot_p95_s = 0.050;
    struct gp_infer_option best;
    assert_int_equal (gp_infer_choose_on (&cfg, f.cat, 0, &wl, &slo, 20, 20,
                                          head, 0, &best, &err), 0);
    assert_true (best.feasible);
    int reps = (int)ceil (20 / (best.size.rate_per_replica * (1 - head))
                          - 1e-9);
    long long gpus = (long long)reps * best.gpus_per_replica;
    assert_int_equal (o->sized_gpus, (gpus + 7) / 8 * 8);
    gp_zoo_destroy (zoo);
    unload (&f);
}

static const struct gp_sens_row *row_of (const struct gp_plan_result *r,
                                         const char *prefix)
{
    for (size_t i = 0; i < r->n_sens; i++)
        if (!strncmp (r->sens[i].param, prefix, strlen (prefix)))
            return &r->sens[i];
    return NULL;
}

/* Serving precision and engine are sensitivity rows; FP8 weights halve
 * the bytes read per decode step, so the service never needs more GPUs
 * and the TCO at fp8 is at most the TCO at bf16.
 */
static void test_sensitivity_rows (void **state)
{
    (void)state;
    struct fx f;
    gp_error_t err = {0};
    assert_non_null (load (&f, "", &err));
    f.res = gp_plan_run (f.spec, f.cat, &err);
    assert_non_null (f.res);
    const struct gp_sens_row *p = row_of (f.res, "serving precision");
    const struct gp_sens_row *e = row_of (f.res, "serving engine");
    assert_non_null (p);
    assert_non_null (e);
    assert_string_equal (p->param, "serving precision (low bf16, high fp8)");
    assert_true (p->tco_high <= p->tco_low);
    assert_true (p->tco_low > 0 && e->tco_low > 0 && e->tco_high > 0);
    /* the low side is the spec as written (bf16, vllm): the base TCO */
    double base = f.res->options[f.res->recommended].tco_usd;
    assert_true (fabs (p->tco_low - base) <= 1e-6 * base);
    assert_true (fabs (e->tco_low - base) <= 1e-6 * base);
    /* the spec is left as written */
    assert_string_equal (f.spec->workloads[0].precision, "bf16");
    unload (&f);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_engine_field),
        cmocka_unit_test (test_same_search),
        cmocka_unit_test (test_sensitivity_rows),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
