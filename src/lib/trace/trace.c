/* trace.c - job sets and the trace reader: one ops table per format
 * (fmt_<name>.c, trace_private.h), chosen by name or by the header.
 *
 * Each format is a row callback over the streaming CSV reader: the header
 * row resolves column indices, every later row becomes one gp_job or one
 * error "file:line: column 'x': problem".  With GP_TRACE_SKIP_BAD the error
 * is counted and the first one kept instead.  Formats with absolute dates
 * (Philly-derived, sacct) are re-based so the earliest submit is time 0.
 * The formats are described in docs/formats/traces.md.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_private.h"

static const char *const format_names[GP_TRACE_N_FORMATS] = {
    "auto", "generic", "philly", "tiresias", "pollux", "gavel",
    "alibaba2023", "sacct",
};

const char *gp_trace_format_str (enum gp_trace_format f)
{
    if ((int)f < 0 || f >= GP_TRACE_N_FORMATS)
        return NULL;
    return format_names[f];
}

int gp_trace_format_parse (const char *s, enum gp_trace_format *out,
                           gp_error_t *err)
{
    for (int i = 0; s && i < GP_TRACE_N_FORMATS; i++)
        if (strcmp (s, format_names[i]) == 0) {
            *out = (enum gp_trace_format)i;
            return 0;
        }
    return gp_errprintf (err, GP_ENOTFOUND,
                         "unknown trace format '%s' (valid: auto, generic, "
                         "philly, tiresias, pollux, alibaba2023, sacct)",
                         s ? s : "");
}

/* ------------------------------ job sets ------------------------------ */

struct gp_jobset *gp_jobset_create (void)
{
    return calloc (1, sizeof (struct gp_jobset));
}

void gp_jobset_destroy (struct gp_jobset *js)
{
    if (!js)
        return;
    for (size_t i = 0; i < js->n_teams; i++)
        free (js->teams[i]);
    for (size_t i = 0; i < js->n_pools; i++)
        free (js->pools[i]);
    free (js->teams);
    free (js->pools);
    free (js->jobs);
    free (js);
}

int gp_jobset_add (struct gp_jobset *js, const struct gp_job *job)
{
    if (js->n_jobs == js->cap_jobs) {
        size_t cap = js->cap_jobs ? js->cap_jobs * 2 : 1024;
        struct gp_job *nj = realloc (js->jobs, cap * sizeof *nj);
        if (!nj)
            return GP_ENOMEM;
        js->jobs = nj;
        js->cap_jobs = cap;
    }
    js->jobs[js->n_jobs++] = *job;
    return 0;
}

static int append (char ***tab, size_t *n, const char *name)
{
    if (*n >= INT32_MAX)
        return -1;
    char **nt = realloc (*tab, (*n + 1) * sizeof *nt);
    if (!nt)
        return -1;
    *tab = nt;
    size_t len = strlen (name);
    char *copy = malloc (len + 1);
    if (!copy)
        return -1;
    memcpy (copy, name, len + 1);
    nt[*n] = copy;
    return (int)(*n)++;
}

static int intern (char ***tab, size_t *n, const char *name)
{
    /* Linear search, for callers that build small job sets themselves
     * (the readers use gp__tr_intern's hash).  The last hit is checked
     * first since rows of one team often come together.
     */
    for (size_t i = *n; i-- > 0;)
        if (strcmp ((*tab)[i], name) == 0)
            return (int)i;
    return append (tab, n, name);
}

