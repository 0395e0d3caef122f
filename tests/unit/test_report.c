/* test_report.c - the plan renderers: the JSON schema of
 * docs/formats/plan.md, Markdown and text sections, and an HTML page that
 * is self-contained and carries its four charts.
 */
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/plan.h"
#include "gpuplan/report.h"

static const char spec_text[] =
    "name: r<&>\n"
    "horizon: 2y\n"
    "teams: [{name: a}]\n"
    "workloads:\n"
    "  - {name: ft, kind: recurring, team: a, model: llama3-8b,\n"
    "     tokens: 1B, runs_per_month: 1}\n"
    "options:\n"
    "  - {name: h100, kind: onprem, accelerator: H100-SXM, gpus: 256}\n"
    "  - {name: p5, kind: cloud, instance: p5.48xlarge, gpus: 256,\n"
    "     pricing: [on_demand, mix]}\n";

static struct gp_catalog *cat;
static struct gp_doc *doc;
static struct gp_plan_spec *spec;
static struct gp_plan_result *res;

static int setup (void **state)
{
    (void)state;
    gp_error_t err = {0};
    cat = gp_catalog_load (NULL, &err);
    doc = gp_doc_parse (spec_text, strlen (spec_text), "r.yaml", &err);
    spec = doc ? gp_plan_spec_from_doc (doc, cat, &err) : NULL;
    res = spec ? gp_plan_run (spec, cat, &err) : NULL;
    if (!res)
        fprintf (stderr, "setup: %s\n", err.text);
    return res ? 0 : -1;
}

static int teardown (void **state)
{
    (void)state;
    gp_plan_result_destroy (res);
    gp_plan_spec_destroy (spec);
    gp_doc_destroy (doc);
    gp_catalog_destroy (cat);
    return 0;
}

static void test_json_schema (void **state)
{
    (void)state;
    json_t *j = gp_report_json (res);
    assert_non_null (j);
    json_t *opts = json_object_get (j, "options");
    assert_true (json_is_array (opts));
    assert_int_equal (json_array_size (opts), 3);
    json_t *o = json_array_get (opts, 0);
    static const char *const keys[] = {
        "name", "kind", "gpus", "nodes", "tco_usd", "cost_per_gpu_hour_usd",
        "power_kw", "network", "storage", "power", "cost", "tenancy",
        "infrastructure", "compute", "unit_costs", NULL,
    };
    for (size_t i = 0; keys[i]; i++)
        if (!json_object_get (o, keys[i]))
            fail_msg ("options[0] lacks '%s'", keys[i]);
    assert_string_equal (json_string_value (json_object_get (o, "kind")),
                         "on-prem");
    assert_int_equal (json_integer_value (json_object_get (o, "gpus")), 256);
    /* 32 nodes x 8 rails = 256 NICs > 64: two tiers, 8 leaves, 32
     * downlinks used of 32 -> 32 uplinks each, 256 / 64 = 4 spines.
     */
    json_t *n = json_object_get (o, "network");
    assert_int_equal (json_integer_value (json_object_get (n, "tiers")), 2);
    assert_int_equal (
        json_integer_value (json_object_get (n, "leaf_switches")), 8);
    assert_int_equal (
        json_integer_value (json_object_get (n, "spine_switches")), 4);
    json_t *c = json_array_get (opts, 1);
    assert_string_equal (json_string_value (json_object_get (c, "kind")),
                         "cloud");
    assert_true (json_is_null (json_object_get (c, "power_kw")));
    json_t *rec = json_object_get (j, "recommendation");
    assert_true (json_is_string (json_object_get (rec, "name")));
    assert_true (json_is_array (json_object_get (rec, "reasons")));
    assert_true (json_array_size (json_object_get (j, "assumptions")) > 5);
    assert_true (json_array_size (json_object_get (j, "sources")) > 5);
    assert_true (json_array_size (json_object_get (j, "sensitivity")) >= 4);
    json_decref (j);
}

