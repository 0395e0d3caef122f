/* server.c - the HTTP side of the planning assistant, on GNU
 * libmicrohttpd: bind (loopback unless told otherwise), collect each
 * request body up to the limit, hand it to gp_serve_handle() and send its
 * reply.  MHD runs one thread per connection, so plans run side by side;
 * its options bound idle connections (timeout) and open connections
 * (limit, counted over the whole server).
 */
#include <errno.h>
#include <stdio.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <microhttpd.h>

#include "serve_private.h"

struct gp_server {
    struct MHD_Daemon *d;
    const struct gp_catalog *cat;
    size_t max_body;
    int port;
};

/* The body of one request, collected across MHD's calls. */
struct body {
    char *buf;
    size_t len, cap;
    int too_big; /* over the limit: the rest is discarded, 413 */
};

void gp_serve_opts_init (struct gp_serve_opts *o)
{
    memset (o, 0, sizeof *o);
    o->host = NULL;
    o->port = 8080;
    o->max_body = GP_SERVE_MAX_BODY_DEFAULT;
    o->timeout_s = GP_SERVE_TIMEOUT_DEFAULT;
    o->max_conns = GP_SERVE_MAX_CONNS_DEFAULT;
}

/* Append 'n' bytes at 'data' to 'b', keeping it under 'max' bytes. */
static void body_add (struct body *b, const char *data, size_t n, size_t max)
{
    if (b->too_big)
        return;
    if (n > max - b->len) {
        b->too_big = 1;
        free (b->buf);
        b->buf = NULL;
        b->len = b->cap = 0;
        return;
    }
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc (b->buf, cap);
        if (!p) {
            b->too_big = 1; /* answered 413: nothing more can be held */
            return;
        }
        b->buf = p;
        b->cap = cap;
    }
    memcpy (b->buf + b->len, data, n);
    b->len += n;
    b->buf[b->len] = '\0';
}

static enum MHD_Result send_reply (struct MHD_Connection *c,
                                   struct gp_serve_reply *r)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer (
        r->len, r->body,
        r->owned ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!resp) {
        gp_serve_reply_clear (r);
        return MHD_NO;
    }
    r->owned = 0; /* MHD frees it now */
    MHD_add_response_header (resp, MHD_HTTP_HEADER_CONTENT_TYPE,
                             r->content_type);
    MHD_add_response_header (resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    MHD_add_response_header (resp, "X-Content-Type-Options", "nosniff");
    if (r->allow)
        MHD_add_response_header (resp, MHD_HTTP_HEADER_ALLOW, r->allow);
    enum MHD_Result ok = MHD_queue_response (c, (unsigned)r->status, resp);
    MHD_destroy_response (resp);
    return ok;
}

static void too_large (size_t max, struct gp_serve_reply *r)
{
    char msg[160];
    snprintf (msg, sizeof msg, "request body over the limit of %zu bytes "
                               "(gpuplan serve --max-body)", max);
    gp_serve_error_reply (413, GP_ERANGE, msg, r);
}

/* The URL's query arguments (decoded by MHD) joined again as "k=v&k=v". */
struct query {
    char s[300];
    size_t n;
};

static enum MHD_Result query_arg (void *cls, enum MHD_ValueKind kind,
                                  const char *key, const char *value)
{
    struct query *q = cls;
    (void)kind;
    int m = snprintf (q->s + q->n, sizeof q->s - q->n, "%s%s%s%s",
                      q->n ? "&" : "", key ? key : "", value ? "=" : "",
                      value ? value : "");
    if (m < 0 || (size_t)m >= sizeof q->s - q->n) {
        q->n = sizeof q->s - 1; /* over the parser's limit: refused there */
        return MHD_NO;
    }
    q->n += (size_t)m;
    return MHD_YES;
}

