/* api.c - the planning assistant's routes: which handler answers a method
 * and path, the embedded page and its assets, and the JSON error replies
 * (docs/serve.md).  No sockets here: gp_serve_handle() is what the HTTP
 * server (server.c) and the unit tests call.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embed.h"
#include "serve_private.h"

/* The page and its assets, generated from web/ (cmake/embed_web.cmake). */
extern const struct gp__embedded_file gp__web_files[];

static const char json_ctype[] = "application/json";

/* ============================== replies ================================= */

void gp_serve_reply_clear (struct gp_serve_reply *r)
{
    if (!r)
        return;
    if (r->owned)
        free (r->body);
    memset (r, 0, sizeof *r);
}

/* A reply whose body is the static 'text'. */
static void static_reply (int status, const char *type, const char *text,
                          size_t len, struct gp_serve_reply *out)
{
    memset (out, 0, sizeof *out);
    out->status = status;
    out->content_type = type;
    out->body = (char *)text;
    out->len = len;
}

/* Kept when even the error object cannot be built (out of memory). */
static const char oom_body[] =
    "{\"error\": {\"status\": 500, \"code\": \"ENOMEM\", \"message\": "
    "\"out of memory\"}}\n";

/* The first ":LINE:COL:" in 'msg' (a "name:LINE:COL: ..." message). */
static int find_pos (const char *msg, int *line, int *col)
{
    for (const char *p = strchr (msg, ':'); p; p = strchr (p + 1, ':')) {
        int l = 0, c = 0, n = 0;
        if (sscanf (p, ":%d:%d:%n", &l, &c, &n) == 2 && n > 0 && l > 0
            && c > 0) {
            *line = l;
            *col = c;
            return 1;
        }
    }
    return 0;
}

void gp_serve_error_reply (int status, int code, const char *msg,
                           struct gp_serve_reply *out)
{
    int line = 0, col = 0;
    json_t *e = json_object ();
    json_object_set_new (e, "status", json_integer (status));
    json_object_set_new (e, "code",
                         json_string (code ? gp_err_name (code) : "HTTP"));
    json_t *m = json_string (msg ? msg : "");
    json_object_set_new (e, "message",
                         m ? m : json_string ("(message not UTF-8)"));
    if (msg && find_pos (msg, &line, &col)) {
        json_object_set_new (e, "line", json_integer (line));
        json_object_set_new (e, "col", json_integer (col));
    }
    json_t *root = json_pack ("{s:o}", "error", e);
    char *text = root ? json_dumps (root, JSON_INDENT (2)) : NULL;
    json_decref (root);
    size_t n = text ? strlen (text) : 0;
    char *body = text ? realloc (text, n + 2) : NULL;
    if (!body) {
        free (text);
        static_reply (500, json_ctype, oom_body, sizeof oom_body - 1, out);
        return;
    }
    memcpy (body + n, "\n", 2);
    memset (out, 0, sizeof *out);
    out->status = status;
    out->content_type = json_ctype;
    out->body = body;
    out->len = n + 1;
    out->owned = 1;
}

int gp__serve_status_of (int code)
{
    switch (code) {
    case GP_EINVAL:
    case GP_EPARSE:
    case GP_ENOTFOUND:
    case GP_ERANGE:
    case GP_EIO:
        return 400;
    case GP_EINFEASIBLE:
        return 422;
    case GP_ENOTSUP:
        return 501;
    default:
        return 500;
    }
}

void gp__serve_text_reply (char *text, struct gp_serve_reply *out)
{
    memset (out, 0, sizeof *out);
    out->status = 200;
    out->content_type = json_ctype;
    out->body = text;
    out->len = strlen (text);
    out->owned = 1;
}

void gp__serve_json_reply (json_t *root, struct gp_serve_reply *out)
{
    char *text = root ? json_dumps (root, JSON_INDENT (2)
                                              | JSON_REAL_PRECISION (12))
                      : NULL;
    json_decref (root);
    size_t n = text ? strlen (text) : 0;
    char *body = text ? realloc (text, n + 2) : NULL;
    if (!body) {
        free (text);
        gp_serve_error_reply (500, GP_ENOMEM, "out of memory building JSON",
                              out);
        return;
    }
    memcpy (body + n, "\n", 2);
    gp__serve_text_reply (body, out);
}

/* ============================== assets ================================== */