static void test_formats (void **state)
{
    (void)state;
    gp_error_t err = {0};
    char *md = gp_report_render (res, GP_REPORT_MD, &err);
    assert_non_null (md);
    assert_non_null (strstr (md, "# Capacity plan: r&lt;&amp;&gt;"));
    assert_non_null (strstr (md, "## Decision log"));
    assert_non_null (strstr (md, "| OPTION "));
    free (md);
    char *txt = gp_report_render (res, GP_REPORT_TEXT, &err);
    assert_non_null (txt);
    assert_non_null (strstr (txt, "Recommendation"));
    assert_non_null (strstr (txt, "Catalog values used"));
    free (txt);
    char *js = gp_report_render (res, GP_REPORT_JSON, &err);
    json_error_t je;
    json_t *j = json_loads (js, 0, &je);
    assert_non_null (j);
    json_decref (j);
    free (js);
    char *sum = gp_report_summary (res, &err);
    assert_non_null (strstr (sum, "recommended"));
    free (sum);
    enum gp_report_format f;
    assert_int_equal (gp_report_format_parse ("html", &f, NULL), 0);
    assert_int_equal (f, GP_REPORT_HTML);
    assert_int_equal (gp_report_format_parse ("pdf", &f, &err), GP_EINVAL);
    assert_null (gp_report_render (NULL, GP_REPORT_TEXT, &err));
}

static size_t count (const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr (p, what)); p += strlen (what))
        n++;
    return n;
}

static void test_html (void **state)
{
    (void)state;
    gp_error_t err = {0};
    char *h = gp_report_render (res, GP_REPORT_HTML, &err);
    assert_non_null (h);
    assert_int_equal (strncmp (h, "<!DOCTYPE html>", 15), 0);
    assert_int_equal (count (h, "<svg data-chart="), 4);
    assert_non_null (strstr (h, "data-chart=\"cost-over-time\""));
    assert_non_null (strstr (h, "data-chart=\"cost-breakdown\""));
    assert_non_null (strstr (h, "data-chart=\"utilization\""));
    assert_non_null (strstr (h, "data-chart=\"sensitivity\""));
    assert_true (count (h, "class=\"mark\"") > 10);
    assert_int_equal (count (h, "<figcaption>"), 4);
    /* self-contained: no external resources */
    assert_null (strstr (h, "src=\"http"));
    assert_null (strstr (h, "href=\"http"));
    assert_null (strstr (h, "<link"));
    assert_null (strstr (h, "@import"));
    /* names are escaped */
    assert_non_null (strstr (h, "r&lt;&amp;&gt;"));
    assert_null (strstr (h, "r<&>"));
    assert_non_null (strstr (h, "</html>"));
    free (h);
}

/* The HTML page's Details are the report's sections as HTML: the same
 * headings in the same order as the text report, tables with one row
 * per option that has the figures (all three here: 256 GPUs given, so
 * every option is sized), the decision log line for line, and no text
 * report pasted in a <pre> block.
 */
