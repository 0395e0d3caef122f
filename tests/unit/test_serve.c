/* test_serve.c - the planning assistant's routes and replies without a
 * socket (gp_serve_handle, include/gpuplan/serve.h), and starting and
 * stopping the server itself: a bad host, a port already in use, port 0.
 * Expected statuses and positions are read off the inputs here; the HTTP
 * side runs in tests/serve/api_test.py against the real server.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "gpuplan/serve.h"

static struct gp_catalog *cat;

static int setup (void **state)
{
    (void)state;
    cat = gp_catalog_load (NULL, NULL);
    return cat ? 0 : -1;
}

static int teardown (void **state)
{
    (void)state;
    gp_catalog_destroy (cat);
    return 0;
}

/* Answer 'method' 'path' with 'body'; the reply's JSON error object (or
 * NULL) into '*e'.
 */
static int ask (const char *method, const char *path, const char *body,
                struct gp_serve_reply *r, json_t **e)
{
    gp_serve_handle (cat, method, path, body, body ? strlen (body) : 0, r);
    json_t *root = json_loadb (r->body, r->len, 0, NULL);
    *e = root ? json_incref (json_object_get (root, "error")) : NULL;
    json_decref (root);
    return r->status;
}

static long long ival (json_t *e, const char *k)
{
    return json_integer_value (json_object_get (e, k));
}

static void test_routes (void **state)
{
    (void)state;
    struct gp_serve_reply r;
    json_t *e;
    assert_int_equal (ask ("GET", "/", NULL, &r, &e), 200);
    assert_non_null (strstr (r.content_type, "text/html"));
    assert_non_null (strstr (r.body, "/app.js"));
    gp_serve_reply_clear (&r);
    assert_int_equal (ask ("GET", "/nope", NULL, &r, &e), 404);
    assert_int_equal (ival (e, "status"), 404);
    json_decref (e);
    gp_serve_reply_clear (&r);
    assert_int_equal (ask ("GET", "/api/plan", NULL, &r, &e), 405);
    assert_string_equal (r.allow, "POST");
    json_decref (e);
    gp_serve_reply_clear (&r);
    assert_int_equal (ask ("POST", "/api/catalog", "", &r, &e), 405);
    assert_string_equal (r.allow, "GET");
    json_decref (e);
    gp_serve_reply_clear (&r);
    assert_int_equal (ask ("PUT", "/style.css", "", &r, &e), 405);
    assert_string_equal (r.allow, "GET, HEAD");
    json_decref (e);
    gp_serve_reply_clear (&r);
    assert_int_equal (ask ("GET", "/api/catalog/mig", NULL, &r, &e), 200);
    assert_null (e);
    gp_serve_reply_clear (&r);
    assert_int_equal (ask ("GET", "/api/catalog/gpus", NULL, &r, &e), 404);
    json_decref (e);
    gp_serve_reply_clear (&r);
}

static void test_positions (void **state)
{
    (void)state;
    struct gp_serve_reply r;
    json_t *e;
    /* "horizn" is an unknown key at line 2, column 1 */
    assert_int_equal (ask ("POST", "/api/plan", "name: x\nhorizn: 3y\n", &r,
                           &e), 400);
    assert_int_equal (ival (e, "line"), 2);
    assert_int_equal (ival (e, "col"), 1);
    json_decref (e);
    gp_serve_reply_clear (&r);
    /* a train spec's unknown model: at its value, line 2 column 8 */
    assert_int_equal (ask ("POST", "/api/train",
                           "gpu: H100-SXM\nmodel: no-such-model\n", &r, &e),
                      400);
    assert_int_equal (ival (e, "line"), 2);
    assert_int_equal (ival (e, "col"), 8);
    json_decref (e);
    gp_serve_reply_clear (&r);
    /* a message without a position has no line/col */
    gp_serve_error_reply (501, GP_ENOTSUP, "diff: not yet supported", &r);
    json_t *root = json_loadb (r.body, r.len, 0, NULL);
    e = json_object_get (root, "error");
    assert_null (json_object_get (e, "line"));
    assert_string_equal (json_string_value (json_object_get (e, "code")),
                         "GP_ENOTSUP");
    json_decref (root);
    gp_serve_reply_clear (&r);
}

static void test_diff_bodies (void **state)
{
    (void)state;
    struct gp_serve_reply r;
    json_t *e;
    static const char *const bad[] = {"", "nope", "[]", "{\"a\": {}}",
                                      "{\"a\": 1, \"b\": {}}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal (ask ("POST", "/api/diff", bad[i], &r, &e), 400);
        json_decref (e);
        gp_serve_reply_clear (&r);
    }
}

/* POST /api/plan's query: samples in [1, GP_SERVE_MAX_SAMPLES (200)],
 * seed in [0, 9e15] and only with samples, no other parameter; each bad
 * one is a 400 naming it, before any plan runs (so the empty body is not
 * reached).
 */
static void test_plan_query (void **state)
{
    (void)state;
    static const struct {
        const char *q, *name;
    } bad[] = {
        {"samples=0", "samples"},       {"samples=201", "samples"},
        {"samples=1.5", "samples"},     {"samples=", "samples"},
        {"samples", "samples"},         {"samples=-3", "samples"},
        {"samples=2&seed=x", "seed"},   {"seed=4", "seed"},
        {"samples=2&seeds=4", "seeds"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct gp_serve_reply r;
        gp_serve_handle_query (cat, "POST", "/api/plan", bad[i].q, "", 0,
                               &r);
        assert_int_equal (r.status, 400);
        json_t *root = json_loadb (r.body, r.len, 0, NULL);
        const char *m = json_string_value (json_object_get (
            json_object_get (root, "error"), "message"));
        assert_non_null (m);
        assert_non_null (strstr (m, bad[i].name));
        assert_non_null (strstr (m, "query: "));
        json_decref (root);
        gp_serve_reply_clear (&r);
    }
    /* a good query reaches the plan: the empty spec is the spec's error,
     * not the query's */
    struct gp_serve_reply r;
    gp_serve_handle_query (cat, "POST", "/api/plan", "samples=200&seed=0",
                           "", 0, &r);
    assert_int_equal (r.status, 400);
    assert_null (strstr (r.body, "query: "));
    gp_serve_reply_clear (&r);
}

static void test_start_stop (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_serve_opts o;
    gp_serve_opts_init (&o);
    assert_null (o.host); /* loopback unless told */
    assert_int_equal (o.max_body, 1 << 20);
    o.port = 0;
    struct gp_server *s = gp_serve_start (&o, cat, &err);
    assert_non_null (s);
    assert_true (gp_serve_port (s) > 0);
    o.port = gp_serve_port (s); /* taken: the second start must fail */
    assert_null (gp_serve_start (&o, cat, &err));
    assert_int_equal (err.code, GP_EIO);
    gp_serve_stop (s);
    o.port = 0;
    o.host = "no such host name.invalid";
    assert_null (gp_serve_start (&o, cat, &err));
    assert_int_equal (err.code, GP_EINVAL);
    assert_null (gp_serve_start (&o, NULL, &err));
    gp_serve_stop (NULL);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_routes),
        cmocka_unit_test (test_positions),
        cmocka_unit_test (test_diff_bodies),
        cmocka_unit_test (test_plan_query),
        cmocka_unit_test (test_start_stop),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
