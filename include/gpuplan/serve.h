/* gpuplan/serve.h - the planning assistant: a local HTTP server (GNU
 * libmicrohttpd) with a JSON API that mirrors the CLI and one web page
 * compiled into the library (docs/serve.md).
 *
 * The API answers with exactly the JSON of the matching command:
 *   POST /api/plan     YAML plan spec   -> `gpuplan plan --json`
 *   POST /api/train    YAML train spec  -> `gpuplan train SPEC --json`
 *   POST /api/infer    YAML infer spec  -> `gpuplan infer SPEC --json`
 *   POST /api/diff     {"a": plan, "b": plan} -> gp_plan_diff() as JSON
 *   GET  /api/catalog[/TABLE]           -> `gpuplan catalog list TABLE --json`
 * Errors are JSON objects {"error": {...}} with an HTTP status: 400 bad
 * spec (with its line and col), 404 unknown path, 405 wrong method (with
 * an Allow header), 413 body over the limit, 501 not yet supported, 500
 * internal.  Every number comes from the library call the CLI makes; the
 * server and the page decide nothing.
 *
 * The library never prints: errors come back in 'err'.
 */
#ifndef GPUPLAN_SERVE_H
#define GPUPLAN_SERVE_H

#include <stddef.h>

#include "gpuplan/catalog.h"
#include "gpuplan/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GP_SERVE_MAX_BODY_DEFAULT ((size_t)1 << 20) /* bytes: 1 MiB */
#define GP_SERVE_TIMEOUT_DEFAULT 30                 /* s, idle connection */
#define GP_SERVE_MAX_CONNS_DEFAULT 64               /* open connections */

struct gp_serve_opts {
    const char *host;      /* address to bind; NULL = "127.0.0.1" */
    int port;              /* TCP port, 0 = any free port */
    size_t max_body;       /* bytes; larger request bodies get 413 */
    unsigned timeout_s;    /* idle connection timeout, s (0 = none) */
    unsigned max_conns;    /* connection limit; more are refused */
};

/* Fill 'o' with the defaults above (loopback, port 8080). */
void gp_serve_opts_init (struct gp_serve_opts *o);

/* One answer of the API, from gp_serve_handle(). */
struct gp_serve_reply {
    int status;               /* HTTP status code */
    const char *content_type; /* static string */
    const char *allow;        /* Allow header for 405, else NULL */
    char *body;               /* response body (owned when 'owned') */
    size_t len;               /* bytes of 'body' */
    int owned;                /* 1: free 'body' with gp_serve_reply_clear */
};

/* Answer one request without any socket: 'method' ("GET", "POST", ...),
 * 'path' (the URL path, no query), the request body 'body' of 'len' bytes
 * (may be NULL when 'len' is 0).  'cat' is the loaded catalog (borrowed).
 * Fills 'out' (never fails: errors are replies with an error status and a
 * JSON body); release it with gp_serve_reply_clear().
 */
void gp_serve_handle (const struct gp_catalog *cat,
                      const char *method,
                      const char *path,
                      const char *body,
                      size_t len,
                      struct gp_serve_reply *out);

/* The most samples POST /api/plan?samples=N may ask for: a request is
 * answered while the client waits (docs/serve.md); the CLI allows more.
 */
#define GP_SERVE_MAX_SAMPLES 200

/* gp_serve_handle() with the URL's query string 'query' ("k=v&k=v", values
 * already percent-decoded; NULL or "" = none).  POST /api/plan reads
 * samples=N (a whole number in [1, GP_SERVE_MAX_SAMPLES]) and seed=S (a
 * whole number in [0, 9e15], default 1; only with samples) and answers the
 * JSON of 'gpuplan plan --samples N --seed S --json' (one call of
 * gp_plan_run_sampled); a bad value or an unknown parameter is a 400 JSON
 * error naming the parameter.  Other routes ignore the query.  Fills 'out'
 * as gp_serve_handle() does.
 */
void gp_serve_handle_query (const struct gp_catalog *cat,
                            const char *method,
                            const char *path,
                            const char *query,
                            const char *body,
                            size_t len,
                            struct gp_serve_reply *out);

/* Free the body of 'r' when owned and zero 'r'; NULL is a no-op. */
void gp_serve_reply_clear (struct gp_serve_reply *r);

/* The error reply of 'status' with message 'msg' (a JSON body
 * {"error": {"status", "code", "message", "line", "col"}}, line/col parsed
 * from a "name:LINE:COL:" prefix of 'msg' when present).  'code' is the
 * gp_err of the failure, or 0.
 */
void gp_serve_error_reply (int status, int code, const char *msg,
                           struct gp_serve_reply *out);

struct gp_server;

/* Start serving on 'o' (NULL = defaults) with catalog 'cat' (borrowed; it
 * must outlive the server).  Each connection runs on a thread of its own
 * (at most 'max_conns' at once); the call returns at once.  Returns the server, or NULL with 'err' set
 * (GP_EINVAL bad host or options, GP_EIO cannot bind or start).
 */
struct gp_server *gp_serve_start (const struct gp_serve_opts *o,
                                  const struct gp_catalog *cat,
                                  gp_error_t *err);

/* The TCP port 's' listens on (the chosen one when started with port 0). */
int gp_serve_port (const struct gp_server *s);

/* Stop 's': close the listening socket and every connection, join its
 * threads and free it.  NULL is a no-op.
 */
void gp_serve_stop (struct gp_server *s);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_SERVE_H */
