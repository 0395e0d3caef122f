/* test_plan_ranges.c - issue 13: numeric fields of the plan spec are
 * checked against their documented ranges where they are read
 * (docs/formats/plan.md, "Ranges"), a present zero is never replaced by a
 * default, workload names are unique, and the models refuse what they
 * would divide by zero.  Expected texts are the documented message format
 * with positions counted by hand in the literal specs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "gpuplan/arch.h"
#include "gpuplan/catalog.h"
#include "gpuplan/plan.h"
#include "gpuplan/spec.h"
#include "gpuplan/train.h"
#include "gpuplan/units.h"

/* A plan whose line 7 (in the training workload) is 'wl_line' and line
 * 15 (in the constraints) 'cons_line'.
 */
static char *spec_with (const char *wl_line, const char *cons_line)
{
    static char buf[1024];
    snprintf (buf, sizeof buf,
              "name: r\n"                   /* 1 */
              "horizon: 1y\n"               /* 2 */
              "workloads:\n"                /* 3 */
              "  - name: pre\n"             /* 4 */
              "    kind: training\n"        /* 5 */
              "    model: llama3-8b\n"      /* 6 */
              "    %s\n"                    /* 7 */
              "    deadline: 30d\n"         /* 8 */
              "  - name: ft\n"              /* 9 */
              "    kind: recurring\n"       /* 10 */
              "    model: llama3-8b\n"      /* 11 */
              "    tokens: 1B\n"            /* 12 */
              "    runs_per_month: 2\n"     /* 13 */
              "constraints:\n"              /* 14 */
              "  %s\n"                      /* 15 */
              "options:\n"
              "  - name: h100\n"
              "    kind: onprem\n"
              "    accelerator: H100-SXM\n",
              wl_line, cons_line);
    return buf;
}

static void expect_error (const char *text, int code, const char *msg)
{
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (NULL, &err);
    assert_non_null (cat);
    struct gp_doc *d = gp_doc_parse (text, strlen (text), "p.yaml", &err);
    struct gp_plan_spec *s = d ? gp_plan_spec_from_doc (d, cat, &err) : NULL;
    if (s || err.code != code || !strstr (err.text, msg))
        fail_msg ("got %s rc %d '%s', want rc %d '%s'", s ? "a spec" : "no spec",
                  err.code, err.text, code, msg);
    gp_plan_spec_destroy (s);
    gp_doc_destroy (d);
    gp_catalog_destroy (cat);
}

/* tokens 1e30 overflowed the compute sizing; seq_len 1e-300 divided in
 * placement (SIGFPE): both are now out of range at parse time.
 */
static void issue13_extremes (void **state)
{
    (void)state;
    expect_error (spec_with ("tokens: 1e30", "budget: $1M"), GP_ERANGE,
                  "p.yaml:7:13: field 'workloads[0].tokens': 1e+30 outside "
                  "[1, 1e+17]");
    expect_error (spec_with ("tokens: 1T\n    seq_len: 1e-300", "budget: $1M"),
                  GP_ERANGE,
                  "p.yaml:8:14: field 'workloads[0].seq_len': 1e-300 outside "
                  "[1, 10000000]");
}

/* seq_len: 0, budget: 0 and power: 0W were replaced by the defaults. */
static void issue13_zero_is_not_unset (void **state)
{
    (void)state;
    expect_error (spec_with ("tokens: 1T\n    seq_len: 0", "budget: $1M"),
                  GP_ERANGE, "p.yaml:8:14: field 'workloads[0].seq_len': 0 "
                             "outside [1, 10000000]");
    expect_error (spec_with ("tokens: 1T", "budget: 0"), GP_ERANGE,
                  "p.yaml:15:11: field 'constraints.budget': 0 outside "
                  "[$1.00, $10T]");
    expect_error (spec_with ("tokens: 1T", "power: 0W"), GP_ERANGE,
                  "p.yaml:15:10: field 'constraints.power': 0W outside "
                  "[1 W, 10 GW]");
    /* runs_per_month 1e6 took 26 s and 4.2 GB inside the old range */
    char buf[1024];
    snprintf (buf, sizeof buf, "%s", spec_with ("tokens: 1T", "budget: $1M"));
    char *p = strstr (buf, "runs_per_month: 2\n");
    assert_non_null (p);
    char out[1100];
    snprintf (out, sizeof out, "%.*sruns_per_month: 1e6%s", (int)(p - buf),
              buf, p + strlen ("runs_per_month: 2"));
    expect_error (out, GP_ERANGE,
                  "p.yaml:13:21: field 'workloads[1].runs_per_month': "
                  "1000000 outside [0.01, 10000]");
}

static void issue13_duplicate_workload (void **state)
{
    (void)state;
    char buf[1024];
    snprintf (buf, sizeof buf, "%s", spec_with ("tokens: 1T", "budget: $1M"));
    char *p = strstr (buf, "name: ft\n");
    assert_non_null (p);
    char out[1100];
    snprintf (out, sizeof out, "%.*sname: pre%s", (int)(p - buf), buf,
              p + strlen ("name: ft"));
    expect_error (out, GP_EPARSE,
                  "p.yaml:9:11: workloads[1].name: 'pre' is used by "
                  "workloads[0]");
}

/* A custom model with a hidden size below its heads: head_dim 0 reached
 * the GEMM model as a division by zero.
 */
static void issue13_head_dim_zero (void **state)
{
    (void)state;
    struct gp_arch a;
    memset (&a, 0, sizeof a);
    snprintf (a.id, sizeof a.id, "custom");
    a.layers = 2;
    a.hidden = 1;
    a.heads = 16;
    a.kv_heads = 16;
    a.vocab = 32000;
    a.ffn_hidden = 64;
    struct gp_train_model m;
    gp_error_t err = {0};
    assert_int_equal (gp_train_prep (&a, &m, &err), GP_EINVAL);
    assert_non_null (strstr (err.text, "hidden (1) must be a multiple of "
                                       "heads (16)"));
}

/* 1 W was printed as "0 kW"; a budget bound of $1e13 as "$1e+04B". */
static void issue13_formats (void **state)
{
    (void)state;
    char b[32];
    assert_string_equal (gp_format_quantity (1, GP_Q_POWER, 0, b, sizeof b),
                         "1 W");
    assert_string_equal (gp_format_quantity (1e13, GP_Q_MONEY, 0, b,
                                             sizeof b),
                         "$10T");
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (issue13_extremes),
        cmocka_unit_test (issue13_zero_is_not_unset),
        cmocka_unit_test (issue13_duplicate_workload),
        cmocka_unit_test (issue13_head_dim_zero),
        cmocka_unit_test (issue13_formats),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
