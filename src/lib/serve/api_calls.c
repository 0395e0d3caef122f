/* api_calls.c - the API's calls: each is the one library call of the
 * matching command (plan, infer, train, catalog list, diff) on a request
 * body, answered with the JSON that command prints with --json.  The
 * server adds no number and takes no decision of its own.
 *
 * A request body names no file: specs that point at files on the server
 * (workloads[].trace, existing.cluster, existing.usage) are refused, so
 * that a page (or anyone reaching the port) cannot make the server read
 * its disk.  The CLI reads those files.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/defaults.h"
#include "gpuplan/infer.h"
#include "gpuplan/plan.h"
#include "gpuplan/report.h"
#include "gpuplan/spec.h"
#include "gpuplan/train_spec.h"
#include "serve_private.h"

/* The name request bodies carry in messages ("spec:LINE:COL: ..."). */
static const char spec_name[] = "spec";

static void fail (const gp_error_t *err, struct gp_serve_reply *out)
{
    int code = err->code ? err->code : GP_EINTERNAL;
    gp_serve_error_reply (gp__serve_status_of (code), code,
                          err->text[0] ? err->text : gp_strerror (code), out);
}

/* GP_EINVAL at 'key' of 'node' when it is there: a key naming a file. */
static int no_file_key (const struct gp_doc *doc, const json_t *node,
                        const char *where, const char *key, gp_error_t *err)
{
    const json_t *v = json_is_object (node) ? json_object_get (node, key)
                                            : NULL;
    if (!v)
        return 0;
    return gp_doc_errorf (doc, v, err, GP_EINVAL,
                          "%s%s: the server reads no file named by a "
                          "request; use 'gpuplan plan' for specs with files",
                          where, key);
}

/* Refuse the plan spec keys that name files on the server. */
static int check_no_files (const struct gp_doc *doc, gp_error_t *err)
{
    const json_t *root = gp_doc_root (doc);
    if (!json_is_object (root))
        return 0; /* the spec loader names the error */
    const json_t *ex = json_object_get (root, "existing");
    int rc = no_file_key (doc, ex, "existing.", "cluster", err);
    if (!rc)
        rc = no_file_key (doc, ex, "existing.", "usage", err);
    const json_t *w = json_object_get (root, "workloads");
    size_t i;
    const json_t *it;
    if (json_is_array (w))
        json_array_foreach (w, i, it) {
            if (rc)
                break;
            rc = no_file_key (doc, it, "workloads[].", "trace", err);
        }
    return rc;
}

void gp__serve_plan_sampled (const struct gp_catalog *cat, const char *body,
                             size_t len, size_t samples,
                             unsigned long long seed,
                             struct gp_serve_reply *out)
{
    gp_error_t err = {0};
    struct gp_plan_spec *spec = NULL;
    struct gp_plan_result *res = NULL;
    char *text = NULL;
    struct gp_doc *doc = gp_doc_parse (body, len, spec_name, &err);
    if (doc && check_no_files (doc, &err) == 0)
        spec = gp_plan_spec_from_doc (doc, cat, &err);
    if (spec)
        res = gp_plan_run_sampled (spec, cat, samples, seed, &err);
    if (res)
        text = gp_report_render (res, GP_REPORT_JSON, &err);
    if (text)
        gp__serve_text_reply (text, out);
    else
        fail (&err, out);
    gp_plan_result_destroy (res);
    gp_plan_spec_destroy (spec);
    gp_doc_destroy (doc);
}

void gp__serve_infer (const struct gp_catalog *cat, const char *body,
                      size_t len, struct gp_serve_reply *out)
{
    gp_error_t err = {0};
    struct gp_infer_request q;
    struct gp_defaults d;
    gp_infer_request_defaults (&q);
    gp_defaults_init (&d);
    struct gp_infer_plan_result *r = NULL;
    if (gp_infer_spec_parse (body, len, spec_name, &q, &err)) {
        fail (&err, out);
        return;
    }
    q.defaults = &d;
    if (gp_infer_plan (cat, &q, &r, &err)) {
        fail (&err, out);
        return;
    }
    gp__serve_json_reply (gp_report_infer_json (r), out);
    gp_infer_plan_destroy (r);
}

void gp__serve_train (const struct gp_catalog *cat, const char *body,
                      size_t len, struct gp_serve_reply *out)
{
    gp_error_t err = {0};
    struct gp_defaults d;
    struct gp_train_plan_result *r = NULL;
    gp_defaults_init (&d);
    if (gp_train_spec_plan (cat, body, len, spec_name, &d, &r, &err)) {
        fail (&err, out);
        return;
    }
    gp__serve_json_reply (gp_report_train_json (r), out);
    gp_train_plan_result_destroy (r);
}

void gp__serve_catalog (const struct gp_catalog *cat, const char *table,
                        struct gp_serve_reply *out)
{
    gp_error_t err = {0};
    enum gp_catalog_table t;
    if (gp_catalog_table_parse (table, &t, &err)) {
        gp_serve_error_reply (404, err.code, err.text, out);
        return;
    }
    gp__serve_json_reply (gp_catalog_list_json (cat, t), out);
}

/* Member 'key' of the request object 'root', a JSON object, or NULL with
 * 'err' set.
 */
static json_t *plan_member (json_t *root, const char *key, gp_error_t *err)
{
    json_t *v = json_object_get (root, key);
    if (!json_is_object (v))
        gp_errprintf (err, GP_EINVAL,
                      "diff: '%s' must be a plan result (the JSON of "
                      "'gpuplan plan --json')", key);
    return json_is_object (v) ? v : NULL;
}

void gp__serve_diff (const char *body, size_t len,
                     struct gp_serve_reply *out)
{
    gp_error_t err = {0};
    json_error_t je;
    json_t *root = json_loadb (body, len, JSON_REJECT_DUPLICATES, &je);
    json_t *a = NULL, *b = NULL, *diff = NULL;
    char *text = NULL;
    if (!root)
        gp_errprintf (&err, GP_EPARSE, "request:%d:%d: %s", je.line,
                      je.column, je.text);
    else if (!json_is_object (root))
        gp_errprintf (&err, GP_EINVAL, "diff: expected {\"a\": plan, \"b\": "
                                       "plan}");
    else if ((a = plan_member (root, "a", &err))
             && (b = plan_member (root, "b", &err)))
        diff = gp_plan_diff (a, b, &err);
    if (diff)
        text = gp_plan_diff_render (diff, GP_REPORT_JSON, &err);
    if (text)
        gp__serve_text_reply (text, out);
    else
        fail (&err, out);
    json_decref (diff);
    json_decref (root);
}