static const char *content_type (const char *name)
{
    static const struct {
        const char *ext, *type;
    } types[] = {
        {".html", "text/html; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".yaml", "application/yaml; charset=utf-8"},
    };
    const char *dot = strrchr (name, '.');
    for (size_t i = 0; dot && i < sizeof types / sizeof types[0]; i++)
        if (strcmp (dot, types[i].ext) == 0)
            return types[i].type;
    return "application/octet-stream";
}

/* The embedded asset at URL 'path', or NULL. */
static const struct gp__embedded_file *asset (const char *path)
{
    const char *name = strcmp (path, "/") == 0 ? "index.html" : path + 1;
    if (path[0] != '/')
        return NULL;
    for (const struct gp__embedded_file *f = gp__web_files; f->name; f++)
        if (strcmp (f->name, name) == 0)
            return f;
    return NULL;
}

/* ============================== routing ================================= */

enum route {
    R_PLAN,
    R_TRAIN,
    R_INFER,
    R_DIFF,
    R_CATALOG,
};

static const struct {
    const char *path;
    const char *method;
    enum route r;
} routes[] = {
    {"/api/plan", "POST", R_PLAN},   {"/api/train", "POST", R_TRAIN},
    {"/api/infer", "POST", R_INFER}, {"/api/diff", "POST", R_DIFF},
    {"/api/catalog", "GET", R_CATALOG},
};

/* The route of 'path' (exact, or "/api/catalog/TABLE"), or -1; the
 * catalog table goes to '*table'.
 */
static int find_route (const char *path, const char **table)
{
    *table = NULL;
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
        if (strcmp (path, routes[i].path) == 0)
            return (int)i;
    if (strncmp (path, "/api/catalog/", 13) == 0 && path[13]) {
        *table = path + 13;
        return (int)R_CATALOG;
    }
    return -1;
}

static void method_not_allowed (const char *method, const char *allow,
                                struct gp_serve_reply *out)
{
    char msg[160];
    snprintf (msg, sizeof msg, "method %.20s not allowed here; allowed: %s",
              method, allow);
    gp_serve_error_reply (405, 0, msg, out);
    out->allow = allow;
}

/* A whole number in [lo, hi] from the text 'v', into '*x'; 0, or -1. */
static int whole (const char *v, double lo, double hi, double *x)
{
    char *end = NULL;
    if (!v || !*v || *v == '-' || *v == '+' || *v == ' ')
        return -1;
    for (const char *p = v; *p; p++)
        if (*p < '0' || *p > '9')
            return -1;
    *x = strtod (v, &end);
    return *end || *x < lo || *x > hi ? -1 : 0;
}

/* samples and seed of POST /api/plan from 'query' ("k=v&k=v"); 0, or -1
 * with a 400 reply in 'out' naming the parameter.
 */
static int plan_query (const char *query, size_t *samples,
                       unsigned long long *seed, struct gp_serve_reply *out)
{
    char buf[256], msg[400];
    double n = 0, sd = 1;
    int seed_given = 0;
    *samples = 0;
    *seed = 1;
    if (!query || !*query)
        return 0;
    if (strlen (query) >= sizeof buf) {
        gp_serve_error_reply (400, GP_EINVAL, "query: longer than 255 "
                                              "bytes (parameters: samples, "
                                              "seed)", out);
        return -1;
    }
    snprintf (buf, sizeof buf, "%s", query);
    for (char *save = NULL, *kv = strtok_r (buf, "&", &save); kv;
         kv = strtok_r (NULL, "&", &save)) {
        char *v = strchr (kv, '=');
        if (v)
            *v++ = 0;
        if (strcmp (kv, "samples") == 0) {
            if (whole (v, 1, GP_SERVE_MAX_SAMPLES, &n) == 0)
                continue;
            snprintf (msg, sizeof msg, "query: samples: '%.40s' is not a "
                      "whole number in [1, %d] (the server's limit; the CLI "
                      "allows more)", v ? v : "", GP_SERVE_MAX_SAMPLES);
        } else if (strcmp (kv, "seed") == 0) {
            seed_given = 1;
            if (whole (v, 0, 9e15, &sd) == 0)
                continue;
            snprintf (msg, sizeof msg, "query: seed: '%.40s' is not a whole "
                      "number in [0, 9e15]", v ? v : "");
        } else {
            snprintf (msg, sizeof msg, "query: unknown parameter '%.40s' "
                      "(parameters: samples, seed)", kv);
        }
        gp_serve_error_reply (400, GP_EINVAL, msg, out);
        return -1;
    }
    if (seed_given && n == 0) {
        gp_serve_error_reply (400, GP_EINVAL, "query: seed: needs samples=N",
                              out);
        return -1;
    }
    *samples = (size_t)n;
    *seed = (unsigned long long)sd;
    return 0;
}

static void call (const struct gp_catalog *cat, int i, const char *table,
                  const char *query, const char *body, size_t len,
                  struct gp_serve_reply *out)
{
    size_t samples;
    unsigned long long seed;
    switch (routes[i].r) {
    case R_PLAN:
        if (plan_query (query, &samples, &seed, out) == 0)
            gp__serve_plan_sampled (cat, body, len, samples, seed, out);
        return;
    case R_TRAIN:
        gp__serve_train (cat, body, len, out);
        return;
    case R_INFER:
        gp__serve_infer (cat, body, len, out);
        return;
    case R_DIFF:
        gp__serve_diff (body, len, out);
        return;
    case R_CATALOG:
        gp__serve_catalog (cat, table ? table : "accelerators", out);
        return;
    }
}

void gp_serve_handle (const struct gp_catalog *cat, const char *method,
                      const char *path, const char *body, size_t len,
                      struct gp_serve_reply *out)
{
    gp_serve_handle_query (cat, method, path, NULL, body, len, out);
}

void gp_serve_handle_query (const struct gp_catalog *cat, const char *method,
                            const char *path, const char *query,
                            const char *body, size_t len,
                            struct gp_serve_reply *out)
{
    const char *table = NULL;
    if (!out)
        return;
    if (!method || !path) {
        gp_serve_error_reply (400, GP_EINVAL, "no method or path", out);
        return;
    }
    if (!body)
        len = 0;
    int i = find_route (path, &table);
    if (i >= 0) {
        if (strcmp (method, routes[i].method) == 0)
            call (cat, i, table, query, body ? body : "", len, out);
        else if (strcmp (routes[i].method, "GET") == 0)
            method_not_allowed (method, "GET", out);
        else
            method_not_allowed (method, "POST", out);
        return;
    }
    const struct gp__embedded_file *f = asset (path);
    if (f && (strcmp (method, "GET") == 0 || strcmp (method, "HEAD") == 0))
        static_reply (200, content_type (f->name), f->data, f->len, out);
    else if (f)
        method_not_allowed (method, "GET, HEAD", out);
    else {
        char msg[GP_ERROR_TEXT_MAX];
        snprintf (msg, sizeof msg, "no such path '%.200s' (the API is under "
                                   "/api/: plan, train, infer, diff, "
                                   "catalog)", path);
        gp_serve_error_reply (404, 0, msg, out);
    }
}