static void test_html_sections (void **state)
{
    (void)state;
    static const char *const heads[] = {
        "Compute and stack", "Network",
        "Fabric choice: in-network reduction (IB SHARP)", "Storage",
        "Power and cooling (on-prem)", "Cost", "Multi-tenancy",
        "Sensitivity (TCO of the recommended option)", "Decision log",
        "Not yet supported", NULL,
    };
    gp_error_t err = {0};
    char *h = gp_report_render (res, GP_REPORT_HTML, &err);
    char *txt = gp_report_render (res, GP_REPORT_TEXT, &err);
    assert_non_null (h);
    assert_non_null (txt);
    assert_null (strstr (h, "<pre>"));
    const char *d = strstr (h, "<h2>Details</h2>");
    const char *end = strstr (h, "<h2>Assumptions (not in the catalog)</h2>");
    assert_non_null (d);
    assert_true (end > d);
    const char *p = d, *tp = txt;
    char want[128];
    for (size_t i = 0; heads[i]; i++) {
        snprintf (want, sizeof want, "<h3>%s</h3>", heads[i]);
        const char *q = strstr (p, want);
        if (!q || q > end)
            fail_msg ("Details lack '%s' after the one before", heads[i]);
        p = q;
        snprintf (want, sizeof want, "\n%s\n", heads[i]);
        tp = strstr (tp, want);
        if (!tp)
            fail_msg ("the text report lacks '%s' in order", heads[i]);
    }
    assert_int_equal (count (d, "<h3>"), 10);
    /* Network: a header and one row per option (h100, p5 x 2). */
    const char *net = strstr (d, "<h3>Network</h3>");
    const char *next = strstr (net + 4, "<h3>");
    size_t rows = 0;
    for (const char *r = net; (r = strstr (r, "<tr>")) && r < next; r++)
        rows++;
    assert_int_equal (rows, 1 + res->n_options);
    assert_int_equal (res->n_options, 3);
    /* the decision log, one item per line */
    const char *log = strstr (d, "<h3>Decision log</h3>");
    for (size_t i = 0; i < res->n_log; i++) {
        snprintf (want, sizeof want, "<li>%.40s", res->log[i]);
        assert_non_null (strstr (log, want));
    }
    assert_non_null (strstr (d, "<p class=\"note\">Note: head, management"));
    free (txt);
    free (h);
}

/* User strings in Markdown: no raw HTML anywhere, no '|' that splits a
 * table cell, no link or code span (CommonMark: a backslash makes an
 * ASCII punctuation character literal; entities render as the character).
 */
static void test_md_escapes_user_strings (void **state)
{
    (void)state;
    static const char hostile[] =
        "name: \"<script>alert(1)</script>|x\"\n"
        "horizon: 1y\n"
        "teams: [{name: a}]\n"
        "workloads:\n"
        "  - {name: ft, kind: recurring, team: a, model: llama3-8b,\n"
        "     tokens: 1B, runs_per_month: 1}\n"
        "options:\n"
        "  - {name: \"<img src=x>|[l](javascript:x)*b*\", kind: onprem,\n"
        "     accelerator: H100-SXM, gpus: 64}\n";
    gp_error_t err = {0};
    struct gp_doc *d = gp_doc_parse (hostile, strlen (hostile), "h.yaml",
                                     &err);
    struct gp_plan_spec *sp = d ? gp_plan_spec_from_doc (d, cat, &err) : NULL;
    struct gp_plan_result *r = sp ? gp_plan_run (sp, cat, &err) : NULL;
    assert_non_null (r);
    char *md = gp_report_render (r, GP_REPORT_MD, &err);
    assert_non_null (md);
    assert_null (strchr (md, '<'));
    assert_non_null (strstr (md, "# Capacity plan: &lt;script&gt;alert(1)"
                                 "&lt;/script&gt;|x\n"));
    /* in a table cell and in bold: '|', '[', ']', '*' escaped */
    const char *cell = "| &lt;img src=x&gt;\\|\\[l\\](javascript:x)\\*b\\* |";
    assert_non_null (strstr (md, cell));
    /* in the executive summary's list item: no raw HTML, no link */
    assert_non_null (strstr (md, "- Recommendation: &lt;img src=x&gt;|"
                                 "\\[l\\](javascript:x)"));
    /* in a list item: no link */
    assert_null (strstr (md, "[l]("));
    free (md);
    gp_plan_result_destroy (r);
    gp_plan_spec_destroy (sp);
    gp_doc_destroy (d);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_json_schema),
        cmocka_unit_test (test_formats),
        cmocka_unit_test (test_html),
        cmocka_unit_test (test_html_sections),
        cmocka_unit_test (test_md_escapes_user_strings),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