static enum MHD_Result on_request (void *cls, struct MHD_Connection *c,
                                   const char *url, const char *method,
                                   const char *version,
                                   const char *upload_data,
                                   size_t *upload_data_size, void **state)
{
    struct gp_server *s = cls;
    struct body *b = *state;
    struct gp_serve_reply r = {0};
    (void)version;
    if (!b) { /* headers are in: refuse a declared oversize body at once */
        if (!(b = calloc (1, sizeof *b)))
            return MHD_NO;
        *state = b;
        const char *cl = MHD_lookup_connection_value (
            c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        char *end = NULL;
        errno = 0;
        unsigned long long n = cl ? strtoull (cl, &end, 10) : 0;
        if (cl && (errno || n > s->max_body)) {
            b->too_big = 1;
            too_large (s->max_body, &r);
            return send_reply (c, &r);
        }
        return MHD_YES;
    }
    if (*upload_data_size) {
        body_add (b, upload_data, *upload_data_size, s->max_body);
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (b->too_big)
        too_large (s->max_body, &r);
    else {
        struct query q = {{0}, 0};
        MHD_get_connection_values (c, MHD_GET_ARGUMENT_KIND, query_arg, &q);
        gp_serve_handle_query (s->cat, method, url, q.s, b->buf, b->len,
                               &r);
    }
    return send_reply (c, &r);
}

static void on_completed (void *cls, struct MHD_Connection *c, void **state,
                          enum MHD_RequestTerminationCode why)
{
    struct body *b = *state;
    (void)cls, (void)c, (void)why;
    if (b) {
        free (b->buf);
        free (b);
        *state = NULL;
    }
}

/* Resolve 'host' (numeric or a name such as localhost) and 'port' into
 * 'ss'; '*v6' says whether it is IPv6.
 */
static int resolve (const char *host, int port, struct sockaddr_storage *ss,
                    socklen_t *sl, int *v6, gp_error_t *err)
{
    struct addrinfo hints, *ai = NULL;
    memset (&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    char sport[16];
    snprintf (sport, sizeof sport, "%d", port);
    int rc = getaddrinfo (host, sport, &hints, &ai);
    if (rc != 0 || !ai)
        return gp_errprintf (err, GP_EINVAL, "serve: host '%s': %s", host,
                             gai_strerror (rc));
    memcpy (ss, ai->ai_addr, ai->ai_addrlen);
    *sl = ai->ai_addrlen;
    *v6 = ai->ai_family == AF_INET6;
    freeaddrinfo (ai);
    return 0;
}

struct gp_server *gp_serve_start (const struct gp_serve_opts *o,
                                  const struct gp_catalog *cat,
                                  gp_error_t *err)
{
    struct gp_serve_opts def;
    if (!o) {
        gp_serve_opts_init (&def);
        o = &def;
    }
    if (!cat || o->port < 0 || o->port > 65535 || o->max_body == 0) {
        gp_errprintf (err, GP_EINVAL, "serve: missing catalog, port outside "
                                      "0-65535 or a zero body limit");
        return NULL;
    }
    struct sockaddr_storage ss;
    socklen_t sl = 0;
    int v6 = 0;
    if (resolve (o->host ? o->host : "127.0.0.1", o->port, &ss, &sl, &v6,
                 err))
        return NULL;
    struct gp_server *s = calloc (1, sizeof *s);
    if (!s) {
        gp_errprintf (err, GP_ENOMEM, "serve: out of memory");
        return NULL;
    }
    s->cat = cat;
    s->max_body = o->max_body;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD
                     | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_AUTO;
    if (v6)
        flags |= MHD_USE_IPv6;
    s->d = MHD_start_daemon (
        flags, (uint16_t)o->port, NULL, NULL, on_request, s,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)o->timeout_s,
        MHD_OPTION_CONNECTION_LIMIT,
        (unsigned int)(o->max_conns ? o->max_conns : 1),
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL, MHD_OPTION_END);
    if (!s->d) {
        gp_errprintf (err, GP_EIO, "serve: cannot listen on %s port %d "
                                   "(address in use or not available)",
                      o->host ? o->host : "127.0.0.1", o->port);
        free (s);
        return NULL;
    }
    const union MHD_DaemonInfo *di =
        MHD_get_daemon_info (s->d, MHD_DAEMON_INFO_BIND_PORT);
    s->port = di ? (int)di->port : o->port;
    (void)sl;
    return s;
}

int gp_serve_port (const struct gp_server *s)
{
    return s ? s->port : 0;
}

void gp_serve_stop (struct gp_server *s)
{
    if (!s)
        return;
    MHD_stop_daemon (s->d);
    free (s);
}