static uint64_t name_hash (const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a, 64 bit */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Insert index 'i' of 'name' into 'x' (known absent, room left). */
static void idx_put (struct nameidx *x, const char *name, size_t i)
{
    size_t k = (size_t)name_hash (name) & (x->cap - 1);
    while (x->slot[k])
        k = (k + 1) & (x->cap - 1);
    x->slot[k] = (uint32_t)i + 1;
}

/* Grow 'x' to hold 'n' + 1 names at most half full; 0 or -1. */
static int idx_reserve (struct nameidx *x, char **tab, size_t n)
{
    if (2 * (n + 1) <= x->cap)
        return 0;
    size_t cap = x->cap ? 2 * x->cap : 64;
    while (2 * (n + 1) > cap)
        cap *= 2;
    uint32_t *s = calloc (cap, sizeof *s);
    if (!s)
        return -1;
    free (x->slot);
    x->slot = s;
    x->cap = cap;
    for (size_t i = 0; i < n; i++)
        idx_put (x, tab[i], i);
    return 0;
}

int gp__tr_intern (struct rd *r, int pool, const char *name)
{
    struct nameidx *x = pool ? &r->pool_idx : &r->team_idx;
    char ***tab = pool ? &r->js->pools : &r->js->teams;
    size_t *n = pool ? &r->js->n_pools : &r->js->n_teams;
    if (idx_reserve (x, *tab, *n) != 0)
        return -1;
    size_t k = (size_t)name_hash (name) & (x->cap - 1);
    for (; x->slot[k]; k = (k + 1) & (x->cap - 1))
        if (strcmp ((*tab)[x->slot[k] - 1], name) == 0)
            return (int)(x->slot[k] - 1);
    int i = append (tab, n, name);
    if (i >= 0)
        x->slot[k] = (uint32_t)i + 1;
    return i;
}

static void rd_free (struct rd *r)
{
    free (r->team_idx.slot);
    free (r->pool_idx.slot);
    r->team_idx = r->pool_idx = (struct nameidx){0};
}

int gp_jobset_team (struct gp_jobset *js, const char *name)
{
    return intern (&js->teams, &js->n_teams, name);
}

int gp_jobset_pool (struct gp_jobset *js, const char *name)
{
    return intern (&js->pools, &js->n_pools, name);
}


/* ------------------------------ formats ------------------------------- */

/* By enum gp_trace_format (GP_TRACE_AUTO has none). */
static const struct gp_trace_format_ops *const formats[GP_TRACE_N_FORMATS] = {
    [GP_TRACE_GENERIC] = &gp__trace_generic,
    [GP_TRACE_PHILLY] = &gp__trace_philly,
    [GP_TRACE_TIRESIAS] = &gp__trace_tiresias,
    [GP_TRACE_POLLUX] = &gp__trace_pollux,
    [GP_TRACE_GAVEL] = &gp__trace_gavel,
    [GP_TRACE_ALIBABA2023] = &gp__trace_alibaba2023,
    [GP_TRACE_SACCT] = &gp__trace_sacct,
};

/* Detection order: specific headers first, tab-separated Gavel next; the
 * generic CSV is the fallback.
 */
static const struct gp_trace_format_ops *const detect_order[] = {
    &gp__trace_philly, &gp__trace_tiresias, &gp__trace_pollux,
    &gp__trace_alibaba2023, &gp__trace_sacct, &gp__trace_gavel,
};

enum gp_trace_format gp_trace_detect (const char *data, size_t len)
{
    char head[1024];
    size_t n = 0;
    while (n < len && n < sizeof head - 1 && data[n] != '\n'
           && data[n] != '\r')
        n++;
    memcpy (head, data, n);
    head[n] = '\0';
    for (size_t i = 0; i < sizeof detect_order / sizeof *detect_order; i++)
        if (detect_order[i]->detect (head))
            return detect_order[i]->id;
    return GP_TRACE_GENERIC;
}

static int on_row (const struct gp_csv_row *row, void *arg, gp_error_t *err)
{
    struct rd *r = arg;
    const struct gp_trace_format_ops *f = formats[r->fmt];
    if (row->index == 0 && f->cols) {
        r->rebase = f->rebase;
        if (f->default_team
            && (r->default_team = gp__tr_intern (r, 0, "default")) < 0)
            return gp_errprintf (err, GP_ENOMEM, "%s:%zu: out of memory",
                                 r->name, row->line);
        return gp__tr_map_header (r, row, f->cols, err);
    }
    if (r->opts->limit && r->js->n_jobs >= r->opts->limit)
        return 0;
    struct gp_job j;
    gp__tr_job_init (&j, row->line, f->cols ? row->index - 1 : row->index);
    gp_error_t e = {0};
    int rc;
    if (f->cols && row->n_fields != r->n_fields)
        rc = gp__tr_bad (r, row, &e, NULL,
                         "%zu fields where the header has %zu",
                         row->n_fields, r->n_fields);
    else if (!(rc = gp__tr_check_names (r, row, f->cols, &e)))
        rc = f->row (r, row, &j, &e);
    if (rc == 1) {
        r->js->n_ignored++;
        return 0;
    }
    if (rc == GP_EPARSE && (r->opts->flags & GP_TRACE_SKIP_BAD)) {
        if (r->js->n_skipped++ == 0)
            memcpy (r->js->first_skip, e.text, sizeof r->js->first_skip);
        return 0;
    }
    if (rc) {
        if (!e.text[0]) /* a helper's bare status (out of memory) */
            return gp_errprintf (err, rc, "%s:%zu: %s", r->name, row->line,
                                 gp_strerror (rc));
        if (err)
            *err = e;
        return rc;
    }
    if (gp_jobset_add (r->js, &j) != 0)
        return gp_errprintf (err, GP_ENOMEM, "%s:%zu: out of memory",
                             r->name, row->line);
    return 0;
}

static struct gp_jobset *finish (struct rd *r, int rc, gp_error_t *err)
{
    const struct gp_trace_format_ops *f = formats[r->fmt];
    if (f->fini)
        f->fini (r);
    rd_free (r);
    if (rc == 0 && r->js->n_jobs == 0 && r->js->n_skipped == 0
        && r->js->n_ignored == 0)
        rc = gp_errprintf (err, GP_EPARSE, "%s: no jobs (empty trace)",
                           r->name);
    if (rc) {
        gp_jobset_destroy (r->js);
        return NULL;
    }
    if (r->rebase && r->js->n_jobs) {
        double t0 = r->js->jobs[0].submit_s;
        for (size_t i = 1; i < r->js->n_jobs; i++)
            if (r->js->jobs[i].submit_s < t0)
                t0 = r->js->jobs[i].submit_s;
        for (size_t i = 0; i < r->js->n_jobs; i++)
            r->js->jobs[i].submit_s -= t0;
    }
    snprintf (r->js->format, sizeof r->js->format, "%s",
              format_names[r->fmt]);
    return r->js;
}

static int setup (struct rd *r, const char *name,
                  const struct gp_trace_opts *opts, const char *head,
                  size_t len, gp_error_t *err)
{
    static const struct gp_trace_opts defaults = {.format = GP_TRACE_AUTO};
    memset (r, 0, sizeof *r);
    r->opts = opts ? opts : &defaults;
    r->name = name;
    r->fmt = r->opts->format;
    if (r->fmt == GP_TRACE_AUTO)
        r->fmt = gp_trace_detect (head, len);
    if ((int)r->fmt <= 0 || r->fmt >= GP_TRACE_N_FORMATS)
        return gp_errprintf (err, GP_ENOTSUP,
                             "%s: trace format %d is not supported by the "
                             "simulator's reader",
                             name, (int)r->fmt);
    const struct gp_trace_format_ops *f = formats[r->fmt];
    r->js = gp_jobset_create ();
    if (!r->js)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    int rc = f->setup ? f->setup (r, err) : 0;
    if (rc) {
        if (f->fini)
            f->fini (r);
        rd_free (r);
        gp_jobset_destroy (r->js);
    }
    return rc;
}

struct gp_jobset *gp_trace_parse (const char *data, size_t len,
                                  const char *name,
                                  const struct gp_trace_opts *opts,
                                  gp_error_t *err)
{
    if (!data || !name) {
        gp_errprintf (err, GP_EINVAL, "gp_trace_parse: NULL argument");
        return NULL;
    }
    struct rd r;
    if (setup (&r, name, opts, data, len, err))
        return NULL;
    int rc = gp__tr_csv_parse (data, len, name, formats[r.fmt]->delim,
                               on_row, &r, err);
    return finish (&r, rc, err);
}

/* The trace on standard input ("-"), read whole and parsed as
 * "<stdin>".
 */
static struct gp_jobset *read_stdin (const struct gp_trace_opts *opts,
                                     gp_error_t *err)
{
    size_t n = 0, cap = 1 << 16;
    char *buf = malloc (cap);
    while (buf) {
        if (n == cap) {
            char *nb = realloc (buf, cap * 2);
            if (!nb)
                break;
            buf = nb;
            cap *= 2;
        }
        size_t got = fread (buf + n, 1, cap - n, stdin);
        n += got;
        if (got == 0) {
            if (ferror (stdin)) {
                free (buf);
                gp_errprintf (err, GP_EIO, "<stdin>: read error");
                return NULL;
            }
            struct gp_jobset *js = gp_trace_parse (buf, n, "<stdin>", opts,
                                                   err);
            free (buf);
            return js;
        }
    }
    free (buf);
    gp_errprintf (err, GP_ENOMEM, "<stdin>: out of memory");
    return NULL;
}

struct gp_jobset *gp_trace_read (const char *path,
                                 const struct gp_trace_opts *opts,
                                 gp_error_t *err)
{
    if (!path) {
        gp_errprintf (err, GP_EINVAL, "gp_trace_read: NULL argument");
        return NULL;
    }
    if (strcmp (path, "-") == 0)
        return read_stdin (opts, err);
    FILE *f = fopen (path, "rb");
    if (!f) {
        gp_errprintf (err, GP_EIO, "%s: %s", path, strerror (errno));
        return NULL;
    }
    char head[1024];
    size_t n = fread (head, 1, sizeof head, f);
    fclose (f);
    struct rd r;
    if (setup (&r, path, opts, head, n, err))
        return NULL;
    int rc = gp__tr_csv_parse_file (path, formats[r.fmt]->delim, on_row, &r,
                                    err);
    return finish (&r, rc, err);
}
